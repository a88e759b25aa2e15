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
from pathlib import Path

from gavelkit.core.errors import InputError

DEFAULT_MAX_BYTES = 8 * 1024 * 1024


def max_bytes() -> int:
    """Size cap for text inputs; GAVEL_MAX_BYTES overrides it."""
    raw = os.environ.get("GAVEL_MAX_BYTES")
    if raw and raw.isdigit():
        return int(raw)
    return DEFAULT_MAX_BYTES


def _line_col(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    return line, offset - start + 1


def read_bytes(path: str | os.PathLike[str], limit: int | None = None,
               allow_empty: bool = False) -> bytes:
    p = Path(path)
    name = str(path)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise InputError(name, "no such file", code="GK-IO001") from None
    except OSError as exc:
        raise InputError(name, f"cannot read: {exc.strerror or exc}", code="GK-IO001") from None
    if p.is_dir():
        raise InputError(name, "is a directory, not a file", code="GK-IO001")
    cap = max_bytes() if limit is None else limit
    if st.st_size > cap:
        raise InputError(name, f"file is {st.st_size} bytes, over the {cap}-byte limit "
                         "(set GAVEL_MAX_BYTES to raise it)", code="GK-IO005")
    try:
        with p.open("rb") as fh:
            data = fh.read(cap + 1)
    except OSError as exc:
        raise InputError(name, f"cannot read: {exc.strerror or exc}", code="GK-IO001") from None
    if len(data) > cap:
        raise InputError(name, f"file is over the {cap}-byte limit", code="GK-IO005")
    if not data.strip() and not allow_empty:
        raise InputError(name, "file is empty", code="GK-IO002")
    return data


def decode_text(data: bytes, name: str) -> str:
    """UTF-8 (BOM stripped) or InputError naming the first bad byte's place."""
    nul = data.find(b"\x00")
    if nul != -1:
        line, col = _line_col(data, nul)
        raise InputError(name, "binary file (NUL byte), expected UTF-8 text", line, col,
                         code="GK-IO003")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _line_col(data, exc.start)
        raise InputError(name, f"not valid UTF-8 (byte 0x{data[exc.start]:02x})", line, col,
                         code="GK-IO004") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def read_text(path: str | os.PathLike[str], limit: int | None = None,
              allow_empty: bool = False) -> str:
    """Read a UTF-8 text file with CRLF/CR folded to LF and any BOM removed."""
    text = decode_text(read_bytes(path, limit, allow_empty), str(path))
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def atomic_write(path: str | os.PathLike[str], data: str | bytes, mode: int | None = None) -> None:
    """Write via a temp file in the same folder, fsync, then rename over the target."""
    import tempfile

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        elif target.exists():
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


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

    lock_path = Path(str(path) + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
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
