"""Steps scores and metrics: only now, and only when a score may be used at all.

A score is used only when every check in `verdict.SCORE_GATES` passed (and no cheat was
detected), and never a pass rate at or above the solvability threshold without a passing
preflight (TSK-J006). Then the metrics (layers, gap, clusters, labels) and what rests on
the failures: Gate B (unpromised wording is a verifier failure), the negative gap and
the small-oracle rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from gavelkit.task.formats.load import Task
from gavelkit.task.formats.score import ScoreResult
from gavelkit.task.judging.step import Notes, StepResult
from gavelkit.task.judging.verdict import (
    FAIL,
    PASS,
    PENDING,
    UNVERIFIABLE,
    Check,
    scores_usable,
    unverified_evidence,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gavelkit.task.judging.metrics import Metrics


@dataclass(frozen=True, slots=True)
class GateB:
    """Gate B's failure-pattern audit: do the failures cluster around verifier problems?"""

    verdict: Literal["PASS", "FAIL", "PENDING", "NOT RUN"]
    why: str = ""
    failures: int = 0
    verifier: int = 0
    untraced: int = 0
    share: float = 0.0
    threshold: float | None = None
    judged: int = 0  # clusters the judge's table decided (judge/gate_b.md)
    pending: tuple[str, ...] = ()  # judgement cells still blank
    prefilled: str = ""  # the table to write when none exists yet

    def to_dict(self) -> dict[str, Any]:
        if self.verdict == "NOT RUN":
            return {"verdict": self.verdict, "why": self.why}
        return {"verdict": self.verdict, "failures": self.failures, "verifier": self.verifier,
                "untraced": self.untraced, "share": self.share, "threshold": self.threshold,
                "why": self.why, "judged_clusters": self.judged, "pending": list(self.pending)}


def score_record(score: ScoreResult) -> dict[str, Any]:
    """A score as judge_result.json records it (`candidate_score`, used or unverified)."""
    return {"summary": score.summary, "pass_rate": score.pass_rate,
            "by_layer": score.raw.get("by_layer")}


@dataclass(frozen=True, slots=True)
class Unverified:
    """A withheld score shown as recorded evidence: what it says (layers, gap, clusters,
    Gate B's evidence) and which checks could not be made, and why. Kept apart from
    `Scores.score`/`metrics` so nothing that certifies, labels or records a score can
    read it by accident (issue 26 item 8: a recorded run judged without its code)."""

    score: ScoreResult
    metrics: Metrics
    gate_b: GateB
    not_checked: tuple[tuple[str, str], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"candidate_score": score_record(self.score),
                "metrics": self.metrics.to_dict(), "gate_b": self.gate_b.to_dict(),
                "not_checked": [{"check": n, "reason": r} for n, r in self.not_checked]}


@dataclass(frozen=True, slots=True, kw_only=True)
class Scores(StepResult):
    usable: bool = False
    why: str = ""  # why the score is withheld ('' when usable)
    score: ScoreResult | None = None  # set only when usable
    metrics: Metrics | None = None
    gate_b: GateB = GateB("NOT RUN")
    unverified: Unverified | None = None  # set only when withheld and showable as evidence


def scores(task: Task, score: ScoreResult, reference: ScoreResult | None, solution: str,
           checks: list[Check], preflight_passed: bool, threshold: float,
           copy: Mapping[str, Any] | None = None) -> Scores:
    """`checks`: every check the steps before decided (the score gates among them);
    `copy`: the scan's copy share of the reference source (saturation's second route)."""
    notes = Notes(str(task.dir))
    usable, why = scores_usable(checks)
    rate = score.pass_rate
    if rate is not None and rate >= threshold and not preflight_passed:
        msg = (f"candidate pass rate {rate:.1%} >= {threshold * 100:g} % without a passing "
               "import-provenance preflight: the score is refused")
        notes.add("TSK-J006", "error", msg)
        notes.check("preflight", FAIL, msg, "env")
        usable, why = False, f"{msg}; {why}" if why else msg
        checks = [*checks, Check("preflight", FAIL, msg)]  # refused: not even as evidence
    if not usable:
        return _withheld(task, score, reference, solution, checks, why, notes)
    m = _metrics(task, score, reference, solution, copy)
    gb = gate_b(m, task)
    _gate_b_check(gb, notes)
    neg = m.negative_gap
    if neg.get("applies") and neg.get("route"):
        notes.check("negative-gap", FAIL, "negative gap: " + "; ".join(
            neg.get("diagnosis", [])), "filter")
    _small_oracle(task, score, notes)
    return Scores(usable=True, score=score, metrics=m, gate_b=gb, **notes.frozen())


def _metrics(task: Task, score: ScoreResult, reference: ScoreResult | None,
             solution: str, copy: Mapping[str, Any] | None = None) -> Metrics:
    from gavelkit.task.judging.metrics import compute

    return compute(task, dict(score.raw), dict(reference.raw) if reference else None, solution,
                   copy=copy)


def _withheld(task: Task, score: ScoreResult, reference: ScoreResult | None, solution: str,
              checks: list[Check], why: str, notes: Notes) -> Scores:
    """A score that may not be used. Gate B is never audited on it; when only checks that
    could not be made stand in its way, what it says is kept as unverified evidence."""
    notes.check("gate-B", UNVERIFIABLE, f"failure pattern not audited: {why}")
    lacking = unverified_evidence(checks)
    if lacking is None or not score.total:
        return Scores(why=why, gate_b=GateB("NOT RUN", why), **notes.frozen())
    m = _metrics(task, score, reference, solution)
    ev = Unverified(score, m, gate_b(m, task), lacking)
    return Scores(why=why, gate_b=GateB("NOT RUN", why), unverified=ev, **notes.frozen())


def gate_b(metrics: Metrics, task: Task | None = None) -> GateB:
    """Failure pattern audit against `gate_b.fail_share`. The wording rule (verifier by
    mechanics) and untraced failures decide alone only when they already fail the gate;
    otherwise the judge's table (judge/gate_b.md) must say, per candidate cluster, whether
    it is reimplementation-neutral and whether Q-A holds: until then Gate B is PENDING."""
    from gavelkit.task.judgedata import for_task

    limit = float(for_task("gate_b", task)["fail_share"])
    base = _mechanical(metrics.clusters, limit)
    if not base.failures:
        return replace(base, verdict="PASS")  # nothing failed: nothing to judge
    if base.share > limit:  # the mechanical rule fails it alone
        return base
    return _judged(base, [c for c in metrics.clusters if c.klass == "candidate"], task, limit)


def _mechanical(clusters: list[Any], limit: float) -> GateB:
    """The verifier (by rule) and untraced failures, as a failing Gate B to start from."""
    total = sum(len(c.tests) for c in clusters)
    ver = sum(len(c.tests) for c in clusters if c.klass == "verifier")
    untraced = sum(len(c.tests) for c in clusters if c.klass == "candidate"
                   and not c.traced_to_spec)
    share = (ver + untraced) / total if total else 0.0
    return GateB("FAIL", _verifier_rules(clusters), total, ver, untraced, round(share, 4),
                 limit)


def _verifier_rules(clusters: list[Any]) -> str:
    """Which verifier rules the failures fall under, most failures first."""
    rules: dict[str, int] = {}
    for c in clusters:
        if c.klass == "verifier":
            rules[c.rule or "verifier"] = rules.get(c.rule or "verifier", 0) + len(c.tests)
    return ", ".join(f"{n} {r}" for r, n in sorted(rules.items(), key=lambda x: -x[1]))


def _judged(base: GateB, cands: list[Any], task: Task | None, limit: float) -> GateB:
    """Gate B with the judge's table: PENDING while a judgement cell is blank."""
    from gavelkit.task.judging import gate_b_table as T

    path = task.dir / T.TABLE if task is not None else None
    if path is None or not path.is_file():
        return replace(base, verdict="PENDING", prefilled=T.render(cands),
                       pending=(f"{T.TABLE} is not written yet",))
    from gavelkit.core.errors import InputError
    from gavelkit.core.textio import read_text

    try:
        a = T.audit(read_text(path), cands)
    except InputError as exc:
        return replace(base, verdict="PENDING", pending=(f"{T.TABLE} unreadable: {exc}",))
    if a.pending:
        return replace(base, verdict="PENDING", pending=a.pending)
    ver = base.verifier + a.verifier_tests
    share = (ver + base.untraced) / base.failures
    why = ", ".join(x for x in (base.why, f"{a.verifier_tests} judged verifier in "
                                          f"{', '.join(a.verifier_clusters)}"
                                if a.verifier_clusters else "") if x)
    return replace(base, verdict="FAIL" if share > limit else "PASS", why=why, verifier=ver,
                   share=round(share, 4), judged=a.judged)


def _gate_b_check(gb: GateB, notes: Notes) -> None:
    if gb.verdict == "FAIL":
        msg = (f"{gb.verifier} of {gb.failures} failures are verifier failures "
               f"({gb.why}) and {gb.untraced} are untraced to the spec: return "
               "filter_correction_request.md to test-filter")
        notes.add("TSK-J015", "error", f"Gate B FAIL: {msg}")
        notes.check("gate-B", FAIL, msg, "filter")
    elif gb.verdict == "PENDING":
        msg = ("Gate B pending: the judge's failure-pattern table is not complete ("
               + "; ".join(gb.pending[:3]) + (f"; +{len(gb.pending) - 3} more"
                                              if len(gb.pending) > 3 else "")
               + "): fill 'reimplementation-neutral?' and 'Q-A' in judge/gate_b.md for every "
               "cluster, then re-run the judge")
        notes.add("TSK-J021", "warning", msg)
        notes.check("gate-B", PENDING, msg)
    else:
        notes.check("gate-B", PASS, f"{gb.verifier} verifier + {gb.untraced} untraced of "
                    f"{gb.failures} failures" + (f" ({gb.judged} cluster(s) judged in "
                                                  "judge/gate_b.md)" if gb.judged else ""))


def _small_oracle(task: Task, score: ScoreResult, notes: Notes) -> None:
    from gavelkit.task.config import is_generated_only

    least = int(task.config["judge"]["small_oracle"])
    total = score.total
    src = task.oracle_source()[0] or ""
    if total < least and is_generated_only(src, task.config):
        msg = (f"generated-only oracle with {total} < {least} tests: small-oracle/"
               "exploratory, not QUALIFIED")
        notes.add("TSK-J008", "error", msg)
        notes.check("oracle-size", FAIL, msg, "filter")
