"""Step verdict: every step's checks through `verdict.decide`, then labels and weaknesses.

Fail closed by construction: an error-level finding beside checks that would all pass (a
new error code added without its check) becomes a failing check of its own, so it can
never sit beside a QUALIFIED verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gavelkit.task.formats.load import Task
from gavelkit.task.judging.fairness import Fairness
from gavelkit.task.judging.scores import Scores
from gavelkit.task.judging.step import StepResult
from gavelkit.task.judging.verdict import FAIL, Check, Decision, Verdict, complete, decide


@dataclass(frozen=True, slots=True)
class Weakness:
    """One (dimension, layer) the candidate is weak in, with its own clusters' sections."""

    dimension: str
    layer: str
    description: str
    affected_tests: int
    spec_sections: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"dimension": self.dimension, "description": self.description,
                "affected_tests": self.affected_tests, "layer": self.layer,
                "spec_sections": list(self.spec_sections)}


@dataclass(frozen=True, slots=True, kw_only=True)
class Conclusion(StepResult):
    decision: Decision
    reasons: tuple[str, ...] = ()
    labels: tuple[dict[str, str], ...] = ()
    weaknesses: tuple[Weakness, ...] = ()


def conclude(task: Task, steps: Sequence[StepResult], fairness: Fairness | None,
             scores: Scores | None) -> Conclusion:
    checks: list[Check] = [c for s in steps for c in s.checks]
    errs = [f for s in steps for f in s.findings if f.severity == "error"]
    if errs and decide(checks).verdict == Verdict.QUALIFIED:
        checks.append(Check("other-errors", FAIL, "; ".join(f"{f.code}: {f.message}"
                                                           for f in errs[:3]), "env"))
    d = decide(checks)
    reasons = list(d.reasons)
    std = fairness.standard_line() if fairness else ""
    if std:
        reasons.append(std)
    m = scores.metrics if scores else None
    labels = list(m.labels) if m is not None else []
    gd = fairness.result("D") if fairness else None
    if gd is not None and gd.verdict == "GAP":
        secs = ", ".join(u["spec section"] for u in gd.data.get("uncovered", [])
                         if "core" in str(u.get("impact", "")))
        labels.append({"label": "coverage-gap", "evidence": f"Gate D GAP: {secs}"
                       + (" (accepted as a caveat: task.json coverage_gap)"
                          if fairness and fairness.coverage_caveat else "")})
    weak = weaknesses(task, scores) if d.verdict == Verdict.QUALIFIED and scores else ()
    return Conclusion(checks=tuple(complete(checks)), decision=d, reasons=tuple(reasons),
                      labels=tuple(labels), weaknesses=weak)


def weaknesses(task: Task, scores: Scores) -> tuple[Weakness, ...]:
    """One entry per (dimension, layer); each carries only its own clusters' sections."""
    from gavelkit.task.judgedata import for_task

    m, score = scores.metrics, scores.score
    if m is None or score is None:
        return ()
    desc = for_task("dimensions", task).get("descriptions", {})
    layer_of = {c.nodeid: c.layer or "unknown" for c in score.cases}
    by: dict[tuple[str, str], tuple[list[str], list[str], list[int]]] = {}
    for c in m.clusters:
        if c.klass != "candidate":
            continue
        per_layer: dict[str, list[str]] = {}
        for t in c.tests:
            per_layer.setdefault(layer_of.get(t, "unknown"), []).append(t)
        for layer, tests in per_layer.items():
            sections, causes, count = by.setdefault((c.dimension, layer), ([], [], [0]))
            count[0] += len(tests)
            sections += [s for s in c.sections if s not in sections]
            ex = (c.example.strip().splitlines() or [""])[0].strip()[:110]
            gap = c.signature + (f" (e.g. {ex})" if ex and not c.signature.startswith(
                ("missing", "undefined")) else "")
            causes.append(f"{gap} ({len(tests)} test{'s' if len(tests) > 1 else ''})")
    out = [Weakness(dim, layer, f"{desc.get(dim, dim)}: " + "; ".join(causes[:4])
                    + (f"; +{len(causes) - 4} more root causes" if len(causes) > 4 else ""),
                    count[0], tuple(sections))
           for (dim, layer), (sections, causes, count) in by.items()]
    return tuple(sorted(out, key=lambda w: (-w.affected_tests, w.dimension, w.layer)))

