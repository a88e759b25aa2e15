"""Human decisions recorded in decision memos: the only thing that lifts a STOP (seed §4).

When a budget runs out or a loop fails to improve, the run stops and the lead drafts a
`decision_memo:`. The run goes on only after a human records the decision in it:

    decision: {choice: rework | accept_risk | change_scope | stop, by: <who>, rationale: <why>}

`change_scope` may name the new target (`target: meritorious`); `stop` ends the run.
After the last panel round no re-score is left, so `rework` there answers nothing.

`stopped_at: {phase: P, loop: L}` (a gate loop) or `{phase: 7, round: R}` (a panel
round) says which STOP the decision answers; the draft fills it in. Without it the
stop is read from `phase` and `budget_spent.loops` (Phase 7: re-scores, so round =
loops + 1, when the run has panel rounds).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gavelkit.award.blocks.memo import CHOICES


@dataclass(slots=True)
class Decision:
    path: str
    line: int
    phase: int
    loop: int  # gate loop, or panel round when `panel`
    panel: bool
    choice: str
    by: str
    rationale: str
    target: str | None = None  # change_scope: the tier the run now aims at

    @property
    def continues_phase(self) -> bool:
        """rework and change_scope run another loop/round; accept_risk closes the phase,
        stop ends the run."""
        return self.choice in ("rework", "change_scope")

    def where(self) -> str:
        return (f"phase {self.phase} panel round {self.loop}" if self.panel
                else f"phase {self.phase} loop {self.loop}")

    def describe(self) -> str:
        return (f"{self.choice} at {self.where()} by {self.by} ({self.path}:{self.line}): "
                f"{self.rationale}")

    def to_dict(self) -> dict[str, Any]:
        return {"phase": self.phase, "panel": self.panel,
                ("round" if self.panel else "loop"): self.loop, "choice": self.choice,
                "by": self.by, "rationale": self.rationale, "target": self.target,
                "path": self.path, "line": self.line}


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _text(v: Any) -> str | None:
    return v.strip() if isinstance(v, str) and v.strip() else None


def _stop_point(body: Any, panel_phase: int, has_panel: bool) -> tuple[int | None, int | None,
                                                                     bool]:
    """(phase, loop or round, panel) of the STOP a memo answers."""
    stop = body.get("stopped_at")
    if isinstance(stop, dict):
        if _int(stop.get("round")) is not None:
            return _int(stop.get("phase")), _int(stop.get("round")), True
        return _int(stop.get("phase")), _int(stop.get("loop")), False
    phase = _int(body.get("phase"))
    bs = body.get("budget_spent")
    loops = _int(bs.get("loops")) if isinstance(bs, dict) else None
    if phase == panel_phase and has_panel and loops is not None:
        return phase, loops + 1, True
    return phase, loops, False


def recorded(blocks: Iterable[Any], panel_phase: int, has_panel: bool) -> list[Decision]:
    """Decisions of memo blocks that carry a complete human decision (malformed ones are
    reported by `lint memo` and never lift a STOP)."""
    out: list[Decision] = []
    for b in blocks:
        dec = b.body.get("decision")
        if not isinstance(dec, dict):
            continue
        choice, by, why = dec.get("choice"), _text(dec.get("by")), _text(dec.get("rationale"))
        if choice not in CHOICES or by is None or why is None:
            continue
        phase, loop, panel = _stop_point(b.body, panel_phase, has_panel)
        if phase is None or loop is None:
            continue
        out.append(Decision(b.path, b.line, phase, loop, panel, choice, by, why,
                            _text(dec.get("target"))))
    return out


def covering(decisions: Iterable[Decision], phase: int, loop: int,
             panel: bool = False) -> Decision | None:
    """The latest decision answering the STOP at (phase, loop) — or panel round `loop`."""
    hit = None
    for d in decisions:
        if d.phase == phase and d.loop == loop and d.panel == panel:
            hit = d
    return hit
