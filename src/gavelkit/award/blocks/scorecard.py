"""Checks of a judge seat's `scorecard:` block: numbers recomputed, rubric and blindness enforced."""

from __future__ import annotations

import math

from gavelkit.award.blocks.checks import (
    Ctx,
    describe,
    enum_hint,
    fmt_num,
    ipos,
    is_int,
    is_number,
    lists,
    nonblank,
    require,
    vpos,
)
from gavelkit.award.tables import Tables, Tier
from gavelkit.core.yamlload import PosDict

TYPE_CHECKING = False  # typing costs start-up time that agents pay on every call
if TYPE_CHECKING:
    from typing import Any

K = "scorecard"
EPS = 1e-9


class Card:
    """What aggregation needs from one valid-enough card."""

    __slots__ = ("computed_total", "contest", "criteria", "declared_total", "round", "seat",
                 "tier", "tier_token")

    def __init__(self, seat: str | None, round: int | None, contest: str | None,
                 criteria: dict[str, float] | None = None, computed_total: float | None = None,
                 declared_total: float | None = None, tier: Tier | None = None,
                 tier_token: Any = None) -> None:
        self.seat = seat
        self.round = round
        self.contest = contest
        self.criteria = criteria if criteria is not None else {}
        self.computed_total = computed_total
        self.declared_total = declared_total
        self.tier = tier
        self.tier_token = tier_token


def check_scorecard(ctx: Ctx, body: PosDict, tables: Tables) -> Card:
    spec = tables.blocks["scorecard"]
    lim = tables.limits
    require(ctx, body, spec["required"], "AWD-S001", K)
    lists(ctx, body, spec["lists"], "AWD-S002", K)
    card = Card(None, None, None)
    for key in ("contest", "fix_one_thing"):
        if key in body and not nonblank(body[key]):
            ctx.error("AWD-S002", f"scorecard: '{key}' must be a non-empty string, got "
                      f"{describe(body[key])}", vpos(body, key))
    if nonblank(body.get("contest")):
        card.contest = body["contest"].strip()
    seat = body.get("seat")
    if "seat" in body:
        if seat in spec["seats"]:
            card.seat = seat
        else:
            ctx.error("AWD-S003", f"seat must be A|B|C, got {describe(seat)}", vpos(body, "seat"),
                      hint=enum_hint(seat, spec["seats"]))
    rnd = body.get("round")
    if "round" in body:
        if is_int(rnd) and lim["round_min"] <= rnd <= lim["round_max"]:
            card.round = rnd
        else:
            ctx.error("AWD-S004", f"round must be an integer {lim['round_min']}-{lim['round_max']} "
                      f"(round 1 plus at most two re-scores), got {describe(rnd)}", vpos(body, "round"))
    if "target_tier" in body:
        ctx.error("AWD-S013", "scorecard carries target_tier: judge seats are blind to the target "
                  "(the lead supplies it only at aggregation)", body.kpos("target_tier"))
    _criteria(ctx, body, card, tables)
    _total_and_tier(ctx, body, card, tables)
    return card


def _criterion_name(ctx: Ctx, c: PosDict, i: int, where: Any,
                    first: dict[str, int]) -> tuple[str | None, bool]:
    """The criterion's name (None if blank) and whether it is usable (not repeated)."""
    name = c.get("name")
    if not nonblank(name):
        ctx.error("AWD-S005", f"criteria[{i}] needs a non-empty 'name'", where)
        return None, False
    if name in first:
        ctx.error("AWD-S016", f"criteria[{i}] repeats criterion {name!r} of criteria"
                  f"[{first[name]}]; a seat scores each criterion once", vpos(c, "name"))
        return name, False
    first[name] = i
    return name, True


def _criterion(ctx: Ctx, crit: list[Any], i: int, first: dict[str, int],
               card: Card) -> tuple[float, float] | None:
    """(weight, score) of one criterion, or None when it is unusable (said why)."""
    c, where = crit[i], ipos(crit, i)
    if not isinstance(c, dict):
        ctx.error("AWD-S005", f"criteria[{i}] must be a mapping {{name, weight, score}}, got "
                  f"{describe(c)}", where)
        return None
    name, ok = _criterion_name(ctx, c, i, where, first)
    w, s = c.get("weight"), c.get("score")
    w_ok = is_number(w) and 0 <= w <= 1
    s_ok = is_number(s) and 0 <= s <= 100
    if not w_ok:
        ctx.error("AWD-S006", f"criteria[{i}] weight must be a number within 0-1, got "
                  f"{describe(w)}", vpos(c, "weight") if "weight" in c else where)
    if not s_ok:
        ctx.error("AWD-S007", f"criteria[{i}] score must be a number within 0-100, got "
                  f"{describe(s)}", vpos(c, "score") if "score" in c else where)
    if not (w_ok and s_ok):
        return None
    if name is not None and name not in card.criteria:
        card.criteria[name] = float(s)
    return (float(w), float(s)) if ok else None


def _criteria(ctx: Ctx, body: PosDict, card: Card, tables: Tables) -> None:
    crit = body.get("criteria")
    if "criteria" not in body:
        return
    if not isinstance(crit, list) or not crit:
        ctx.error("AWD-S005", f"criteria must be a non-empty list, got {describe(crit)}",
                  vpos(body, "criteria"))
        return
    weights: list[float] = []
    products: list[float] = []
    complete = True
    first: dict[str, int] = {}
    for i in range(len(crit)):
        got = _criterion(ctx, crit, i, first, card)
        if got is None:
            complete = False
        else:
            weights.append(got[0])
            products.append(got[0] * got[1])
    if not complete:
        return
    wsum = math.fsum(weights)
    tol = tables.limits["weight_sum_tolerance"]
    if abs(wsum - 1.0) > tol + EPS:
        ctx.error("AWD-S008", f"criteria weights sum to {fmt_num(wsum)}, not 1.0 (tolerance "
                  f"±{fmt_num(tol)})", vpos(body, "criteria"))
        return
    card.computed_total = math.fsum(products)
    _rubric(ctx, body, crit, card, tables)


def _case_fixes(missing: list[str], extra: list[Any]) -> list[str]:
    folded = {str(n).strip().casefold(): n for n in extra}
    return [f"{folded[m.casefold()]!r} -> {m!r}" for m in missing if m.casefold() in folded]


def _rubric_names(ctx: Ctx, body: PosDict, crit: list[Any], card: Card,
                  rubric: dict[str, float]) -> None:
    """The card's criteria are exactly its seat's rubric, with a hint for case slips."""
    names = {c.get("name") for c in crit if isinstance(c, dict)}
    missing = [n for n in rubric if n not in names]
    extra = [n for n in names if n not in rubric]
    if not (missing or extra):
        return
    parts = ["missing " + ", ".join(missing)] if missing else []
    if extra:
        parts.append("not in the rubric " + ", ".join(sorted(map(str, extra))))
    fixes = _case_fixes(missing, extra)
    ctx.error("AWD-S014", f"seat {card.seat} criteria do not match its rubric "
              f"({'; '.join(parts)}); expected {', '.join(rubric)}", vpos(body, "criteria"),
              hint="criterion names are exact: " + "; ".join(fixes) if fixes else None)


def _rubric(ctx: Ctx, body: PosDict, crit: list[Any], card: Card, tables: Tables) -> None:
    if card.seat is None or card.seat not in tables.seats:
        return
    rubric = tables.seats[card.seat].criteria
    _rubric_names(ctx, body, crit, card, rubric)
    tol = tables.limits["weight_sum_tolerance"] + EPS
    for i, c in enumerate(crit):
        if not (isinstance(c, dict) and c.get("name") in rubric and is_number(c.get("weight"))):
            continue
        want = rubric[c["name"]]
        if abs(float(c["weight"]) - want) > tol:
            ctx.error("AWD-S015", f"criteria[{i}] {c['name']!r} weight {fmt_num(c['weight'])} "
                      f"differs from seat {card.seat}'s rubric weight {fmt_num(want)}",
                      vpos(c, "weight"))


def _declared_total(ctx: Ctx, body: PosDict, card: Card, tables: Tables) -> None:
    """weighted_total is a number in 0-100 that matches Σ weight·score within tolerance."""
    wt = body.get("weighted_total")
    if "weighted_total" in body:
        if is_number(wt) and 0 <= wt <= 100:
            card.declared_total = float(wt)
        else:
            ctx.error("AWD-S017", f"weighted_total must be a number within 0-100, got "
                      f"{describe(wt)}", vpos(body, "weighted_total"))
    comp, decl = card.computed_total, card.declared_total
    tol = tables.limits["total_tolerance"]
    if comp is None or decl is None or abs(decl - comp) <= tol + EPS:
        return
    ctx.error("AWD-S009", f"weighted_total {fmt_num(decl)} differs from "
              f"Σ weight·score = {fmt_num(comp)} by {fmt_num(abs(decl - comp))} "
              f"(tolerance {fmt_num(tol)})", vpos(body, "weighted_total"),
              declared=decl, computed=comp)


def _total_and_tier(ctx: Ctx, body: PosDict, card: Card, tables: Tables) -> None:
    _declared_total(ctx, body, card, tables)
    if "implied_tier" not in body:
        return
    token = body["implied_tier"]
    card.tier_token = token
    tier = tables.tier_of(token)
    if tier is None:
        hint = tables.hint_tier(token)
        ctx.error("AWD-S010", f"implied_tier {describe(token)} is not a known tier token",
                  vpos(body, "implied_tier"),
                  hint=f"write {hint!r} exactly" if hint else
                  "use outstanding|finalist|meritorious|below or a documented alias")
        return
    card.tier = tier
    if card.computed_total is not None:
        _tier_in_band(ctx, body, card, tier, tables)


def _bands(comp: float, decl: float | None, tables: Tables) -> list[Any]:
    """The tier band of the recomputed total, and of the declared one when it is within
    the tolerance: a card declaring 84.9 on a true 85.0 may read either band."""
    bands = [tables.band(comp)]
    tol = tables.limits["total_tolerance"]
    if decl is not None and abs(decl - comp) <= tol + EPS and tables.band(decl) is not bands[0]:
        bands.append(tables.band(decl))
    return bands


def _tier_in_band(ctx: Ctx, body: PosDict, card: Card, tier: Any, tables: Tables) -> None:
    """A seat may go below its total's band (with a justification), never above it."""
    comp, decl, token = card.computed_total or 0.0, card.declared_total, card.tier_token
    bands = _bands(comp, decl, tables)
    hi = max(bands, key=lambda t: t.rank)
    lo = min(bands, key=lambda t: t.rank)
    which = (f"the recomputed total {fmt_num(comp)}" if len(bands) == 1 else
             f"the declared {fmt_num(decl or 0)} and recomputed {fmt_num(comp)} totals")
    if tier.rank > hi.rank:
        ctx.error("AWD-S011", f"implied_tier {token!r} is above the band of {which} "
                  f"({hi.name}); a seat may go below its band, never above",
                  vpos(body, "implied_tier"))
    elif tier.rank < lo.rank and not nonblank(body.get("tier_justification")):
        ctx.error("AWD-S012", f"implied_tier {token!r} is below the band of {which} "
                  f"({'/'.join(b.name for b in bands)}) without a tier_justification",
                  vpos(body, "implied_tier"), hint="add tier_justification: <why>")
