"""Project configuration: an optional `gavel.toml` that overrides data tables.

Looked up from `--config`, then $GAVEL_CONFIG, then `gavel.toml` in the current
folder or its parents. Only read when a command needs an overridable table.
"""

from __future__ import annotations

import functools
import os

from gavelkit.core.errors import InputError
from gavelkit.core.textio import read_text

TYPE_CHECKING = False  # typing costs start-up time that agents pay on every call
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

CONFIG_NAME = "gavel.toml"


def find_config(start: Path | None = None) -> Path | None:
    """GAVEL_CONFIG, else gavel.toml in `start` (default: the working folder) or a parent.

    Walked with os.path: pathlib is imported only when a config is found (start-up time)."""
    env = os.environ.get("GAVEL_CONFIG")
    if env:
        from pathlib import Path

        return Path(env)
    here = os.path.realpath(os.fspath(start) if start is not None else os.getcwd())
    while True:
        candidate = os.path.join(here, CONFIG_NAME)
        if os.path.isfile(candidate):
            from pathlib import Path

            return Path(candidate)
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


@functools.cache
def load_config(path: str | None = None) -> dict[str, Any]:
    """The parsed config (empty when there is none); a broken one is InputError."""
    p = path if path else find_config()
    return read_toml(p) if p is not None else {}


def read_toml(path: str | Path) -> dict[str, Any]:
    """A configuration file of either pack (gavel.toml, gavel-task.toml, a --config file):
    read safely, parsed, or InputError GK-IO006 naming it (never silently the defaults)."""
    import tomllib  # only when a config exists: keeps it off the common start-up path

    text = read_text(path, allow_empty=True)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(str(path), f"TOML error: {exc}", code="GK-IO006") from None


def section(config: dict[str, Any], *keys: str) -> dict[str, Any]:
    node: Any = config
    for k in keys:
        node = node.get(k, {}) if isinstance(node, dict) else {}
    return node if isinstance(node, dict) else {}
