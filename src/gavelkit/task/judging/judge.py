"""`judge_run`: the seed's judging order as a pipeline of typed steps, ending in one verdict.

Entry (seed "State Machine Interface"): the task must be at S5_JUDGE (S4_DONE is
entered into S5_JUDGE first). Anywhere else the judge refuses and writes nothing.

The steps, in the seed's order ("Hard Checks", then "Diagnostic Procedure"); each takes
typed inputs and returns one frozen result with its own checks and findings, and no
score value is read before the preflight has produced its literal block:

| step        | module      | result        |
|-------------|-------------|---------------|
| load        | inputs      | Loaded        |
| entry       | inputs      | Entry         |
| inputs      | inputs      | Inputs        |
| preflight   | hardchecks  | Preflight     |
| anti-cheat  | hardchecks  | AntiCheat     |
| run         | hardchecks  | Run           |
| solvability | solvable    | Solvability   |
| gates       | fairness    | Fairness      |
| scores      | scores      | Scores        |
| verdict     | conclude    | Conclusion    |
| records     | records     | Records       |

`verdict.decide` alone turns the checks into QUALIFIED / BROKEN / CHEAT_DETECTED /
PENDING and the route. The records step writes judge/judge_result.json (the checks, and
the oracle digest and score hash they were made on: the state machine's QUALIFIED guard
re-decides from it), the request files, task.json (status and judge.verdict together,
only when the state moves), the state transition and judge/diagnosis_report.md. The
judge never writes an oracle file.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gavelkit.core.findings import Finding
from gavelkit.task.judging import inputs as I
from gavelkit.task.judging.conclude import Conclusion, Weakness, conclude
from gavelkit.task.judging.fairness import Fairness, fairness
from gavelkit.task.judging.hardchecks import (
    AntiCheat,
    Preflight,
    Run,
    anticheat,
    preflight,
    read_candidate_score,
    run,
)
from gavelkit.task.judging.scores import GateB, Scores, scores
from gavelkit.task.judging.solvable import Solvability, solvability
from gavelkit.task.judging.step import Notes, StepResult
from gavelkit.task.judging.verdict import FAIL, Check, Decision, Route, Verdict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gavelkit.task.anticheat.api import Scan
    from gavelkit.task.anticheat.preflight import PreflightResult
    from gavelkit.task.formats.load import Task
    from gavelkit.task.formats.score import ScoreResult
    from gavelkit.task.gates import GateReport
    from gavelkit.task.judging.metrics import Metrics
    from gavelkit.task.judging.records import Records


@dataclass(frozen=True, slots=True)
class JudgeResult:
    """Every step's result; the properties below are the views callers read."""

    loaded: I.Loaded
    entry: I.Entry
    oracle_digest: str = ""
    inputs: I.Inputs | None = None
    preflight_step: Preflight | None = None
    candidate: ScoreResult | None = None  # the score file as read (used only if usable)
    anticheat: AntiCheat | None = None
    run: Run | None = None
    solvability: Solvability | None = None
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
    def decision(self) -> Decision | None:
        return self.conclusion.decision if self.conclusion else None

    @property
    def verdict(self) -> Verdict:
        if self.entry.refusal is not None:
            return Verdict.REFUSED
        return self.conclusion.decision.verdict if self.conclusion else Verdict.BROKEN

    @property
    def route(self) -> Route | None:
        return self.conclusion.decision.route if self.conclusion else None

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


def judge_run(task_dir: str | Path, run_dir: str | Path, *, trajectories: list[str] | None = None,
              reference_run: str | Path | None = None, solution: str | Path | None = None,
              forbid: list[str] | None = None, write: bool = True, move_state: bool = True,
              date: str | None = None, spotcheck: str | Path | None = None) -> JudgeResult:
    loaded = I.load(task_dir, run_dir, trajectories or [], date or _dt.date.today().isoformat())
    entered = I.entry(loaded) if write else I.Entry()
    if entered.refusal is not None:
        return JudgeResult(loaded, entered)  # nothing is written
    task = loaded.task
    digest = I.oracle_digest(task)
    I.require_score_file(loaded, move_state and write)
    inp = I.inputs(loaded)
    pre = preflight(loaded, inp.meta, solution)
    score = read_candidate_score(loaded)
    cheat = anticheat(loaded, pre.package, forbid or [], score)
    measured = run(loaded, score, cheat.run_findings, digest)
    solv = solvability(task, reference_run)
    fair = fairness(task, spotcheck)
    before = [c for s in (inp, pre, cheat, measured, solv, fair) for c in s.checks]
    sc = scores(task, score, solv.reference, pre.solution, before, pre.passed, solv.threshold)
    same = oracle_unchanged(task, digest)
    steps = (inp, pre, cheat, measured, solv, fair, sc, same)
    res = JudgeResult(loaded, entered, digest, inp, pre, score, cheat, measured, solv, fair, sc,
                      same, conclude(task, steps, fair, sc),
                      order=("preflight", "anti-cheat", "solvability", "fairness", "scores"))
    if not write:
        return res
    from gavelkit.task.judging import records

    res = replace(res, records=records.write_outputs(res, move_state))
    records.write_report(res)
    return res


def oracle_unchanged(task: Task, digest: str) -> StepResult:
    """The oracle is the one the judgement began on (a change mid-run voids it)."""
    from gavelkit.task.formats.load import load_task

    if I.oracle_digest(load_task(task.dir)) == digest:
        return StepResult()
    notes = Notes(str(task.dir))
    notes.add("TSK-J007", "error", "the oracle changed while judging")
    notes.check("oracle-unchanged", FAIL, "the oracle changed while judging", "rerun")
    return StepResult(**notes.frozen())
