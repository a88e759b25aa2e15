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
from gavelkit.task.judging.verdict import FAIL, Check, Ruling, Verdict, complete, decide


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
    ruling: Ruling
    reasons: tuple[str, ...] = ()
    labels: tuple[dict[str, str], ...] = ()
    weaknesses: tuple[Weakness, ...] = ()


def conclude(task: Task, steps: Sequence[StepResult], fairness: Fairness | None,
             scores: Scores | None) -> Conclusion:
    checks = _with_other_errors(steps)
    d = decide(checks)
    std = fairness.standard_line() if fairness else ""
    m = scores.metrics if scores else None
    labels = [*(m.labels if m is not None else []), *_coverage_gap_label(fairness)]
    weak = weaknesses(task, scores) if d.verdict == Verdict.QUALIFIED and scores else ()
    return Conclusion(checks=tuple(complete(checks)), ruling=d,
                      reasons=(*d.reasons, *([std] if std else [])),
                      labels=tuple(labels), weaknesses=weak)


def _with_other_errors(steps: Sequence[StepResult]) -> list[Check]:
    """Every step's checks; plus a failing one when an error finding sits beside checks
    that would otherwise certify."""
    checks: list[Check] = [c for s in steps for c in s.checks]
    errs = [f for s in steps for f in s.findings if f.severity == "error"]
    if errs and decide(checks).verdict == Verdict.QUALIFIED:
        checks.append(Check("other-errors", FAIL, "; ".join(f"{f.code}: {f.message}"
                                                           for f in errs[:3]), "env"))
    return checks


def _coverage_gap_label(fairness: Fairness | None) -> list[dict[str, str]]:
    gd = fairness.result("D") if fairness else None
    if fairness is None or gd is None or gd.verdict != "GAP":
        return []
    secs = ", ".join(u["spec section"] for u in gd.data.get("uncovered", [])
                     if "core" in str(u.get("impact", "")))
    accepted = " (accepted as a caveat: task.json coverage_gap)" if fairness.coverage_caveat \
        else ""
    return [{"label": "coverage-gap", "evidence": f"Gate D GAP: {secs}{accepted}"}]


def weaknesses(task: Task, scores: Scores) -> tuple[Weakness, ...]:
    """One entry per (dimension, layer); each carries only its own clusters' sections."""
    from gavelkit.task.judgedata import for_task

    m, score = scores.metrics, scores.score
    if m is None or score is None:
        return ()
    desc = for_task("dimensions", task).get("descriptions", {})
    layer_of = {c.nodeid: c.layer or "unknown" for c in score.cases}
    by: dict[tuple[str, str], _Weak] = {}
    for c in m.clusters:
        if c.klass == "candidate":
            for layer, tests in _per_layer(c.tests, layer_of).items():
                by.setdefault((c.dimension, layer), _Weak()).add(c, len(tests))
    out = [w.weakness(dim, layer, desc.get(dim, dim)) for (dim, layer), w in by.items()]
    return tuple(sorted(out, key=lambda w: (-w.affected_tests, w.dimension, w.layer)))


def _per_layer(tests: list[str], layer_of: dict[str, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for t in tests:
        out.setdefault(layer_of.get(t, "unknown"), []).append(t)
    return out


class _Weak:
    """One (dimension, layer) while its clusters are gathered (local to `weaknesses`)."""

    def __init__(self) -> None:
        self.sections: list[str] = []
        self.causes: list[str] = []
        self.count = 0

    def add(self, c: Any, n: int) -> None:
        self.count += n
        self.sections += [s for s in c.sections if s not in self.sections]
        ex = (c.example.strip().splitlines() or [""])[0].strip()[:110]
        plain = not ex or c.signature.startswith(("missing", "undefined"))
        self.causes.append(f"{c.signature}{'' if plain else f' (e.g. {ex})'} "
                           f"({n} test{'s' if n > 1 else ''})")

    def weakness(self, dim: str, layer: str, desc: str) -> Weakness:
        more = f"; +{len(self.causes) - 4} more root causes" if len(self.causes) > 4 else ""
        return Weakness(dim, layer, f"{desc}: " + "; ".join(self.causes[:4]) + more,
                        self.count, tuple(self.sections))
