"""The saturation heuristic (seed "Task Labels": trivially-solved at 100 %).

A 100 % pass rate is suspicious when it looks like recall rather than reconstruction
from the spec; the thresholds are data (`data/judge/labels.toml` [saturation]).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gavelkit.task.judgedata import for_task


def saturation(task: Any, rate: float | None, solution_dir: str | Path | None,
               copy: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """100 % looks like recall rather than reconstruction from the spec: far fewer files
    than upstream, or (`copy`, the anti-cheat scan's CHT-C001) much of the candidate's code
    reproducing the reference source. Either route makes it apply."""
    cfg = for_task("labels", task)["saturation"]
    data = task.task_json.data if task.task_json else {}
    up = _upstream_files(data)
    files = _candidate_files(Path(solution_dir)) if solution_dir else None
    share = _copy_share(copy)
    out: dict[str, Any] = {"checked": rate == 1.0, "candidate_files": files,
                           "upstream_files": up, "applies": False}
    if share is not None:
        out["copy_share"] = share
    if rate != 1.0:
        out["reason"] = "candidate pass rate is below 100 %"
        return out
    few, copied = _routes(cfg, files, up, share)
    if few is None and copied is None:
        out["reason"] = ("file counts unknown (need the solution folder and task.json "
                         "source_meta.files or upstream_files)")
        return out
    out["applies"] = bool(few or copied)
    out["reason"] = _saturation_reason(files, up, share, copied, out["applies"])
    return out


def _routes(cfg: dict[str, Any], files: int | None, up: int | None,
            share: float | None) -> tuple[bool | None, bool | None]:
    """(far fewer files than upstream, much of the code copied); None: not measured."""
    few = None if files is None or up is None else (
        up >= cfg["min_upstream_files"] and files <= up * cfg["max_file_ratio"])
    return few, None if share is None else share >= cfg["min_copy_share"]


def _saturation_reason(files: int | None, up: int | None, share: float | None,
                       copied: bool | None, applies: bool) -> str:
    parts = [] if files is None or up is None else [
        f"{files} candidate file(s) vs {up} upstream at 100 %"]
    if share is not None:
        parts.append(f"{share:.0%} of the candidate's code lines reproduce the reference "
                     "source (CHT-C001)")
    verdict = ("consistent with recall from training data rather than reconstruction from "
               "the spec" if applies else
               "not significantly fewer" if copied is None else "neither route applies")
    return "; ".join(parts) + ": " + verdict


def _copy_share(copy: Mapping[str, Any] | None) -> float | None:
    """The scan's share of candidate code lines reproducing the reference (None: not
    measured, or no code lines to measure)."""
    if not copy or not copy.get("total"):
        return None
    share = copy.get("share")
    return float(share) if isinstance(share, (int, float)) else None


def _upstream_files(data: dict[str, Any]) -> int | None:
    """The upstream file count task.json records (source_meta, upstream_files), if any."""
    for holder, key in ((data.get("source_meta"), "files"), (data.get("source_meta"), "py_files"),
                        (data, "upstream_files"), (data.get("oracle"), "upstream_files")):
        if isinstance(holder, dict) and isinstance(holder.get(key), int):
            return int(holder[key])
    return None


def _candidate_files(solution: Path) -> int | None:
    """Python files of the candidate's solution, tests and hidden folders aside."""
    if not solution.is_dir():
        return None
    return sum(1 for p in solution.rglob("*.py")
               if "__pycache__" not in p.parts and not any(
                   x.startswith(".") or x in ("tests", "test") for x in p.parts))
