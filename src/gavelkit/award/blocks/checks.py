"""Small helpers shared by the block checks: a finding sink and value predicates."""

from __future__ import annotations

import math

from gavelkit.core.findings import Finding, Severity
from gavelkit.core.yamlload import Pos, PosDict, PosList

TYPE_CHECKING = False  # typing costs start-up time that agents pay on every call
if TYPE_CHECKING:
    from typing import Any


class Ctx:
    """Collects findings for one block; positions come from the PosDict/PosList nodes."""

    __slots__ = ("findings", "path")

    def __init__(self, path: str) -> None:
        self.path = path
        self.findings: list[Finding] = []

    def add(self, code: str, severity: Severity, message: str, pos: Pos,
            hint: str | None = None, **data: Any) -> None:
        self.findings.append(Finding(code, severity, message, self.path, pos[0], pos[1],
                                     hint=hint, data=data))

    def error(self, code: str, message: str, pos: Pos, hint: str | None = None, **data: Any) -> None:
        self.add(code, "error", message, pos, hint, **data)

    def warn(self, code: str, message: str, pos: Pos, hint: str | None = None, **data: Any) -> None:
        self.add(code, "warning", message, pos, hint, **data)

    def info(self, code: str, message: str, pos: Pos, hint: str | None = None, **data: Any) -> None:
        self.add(code, "info", message, pos, hint, **data)


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v: Any) -> bool:
    return (isinstance(v, int | float) and not isinstance(v, bool)
            and math.isfinite(float(v)))


def nonblank(v: Any) -> bool:
    return isinstance(v, str) and bool(v.strip())


def kpos(d: Any, key: Any) -> Pos:
    return d.kpos(key) if isinstance(d, PosDict) else getattr(d, "pos", (0, 0))


def vpos(d: Any, key: Any) -> Pos:
    return d.vpos(key) if isinstance(d, PosDict) else getattr(d, "pos", (0, 0))


def ipos(seq: Any, i: int) -> Pos:
    return seq.ipos(i) if isinstance(seq, PosList) else getattr(seq, "pos", (0, 0))


def describe(v: Any) -> str:
    """A short rendering of a YAML value for messages."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, dict):
        return "a mapping"
    if isinstance(v, list):
        return "a list"
    return str(v)


def fmt_num(x: float) -> str:
    """Numbers as people read them: no float noise, no misleading rounding."""
    if float(x).is_integer():
        return str(int(x))
    return f"{x:.4f}".rstrip("0").rstrip(".")


def fmt_vs(x: float, bar: float | None) -> str:
    """`x` with enough digits to read on the right side of `bar`: a true 84.99999 is never
    shown as 85 next to a threshold of 85 (the panel compares with a 1e-9 tolerance)."""
    text = fmt_num(x)
    if bar is None:
        return text
    passes = x >= bar - 1e-9
    for digits in range(5, 13):
        if (float(text) >= bar - 1e-9) == passes:
            break
        text = f"{x:.{digits}f}".rstrip("0").rstrip(".")
    return text


def require(ctx: Ctx, body: PosDict, required: list[str], code: str, kind: str) -> None:
    for key in required:
        if key not in body:
            ctx.error(code, f"{kind}: missing required key '{key}'", body.pos)


def lists(ctx: Ctx, body: PosDict, keys: list[str], code: str, kind: str) -> None:
    for key in keys:
        if key in body and not isinstance(body[key], list):
            ctx.error(code, f"{kind}: '{key}' must be a list, got {describe(body[key])}",
                      vpos(body, key))


def int_field(ctx: Ctx, body: PosDict, key: str, code: str, kind: str,
              lo: int | None = None, hi: int | None = None, range_code: str | None = None) -> int | None:
    if key not in body:
        return None
    v = body[key]
    if not is_int(v):
        ctx.error(code, f"{kind}: '{key}' must be an integer, got {describe(v)}", vpos(body, key))
        return None
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        span = f"{lo}-{hi}" if hi is not None else f">= {lo}"
        ctx.error(range_code or code, f"{kind}: '{key}' must be {span}, got {v}", vpos(body, key))
        return None
    return v


def enum_hint(value: Any, allowed: list[str]) -> str | None:
    if isinstance(value, str):
        folded = value.strip().casefold()
        for a in allowed:
            if a.casefold() == folded:
                return f"write '{a}' exactly (values are case-sensitive)"
    return None
