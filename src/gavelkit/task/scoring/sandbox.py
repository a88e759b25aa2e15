"""One pytest invocation inside the run's sandbox, and its raw result.

The test process is `python -s -S -c <boot>` (`boot`: no `site`, so no sitecustomize and
no .pth but the environment's own; a sys.path where nothing of the solution or the
worktree comes before the standard library or the runner), with plugin autoload off, no
cache provider, gavel's own ini file and root folder, only the plugins the requirements
name (minus those the oracle disables with `-p no:NAME`; never the candidate's own), our
result plugin under a random module name reporting over an inherited pipe with an HMAC,
its configuration in an anonymous memory file, rlimits, a per-test SIGALRM limit, a
parent-side watchdog that kills a test that stops reporting, a wall limit that kills the
process group, and a pids cgroup where the machine has one. With bubblewrap the process
sees only what scoring needs (`view`): no network, no capabilities, the environment
read-only. `Sandbox.run` returns a `FileRun` with the authenticated messages; what they
mean is decided in `results`.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gavelkit.task.scoring.view import venv_cfg, venv_home
from gavelkit.task.scoring.warm import (
    TMP_MB,
    boot_command,
    boot_environ,
    bwrap_args,
    child_environ,
)

_BWRAP: dict[str, Any] = {}
WATCHDOG_GRACE = 30.0  # s a test may run past its own limit before the parent kills it
COLLECT_FLOOR = 60.0  # s a collection may go without reporting (6x the per-test limit if more)
MAX_LINE = 8 << 20  # bytes of one result line; more without a newline is garbage, dropped


def bwrap_available() -> tuple[bool, str]:
    """Is bubblewrap installed and allowed to create namespaces here? (probed once).

    GAVEL_NO_BWRAP=1 answers no without probing: the run is then scored as on a machine
    without bubblewrap, and says so (TSK-X006); the test suite uses it to check that a
    fresh machine without bwrap still tests every rule both ways.
    """
    if os.environ.get("GAVEL_NO_BWRAP", "") not in ("", "0"):
        return False, "bubblewrap switched off (GAVEL_NO_BWRAP is set)"
    if "ok" not in _BWRAP:
        exe = shutil.which("bwrap")
        if exe is None:
            _BWRAP.update(ok=False, why="bwrap is not installed")
        else:
            try:
                p = subprocess.run([exe, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-all",
                                    "--die-with-parent", "--cap-drop", "ALL", "true"],
                                   capture_output=True, text=True, timeout=20, check=False)
                ok = p.returncode == 0
                _BWRAP.update(ok=ok, why="" if ok else f"bwrap cannot create namespaces here: "
                              f"{p.stderr.strip()[:200]}", exe=exe)
            except (OSError, subprocess.TimeoutExpired) as exc:
                _BWRAP.update(ok=False, why=f"bwrap failed to start: {exc}")
    return bool(_BWRAP["ok"]), str(_BWRAP.get("why", ""))


def confine(cmd: list[str], *, writable: list[Path] = (), hidden: list[Path] = (),
            network: bool = False, cwd: Path | None = None) -> tuple[list[str], dict[str, Any]]:
    """`cmd` under bubblewrap for the other places candidate code runs (a project's build,
    interpreter start with its .pth files, the judge's literal import): every file
    read-only except `writable`, `hidden` folders replaced by empty ones (the task and its
    oracle), no network unless `network`. Without bubblewrap the command runs as it is;
    the record says which, and why."""
    ok, why = bwrap_available()
    if not ok:
        return cmd, {"active": False, "why": why}
    for w in writable:
        Path(w).mkdir(parents=True, exist_ok=True)
    wrap = bwrap_args(_BWRAP.get("exe") or shutil.which("bwrap") or "bwrap", hidden=hidden,
                      writable=writable, network=network, chdir=cwd)
    return [*wrap, *cmd], {
        "active": True, "mechanism": "bubblewrap",
        "network": "allowed" if network else "blocked",
        "writable": [str(w) for w in writable], "hidden": [str(h) for h in hidden]}


def sandbox_ok(exe: str) -> None:
    """Record that bubblewrap at `exe` works here, shown by a process that ran inside it
    with the full options (warm.Warm.wait_ready): the probe is then not needed."""
    if "ok" not in _BWRAP:
        _BWRAP.update(ok=True, why="", exe=exe)


@dataclass(slots=True)
class FileRun:
    """One pytest process: which files it ran and what came back."""
    file: str
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    messages: list[dict[str, Any]]
    bad_macs: int
    killed: bool
    files: tuple[str, ...] = ()
    launch_error: str = ""
    watchdog: str = ""  # why the parent killed a test that stopped reporting


_PIPE_SIZE = 1 << 20  # the unprivileged maximum by default (/proc/sys/fs/pipe-max-size)


def _widen(fd: int) -> None:
    """A 1 MiB pipe buffer, so the test process rarely waits on a slow reader."""
    import fcntl

    with contextlib.suppress(OSError, AttributeError):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)


class _Messages:
    """Authenticated result lines, checked as they arrive (while the tests still run).

    A line is 64 hex digits of HMAC-SHA256 under the run's key, a space, and the JSON
    payload; anything else (a forged, truncated or garbled line) counts as a bad MAC."""

    def __init__(self, key: bytes) -> None:
        self.key = key
        self.messages: list[dict[str, Any]] = []
        self.bad = 0
        self._rest = b""
        self.last = time.monotonic()  # when the last line arrived (the watchdog reads it)
        self.running: str | None = None  # the test that has started and not reported
        self.collecting = False  # between the conftest files and the end of collection

    def feed(self, chunk: bytes, final: bool = False) -> None:
        data = self._rest + chunk
        if final:
            lines, self._rest = data.split(b"\n"), b""
        else:
            *lines, self._rest = data.split(b"\n")
            if len(self._rest) > MAX_LINE:  # no line of gavel's is this long: garbage
                self.bad += 1
                self._rest = b""
        for raw in lines:
            for line in raw.decode("utf-8", "replace").splitlines():
                self._one(line)

    def _one(self, line: str) -> None:
        mac, sep, payload = line.partition(" ")
        try:  # whatever the test process wrote, the reader must not die (it would hang it)
            want = hmac.digest(self.key, payload.encode("utf-8", "replace"), "sha256")
            ok = bool(sep) and hmac.compare_digest(want.hex().encode(),
                                                   mac.encode("utf-8", "replace"))
            msg = json.loads(payload) if ok else None
        except Exception:  # counted as a bad line
            msg = None
        if isinstance(msg, dict):
            self.messages.append(msg)
            self.last = time.monotonic()
            t = msg.get("t")
            if t == "start":
                self.running = str(msg.get("nodeid"))
            elif t == "report" and msg.get("when") == "teardown":
                self.running = None
            elif t == "conftests":
                self.collecting = True
            elif t == "collected":
                self.collecting = False
        else:
            self.bad += 1


def _read_pipe(fd: int, sink: _Messages, ended: threading.Event | None = None) -> None:
    """Drain the result pipe to EOF, checking lines as they come. Between reads it pauses
    (until the process has ended): waking for every ~400-byte line cost the test process
    two context switches per line (~20 ms of CPU on 295 tests); the widened pipe holds
    what arrives meanwhile."""
    with os.fdopen(fd, "rb", buffering=0) as fh:
        while True:
            chunk = fh.read(_PIPE_SIZE)
            if not chunk:
                break
            sink.feed(chunk)
            if ended is not None:
                ended.wait(0.02)
    sink.feed(b"", final=True)


def _safe(name: str) -> str:
    return re.sub(r"[^\w.-]", "_", name)


def copy_plugin(plugdir: Path, modname: str, env_path: Path | None = None) -> None:
    """The result plugin and its guard under the run's random module name; compiled here
    too when the task environment's interpreter is this one's version (see _compile)."""
    here = Path(__file__).parent
    compiled = env_path is not None and _same_python(env_path)
    for src, name in (("result_plugin.py", modname), ("plugin_guard.py", f"{modname}_guard")):
        shutil.copyfile(here / src, plugdir / f"{name}.py")
        if compiled:
            _compile(plugdir / f"{name}.py")


def _same_python(env_path: Path) -> bool:
    """Does the environment's interpreter read this interpreter's .pyc files (a CPython
    of the same minor version, per the venv's pyvenv.cfg)?"""
    cfg = venv_cfg(env_path)
    if not cfg:
        return False
    version = cfg.get("version_info") or cfg.get("version") or ""
    impl = cfg.get("implementation", "CPython").lower()
    return impl == sys.implementation.name == "cpython" and \
        version.split(".")[:2] == [str(v) for v in sys.version_info[:2]]


def _compile(path: Path) -> None:
    """The plugin's .pyc, written by gavel beside the copy (its folder is read-only in the
    sandbox, so the test process cannot replace it) and checked against the source's hash
    at import: the test process no longer compiles 700 lines of gavel from source on every
    run. Best effort: without it the module is compiled at import, as before."""
    import py_compile

    with contextlib.suppress(OSError, py_compile.PyCompileError):
        py_compile.compile(str(path), doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)


class Sandbox:
    """One run's private folders, interpreter, plugin copy and isolation settings."""

    def __init__(self, run_dir: Path, env: Any, import_root: Path | None, opts: Any,
                 use_bwrap: bool, disabled_plugins: list[str] | None = None) -> None:
        self.run_dir = run_dir
        self.work = run_dir / "work"
        self.scratch = run_dir / "scratch"
        self.env = env
        self.import_root = import_root
        self.opts = opts
        self.bwrap = use_bwrap
        self.disabled = set(disabled_plugins or [])
        self.plugdir = run_dir / "plugin"
        self.plugdir.mkdir(parents=True, exist_ok=True)
        self.modname = "gk_" + os.urandom(6).hex()
        copy_plugin(self.plugdir, self.modname, Path(env.path) if env is not None else None)
        self.ini = self.plugdir / "gavel-pytest.ini"
        self.hidden: list[Path] = []
        self.warm: Any = None  # a prestarted process for the first launch (warm.Warm)
        self.plugin_cfg: dict[str, Any] = {}  # integrity configuration (runner: integrity)
        self.front: list[str] = [str(self.plugdir)]  # before the standard library
        self.limit: Any = None  # limits.ProcLimit
        self.site = "{}"  # GAVEL_SITE for the boot (warm.site_config)

    def limits(self) -> tuple[int, ...]:
        """GAVEL_LIMITS: address space MB, CPU s, file size MB, processes (0: a cgroup)."""
        from gavelkit.task.scoring.warm import nproc_limit

        o = self.opts
        cgroup = self.limit is not None and self.limit.path is not None
        return (o.memory_mb, o.cpu_seconds, o.fsize_mb, nproc_limit(cgroup, self.bwrap))

    def plugin_names(self) -> list[str]:
        return [n for n in self.env.plugin_args() if n not in self.disabled]

    def pytest_args(self, test_files: list[str], extra_args: list[str]) -> list[str]:
        """gavel's own options first; the oracle's vetted pytest_args; then the files."""
        args = ["-p", self.modname, "-p", "no:cacheprovider", "-c", str(self.ini),
                "--rootdir", str(self.work), "--confcutdir", str(self.work), "-q",
                "--no-header", "-o", "addopts=", "--continue-on-collection-errors"]
        for name in self.plugin_names():
            args += ["-p", name]
        return [*args, *extra_args, *test_files]

    def command(self, test_files: list[str], extra_args: list[str]) -> list[str]:
        """The whole command line of a cold start (pytest's arguments after the boot)."""
        return [*boot_command(self.env.python, self.bwrap and (_BWRAP.get("exe") or "bwrap"),
                              Path(self.env.path), self.run_dir,
                              getattr(self.opts, "tmp_mb", TMP_MB)),
                *self.pytest_args(test_files, extra_args)]

    def back(self) -> list[str]:
        """After the standard library and site-packages: the solution, then the worktree."""
        return [str(p) for p in (self.import_root, self.work) if p is not None]

    def go_message(self, expected: list[str], result_fd: int, key: bytes,
                   argv: list[str] | None) -> bytes:
        cfg = {**self.plugin_cfg, "key": key.hex(), "result_fd": result_fd,
               "expected": expected, "test_timeout": self.opts.test_timeout}
        env = child_environ(self.env.python, self.scratch,
                            [str(self.import_root)] if self.import_root else [])
        return json.dumps({"argv": argv, "env": env, "front": self.front, "back": self.back(),
                           "plugin": cfg}).encode("utf-8")

    def start(self, label: str, files: list[str], expected: list[str],
              extra_args: list[str], timeout: float | None = None) -> Any:
        """Launch one pytest process; `finish()` on the returned handle waits and reads.

        The first launch uses the prestarted process (`self.warm`, see `warm`) when there
        is one and it accepts the run; otherwise, and for every later launch, a cold one."""
        limit = self.opts.file_timeout if timeout is None else timeout
        warm, self.warm = self.warm, None
        if warm is not None:
            msg = self.go_message(expected, int(warm.result_fd), warm.key,
                                  self.pytest_args(files, extra_args))
            if warm.go(msg):
                return _Launch(self, label, files, extra_args, limit, warm=warm)
        return _Launch(self, label, files, extra_args, limit, expected=expected)

    def run(self, label: str, files: list[str], expected: list[str], extra_args: list[str],
            timeout: float | None = None) -> FileRun:
        return self.start(label, files, expected, extra_args, timeout).finish()


class _Launch:
    """A running pytest process with its result pipe, log file, kill timer and watchdog."""

    def __init__(self, box: Sandbox, label: str, files: list[str], extra_args: list[str],
                 timeout: float, warm: Any = None, expected: list[str] | None = None) -> None:
        self.box, self.label, self.files = box, label, files
        self.log_path = box.run_dir / "logs" / (_safe(label) + ".log")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.launch_error = ""
        self.watchdog_why = ""
        self.fired = threading.Event()
        self.ended = threading.Event()
        self.t0 = time.monotonic()
        self.proc: subprocess.Popen[bytes] | None = None
        if warm is not None:  # a prestarted process that has taken this run (warm.go)
            self.key, rfd, self.proc = warm.key, warm.rfd, warm.proc
            warm.rfd = -1
            os.replace(warm.log_path, self.log_path)
            self.log, self.errf = warm.log, warm.errf
        else:
            rfd = self._cold(box, files, extra_args, expected or [])
        self.sink = _Messages(self.key)
        self.reader = threading.Thread(target=_read_pipe, args=(rfd, self.sink, self.ended),
                                       daemon=True)
        self.reader.start()
        self.timer = threading.Timer(timeout, self._kill)
        self.timer.daemon = True
        if self.proc is not None:
            self.timer.start()
            threading.Thread(target=self._watch, daemon=True).start()

    def _cold(self, box: Sandbox, files: list[str], extra_args: list[str],
              expected: list[str]) -> int:
        """Start a cold test process; the read end of its result pipe."""
        self.key = os.urandom(32)
        rfd, wfd = os.pipe()
        _widen(wfd)
        crfd, cwfd = os.pipe()
        self.log = open(self.log_path, "wb")  # noqa: SIM115 - closed in finish()
        self.errf = tempfile.TemporaryFile()  # noqa: SIM115
        env = boot_environ(box.env.python, box.scratch, box.limits(), box.site, crfd)
        try:
            with box.limit.spawning() if box.limit is not None else contextlib.nullcontext():
                self.proc = subprocess.Popen(
                    box.command(files, extra_args), cwd=box.work, env=env, stdout=self.log,
                    stderr=self.errf, stdin=subprocess.DEVNULL, pass_fds=(wfd, crfd),
                    start_new_session=True)
        except OSError as exc:  # the interpreter itself cannot be started
            self.launch_error = f"the scoring interpreter cannot start: {exc}"
        finally:
            os.close(wfd)
            os.close(crfd)
        if self.proc is not None:
            msg = box.go_message(expected, wfd, self.key, None)
            with contextlib.suppress(OSError):
                view = memoryview(msg)
                while view:
                    view = view[os.write(cwfd, view):]
        os.close(cwfd)
        return rfd

    def _kill(self, why: str = "") -> None:  # a timer, not wait(timeout=): that blocks
        self.watchdog_why = self.watchdog_why or why
        self.fired.set()
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)

    def _watch(self) -> None:
        """Kill a test that has stopped reporting for its limit plus a grace period, and a
        collection that has (the oracle's conftest and test modules import the candidate's
        code): the test process's own SIGALRM can be blocked, this cannot."""
        limit = float(self.box.opts.test_timeout or 0)
        if limit <= 0:
            return
        grace = max(WATCHDOG_GRACE, limit / 2)
        collecting = max(COLLECT_FLOOR, 6 * limit)
        while not self.ended.wait(1.0):
            why = self._stalled(limit + grace, collecting)
            if why:
                self._kill(why + " (killed by gavel's watchdog)")
                return

    def _stalled(self, per_test: float, collecting: float) -> str:
        sink, idle = self.sink, time.monotonic() - self.sink.last
        if sink.running and idle > per_test:
            return f"{sink.running} reported nothing for {per_test:.0f} s"
        if sink.collecting and idle > collecting:
            return f"collection reported nothing for {collecting:.0f} s"
        return ''

    def finish(self) -> FileRun:
        try:
            rc = self.proc.wait() if self.proc is not None else 127
        finally:
            self.timer.cancel()
            self.ended.set()  # the reader drains the rest without pausing
        self.reader.join(timeout=30)
        self.log.close()
        self.errf.seek(0)
        stderr = self.errf.read().decode("utf-8", "replace") or self.launch_error
        self.errf.close()
        stdout = self.log_path.read_text("utf-8", "replace")
        if self.box.limit is not None:
            self.box.limit.kill_all()  # what it left behind, also outside its session
        messages, bad = list(self.sink.messages), self.sink.bad
        if self.reader.is_alive():  # something still holds the pipe: a partial line is bad
            bad += 1 if self.sink._rest.strip() else 0
        return FileRun(self.label, rc, stdout[-20000:], stderr[-20000:],
                       time.monotonic() - self.t0, messages, bad, self.fired.is_set(),
                       tuple(self.files), self.launch_error, self.watchdog_why)


__all__ = ["FileRun", "Sandbox", "bwrap_available", "confine", "copy_plugin", "sandbox_ok",
           "venv_home"]
