"""Steps load, entry and inputs: what is judged, whether it may be, and whether it can be.

- load: the task (unusable task files are exit 2), the trajectories (a missing or
  empty one is exit 2: "nothing suspicious was seen" is not a reading of nothing) and
  the run's score file path; `oracle_digest`, once entered, what it is judged on;
- entry: the seed's entry state, S5_JUDGE (S4_DONE is entered first); anywhere else
  the judge refuses and writes nothing;
- inputs: task.json can carry the judge's record; the run's metadata (no score value).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from gavelkit.core.errors import InputError
from gavelkit.task.config import ConfigFile
from gavelkit.task.formats.load import Task, load_task
from gavelkit.task.judging.runmeta import RunMeta, read_run_meta
from gavelkit.task.judging.step import Notes, StepResult
from gavelkit.task.judging.verdict import PASS, UNVERIFIABLE

ENTRY_STATES = ("S5_JUDGE", "S4_DONE")


@dataclass(frozen=True, slots=True)
class Loaded:
    task: Task
    run_dir: Path
    score_path: Path
    date: str
    trajectories: tuple[str, ...]
    config: ConfigFile | None = None  # the command's --config, for every load of the task


@dataclass(frozen=True, slots=True, kw_only=True)
class EntryCheck(StepResult):
    refusal: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Inputs(StepResult):
    meta: RunMeta


def load(task_dir: str | Path, run_dir: str | Path, trajectories: list[str],
         date: str, config: ConfigFile | None = None) -> Loaded:
    task = load_task(task_dir, config)
    bad = [f for f in task.findings if f.unusable]
    if bad:
        raise InputError(bad[0].path, bad[0].message, bad[0].line, bad[0].col)
    check_trajectories(trajectories)
    from gavelkit.task.formats.score import find_score_file

    run = Path(run_dir)
    return Loaded(task, run, find_score_file(run), date, tuple(trajectories), config)


def oracle_digest(task: Task) -> str:
    """The digest of the oracle as it is now (the judgement is made on it)."""
    from gavelkit.task.pipeline.digests import combined, current_digests

    return combined(current_digests(task))


def check_trajectories(paths: list[str]) -> None:
    """Every trajectory given must be readable and hold something to scan (else exit 2):
    a missing, empty, looping or endless file is not "nothing suspicious was seen"."""
    from gavelkit.core.safeio import check_input
    from gavelkit.task.anticheat.trajectory import expand

    for raw in paths:
        st = check_input(raw, want="dir") if Path(raw).is_dir() else None
        if st is not None:
            if not expand([raw]):
                raise InputError(raw, "folder holds no trajectory file (.jsonl, .json, .eval, "
                                 "...); nothing could be scanned", code="GK-IO001")
            continue
        if check_input(raw).st_size == 0:
            raise InputError(raw, "trajectory file is empty; nothing could be scanned",
                             code="GK-IO002")


def entry(loaded: Loaded, write: bool = True) -> EntryCheck:
    """Refuse anywhere but the entry states, a dry run too (it shows what the run would
    say); when writing, a killed judge's temp files are still removed (a kill after the
    state move would make every later run a refusal)."""
    why = entry_refusal(loaded.task)
    if why is None:
        return EntryCheck()
    from gavelkit.core.safeio import clean_stale_temps

    for folder in (loaded.task.dir / "judge", loaded.task.dir) if write else ():
        clean_stale_temps(folder / "-")
    notes = Notes(str(loaded.task.dir))
    notes.add("TSK-J012", "error", why)
    return EntryCheck(refusal=why, **notes.frozen())


def entry_refusal(task: Task) -> str | None:
    """Why the judge may not judge here (seed Entry: read PIPELINE_STATE.md, verify S5_JUDGE);
    None at an entry state. No state file is no entry: a task.json status is no state."""
    if task.pipeline is None:
        return ("no PIPELINE_STATE.md: the judge's entry is PIPELINE_STATE.md at S5_JUDGE "
                "(seed State Machine Interface); nothing was judged or written. A task that "
                "never had a state file: `gavel task init TASK --adopt` enters it where its "
                "records put it")
    st = task.state
    if st in ENTRY_STATES:
        return None
    hint = ("; to re-score the candidate and walk back to S5_JUDGE in one command: "
            "gavel task judge TASK --run RUN --rescore") if st in (
        "REOPENED_S3", "S4_SETUP", "S4_EVAL_RUN", "S4_ANALYSIS") else ""
    return (f"the task is in {st}, not S5_JUDGE: the judge's entry state is S5_JUDGE (seed "
            f"State Machine Interface); nothing was judged or written{hint}")


def require_score_file(loaded: Loaded, move_state: bool) -> None:
    """No score file: nothing to judge (exit 2); at S5_JUDGE the task goes back to
    S4_EVAL_RUN, where the candidate is scored."""
    path = loaded.score_path
    if os.path.lexists(path):
        return
    task = loaded.task
    if move_state and task.pipeline is not None and task.state == "S5_JUDGE":
        from gavelkit.task.pipeline.state import transition

        transition(task.dir, "S4_EVAL_RUN", f"judge: {path} missing; re-run the candidate")
    raise InputError(str(path), "no score_result.json in the run folder: score the "
                     "candidate first (gavel task run); state -> S4_EVAL_RUN when at S5_JUDGE")


def inputs(loaded: Loaded) -> Inputs:
    notes = Notes(str(loaded.task.dir))
    bad = task_json_problem(loaded.task)
    notes.check("inputs", UNVERIFIABLE if bad else PASS,
                f"task.json: {bad}" if bad else "task files readable")
    if bad:
        notes.add("TSK-J016", "error", f"task.json cannot carry the judge's record: {bad}")
    return Inputs(meta=read_run_meta(loaded.score_path), **notes.frozen())


def task_json_problem(task: Task) -> str | None:
    """Why task.json cannot carry the judge's record (None: it can)."""
    raw = task.dir / "task.json"
    if raw.exists() and not raw.is_file():
        return "task.json is not a regular file (a directory or a special file)"
    if "task_json" not in task.paths:
        return None  # no task.json at all: the record lives in judge/ only
    tj = task.task_json
    if tj is None:
        return "task.json could not be read"
    if not isinstance(tj.data.get("instance_id", tj.data.get("task_id")), str):
        return "task.json has no instance_id (or task_id) string"
    bad = [f.message for f in task.findings if f.severity == "error"
           and str(f.path).endswith("task.json")]
    return "; ".join(bad[:2]) if bad else None
