"""The fleet page's verdict: what gavel decides now, beside what the task records.

A task.json `status: QUALIFIED` is what its authors wrote, not a decision: the fleet
page showed it as a green pill beside a red "E FAIL" (issue 26). Here the one verdict
function (`verdict.decide`) decides from the judge's own recorded checks
(judge/judge_result.json) with Gates D/E/F replaced by today's static run, or, for a
task gavel never judged, from the static gates alone with every other check PENDING.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gavelkit.task.judging import verdict as V

_STATIC = {"D": "gate-D", "E": "gate-E", "F": "gate-F"}
# a GAP passes only when task.json records the accepted caveat (gate_d / read_coverage_gap)
_PASSING = {"gate-D": ("FULL", "PARTIAL"), "gate-E": ("PASS",), "gate-F": ("PASS",)}


@dataclass(frozen=True, slots=True)
class FleetVerdict:
    computed: str
    route: str | None
    blocking: tuple[str, ...] = field(default_factory=tuple)
    basis: str = ""
    recorded: str | None = None
    recorded_source: str = ""

    @property
    def disagrees(self) -> bool:
        return self.recorded is not None and self.recorded != self.computed

    def to_dict(self) -> dict[str, Any]:
        return {"computed": self.computed, "route": self.route, "blocking": list(self.blocking),
                "basis": self.basis, "recorded": self.recorded,
                "recorded_source": self.recorded_source, "disagrees": self.disagrees}


def static_check(gate: str, info: dict[str, Any]) -> V.Check:
    """One static gate of today's run as the judge's check."""
    name = _STATIC[gate]
    v = str(info.get("verdict") or "")
    errs = int(info.get("errors") or 0)
    if name == "gate-F" and v == "N/A":
        return V.Check(name, V.NA, "the recorded standard had no phrasing rules")
    if v in _PASSING[name] or (name == "gate-D" and v == "GAP" and info.get("gap_accepted")):
        return V.Check(name, V.PASS, f"Gate {gate} {v}")
    if v in ("UNKNOWN", ""):
        return V.Check(name, V.UNVERIFIABLE, f"Gate {gate} {v or 'not run'}")
    route = "spec" if name == "gate-F" else "filter"
    return V.Check(name, V.FAIL, f"Gate {gate} {v} ({errs} error(s))", route)


def decide_row(gates: dict[str, dict[str, Any]], judge_checks: Any,
               recorded: str | None, recorded_source: str) -> FleetVerdict:
    static = [static_check(g, info) for g, info in gates.items() if g in _STATIC]
    names = {c.name for c in static}
    if isinstance(judge_checks, list):
        rec = [c for c in V.checks_from_record({"checks": judge_checks}) if c.name not in names]
        basis = "the judge's recorded checks, Gates D/E/F re-run today"
    else:
        rec = [V.Check(n, V.PENDING, "not judged by gavel (run `gavel task judge`)")
               for n in V.REQUIRED if n not in names]
        basis = "static gates only: gavel has not judged this task"
    d = V.decide([*rec, *static])
    # what blocks: failed or unverifiable checks; "not judged yet" is said once, in basis
    hard = tuple(f"{c.name} {c.status}" for c in d.blocking if c.status != V.PENDING)
    return FleetVerdict(d.verdict, d.route, hard, basis, recorded, recorded_source)


VERDICTS = V.RECORDED_VERDICTS


def recorded_verdict(tj: dict[str, Any], manifest: dict[str, Any] | None = None
                     ) -> tuple[str | None, str]:
    """The verdict the task's own record states (task.json judge.verdict, else a status
    that is a verdict, else MANIFEST.json status; a pipeline status such as SELECTED
    states none)."""
    judge = tj.get("judge") if isinstance(tj.get("judge"), dict) else {}
    for value, where in ((judge.get("verdict"), "task.json judge.verdict"),
                         (tj.get("status"), "task.json status"),
                         ((manifest or {}).get("status"), "MANIFEST.json status")):
        if isinstance(value, str) and value in VERDICTS:
            return value, where
    return None, ""
