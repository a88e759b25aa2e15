"""Gates D/E/F over a folder of tasks: the verdict per task and the most common causes.

A maintainer facing fifteen errors per task on a hundred tasks stops reading;
grouped by cause (rule and what it found), the same results read as three
things to fix. Used by `gavel task gates-all`.

    fg = gates_all("tasks/")
    fg.rows      # one TaskGates per task folder, sorted by path
    fg.causes    # [Cause(code, title, tasks, findings, examples)], most tasks first
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding

MARKERS = ("spec.md", "task.json", "MANIFEST.json")


@dataclass(slots=True)
class TaskGates:
    path: str  # relative to the root
    task_id: str = ""
    verdicts: dict[str, str] = field(default_factory=dict)
    passed: bool = False
    errors: int = 0
    warnings: int = 0
    standard: str = ""
    standard_line: str = ""
    gate_d_source: str = ""
    error_codes: dict[str, int] = field(default_factory=dict)
    unreadable: str = ""  # why the folder could not be loaded

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}  # type: ignore[attr-defined]


@dataclass(slots=True)
class Cause:
    code: str
    title: str
    tasks: int
    findings: int
    examples: list[str]


@dataclass(slots=True)
class FleetGates:
    root: str
    rows: list[TaskGates] = field(default_factory=list)
    causes: list[Cause] = field(default_factory=list)
    older_standard: dict[str, int] = field(default_factory=dict)  # standard id -> tasks


def find_task_dirs(root: Path, depth: int = 3) -> list[Path]:
    """Folders under root (root itself included) holding spec.md, task.json or MANIFEST.json."""
    if any((root / m).is_file() for m in MARKERS):
        return [root]
    out: list[Path] = []
    if depth <= 0:
        return out
    try:
        children = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return out
    for c in children:
        out += find_task_dirs(c, depth - 1)
    return out


def _one(d: Path, root: Path, config: str | None, gates: str) -> tuple[TaskGates, list[Finding]]:
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.gates import run_gates

    rel = str(d.relative_to(root)) if d != root else d.name
    row = TaskGates(rel)
    try:
        task = load_task(d, config)
    except InputError as exc:
        row.unreadable = exc.to_finding().message
        return row, []
    rep = run_gates(task, gates)
    row.task_id = task.id
    row.verdicts = rep.verdicts
    row.passed = rep.passed
    fnd = rep.findings
    row.errors = sum(f.severity == "error" for f in fnd)
    row.warnings = sum(f.severity == "warning" for f in fnd)
    for f in fnd:
        if f.severity == "error":
            row.error_codes[f.code] = row.error_codes.get(f.code, 0) + 1
    row.standard = rep.standard.get("applied", "")
    row.standard_line = rep.standard.get("line", "")
    if "D" in rep.results:
        row.gate_d_source = str(rep.results["D"].data.get("source", ""))
    return row, fnd


def gates_all(root: str | Path, config: str | None = None, gates: str = "DEF",
              progress: Callable[[str], None] | None = None) -> FleetGates:
    """Run the gates on every task folder under root; InputError if root is not a folder."""
    base = Path(root)
    if not base.is_dir():
        raise InputError(str(root), "not a folder of tasks (no such directory)")
    dirs = find_task_dirs(base)
    if not dirs:
        raise InputError(str(root), "no task folder found (a folder holding spec.md, task.json "
                                    "or MANIFEST.json, up to three levels down)")
    fg = FleetGates(str(base))
    for d in dirs:
        if progress:
            progress(str(d))
        row, _ = _one(d, base, config, gates)
        fg.rows.append(row)
        if row.standard_line:
            fg.older_standard[row.standard] = fg.older_standard.get(row.standard, 0) + 1
    fg.causes = _causes(fg.rows)
    return fg


def _causes(rows: list[TaskGates]) -> list[Cause]:
    """Error codes by the tasks they hit (most first), with up to three example tasks."""
    from gavelkit.core.rules import get

    by_code: dict[str, list[tuple[str, int]]] = {}
    for row in rows:
        for code, n in row.error_codes.items():
            by_code.setdefault(code, []).append((row.path, n))
    causes = []
    for code, hits in by_code.items():
        rule = get(code)
        causes.append(Cause(code, rule.title if rule else code, len(hits),
                            sum(n for _, n in hits), [p for p, _ in hits[:3]]))
    return sorted(causes, key=lambda c: (-c.tasks, -c.findings, c.code))
