"""The judge-panel rule (seed §3) on recomputed totals, with evidence conflicts.

PASS only when (a) every seat's implied tier is at or above the target, (b) the
minimum recomputed seat total clears the target's threshold, (c) no criterion in any
seat is below the floor, and (d) no evidence conflict (> 20 apart on a shared
criterion) is open. Conflicts are never averaged: the outlier seat is named so the
lead can re-dispatch it once. Every problem is reported, not only the first.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.award.blocks.checks import fmt_num, fmt_vs
from gavelkit.award.blocks.lint import check_block
from gavelkit.award.blocks.load import select
from gavelkit.award.blocks.scorecard import Card
from gavelkit.award.tables import Tables, Tier, load_tables
from gavelkit.core.findings import Finding
from gavelkit.core.sources import load_source

EPS = 1e-9


@dataclass(slots=True)
class Seat:
    seat: str
    path: str
    line: int
    card: Card


@dataclass(slots=True)
class Conflict:
    criterion: str
    low_seat: str
    low: float
    high_seat: str
    high: float
    outlier: str | None
    adjudicated: str | None = None

    @property
    def spread(self) -> float:
        return self.high - self.low

    def to_dict(self) -> dict[str, Any]:
        return {"criterion": self.criterion, "low": {"seat": self.low_seat, "score": self.low},
                "high": {"seat": self.high_seat, "score": self.high},
                "spread": round(self.spread, 6), "outlier": self.outlier,
                "adjudicated": self.adjudicated}

    def describe(self) -> str:
        out = (f"{self.criterion!r}: seat {self.low_seat}={fmt_num(self.low)} vs seat "
               f"{self.high_seat}={fmt_num(self.high)} (spread {fmt_num(self.spread)})")
        if self.outlier:
            out += f"; outlier seat {self.outlier}"
        else:
            out += "; no majority, re-dispatch needs the lead's call"
        return out


@dataclass(slots=True)
class PanelResult:
    target: Tier
    seats: list[Seat] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    evaluated: bool = False
    min_total: tuple[str, float] | None = None
    weakest: tuple[str, str, float] | None = None
    round: int | None = None
    adjudication: str | None = None

    @property
    def passed(self) -> bool:
        return self.evaluated and not self.failed

    def to_dict(self) -> dict[str, Any]:
        t = self.target
        return {
            "target": {"tier": t.name, "threshold": t.threshold, "floor": t.floor, "rank": t.rank},
            "result": "PASS" if self.passed else "FAIL",
            "evaluated": self.evaluated,
            "round": self.round,
            "adjudication": self.adjudication,
            "seats": [{"seat": s.seat, "path": s.path, "round": s.card.round,
                       "computed_total": s.card.computed_total,
                       "declared_total": s.card.declared_total,
                       "implied_tier": s.card.tier_token,
                       "tier": s.card.tier.name if s.card.tier else None,
                       "criteria": s.card.criteria} for s in self.seats],
            "min_seat_total": ({"seat": self.min_total[0], "total": self.min_total[1]}
                               if self.min_total else None),
            "weakest_criterion": ({"seat": self.weakest[0], "criterion": self.weakest[1],
                                   "score": self.weakest[2]} if self.weakest else None),
            "conflicts": [c.to_dict() for c in self.conflicts],
            "failed_conditions": self.failed,
        }


def _fail(res: PanelResult, code: str, message: str, path: str = "", line: int = 0,
          **data: Any) -> None:
    res.failed.append(message)
    res.findings.append(Finding(code, "error", message, path, line, 1 if line else 0, data=data))


def aggregate(paths: Sequence[str | Path], target: str, tables: Tables | None = None,
              adjudication_round: bool = False,
              adjudicated: dict[str, str] | None = None,
              previous: str | Path | None = None) -> PanelResult:
    """Aggregate one round of seat cards against `target`.

    `adjudication_round`: the panel of a conflict re-dispatch, where exactly one seat
    (the outlier) carries the next round and the other two are from the round before.
    `adjudicated`: criterion -> recorded outcome (from a decision_memo); such a conflict
    is reported but no longer blocks the pass — only in an adjudication round, after the
    outlier was re-dispatched (seed §3).
    `previous`: the re-dispatched seat's card of the round before (default: found next to
    its new card by name), to check that the re-scored seat was the outlier.
    Raises UsageError for an unknown target.
    """
    tables = tables or load_tables()
    res = PanelResult(tables.target(target))
    invalid = False
    bad: dict[str, str] = {}
    for p in paths:
        src = load_source(p)
        res.findings.extend(src.findings)
        if src.unusable:
            invalid = True
            continue
        blocks, found = select(src, "scorecard")
        res.findings.extend(found)
        if not blocks:
            invalid = True
        for b in blocks:
            br = check_block(b, tables)
            res.findings.extend(br.findings)
            if not br.ok or br.card is None:
                invalid = True
                if isinstance(b.body.get("seat"), str):
                    bad.setdefault(b.body["seat"], f"{b.path}:{b.line}")
                res.findings.append(Finding("AWD-P004", "error",
                                            "invalid scorecard: the panel cannot be evaluated "
                                            "until it lints clean", b.path, b.line, b.col))
                continue
            res.seats.append(Seat(br.card.seat or "?", b.path, b.line, br.card))
    evaluate(res, tables, invalid, adjudication_round, adjudicated, bad)
    if res.adjudication is not None:
        _check_outlier(res, tables, previous)
    return res


def _previous_card(res: PanelResult, tables: Tables,
                   previous: str | Path | None) -> tuple[Seat | None, str]:
    import re

    seat = next(s for s in res.seats if s.seat == res.adjudication)
    prev_round = (res.round or 2) - 1
    if previous is None:
        name = Path(seat.path).name
        cand = re.sub(r"-round-\d+(\.ya?ml)$", rf"-round-{prev_round}\1", name)
        if cand == name:
            return None, f"pass the seat's round-{prev_round} card with --previous"
        previous = Path(seat.path).with_name(cand)
    src = load_source(previous)
    if src.unusable:
        return None, f"its round-{prev_round} card {str(previous)!r} cannot be read"
    blocks, _ = select(src, "scorecard")
    for b in blocks:
        br = check_block(b, tables)
        if br.ok and br.card is not None and br.card.seat == seat.seat \
                and br.card.round == prev_round:
            return Seat(seat.seat, b.path, b.line, br.card), ""
    return None, (f"{str(previous)!r} holds no valid round-{prev_round} card of seat "
                  f"{seat.seat}")


def _check_outlier(res: PanelResult, tables: Tables, previous: str | Path | None) -> None:
    """The re-dispatched seat must be the outlier of a conflict of the full round before."""
    seat = res.adjudication
    prev, why = _previous_card(res, tables, previous)
    if prev is None:
        _fail(res, "AWD-P013", f"cannot verify that seat {seat} was the outlier of the round "
              f"before: {why}")
        return
    full = [s for s in res.seats if s.seat != seat] + [prev]
    conflicts = find_conflicts(full, tables.limits["conflict_spread"])
    if seat not in {c.outlier for c in conflicts}:
        named = "; ".join(c.describe() for c in conflicts) or "none"
        _fail(res, "AWD-P013", f"seat {seat} was re-dispatched but was not the outlier of an "
              f"evidence conflict in round {prev.card.round} (conflicts: {named}); only the "
              "outlier seat is re-dispatched", prev.path, prev.line)


def evaluate(res: PanelResult, tables: Tables, invalid: bool = False,
             adjudication_round: bool = False,
             adjudicated: dict[str, str] | None = None,
             bad: dict[str, str] | None = None) -> PanelResult:
    """Apply the panel rule to the seats already in `res` (shared with `award status`)."""
    if _completeness(res, bad or {}) and not invalid:
        _consistency(res, adjudication_round)
    if invalid or any(f.code in ("AWD-P001", "AWD-P002", "AWD-P003") for f in res.findings):
        res.failed.append("panel not evaluated: fix the findings above first")
        return res
    res.evaluated = True
    _conditions(res, tables, adjudicated or {})
    return res


def _completeness(res: PanelResult, bad: dict[str, str]) -> bool:
    by_seat: dict[str, list[Seat]] = {}
    for s in res.seats:
        by_seat.setdefault(s.seat, []).append(s)
    problems = []
    for seat in ("A", "B", "C"):
        got = by_seat.get(seat, [])
        if not got and seat in bad:
            problems.append(f"seat {seat}'s card ({bad[seat]}) does not lint clean")
        elif not got:
            problems.append(f"seat {seat} missing")
        elif len(got) > 1:
            problems.append(f"seat {seat} given {len(got)} times (" +
                            ", ".join(f"{s.path}:{s.line}" for s in got) + ")")
    if problems:
        _fail(res, "AWD-P001", "the panel needs exactly one card from each of seats A, B and C: "
              + "; ".join(problems) + " (aggregate one round at a time: "
              "phase7-seat-*-round-<r>.yaml)" + _one_seat_hint(res.seats))
        return False
    return True


def _one_seat_hint(seats: list[Seat]) -> str:
    """A lone card of round 2 or 3 is an outlier's re-dispatch: say how it is aggregated."""
    rounds = {s.card.round for s in seats}
    if len(seats) != 1 or not rounds or not isinstance(r := next(iter(rounds)), int) or r < 2:
        return ""
    return (f"; a round-{r} file holding only seat {seats[0].seat} is an outlier's re-dispatch: "
            f"aggregate it with --adjudication-round, giving seat {seats[0].seat}'s round-{r} "
            f"card and the other two seats' cards of round {r - 1}")


def _adjudication_round(res: PanelResult, rounds: list[int], listing: str) -> None:
    """Two rounds: the other two seats' and, one round later, the re-dispatched outlier's."""
    later = [s for s in res.seats if rounds and s.card.round == rounds[-1]]
    if len(rounds) == 2 and rounds[1] == rounds[0] + 1 and len(later) == 1:
        res.round = rounds[1]
        res.adjudication = later[0].seat
    else:
        _fail(res, "AWD-P002", "an adjudication round re-scores exactly one seat (the "
              "outlier) in the round after the other two; got " + listing)


def _consistency(res: PanelResult, adjudication_round: bool) -> None:
    rounds = sorted({s.card.round for s in res.seats if s.card.round is not None})
    listing = ", ".join(f"{s.seat}: round {s.card.round} ({s.path})" for s in res.seats)
    if adjudication_round:
        _adjudication_round(res, rounds, listing)
    elif len(rounds) > 1:
        _fail(res, "AWD-P002", "cards come from different rounds; aggregate one round at a time: "
              + listing)
    else:
        res.round = rounds[0] if rounds else None
    _one_contest(res)


def _one_contest(res: PanelResult) -> None:
    if len({s.card.contest or "" for s in res.seats}) > 1:
        _fail(res, "AWD-P003", "cards name different contests: " +
              ", ".join(f"{s.seat}: {s.card.contest!r} ({s.path})" for s in res.seats))


def _condition_a(res: PanelResult, seats: list[Seat]) -> None:
    t = res.target
    for s in seats:
        tier = s.card.tier
        # every seat here linted clean, and a clean card's implied_tier is a known token
        # (AWD-S010, then AWD-P004 and no evaluation): a tier that does not rank is not one
        # that passes
        if tier is None or tier.rank < t.rank:
            _fail(res, "AWD-P006", f"(a) seat {s.seat} implied tier {s.card.tier_token!r} is below "
                  f"target {t.name}", s.path, s.line)


def _condition_b(res: PanelResult, seats: list[Seat], threshold: float) -> None:
    t = res.target
    low = min(seats, key=lambda s: (s.card.computed_total or 0.0, s.seat))
    total = low.card.computed_total or 0.0
    res.min_total = (low.seat, total)
    if total < threshold - EPS:
        _fail(res, "AWD-P008", f"(b) minimum seat total {fmt_vs(total, threshold)} (seat {low.seat}, "
              f"recomputed) < {fmt_num(threshold)} required for {t.name}", low.path, low.line,
              total=total, threshold=threshold)


def _condition_c(res: PanelResult, seats: list[Seat], floor: float) -> None:
    weakest: tuple[str, str, float] | None = None
    for s in seats:
        for name, score in s.card.criteria.items():
            if weakest is None or score < weakest[2]:
                weakest = (s.seat, name, score)
            if score < floor - EPS:
                _fail(res, "AWD-P009", f"(c) seat {s.seat} criterion {name!r} = {fmt_vs(score, floor)} < "
                      f"floor {fmt_num(floor)}", s.path, s.line)
    res.weakest = weakest


def _condition_d(res: PanelResult, seats: list[Seat], adjudicated: dict[str, str]) -> None:
    """Evidence conflicts: open ones fail; an adjudication counts only after the outlier
    was re-dispatched once (seed §3)."""
    for c in res.conflicts:
        outcome = adjudicated.get(c.criterion)
        put = res.adjudication is not None and res.adjudication in (c.low_seat, c.high_seat)
        path = next((s.path for s in seats if s.seat == (c.outlier or c.low_seat)), "")
        if outcome and not put:
            _fail(res, "AWD-P011", f"(d) evidence conflict {c.describe()} — the memo records an "
                  f"adjudication ({outcome!r}) but the outlier seat was never re-dispatched with "
                  "the evidence question; re-dispatch it once first, adjudicate only if the "
                  "conflict persists", path, 0, **c.to_dict())
        elif outcome:
            c.adjudicated = outcome
            res.findings.append(Finding("AWD-P010", "info",
                                        f"evidence conflict {c.describe()} was adjudicated: "
                                        f"{outcome}", data=c.to_dict()))
        else:
            msg = f"(d) evidence conflict {c.describe()}"
            if res.adjudication:
                msg += (" — it persisted after adjudication; record the outcome in a "
                        "decision_memo (one re-dispatch is all the seed allows)")
            _fail(res, "AWD-P005", msg, path, 0, **c.to_dict())


def _conditions(res: PanelResult, tables: Tables, adjudicated: dict[str, str]) -> None:
    t = res.target
    assert t.threshold is not None and t.floor is not None
    seats = sorted(res.seats, key=lambda s: s.seat)
    _condition_a(res, seats)
    _condition_b(res, seats, t.threshold)
    _condition_c(res, seats, t.floor)
    res.conflicts = find_conflicts(seats, tables.limits["conflict_spread"])
    _condition_d(res, seats, adjudicated)


def find_conflicts(seats: Sequence[Seat], spread: float) -> list[Conflict]:
    """Shared criteria (in two or more seats) whose scores differ by more than `spread`."""
    names: list[str] = []
    for s in seats:
        for n in s.card.criteria:
            if n not in names:
                names.append(n)
    out = []
    for name in names:
        scored = [(s.card.criteria[name], s.seat) for s in seats if name in s.card.criteria]
        if len(scored) < 2:
            continue
        lo, hi = min(scored), max(scored)
        if hi[0] - lo[0] > spread + EPS:
            out.append(Conflict(name, lo[1], lo[0], hi[1], hi[0], _outlier(scored)))
    return out


def _outlier(scored: list[tuple[float, str]]) -> str | None:
    if len(scored) < 3:
        return None
    med = statistics.median(v for v, _ in scored)
    dist = sorted(((abs(v - med), seat) for v, seat in scored), reverse=True)
    if abs(dist[0][0] - dist[1][0]) <= EPS:
        return None
    return dist[0][1]


def _seat_line(s: Seat, threshold: float | None) -> str:
    c = s.card
    comp = fmt_vs(c.computed_total, threshold) if c.computed_total is not None else "?"
    decl = fmt_num(c.declared_total) if c.declared_total is not None else "?"
    return f"Seat {s.seat}: total {comp} (declared {decl}), implied {c.tier_token!r}  [{s.path}]"


def _evaluated_lines(res: PanelResult) -> list[str]:
    t, lines = res.target, []
    if res.min_total:
        lines.append(f"Minimum seat total: {fmt_vs(res.min_total[1], t.threshold)} (seat "
                     f"{res.min_total[0]})")
    if res.weakest:
        lines.append(f"Weakest criterion: {res.weakest[1]!r} = {fmt_num(res.weakest[2])} "
                     f"(seat {res.weakest[0]})")
    if not res.conflicts:
        return [*lines, "Evidence conflicts: none"]
    lines.append("Evidence conflicts (> 20 apart; adjudicate, never average):")
    lines += [f"  - {c.describe()}" + (f" [adjudicated: {c.adjudicated}]" if c.adjudicated
                                        else "") for c in res.conflicts]
    return lines


def render_panel(res: PanelResult) -> str:
    t = res.target
    lines = [f"Target: {t.name} (seat tiers >= {t.name}, minimum seat total >= "
             f"{fmt_num(t.threshold or 0)}, every criterion >= {fmt_num(t.floor or 0)})"]
    if res.round is not None:
        lines.append(f"Round: {res.round}" + (f" (adjudication: seat {res.adjudication} re-scored)"
                                              if res.adjudication else ""))
    lines += [_seat_line(s, t.threshold) for s in sorted(res.seats, key=lambda s: s.seat)]
    if res.evaluated:
        lines += _evaluated_lines(res)
    if res.passed:
        lines.append(f"RESULT: PASS — the panel places the work at or above {t.name}")
    else:
        lines.append("RESULT: FAIL")
        lines.extend(f"  - {m}" for m in res.failed)
    return "\n".join(lines)
