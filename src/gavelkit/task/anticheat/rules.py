"""Load the anti-cheat rules: forbidden places and forbidden commands, as data.

Built-in table `gavelkit/data/anticheat_rules.toml` (its header documents every
field), then a task's own `anticheat_rules.toml`, then `--rules FILE`: the same
`id` replaces a rule, a new id adds one. Every place remembers where it came from
so the scan report can say which forbidden places it used and why.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from gavelkit.core.errors import InputError

BUILTIN = "built-in rules"
KINDS = ("install", "fetch", "git", "probe", "argv")


@dataclass(slots=True)
class Place:
    id: str
    code: str
    what: str
    severity: str = "error"
    components: list[str] = field(default_factory=list)
    sequences: list[list[str]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    prefixes: list[str] = field(default_factory=list)
    workspace_names: list[str] = field(default_factory=list)  # apply inside the workspace too
    generic: bool = True            # exempt inside the agent's own (inferred) workspace
    enabled: bool = True
    source: str = BUILTIN
    origins: dict[str, str] = field(default_factory=dict)    # prefix -> where it came from


@dataclass(slots=True)
class CommandRule:
    id: str
    code: str
    kind: str
    what: str
    severity: str = "error"
    programs: list[str] = field(default_factory=list)
    verbs: list[str] = field(default_factory=list)
    flag_verbs: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    sha_verbs: list[str] = field(default_factory=list)
    verbless: list[str] = field(default_factory=list)   # install: programs without a verb
    pattern: re.Pattern[str] | None = None
    anchors: list[str] = field(default_factory=list)
    enabled: bool = True
    source: str = BUILTIN


def _strs(spec: dict[str, Any], key: str, src: str) -> list[str]:
    val = spec.get(key, [])
    if not isinstance(val, list) or not all(isinstance(x, str) for x in val):
        raise InputError(src, f"rule {spec.get('id')!r}: {key} must be a list of strings")
    return val


def _seqs(spec: dict[str, Any], src: str, old: list[list[str]]) -> list[list[str]]:
    val = spec.get("sequence")
    if val is None:
        return old
    if not isinstance(val, list) or not all(
            isinstance(s, list) and all(isinstance(x, str) for x in s) for s in val):
        raise InputError(src, f"rule {spec.get('id')!r}: sequence must be a list of lists "
                              "of strings")
    return [list(s) for s in val]


def _tables(extra: Sequence[str | os.PathLike[str]]) -> list[tuple[str, dict[str, Any]]]:
    tables: list[tuple[str, dict[str, Any]]] = [(
        BUILTIN, tomllib.loads(resources.files("gavelkit.data").joinpath("anticheat_rules.toml")
                               .read_text(encoding="utf-8")))]
    for path in extra:
        from gavelkit.core.textio import read_text

        text = read_text(path)
        try:
            tables.append((str(path), tomllib.loads(text)))
        except tomllib.TOMLDecodeError as exc:
            raise InputError(str(path), f"not valid TOML: {exc}", code="CHT-U005") from None
    return tables


def _place(spec: dict[str, Any], src: str, old: Place | None) -> Place:
    def keep(key: str, default: list[str]) -> list[str]:
        return _strs(spec, key, src) or default

    return Place(
        id=spec["id"], code=str(spec.get("code", old.code if old else "CHT-R007")),
        what=str(spec.get("what", old.what if old else spec["id"])),
        severity=str(spec.get("severity", old.severity if old else "error")),
        components=keep("component", old.components if old else []),
        sequences=_seqs(spec, src, old.sequences if old else []),
        names=keep("name", old.names if old else []),
        prefixes=keep("prefix", old.prefixes if old else []),
        workspace_names=keep("workspace_name", old.workspace_names if old else []),
        generic=bool(spec.get("generic", True)), enabled=bool(spec.get("enabled", True)),
        source=src)


def _command(spec: dict[str, Any], src: str) -> CommandRule:
    kind = spec.get("kind", "argv")
    if kind not in KINDS:
        raise InputError(src, f"rule {spec['id']!r}: unknown kind {kind!r}")
    pat = None
    if kind == "argv":
        try:
            pat = re.compile(str(spec.get("pattern", "")))
        except re.error as exc:
            raise InputError(src, f"rule {spec['id']!r}: bad pattern: {exc}") from None
    return CommandRule(
        id=spec["id"], code=str(spec.get("code", "CHT-X001")), kind=kind,
        what=str(spec.get("what", spec["id"])), severity=str(spec.get("severity", "error")),
        programs=_strs(spec, "programs", src), verbs=_strs(spec, "verbs", src),
        flag_verbs=_strs(spec, "flag_verbs", src), flags=_strs(spec, "flags", src),
        sha_verbs=_strs(spec, "sha_verbs", src), verbless=_strs(spec, "verbless", src),
        pattern=pat,
        anchors=_strs(spec, "anchors", src), enabled=bool(spec.get("enabled", True)),
        source=src)


def load_rules(extra: Sequence[str | os.PathLike[str]] = ()) -> tuple[list[Place],
                                                                       list[CommandRule]]:
    """Built-in rules, then each extra TOML file (same id replaces, new id adds)."""
    places: dict[str, Place] = {}
    commands: dict[str, CommandRule] = {}
    for src, table in _tables(extra):
        for key in ("place", "command"):
            specs = table.get(key, [])
            if not isinstance(specs, list):
                raise InputError(src, f"[[{key}]] must be an array of tables")
            for spec in specs:
                if not isinstance(spec, dict) or not isinstance(spec.get("id"), str):
                    raise InputError(src, f"every [[{key}]] needs an id")
                if key == "place":
                    places[spec["id"]] = _place(spec, src, places.get(spec["id"]))
                else:
                    commands[spec["id"]] = _command(spec, src)
    for rule_list in (places.values(), commands.values()):
        for r in rule_list:
            if r.severity not in ("error", "warning", "info"):
                raise InputError(r.source, f"rule {r.id!r}: severity must be error|warning|info")
    return ([p for p in places.values() if p.enabled],
            [c for c in commands.values() if c.enabled])
