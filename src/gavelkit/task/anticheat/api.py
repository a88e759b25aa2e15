"""The judge's one door to the anti-cheat pack (issue 7): preflight and trajectory scan.

`gavelkit.task.anticheat.preflight.run_preflight` and `gavelkit.task.anticheat.scan.scan_trajectories`
are imported lazily here and nowhere else. When they are not installed the
adapter says so in a result the judge can record (`available=False`), so a
missing pack blocks QUALIFIED with a clear reason instead of crashing or passing
silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gavelkit.core.findings import Finding


@dataclass(slots=True)
class Preflight:
    available: bool
    passed: bool
    block_text: str
    reason: str
    raw: Any = None


@dataclass(slots=True)
class Scan:
    available: bool
    verdict: str  # CLEAN | CHEAT_DETECTED | UNVERIFIABLE
    findings: list[Finding] = field(default_factory=list)
    reason: str = ""


def _missing_block(package: str, why: str) -> str:
    return (f"### Preflight output\n\n```text\n$ python -c \"import {package}; "
            f"print({package}.__file__)\"\n(not run: {why})\n```\n\nVerdict: FAIL — {why}\n")


def preflight(package: str, candidate: str, python: str | None = None,
              remove_paths: Sequence[str] = (), pythonpath: bool = True) -> Preflight:
    try:
        from gavelkit.task.anticheat.preflight import run_preflight
    except ImportError as exc:
        why = f"the anti-cheat pack is not installed (gavelkit.task.anticheat.preflight: {exc})"
        return Preflight(False, False, _missing_block(package, why), why)
    import os

    # the probe must not inherit this process's own import path (gavel's sources)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE")}
    try:
        res = run_preflight(package, candidate, python=python, remove_paths=list(remove_paths),
                            env=env, pythonpath=pythonpath)
    except TypeError:  # an implementation without the optional env argument
        res = run_preflight(package, candidate, python=python, remove_paths=list(remove_paths))
    return Preflight(True, bool(res.passed), str(res.block_text), str(res.reason), res)


def scan(paths: Sequence[str], task_dir: str, package: str | None,
         forbid: Sequence[str] = ()) -> Scan:
    if not paths:
        return Scan(True, "UNVERIFIABLE", [], "no trajectory was given: the agent's access "
                    "cannot be checked (absence of a transcript is not a pass)")
    try:
        from gavelkit.task.anticheat.scan import scan_trajectories
    except ImportError as exc:
        return Scan(False, "UNVERIFIABLE", [], "the anti-cheat pack is not installed "
                    f"(gavelkit.task.anticheat.scan: {exc})")
    res = scan_trajectories(list(paths), task_dir, package, forbid=list(forbid))
    return Scan(True, str(res.verdict), list(res.findings),
                f"{len(res.findings)} finding(s) in {len(paths)} trajectory file(s)")
