"""Check an override table (config, rules) against the defaults it overrides.

A `--config` that sets `min_atomic = "x"` or `min_positive_share = nan`, or
replaces a whole table with a number, used to be merged silently and then
either crashed a gate or made it pass everything. The defaults say what each
key holds, so an override must hold the same kind of value: a number where a
number was (never NaN or infinite, never negative where the default is a
count or a share), text where text was, a table where a table was, a list
where a list was. Keys the defaults do not know are left to the caller.
"""

from __future__ import annotations

import math

from gavelkit.core.errors import InputError

TYPE_CHECKING = False  # typing costs start-up time that agents pay on every call
if TYPE_CHECKING:
    from typing import Any


def _kind(v: Any) -> str:
    if isinstance(v, bool):
        return "true/false"
    if isinstance(v, int | float):
        return "number"
    if isinstance(v, str):
        return "text"
    if isinstance(v, dict):
        return "table"
    if isinstance(v, list):
        return "list"
    return type(v).__name__


def check_like(default: Any, over: Any, path: str, where: str = "") -> None:
    """Raise InputError (exit 2) at the first value whose kind differs from the default's."""
    name = where or "(top level)"
    if isinstance(over, float) and not math.isfinite(over):
        raise InputError(path, f"{name} = {over}: not a finite number")
    if default is None:
        return
    dk = _same_kind(default, over, path, name)
    if dk == "number":
        _check_number(default, over, path, name)
    elif dk in ("table", "list"):
        _check_items(default, over, path, where)


def _check_items(default: Any, over: Any, path: str, where: str) -> None:
    """A table's keys against the default's; a list's items against its first item (a table
    item admits any keys: list items of tables are records, not settings)."""
    if isinstance(over, dict):
        for k, v in over.items():
            check_like(default.get(k), v, path, f"{where}.{k}" if where else str(k))
    elif default:
        sample = default[0] if _kind(default[0]) != "table" else {}
        for i, item in enumerate(over):
            check_like(sample, item, path, f"{where or '(top level)'}[{i}]")


def _same_kind(default: Any, over: Any, path: str, name: str) -> str:
    """The kind both values share, or InputError naming both."""
    dk, ok = _kind(default), _kind(over)
    if dk != ok:
        raise InputError(path, f"{name} should be a {dk} (like the default {_show(default)}), "
                         f"not a {ok} ({_show(over)})")
    return dk


def _check_number(default: float, over: float, path: str, name: str) -> None:
    """A whole-number default wants a whole number; a non-negative one, no negatives."""
    if isinstance(default, int) and not isinstance(default, bool) \
            and isinstance(over, float) and not over.is_integer():
        raise InputError(path, f"{name} should be a whole number, not {over}")
    if default >= 0 and over < 0:
        raise InputError(path, f"{name} = {over}: must not be negative")


def _show(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."
