"""What is forbidden, as data: places (path patterns) and command rules, loaded from
`gavelkit/data/anticheat_rules.toml`, a task's own rules file and `--rules FILE`."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from gavelkit.core.errors import InputError

CLEAN, CHEAT, UNVERIFIABLE = "CLEAN", "CHEAT_DETECTED", "UNVERIFIABLE"
MAX_DOC = int(os.environ.get("GAVEL_SCAN_MAX_DOC", str(512 * 1024 * 1024)))
TASK_ALLOW = ("spec.md", "spec_v*.md", "README*", "LICENSE*", ".*")
LISTERS = {"ls", "find", "tree", "du", "stat", "file", "dir", "exa", "eza", "fd", "fdfind",
           "locate", "realpath", "readlink", "test", "[", "basename", "dirname", "lsattr", "ll"}
NOOP = {"cd", "pushd", "popd", "echo", "printf", "true", "false", "export", "set", "unset",
        "which", "type", "alias", "exit", "return", "sleep", "wait", "read", "pwd", "clear",
        "source", ".", "local", "declare", "shift", "trap", "kill", "jobs", "hash", "history"}
WRAPPERS = {"sudo", "env", "timeout", "nohup", "time", "nice", "exec", "command", "stdbuf",
            "unbuffer", "ionice", "chronic", "caffeinate", "builtin", "doas", "strace", "ltrace"}
KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "in",
            "case", "esac", "{", "}", "!", "function", "select", "[[", "]]"}
SHELLS = {"bash", "sh", "zsh", "dash", "ksh", "fish", "ash", "busybox"}
WRITERS = {"rm", "touch", "mkdir", "chmod", "chown", "truncate", "tee", "rmdir", "unlink",
           "shred", "mv"}
COPIERS = {"cp", "rsync", "scp", "ln", "install"}
PATTERN_FIRST = {"grep", "egrep", "fgrep", "rg", "ag", "ack", "zgrep", "sed", "awk", "gawk",
                 "jq", "yq", "perl"}
_URL = re.compile(r"(?:https?://|git@|ssh://|git://|git\+https?://)[^\s'\"<>]+", re.I)
_SHA = re.compile(r"^[0-9a-f]{7,40}(?:[~^]\d*)*(?::.*)?$")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_GLOBCH = re.compile(r"[*?\[]")
_PROBE_PY = re.compile(r"__file__|__path__|getsourcefile|getsource|getfile|find_spec|"
                       r"spec_from|importlib\.metadata|importlib_metadata|distribution\(|"
                       r"pkg_resources|site\.getsitepackages|sysconfig\.get_path")


# --------------------------------------------------------------------------- rules


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
    generic: bool = True            # exempt inside the agent's own workspace
    enabled: bool = True


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
    pattern: re.Pattern[str] | None = None
    anchors: list[str] = field(default_factory=list)
    enabled: bool = True


def _strs(spec: dict[str, Any], key: str, src: str) -> list[str]:
    val = spec.get(key, [])
    if not isinstance(val, list) or not all(isinstance(x, str) for x in val):
        raise InputError(src, f"rule {spec.get('id')!r}: {key} must be a list of strings")
    return val


def load_rules(extra: Sequence[str | os.PathLike[str]] = ()) -> tuple[list[Place], list[CommandRule]]:
    """Built-in rules, then each extra TOML file (same id replaces, new id adds)."""
    tables: list[tuple[str, dict[str, Any]]] = [(
        "anticheat_rules.toml",
        tomllib.loads(resources.files("gavelkit.data").joinpath("anticheat_rules.toml")
                      .read_text(encoding="utf-8")))]
    for path in extra:
        from gavelkit.core.textio import read_text

        text = read_text(path)
        try:
            tables.append((str(path), tomllib.loads(text)))
        except tomllib.TOMLDecodeError as exc:
            raise InputError(str(path), f"not valid TOML: {exc}", code="CHT-U005") from None
    places: dict[str, Place] = {}
    commands: dict[str, CommandRule] = {}
    for src, table in tables:
        for spec in table.get("place", []):
            if not isinstance(spec, dict) or not isinstance(spec.get("id"), str):
                raise InputError(src, "every [[place]] needs an id")
            old = places.get(spec["id"])
            code = spec.get("code", old.code if old else "CHT-R007")
            places[spec["id"]] = Place(
                id=spec["id"], code=code, what=str(spec.get("what", old.what if old else spec["id"])),
                severity=str(spec.get("severity", old.severity if old else "error")),
                components=_strs(spec, "component", src) or (old.components if old else []),
                sequences=[list(s) for s in spec.get("sequence", old.sequences if old else [])],
                names=_strs(spec, "name", src) or (old.names if old else []),
                prefixes=_strs(spec, "prefix", src) or (old.prefixes if old else []),
                generic=bool(spec.get("generic", True)),
                enabled=bool(spec.get("enabled", True)))
        for spec in table.get("command", []):
            if not isinstance(spec, dict) or not isinstance(spec.get("id"), str):
                raise InputError(src, "every [[command]] needs an id")
            kind = spec.get("kind", "argv")
            if kind not in ("install", "fetch", "git", "probe", "argv"):
                raise InputError(src, f"rule {spec['id']!r}: unknown kind {kind!r}")
            pat = None
            if kind == "argv":
                try:
                    pat = re.compile(str(spec.get("pattern", "")))
                except re.error as exc:
                    raise InputError(src, f"rule {spec['id']!r}: bad pattern: {exc}") from None
            commands[spec["id"]] = CommandRule(
                id=spec["id"], code=str(spec.get("code", "CHT-X001")), kind=kind,
                what=str(spec.get("what", spec["id"])), severity=str(spec.get("severity", "error")),
                programs=_strs(spec, "programs", src), verbs=_strs(spec, "verbs", src),
                flag_verbs=_strs(spec, "flag_verbs", src), flags=_strs(spec, "flags", src),
                sha_verbs=_strs(spec, "sha_verbs", src), pattern=pat,
                anchors=_strs(spec, "anchors", src),
                enabled=bool(spec.get("enabled", True)))
    for rule_list in (places.values(), commands.values()):
        for r in rule_list:
            if r.severity not in ("error", "warning", "info"):
                raise InputError("rules", f"rule {r.id!r}: severity must be error|warning|info")
    return ([p for p in places.values() if p.enabled], [c for c in commands.values() if c.enabled])


@dataclass(slots=True)
class Hit:
    code: str
    severity: str
    message: str
    target: str
    access: str       # read | list | write | command | output
