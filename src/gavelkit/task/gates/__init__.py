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
            r.verdict not in ("FAIL", "GAP") for r in self.results.values())


def run_gates(task: Any, gates: str = "DEF") -> GateReport:
    from gavelkit.task.gates import gate_d, gate_e, gate_f

    report = GateReport(load_findings=list(task.findings))
    mods = {"D": gate_d, "E": gate_e, "F": gate_f}
    for g in gates.upper():
        if g in mods:
            report.results[g] = mods[g].check(task)
    return report
