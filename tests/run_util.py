"""Build run folders for status tests: gates and cards from compact specs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gavelkit.award.runs.layout import init_run

from award_util import card, dump, gate, variant


def make_run(tmp: Path, run_id: str = "r1", target: str = "Finalist") -> Path:
    v = dump(variant(target_tier=target))
    run, _, _ = init_run(tmp, run_id, v)
    return run


def panel_ready(tmp: Path, target: str = "Finalist") -> Path:
    """A run whose phases 0-7 passed their gates: ready to dispatch the judge panel."""
    run = make_run(tmp, target=target)
    pass_phases(run, 7)
    return run


def add_gate(run: Path, phase: int, loop: int, issues: list[tuple[str, str]] = (),
             verdict: str | None = None, **over: Any) -> Path:
    its = [{"id": i, "severity": s, "summary": f"{i} summary", "artifact": "a",
            "required_fix": "f", "owner": "mathodology-coder"} for i, s in issues]
    if verdict is None:
        verdict = "fail" if any(s in ("blocker", "high") for _, s in issues) else "pass"
    p = run / "gates" / f"phase-{phase}-loop-{loop}.yaml"
    p.write_text(dump(gate(phase=phase, loop=loop, verdict=verdict, issues=its, **over)))
    return p


def pass_phases(run: Path, upto: int) -> None:
    for ph in range(upto + 1):
        add_gate(run, ph, 0)


def spend_run_budget(run: Path) -> None:
    """Phase 0 passes, phases 1-4 each pass after two fix loops: the whole-run cap of 8
    fix loops is used up, nothing is over it yet."""
    add_gate(run, 0, 0)
    for ph in range(1, 5):
        add_gate(run, ph, 0, [(f"G{ph}-1", "high"), (f"G{ph}-2", "high")])
        add_gate(run, ph, 1, [(f"G{ph}-1", "high")])
        add_gate(run, ph, 2)


def add_card(run: Path, seat: str, round_: int, **scores: float) -> Path:
    c = card(seat, scores=scores or None, round_=round_, contest="MCM 2026 Problem C")
    p = run / "scorecards" / f"phase7-seat-{seat}-round-{round_}.yaml"
    p.write_text(dump(c))
    return p
