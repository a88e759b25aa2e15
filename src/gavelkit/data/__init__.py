"""Data tables shipped with gavelkit; `path()` locates them without importlib.resources.

importlib.resources pulls in zipfile and friends (tens of ms at start-up); the package
is always installed as plain files, so a path relative to this module is enough. `file()`
gives a plain string, so the linters' start-up path needs no pathlib.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

HERE = os.path.dirname(os.path.realpath(__file__))


def file(*parts: str) -> str:
    return os.path.join(HERE, *parts)


def path(*parts: str) -> Path:
    from pathlib import Path

    return Path(HERE).joinpath(*parts)


def __getattr__(name: str) -> Path:
    """`data.ROOT`, the folder as a Path, made on first use (PEP 562)."""
    if name == "ROOT":
        from pathlib import Path

        return Path(HERE)
    raise AttributeError(name)
