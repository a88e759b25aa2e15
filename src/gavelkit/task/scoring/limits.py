"""The test process's process-count limit, enforced from outside it (a pids cgroup).

A pids cgroup caps how many processes the test process and everything it starts may have
at once, whatever user runs gavel (root is exempt from RLIMIT_NPROC), and lets gavel end
every one of them when the run ends, also one that left its process group or session.
It is used where the machine lets gavel create one (cgroup v1 `pids`, writable); the
launching thread moves itself into the group just for the fork, so the child starts
inside it. Elsewhere the test process sets RLIMIT_NPROC on itself before any other code
(counted per user namespace on current kernels: the sandbox's own processes only), and
the run records which mechanism held.
"""

from __future__ import annotations

import _thread  # not threading: this module is imported before the prestart's fork
import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

PIDS_V1 = Path("/sys/fs/cgroup/pids")
_LOCK = _thread.allocate_lock()


class ProcLimit:
    """One run's pids cgroup (or none, with the reason)."""

    def __init__(self, max_procs: int) -> None:
        self.max = max_procs
        self.path: Path | None = None
        self.why = ""
        if max_procs <= 0:
            self.why = "no process limit asked for"
            return
        if not (PIDS_V1 / "tasks").is_file() or not os.access(PIDS_V1, os.W_OK):
            self.why = "no writable pids cgroup (RLIMIT_NPROC in the test process instead)"
            return
        path = PIDS_V1 / f"gavel-{os.getpid()}-{os.urandom(4).hex()}"
        try:
            path.mkdir()
            (path / "pids.max").write_text(str(max_procs))
        except OSError as exc:
            self.why = f"the pids cgroup could not be set up: {exc.strerror}"
            with contextlib.suppress(OSError):
                path.rmdir()
            return
        self.path = path

    @property
    def mechanism(self) -> str:
        return "pids cgroup" if self.path is not None else "RLIMIT_NPROC"

    @contextlib.contextmanager
    def spawning(self) -> Iterator[None]:
        """While the caller forks the test process, its thread is in the cgroup."""
        if self.path is None:
            yield
            return
        tid = str(_thread.get_native_id())
        with _LOCK:
            try:
                (self.path / "tasks").write_text(tid)
            except OSError:
                yield
                return
            try:
                yield
            finally:
                with contextlib.suppress(OSError):
                    (PIDS_V1 / "tasks").write_text(tid)

    def peak(self) -> int | None:
        try:
            return int((self.path / "pids.peak").read_text()) if self.path else None
        except (OSError, ValueError):
            return None

    def kill_all(self) -> None:
        """End every process still in the group (one that left its session too)."""
        if self.path is None:
            return
        for _ in range(50):
            try:
                pids = [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
            except (OSError, ValueError):
                pids = []
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, 9)  # SIGKILL (signal is not imported for this one number)
            import time

            time.sleep(0.01)

    def close(self) -> None:
        """End every process still in the group, then remove it."""
        if self.path is None:
            return
        self.kill_all()
        with contextlib.suppress(OSError):
            self.path.rmdir()
        self.path = None
