"""Where a task's scoring environment lives, computed without building anything.

Kept apart from `envbuild` (dataclasses, uv, inspection) so that `gavel task run` can find
a warm environment in a few milliseconds, before the rest of the runner is imported, and
start the test process early (`warm`).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# 3: bytecode compiled at install (the sandbox never writes .pyc); 4: files copied from
# uv's cache, never hard-linked, with a manifest checked before use (issue 24)
FORMAT = "gavel-env-4"
SOLENV_FORMAT = "gavel-solenv-2"  # a task environment plus an installed solution
MARKER = "gavel-env.json"
PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")  # a folder that is built, not copied


def norm(req: str) -> str:
    """Distribution name of a requirement line, normalised (PEP 503)."""
    name = re.split(r"[\s<>=!~;\[@]", req.strip(), maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


def read_requirements(path: Path | None) -> list[str]:
    """Requirement lines; an unreadable file (non-UTF-8, FIFO, ...) is InputError (exit 2)."""
    from gavelkit.core.textio import read_text

    if path is None or not os.path.lexists(path):
        return []
    out = []
    for line in read_text(path, allow_empty=True).splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            out.append(line)
    return out


def _machine() -> str:
    if hasattr(os, "uname"):
        return os.uname().machine  # what platform.machine() returns on POSIX, without platform
    import platform

    return platform.machine()


def _sha256_hex(data: bytes) -> str:
    """SHA-256 from CPython's own module where it has one: the same digest as hashlib's,
    without loading OpenSSL before the prestart's fork (3 ms)."""
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]  # CPython 3.11
    except ImportError:
        try:
            from _sha2 import sha256  # type: ignore[import-not-found,no-redef]  # 3.12+
        except ImportError:
            from hashlib import sha256
    return sha256(data).hexdigest()


def env_key(reqs: list[str], python: str) -> str:
    body = "\n".join(sorted(r.strip() for r in reqs))
    if os.path.realpath(python) == os.path.realpath(sys.executable):
        ver = sys.version  # no subprocess for the common case
    else:
        import subprocess

        ver = subprocess.run([python, "-c", "import sys; print(sys.version)"],
                             capture_output=True, text=True, check=False).stdout.strip()
    return _sha256_hex(f"{FORMAT}\n{ver}\n{_machine()}\n{body}".encode())[:20]


def solution_key(base_key: str, ident: str) -> str:
    """Key of the environment derived from task environment `base_key` plus a solution
    (`ident`: a requirement spec, or the digest of a project's source tree)."""
    import hashlib

    return hashlib.sha256(f"{SOLENV_FORMAT}\n{base_key}\n{ident}".encode()).hexdigest()[:20]


def cache_root() -> Path:
    base = os.environ.get("GAVEL_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) / "gavelkit" if xdg else Path.home() / ".cache" / "gavelkit"


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def requirements_path(task_dir: Path, oracle: dict[str, Any] | None = None) -> Path:
    """The oracle requirements file a task names (task.json `oracle.requirements`), else
    oracle/requirements.txt. `oracle` is task.json's oracle block when the caller has read
    it (the runner); without it task.json is read here (the prestart, before the task is
    loaded)."""
    if oracle is None:
        oracle = _oracle_block(task_dir)
    name = oracle.get("requirements")
    req = task_dir / name if isinstance(name, str) and name else None
    if req is None or not req.is_file():
        req = task_dir / "oracle" / "requirements.txt"
    return req


def _oracle_block(task_dir: Path) -> dict[str, Any]:
    import json
    import stat

    try:
        path = task_dir / "task.json"
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block the open
            return {}
        with open(path, "rb") as fh:
            data = json.loads(fh.read(1 << 20))
    except (OSError, ValueError):
        return {}
    oracle = data.get("oracle") if isinstance(data, dict) else None
    return oracle if isinstance(oracle, dict) else {}


def built_env(requirements: Path | None, cache: Path | None = None,
              spec: str | None = None) -> Path | None:
    """The folder of an environment that is already built for these requirements (and the
    solution `spec`), else None. Reads only: a missing or half-built one is None."""
    reqs = read_requirements(requirements)
    if "pytest" not in {norm(r) for r in reqs}:
        reqs.append("pytest")
    root = (cache or cache_root()) / "envs"
    key = env_key(reqs, sys.executable)
    venv = root / key
    if spec:
        if not (venv / MARKER).is_file():
            return None
        venv = root / f"sol-{solution_key(key, spec)}"
    return venv if (venv / MARKER).is_file() else None
