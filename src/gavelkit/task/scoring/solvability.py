"""Solvability (seed "Solvability"): the reference on the oracle in the task's own env.

>= 95 % at S5 (100 % at S3_REFERENCE_RUN, the oracle construction gate). Below
the threshold the environment is diagnosed first: each reference failure is
classified, and environment / infrastructure failures are reported as such
("fix the environment and re-run"), apart from oracle defects ("return to
test-filter"). `--reference-package SPEC` installs the published library as
the reference, so a task can be checked against upstream without a checkout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding


@dataclass(slots=True)
class Solvability:
    run: Any
    threshold: float
    rate: float | None
    passed: bool
    diagnosis: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def text(self) -> str:
        from gavelkit.task.scoring.counts import count_line

        head = (f"solvability: {'PASS' if self.passed else 'FAIL'} - reference "
                f"{count_line(self.run.summary, self.rate)}; threshold {self.threshold:.0%} "
                "of non-skipped")
        return "\n".join([head, *[f"  {d}" for d in self.diagnosis]])

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "pass_rate": self.rate, "threshold": self.threshold,
                "diagnosis": self.diagnosis, "score_result": str(self.run.path),
                "summary": self.run.summary}


def check_solvability(task_dir: str | Path, reference: str | None, reference_package: str | None,
                      opts: Any, threshold: float | None = None) -> Solvability:
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.judging.blame import reference_diagnosis
    from gavelkit.task.scoring.runner import run_solution

    task = load_task(task_dir, getattr(opts, "config", None))
    cfg = task.config["judge"]  # data: task_config [judge] solvable / solvable_at_s3
    thr = threshold if threshold is not None else float(
        cfg["solvable_at_s3"] if task.state == "S3_REFERENCE_RUN" else cfg["solvable"])
    if reference_package:
        opts.package_spec = reference_package  # installed with its dependencies
        opts.solution = ""
    elif not reference or not Path(reference).is_dir():
        raise InputError(str(reference), "reference folder not found")
    opts.role = "reference"
    run = run_solution(task_dir, opts)
    rate = run.pass_rate
    ok = rate is not None and rate >= thr
    res = Solvability(run, thr, rate, ok, findings=list(run.findings))
    sm = run.summary
    if not ok or sm.get("passed", 0) + sm.get("skipped", 0) < sm.get("total", 0):
        res.diagnosis = reference_diagnosis(run.score)  # every reference failure is explained
    if not ok:
        from gavelkit.task.scoring.counts import count_line

        r = count_line(run.summary, rate)
        res.findings.append(Finding("TSK-J005", "error", f"reference {r}: below "
                                    f"{thr:.0%}: " + "; ".join(res.diagnosis[:3]),
                                    str(task.dir), 0, 0))
    return res
