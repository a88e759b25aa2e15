"""`gavel task gates-all TASKS_DIR`: gates D/E/F on every task of a folder, grouped by cause.

Exit 0 when every task passes, 1 when some task fails a gate (or could not be
loaded), 2 when TASKS_DIR is not a folder of tasks.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass
from typing import Any

from gavelkit.cli.common import add_format, emit, parser
from gavelkit.core.findings import Finding


def _table(fg: Any, gates: str) -> list[str]:
    width = max([len(r.path) for r in fg.rows] + [4])
    head = f"{'task':<{width}}  " + "  ".join(f"{g:<8}" for g in gates) + "  errors  standard"
    lines = [head, "-" * len(head)]
    for r in fg.rows:
        if r.unreadable:
            lines.append(f"{r.path:<{width}}  UNREADABLE: {r.unreadable}")
            continue
        v = "  ".join(f"{r.verdicts.get(g, '-'):<8}" for g in gates)
        lines.append(f"{r.path:<{width}}  {v}  {r.errors:>6}  {r.standard}"
                     + (" (older)" if r.standard_line else ""))
    return lines


@dataclass(frozen=True, slots=True)
class _Summary:
    tasks: int
    passed: int
    failed: int
    unreadable: int
    older_standard: dict[str, int]


def _parser(prog: str) -> argparse.ArgumentParser:
    p = parser(prog, "Run gates D (coverage), E (quality), F (phrasing) on every task under "
               "TASKS_DIR and show the verdict per task and the most common causes.\n\n"
               "exit 0: every task passes; 1: some task fails or cannot be loaded; "
               "2: TASKS_DIR is not a folder of tasks.")
    p.add_argument("tasks_dir", metavar="TASKS_DIR")
    p.add_argument("--config", help="TOML file overriding the task tables for every task")
    p.add_argument("--gate", default="DEF", help="which gates, e.g. D or DEF (default: DEF)")
    p.add_argument("--top", type=int, default=5, help="causes to list (default: 5)")
    add_format(p)
    return p


def main(argv: list[str], prog: str) -> int:
    from gavelkit.task.gates.fleet import gates_all

    a = _parser(prog).parse_args(argv)
    gates = _gate_letters(a.gate)
    fg = gates_all(a.tasks_dir, a.config, gates)
    summary, findings = _summarise(fg)
    outcome = 0 if summary.passed == summary.tasks else 1
    if a.format == "json":
        extra = {"summary": asdict(summary), "tasks": [r.as_dict() for r in fg.rows],
                 "causes": [{"code": c.code, "title": c.title, "tasks": c.tasks,
                             "findings": c.findings, "examples": c.examples} for c in fg.causes]}
        return emit(findings, "json", "task gates-all", extra=extra, outcome=outcome)
    lines = [] if a.quiet else [*_table(fg, gates), ""]
    lines += _summary_text(fg, summary, fg.causes[: max(a.top, 0)])
    return emit(findings, "text", "task gates-all", text="\n".join(lines), quiet=a.quiet,
                outcome=outcome)


def _gate_letters(gate: str) -> str:
    gates = "".join(g for g in "DEF" if g in gate.upper())
    if not gates or set(gate.upper()) - set("DEF"):
        from gavelkit.core.errors import UsageError

        raise UsageError(f"--gate takes letters from D, E, F (got {gate!r})")
    return gates


def _summarise(fg: Any) -> tuple[_Summary, list[Finding]]:
    """The counts, and a TSK-R011 per task folder that could not be loaded."""
    n = len(fg.rows)
    passed = sum(1 for r in fg.rows if r.passed and not r.unreadable)
    unreadable = [r for r in fg.rows if r.unreadable]
    findings = [Finding("TSK-R011", "error", f"task folder cannot be loaded: {r.unreadable}",
                        f"{fg.root}/{r.path}", 0, 0) for r in unreadable]
    return _Summary(n, passed, n - passed - len(unreadable), len(unreadable),
                    fg.older_standard), findings


def _summary_text(fg: Any, s: _Summary, causes: list[Any]) -> list[str]:
    lines = [f"{s.tasks} task(s): {s.passed} pass every gate, {s.failed} fail"
             + (f", {s.unreadable} cannot be loaded" if s.unreadable else "")]
    if fg.older_standard:
        lines.append("written to an earlier spec standard (gates applied that version): "
                     + ", ".join(f"{k} x{v}" for k, v in sorted(fg.older_standard.items())))
    if causes:
        lines.append(f"\nmost common causes (error findings; of {len(fg.causes)} rules):")
        lines += [f"{i:>2}. {c.code} {c.title}: {c.tasks} task(s), {c.findings} "
                  f"finding(s) (e.g. {', '.join(c.examples)})" for i, c in enumerate(causes, 1)]
        lines.append("details: gavel task gates TASK; rule text: gavel rules CODE")
    return lines
