"""Data tables shipped with gavelkit; `path()` locates them without importlib.resources.

importlib.resources pulls in zipfile and friends (tens of ms at start-up); the package
is always installed as plain files, so a path relative to this module is enough.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent


def path(*parts: str) -> Path:
    return ROOT.joinpath(*parts)
