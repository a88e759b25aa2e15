"""`judge_run`: the seed's judging order as a pipeline of typed steps, ending in one verdict.

Entry (seed "State Machine Interface"): the task must be at S5_JUDGE (S4_DONE is
entered into S5_JUDGE first). Anywhere else the judge refuses and writes nothing.

The steps, in the seed's order ("Hard Checks", then "Diagnostic Procedure"); each takes
typed inputs and returns one frozen result with its own checks and findings, and no
score value is read before the preflight has produced its literal block:

| step        | module      | result           |
|-------------|-------------|------------------|
| load        | inputs      | Loaded           |
| entry       | inputs      | EntryCheck       |
| inputs      | inputs      | Inputs           |
| preflight   | hardchecks  | Preflight        |
| anti-cheat  | hardchecks  | AntiCheat        |
| run         | hardchecks  | Run              |
| solvability | solvable    | SolvabilityCheck |
| gates       | fairness    | Fairness         |
| scores      | scores      | Scores           |
| verdict     | conclude    | Conclusion       |
| records     | records     | Records          |

`verdict.decide` alone turns the checks into QUALIFIED / BROKEN / CHEAT_DETECTED /
PENDING and the route. The records step writes judge/judge_result.json (the checks, and
the oracle digest and score hash they were made on: the state machine's QUALIFIED guard
re-decides from it), the request files, task.json (status and judge.verdict together,
only when the state moves), the state transition and judge/diagnosis_report.md. The
judge never writes an oracle file.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import replace
from pathlib import Path

from gavelkit.task.judging import inputs as I
from gavelkit.task.judging.conclude import conclude
from gavelkit.task.judging.fairness import fairness
from gavelkit.task.judging.hardchecks import anticheat, preflight, read_candidate_score, run
from gavelkit.task.judging.result import JudgeResult
from gavelkit.task.judging.scores import scores
from gavelkit.task.judging.solvable import solvability
from gavelkit.task.judging.step import Notes, StepResult
from gavelkit.task.judging.verdict import FAIL

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gavelkit.task.config import ConfigFile

__all__ = ["JudgeResult", "judge_run"]

def judge_run(task_dir: str | Path, run_dir: str | Path, *, trajectories: list[str] | None = None,
              reference_run: str | Path | None = None, solution: str | Path | None = None,
              forbid: list[str] | None = None, write: bool = True, move_state: bool = True,
              date: str | None = None, spotcheck: str | Path | None = None,
              config: ConfigFile | None = None) -> JudgeResult:
    """Judge one scored run; `config` is the command's --config (read once, at the CLI)."""
    loaded = I.load(task_dir, run_dir, trajectories or [], date or _dt.date.today().isoformat(),
                    config)
    entered = I.entry(loaded, write)
    if entered.refusal is not None:
        return JudgeResult(loaded, entered)  # nothing is written
    task = loaded.task
    digest = I.oracle_digest(task)
    I.require_score_file(loaded, move_state and write)
    inp = I.inputs(loaded)
    pre = preflight(loaded, inp.meta, solution)
    score = read_candidate_score(loaded)
    cheat = anticheat(loaded, pre.package, forbid or [], score, pre.solution)
    measured = run(loaded, score, cheat.run_findings, digest)
    solv = solvability(task, reference_run)
    fair = fairness(task, spotcheck)
    before = [c for s in (inp, pre, cheat, measured, solv, fair) for c in s.checks]
    sc = scores(task, score, solv.reference, pre.solution, before, pre.passed, solv.threshold,
                copy=cheat.scan.copy)
    same = oracle_unchanged(loaded, digest)
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


def oracle_unchanged(loaded: I.Loaded, digest: str) -> StepResult:
    """The oracle is the one the judgement began on (a change mid-run voids it)."""
    from gavelkit.task.formats.load import load_task

    task = loaded.task
    if I.oracle_digest(load_task(task.dir, loaded.config)) == digest:
        return StepResult()
    notes = Notes(str(task.dir))
    notes.add("TSK-J007", "error", "the oracle changed while judging")
    notes.check("oracle-unchanged", FAIL, "the oracle changed while judging", "rerun")
    return StepResult(**notes.frozen())
