"""Per-task scoring environments built with uv and cached by the requirements' hash.

A task is scored in its own virtual environment made from `oracle/requirements.txt`
(plus pytest when the file does not name it), never in the user's site-packages.
The environment lives in `$GAVEL_CACHE_DIR/envs/<hash>` (default
`~/.cache/gavelkit`), keyed by the normalised requirements, the interpreter
version and a format version, so the second run of a task installs nothing.
Builds hold a lock and write a `gavel-env.json` marker last: a half-built
environment is never used. uv hard-links files from its cache, which is why the
runner mounts the environment read-only when bubblewrap is present.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.textio import atomic_write, locked
from gavelkit.task.scoring.envkeys import (
    FORMAT,
    MARKER,
    cache_root,
    env_key,
    norm,
    read_requirements,
)
from gavelkit.task.scoring.envkeys import venv_python as _bin

_LIST_PLUGINS = r"""
import json, site, sys
from importlib.metadata import distributions
out, freeze = [], []
for d in distributions():
    name = d.metadata["Name"] or ""
    freeze.append(f"{name}=={d.version}")
    for ep in d.entry_points:
        if ep.group == "pytest11":
            out.append({"dist": name, "name": ep.name, "value": ep.value})
try:
    dirs = site.getsitepackages()
except Exception:
    dirs = []
print(json.dumps({"plugins": out, "freeze": sorted(freeze, key=str.lower),
                  "python": sys.version.split()[0], "site": dirs}))
"""


class EnvError(Exception):
    """The environment could not be built (an infrastructure/environment failure, not the candidate's)."""


@dataclass(slots=True)
class Env:
    path: Path
    python: str
    key: str
    requirements: list[str]
    plugins: list[dict[str, str]] = field(default_factory=list)
    freeze: list[str] = field(default_factory=list)
    kind: str = "uv"
    reused: bool = False
    build_seconds: float = 0.0
    # distributions besides the requirements whose pytest11 plugins load: a reference's own
    # (an installed library that ships a pytest plugin the oracle uses, e.g. anyio); never
    # a candidate's
    plugin_dists: list[str] = field(default_factory=list)
    site_dirs: list[str] = field(default_factory=list)  # its site-packages (-S starts need them)
    base_path: str = ""  # a solution environment: the task environment it was derived from

    @property
    def digest(self) -> str:
        return hashlib.sha256("\n".join(self.freeze).encode()).hexdigest()

    def plugin_args(self) -> list[str]:
        """`-p NAME` for each pytest11 plugin whose distribution the requirements name (or
        that is the solution's own distribution)."""
        wanted = {norm(r) for r in [*self.requirements, *self.plugin_dists]}
        out: list[str] = []
        for p in self.plugins:
            if norm(p["dist"]) in wanted and p["name"] not in out:
                out.append(p["name"])
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "path": str(self.path), "python": self.python,
                "requirements_hash": self.key, "digest": self.digest,
                "requirements": self.requirements, "plugins": self.plugin_args(),
                "plugin_dists": self.plugin_dists,
                "reused": self.reused, "build_seconds": round(self.build_seconds, 3),
                "packages": self.freeze}


def find_uv() -> str | None:
    exe = shutil.which("uv")
    if exe:
        return exe
    cand = Path(sys.executable).parent / "uv"
    return str(cand) if cand.exists() else None


def _inspect(python: str, confined: bool = False) -> dict[str, Any]:
    """Plugins and installed distributions; an interpreter that never starts is an EnvError.
    `confined`: the environment holds a solution: its interpreter starts without site (a
    .pth the solution installed never runs, and cannot write this listing), with its
    site-packages added by hand, read-only and without network (sandbox.confine)."""
    cmd = [python, "-s", "-c", _LIST_PLUGINS]
    if confined:
        from gavelkit.task.scoring.sandbox import confine

        prelude = ("import glob, sys; sys.path += sorted(glob.glob(sys.argv[1] + "
                   "'/lib/python*/site-packages'))\n")
        cmd = confine([python, "-s", "-S", "-c", prelude + _LIST_PLUGINS,
                       str(Path(python).parent.parent)])[0]
    try:
        proc = subprocess.run(cmd, capture_output=True,
                              text=True, check=False, timeout=120,
                              env={**os.environ, "PYTHONNOUSERSITE": "1"})
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EnvError(f"the interpreter {python} cannot start: {exc}") from None
    if proc.returncode != 0:
        raise EnvError(f"the interpreter {python} cannot start or inspect its environment "
                       f"(exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise EnvError(f"the interpreter {python} did not report its environment: "
                       f"{(proc.stdout + proc.stderr).strip()[-300:]}") from None


def _marker(marker: Path) -> dict[str, Any] | None:
    """A cached environment's record, or None (rebuild) when it is missing or damaged."""
    from gavelkit.core.errors import InputError
    from gavelkit.core.safeio import load_json

    if not marker.is_file():
        return None
    try:
        meta = load_json(marker)
    except InputError:
        return None
    ok = isinstance(meta, dict) and isinstance(meta.get("plugins"), list) and isinstance(
        meta.get("freeze"), list | str)
    return meta if ok else None


def build_env(requirements: Path | None, *, python: str | None = None, offline: bool = False,
              cache: Path | None = None) -> Env:
    """The cached uv environment for these requirements, built on first use."""
    import time

    reqs = read_requirements(requirements)
    install = list(reqs)
    if "pytest" not in {norm(r) for r in reqs}:
        install.append("pytest")
    base_python = python or sys.executable
    key = env_key(install, base_python)
    root = (cache or cache_root()) / "envs"
    venv = root / key
    marker = venv / MARKER
    root.mkdir(parents=True, exist_ok=True)
    with locked(str(venv), timeout=900):
        meta = _marker(marker)
        if meta is not None:
            return Env(venv, str(_bin(venv)), key, reqs, meta["plugins"], meta["freeze"],
                       reused=True)
        uv = find_uv()
        if uv is None:
            raise EnvError("uv not found: install it (`pip install uv`) to build task "
                           "environments, or pass --python to score with a given interpreter")
        if venv.exists():
            shutil.rmtree(venv)
        t0 = time.monotonic()
        # copies, never hard links into uv's cache (a build once wrote pytest's files there)
        env = {**os.environ, "UV_NO_PROGRESS": "1", "UV_LINK_MODE": "copy"}
        proc = subprocess.run([uv, "venv", "--quiet", "--python", base_python, str(venv)],
                              capture_output=True, text=True, check=False, env=env)
        if proc.returncode != 0:
            raise EnvError(f"uv venv failed: {proc.stderr.strip()[-800:]}")
        cmd = [uv, "pip", "install", "--quiet", "--compile-bytecode", "--python",
               str(_bin(venv)), *install]
        proc = subprocess.run([*cmd, "--offline"], capture_output=True, text=True, check=False,
                              env=env)
        if proc.returncode != 0 and not offline:
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
        if proc.returncode != 0:
            shutil.rmtree(venv, ignore_errors=True)
            from gavelkit.task.scoring.uvmessages import install_failure

            raise EnvError(install_failure("the task requirements", proc.stderr, offline))
        info = _inspect(str(_bin(venv)))
        meta = {"format": FORMAT, "requirements": reqs, "installed": install,
                "plugins": info["plugins"], "freeze": info["freeze"], "python": info["python"]}
        from gavelkit.task.scoring import manifest

        manifest.record(venv)  # before the marker: an environment is never used unrecorded
        atomic_write(marker, json.dumps(meta, indent=2) + "\n")
        return Env(venv, str(_bin(venv)), key, reqs, info["plugins"], info["freeze"],
                   build_seconds=time.monotonic() - t0)


def given_env(python: str, requirements: Path | None) -> Env:
    """Score with an interpreter the user named (--python); recorded as such in the result."""
    exe = shutil.which(python) if os.sep not in python else python
    exe = str(Path(exe or python).absolute())  # the sandbox runs in another folder
    if not Path(exe).exists():
        raise EnvError(f"interpreter {python} not found")
    info = _inspect(exe)
    reqs = read_requirements(requirements)
    key = hashlib.sha256("\n".join(info["freeze"]).encode()).hexdigest()[:20]
    prefix = subprocess.run([exe, "-c", "import sys; print(sys.prefix)"], capture_output=True,
                            text=True, check=False).stdout.strip() or str(Path(exe).parent.parent)
    return Env(Path(prefix), exe, key, reqs, info["plugins"], info["freeze"], kind="given",
               site_dirs=list(info.get("site") or []))
