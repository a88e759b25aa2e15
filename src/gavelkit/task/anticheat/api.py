"""The judge's one door to the anti-cheat pack: the preflight and the trajectory scan.

`preflight` runs the literal import probe with a cleaned environment and returns the
pack's own `PreflightResult` (one type for the CLI's `task preflight` and the judge);
`scan` returns the judge's view of a trajectory scan, UNVERIFIABLE when nothing was
given to scan (the absence of a transcript is not a pass).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gavelkit.core.findings import Finding
from gavelkit.task.anticheat.preflight import PreflightResult

# the probe must not inherit this process's own import path (gavel's sources)
_DROPPED_ENV = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE")


@dataclass(frozen=True, slots=True)
class Scan:
    verdict: str  # CLEAN | CHEAT_DETECTED | UNVERIFIABLE
    findings: tuple[Finding, ...] = field(default_factory=tuple)
    reason: str = ""
    # share of the candidate's code reproducing the reference source (CHT-C001), when a
    # solution and a reference were given: {"share", "lines", "total"}; feeds saturation
    copy: dict[str, Any] = field(default_factory=dict)


def preflight(package: str, candidate: str, python: str | None = None,
              remove_paths: Sequence[str] = (), pythonpath: bool = True) -> PreflightResult:
    import os

    from gavelkit.task.anticheat.preflight import run_preflight

    env = {k: v for k, v in os.environ.items() if k not in _DROPPED_ENV}
    return run_preflight(package, candidate, python=python, remove_paths=list(remove_paths),
                         env=env, pythonpath=pythonpath)


def not_run(package: str | None, why: str) -> PreflightResult:
    return PreflightResult.not_run(package or "PKG", "", why)


def scan(paths: Sequence[str], task_dir: str, package: str | None,
         forbid: Sequence[str] = (), solution: str | None = None,
         references: Sequence[str] = ()) -> Scan:
    if not paths:
        return Scan("UNVERIFIABLE", (), "no trajectory was given: the agent's access "
                    "cannot be checked (absence of a transcript is not a pass)")
    from gavelkit.task.anticheat.scan import scan_trajectories

    extra: dict[str, Any] = {}
    if solution:        # optional arguments only when used (the judge's tests stub the scan)
        extra["solution"] = solution
    if references:
        extra["references"] = list(references)
    res = scan_trajectories(list(paths), task_dir, package, forbid=list(forbid), **extra)
    return Scan(str(res.verdict), tuple(res.findings),
                f"{len(res.findings)} finding(s) in {len(paths)} trajectory file(s)",
                dict(getattr(res, "copy", None) or {}))
