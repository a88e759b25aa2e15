"""Solvability (seed "Solvability"): the reference on the oracle in the task's own env.

>= 95 % at S5 (100 % at S3_REFERENCE_RUN, the oracle construction gate). Below
the threshold the environment is diagnosed first: each reference failure is
classified, and environment / infrastructure failures are reported as such
("fix the environment and re-run"), apart from oracle defects ("return to
test-filter"). `--reference-package SPEC` installs the published library as
the reference, so a task can be checked against upstream without a checkout.
"""

from __future__ import annotations

import subprocess
import tempfile
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
        r = "0/0 (nothing scored)" if self.rate is None else f"{self.rate:.1%}"
        head = (f"solvability: {'PASS' if self.passed else 'FAIL'} - reference {r}, "
                f"threshold {self.threshold:.0%}")
        return "\n".join([head, *[f"  {d}" for d in self.diagnosis]])

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "pass_rate": self.rate, "threshold": self.threshold,
                "diagnosis": self.diagnosis, "score_result": str(self.run.path),
                "summary": self.run.summary}


def install_reference(spec: str, dest: Path, offline: bool = False) -> Path:
    """`uv pip install --target DEST --no-deps SPEC`: the published package as a reference."""
    from gavelkit.task.scoring.envbuild import find_uv

    uv = find_uv()
    if uv is None:
        raise InputError(spec, "uv is needed to install --reference-package (pip install uv)")
    cmd = [uv, "pip", "install", "--quiet", "--no-deps", "--target", str(dest), spec]
    proc = subprocess.run([*cmd, "--offline"], capture_output=True, text=True, check=False)
    if proc.returncode != 0 and not offline:
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise InputError(spec, "cannot install the reference package: "
                         + proc.stderr.strip()[-600:])
    return dest


def check_solvability(task_dir: str | Path, reference: str | None, reference_package: str | None,
                      opts: Any, threshold: float | None = None) -> Solvability:
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.judging.judge import reference_diagnosis
    from gavelkit.task.scoring.runner import run_solution

    task = load_task(task_dir)
    thr = threshold if threshold is not None else (1.0 if task.state == "S3_REFERENCE_RUN"
                                                   else 0.95)
    with tempfile.TemporaryDirectory(prefix="gavel-refpkg-") as tmp:
        if reference_package:
            opts.solution = str(install_reference(reference_package, Path(tmp) / "ref",
                                                  opts.offline))
        elif not reference or not Path(reference).is_dir():
            raise InputError(str(reference), "reference folder not found")
        opts.role = "reference"
        run = run_solution(task_dir, opts)
    rate = run.pass_rate
    ok = rate is not None and rate >= thr
    res = Solvability(run, thr, rate, ok, findings=list(run.findings))
    if not ok:
        res.diagnosis = reference_diagnosis(run.score)
        r = "0/0" if rate is None else f"{rate:.1%}"
        res.findings.append(Finding("TSK-J005", "error", f"reference pass rate {r} is below "
                                    f"{thr:.0%}: " + "; ".join(res.diagnosis[:3]),
                                    str(task.dir), 0, 0))
    return res
