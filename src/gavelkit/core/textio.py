"""Reading user files defensively and writing our own files atomically.

Every reader goes through `read_text` so that missing, empty, binary,
non-UTF-8 and over-size inputs fail the same way everywhere (InputError, exit
2). Every writer goes through `atomic_write` so a kill mid-write never leaves a
half-written state or record file.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from gavelkit.core.errors import InputError
from gavelkit.core.safeio import _line_col, decode_text  # noqa: F401 - re-exported

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass

DEFAULT_MAX_BYTES = 8 * 1024 * 1024


def max_bytes() -> int:
    """Size cap for text inputs; GAVEL_MAX_BYTES overrides it."""
    from gavelkit.core.safeio import max_bytes as cap

    return cap()


def read_bytes(path: str | os.PathLike[str], limit: int | None = None,
               allow_empty: bool = False, root: str | os.PathLike[str] | None = None) -> bytes:
    """Bytes of one regular file through core.safeio (no FIFO, device, link out of `root`)."""
    from gavelkit.core.safeio import read_input

    return read_input(path, limit, root=root, allow_empty=allow_empty)


def sha256_file(path: str | os.PathLike[str]) -> str | None:
    """The sha256 of a regular file's bytes, streamed (no size cap: a digest names what is
    there); None when it is not a readable regular file. Never blocks on a FIFO."""
    import hashlib
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    with open(fd, "rb") as fh:
        h = hashlib.sha256()
        try:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        except OSError:
            return None
    return h.hexdigest()


def read_text(path: str | os.PathLike[str], limit: int | None = None,
              allow_empty: bool = False, root: str | os.PathLike[str] | None = None) -> str:
    """Read a UTF-8 text file with CRLF/CR folded to LF and any BOM removed."""
    text = decode_text(read_bytes(path, limit, allow_empty, root), str(path))
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def atomic_write(path: str | os.PathLike[str], data: str | bytes, mode: int | None = None) -> None:
    """Write via a temp file in the same folder, fsync, then rename over the target.

    Only a regular file (or nothing) is ever replaced (core.safeio.check_output);
    the temp file carries our pid, so the next write removes the leftovers of a
    writer that was killed (`.NAME.<pid>.xxxx.tmp`).
    """
    import tempfile

    from gavelkit.core.safeio import check_output, clean_stale_temps, os_reason, temp_name_prefix

    target = check_output(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        fd, tmp = tempfile.mkstemp(prefix=temp_name_prefix(target), suffix=".tmp",
                                   dir=target.parent)
    except OSError as exc:
        raise InputError(str(path), f"cannot write: {os_reason(exc)}", code="GK-IO009") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        elif target.is_file():
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise InputError(str(path), f"cannot write: {os_reason(exc)}",
                             code="GK-IO009") from None
        raise
    with contextlib.suppress(OSError):
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    clean_stale_temps(target)


@contextlib.contextmanager
def locked(path: str | os.PathLike[str], timeout: float = 30.0) -> Iterator[None]:
    """Exclusive advisory lock on `<path>.lock` so two writers never interleave.

    The lock file is removed on release (while still held), so no `.lock` stays behind;
    one left by a killed writer is taken over and removed by the next. A waiter that
    wins the lock on a file already unlinked by the previous holder retries on the
    current one, so two holders never exist at once.
    """
    import fcntl
    import time
    from pathlib import Path

    lock_path = Path(str(path) + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    from gavelkit.core.safeio import clean_stale_temps

    clean_stale_temps(path)  # what a writer killed under this lock left behind
    deadline = time.monotonic() + timeout
    while True:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"{path}: another writer holds {lock_path}") from None
                    time.sleep(0.02)
            try:
                same = os.stat(lock_path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
        except BaseException:
            os.close(fd)
            raise
        if same:
            break
        os.close(fd)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock_path)
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
