"""Checks of the lead's `decision_memo:` block, written when a budget runs out."""

from __future__ import annotations

import re
from collections.abc import Iterable

from gavelkit.award.blocks.checks import (
    Ctx,
    describe,
    int_field,
    ipos,
    is_int,
    nonblank,
    require,
    vpos,
)
from gavelkit.award.tables import Tables, open_blocking
from gavelkit.core.yamlload import PosDict

TYPE_CHECKING = False  # typing costs start-up time that agents pay on every call
if TYPE_CHECKING:
    from typing import Any

K = "decision_memo"
# The human decisions that answer a STOP (read by award.runs.decisions). After the last
# panel round only accept_risk, change_scope and stop can be carried out (seed §4).
CHOICES = ("rework", "accept_risk", "change_scope", "stop")


def check_memo(ctx: Ctx, body: PosDict, tables: Tables) -> None:
    lim = tables.limits
    require(ctx, body, tables.blocks["decision_memo"]["required"], "AWD-M001", K)
    int_field(ctx, body, "phase", "AWD-M002", K, lim["phase_min"], lim["phase_max"], "AWD-M003")
    if "budget_spent" in body:
        _budget_spent(ctx, body)
    _unresolved(ctx, body, tables)
    _options(ctx, body, lim["options_min"], lim["options_max"])
    _adjudications(ctx, body)
    _decision(ctx, body, tables)
    _no_accept_with_high(ctx, body)


def _budget_spent(ctx: Ctx, body: PosDict) -> None:
    bs = body["budget_spent"]
    where = vpos(body, "budget_spent")
    if not isinstance(bs, dict):
        ctx.error("AWD-M004", f"budget_spent must be {{loops: int, cap: int}}, got {describe(bs)}",
                  where)
        return
    bad = [k for k in ("loops", "cap") if not is_int(bs.get(k)) or bs[k] < 0]
    for k in bad:
        ctx.error("AWD-M004", f"budget_spent.{k} must be a non-negative integer, got "
                  f"{describe(bs.get(k))}", vpos(bs, k) if k in bs else where)
    if bad:
        return
    if bs["cap"] == 0:
        ctx.error("AWD-M004", "budget_spent.cap must be at least 1", vpos(bs, "cap"))
    elif bs["loops"] > bs["cap"]:
        ctx.error("AWD-M005", f"budget_spent shows {bs['loops']} loops against a cap of "
                  f"{bs['cap']}: the run went past its budget instead of stopping",
                  vpos(bs, "loops"))


def _unresolved(ctx: Ctx, body: PosDict, tables: Tables) -> None:
    unresolved = body.get("unresolved")
    if "unresolved" in body and not isinstance(unresolved, list):
        ctx.error("AWD-M002", f"'unresolved' must be a list, got {describe(unresolved)}",
                  vpos(body, "unresolved"))
        return
    sev = tables.blocks["gate"]["severity"]
    for i, item in enumerate(unresolved if isinstance(unresolved, list) else []):
        if not isinstance(item, dict) or item.get("severity") not in sev:
            got = item.get("severity") if isinstance(item, dict) else item
            ctx.error("AWD-M006", f"unresolved[{i}] must carry a severity "
                      f"(blocker|high|medium|low), got {describe(got)}", ipos(unresolved, i))


_ACCEPTING = re.compile(r"\b(accept\w*|advance\w*|submit\w*|proceed\w*|ship\w*|move on)\b",
                        re.IGNORECASE)
_REWORKING = re.compile(r"\b(rework\w*|fix\w*|re-?do|redo\w*|route\w* (it |the phase )?back)\b",
                        re.IGNORECASE)


def _no_accept_with_high(ctx: Ctx, body: PosDict) -> None:
    """Seed §2: advancing past an open blocker or high is the human's call, made knowingly.

    A memo exists so that a human decides at an exhausted budget, and "submit at the
    current level" with the conflict open can be the right call after the last round. So
    a recommended option that accepts or advances is a warning unless its consequence
    names every open blocker/high (gavel's own draft never recommends it)."""
    unresolved = body.get("unresolved")
    opts = body.get("options")
    if not isinstance(unresolved, list) or not isinstance(opts, list):
        return
    worst = _open_worst(unresolved)
    if not worst:
        return
    for i, o in enumerate(opts):
        if not _recommends_accepting(o):
            continue
        unnamed = [w for w in worst if w not in str(o.get("consequence") or "")]
        if unnamed:
            ctx.warn("AWD-M011", f"options[{i}] is recommended and accepts the risk or advances "
                     f"while blocker/high {', '.join(worst)} remain unresolved; its consequence "
                     f"must name what stays open ({', '.join(unnamed)} not named)",
                     ipos(opts, i), hint="write e.g. `consequence: submits with "
                     f"{', '.join(worst)} open; ...` so the human decides knowingly")


def _open_worst(unresolved: list[Any]) -> list[str]:
    """The ids (or summaries) of the unresolved blocker and high issues."""
    return [str(u.get("id") or u.get("summary") or "?") for u in unresolved
            if isinstance(u, dict) and u.get("severity") in open_blocking()]


def _recommends_accepting(o: Any) -> bool:
    if not isinstance(o, dict) or o.get("recommended") is not True:
        return False
    text = str(o.get("option") or "")
    return bool(_ACCEPTING.search(text)) and not _REWORKING.search(text)


def _adjudications(ctx: Ctx, body: PosDict) -> None:
    key = "adjudications" if "adjudications" in body else "adjudication"
    if key not in body:
        return
    items = body[key]
    if isinstance(items, dict):
        items = [items]
    if not isinstance(items, list):
        ctx.error("AWD-M010", f"'{key}' must be a list of {{criterion, outcome}}, got "
                  f"{describe(items)}", vpos(body, key))
        return
    for i, it in enumerate(items):
        where = ipos(items, i) if isinstance(body[key], list) else vpos(body, key)
        _adjudication(ctx, key, i, it, where)


def _adjudication(ctx: Ctx, key: str, i: int, it: Any, where: Any) -> None:
    if not isinstance(it, dict):
        ctx.error("AWD-M010", f"{key}[{i}] must be a mapping {{criterion, outcome}}, got "
                  f"{describe(it)}", where)
        return
    for k in ("criterion", "outcome"):
        if not nonblank(it.get(k)):
            ctx.error("AWD-M010", f"{key}[{i}] needs a non-empty '{k}' (the lead's recorded "
                      f"adjudication), got {describe(it.get(k))}",
                      vpos(it, k) if k in it else where)


def _decision(ctx: Ctx, body: PosDict, tables: Tables) -> None:
    if "decision" in body:
        dec = body["decision"]
        if not isinstance(dec, dict):
            ctx.error("AWD-M012", f"decision must be {{choice: {'|'.join(CHOICES)}, by, "
                      f"rationale}}, got {describe(dec)}", vpos(body, "decision"))
        else:
            _decision_fields(ctx, body, dec, tables)
    if "stopped_at" in body:
        st = body["stopped_at"]
        ok = (isinstance(st, dict) and is_int(st.get("phase"))
              and (is_int(st.get("loop")) or is_int(st.get("round"))))
        if not ok:
            ctx.error("AWD-M012", "stopped_at must be {phase, loop} or {phase: 7, round}, got "
                      f"{describe(st)}", vpos(body, "stopped_at"))


def _decision_fields(ctx: Ctx, body: PosDict, dec: Any, tables: Tables) -> None:
    where = vpos(body, "decision")
    choice = dec.get("choice")
    if choice not in CHOICES:
        ctx.error("AWD-M012", f"decision.choice must be {'|'.join(CHOICES)}, got "
                  f"{describe(choice)}", vpos(dec, "choice") if "choice" in dec else where)
    for k, what in (("by", "who decided (a human)"), ("rationale", "why")):
        if not nonblank(dec.get(k)):
            ctx.error("AWD-M012", f"decision needs a non-empty '{k}' ({what})",
                      vpos(dec, k) if k in dec else where)
    if "target" in dec:
        _decision_target(ctx, dec, tables)
    _no_rework_after_last_round(ctx, body, dec, choice, tables)


def _decision_target(ctx: Ctx, dec: Any, tables: Tables) -> None:
    from gavelkit.award.blocks.variant import target_of

    if not isinstance(dec["target"], str) or target_of(dec["target"], tables) is None:
        ctx.error("AWD-M012", f"decision.target {describe(dec['target'])} names no target "
                  "tier (outstanding, finalist, meritorious or an alias)", vpos(dec, "target"))


def _no_rework_after_last_round(ctx: Ctx, body: PosDict, dec: Any, choice: Any,
                                tables: Tables) -> None:
    st = body.get("stopped_at")
    last = tables.limits["round_max"]
    if (choice == "rework" and isinstance(st, dict) and is_int(st.get("round"))
            and st["round"] >= last):
        ctx.error("AWD-M013", f"decision rework at panel round {st['round']}: all {last} panel "
                  "rounds are used and no re-score is left (seed §4); choose accept_risk, "
                  "change_scope (with the new `target:`) or stop", vpos(dec, "choice"))


def adjudications(blocks: Iterable[Any], phase: int | None = 7) -> dict[str, str]:
    """criterion -> recorded outcome, from memo blocks' `adjudications: [{criterion, outcome}]`.

    Shared by `aggregate --memo` and `status`, so both clear a conflict on the same record.
    Only memos of the panel phase count (`phase=None`: any memo).
    """
    out: dict[str, str] = {}
    for b in blocks:
        if phase is not None and b.body.get("phase") != phase:
            continue
        for it in _adjudication_items(b.body):
            if isinstance(it, dict) and isinstance(it.get("criterion"), str) and it.get("outcome"):
                out[it["criterion"]] = str(it["outcome"])
    return out


def _adjudication_items(body: Any) -> list[Any]:
    items = body.get("adjudications") or body.get("adjudication") or []
    items = [items] if isinstance(items, dict) else items
    return items if isinstance(items, list) else []


def foreign_adjudications(blocks: Iterable[Any], phase: int = 7) -> list[Any]:
    """Memo blocks of another phase that carry adjudications (they are not read)."""
    return [b for b in blocks if b.body.get("phase") != phase
            and (b.body.get("adjudications") or b.body.get("adjudication"))]


def _options(ctx: Ctx, body: PosDict, lo: int, hi: int) -> None:
    if "options" not in body:
        return
    opts = body["options"]
    where = vpos(body, "options")
    if not isinstance(opts, list):
        ctx.error("AWD-M002", f"'options' must be a list, got {describe(opts)}", where)
        return
    if not lo <= len(opts) <= hi:
        ctx.error("AWD-M007", f"options must offer {lo}-{hi} choices, got {len(opts)}", where)
    recommended = sum(_option(ctx, opts, i) for i in range(len(opts)))
    if opts and recommended != 1:
        ctx.error("AWD-M009", f"exactly one option must be recommended: true, got {recommended}",
                  where)


def _option(ctx: Ctx, opts: list[Any], i: int) -> int:
    """Check one option; 1 when it is the recommended one."""
    o, ip = opts[i], ipos(opts, i)
    if not isinstance(o, dict):
        ctx.error("AWD-M008", f"options[{i}] must be a mapping {{option, consequence, "
                  f"recommended}}, got {describe(o)}", ip)
        return 0
    for k in ("option", "consequence"):
        if not nonblank(o.get(k)):
            ctx.error("AWD-M008", f"options[{i}] needs a non-empty '{k}'", ip)
    rec = o.get("recommended")
    if not isinstance(rec, bool):
        ctx.error("AWD-M008", f"options[{i}] 'recommended' must be true or false, got "
                  f"{describe(rec)}", vpos(o, "recommended") if "recommended" in o else ip)
        return 0
    return 1 if rec else 0
