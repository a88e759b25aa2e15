"""Checks of the critic's `gate:` block: verdict tied to severities, stable issue ids."""

from __future__ import annotations

import re

from gavelkit.award.blocks.checks import (
    Ctx,
    describe,
    enum_hint,
    int_field,
    ipos,
    lists,
    nonblank,
    require,
    vpos,
)
from gavelkit.award.tables import Tables
from gavelkit.core.yamlload import PosDict

TYPE_CHECKING = False  # typing costs start-up time that agents pay on every call
if TYPE_CHECKING:
    from typing import Any

K = "gate"


def check_gate(ctx: Ctx, body: PosDict, tables: Tables) -> None:
    spec = tables.blocks["gate"]
    lim = tables.limits
    require(ctx, body, spec["required"], "AWD-G001", K)
    lists(ctx, body, spec["lists"], "AWD-G002", K)
    phase = int_field(ctx, body, "phase", "AWD-G002", K, lim["phase_min"], lim["phase_max"],
                      "AWD-G003")
    int_field(ctx, body, "loop", "AWD-G002", K, 0, None, "AWD-G003")
    verdict = body.get("verdict")
    if "verdict" in body and verdict not in spec["verdict"]:
        ctx.error("AWD-G004", f"verdict must be pass|fail, got {describe(verdict)}",
                  vpos(body, "verdict"), hint=enum_hint(verdict, spec["verdict"]))
    issues = body.get("issues")
    if not isinstance(issues, list):
        return
    rx = re.compile(spec["id_pattern"])
    seen: dict[str, int] = {}
    blocking: list[str] = []
    for i, issue in enumerate(issues):
        where = ipos(issues, i)
        if not isinstance(issue, dict):
            ctx.error("AWD-G006", f"issues[{i}] must be a mapping, got {describe(issue)}", where)
            continue
        sev = issue.get("severity")
        if sev not in spec["severity"]:
            ctx.error("AWD-G007", f"issues[{i}] severity must be blocker|high|medium|low, got "
                      f"{describe(sev)}", vpos(issue, "severity") if "severity" in issue else where,
                      hint=enum_hint(sev, spec["severity"]))
        _issue_id(ctx, issue, i, where, rx, phase, seen)
        for key in spec["issue_keys"]:
            if not nonblank(issue.get(key)):
                ctx.error("AWD-G012", f"issues[{i}] needs a non-empty '{key}'",
                          vpos(issue, key) if key in issue else where)
        _fix_or_acceptance(ctx, issue, i, where, sev, spec)
        if sev in spec["open_blocking"]:
            blocking.append(str(issue.get("id") or f"issues[{i}]"))
    if verdict == "pass" and blocking:
        ctx.error("AWD-G005", f"verdict: pass with open blocker/high issue(s) {', '.join(blocking)}; "
                  "the seed requires fail on any unresolved blocker or high", vpos(body, "verdict"))
    elif verdict == "fail" and not issues:
        ctx.warn("AWD-G015", "verdict: fail with no issue listed; name the issue(s) so the next "
                 "loop can be matched by id", vpos(body, "verdict"))


def _issue_id(ctx: Ctx, issue: PosDict, i: int, where: tuple[int, int], rx: re.Pattern[str],
              phase: int | None, seen: dict[str, int]) -> None:
    iid = issue.get("id")
    if iid is not None and not isinstance(iid, str):
        ctx.error("AWD-G009", f"issues[{i}] id must be a string of the form G<phase>-<n>, got "
                  f"{describe(iid)}", vpos(issue, "id"),
                  hint=f"write 'G{phase}-{iid}'" if phase is not None and isinstance(iid, int)
                  else None)
        return
    if not nonblank(iid):
        ctx.error("AWD-G008", f"issues[{i}] has no stable id G<phase>-<n>; without it the lead "
                  "cannot match findings across loops", where)
        return
    m = rx.match(iid)
    if not m:
        hint = None
        fixed = re.sub(r"^[gG]0*(\d+)[_\-.]0*(\d+)$", r"G\1-\2", iid.strip())
        if rx.match(fixed):
            zeros = re.search(r"(?<!\d)0\d", iid) is not None
            hint = f"write {fixed!r}" + (" (no leading zeros: ids are matched as written "
                                         "across loops)" if zeros else "")
        ctx.error("AWD-G009", f"issues[{i}] id {iid!r} is not of the form G<phase>-<n>",
                  vpos(issue, "id"), hint=hint)
    elif phase is not None and int(m.group(1)) != phase:
        ctx.error("AWD-G010", f"issues[{i}] id {iid!r} names phase {m.group(1)} in a phase-{phase} "
                  "gate", vpos(issue, "id"))
    if iid in seen:
        ctx.error("AWD-G011", f"issues[{i}] repeats id {iid!r} of issues[{seen[iid]}]",
                  vpos(issue, "id"))
    else:
        seen[iid] = i


_PLACEHOLDER_TEXT = re.compile(r"^\W*(tbd|tba|todo|fixme|n/?a|none|nil|null|later|pending|"
                               r"see above|xxx+|\?+|-+|\.+|…)?\W*$|^<[^>]*>$", re.IGNORECASE)


def _placeholder(text: Any) -> bool:
    """'TBD', 'n/a', '-', '<rationale>': a placeholder is not a rationale."""
    return isinstance(text, str) and bool(_PLACEHOLDER_TEXT.match(text.strip()))


def _no_reason(text: str, spec: dict[str, Any]) -> bool:
    """'accepted', 'ok', 'risk accepted by the lead': consent, not a reason why."""
    skip = set(spec["not_rationale_words"])
    words = [w for w in re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?|\d+", text.casefold())
             if w not in skip]
    cjk = re.sub(r"[^\u3400-\u9fff]", "", text)  # 中文: count characters, not words
    return len(words) < spec["rationale_min_words"] and len(cjk) < 4


def _acceptance(issue: PosDict, keys: list[str]) -> tuple[str | None, Any]:
    for k in keys:
        if k in issue:
            return k, issue[k]
    return None, None


def _fix_or_acceptance(ctx: Ctx, issue: PosDict, i: int, where: tuple[int, int], sev: Any,
                       spec: dict[str, Any]) -> None:
    keys = spec["acceptance_keys"]
    key, acc = _acceptance(issue, keys)
    has_fix = nonblank(issue.get("required_fix"))
    rationale = acc if isinstance(acc, str) else (acc.get("rationale") if isinstance(acc, dict) else None)
    if key is not None and sev in spec["open_blocking"]:
        ctx.error("AWD-G014", f"issues[{i}] is {sev}: it must be fixed, not risk-accepted",
                  vpos(issue, key))
        return
    if key is not None and (not nonblank(rationale) or _placeholder(rationale)
                            or _no_reason(rationale, spec)):
        got = f", got {describe(rationale)}" if nonblank(rationale) else ""
        ctx.error("AWD-G013", f"issues[{i}] '{key}' needs a rationale (why the risk is "
                  f"acceptable){got}", vpos(issue, key))
        return
    if not has_fix and key is None:
        if sev == "medium":
            msg = (f"issues[{i}] is medium: give a 'required_fix' (the fix plan) or a "
                   "rationale-backed 'risk_acceptance'")
        else:
            msg = f"issues[{i}] needs a non-empty 'required_fix'"
        ctx.error("AWD-G013", msg, vpos(issue, "required_fix") if "required_fix" in issue else where)
