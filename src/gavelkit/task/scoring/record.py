"""Writing a run's record: score_result.json (public harness fields + ours) and run_meta.json.

Paths are written relative to the run folder (records must survive moving the task
folder); the isolation, integrity and process blocks say what the run was protected by.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from gavelkit.task.scoring.worktree import inside


def rel(path: Path, base: Path) -> str:
    """`path` relative to `base` (records must survive moving the task folder)."""
    try:
        return os.path.relpath(path.resolve(), base.resolve())
    except ValueError:  # another drive
        return str(path.resolve())


def dump_score(score: dict[str, Any]) -> str:
    """score_result.json text: the top two levels of keys one per line, one case per line.

    The same JSON as `json.dumps(score, indent=2)` when read back; but `indent` switches
    json to its pure-Python encoder (~10 ms for 295 cases, on every run), and one case per
    line is as easy to read and to grep."""
    def one(v: Any) -> str:
        return json.dumps(v, ensure_ascii=False, default=str)

    def block(v: Any, depth: int) -> str:
        pad = "  " * (depth + 1)
        if depth < 2 and isinstance(v, dict) and v:
            return "{\n" + ",\n".join(f"{pad}{one(str(k))}: {block(x, depth + 1)}"
                                       for k, x in v.items()) + "\n" + "  " * depth + "}"
        if depth < 2 and isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            return "[\n" + ",\n".join(pad + one(x) for x in v) + "\n" + "  " * depth + "]"
        return one(v)

    return block(score, 0) + "\n"


def grouped(file_runs: dict[str, Any]) -> dict[str, Any]:
    return {f: {"returncode": fr.returncode, "stdout": fr.stdout[-4000:],
                "stderr": fr.stderr[-4000:], "seconds": round(fr.seconds, 3),
                "killed_after_timeout": fr.killed, "process": fr.file}
            for f, fr in file_runs.items()}


def public_fields(plan: Any, file_runs: dict[str, Any], platform: str) -> dict[str, Any]:
    """The public harness's top-level fields."""
    task, opts, out = plan.task, plan.opts, plan.out
    return {
        "platform": platform, "python_version": sys.version,
        "timeout_seconds": opts.file_timeout, "remove_paths": plan.remove,
        "source_repo": rel(task.dir, out),
        "solution_dir": rel(plan.sol_src, out) if plan.sol_src is not None else None,
        "solution_package": plan.spec,
        "nodeids": task.rel(task.paths["kept"]) if task.paths.get("kept") else "",
        "run_dir": ".", "paths_relative_to": "the run folder (this file's folder)",
        "taxonomy": task.rel(task.paths["taxonomy"]) if task.paths.get("taxonomy") else "",
        "grouped_results": grouped(file_runs),
    }


def isolation_block(plan: Any, use_bwrap: bool, why_bwrap: str) -> dict[str, Any]:
    opts, env = plan.opts, plan.env
    return {
        "active": use_bwrap, "mechanism": "bubblewrap" if use_bwrap else "none",
        "network": "blocked (new network namespace)" if use_bwrap else "NOT blocked",
        "filesystem": ("read-only except a scratch folder, private /tmp and /var/tmp and "
                       "the working folder; environment mounted read-only")
        if use_bwrap else "NOT confined",
        "why_inactive": "" if use_bwrap else (why_bwrap or "--isolation none"),
        "plugin_autoload": False, "cache_provider": False,
        "plugins": [n for n in env.plugin_args() if n not in plan.pa.disabled_plugins]
        if env else [],
        "rlimits": {"address_space_mb": opts.memory_mb, "cpu_seconds": opts.cpu_seconds,
                    "file_size_mb": opts.fsize_mb},
        "private_tmp_mb": opts.tmp_mb if use_bwrap else None,
        "per_test_timeout_s": opts.test_timeout, "per_file_timeout_s": opts.file_timeout,
        "timeout_method": "signal (SIGALRM) + process-group kill",
    }


def write_meta(plan: Any, files: dict[str, str] | None) -> None:
    from gavelkit.core.textio import atomic_write

    out, sol_src, env = plan.out, plan.sol_src, plan.env
    root_rel = None
    if sol_src is not None:
        sol = plan.run_dir / "solution"
        r = (plan.import_root.relative_to(sol) if plan.import_root is not None
             and inside(plan.import_root, sol) else Path("."))
        root_rel = rel(sol_src / r, out)
    meta = {"package": plan.package,
            "solution_dir": rel(sol_src, out) if sol_src is not None else None,
            "role": plan.opts.role,
            "solution_dir_absolute": str(sol_src.resolve()) if sol_src else None,
            "solution_package": plan.spec, "import_root": root_rel,
            "solution_files": files,
            "paths_relative_to": "run folder",
            "remove_paths": plan.remove, "install": plan.install,
            "environment": {"python": env.python if env else None,
                            "path": str(env.path) if env else None,
                            "digest": env.digest if env else None}}
    atomic_write(out / "run_meta.json", json.dumps(meta, indent=2) + "\n")


def write_score(plan: Any, score: dict[str, Any]) -> Path:
    from gavelkit.core.textio import atomic_write

    out = plan.out
    atomic_write(out / "score_result.json", dump_score(score))
    logs = out / "logs"
    if (plan.run_dir / "logs").is_dir():
        if logs.exists():
            shutil.rmtree(logs)
        shutil.copytree(plan.run_dir / "logs", logs)
    return out / "score_result.json"
