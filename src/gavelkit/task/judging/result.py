"""JudgeResult: every step's frozen result, and the views its callers read.

The step results live in their step modules (judge.py lists them); the records step's
result (Records, Transition) lives here, so that records and the report can read a
JudgeResult without importing the pipeline that builds it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.findings import Finding
from gavelkit.task.judging import inputs as I
from gavelkit.task.judging.conclude import Conclusion, Weakness
from gavelkit.task.judging.fairness import Fairness
from gavelkit.task.judging.hardchecks import AntiCheat, Preflight, Run
from gavelkit.task.judging.scores import GateB, Scores, Unverified
from gavelkit.task.judging.solvable import SolvabilityCheck
from gavelkit.task.judging.step import StepResult
from gavelkit.task.judging.verdict import Check, Route, Ruling, Verdict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gavelkit.task.anticheat.api import Scan
    from gavelkit.task.anticheat.preflight import PreflightResult
    from gavelkit.task.formats.load import Task
    from gavelkit.task.formats.score import ScoreResult
    from gavelkit.task.gates import GateReport
    from gavelkit.task.judging.metrics import Metrics


@dataclass(frozen=True, slots=True)
class Transition:
    """The state move the verdict asked for, and whether it was written."""

    written: bool
    why: tuple[str, ...] = ()
    from_state: str | None = None
    requested: str | None = None
    to: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: v for k, v in (("from", self.from_state),
                                                 ("requested", self.requested),
                                                 ("to", self.to)) if v is not None}
        return out | {"written": self.written, "why": list(self.why)}


@dataclass(frozen=True, slots=True, kw_only=True)
class Records(StepResult):
    written: tuple[str, ...] = ()
    transition: Transition | None = None
    terminal: tuple[str, ...] = ()
    requests: tuple[tuple[str, str], ...] = ()  # (file name, text) of the request files


@dataclass(frozen=True, slots=True)
class JudgeResult:
    """Every step's result; the properties below are the views callers read."""

    loaded: I.Loaded
    entry: I.EntryCheck
    oracle_digest: str = ""
    inputs: I.Inputs | None = None
    preflight_step: Preflight | None = None
    candidate: ScoreResult | None = None  # the score file as read (used only if usable)
    anticheat: AntiCheat | None = None
    run: Run | None = None
    solvability: SolvabilityCheck | None = None
    fairness: Fairness | None = None
    scores: Scores | None = None
    oracle_unchanged: StepResult = field(default_factory=StepResult)
    conclusion: Conclusion | None = None
    records: Records | None = None
    order: tuple[str, ...] = field(default=())

    # ---- the step results in order, and what they decided
    @property
    def steps_done(self) -> tuple[StepResult, ...]:
        return tuple(s for s in (self.entry, self.inputs, self.preflight_step, self.anticheat,
                                 self.run, self.solvability, self.fairness, self.scores,
                                 self.oracle_unchanged, self.conclusion, self.records)
                     if s is not None)

    @property
    def findings(self) -> list[Finding]:
        return [f for s in self.steps_done for f in s.findings]

    @property
    def checks(self) -> tuple[Check, ...]:
        return self.conclusion.checks if self.conclusion else ()

    @property
    def ruling(self) -> Ruling | None:
        return self.conclusion.ruling if self.conclusion else None

    @property
    def verdict(self) -> Verdict:
        if self.entry.refusal is not None:
            return Verdict.REFUSED
        return self.conclusion.ruling.verdict if self.conclusion else Verdict.BROKEN

    @property
    def route(self) -> Route | None:
        return self.conclusion.ruling.route if self.conclusion else None

    @property
    def reasons(self) -> list[str]:
        if self.entry.refusal is not None:
            return [self.entry.refusal]
        return list(self.conclusion.reasons) if self.conclusion else []

    # ---- views of single steps
    @property
    def task(self) -> Task:
        return self.loaded.task

    @property
    def run_dir(self) -> Path:
        return self.loaded.run_dir

    @property
    def date(self) -> str:
        return self.loaded.date

    @property
    def score_path(self) -> Path:
        return self.loaded.score_path

    @property
    def steps(self) -> list[str]:
        return list(self.order)

    @property
    def preflight(self) -> PreflightResult | None:
        return self.preflight_step.result if self.preflight_step else None

    @property
    def scan(self) -> Scan | None:
        return self.anticheat.scan if self.anticheat else None

    @property
    def reference_rate(self) -> float | None:
        return self.solvability.rate if self.solvability else None

    @property
    def gates(self) -> GateReport | None:
        return self.fairness.gates if self.fairness else None

    @property
    def coverage_caveat(self) -> dict[str, Any] | None:
        return self.fairness.coverage_caveat if self.fairness else None

    @property
    def scores_usable(self) -> bool:
        return bool(self.scores and self.scores.usable)

    @property
    def scores_why(self) -> str:
        return self.scores.why if self.scores else ""

    @property
    def score(self) -> ScoreResult | None:
        """The candidate's score, only when it may be used."""
        return self.scores.score if self.scores else None

    @property
    def unverified(self) -> Unverified | None:
        """A withheld score's evidence, shown marked as not verified (never used)."""
        return self.scores.unverified if self.scores else None

    @property
    def metrics(self) -> Metrics | None:
        return self.scores.metrics if self.scores else None

    @property
    def gate_b(self) -> GateB:
        return self.scores.gate_b if self.scores else GateB("NOT RUN")

    @property
    def labels(self) -> list[dict[str, str]]:
        return list(self.conclusion.labels) if self.conclusion else []

    @property
    def weaknesses(self) -> tuple[Weakness, ...]:
        return self.conclusion.weaknesses if self.conclusion else ()

    @property
    def transition(self) -> dict[str, Any]:
        return self.records.transition.to_dict() if self.records and \
            self.records.transition else {}

    @property
    def written(self) -> list[str]:
        return list(self.records.written) if self.records else []

    @property
    def terminal(self) -> list[str]:
        return list(self.records.terminal) if self.records else []

    @property
    def requests(self) -> dict[str, str]:
        return dict(self.records.requests) if self.records else {}
