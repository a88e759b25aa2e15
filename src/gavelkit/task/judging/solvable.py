"""Step solvability: the reference run on the same oracle passes at least `judge.solvable`.

Below the threshold the reference's failures are diagnosed (blame.diagnose) and the
typed cause routes the task: the environment first (S4_SETUP), the oracle last
(test-filter).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gavelkit.task.formats.load import Task
from gavelkit.task.formats.score import ScoreResult
from gavelkit.task.judging.blame import Blame, diagnose, points_at_environment
from gavelkit.task.judging.step import Notes, StepResult
from gavelkit.task.judging.verdict import FAIL, PASS, UNVERIFIABLE


@dataclass(frozen=True, slots=True, kw_only=True)
class SolvabilityCheck(StepResult):
    reference: ScoreResult | None = None
    source: str = ""  # the reference score file used
    threshold: float = 0.0
    diagnosis: tuple[Blame, ...] = ()

    @property
    def rate(self) -> float | None:
        return self.reference.pass_rate if self.reference is not None else None

    @property
    def diagnosis_text(self) -> list[str]:
        return [b.text for b in self.diagnosis]


def threshold(task: Task) -> float:
    """The pass rate the reference needs at S5_JUDGE (data: task_config [judge] solvable)."""
    return float(task.config["judge"]["solvable"])


def find_reference(task: Task, explicit: str | Path | None) -> tuple[ScoreResult | None, str]:
    """The reference score: --reference-run, else judge/reference_run, else the task's own
    reference_score.json; the first that reads as a JSON object."""
    from gavelkit.task.formats.score import find_score_file, read_score

    cands = [find_score_file(Path(explicit), "reference")] if explicit else []
    cands += [task.dir / "judge" / "reference_run" / "score_result.json"]
    cands += [task.paths["reference_score"]] if "reference_score" in task.paths else []
    for c in cands:
        if c.is_file():
            sr, _ = read_score(c, "reference")
            if sr is not None:
                return sr, str(c)
    return None, ""


def solvability(task: Task, reference_run: str | Path | None) -> SolvabilityCheck:
    notes = Notes(str(task.dir))
    ref, src = find_reference(task, reference_run)
    thr = threshold(task)
    if ref is None:
        msg = ("no reference run to establish solvability (run `gavel task solvability` first "
               "or pass --reference-run)")
        notes.add("TSK-J005", "error", msg)
        notes.check("solvability", UNVERIFIABLE, msg, "env")
        return SolvabilityCheck(threshold=thr, **notes.frozen())
    rate = ref.pass_rate
    diag: tuple[Blame, ...] = ()
    if rate is None or rate < thr:
        diag = diagnose(ref.raw)
        rr = "0/0" if rate is None else f"{rate:.1%}"
        msg = f"reference pass rate {rr} is below {thr:.0%}: " + "; ".join(
            b.text for b in diag[:3])
        notes.add("TSK-J005", "error", msg)
        notes.check("solvability", FAIL, msg, "env" if points_at_environment(diag) else "filter")
    else:
        notes.check("solvability", PASS, f"reference {rate:.1%} >= {thr * 100:g} %")
    return SolvabilityCheck(reference=ref, source=src, threshold=thr, diagnosis=diag,
                       **notes.frozen())
