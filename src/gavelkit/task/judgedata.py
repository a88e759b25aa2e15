"""The judge's tables (data/judge/*.toml), parsed once per process.

Failure classes, capability dimensions, label thresholds, the saturation
heuristic and the tamper patterns are data so a team can read and adjust them;
a task folder's `gavel-judge.toml` overrides any table key by key.
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path
from typing import Any


@functools.cache
def table(name: str) -> dict[str, Any]:
    from gavelkit.data import path

    return tomllib.loads(path("judge", f"{name}.toml").read_text("utf-8"))


def for_task(name: str, task_dir: str | Path | None) -> dict[str, Any]:
    """The package table merged with `<task>/gavel-judge.toml` [name] when present."""
    base = table(name)
    if task_dir is None:
        return base
    local = Path(task_dir) / "gavel-judge.toml"
    if not local.is_file():
        return base
    from gavelkit.core.errors import InputError
    from gavelkit.core.textio import read_text
    from gavelkit.task.config import merge

    try:
        over = tomllib.loads(read_text(local, allow_empty=True)).get(name, {})
    except tomllib.TOMLDecodeError as exc:
        raise InputError(str(local), f"not valid TOML: {exc}") from None
    if not isinstance(over, dict):
        raise InputError(str(local), f"[{name}] should be a table, not {type(over).__name__}")
    return merge(base, over)
