"""One pytest process per test file, isolated: bubblewrap when present, rlimits, a wall limit, an HMAC'd result pipe.

The result says plainly which of these were active."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gavelkit.task.scoring.options import _BWRAP, RunOptions


def bwrap_available() -> tuple[bool, str]:
    """Is bubblewrap installed and allowed to create namespaces here? (probed once)."""
    if "ok" not in _BWRAP:
        exe = shutil.which("bwrap")
        if exe is None:
            _BWRAP.update(ok=False, why="bwrap is not installed")
        else:
            try:
                p = subprocess.run([exe, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-all",
                                    "--die-with-parent", "true"], capture_output=True, text=True,
                                   timeout=20, check=False)
                ok = p.returncode == 0
                _BWRAP.update(ok=ok, why="" if ok else f"bwrap cannot create namespaces here: "
                              f"{p.stderr.strip()[:200]}", exe=exe)
            except (OSError, subprocess.TimeoutExpired) as exc:
                _BWRAP.update(ok=False, why=f"bwrap failed to start: {exc}")
    return bool(_BWRAP["ok"]), str(_BWRAP.get("why", ""))


def _rlimits(memory_mb: int, cpu: int, fsize_mb: int):  # type: ignore[no-untyped-def]
    def apply() -> None:
        import resource

        for lim, val in ((resource.RLIMIT_AS, memory_mb * 1024 * 1024),
                         (resource.RLIMIT_CPU, cpu), (resource.RLIMIT_FSIZE, fsize_mb * 1024 * 1024),
                         (resource.RLIMIT_CORE, 0)):
            try:
                soft = val
                hard = val + (5 if lim == resource.RLIMIT_CPU else 0)
                resource.setrlimit(lim, (soft, hard))
            except (ValueError, OSError):
                pass
    return apply


# ----------------------------------------------------------------- outcomes
@dataclass(slots=True)
class FileRun:
    file: str
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    messages: list[dict[str, Any]]
    bad_macs: int
    killed: bool


def _read_pipe(fd: int, sink: list[bytes]) -> None:
    with os.fdopen(fd, "rb") as fh:
        while True:
            chunk = fh.read(65536)
            if not chunk:
                break
            sink.append(chunk)


class _Sandbox:
    """One run's private folders, interpreter, plugin copy and isolation settings."""

    def __init__(self, run_dir: Path, env: Any, import_root: Path | None, opts: RunOptions,
                 use_bwrap: bool) -> None:
        self.run_dir = run_dir
        self.work = run_dir / "work"
        self.scratch = run_dir / "scratch"
        self.env = env
        self.import_root = import_root
        self.opts = opts
        self.bwrap = use_bwrap
        self.plugdir = run_dir / "plugin"
        self.plugdir.mkdir(parents=True, exist_ok=True)
        self.modname = "gk_" + os.urandom(6).hex()
        src = Path(__file__).with_name("result_plugin.py")
        shutil.copyfile(src, self.plugdir / f"{self.modname}.py")
        self.ini = run_dir / "gavel-pytest.ini"
        self.hidden: list[Path] = []

    def command(self, test_files: list[str], extra_args: list[str]) -> list[str]:
        cmd = [self.env.python, "-s", "-m", "pytest", "-p", self.modname,
               "-p", "no:cacheprovider", "-c", str(self.ini), "--rootdir", str(self.work),
               "--confcutdir", str(self.work), "-q", "--no-header", "-o", "addopts=",
               "-o", "cache_dir=" + str(self.scratch / ".cache"),
               "--continue-on-collection-errors"]
        for name in self.env.plugin_args():
            cmd += ["-p", name]
        cmd += [*extra_args, *test_files]
        if not self.bwrap:
            return cmd
        exe = _BWRAP.get("exe") or "bwrap"
        wrap = [exe, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                "--tmpfs", "/tmp"]
        for hidden in self.hidden:
            wrap += ["--tmpfs", str(hidden)]
        for p in self.ro_paths():
            wrap += ["--ro-bind", str(p), str(p)]
        wrap += ["--bind", str(self.scratch), str(self.scratch), "--unshare-all",
                 "--die-with-parent", "--new-session", "--chdir", str(self.work), "--"]
        return wrap + cmd

    def ro_paths(self) -> list[Path]:
        out = [self.run_dir, self.env.path]
        home = self._venv_home()
        if home is not None:
            out.append(home)
        return out

    def _venv_home(self) -> Path | None:
        cfg = Path(self.env.path) / "pyvenv.cfg"
        if cfg.is_file():
            for line in cfg.read_text("utf-8", "replace").splitlines():
                k, _, v = line.partition("=")
                if k.strip() == "home" and v.strip():
                    return Path(v.strip()).parent
        return None

    def run_file(self, test_file: str, expected: list[str], extra_args: list[str],
                 files: list[str] | None = None) -> FileRun:
        exp_path = self.run_dir / "expected" / (re.sub(r"[^\w.-]", "_", test_file) + ".json")
        exp_path.parent.mkdir(parents=True, exist_ok=True)
        exp_path.write_text(json.dumps(expected), "utf-8")
        key = os.urandom(32)
        rfd, wfd = os.pipe()
        krfd, kwfd = os.pipe()
        os.write(kwfd, key)
        os.close(kwfd)
        home = self.scratch / "home"
        tmp = self.scratch / "tmp"
        home.mkdir(parents=True, exist_ok=True)
        tmp.mkdir(parents=True, exist_ok=True)
        pp = [str(self.plugdir)] + ([str(self.import_root)] if self.import_root else [])
        env = {"PATH": os.pathsep.join([str(Path(self.env.python).parent), "/usr/bin", "/bin"]),
               "HOME": str(home), "TMPDIR": str(tmp), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "PYTHONPATH": os.pathsep.join(pp), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
               "PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0",
               "GAVEL_RESULT_FD": str(wfd), "GAVEL_KEY_FD": str(krfd),
               "GAVEL_EXPECTED": str(exp_path), "GAVEL_TEST_TIMEOUT": str(self.opts.test_timeout),
               "NO_COLOR": "1"}
        if not self.bwrap:
            env["TMPDIR"] = str(tmp)
        sink: list[bytes] = []
        reader = threading.Thread(target=_read_pipe, args=(rfd, sink), daemon=True)
        t0 = time.monotonic()

        out_path = self.run_dir / "logs" / (re.sub(r"[^\w.-]", "_", test_file) + ".log")
        out_path.parent.mkdir(parents=True, exist_ok=True)
        with open(out_path, "wb") as log, tempfile.TemporaryFile() as errf:
            try:
                proc = subprocess.Popen(self.command(files or [test_file], extra_args),
                                        cwd=self.work,
                                        env=env, stdout=log, stderr=errf, stdin=subprocess.DEVNULL,
                                        pass_fds=(wfd, krfd), start_new_session=True,
                                        preexec_fn=_rlimits(self.opts.memory_mb,
                                                            self.opts.cpu_seconds,
                                                            self.opts.fsize_mb))
            finally:
                os.close(wfd)
                os.close(krfd)
            reader.start()
            fired = threading.Event()

            def kill() -> None:  # a timer, not wait(timeout=): wait() then blocks in waitpid
                fired.set()
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
            timer = threading.Timer(self.opts.file_timeout, kill)
            timer.daemon = True
            timer.start()
            try:
                rc = proc.wait()
            finally:
                timer.cancel()
            killed = fired.is_set()
            reader.join(timeout=30)
            errf.seek(0)
            stderr = errf.read().decode("utf-8", "replace")
        stdout = out_path.read_text("utf-8", "replace")
        messages, bad = [], 0
        for line in b"".join(sink).decode("utf-8", "replace").splitlines():
            try:
                env_ = json.loads(line)
                payload, mac = env_["p"], env_["m"]
            except (ValueError, KeyError, TypeError):
                bad += 1
                continue
            want = hmac.new(key, payload.encode(), hashlib.sha256).hexdigest()
            if not hmac.compare_digest(want, str(mac)):
                bad += 1
                continue
            messages.append(json.loads(payload))
        return FileRun(test_file, rc, stdout[-20000:], stderr[-20000:],
                       time.monotonic() - t0, messages, bad, killed)


# ----------------------------------------------------------------- main entry
