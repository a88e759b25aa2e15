"""Checks of the lead's `variant:` block (contest adapter, limits, policies).

The variant names the contest and its local labels but must not restate the panel's
numeric thresholds: those live only in the award-gates skill (thresholds_ref).
"""

from __future__ import annotations

import re
from datetime import date, datetime

from gavelkit.award.blocks.checks import Ctx, describe, ipos, is_int, lists, nonblank, require, vpos
from gavelkit.award.tables import Tables
from gavelkit.core.yamlload import PosDict

TYPE_CHECKING = False  # typing costs start-up time that agents pay on every call
if TYPE_CHECKING:
    from typing import Any

K = "variant"
THRESHOLDS_REF = "mathodology-award-gates"
_TZ = re.compile(r"(Z|UTC|GMT|[+-]\d{2}:?\d{2}|\b[A-Z]{2,5}T\b|\b[A-Z][a-z]+/[A-Za-z_]+)")
_TIME = re.compile(r"\b\d{1,2}:\d{2}\b")
_NUMBERY = re.compile(r"(?<![\d.])(?:[5-9]\d|100)(?:\.\d+)?(?![\d.])")
_THRESHOLD_WORDS = re.compile(r"threshold|floor|total\s*(?:>=|≥)|(?:>=|≥)\s*\d|门槛|分数线|总分",
                              re.IGNORECASE)


def check_variant(ctx: Ctx, body: PosDict, tables: Tables) -> int | None:
    """Validate a variant block; returns limits.pages when it is valid."""
    spec = tables.blocks["variant"]
    require(ctx, body, spec["required"], "AWD-V001", K)
    lists(ctx, body, spec["lists"], "AWD-V002", K)
    for key in ("contest", "target_tier", "adapter", "official_rules_source", "language"):
        if key in body and not nonblank(body[key]):
            ctx.error("AWD-V002", f"variant: '{key}' must be a non-empty string, got "
                      f"{describe(body[key])}", vpos(body, key))
    if "thresholds_ref" in body and body["thresholds_ref"] != THRESHOLDS_REF:
        ctx.error("AWD-V004", f"thresholds_ref must be {THRESHOLDS_REF!r} (numbers are not "
                  f"restated here), got {describe(body['thresholds_ref'])}", vpos(body, "thresholds_ref"))
    if nonblank(body.get("target_tier")) and not is_placeholder(body["target_tier"]) \
            and target_of(body["target_tier"], tables) is None:
        ctx.error("AWD-V008", f"target_tier {body['target_tier']!r} names no known tier",
                  vpos(body, "target_tier"),
                  hint="use outstanding|finalist|meritorious or an alias such as O-Prize, 国一, "
                  "一等奖, 国一边缘, 国二 (labels may be joined by '/')")
    pages = _limits(ctx, body)
    if "deadline" in body:
        _deadline(ctx, body)
    _no_thresholds(ctx, body, "variant")
    _placeholders(ctx, body, "variant", body.pos)
    return pages


_PLACEHOLDER = re.compile(r"<[^<>\n]{3,}>")


def is_placeholder(text: str) -> bool:
    return bool(_PLACEHOLDER.search(text))


def target_of(label: str, tables: Tables) -> Any:
    """The target Tier a variant's target_tier label names ('Outstanding / O-Prize'), or None
    (one rule with --target: `Tables.target`)."""
    from gavelkit.core.errors import UsageError

    try:
        return tables.target(label)
    except UsageError:
        return None


def _placeholders(ctx: Ctx, node: Any, where: str, pos: tuple[int, int]) -> None:
    """Template text such as '<contest name>' left in place means the variant was not filled."""
    if isinstance(node, dict):
        for k, v in node.items():
            vp = node.vpos(k) if isinstance(node, PosDict) else pos
            _placeholders(ctx, v, f"{where}.{k}", vp)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _placeholders(ctx, v, f"{where}[{i}]", ipos(node, i))
    elif isinstance(node, str) and is_placeholder(node):
        ctx.error("AWD-V007", f"{where} still holds the template placeholder {node!r}", pos)


def _limits(ctx: Ctx, body: PosDict) -> int | None:
    if "limits" not in body:
        return None
    lim = body["limits"]
    if not isinstance(lim, dict):
        ctx.error("AWD-V003", f"limits must be a mapping {{pages, files, size}}, got {describe(lim)}",
                  vpos(body, "limits"))
        return None
    if "pages" not in lim:
        ctx.error("AWD-V003", "limits.pages is missing (it sets pdfqa --max-pages)", vpos(body, "limits"))
        return None
    pages = lim["pages"]
    if not is_int(pages) or pages <= 0:
        ctx.error("AWD-V003", f"limits.pages must be a positive integer, got {describe(pages)}",
                  vpos(lim, "pages"))
        return None
    return int(pages)


def _deadline(ctx: Ctx, body: PosDict) -> None:
    d = body["deadline"]
    if isinstance(d, datetime):
        if d.tzinfo is None:
            ctx.warn("AWD-V005", "deadline has no time zone", vpos(body, "deadline"),
                     hint="e.g. 2026-02-02T20:00:00-05:00 or '2026-02-02 20:00 EST'")
        return
    if isinstance(d, date) or (isinstance(d, str) and not _TZ.search(d)):
        missing = ("no time zone" if isinstance(d, str) and _TIME.search(d)
                   else "no time and time zone")
        ctx.warn("AWD-V005", f"deadline {describe(str(d))} has {missing}",
                 vpos(body, "deadline"), hint="e.g. '2026-02-02 20:00 EST'")
    elif not isinstance(d, str):
        ctx.error("AWD-V002", f"deadline must be a date and time zone, got {describe(d)}",
                  vpos(body, "deadline"))


def _no_thresholds(ctx: Ctx, node: Any, where: str, pos: tuple[int, int] = (0, 0)) -> None:
    if isinstance(node, dict):
        for k, v in node.items():
            kl = str(k).lower()
            kp = node.kpos(k) if isinstance(node, PosDict) else pos
            if kl != "thresholds_ref" and ("threshold" in kl or "floor" in kl):
                ctx.error("AWD-V006", f"{where}.{k}: the variant restates a threshold; numbers "
                          "live only in the award-gates skill", kp)
            else:
                vp = node.vpos(k) if isinstance(node, PosDict) else pos
                _no_thresholds(ctx, v, f"{where}.{k}", vp)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _no_thresholds(ctx, v, f"{where}[{i}]", ipos(node, i))
    elif isinstance(node, str) and _NUMBERY.search(node) and _THRESHOLD_WORDS.search(node):
        ctx.error("AWD-V006", f"{where}: {node!r} restates a panel threshold; refer to "
                  f"{THRESHOLDS_REF} instead", pos)
