"""What `award status` knows about a run: loops, rounds, decisions and the next action."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.award.panel.aggregate import PanelResult
from gavelkit.award.runs.decisions import Decision
from gavelkit.award.runs.runfiles import CardFile
from gavelkit.award.tables import Tier
from gavelkit.core.findings import Finding


@dataclass
class OpenIssue:
    id: str
    severity: str
    summary: str
    owner: str
    accepted: str | None = None  # the risk-acceptance rationale of a medium or low

    def to_dict(self) -> dict[str, str]:
        out = {"id": self.id, "severity": self.severity, "summary": self.summary,
               "owner": self.owner}
        if self.accepted is not None:
            out["risk_acceptance"] = self.accepted
        return out


@dataclass
class LoopInfo:
    loop: int
    path: str
    verdict: str | None
    open: list[OpenIssue]
    improved: bool | None = None
    other: list[OpenIssue] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.open)


@dataclass
class PhaseInfo:
    phase: int
    loops: list[LoopInfo] = field(default_factory=list)
    stalled: dict[str, list[int]] = field(default_factory=dict)
    missing: list[int] = field(default_factory=list)  # loops without a gate (they count)

    @property
    def fix_loops(self) -> int:
        return max([lp.loop for lp in self.loops] + self.missing, default=0)


@dataclass
class RoundInfo:
    round: int
    kind: str  # full | adjudication | incomplete
    seats: dict[str, CardFile]
    panel: PanelResult | None = None
    min_total: float | None = None
    min_seat: str | None = None
    improved: bool | None = None
    redispatched: str | None = None


@dataclass
class Action:
    kind: str  # advance | fix | rescore | adjudicate | repair | STOP
    phase: int | None
    reason: str
    items: list[str] = field(default_factory=list)
    memo: dict[str, Any] | None = None
    decision: Decision | None = None  # the human decision this action goes on under
    final_round: bool = False  # a panel STOP after the last round: no re-score is left
    awaits: str = "decision"  # what lifts a STOP: a human "decision" or the "adjudication"

    @property
    def may_continue(self) -> bool:
        return self.kind not in ("STOP", "repair")


@dataclass
class RunStatus:
    run: Path
    target: Tier | None
    target_source: str
    phases: dict[int, PhaseInfo]
    rounds: list[RoundInfo]
    fix_loops_used: int
    findings: list[Finding]
    action: Action
    decisions: list[Decision] = field(default_factory=list)
    memos: list[dict[str, Any]] = field(default_factory=list)
