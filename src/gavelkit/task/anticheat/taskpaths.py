"""Classify the paths a task record names: the agent's own, forbidden, or unknown.

Why: a task.json often records the agent's own workspace (`scoring.solution_dir`)
next to the source checkout and the oracle worktree. Forbidding every recorded
path made every honest edit a CHEAT. The key that holds a path says what it is;
the table is data (`gavelkit/data/anticheat_task_paths.toml`, documented there).
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

OWN, FORBIDDEN, NOT_PATH, UNKNOWN = "own", "forbidden", "not_path", "unknown"
_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|git@)", re.I)
MAX_DEPTH = 64


@dataclass(frozen=True, slots=True)
class RecordedPath:
    key: str        # dotted key path in the record, e.g. "scoring.oracle_worktree"
    value: str      # the path as written
    kind: str       # own | forbidden | unknown


@lru_cache(maxsize=1)
def key_table() -> dict[str, tuple[str, ...]]:
    text = resources.files("gavelkit.data").joinpath("anticheat_task_paths.toml").read_text(
        encoding="utf-8")
    data = tomllib.loads(text)
    return {kind: tuple(k.lower() for k in data.get(kind, {}).get("keys", []))
            for kind in (NOT_PATH + "s", OWN, FORBIDDEN)}


def classify_key(key: str) -> str | None:
    """own | forbidden | not_path for a key the table names, else None."""
    low = key.lower()
    table = key_table()
    for kind, name in ((NOT_PATH + "s", NOT_PATH), (OWN, OWN), (FORBIDDEN, FORBIDDEN)):
        if any(fnmatch.fnmatchcase(low, pat) for pat in table[kind]):
            return name
    return None


def looks_like_path(val: str) -> bool:
    s = val.strip()
    return (3 <= len(s) <= 4096 and "\n" not in s and "::" not in s and " " not in s
            and not _URL.match(s) and ("/" in s or "\\" in s))


def recorded_paths(record: Any, skipped: list[str] | None = None) -> list[RecordedPath]:
    """Every path-like string in the record with the class its nearest named key gives.

    A value nested deeper than MAX_DEPTH is not walked; its key path is appended to
    `skipped` so the caller can report it (a forbidden path may hide there).
    """
    out: list[RecordedPath] = []

    def walk(obj: Any, keys: tuple[str, ...], depth: int) -> None:
        if depth > MAX_DEPTH:
            if skipped is not None and isinstance(obj, dict | list | str):
                skipped.append(".".join(keys) or "(top)")
            return
        if isinstance(obj, dict):
            for k, v in obj.items():
                walk(v, (*keys, str(k)), depth + 1)
        elif isinstance(obj, list):
            for v in obj:
                walk(v, keys, depth + 1)
        elif isinstance(obj, str) and looks_like_path(obj):
            kind = UNKNOWN
            for k in reversed(keys):
                c = classify_key(k)
                if c is not None:
                    kind = c
                    break
            if kind != NOT_PATH:
                out.append(RecordedPath(".".join(keys) or "(top)", obj.strip(), kind))

    walk(record, (), 0)
    return out
