"""Task-pack tables (data/task_config.toml), overridable per task or per call.

Order of precedence: `--config FILE` > `<task>/gavel-task.toml` > package
defaults. Tables merge key by key; a list or scalar in an override replaces
the default, so a team can set `[gate_e] min_atomic = 30` and keep the rest.
"""

from __future__ import annotations

import copy
import functools
import os
import tomllib
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.textio import read_text
from gavelkit.data import path as data_path  # not importlib.resources: zipfile at start-up

TASK_CONFIG_NAME = "gavel-task.toml"


@functools.cache
def _defaults() -> dict[str, Any]:
    text = data_path("task_config.toml").read_text("utf-8")
    return tomllib.loads(text)


@functools.cache
def state_table() -> dict[str, Any]:
    text = data_path("task_states.toml").read_text("utf-8")
    return tomllib.loads(text)


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _load_file(path: Path) -> dict[str, Any]:
    """An override file, each value of the kind its default has (else exit 2, naming it)."""
    from gavelkit.core.typecheck import check_like

    text = read_text(path, allow_empty=True)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(str(path), f"config is not valid TOML: {exc}", code="GK-IO001") from None
    check_like(_defaults(), data, str(path))
    return data


def load_config(task_dir: str | Path | None = None, config: str | Path | None = None) -> dict[str, Any]:
    """Defaults merged with the task folder's gavel-task.toml and an explicit file."""
    cfg = _defaults()
    if task_dir is not None:
        local = Path(task_dir) / TASK_CONFIG_NAME
        if os.path.lexists(local):
            cfg = merge(cfg, _load_file(local))
    if config is not None:
        cfg = merge(cfg, _load_file(Path(config)))
    return cfg


def fold(value: str) -> str:
    """Compare form of enum-like values: lower case, '-' and ' ' as '_'."""
    return value.strip().strip("`").lower().replace("-", "_").replace(" ", "_")


def is_generated_only(source: str | None, cfg: dict[str, Any]) -> bool:
    if not source:
        return False
    return fold(source) in {fold(v) for v in cfg["spotcheck"]["generated_only"]}
