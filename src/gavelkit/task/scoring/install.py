"""Install a solution the way its users install it, and prove the tests ran its code.

A solution folder that is a Python project (pyproject.toml, setup.py or setup.cfg at its
root: a repository checkout, an unpacked sdist, a candidate's package) is built from a
private copy and installed, non-editable and with its declared runtime dependencies, into
an environment derived from the task's uv environment: the oracle requirements and the
solution resolved together by uv. A `--reference-package NAME==VER` spec is installed the
same way. Without that, entry points, `importlib.metadata` and src layouts fail and a
correct library scores 0 %.

The derived environment is cached like the task environment (`envs/<key>`, keyed by the
task environment, the solution's file digests or the spec, and a format version), so the
second run of the same solution installs nothing.

Provenance (`verify_provenance`): the module the tests import must be the installed copy
inside that environment, and every installed `.py` file of the target package that also
exists in the solution's source must be byte-identical to it (files the build generates,
such as `_version.py`, are listed as generated). For a spec, the module file must belong
to the named distribution. A failure is an error finding; the score is not trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from gavelkit.core.textio import atomic_write, locked
from gavelkit.task.scoring.envkeys import PROJECT_FILES, SOLENV_FORMAT, solution_key
from gavelkit.task.scoring.uvmessages import install_failure, missing_requirements

_SKIP = {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".tox", "node_modules",
         ".mypy_cache", ".pytest_cache", ".ruff_cache", "build", "dist", ".eggs"}

def is_project(folder: Path) -> bool:
    """Does the folder carry packaging metadata that says how to build and install it?"""
    return any((folder / name).is_file() for name in PROJECT_FILES)


def source_files(folder: Path) -> dict[str, str]:
    """{relative path: sha256} of a solution tree, skipping VCS and build litter."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP)
        for name in sorted(filenames):
            p = Path(dirpath) / name
            if p.is_symlink() or not p.is_file():
                continue
            out[str(p.relative_to(folder))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def source_digest(folder: Path) -> str:
    """One digest of a solution tree (names and bytes)."""
    body = "\n".join(f"{k}\0{v}" for k, v in sorted(source_files(folder).items()))
    return hashlib.sha256(body.encode()).hexdigest()


def project_name(folder: Path) -> str | None:
    """The distribution name a project declares (pyproject [project], setup.cfg, setup.py)."""
    import configparser
    import tomllib

    try:
        data = tomllib.loads((folder / "pyproject.toml").read_text("utf-8"))
        name = (data.get("project") or {}).get("name")
        if isinstance(name, str) and name:
            return name
    except (OSError, ValueError, UnicodeDecodeError):
        pass
    cfg = configparser.ConfigParser(interpolation=None)
    try:
        cfg.read(folder / "setup.cfg", encoding="utf-8")
        if cfg.get("metadata", "name", fallback=""):
            return cfg.get("metadata", "name")
    except (configparser.Error, UnicodeDecodeError):
        pass
    try:
        m = re.search(r"""\bname\s*=\s*['"]([A-Za-z0-9][\w.\-]*)['"]""",
                      (folder / "setup.py").read_text("utf-8", "replace"))
        return m.group(1) if m else None
    except OSError:
        return None


def copy_source(src: Path, dest: Path) -> Path:
    """A private copy to build from (the build must not write into the user's folder);
    FIFOs, devices and broken links are left out (copying one could block forever)."""
    from gavelkit.task.scoring.worktree import special_entries

    bad = {os.path.join(os.path.realpath(src / Path(rel).parent), Path(rel).name)
           for rel, _ in special_entries(src)}
    shutil.copytree(src, dest, symlinks=False, ignore=lambda d, names: {
        n for n in names if n in _SKIP or os.path.join(os.path.realpath(d), n) in bad})
    return dest


def _run(cmd: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)


def _uv_cache(uv: str, env: dict[str, str]) -> Path | None:
    proc = _run([uv, "cache", "dir"], env)
    out = proc.stdout.strip()
    return Path(out) if proc.returncode == 0 and out else None


def _built(build_dir: Path, python: str, uv: str, env: dict[str, str],
           offline: bool) -> tuple[str, dict[str, Any]]:
    """The project's wheel, built with its own code confined (task/scoring/build)."""
    from gavelkit.task.scoring.build import BuildError, build_wheel
    from gavelkit.task.scoring.envbuild import EnvError

    try:
        wheel, record = build_wheel(build_dir / "src", build_dir, python, uv, env, offline)
    except BuildError as exc:
        raise EnvError(str(exc)) from None
    return str(wheel), record


def _compile(venv: Path) -> None:
    """Bytecode for the installed files (the sandbox never writes .pyc), compiled by an
    interpreter started without site: uv's own --compile-bytecode starts the environment's
    interpreter normally, and a .pth the solution's wheel installs would run right there."""
    from gavelkit.task.scoring.envbuild import _bin
    from gavelkit.task.scoring.sandbox import confine

    for sp in sorted(venv.glob("lib/python*/site-packages")):
        _run(confine([str(_bin(venv)), "-S", "-I", "-m", "compileall", "-q", "-j", "0",
                      str(sp)], writable=[venv])[0], {"PATH": os.environ.get("PATH", "")})


def _install_target(uv: str, env: dict[str, str], venv: Path, reqs: list[str], target: str,
                    spec: str | None, hide: list[Path], offline: bool, what: str,
                    record: dict[str, Any]) -> None:
    """uv installs the requirements and the solution (a built wheel: gavel's own install,
    no code of the solution runs; a registry spec: its build, if any, confined as before)."""
    from gavelkit.task.scoring.envbuild import EnvError, _bin
    from gavelkit.task.scoring.sandbox import confine

    cmd = [uv, "pip", "install", "--quiet", "--python", str(_bin(venv)), *reqs, target]
    if spec:
        cmd.insert(3, "--compile-bytecode")
        tmp = venv.parent / f".tmp-{venv.name}"
        uv_cache = _uv_cache(uv, env)
        writable = [venv, tmp, *([uv_cache] if uv_cache else [])]
        benv = {**env, "TMPDIR": str(tmp)}
        off, record["build_sandbox"] = confine([*cmd, "--offline"], writable=writable,
                                               hidden=list(hide), network=True)
        proc = _run(off, benv)
        if proc.returncode != 0 and not offline:
            proc = _run(confine(cmd, writable=writable, hidden=list(hide), network=True)[0],
                        benv)
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        proc = _run([*cmd, "--offline"], env)
        if proc.returncode != 0 and not offline:
            proc = _run(cmd, env)
        if proc.returncode == 0:
            _compile(venv)
    if proc.returncode != 0:
        shutil.rmtree(venv, ignore_errors=True)
        err = EnvError(install_failure(what, proc.stderr, offline))
        err.missing = missing_requirements(proc.stderr)  # type: ignore[attr-defined]
        raise err


def solution_env(base: Any, *, source: Path | None = None, spec: str | None = None,
                 offline: bool = False, cache: Path | None = None,
                 base_python: str | None = None,
                 hide: list[Path] = ()) -> tuple[Any, dict[str, Any]]:
    """(Env, install record): the task environment plus the solution, built once per key.

    A project is built into a wheel with its own code confined and without network
    (task/scoring/build); gavel then installs the wheel. A registry spec is installed by
    uv confined as before (writing the new environment, uv's cache and a private temp
    folder, the folders in `hide` empty, with the network to fetch it)."""
    from gavelkit.task.scoring.envbuild import (
        MARKER,
        Env,
        EnvError,
        _bin,
        _inspect,
        cache_root,
        find_uv,
        norm,
    )
    if (source is None) == (spec is None):
        raise ValueError("exactly one of source and spec")
    what = spec if spec else f"the solution project {source}"
    ident = spec if spec else source_digest(source)  # type: ignore[arg-type]
    key = solution_key(base.key, ident)
    root = (cache or cache_root()) / "envs"
    venv = root / f"sol-{key}"
    marker = venv / MARKER
    root.mkdir(parents=True, exist_ok=True)
    record: dict[str, Any] = {"kind": "spec" if spec else "project", "spec": spec,
                              "source_digest": None if spec else ident, "env_key": key}
    with locked(str(venv), timeout=900):
        if marker.is_file():
            meta = json.loads(marker.read_text("utf-8"))
            record.update(meta.get("install", {}), reused=True)
            return (Env(venv, str(_bin(venv)), key, base.requirements, meta["plugins"],
                        meta["freeze"], kind="uv+solution", reused=True,
                        base_path=str(base.path)), record)
        uv = find_uv()
        if uv is None:
            raise EnvError("uv not found: install it (`pip install uv`) to install the solution")
        if venv.exists():
            shutil.rmtree(venv)
        t0 = time.monotonic()
        env = {**os.environ, "UV_NO_PROGRESS": "1", "UV_LINK_MODE": "copy"}
        py = base_python or base.python
        proc = _run([uv, "venv", "--quiet", "--python", py, str(venv)], env)
        if proc.returncode != 0:
            raise EnvError(f"uv venv failed: {proc.stderr.strip()[-800:]}")
        build_dir = None
        try:
            if spec:
                target = spec
            else:
                build_dir = venv.parent / f".build-{key}"
                if build_dir.exists():
                    shutil.rmtree(build_dir)
                copy_source(source, build_dir / "src")  # type: ignore[arg-type]
                target, record["build_sandbox"] = _built(build_dir, py, uv, env, offline)
            reqs = list(base.requirements)
            if "pytest" not in {norm(r) for r in reqs}:
                reqs.append("pytest")
            _install_target(uv, env, venv, reqs, target, spec, hide, offline, what, record)
        finally:
            if build_dir is not None:
                shutil.rmtree(build_dir, ignore_errors=True)
        info = _inspect(str(_bin(venv)), confined=True)  # its .pth files run at start-up
        record["seconds"] = round(time.monotonic() - t0, 3)
        meta = {"format": SOLENV_FORMAT, "requirements": base.requirements, "plugins": info["plugins"],
                "freeze": info["freeze"], "python": info["python"], "install": record}
        from gavelkit.task.scoring import manifest

        manifest.record(venv)
        atomic_write(marker, json.dumps(meta, indent=2) + "\n")
        return (Env(venv, str(_bin(venv)), key, base.requirements, info["plugins"],
                    info["freeze"], kind="uv+solution", base_path=str(base.path)), record)


# Where `import NAME` loads from, found as the import system finds it (find_spec: the
# module is located, not run, so the probe costs an interpreter start, not the package's
# import time; the judge's preflight does the literal import later). Distribution files
# come from importlib.metadata; which distributions provide NAME is only looked up when
# the module is not the named distribution's (for the message) or no distribution is named.
_PROBE = r"""
import importlib.util, json, os, sys
name = sys.argv[1]
dist = sys.argv[2] if len(sys.argv) > 2 else ""
out = {"file": None, "error": None, "dist_files": None}
try:
    spec = importlib.util.find_spec(name)
    if spec is None:
        out["error"] = f"ModuleNotFoundError: No module named {name!r}"
    else:
        out["file"] = spec.origin if spec.has_location else None
        out["path"] = [str(p) for p in (spec.submodule_search_locations or [])]
except BaseException as exc:
    out["error"] = f"{type(exc).__name__}: {exc}"
import importlib.metadata as md
files = set()
if dist:
    try:
        d = md.distribution(dist)
        out["dist_files"] = [str(d.locate_file(f)) for f in (d.files or [])]
        out["dist_version"] = d.version
        out["dist_requires"] = [r.split(";")[0] for r in (d.requires or [])
                                if "extra ==" not in r]
        files = {os.path.realpath(f) for f in out["dist_files"]}
        name_of = d.metadata["Name"] or dist
    except BaseException as exc:
        out["dist_error"] = f"{type(exc).__name__}: {exc}"
if dist and out["file"] and os.path.realpath(out["file"]) in files:
    out["dists"] = [name_of]
else:
    try:
        out["dists"] = md.packages_distributions().get(name.split(".")[0], [])
    except BaseException:
        out["dists"] = []
print(json.dumps(out))
"""


def probe(python: str, package: str, dist: str = "") -> dict[str, Any]:
    """Run _PROBE in the solution environment, confined and without site: a .pth file is
    the solution's, and one that ran here could print the answer the probe reads."""
    from gavelkit.task.scoring.sandbox import confine

    env = {"PATH": os.environ.get("PATH", ""), "PYTHONNOUSERSITE": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    cwd = os.path.dirname(python)
    venv = str(Path(python).parent.parent)
    prelude = (f"import glob, sys; sys.path += sorted(glob.glob({venv!r} + "
               "'/lib/python*/site-packages'))\n")
    cmd = confine([python, "-s", "-S", "-I", "-c", prelude + _PROBE, package,
                   *([dist] if dist else [])], cwd=Path(cwd))[0]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env, cwd=cwd)
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": f"probe failed (exit {proc.returncode}): {proc.stderr.strip()[-400:]}"}


def _dist_name(spec: str) -> str:
    return re.split(r"[\s<>=!~;\[@]", spec.strip(), maxsplit=1)[0]


def verify_provenance(python: str, env_path: Path, package: str, *,
                      source_root: Path | None = None, spec: str | None = None,
                      role: str = "candidate") -> dict[str, Any]:
    """Did `import PACKAGE` in this environment load the solution's build? (see module doc)

    For a reference release only, a module of a distribution the named one requires
    directly also passes, said so: some releases ship their package through another
    distribution (griffe 2.x installs `griffe` from griffelib). A candidate must ship it
    itself, or a thin package depending on the upstream library would pass as its work."""
    top = package.split(".")[0]
    got = probe(python, top, _dist_name(spec) if spec else "")
    res: dict[str, Any] = {"package": top, "module_file": got.get("file"), "ok": False,
                           "matched": 0, "generated": [], "differs": [],
                           "distributions": got.get("dists") or []}
    if got.get("error") or not got.get("file"):
        res["why"] = f"`import {top}` failed in the solution environment: " \
                     f"{got.get('error') or 'no __file__ (namespace package?)'}"
        return res
    mod = Path(got["file"]).resolve()
    envp = env_path.resolve()
    if not str(mod).startswith(str(envp) + os.sep):
        res["why"] = f"{top} was imported from {mod}, outside the solution environment {envp}"
        return res
    if spec:
        return _spec_provenance(res, got, mod, spec, role)
    if source_root is None:
        res["why"] = f"the package {top} was not found in the solution's source tree to compare"
        return res
    return _source_provenance(res, mod, source_root, top)


def _spec_provenance(res: dict[str, Any], got: dict[str, Any], mod: Path, spec: str,
                     role: str) -> dict[str, Any]:
    """The module file belongs to the named distribution (or, for a reference, to one it
    requires and ships its package through)."""
    from gavelkit.task.scoring.envkeys import norm

    files = {str(Path(f).resolve()) for f in (got.get("dist_files") or [])}
    res["ok"] = str(mod) in files
    res["distribution"] = f"{_dist_name(spec)} {got.get('dist_version', '?')}"
    via = sorted(d for d in res["distributions"]
                 if norm(d) in {norm(r) for r in got.get("dist_requires") or []})
    if not res["ok"] and role == "reference" and via:
        res.update(ok=True, via=via[0])
        res["why"] = (f"{mod} belongs to {via[0]}, which the reference release "
                      f"{res['distribution']} requires and ships its package through "
                      "(accepted for a reference, never for a candidate)")
        return res
    if res["ok"]:
        res["why"] = f"{mod} belongs to the installed distribution {res['distribution']}"
        return res
    dep = (f" but of {', '.join(res['distributions'])} (a dependency: the solution must "
           "ship the package itself)") if res["distributions"] else ""
    err = f": {got['dist_error']}" if got.get("dist_error") else ""
    res["why"] = f"{mod} is not a file of the distribution {_dist_name(spec)}{dep}{err}"
    return res


def _source_provenance(res: dict[str, Any], mod: Path, source_root: Path,
                       top: str) -> dict[str, Any]:
    """Every installed .py file of the package that the source has is byte-identical to
    it; the rest were generated by the build."""
    installed_root = mod.parent if mod.name == "__init__.py" else mod
    src_pkg = source_root / (top if installed_root.is_dir() else installed_root.name)
    pairs = ([(p, src_pkg / p.relative_to(installed_root))
              for p in sorted(installed_root.rglob("*.py"))]
             if installed_root.is_dir() else [(installed_root, src_pkg)])
    for inst, src in pairs:
        rel = str(inst.relative_to(installed_root.parent))
        if not src.is_file():
            res["generated"].append(rel)
        elif src.read_bytes() == inst.read_bytes():
            res["matched"] += 1
        else:
            res["differs"].append(rel)
    init_ok = mod.name != "__init__.py" or (src_pkg / "__init__.py").is_file()
    res["ok"] = res["matched"] > 0 and not res["differs"] and (not pairs or init_ok)
    if res["ok"]:
        gen = f", {len(res['generated'])} generated by the build" if res["generated"] else ""
        res["why"] = (f"{top} imported from the installed build {mod}; {res['matched']} "
                      f"file(s) byte-identical to the solution source{gen}")
    else:
        res["why"] = f"installed {top} does not match the solution source: " + (
            f"{len(res['differs'])} file(s) differ ({', '.join(res['differs'][:3])})"
            if res["differs"] else "no file of it is in the source")
    return res
