"""The task pack's one configuration: data/task_config.toml and the judge's tables.

Order of precedence, the same in every `gavel task` command: `--config FILE` >
`<task>/gavel-task.toml` (> the older `<task>/gavel-judge.toml`) > package defaults.
Tables merge key by key; a list or scalar in an override replaces the default, so a team
can set `[gate_e] min_atomic = 30` and keep the rest. The judge's tables
(data/judge/NAME.toml: failure classes, dimensions, labels, Gate B, ...) are overridden
under `[tables.NAME]` (in gavel-judge.toml: `[NAME]`). Every override is type-checked
against its default when it is read: a `--config` file once, at the command line
(`read_config_file`), so a bad one is exit 2 before any work starts.
"""

from __future__ import annotations

import copy
import functools
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.data import path as data_path  # not importlib.resources: zipfile at start-up

TASK_CONFIG_NAME = "gavel-task.toml"
JUDGE_CONFIG_NAME = "gavel-judge.toml"  # older per-task file: judge tables only, as [NAME]
JUDGE_TABLES = ("dimensions", "failure_classes", "gate_b", "labels", "pytest_options", "report",
                "tamper_patterns")


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """A `--config FILE`, read and type-checked once, then passed down to every task."""

    path: str
    data: Mapping[str, Any]


@functools.cache
def _defaults() -> dict[str, Any]:
    text = data_path("task_config.toml").read_text("utf-8")
    return tomllib.loads(text)


@functools.cache
def judge_table(name: str) -> dict[str, Any]:
    """A judge table's package default (data/judge/NAME.toml), parsed once."""
    return tomllib.loads(data_path("judge", f"{name}.toml").read_text("utf-8"))


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


def _toml(path: Path) -> dict[str, Any]:
    from gavelkit.core.config import read_toml

    return read_toml(path)


def _checked(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """Each value of the kind its default has, tables named (else exit 2, naming it)."""
    from gavelkit.core.typecheck import check_like

    tables = data.get("tables", {})
    if not isinstance(tables, dict):
        raise InputError(str(path), f"tables should be a table, not {type(tables).__name__}")
    for name, over in tables.items():
        if name not in JUDGE_TABLES:
            raise InputError(str(path), f"[tables.{name}]: no such judge table (one of "
                             f"{', '.join(JUDGE_TABLES)})")
        if not isinstance(over, dict):
            raise InputError(str(path), f"[tables.{name}] should be a table, not "
                             f"{type(over).__name__}")
        check_like(judge_table(name), over, str(path), f"tables.{name}")
    check_like(_defaults(), {k: v for k, v in data.items() if k != "tables"}, str(path))
    return data


def read_config_file(path: str | Path) -> ConfigFile:
    """A `--config FILE` (gavel-task.toml's format), read and checked: InputError when bad."""
    p = Path(path)
    return ConfigFile(str(p), _checked(_toml(p), p))


def _local(task_dir: Path) -> list[dict[str, Any]]:
    """The task folder's own overrides, oldest first."""
    out = []
    judge = task_dir / JUDGE_CONFIG_NAME
    if judge.is_file():
        out.append(_checked({"tables": _toml(judge)}, judge))
    local = task_dir / TASK_CONFIG_NAME
    if os.path.lexists(local):
        out.append(_checked(_toml(local), local))
    return out


def load_config(task_dir: str | Path | None = None,
                config: ConfigFile | str | Path | None = None) -> dict[str, Any]:
    """Defaults merged with the task folder's own files and the `--config` file."""
    cfg = _defaults()
    for over in _local(Path(task_dir)) if task_dir is not None else []:
        cfg = merge(cfg, over)
    if config is not None:
        cf = config if isinstance(config, ConfigFile) else read_config_file(config)
        cfg = merge(cfg, dict(cf.data))
    return cfg


def fold(value: str) -> str:
    """Compare form of enum-like values: lower case, '-' and ' ' as '_'."""
    return value.strip().strip("`").lower().replace("-", "_").replace(" ", "_")


def is_generated_only(source: str | None, cfg: dict[str, Any]) -> bool:
    if not source:
        return False
    return fold(source) in {fold(v) for v in cfg["spotcheck"]["generated_only"]}
