"""Honest counts: the fraction and the rate say which tests they are about.

"89/90 passed (100.0%)" left the skipped test out of the rate but not of the fraction,
silently. Every place that prints a score uses `count_line`, which states the skip rule:
"89/90 passed; 1 skipped; 100.0 % of non-skipped".
"""

from __future__ import annotations

from typing import Any


def pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{100 * rate:.1f} %"


def count_line(summary: dict[str, Any] | None, rate: float | None = None) -> str:
    """`P/T passed; S skipped; R % of non-skipped` (the rate recomputed when not given)."""
    s = summary or {}
    passed, total, skipped = int(s.get("passed") or 0), int(s.get("total") or 0), \
        int(s.get("skipped") or 0)
    denom = total - skipped
    if rate is None and denom > 0:
        rate = passed / denom
    head = f"{passed}/{total} passed"
    if skipped:
        head += f"; {skipped} skipped"
    if denom <= 0:
        return head + "; nothing scored (0 non-skipped tests: no rate)"
    return head + f"; {pct(rate)} of {'non-skipped' if skipped else 'all'}"
