"""Checks of the lead's `decision_memo:` block, written when a budget runs out."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

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
from gavelkit.award.tables import Tables
from gavelkit.core.yamlload import PosDict

K = "decision_memo"


def check_memo(ctx: Ctx, body: PosDict, tables: Tables) -> None:
    lim = tables.limits
    require(ctx, body, tables.blocks["decision_memo"]["required"], "AWD-M001", K)
    int_field(ctx, body, "phase", "AWD-M002", K, lim["phase_min"], lim["phase_max"], "AWD-M003")
    if "budget_spent" in body:
        bs = body["budget_spent"]
        where = vpos(body, "budget_spent")
        if not isinstance(bs, dict):
            ctx.error("AWD-M004", f"budget_spent must be {{loops: int, cap: int}}, got {describe(bs)}",
                      where)
        else:
            ok = True
            for k in ("loops", "cap"):
                if not is_int(bs.get(k)) or bs[k] < 0:
                    ctx.error("AWD-M004", f"budget_spent.{k} must be a non-negative integer, got "
                              f"{describe(bs.get(k))}", vpos(bs, k) if k in bs else where)
                    ok = False
            if ok and bs["cap"] == 0:
                ctx.error("AWD-M004", "budget_spent.cap must be at least 1", vpos(bs, "cap"))
            elif ok and bs["loops"] > bs["cap"]:
                ctx.error("AWD-M005", f"budget_spent shows {bs['loops']} loops against a cap of "
                          f"{bs['cap']}: the run went past its budget instead of stopping",
                          vpos(bs, "loops"))
    unresolved = body.get("unresolved")
    if "unresolved" in body and not isinstance(unresolved, list):
        ctx.error("AWD-M002", f"'unresolved' must be a list, got {describe(unresolved)}",
                  vpos(body, "unresolved"))
    elif isinstance(unresolved, list):
        sev = tables.blocks["gate"]["severity"]
        for i, item in enumerate(unresolved):
            if not isinstance(item, dict) or item.get("severity") not in sev:
                got = item.get("severity") if isinstance(item, dict) else item
                ctx.error("AWD-M006", f"unresolved[{i}] must carry a severity "
                          f"(blocker|high|medium|low), got {describe(got)}", ipos(unresolved, i))
    _options(ctx, body, lim["options_min"], lim["options_max"])


def adjudications(blocks: Iterable[Any]) -> dict[str, str]:
    """criterion -> recorded outcome, from memo blocks' `adjudications: [{criterion, outcome}]`.

    Shared by `aggregate --memo` and `status`, so both clear a conflict on the same record.
    """
    out: dict[str, str] = {}
    for b in blocks:
        items = b.body.get("adjudications") or b.body.get("adjudication") or []
        items = [items] if isinstance(items, dict) else items
        for it in items if isinstance(items, list) else []:
            if isinstance(it, dict) and isinstance(it.get("criterion"), str) and it.get("outcome"):
                out[it["criterion"]] = str(it["outcome"])
    return out


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
    recommended = 0
    for i, o in enumerate(opts):
        ip = ipos(opts, i)
        if not isinstance(o, dict):
            ctx.error("AWD-M008", f"options[{i}] must be a mapping {{option, consequence, "
                      f"recommended}}, got {describe(o)}", ip)
            continue
        for k in ("option", "consequence"):
            if not nonblank(o.get(k)):
                ctx.error("AWD-M008", f"options[{i}] needs a non-empty '{k}'", ip)
        rec = o.get("recommended")
        if not isinstance(rec, bool):
            ctx.error("AWD-M008", f"options[{i}] 'recommended' must be true or false, got "
                      f"{describe(rec)}", vpos(o, "recommended") if "recommended" in o else ip)
        elif rec:
            recommended += 1
    if opts and recommended != 1:
        ctx.error("AWD-M009", f"exactly one option must be recommended: true, got {recommended}",
                  where)
