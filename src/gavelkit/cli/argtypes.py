"""argparse types for numbers, dates and paths, so a bad value is a usage error (exit 2).

`float("nan")` and `float("-1")` parse fine, and a timeout of NaN or 0 silently
turns every test into an "infrastructure" failure; a free-text date with a `|`
breaks the History table. Each type here refuses such values with the option's
own name in the message (argparse adds it).
"""

from __future__ import annotations

import argparse
import math
import re

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return v


def positive_float(text: str) -> float:
    """A finite number > 0 (timeouts: 0 would fail every test as "infrastructure")."""
    v = _float(text)
    if v <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be greater than 0")
    return v


def unit_float(text: str) -> float:
    """A finite number in [0, 1] (rates, thresholds)."""
    v = _float(text)
    if not 0 <= v <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 0 and 1")
    return v


def _int(text: str, least: int) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if v < least:
        raise argparse.ArgumentTypeError(f"{text!r} must be {least} or more")
    return v


def positive_int(text: str) -> int:
    """A whole number >= 1 (counts, pages, jobs, dpi)."""
    return _int(text, 1)


def iso_date(text: str) -> str:
    """YYYY-MM-DD and a real calendar day (the History table and renames rely on it)."""
    if not _DATE.match(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a date as YYYY-MM-DD")
    import datetime as _dt

    try:
        _dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a calendar date") from None
    return text


def abs_path(text: str) -> str:
    """A path made absolute at the command line, before any change of directory."""
    from gavelkit.core.safeio import resolve_arg

    return str(resolve_arg(text)) if text else text




def task_config(text: str):  # type: ignore[no-untyped-def]
    """`--config FILE` of the task pack: read and type-checked once, here (a bad file is
    exit 2 naming it, before any work), then passed down as a task.config.ConfigFile."""
    from gavelkit.task.config import read_config_file

    return read_config_file(abs_path(text))
