"""What a run tells its test processes about itself, and what it makes of their evidence.

`configure` gives the sandbox: the boot's site configuration (the .pth files that may run:
the task environment's own, never a solution's), the folder that puts the target package
before site-packages when the environment also provides that name, and the result
plugin's integrity configuration (the oracle's file digests, where the candidate's code
lives, which modules to watch). `evidence` turns what the processes reported into
findings and the score's `gavel.integrity.evidence` record.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Any

from gavelkit.task.scoring.warm import pth_files, site_config


def _allowed_pth(plan: Any) -> Any:
    env = plan.env
    if plan.opts.role == "reference" or env.kind != "uv+solution" or not env.base_path:
        return "all"
    return pth_files(Path(env.base_path))


def _site_dirs(env: Any) -> list[str]:
    return list(env.site_dirs) or sorted(glob.glob(str(Path(env.path) / "lib" / "python*" /
                                                       "site-packages")))


def _pkgview(plan: Any, box: Any) -> list[str]:
    """The target package alone, before site-packages, when the environment has a module
    of that name too (a requirement that depends on the target)."""
    pkg, root = (plan.package or "").split(".")[0], plan.import_root
    if not pkg or root is None or plan.installed:
        return []
    src = root / pkg if (root / pkg).is_dir() else root / f"{pkg}.py"
    if not src.exists() or not _env_has(plan.env, pkg):
        return []
    view = plan.run_dir / "pkgview"
    view.mkdir(exist_ok=True)
    link = view / src.name
    if not link.exists():
        link.symlink_to(src)
    return [str(view)]


def _env_has(env: Any, pkg: str) -> bool:
    """The environment's site-packages has a module or package of that name."""
    return any(os.path.exists(os.path.join(d, n)) for d in _site_dirs(env)
               for n in (pkg, pkg + ".py"))


def _candidate_roots(plan: Any, front: list[str]) -> list[str]:
    """Where the candidate's code lives as the test process sees it."""
    if not plan.installed:
        roots = [str(plan.import_root)] if plan.import_root is not None else []
        return roots + front[1:]
    env = plan.env
    base = Path(env.base_path) if env.base_path else None
    out = []
    for d in _site_dirs(env):
        rel = os.path.relpath(d, env.path)
        have = set(os.listdir(base / rel)) if base is not None and (base / rel).is_dir() \
            else set()
        for name in sorted(os.listdir(d)):
            if name not in have and name != "__pycache__":
                out.append(os.path.join(d, name))
    return out


def configure(box: Any, plan: Any, oracle_code: dict[str, str]) -> None:
    from gavelkit.task.judgedata import table

    env = plan.env
    box.site = site_config(Path(env.path), _allowed_pth(plan), env.site_dirs or None)
    box.front = [str(box.plugdir), *_pkgview(plan, box)]
    box.plugin_cfg = {
        "work": str(box.work), "oracle_code": oracle_code, "package": plan.package,
        "candidate": _candidate_roots(plan, box.front),
        "env_dirs": _site_dirs(env) + ([str(Path(env.base_path))] if env.base_path else []),
        "watch_modules": list(table("integrity")["watch_modules"]),
        "role": plan.opts.role, "oracle_args": list(plan.pa.kept),
    }


def evidence(plan: Any, score: dict[str, Any], runs: list[Any]) -> None:
    from gavelkit.task.scoring import integrity

    uniq = list({id(r): r for r in runs}.values())
    ev = integrity.collect(uniq, plan.run_dir, plan.sol_src)
    plan.findings += integrity.findings(ev, str(plan.task.dir))
    score["gavel"].setdefault("integrity", {})["evidence"] = ev.to_dict()
