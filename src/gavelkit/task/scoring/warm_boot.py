"""Start of a prestarted test process: import pytest, wait for the run, then be `python -m pytest`.

Run as `python -s -c <this file's text>` inside the sandbox while gavel still prepares the
run (copies, hashes, provenance): importing pytest is most of a short suite's start-up,
and nothing of the run is needed for it. Before the go message nothing from the working
folder or the solution is importable (the working folder is taken off sys.path), so no
candidate code runs here. The go message carries exactly what a cold start would have had
from the start (sys.path entries, environment, pytest's arguments). A module imported
during the warm-up that one of the run's own folders would shadow (a solution that ships
`pluggy`, say) would make this process test the wrong code: then it answers `cold` and
exits, and gavel starts the process cold. Standard library only: it runs in the task's
environment.

Status pipe: `ready` after the warm-up; then `go` (tests start) or `cold NAMES`; it is
closed before pytest runs, so test code cannot write to it.
"""

import os
import sys


def _names(folder):
    """Top-level module names a sys.path folder provides (any sub-folder counts)."""
    out = set()
    try:
        entries = os.listdir(folder)
    except OSError:
        return out
    for entry in entries:
        stem = entry.split(".", 1)[0]
        if entry.endswith((".py", ".pyc", ".pyw", ".so", ".pyd")):
            out.add(stem)
        elif os.path.isdir(os.path.join(folder, entry)):
            out.add(entry)
    return out


def _loaded():
    """Top-level names of the modules imported from files (built-in and frozen modules are
    found before any sys.path folder, so nothing can shadow them)."""
    out = set()
    for name, mod in list(sys.modules.items()):
        spec = getattr(mod, "__spec__", None)
        origin = getattr(spec, "origin", None)
        if origin in ("built-in", "frozen"):
            continue
        out.add(name.partition(".")[0])
    return out


def _limit(spec):
    """The test process's rlimits (address space MB, CPU s, file size MB), set here first
    thing rather than in a preexec_fn, which would make the parent fork instead of vfork."""
    import resource

    memory_mb, cpu, fsize_mb = (int(x) for x in spec.split(","))
    for lim, val in ((resource.RLIMIT_AS, memory_mb * 1024 * 1024), (resource.RLIMIT_CPU, cpu),
                     (resource.RLIMIT_FSIZE, fsize_mb * 1024 * 1024), (resource.RLIMIT_CORE, 0)):
        hard = val + 5 if lim == resource.RLIMIT_CPU else val
        try:
            resource.setrlimit(lim, (val, hard))
        except (ValueError, OSError):  # as the cold start's preexec_fn: a limit above the
            continue  # hard limit the machine already sets is left at the machine's


def _main():
    _limit(os.environ.pop("GAVEL_LIMITS"))
    ctl = int(os.environ.pop("GAVEL_CONTROL_FD"))
    status = int(os.environ.pop("GAVEL_STATUS_FD"))
    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]  # the working folder: the oracle worktree is still being written
    import json
    import runpy

    import pytest  # noqa: F401 - the warm-up

    os.write(status, b"ready\n")
    chunks = []
    while True:
        chunk = os.read(ctl, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(ctl)
    if not chunks:  # cancelled: gavel scores another way
        os._exit(0)
    go = json.loads(b"".join(chunks).decode("utf-8"))
    clash = set()
    for folder in go["path"]:
        clash |= _names(folder)
    clash &= _loaded()
    if clash:
        os.write(status, ("cold " + " ".join(sorted(clash)) + "\n").encode())
        os._exit(0)
    os.write(status, b"go\n")
    os.close(status)
    os.environ.clear()
    os.environ.update(go["env"])
    sys.path[0:0] = go["path"]
    sys.argv = ["-c", *go["argv"]]
    runner = getattr(runpy, "_run_module_as_main", None)  # what `python -m` itself calls
    if runner is not None:
        runner("pytest", True)
    else:  # pragma: no cover - every CPython since 2.7 has it
        runpy.run_module("pytest", run_name="__main__", alter_sys=True)


_main()
