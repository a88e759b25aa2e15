"""`gavel task judge --rescore`: re-score the candidate and re-judge in one command.

After a map or oracle edit (REOPENED_S3) or a stale-run verdict (S4_EVAL_RUN) the
seed's way back to a verdict is S4_EVAL_RUN -> S4_ANALYSIS -> S4_DONE -> S5_JUDGE with
a fresh score. This walks exactly those allowed edges through the state machine (each
one a History row saying why), re-runs the candidate into the same run folder, and
then judges as usual. It never skips a guard and never starts from a state the seed
does not route back through here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError

# state -> the next edge towards S4_EVAL_RUN / S5_JUDGE
WALK = {"REOPENED_S3": "S4_EVAL_RUN", "S4_SETUP": "S4_EVAL_RUN", "S4_ANALYSIS": "S4_DONE",
        "S4_DONE": "S5_JUDGE"}
STARTS = ("REOPENED_S3", "S4_SETUP", "S4_EVAL_RUN", "S4_ANALYSIS", "S4_DONE", "S5_JUDGE")


def solution_for(run: Path, explicit: str | Path | None) -> Path:
    if explicit:
        return Path(explicit).resolve()
    for name in ("solution", "output"):
        if (run / name).is_dir():
            return (run / name).resolve()
    raise InputError(str(run), "no solution folder to re-score (run/solution or run/output); "
                     "pass --solution")


def rescore_and_judge(task_dir: str | Path, run_dir: str | Path, *, solution: str | Path | None,
                      date: str | None = None, config: Any = None, **judge_kw: Any) -> Any:
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.judging.judge import judge_run
    from gavelkit.task.pipeline.state import transition
    from gavelkit.task.scoring.options import RunOptions
    from gavelkit.task.scoring.runner import run_solution

    d = Path(task_dir)
    run = Path(run_dir)
    task = load_task(d, config)
    if task.pipeline is None:
        raise InputError(str(d), "--rescore walks PIPELINE_STATE.md; this task has none")
    state = task.state or ""
    if state not in STARTS:
        raise InputError(str(d / "PIPELINE_STATE.md"), f"--rescore starts from one of "
                         f"{', '.join(STARTS)}; the task is in {state}")
    sol = solution_for(run, solution)

    def step(to: str, why: str) -> str:
        r = transition(d, to, f"rescore: {why}", date=date, run=run, config=config)
        if not r.written:
            raise InputError(str(d / "PIPELINE_STATE.md"), f"{state} -> {to} refused: "
                             + "; ".join(f.message for f in r.findings))
        return r.to_state

    if state in ("REOPENED_S3", "S4_SETUP"):
        state = step("S4_EVAL_RUN", "re-run the candidate on the current oracle")
    run_solution(d, RunOptions(solution=sol, out=run, config=config))
    if state == "S4_EVAL_RUN":
        state = step("S4_ANALYSIS", f"candidate re-scored into {run.name}")
    while state in WALK:
        state = step(WALK[state], "walking to the judge")
    return judge_run(d, run, solution=sol, date=date, config=config, **judge_kw)
