"""The one function that decides QUALIFIED (seed "Hard Checks", gates A-F, "Task Status").

Every hard check and every fairness gate reports one `Check` with a status:

- PASS: checked, and it holds;
- FAIL: checked, and it does not hold (the check says where the task goes next);
- UNVERIFIABLE: the check could not read, run or verify its input (fail closed);
- PENDING: the check needs the judge's own work first (the Gate A/C table);
- N/A: the check does not exist in the spec standard the task was written to (Gate F's
  phrasing rules before standard 2026-07-23). Not a failure and not a pass: only the
  checks in `MAY_NOT_APPLY` may say it, and the verdict names them with the standard.

`decide(checks)` is the only place that turns checks into a verdict, and the
judge, `gavel task state --to QUALIFIED` (through `qualified_record_ok`) and
`judge-all` all go through it, so they cannot disagree. QUALIFIED needs every
check in `REQUIRED` present and PASS and no other check blocking: a missing
check counts as UNVERIFIABLE, never as a pass.

Verdicts: CHEAT_DETECTED (the anti-cheat check failed), BROKEN (another check
failed, or could not be verified for a reason the pipeline has to fix: the
route says where), PENDING (nothing failed, but something is still to be done
or supplied before the task can be certified; the state stays at S5_JUDGE),
QUALIFIED, and REFUSED (the task was not at the judge's entry state: nothing judged or
written). `Status`, `Verdict` and `Route` are the vocabularies every record, report and
command uses; `ORDER` lists the only check names (one name per gate everywhere).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal


class Status(StrEnum):
    """What one check found (a str: records and JSON carry the plain value)."""

    PASS = "PASS"
    FAIL = "FAIL"
    UNVERIFIABLE = "UNVERIFIABLE"
    PENDING = "PENDING"
    NA = "N/A"


class Verdict(StrEnum):
    """What the judge decided. REFUSED: the task was not at the judge's entry state, so
    nothing was judged or written (not a verdict on the candidate)."""

    QUALIFIED = "QUALIFIED"
    BROKEN = "BROKEN"
    CHEAT_DETECTED = "CHEAT_DETECTED"
    PENDING = "PENDING"
    REFUSED = "REFUSED"


PASS, FAIL, UNVERIFIABLE, PENDING, NA = (Status.PASS, Status.FAIL, Status.UNVERIFIABLE,
                                         Status.PENDING, Status.NA)
STATUSES = tuple(Status)
VERDICTS = tuple(Verdict)
# what a record may state as the judge's verdict (a refusal is never recorded), and the
# task.json `status` values the judge writes with its verdict
RECORDED_VERDICTS = tuple(v for v in Verdict if v != Verdict.REFUSED)
TASK_STATUSES = (Verdict.QUALIFIED, Verdict.BROKEN, Verdict.CHEAT_DETECTED)
Route = Literal["spec", "filter", "env", "rerun"]
# checks a task's (older) spec standard may lack; every other check must PASS
MAY_NOT_APPLY = ("gate-F",)

# The seed's order: inputs readable, preflight, anti-cheat, solvability, the score
# itself, then the fairness gates. A blocking check earlier in this list decides the
# route when several block. These are the only check names (one name per gate, in
# every record: judge_result.json, task.json, the report).
ORDER = ("inputs", "preflight", "anti-cheat", "run-integrity", "freshness", "solvability",
         "score", "gate-A/C", "gate-B", "gate-D", "gate-E", "gate-F", "negative-gap",
         "oracle-size", "oracle-unchanged", "other-errors")
REQUIRED = ("inputs", "preflight", "anti-cheat", "solvability", "score", "gate-A/C", "gate-B",
            "gate-D", "gate-E", "gate-F")
# route -> the state the seed's loop exits name
ROUTES: dict[str, str] = {"spec": "S2_SPEC_DRAFT", "filter": "S3_ORACLE_MERGE",
                          "env": "S4_SETUP", "rerun": "S4_EVAL_RUN"}
# judge_result.json's shape (judging/schema.py builds its JSON Schema); the QUALIFIED guard
# reads only records of this version
SCHEMA_VERSION = 2  # 2: unverified_evidence (a withheld score's evidence, issue 26 item 8)
# checks whose result must be PASS before any score value may be used or shown
SCORE_GATES = ("inputs", "preflight", "run-integrity", "freshness", "solvability", "score")


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    status: Status
    reason: str = ""
    route: Route | None = None  # where the task goes when this check blocks (ROUTES key)

    def __post_init__(self) -> None:
        if self.name not in ORDER:
            raise ValueError(f"check {self.name!r} is not one of {ORDER}")
        if self.status not in STATUSES:
            raise ValueError(f"check {self.name}: status {self.status!r} not in {STATUSES}")
        object.__setattr__(self, "status", Status(self.status))
        if self.status == NA and self.name not in MAY_NOT_APPLY:
            raise ValueError(f"check {self.name}: only {MAY_NOT_APPLY} may be N/A")
        if self.route is not None and self.route not in ROUTES:
            raise ValueError(f"check {self.name}: route {self.route!r} not in {tuple(ROUTES)}")

    @property
    def blocks(self) -> bool:
        return self.status not in (PASS, NA)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": str(self.status), "reason": self.reason,
                "route": self.route}


@dataclass(frozen=True, slots=True)
class Ruling:
    verdict: Verdict
    route: Route | None
    reasons: tuple[str, ...] = ()
    blocking: tuple[Check, ...] = ()

    @property
    def next_state(self) -> str | None:
        """The state the seed's exits name for this verdict (None: stay in S5_JUDGE)."""
        if self.verdict == Verdict.QUALIFIED:
            return "QUALIFIED"
        if self.verdict in (Verdict.PENDING, Verdict.REFUSED):
            return None
        return ROUTES.get(self.route or "env", "S4_SETUP")


_WORSE = {PASS: 0, NA: 0, PENDING: 1, UNVERIFIABLE: 2, FAIL: 3}


def _rank(c: Check) -> int:
    return ORDER.index(c.name) if c.name in ORDER else len(ORDER)


def complete(checks: Iterable[Check]) -> list[Check]:
    """The checks in the seed's order, with every missing required check UNVERIFIABLE."""
    have: dict[str, Check] = {}
    for c in checks:
        prev = have.get(c.name)
        # two results for one check: the worse one counts
        if prev is None or _WORSE[c.status] > _WORSE[prev.status]:
            have[c.name] = c
    for name in REQUIRED:
        if name not in have:
            have[name] = Check(name, UNVERIFIABLE, "this check did not run: no result to "
                               "certify (a missing check is not a pass)")
    return sorted(have.values(), key=lambda c: (_rank(c), c.name))


def decide(checks: Iterable[Check]) -> Ruling:
    """Verdict and route from all checks; QUALIFIED only when every check is PASS."""
    allc = complete(checks)
    blocking = tuple(c for c in allc if c.blocks)
    if not blocking:
        return Ruling(Verdict.QUALIFIED, None, (_qualified_reason(allc),))
    verdict, route = _blocked(blocking)
    return Ruling(verdict, route, tuple(f"{c.name} {c.status}: {c.reason}" for c in blocking),
                    blocking)


def _blocked(blocking: tuple[Check, ...]) -> tuple[Verdict, Route | None]:
    """A failed anti-cheat is a cheat; the first failure (else the first routed
    UNVERIFIABLE) in the seed's order routes a BROKEN task; anything else waits."""
    failed: Check | None = None
    routed: Check | None = None
    for c in blocking:
        if c.status == FAIL and c.name == "anti-cheat":
            return Verdict.CHEAT_DETECTED, "env"
        if c.status == FAIL:
            failed = failed or c
        elif c.status == UNVERIFIABLE and c.route:
            routed = routed or c
    if failed is not None:
        return Verdict.BROKEN, failed.route or "env"
    if routed is not None:
        return Verdict.BROKEN, routed.route
    return Verdict.PENDING, None


def _qualified_reason(allc: list[Check]) -> str:
    na = "; ".join(f"{c.name} N/A: {c.reason}" for c in allc if c.status == NA)
    return ("all hard checks and gates A-F pass"
            + (f" or do not apply to the task's standard ({na})" if na else "")
            + "; the scoring set is valid")


def scores_usable(checks: Iterable[Check]) -> tuple[bool, str]:
    """May a score value be shown or used? Not after a failed or unrun preflight, a
    detected cheat, an unreadable or stale run, or a reference below the threshold."""
    for c in complete(checks):
        if c.name == "anti-cheat" and c.status == FAIL:
            return False, f"anti-cheat FAIL ({c.reason}): the run is invalid, its score discarded"
        if c.name in SCORE_GATES and c.status != PASS:
            return False, f"{c.name} {c.status} ({c.reason}): the score must not be used"
    return True, ""


# what may stay unverified when a score is shown as recorded evidence (never certified)
EVIDENCE_MAY_LACK = ("preflight", "anti-cheat", "run-integrity", "freshness", "solvability")


def unverified_evidence(checks: Iterable[Check]) -> tuple[tuple[str, str], ...] | None:
    """A withheld score that may still be shown as unverified evidence: every check that
    failed is absent and the score itself was read; only checks that could not be made
    (UNVERIFIABLE: no code to preflight, no transcript, a score file from another scorer)
    stand between it and use. Returns those checks with their reasons, or None when the
    score must not be shown at all (a failed check, a cheat, an unreadable score)."""
    done = [c for c in complete(checks) if c.name in (*SCORE_GATES, "anti-cheat")]
    lacking = [c for c in done if c.status != PASS]
    if all(c.status == UNVERIFIABLE and c.name in EVIDENCE_MAY_LACK for c in lacking):
        return tuple((c.name, c.reason) for c in lacking)
    return None


def checks_from_record(rec: Any) -> list[Check]:
    """The checks a judge_result.json recorded; anything malformed is UNVERIFIABLE."""
    raw = rec.get("checks") if isinstance(rec, dict) else None
    if not isinstance(raw, list):
        return [Check("inputs", UNVERIFIABLE, "the judge record lists no checks")]
    return [_recorded_check(i, x) for i, x in enumerate(raw)]


def _recorded_check(i: int, x: Any) -> Check:
    ok = (isinstance(x, dict) and x.get("name") in ORDER and isinstance(x.get("status"), str)
          and x.get("status") in STATUSES)
    if not ok or (x["status"] == NA and x["name"] not in MAY_NOT_APPLY):
        return Check("inputs", UNVERIFIABLE, f"judge record check #{i + 1} is malformed")
    route = x.get("route") if x.get("route") in ROUTES else None
    return Check(x["name"], x["status"], str(x.get("reason") or ""), route)


def qualified_record_ok(rec: Any, oracle_digest: str, score_sha: str | None) -> tuple[bool, str]:
    """Is this judge record a QUALIFIED result for the current oracle and score?

    The state machine's guard for entering QUALIFIED: the record's own checks are
    re-decided here (a hand-edited "verdict": "QUALIFIED" over failing checks does not
    count), and the oracle digest and score file hash it was judged on must be today's.
    """
    if not isinstance(rec, dict):
        return False, "no readable judge/judge_result.json: run `gavel task judge` first"
    if rec.get("schema_version") != SCHEMA_VERSION:
        return False, (f"judge/judge_result.json has schema_version {rec.get('schema_version')!r}"
                       f", this gavel reads {SCHEMA_VERSION}: re-run `gavel task judge`")
    d = decide(checks_from_record(rec))
    if d.verdict != "QUALIFIED" or rec.get("verdict") != "QUALIFIED":
        why = "; ".join(d.reasons[:3]) or f"recorded verdict {rec.get('verdict')!r}"
        return False, f"the judge's result is {d.verdict}, not QUALIFIED ({why})"
    judged = rec.get("judged_on") if isinstance(rec.get("judged_on"), dict) else {}
    if judged.get("oracle_digest") != oracle_digest:
        return False, ("the oracle changed since the judge's QUALIFIED result (judged on "
                       f"{str(judged.get('oracle_digest'))[:12]}, now {oracle_digest[:12]}): "
                       "re-run the candidate and the judge")
    if score_sha is None:
        return False, f"the judged score file {judged.get('score_file')!r} is gone"
    if judged.get("score_sha256") != score_sha:
        return False, (f"the score file {judged.get('score_file')!r} is not the one the judge "
                       "certified (its content changed): re-run the judge")
    return True, "judge QUALIFIED on the current oracle and score"
