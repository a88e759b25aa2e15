"""The judge's tables (data/judge/*.toml), parsed once per process.

Failure classes, capability dimensions, label thresholds, the saturation heuristic and
the tamper patterns are data so a team can read and adjust them. A task's configuration
(task/config.py: `--config`, gavel-task.toml `[tables.NAME]`, the older gavel-judge.toml)
overrides any key, type-checked when it is read; `for_task` merges the two.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gavelkit.task.config import judge_table as table
from gavelkit.task.config import load_config, merge


def for_task(name: str, task: Any) -> dict[str, Any]:
    """The package table merged with the task's overrides. `task` is a loaded Task (its
    configuration, with the command's --config), or a task folder (its own files only)."""
    if task is None:
        return table(name)
    cfg = getattr(task, "config", None)
    if not isinstance(cfg, dict):
        cfg = load_config(task if isinstance(task, str | Path) else task.dir)
    over = (cfg.get("tables") or {}).get(name)
    if not over:
        return table(name)
    return merge(table(name), over)
