"""Start of every test process: limits, then a sys.path gavel builds, then `python -m pytest`.

Run as `python -s -S -c <this file's text>` inside the sandbox. `-S` means Python's `site`
never runs: no sitecustomize or usercustomize in any form (module, package, .pyc,
extension), and no .pth file but the ones gavel allows (those of the task environment's
own distributions; `GAVEL_SITE` lists them). What site would do for the environment is
done here instead: its prefix, its site-packages, the allowed .pth files, the builtins.

sys.path is then: gavel's result plugin, the target package when the environment also
provides that name (a folder holding only it), the standard library, site-packages, and
last the solution's import root and the worktree. So no module of the solution or of the
worktree can stand in for one of the standard library or of the test runner: they are
found first where they belong, and pytest starts on the environment's own code.

The go message (read from GAVEL_CONTROL_FD: at once for a cold start, after the warm-up
for a prestarted process) carries pytest's arguments, the process environment (with the
PYTHONPATH its child processes get) and the result plugin's configuration, which is
handed over in an anonymous memory file named by GAVEL_CONFIG_FD and read by the plugin
before any other code runs. A prestarted process imports pytest first and says `ready` on
GAVEL_STATUS_FD; then `go`, or `cold NAMES` when a module it already imported would now be
found in one of the run's own folders (it exits, and gavel starts the process cold).
Standard library only: it runs in the task's environment.
"""

import os
import sys


def _limit(spec):
    """The test process's rlimits (address space MB, CPU s, file size MB, processes), set
    first thing rather than in a preexec_fn, which would make the parent fork instead of
    vfork."""
    import resource

    parts = [int(x) for x in spec.split(",")]
    memory_mb, cpu, fsize_mb = parts[:3]
    limits = [(resource.RLIMIT_AS, memory_mb * 1024 * 1024), (resource.RLIMIT_CPU, cpu),
              (resource.RLIMIT_FSIZE, fsize_mb * 1024 * 1024), (resource.RLIMIT_CORE, 0)]
    if len(parts) > 3 and parts[3] > 0 and hasattr(resource, "RLIMIT_NPROC"):
        limits.append((resource.RLIMIT_NPROC, parts[3]))
    for lim, val in limits:
        hard = val + 5 if lim == resource.RLIMIT_CPU else val
        try:
            resource.setrlimit(lim, (val, hard))
        except (ValueError, OSError):  # a limit above the hard limit the machine already
            continue  # sets is left at the machine's


def _pth(path):
    """One allowed .pth file, as site.addpackage reads it."""
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return
    base = os.path.dirname(path)
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith(("import ", "import\t")):
            try:  # as site.addpackage: a failing line is reported and skipped
                exec(line)  # what site does with an import line of an allowed .pth
            except Exception as exc:
                sys.stderr.write(f"Error processing line of {path}: {exc!r}\n")
            continue
        d = os.path.abspath(os.path.join(base, line.rstrip()))
        if d not in sys.path and os.path.exists(d):
            sys.path.append(d)


def _site(spec):
    """What site would do for the task environment, without running the solution's code."""
    import json

    cfg = json.loads(spec)
    if cfg.get("prefix"):
        sys.prefix = sys.exec_prefix = cfg["prefix"]
    for d in cfg.get("dirs", []):
        if d not in sys.path:
            sys.path.append(d)
    for p in cfg.get("pth", []):
        _pth(p)
    import site

    site.setquit()
    site.setcopyright()
    site.sethelper()


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
        if getattr(spec, "origin", None) in ("built-in", "frozen"):
            continue
        out.add(name.partition(".")[0])
    return out


def _read_all(fd):
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def _hand_over(config):
    """The plugin's configuration in an anonymous memory file (no name, no environment
    variable holding it): the plugin reads it, closes it and forgets the variable."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("gavel-config")
    else:  # pragma: no cover - Linux has memfd_create
        import tempfile

        with tempfile.TemporaryFile() as fh:
            fd = os.dup(fh.fileno())
    view = memoryview(config)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, 0)
    os.environ["GAVEL_CONFIG_FD"] = str(fd)


def _drop_cwd():
    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]  # the working folder: the worktree, which tests may write


def _answer(status, front):
    """A prestarted process: `go` (and close the status pipe), or `cold NAMES` and exit
    when one of the run's own folders would shadow a module the warm-up imported."""
    clash = set()
    for folder in front:
        clash |= _names(folder)
    clash &= _loaded()
    if clash:
        os.write(status, ("cold " + " ".join(sorted(clash)) + "\n").encode())
        os._exit(0)
    os.write(status, b"go\n")
    os.close(status)


def _main():
    _limit(os.environ.pop("GAVEL_LIMITS"))
    ctl = int(os.environ.pop("GAVEL_CONTROL_FD"))
    status = os.environ.pop("GAVEL_STATUS_FD", None)
    status = int(status) if status is not None else None
    _drop_cwd()
    _site(os.environ.pop("GAVEL_SITE", "{}"))
    import json
    import runpy

    if status is not None:
        import pytest  # noqa: F401 - the warm-up

        os.write(status, b"ready\n")
    raw = _read_all(ctl)
    if not raw:  # cancelled: gavel scores another way
        os._exit(0)
    go = json.loads(raw.decode("utf-8"))
    if status is not None:
        _answer(status, go["front"])
    os.environ.clear()
    os.environ.update(go["env"])
    _hand_over(json.dumps(go["plugin"]).encode("utf-8"))
    sys.path[:] = [*go["front"], *[p for p in sys.path if p], *go["back"]]
    argv = go.get("argv")  # a prestarted process's; a cold one has them on its command line
    sys.argv = ["-c", *(sys.argv[1:] if argv is None else argv)]
    runner = getattr(runpy, "_run_module_as_main", None)  # what `python -m` itself calls
    try:
        if runner is not None:
            runner("pytest", False)
        else:  # pragma: no cover - every CPython since 2.7 has it
            runpy.run_module("pytest", run_name="__main__", alter_sys=True)
    except SystemExit as done:
        _exit_now(done.code)
    _exit_now(0)


def _exit_now(code):
    """Leave as soon as pytest is done, without the interpreter's teardown: the results
    went out with the last signed line, and what teardown runs (atexit handlers, module
    and object finalisers: anyone's code, the candidate's included) can add nothing to
    them; it also costs tens of milliseconds of every run."""
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)  # what Python prints for `sys.exit("message")`
        code = 1
    import contextlib

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed or replaced stream: nothing to write
            stream.flush()
    os._exit(code & 0xFF)


_main()
