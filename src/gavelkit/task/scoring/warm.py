"""A test process started before the run is ready, so its pytest import overlaps our work.

On a suite of half a second, `gavel task run` spent ~85 ms before launching pytest
(imports, task loading, copies, hashes, provenance) and the test process then ~105 ms
importing pytest. `prestart` runs as soon as the command line is read (cli.task_early,
before argparse; else right after it): it finds the task's environment if it is already
built (`envkeys`, reads only), creates the run folder, and starts the sandboxed
interpreter with `boot`, which imports pytest and waits. The runner then prepares the
run as before and, at launch, either sends the go message (`Warm.go`) or cancels the
process. Nothing is taken on trust from the guess: the runner compares the interpreter,
environment, hidden folders, limits and isolation it would use with the ones this process
was started with, and starts cold on any difference, when the process died, or when it
reports a clash (a module it already imported that the run's folders shadow). Everything
else (sandbox, result plugin, pipes, limits) is the cold start's.

Light on purpose (os at import time): it runs before the rest of the runner is imported.
"""

from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# processes prestarted before the command's parser ran (cli.task_early), by argv
EARLY: dict[tuple[str, ...], Warm | NotStarted] = {}

READY_TIMEOUT = 60.0  # importing pytest takes well under a second
CPU_SECONDS = 1800  # RLIMIT_CPU of a test process (RunOptions.cpu_seconds)
FSIZE_MB = 512  # RLIMIT_FSIZE (RunOptions.fsize_mb)
PROCS = 256  # processes the test process and its children may have at once
TMP_MB = 1024  # each private tmpfs of a test process: /tmp, /var/tmp, scratch (RunOptions.tmp_mb)


def bwrap_args(exe: str, *, hidden: list[Path] = (), ro: list[Path] = (),
               writable: list[Path] = (), private_tmp: bool = False, network: bool = False,
               new_session: bool = False, chdir: Path | None = None, tmp_mb: int = 0,
               scratch: Path | None = None) -> list[str]:
    """The one bubblewrap command line (the test process and sandbox.confine): every file
    read-only, `hidden` folders empty, `ro` and `writable` bound over them, no network
    unless asked, no capabilities (a sandbox started by root otherwise keeps them, and
    CAP_SYS_ADMIN remounts the read-only root writable). `private_tmp`: /tmp and /var/tmp
    are private tmpfs of `tmp_mb` MB each (0: no size cap), and so is `scratch` (the
    HOME and TMPDIR of the test process). Ends with `--`: append the command."""
    wrap = [exe, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    size = ["--size", str(tmp_mb * 1024 * 1024)] if tmp_mb > 0 else []
    if private_tmp:
        wrap += [*size, "--tmpfs", "/tmp", *size, "--tmpfs", "/var/tmp"]
    for h in hidden:
        wrap += ["--tmpfs", str(h)]
    for p in ro:
        wrap += ["--ro-bind", str(p), str(p)]
    if scratch is not None:
        wrap += [*size, "--tmpfs", str(scratch), "--dir", str(scratch / "home"),
                 "--dir", str(scratch / "tmp")]
    for w in writable:
        wrap += ["--bind", str(w), str(w)]
    wrap += ["--unshare-all", *(["--share-net"] if network else []), "--die-with-parent",
             "--cap-drop", "ALL"]
    if new_session:
        wrap.append("--new-session")
    if chdir is not None:
        wrap += ["--chdir", str(chdir)]
    return [*wrap, "--"]


def boot_command(python: str, bwrap: str | None, env_path: Path, run_dir: Path,
                 tmp_mb: int) -> list[str]:
    """The test process (cold or prestarted): `python -s -S -c <boot>`, inside the
    sandbox's minimal view (`view.test_view`) when bubblewrap is used."""
    boot = Path(__file__).with_name("boot.py").read_text("utf-8")
    cmd = [python, "-s", "-S", "-c", boot]
    if not bwrap:
        return cmd
    from gavelkit.task.scoring.view import test_view

    return [*test_view(bwrap, python=python, env_path=env_path, run_dir=run_dir,
                       tmp_mb=tmp_mb), *cmd]


def hidden_folders(task: Path, solution: Path | None) -> list[Path]:
    """What the test process must not see: the task folder (oracle, maps, earlier runs)
    and the solution's own folder (it gets a private copy), unless that holds the task."""
    task, out = task.resolve(), [task.resolve()]
    if solution is not None:
        sol = solution.resolve()
        if not (sol == task or sol in task.parents):
            out.append(sol)
    return out


def base_environ(python: str, scratch: Path) -> dict[str, str]:
    """The test process's environment, less what only the launch knows (pipes)."""
    home, tmp = scratch / "home", scratch / "tmp"
    home.mkdir(parents=True, exist_ok=True)
    tmp.mkdir(parents=True, exist_ok=True)
    return {"PATH": os.pathsep.join([str(Path(python).parent), "/usr/bin", "/bin"]),
            "HOME": str(home), "TMPDIR": str(tmp), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONNOUSERSITE": "1",
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0", "NO_COLOR": "1"}


def child_environ(python: str, scratch: Path, pythonpath: list[str]) -> dict[str, str]:
    """What the test process and the programs it starts see once pytest runs: the base
    environment, and the solution on PYTHONPATH for child interpreters (a test that runs
    `python -m PKG`)."""
    env = base_environ(python, scratch)
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(pythonpath)
    return env


def site_config(env_path: Path, allowed: Any = "all", dirs: list[str] | None = None) -> str:
    """GAVEL_SITE for the boot: the environment's prefix, its site-packages folders and
    the .pth files it may run (`allowed`: "all", or {file name: sha256} of the task
    environment's own; a solution's .pth never runs)."""
    import glob
    import json

    if not dirs:
        dirs = sorted(glob.glob(str(Path(env_path) / "lib" / "python*" / "site-packages")))
    pth = []
    for d in dirs:
        try:
            names = sorted(n for n in os.listdir(d) if n.endswith(".pth"))
        except OSError:
            continue
        for n in names:
            if allowed == "all" or (n in allowed and _sha(Path(d) / n) == allowed[n]):
                pth.append(str(Path(d) / n))
    return json.dumps({"prefix": str(env_path), "dirs": dirs, "pth": pth})


def pth_files(env_path: Path) -> dict[str, str]:
    """{name: sha256} of the .pth files in an environment's site-packages."""
    import glob

    out = {}
    for d in glob.glob(str(Path(env_path) / "lib" / "python*" / "site-packages")):
        for p in Path(d).glob("*.pth"):
            out[p.name] = _sha(p)
    return out


def _sha(p: Path) -> str:
    import hashlib

    try:
        return hashlib.sha256(p.read_bytes()).hexdigest()
    except OSError:
        return ""


def boot_environ(python: str, scratch: Path, limits: tuple[int, ...], site: str,
                 control_fd: int, status_fd: int | None = None) -> dict[str, str]:
    """The environment the test process is started with: the base environment, its
    limits, the site configuration and the control pipe (no PYTHONPATH: the boot builds
    sys.path)."""
    env = {**base_environ(python, scratch), "GAVEL_LIMITS": ",".join(map(str, limits)),
           "GAVEL_SITE": site, "GAVEL_CONTROL_FD": str(control_fd)}
    if status_fd is not None:
        env["GAVEL_STATUS_FD"] = str(status_fd)
    return env


def nproc_limit(cgroup: bool, bwrap: bool) -> int:
    """RLIMIT_NPROC for the test process where no pids cgroup limits it: for a user other
    than root inside bubblewrap's user namespace, the processes that user has now plus
    PROCS; 0 (none) otherwise (root is exempt from RLIMIT_NPROC)."""
    if cgroup or not bwrap or os.getuid() == 0:
        return 0
    uid = os.getuid()
    mine = 0
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                mine += os.stat(f"/proc/{p}").st_uid == uid
            except OSError:
                continue
    return mine + PROCS


def run_folder() -> Path:
    """A private run folder with the sub-folders every launch needs. Made as
    tempfile.mkdtemp makes one (mode 0700, a random name, never an existing folder), but
    without importing tempfile: this is on the critical path before the prestart."""
    run_dir = Path(os.environ.get("TMPDIR") or "/tmp") / ("gavel-run-" + os.urandom(8).hex())
    try:
        run_dir.mkdir(mode=0o700)  # 64 random bits: an existing name is not a real case
    except OSError:  # TMPDIR unusable (or taken): tempfile chooses, as it always did
        import tempfile

        run_dir = Path(tempfile.mkdtemp(prefix="gavel-run-"))
    for sub in ("work", "scratch", "logs", "plugin", "solution", "pkgview"):
        (run_dir / sub).mkdir()
    return run_dir


def _bwrap_exe(isolation: str) -> str | None:
    if isolation == "none" or os.environ.get("GAVEL_NO_BWRAP", "") not in ("", "0"):
        return None
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        exe = os.path.join(folder or os.curdir, "bwrap")  # shutil.which's rule, without
        if os.access(exe, os.X_OK) and not os.path.isdir(exe):  # importing shutil here
            return exe
    return None


class Warm:
    """One prestarted test process (see the module doc). `go` or `cancel` ends it."""

    def __init__(self, run_dir: Path, python: str, env_path: Path, hidden: list[Path],
                 limits: tuple[int, int, int], bwrap: str | None) -> None:
        import subprocess

        from gavelkit.task.scoring.limits import ProcLimit

        self.run_dir, self.python, self.env_path = run_dir, python, env_path
        self.hidden, self.limits, self.bwrap = hidden, limits, bwrap
        self.work, self.scratch = run_dir / "work", run_dir / "scratch"
        self.key = os.urandom(32)
        self.rfd, wfd = os.pipe()  # results (the plugin writes), read from go on
        self.result_fd = wfd  # its number in the test process
        crfd, self.ctl = os.pipe()  # the go message
        self.status, swfd = os.pipe()  # ready / go / cold
        self.limit = ProcLimit(PROCS)
        env = boot_environ(python, self.scratch,
                           (*limits, nproc_limit(self.limit.path is not None, bool(bwrap))),
                           site_config(env_path), crfd, swfd)
        self.log_path = run_dir / "logs" / ".warm.log"
        self.log = open(self.log_path, "wb")  # noqa: SIM115 - handed to the launch or closed
        self.errf = open(run_dir / ".warm.err", "w+b")  # noqa: SIM115 - not in logs/: kept
        cmd = boot_command(python, bwrap, env_path, run_dir, TMP_MB)
        self.proc: Any = None
        self.state = "started"
        self.why = ""
        self.ready = False
        self._buf = b""
        try:
            with self.limit.spawning():
                self.proc = subprocess.Popen(
                    cmd, cwd=self.work, env=env, stdout=self.log, stderr=self.errf,
                    stdin=subprocess.DEVNULL, pass_fds=(wfd, crfd, swfd),
                    start_new_session=True)  # limits: set by the boot before anything else
        except OSError as exc:
            self.state, self.why = "failed", f"could not start: {exc}"
        finally:
            for fd in (wfd, crfd, swfd):
                os.close(fd)
        if self.proc is None:
            self.cancel()

    def _read_status(self) -> str:
        """The next line of the status pipe ('' at its end, or after READY_TIMEOUT s: a
        warm-up that hangs is abandoned, and the cold start has its own limits)."""
        import select
        import time

        deadline = time.monotonic() + READY_TIMEOUT
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            try:
                readable = left > 0 and select.select([self.status], [], [], left)[0]
                chunk = os.read(self.status, 4096) if readable else b""
            except OSError:
                chunk = b""
            if not chunk:
                if left <= 0 or not readable:
                    self.why = f"the prestarted process was not ready after {READY_TIMEOUT:g} s"
                break
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line.decode("utf-8", "replace").strip()

    def compatible(self, python: str, env_path: Path, hidden: list[Path],
                   limits: tuple[int, int, int]) -> str:
        """Why this process cannot serve a run with these settings ('' when it can)."""
        if self.state != "started":
            return self.why or self.state
        for what, mine, theirs in (("interpreter", self.python, python),
                                   ("environment", str(self.env_path), str(env_path)),
                                   ("hidden folders", self.hidden, hidden),
                                   ("limits", self.limits, limits)):
            if mine != theirs:
                return f"started with another {what}"
        return ""

    def wait_ready(self) -> bool:
        """Block until the process has imported pytest (True), or has died (False): under
        bubblewrap a ready process also proves the sandbox works here."""
        if self.state != "started":
            return False
        if self.ready or self._read_status() == "ready":
            self.ready = True
            return True
        self.why = self.why or "the prestarted process died before it was ready: " + \
            self._stderr()
        self.cancel()
        return False

    def _stderr(self) -> str:
        try:
            self.errf.seek(0)
            return self.errf.read().decode("utf-8", "replace").strip()[-300:] or "no message"
        except (OSError, ValueError):
            return "no message"

    def go(self, msg: bytes) -> bool:
        """Send the run (sandbox.Sandbox.go_message); True when the process now runs the
        tests, False when the caller must start cold (clash, died); `why` says which."""
        if not self.wait_ready():  # so a long message never blocks on a hung warm-up
            return False
        try:
            view = memoryview(msg)
            while view:
                view = view[os.write(self.ctl, view):]
        except OSError as exc:
            self.why = f"could not send the run: {exc}"
        finally:
            os.close(self.ctl)
            self.ctl = -1
        answer = "" if self.why else self._read_status()
        if answer == "go":
            self.state = "used"
            os.close(self.status)
            self.status = -1
            return True
        if answer.startswith("cold "):
            self.why = ("the run's own folders before the standard library provide modules "
                        "pytest had already imported (" + answer[5:] + "); started cold so "
                        "they are the run's")
        elif not self.why:
            self.why = "the prestarted process died: " + self._stderr()
        self.cancel()
        return False

    def cancel(self) -> None:
        """End the process unused and release everything (idempotent)."""
        import contextlib
        import signal

        if self.state in ("started", "failed"):
            self.state = "cancelled" if self.state == "started" else "failed"
        for name in ("ctl", "status", "rfd"):
            fd = getattr(self, name, -1)
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
                setattr(self, name, -1)
        if self.proc is not None and self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        for fh in (self.log, self.errf):
            with contextlib.suppress(OSError):
                fh.close()
        with contextlib.suppress(OSError):
            self.log_path.unlink()

    def close(self) -> None:
        """Cancel if unused and remove the run folder (for callers that never ran it)."""
        import shutil

        self.cancel()
        self.limit.close()
        shutil.rmtree(self.run_dir, ignore_errors=True)
        _forget(self)

    def record(self) -> dict[str, Any]:
        return {"used": self.state == "used", "why_not": "" if self.state == "used" else
                (self.why or self.state)}


def _forget(w: Any) -> None:
    """Drop a closed process (or reason) from EARLY, whoever registered it."""
    for k in [k for k, v in EARLY.items() if v is w]:
        del EARLY[k]


def claim(argv: list[str]) -> Warm | NotStarted | None:
    """The process cli.task_early prestarted for exactly this argv (taken once)."""
    return EARLY.pop(tuple(argv), None)


class NotStarted:
    """What `prestart` gives when a prestarted process cannot help: the run starts cold
    and its record (`processes.prestarted`) says why."""

    state = "not started"
    run_dir = None
    bwrap = None

    def __init__(self, why: str) -> None:
        self.why = why

    def compatible(self, *_: Any) -> str:
        return self.why

    def wait_ready(self) -> bool:
        return False

    def cancel(self) -> None:
        pass

    def close(self) -> None:
        _forget(self)

    def record(self) -> dict[str, Any]:
        return {"used": False, "why_not": self.why}


def prestart(task_dir: str, *, solution: str | None, spec: str | None, install: str,
             python: str | None, isolation: str, memory_mb: int) -> Warm | NotStarted:
    """A warm test process for `gavel task run|solvability`, or NotStarted saying why it
    cannot help: switched off (GAVEL_NO_PRESTART=1), `--python` given, a project solution
    that is built first, or an environment not built yet (building takes far longer than
    pytest's import)."""
    if os.environ.get("GAVEL_NO_PRESTART", "") not in ("", "0"):
        return NotStarted("switched off (GAVEL_NO_PRESTART is set)")
    if python is not None:
        return NotStarted("--python names the interpreter (its environment is inspected "
                          "first)")
    from gavelkit.task.scoring.envkeys import (
        PROJECT_FILES,
        built_env,
        requirements_path,
        venv_python,
    )

    task = Path(task_dir).resolve()
    sol = Path(solution).resolve() if solution and not spec else None
    if sol is not None and install != "never" and any((sol / n).is_file()
                                                       for n in PROJECT_FILES):
        return NotStarted("the solution is a project: it is built and installed first")
    if not task.is_dir():
        return NotStarted("no task folder")
    try:
        env_path = built_env(requirements_path(task), spec=spec)
    except Exception:  # unreadable requirements: the runner reports it properly
        return NotStarted("the task's requirements could not be read")
    if env_path is None:
        return NotStarted("the scoring environment is not built yet (this run builds it)")
    return Warm(run_folder(), str(venv_python(env_path)), env_path, hidden_folders(task, sol),
                (memory_mb, CPU_SECONDS, FSIZE_MB), _bwrap_exe(isolation))
