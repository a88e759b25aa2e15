"""Building a solution project into a wheel, with its own code confined (issue 24).

The install of a project used to be one `uv pip install` run inside a sandbox that kept
the network, uv's shared cache writable and the whole machine readable: the project's
setup.py could rewrite pytest's files in the cache (hard-linked into every task
environment), download code, copy a reference found on disk, or sleep forever. Now:

1. gavel installs the build requirements the project declares (pyproject.toml
   [build-system] requires; setuptools for a legacy setup.py) into a private build
   environment, with uv, before any code of the project runs;
2. the project's build backend runs (`buildwheel.py`) in the build sandbox: the build
   environment and the interpreter read-only, the build copy and the wheel folder
   writable, a private size-capped home and temporary folder, nothing else of the machine,
   no network, no capabilities, and a wall-clock limit (GAVEL_BUILD_TIMEOUT, 600 s); a
   backend asking for more build requirements gets them from gavel and runs again;
3. gavel installs the wheel (which runs no code) with the task's requirements into the
   solution environment, as copies, never links into uv's cache.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LEGACY = ("setuptools>=40.8.0", "setuptools.build_meta:__legacy__")
PASS_ENV = ("SETUPTOOLS_SCM_PRETEND_VERSION", "SOURCE_DATE_EPOCH", "PDM_BUILD_SCM_VERSION",
            "HATCH_BUILD", "PBR_VERSION", "VERSIONINGIT_")  # build metadata, by prefix


@dataclass(slots=True)
class BuildSystem:
    requires: list[str]
    backend: str
    backend_path: list[str]


class BuildError(Exception):
    """The project's build failed (its code, its declarations, or the time limit)."""


def build_system(src: Path) -> BuildSystem:
    """What pyproject.toml declares (PEP 517/518 defaults for a legacy setup.py)."""
    try:
        data = tomllib.loads((src / "pyproject.toml").read_text("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        data = {}
    bs = data.get("build-system") if isinstance(data.get("build-system"), dict) else {}
    if "requires" not in bs and "build-backend" not in bs:
        return BuildSystem([LEGACY[0]], LEGACY[1], [])
    req = [str(r) for r in bs.get("requires") or [] if isinstance(r, str)]
    backend = str(bs.get("build-backend") or LEGACY[1])
    paths = [str(p) for p in bs.get("backend-path") or [] if isinstance(p, str)]
    return BuildSystem(req, backend, paths)


def timeout() -> float:
    try:
        return float(os.environ.get("GAVEL_BUILD_TIMEOUT") or 600)
    except ValueError:
        return 600.0


def _build_environ(home: Path) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home / "home"),
           "TMPDIR": str(home / "tmp"), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1", "PIP_NO_INDEX": "1"}
    env.update({k: v for k, v in os.environ.items() if k.startswith(PASS_ENV)})
    return env


def _confined(cmd: list[str], python: str, buildenv: Path, rw: list[Path],
              scratch: Path) -> tuple[list[str], dict[str, Any]]:
    from gavelkit.task.scoring.sandbox import _BWRAP, bwrap_available
    from gavelkit.task.scoring.view import interpreter_homes, view_args
    from gavelkit.task.scoring.warm import TMP_MB

    ok, why = bwrap_available()
    if not ok:
        return cmd, {"active": False, "why": why}
    wrap = view_args(_BWRAP.get("exe") or shutil.which("bwrap") or "bwrap",
                     ro=[*interpreter_homes(python, buildenv), buildenv], rw=rw,
                     scratch=scratch, tmp_mb=TMP_MB, chdir=rw[0])
    return [*wrap, *cmd], {"active": True, "mechanism": "bubblewrap", "network": "blocked",
                           "view": "build environment, build copy, wheel folder only",
                           "timeout_s": timeout()}


def _backend_call(action: str, python: str, buildenv: Path, src: Path, out: Path,
                  bs: BuildSystem, scratch: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run one backend hook confined; (its answer, the sandbox record)."""
    script = Path(__file__).with_name("buildwheel.py")
    local = out / "buildwheel.py"  # inside a writable folder the sandbox sees
    shutil.copyfile(script, local)
    for sub in ("home", "tmp"):
        (scratch / sub).mkdir(parents=True, exist_ok=True)
    cmd = [python, "-I", str(local), action, str(src), str(out), bs.backend,
           json.dumps(bs.backend_path)]
    full, record = _confined(cmd, python, buildenv, [src, out], scratch)
    try:
        proc = subprocess.run(full, capture_output=True, text=True, check=False, cwd=src,
                              env=_build_environ(scratch), timeout=timeout(),
                              start_new_session=True)
    except subprocess.TimeoutExpired:
        raise BuildError(f"the project's build did not finish within {timeout():g} s "
                         "(GAVEL_BUILD_TIMEOUT): stopped") from None
    except OSError as exc:
        raise BuildError(f"the build could not start: {exc}") from None
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("GAVEL-BUILD "):
            try:
                return json.loads(line[len("GAVEL-BUILD "):]), record
            except ValueError:
                break
    raise BuildError(f"the project's build backend {bs.backend} failed (exit "
                     f"{proc.returncode}): {(proc.stderr or proc.stdout).strip()[-1500:]}")


def build_wheel(src: Path, work: Path, python: str, uv: str, uv_env: dict[str, str],
                offline: bool) -> tuple[Path, dict[str, Any]]:
    """The project's wheel (its path) and the build record; raises BuildError."""
    bs = build_system(src)
    buildenv, out, scratch = work / "buildenv", work / "wheel", work / "scratch"
    out.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([uv, "venv", "--quiet", "--python", python, str(buildenv)],
                          capture_output=True, text=True, check=False, env=uv_env)
    if proc.returncode != 0:
        raise BuildError(f"uv venv failed for the build environment: {proc.stderr[-500:]}")
    bpy = str(buildenv / "bin" / "python")
    _install(uv, uv_env, bpy, bs.requires, offline)
    answer, record = _backend_call("requires", bpy, buildenv, src, out, bs, scratch)
    if answer.get("missing"):
        _install(uv, uv_env, bpy, [str(r) for r in answer["missing"]], offline)
    answer, record = _backend_call("wheel", bpy, buildenv, src, out, bs, scratch)
    wheel = out / str(answer.get("wheel") or "")
    if not answer.get("wheel") or not wheel.is_file() or wheel.parent != out:
        raise BuildError(f"the build backend named no wheel it built ({answer!r})")
    record.update(requires=bs.requires, backend=bs.backend,
                  dynamic_requires=answer.get("requires") or [])
    return wheel, record


def _install(uv: str, env: dict[str, str], python: str, reqs: list[str], offline: bool) -> None:
    """Build requirements into the build environment: gavel's own install, no code of the
    project runs (offline from uv's cache first, then the index)."""
    if not reqs:
        return
    cmd = [uv, "pip", "install", "--quiet", "--python", python, *reqs]
    proc = subprocess.run([*cmd, "--offline"], capture_output=True, text=True, check=False,
                          env=env)
    if proc.returncode != 0 and not offline:
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    if proc.returncode != 0:
        raise BuildError("the build requirements could not be installed ("
                         + ", ".join(reqs) + "): " + proc.stderr.strip()[-800:])
