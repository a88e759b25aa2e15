"""Static fairness gates D, E, F over a loaded Task.

    from gavelkit.task.formats.load import load_task
    from gavelkit.task.gates import run_gates
    report = run_gates(load_task("tasks/foo-001"), gates="DEF")
    report.verdicts   # {"D": "PARTIAL", "E": "FAIL", "F": "PASS"}
    report.findings   # every finding, stable TSK- codes
    report.tables     # {"D": [...rows of the coverage table...], ...}
    report.passed     # no error-level finding and no failing verdict

Each gate module exposes `check(task) -> GateResult`; checks never print.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gavelkit.core.findings import Finding


@dataclass(slots=True)
class GateResult:
    gate: str
    verdict: str
    findings: list[Finding] = field(default_factory=list)
    table: list[dict[str, Any]] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class GateReport:
    results: dict[str, GateResult] = field(default_factory=dict)
    load_findings: list[Finding] = field(default_factory=list)
    standard: dict[str, Any] = field(default_factory=dict)  # applied, current, detected_by, line

    @property
    def verdicts(self) -> dict[str, str]:
        return {g: r.verdict for g, r in self.results.items()}

    @property
    def findings(self) -> list[Finding]:
        out = list(self.load_findings)
        for r in self.results.values():
            out.extend(r.findings)
        return out

    @property
    def tables(self) -> dict[str, list[dict[str, Any]]]:
        return {g: r.table for g, r in self.results.items() if r.table}

    @property
    def passed(self) -> bool:
        return not any(f.severity == "error" for f in self.findings) and all(
            r.verdict not in ("FAIL", "GAP") or r.data.get("gap_accepted")
            for r in self.results.values())


def run_gates(task: Any, gates: str = "DEF") -> GateReport:
    from gavelkit.task.gates import gate_d, gate_e, gate_f

    report = GateReport(load_findings=list(task.findings))
    mods = {"D": gate_d, "E": gate_e, "F": gate_f}
    for g in gates.upper():
        if g in mods:
            report.results[g] = mods[g].check(task)
    if task.spec is not None and ("E" in gates.upper() or "F" in gates.upper()):
        report.standard = standard_summary(task)
        if report.standard.get("line"):
            report.load_findings.append(Finding(
                "TSK-E014", "info", report.standard["line"], str(task.paths["spec"]), 1, 1))
    return report


def _hint(task: Any, why: str) -> str:
    from gavelkit.task.gates.standard import resembles

    look = resembles(task.spec)
    if look is None or look.is_current or not why.startswith("no standard recorded"):
        return ""
    return (f"its headings resemble standard {look.id} ({look.title}); if it was written to "
            "that standard, record it as task.json spec_standard")


def _structure_part(task: Any, cur: Any, path: str) -> tuple[Any, str]:
    from gavelkit.task.gates import spec_rules

    structure, _ = spec_rules.check_structure(task.spec, task.config, path, cur)
    missing = [f.message.split("'")[1] for f in structure if f.code == "TSK-E001"]
    order = sum(1 for f in structure if f.code == "TSK-E002")
    if not (missing or order):
        return None, ""
    return ({"missing_sections": missing, "order_or_behavior": order},
            f"structure: {len(missing)} section(s) to add or rename"
            + (f" ({', '.join(missing)})" if missing else "")
            + (f", {order} order/behavior-section problem(s)" if order else ""))


def _phrasing_part(task: Any, path: str) -> tuple[Any, str]:
    from gavelkit.task.gates import gate_f

    phr: dict[str, int] = {}
    for f in gate_f.phrasing_findings(task.spec, task.config, path):
        if f.severity == "error":
            phr[f.code] = phr.get(f.code, 0) + 1
    if not phr:
        return None, ""
    by = ", ".join(f"{c} x{n}" for c, n in sorted(phr.items(), key=lambda kv: -kv[1]))
    return phr, f"phrasing rules: {sum(phr.values())} error(s) ({by})"


def _environment_part(task: Any, cur: Any) -> tuple[Any, str]:
    from gavelkit.task.gates import spec_rules

    env = [f for f in spec_rules.check_environment(task, task.config, cur) if f.severity == "error"]
    return (len(env), f"Environment section: {len(env)} error(s)") if env else (None, "")


def _under_current(task: Any, cur: Any) -> tuple[dict[str, Any], list[str]]:
    """What the current standard would flag, grouped by cause, and its one-line parts."""
    path = str(task.paths["spec"])
    causes: dict[str, Any] = {}
    parts: list[str] = []
    for name, (value, text) in (("structure", _structure_part(task, cur, path)),
                                ("phrasing", _phrasing_part(task, path)),
                                ("environment", _environment_part(task, cur))):
        if value is not None:
            causes[name] = value
            parts.append(text)
    return causes, parts


def standard_summary(task: Any) -> dict[str, Any]:
    """Which standard the gates applied; for an older one, what the current would flag, by cause."""
    from gavelkit.task.gates.standard import current, detect

    std, why = detect(task.spec, task.config, task)
    cur = current()
    out: dict[str, Any] = {"applied": std.id, "applied_title": std.title, "detected_by": why,
                           "current": cur.id}
    if std.is_current:
        hint = _hint(task, why)
        if hint:
            out["hint"] = hint
        return out
    causes, parts = _under_current(task, cur)
    out["under_current"] = causes
    out["line"] = (f"written to standard {std.id} ({std.title}; {why}); under the current "
                   f"standard {cur.id}: " + ("; ".join(parts) if parts else "no further findings"))
    return out
