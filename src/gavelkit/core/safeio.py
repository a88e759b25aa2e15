"""The one way in and the one way out: opening user inputs and replacing outputs safely.

A careless or hostile path must never hang a command, exhaust memory, read
outside the folder it was given, or make us replace a device. So every input is
opened here: FIFOs, devices and sockets are refused before any read (and the
open itself is non-blocking, so a FIFO swapped in after the check cannot hang
us either), reads are capped, a symlink may not leave the root it was given,
and every OS error becomes one InputError (exit 2) naming the file and the
reason. Every output path is checked here before we write: only a regular
file (or nothing) may be replaced.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator

from gavelkit.core.errors import InputError

TYPE_CHECKING = False  # typing costs start-up time that agents pay on every call
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

DEFAULT_MAX_BYTES = 8 * 1024 * 1024
MAX_JSON_DEPTH = 200


def max_bytes() -> int:
    """Size cap for one input file; GAVEL_MAX_BYTES overrides it."""
    raw = os.environ.get("GAVEL_MAX_BYTES")
    if raw and raw.isdigit() and int(raw) > 0:
        return int(raw)
    return DEFAULT_MAX_BYTES


def resolve_arg(path: str | os.PathLike[str] | None) -> Path | None:
    """A command-line path made absolute once, before any chdir can change its meaning."""
    from pathlib import Path

    if path is None or str(path) == "":
        return None if path is None else Path(os.getcwd())
    return Path(os.path.abspath(os.path.expanduser(os.fspath(path))))


def kind_of(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "regular file"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISLNK(mode):
        return "symbolic link"
    return "special file"


def os_reason(exc: OSError) -> str:
    """A short human reason for an OS error (no Python class names)."""
    if exc.errno == errno.ELOOP:
        return "symbolic link loop"
    if exc.errno == errno.ENOTDIR:
        return "a part of the path is a file, not a folder"
    if exc.errno == errno.ENOENT:
        return "no such file or folder"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.EISDIR:
        return "is a directory, not a file"
    if exc.errno == errno.EEXIST:
        return "already exists"
    return exc.strerror or str(exc)


def inside(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> bool:
    """Does `path`, with every link followed, stay inside `root` (links followed too)?"""
    try:
        real_root = os.path.realpath(root)
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return False
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def check_input(path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None,
                want: str = "file") -> os.stat_result:
    """Stat `path` (links followed) and refuse what we must not open; returns the stat.

    `want` is "file" or "dir". With `root`, a path whose links lead outside the
    root is refused (it would read what the user did not hand us).
    """
    name = str(path)
    if root is not None and not inside(root, path):
        raise InputError(name, f"a symbolic link leads outside {root}; refusing to follow it",
                         code="GK-IO010")
    st = _stat_or_refuse(path)
    refusal = _kind_refusal(st.st_mode, want)
    if refusal is not None:
        raise InputError(name, refusal[1], code=refusal[0])
    return st


def _stat_or_refuse(path: str | os.PathLike[str]) -> os.stat_result:
    try:
        return os.stat(path)
    except FileNotFoundError:
        parent = _first_missing_reason(path)
        raise InputError(str(path), parent or "no such file or folder",
                         code="GK-IO001") from None
    except OSError as exc:
        why = _first_missing_reason(path) if exc.errno == errno.ENOTDIR else ""
        raise InputError(str(path), f"cannot read: {why or os_reason(exc)}",
                         code="GK-IO001") from None


def _kind_refusal(mode: int, want: str) -> tuple[str, str] | None:
    """(code, message) when a file of this mode is not what was asked for, else None."""
    if want == "dir":
        return None if stat.S_ISDIR(mode) else (
            "GK-IO001", f"is a {kind_of(mode)}, not a folder")
    if stat.S_ISDIR(mode):
        return "GK-IO001", "is a directory, not a file"
    if not stat.S_ISREG(mode):
        return "GK-IO007", (f"is a {kind_of(mode)}, not a regular file; refusing to read it "
                            "(it could block forever or never end)")
    return None


def _first_missing_reason(path: str | os.PathLike[str]) -> str:
    """Say "X is a file, not a folder" when a parent of the path is a regular file."""
    from pathlib import Path  # error path only: pathlib stays off the start-up path

    p = Path(path)
    for parent in p.parents:
        try:
            st = os.stat(parent)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode):
            return f"{parent} is a {kind_of(st.st_mode)}, not a folder"
        return ""
    return ""


def read_input(path: str | os.PathLike[str], limit: int | None = None, *,
               root: str | os.PathLike[str] | None = None, allow_empty: bool = False) -> bytes:
    """Read one regular file, at most `limit` bytes (default `max_bytes()`), or InputError."""
    name = str(path)
    cap = max_bytes() if limit is None else limit
    st = check_input(path, root)
    if st.st_size > cap:
        raise InputError(name, f"file is {st.st_size} bytes, over the {cap}-byte limit "
                         "(set GAVEL_MAX_BYTES to raise it)", code="GK-IO005")
    data = _read_capped(path, cap)
    if len(data) > cap:
        raise InputError(name, f"file is over the {cap}-byte limit "
                         "(set GAVEL_MAX_BYTES to raise it)", code="GK-IO005")
    if not data.strip() and not allow_empty:
        raise InputError(name, "file is empty", code="GK-IO002")
    return data


def _read_capped(path: str | os.PathLike[str], cap: int) -> bytes:
    """At most cap + 1 bytes of a regular file, opened without blocking on a swapped-in FIFO."""
    name = str(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise InputError(name, f"cannot read: {os_reason(exc)}", code="GK-IO001") from None
    try:
        fst = os.fstat(fd)
        if not stat.S_ISREG(fst.st_mode):  # swapped between stat and open
            raise InputError(name, f"is a {kind_of(fst.st_mode)}, not a regular file",
                             code="GK-IO007")
        chunks: list[bytes] = []
        got = 0
        while got <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    except OSError as exc:
        raise InputError(name, f"cannot read: {os_reason(exc)}", code="GK-IO001") from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def load_json(path: str | os.PathLike[str], text: str | None = None, *,
              limit: int | None = None, root: str | os.PathLike[str] | None = None,
              what: str = "JSON") -> Any:
    """Parse a JSON file (BOM allowed); bad, deep or huge JSON is an InputError, never a crash."""
    name = str(path)
    if text is None:
        text = decode_text(read_input(path, limit, root=root), name)
    return parse_json(text, name, what)


def json_object_or_none(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """A JSON object from a file, or None when the file cannot be read safely or holds
    anything else: for optional side files whose absence the caller handles."""
    try:
        data = load_json(path)
    except InputError:
        return None
    return data if isinstance(data, dict) else None


def parse_json(text: str, name: str, what: str = "JSON") -> Any:
    if text.startswith("\ufeff"):
        text = text[1:]
    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise InputError(name, f"{what} nested {depth} levels deep (limit {MAX_JSON_DEPTH})",
                         code="GK-IO008")
    import json  # off the lint start-up path (benchmarks/cold_start.py)

    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(name, f"not valid {what}: {exc.msg}", exc.lineno, exc.colno,
                         code="GK-IO008") from None
    except (ValueError, RecursionError) as exc:
        raise InputError(name, f"not usable {what}: {exc}", code="GK-IO008") from None


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def json_depth(text: str) -> int:
    """Deepest bracket nesting outside strings (cheap pre-check before json.loads)."""
    if text.count("[") + text.count("{") < MAX_JSON_DEPTH:
        return 0
    import re

    # strings (an unterminated one runs to the end) hold no brackets that count
    outside = re.sub(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', "", text, flags=re.DOTALL)
    depth = best = 0
    for m in re.finditer(r"[\[\]{}]", outside):
        if m.group() in "[{":
            depth += 1
            best = max(best, depth)
            if best > MAX_JSON_DEPTH:
                return best
        else:
            depth -= 1
    return best


def iter_files(folder: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None,
               follow_inside: bool = True) -> Iterator[tuple[Path, str | None]]:
    """Every file under `root`, sorted; (path, why-refused) where refused is not None.

    Links are followed only when they stay inside `root` (default: `folder`);
    a link out of it, a loop, a FIFO or a device is yielded with the reason it
    is refused, so the caller reports it instead of silently reading or
    skipping it.
    """
    from pathlib import Path

    base = Path(folder)
    top = Path(root) if root is not None else base
    real_root = os.path.realpath(top)
    seen: set[str] = set()
    stack = [base]
    while stack:
        d = stack.pop()
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError as exc:
            yield d, f"cannot list folder: {os_reason(exc)}"
            continue
        subdirs = []
        for e in entries:
            p = Path(e.path)
            why = _entry_refusal(e, p, real_root, top, follow_inside, seen)
            if why == "":
                subdirs.append(p)
            else:
                yield p, why
        stack.extend(reversed(subdirs))


def _entry_refusal(e: os.DirEntry[str], p: Path, real_root: str, top: Path,
                   follow_inside: bool, seen: set[str]) -> str | None:
    """None for a regular file, "" for a folder to descend into (recorded in `seen`),
    else why the entry is refused."""
    try:
        is_link = e.is_symlink()
        if is_link and not inside(real_root, p):
            return f"symbolic link leads outside {top}"
        if is_link and not follow_inside:
            return "symbolic link"
        st = os.stat(p)
    except OSError as exc:
        return os_reason(exc)
    if stat.S_ISREG(st.st_mode):
        return None
    if not stat.S_ISDIR(st.st_mode):
        return f"is a {kind_of(st.st_mode)}, not a regular file"
    real = os.path.realpath(p)
    if real in seen:
        return "folder reached twice through links (loop)"
    seen.add(real)
    return ""


# ---- text ----------------------------------------------------------------------------------

def _line_col(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    return line, offset - start + 1


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


# ---- outputs -------------------------------------------------------------------------------

def check_output(path: str | os.PathLike[str], *, mkdir: bool = True) -> Path:
    """Refuse to replace anything but a regular file; create the parent folder.

    A device, FIFO, socket or directory at the output path, a link loop, or a
    parent that is a file is an InputError (exit 2) naming the path.
    """
    from pathlib import Path

    target = Path(path)
    mode = _existing_output_mode(target)
    if mode is not None and not stat.S_ISREG(mode):
        raise InputError(str(path), f"output path is a {kind_of(mode)}; refusing to replace it "
                         "(give a regular file path)", code="GK-IO009")
    if mkdir:
        _make_parent(target)
    return target


def _existing_output_mode(target: Path) -> int | None:
    """The mode an output would replace (a link's target's; a dangling link counts as a
    regular file, since the link itself is replaced), or None when nothing is there."""
    def refuse(exc: OSError) -> InputError:
        return InputError(str(target), f"cannot write here: {os_reason(exc)}", code="GK-IO009")

    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise refuse(exc) from None
    if not stat.S_ISLNK(mode):
        return mode
    try:
        return os.stat(target).st_mode
    except FileNotFoundError:
        return stat.S_IFREG
    except OSError as exc:
        raise refuse(exc) from None


def _make_parent(target: Path) -> None:
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise InputError(str(target), "cannot write here: "
                         f"{_first_missing_reason(target) or parent} is not a folder",
                         code="GK-IO009") from None
    except OSError as exc:
        why = _first_missing_reason(target) if exc.errno == errno.ENOTDIR else ""
        raise InputError(str(target), f"cannot create its folder: {why or os_reason(exc)}",
                         code="GK-IO009") from None


def check_output_dir(path: str | os.PathLike[str]) -> Path:
    """An output folder: existing folder or creatable; never a file, device or loop."""
    from pathlib import Path

    target = Path(path)
    name = str(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        try:
            target.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            why = _first_missing_reason(target) if exc.errno in (errno.ENOTDIR, errno.EEXIST) \
                else ""
            raise InputError(name, f"cannot create folder: {why or os_reason(exc)}",
                             code="GK-IO009") from None
        return target
    except OSError as exc:
        raise InputError(name, f"cannot use folder: {os_reason(exc)}", code="GK-IO009") from None
    if not stat.S_ISDIR(st.st_mode):
        raise InputError(name, f"is a {kind_of(st.st_mode)}, not a folder",
                         code="GK-IO009")
    return target


# ---- leftovers of killed writers ----------------------------------------------------------

def temp_name_prefix(target: Path) -> str:
    """Prefix of our temp files for `target`: `.NAME.<pid>.` so orphans can be told apart."""
    return f".{target.name}.{os.getpid()}."


def stale_pid(name: str, suffix: str = ".tmp") -> int | None:
    """The dead writer's pid of one of our `.NAME.<pid>.<random><suffix>` leftovers, else None."""
    if not (name.startswith(".") and name.endswith(suffix)):
        return None
    parts = name[1:-len(suffix)].rsplit(".", 2)
    if len(parts) < 2:
        return None
    pid_text = parts[-2] if len(parts) == 3 else parts[-1]
    if not pid_text.isdigit() or _alive(int(pid_text)):
        return None
    return int(pid_text)


def clean_stale_temps(target: str | os.PathLike[str]) -> list[Path]:
    """Remove temp files our killed writers left in `target`'s folder (live ones are kept)."""
    from pathlib import Path

    t = Path(target)
    removed: list[Path] = []
    try:
        entries = list(os.scandir(t.parent))
    except OSError:
        return removed
    for e in entries:
        if stale_pid(e.name) is None:
            continue
        with contextlib.suppress(OSError):
            if e.is_file(follow_symlinks=False):
                os.unlink(e.path)
                removed.append(Path(e.path))
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
