"""Paths recorded in task and run files, which were often written on another machine.

Real score files carry `G:\\research\\...\\solution` (Windows) beside POSIX paths.
On POSIX `Path("G:\\x").is_absolute()` is False, so a naive reader joins such a
path onto the run folder and looks for `run/G:\\research...`: a folder that can
never exist, reported as if the run had lost its files. A recorded path is one
of three kinds, and only a local relative one is joined onto a base.
"""

from __future__ import annotations

import re
from pathlib import Path, PureWindowsPath
from typing import Literal

_WINDOWS_ABS = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\[^\\/]+[\\/])")

Kind = Literal["relative", "absolute", "foreign"]


def kind(value: str) -> Kind:
    """'foreign': absolute on another OS (a Windows drive or UNC path here), never joined."""
    if _WINDOWS_ABS.match(value):
        return "absolute" if Path(value).is_absolute() else "foreign"
    return "absolute" if Path(value).is_absolute() else "relative"


def resolve(value: str, base: Path) -> Path | None:
    """The local path a recorded value names, or None for a path of another machine."""
    k = kind(value)
    if k == "foreign":
        return None
    p = Path(value)
    return p if k == "absolute" else (base / p)


def tail(value: str, parts: int = 2) -> str:
    """The last `parts` components of a recorded path of any OS (for messages)."""
    pw = PureWindowsPath(value) if kind(value) == "foreign" else Path(value)
    return "/".join(pw.parts[-parts:])
