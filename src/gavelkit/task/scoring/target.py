"""Which package a task targets and where a solution keeps it (task.json keys seen in real packets)."""

from __future__ import annotations

from pathlib import Path

from gavelkit.task.formats.load import Task
from gavelkit.task.scoring.worktree import SKIP_DIRS


def target_package(task: Task, explicit: str | None = None) -> str | None:
    """The import name the oracle tests target (task.json keys seen in real packets)."""
    if explicit:
        return explicit
    data = task.task_json.data if task.task_json else {}
    oracle = task.task_json.oracle if task.task_json else {}
    for key in ("package", "target_package", "import_name", "target_import"):
        v = data.get(key) or oracle.get(key)
        if isinstance(v, str) and v:
            return v
    iso = task.task_json.oracle.get("scorer_isolation") if task.task_json else None
    if isinstance(iso, list):
        for i, x in enumerate(iso):
            if x == "--remove-path" and i + 1 < len(iso):
                return str(iso[i + 1]).split("/")[0]
    ti = data.get("TARGET_IMPORTS") or data.get("target_imports")
    if isinstance(ti, list) and ti and isinstance(ti[0], str):
        return ti[0].split(".")[0]
    return None


def task_remove_paths(task: Task) -> list[str]:
    out: list[str] = []
    iso = task.task_json.oracle.get("scorer_isolation") if task.task_json else None
    if isinstance(iso, list):
        for i, x in enumerate(iso):
            if x == "--remove-path" and i + 1 < len(iso):
                out.append(str(iso[i + 1]))
    rp = task.task_json.oracle.get("remove_paths") if task.task_json else None
    if isinstance(rp, list):
        out += [str(x) for x in rp]
    return out


def find_import_root(solution: Path, package: str) -> tuple[Path | None, str]:
    """(folder to put on sys.path, layout) for `package` inside a solution tree."""
    for rel, layout in (("", "flat"), ("src", "src")):
        base = solution / rel if rel else solution
        if (base / package).is_dir() and any((base / package).glob("*.py")):
            return base, layout
        if (base / f"{package}.py").is_file():
            return base, layout + "-module"
    for depth in (1, 2, 3):
        for hit in sorted(solution.glob("/".join(["*"] * depth))):
            if hit.name == package and hit.is_dir() and (hit / "__init__.py").is_file() \
                    and not set(hit.relative_to(solution).parts) & SKIP_DIRS:
                return hit.parent, f"nested:{hit.parent.relative_to(solution)}"
    return None, "missing"


