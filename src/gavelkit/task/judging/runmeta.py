"""A run's metadata (run_meta.json), with its recorded paths resolved and checked.

Runs record `solution_dir` and `import_root` relative to the run folder, so a task folder
moved or copied as a whole (to another machine, into a fleet) keeps working; the absolute
path is kept as a second place to look (a solution scored from outside the task folder),
and absolute paths from older runs are still read. The solution's file digests recorded at scoring
time are compared with the folder found now: a solution that is missing or changed since
it was scored is a mismatch, and the judge refuses it by name (TSK-J020) instead of
preflighting or measuring code that was not the code scored.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def _read_json(path: Path) -> dict[str, Any] | None:
    from gavelkit.core.safeio import json_object_or_none  # a FIFO or deep JSON never hangs

    return json_object_or_none(path)


def _resolve(value: Any, base: Path) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    p = Path(value)
    return str(p if p.is_absolute() else (base / p).resolve())


def read_run_meta(score_path: Path) -> dict[str, Any]:
    """Only the run's metadata (package, solution, environment): no score value."""
    base = score_path.parent
    side = base / "run_meta.json"
    data = _read_json(side) if side.is_file() else None
    if data is None:
        score = _read_json(score_path) or {}
        g = score.get("gavel") if isinstance(score.get("gavel"), dict) else {}
        data = {"package": g.get("package"), "solution_dir": score.get("solution_dir"),
                "environment": g.get("environment") or {},
                "remove_paths": score.get("remove_paths"), "install": g.get("install")}
    recorded = data.get("solution_dir")
    data["solution_dir_recorded"] = recorded
    sol = _resolve(recorded, base)
    root = _resolve(data.get("import_root"), base)
    alt = data.get("solution_dir_absolute")
    if sol and not Path(sol).is_dir() and isinstance(alt, str) and Path(alt).is_dir():
        # the run moved without its solution (scored from elsewhere): the folder at the
        # recorded absolute path is used only if its files match the recorded digests
        if root and sol:
            root = str(Path(alt) / os.path.relpath(root, sol))
        sol = alt
    data["solution_dir"] = sol
    data["import_root"] = root
    data["mismatch"] = mismatch(data, base)
    return data


def mismatch(meta: dict[str, Any], base: Path) -> str:
    """Why the solution folder found now is not the one that was scored ('' when it is)."""
    files = meta.get("solution_files")
    sol = meta.get("solution_dir")
    if not sol or not isinstance(files, dict):
        return ""
    where = (f"{meta.get('solution_dir_recorded')} (recorded relative to the run folder "
             f"{base})")
    folder = Path(sol)
    if not folder.is_dir():
        return f"the scored solution folder {where} is not there"
    from gavelkit.task.scoring.install import source_files

    now = source_files(folder)
    changed = sorted(k for k in set(files) | set(now) if files.get(k) != now.get(k))
    if changed:
        return (f"the solution folder {where} changed since it was scored: "
                + ", ".join(changed[:6]) + (f" and {len(changed) - 6} more" if len(changed) > 6
                                            else "") + "; re-score it")
    return ""
