"""What a sandboxed test process sees: only what scoring needs (bubblewrap command line).

Not the machine's root with a few folders hidden (the home folder, other tasks, other
runs, the repository's own examples and every shared cache were readable that way), but
an empty root with, read-only: the system folders and a short list of /etc entries
(`data/judge/sandbox_view.json`), the scoring interpreter's installation and the task
environment, the run's result plugin and solution copy; writable: the worktree (tests
write their outputs there; the oracle's code in it is checked after the run) and private
size-capped tmpfs for /tmp, /var/tmp and the scratch folder (HOME, TMPDIR). No network, no
capabilities, a new user, PID, IPC and UTS namespace; the sandbox dies with its parent.

Light on purpose (os at import time): the prestarted process (`warm`) builds the same
command line before the rest of the runner is imported.
"""

from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_TABLE: dict[str, Any] = {}


def _table() -> dict[str, Any]:
    if not _TABLE:
        import json

        here = Path(__file__).resolve().parent.parent.parent / "data" / "judge"
        _TABLE.update(json.loads((here / "sandbox_view.json").read_text("utf-8")))
    return _TABLE


def system_args() -> list[str]:
    """The system folders (a symlink is recreated as the same symlink) and /etc entries."""
    out: list[str] = []
    for p in _table()["system"]:
        if os.path.islink(p):
            out += ["--symlink", os.readlink(p), p]
        elif os.path.isdir(p):
            out += ["--ro-bind", p, p]
    for name in _table()["etc"]:
        p = "/etc/" + name
        if os.path.islink(p):
            out += ["--symlink", os.readlink(p), p]
        elif os.path.exists(p):
            out += ["--ro-bind", p, p]
    return out


def venv_cfg(env_path: Path) -> dict[str, str]:
    """A venv's pyvenv.cfg as {key: value} (the first non-empty value of a key; {} when
    there is none to read)."""
    try:
        text = (Path(env_path) / "pyvenv.cfg").read_text("utf-8", "replace")
    except OSError:
        return {}
    out: dict[str, str] = {}
    for line in text.splitlines():
        k, _, v = line.partition("=")
        if v.strip():
            out.setdefault(k.strip(), v.strip())
    return out


def venv_home(env_path: Path) -> Path | None:
    """The base installation a venv's interpreter links to (mounted read-only too)."""
    home = venv_cfg(env_path).get("home")
    return Path(home).parent if home else None


def interpreter_homes(python: str, env_path: Path | None) -> list[Path]:
    """The installation(s) the scoring interpreter runs from (a venv's `home`, the real
    interpreter behind its symlinks), outside the system folders."""
    homes: list[Path] = []
    if env_path is not None:
        h = venv_home(Path(env_path))
        if h is not None:
            homes.append(h)
    real = Path(os.path.realpath(python))
    homes.append(real.parent.parent)
    system = tuple(_table()["system"])
    out: list[Path] = []
    for h in homes:
        s = str(h)
        if s in ("/", "") or any(s == p or s.startswith(p + "/") for p in system):
            continue
        if h not in out and h.is_dir():
            out.append(h)
    return out


def view_args(exe: str, *, ro: list[Path], rw: list[Path], scratch: Path | None,
              tmp_mb: int, chdir: Path | None, network: bool = False,
              new_session: bool = True) -> list[str]:
    """The bubblewrap command line for a minimal view; ends with `--`."""
    size = ["--size", str(tmp_mb * 1024 * 1024)] if tmp_mb > 0 else []
    wrap = [exe, *system_args(), "--dev", "/dev", "--proc", "/proc",
            *size, "--tmpfs", "/tmp", *size, "--tmpfs", "/var/tmp"]
    seen: set[str] = set()
    for p in ro:
        if str(p) not in seen and os.path.exists(p):
            seen.add(str(p))
            wrap += ["--ro-bind", str(p), str(p)]
    if scratch is not None:
        wrap += [*size, "--tmpfs", str(scratch), "--dir", str(scratch / "home"),
                 "--dir", str(scratch / "tmp")]
    for p in rw:
        wrap += ["--bind", str(p), str(p)]
    wrap += ["--remount-ro", "/"]  # the new root itself (a tmpfs) takes no writes
    wrap += ["--unshare-all", *(["--share-net"] if network else []), "--die-with-parent",
             "--cap-drop", "ALL"]
    if new_session:
        wrap.append("--new-session")
    if chdir is not None:
        wrap += ["--chdir", str(chdir)]
    return [*wrap, "--"]


def test_view(exe: str, *, python: str, env_path: Path, run_dir: Path, tmp_mb: int) -> list[str]:
    """The test process's view: interpreter, environment, the run's private copies."""
    ro = [*interpreter_homes(python, env_path), Path(env_path),
          run_dir / "plugin", run_dir / "solution", run_dir / "pkgview"]
    return view_args(exe, ro=ro, rw=[run_dir / "work"], scratch=run_dir / "scratch",
                     tmp_mb=tmp_mb, chdir=run_dir / "work")
