"""Which version of the spec standard a task was written to (the standard is data).

Bmk-dev's spec standard changed while tasks were being written: ten sections
(2026-06-30), then Invocation Protocol and an Environment section whose
template promised "any third-party packages on PyPI" (2026-07-13), then the
six-layer SPEC_STANDARD with hard phrasing rules (2026-07-23). Judging a
July-13 task by July-23 rules buries the one real message ("this task predates
the current standard") under dozens of errors, so the gates apply the version the
task records (task.json `spec_standard`, the map header, a `spec_standard:` line
in the spec's meta) and summarise the current one in a line. A task that
records none is judged by the current standard: what a spec lacks never
moves it to an older one.

    std, why = detect(spec, cfg, task)   # Standard, "recorded in task.json spec_standard ..."
    std.is_current, std.phrasing_rules, std.environment, std.signatures
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from gavelkit.data import path as data_path  # not importlib.resources: zipfile at start-up
from gavelkit.task.formats.spec import Spec, norm_heading


@dataclass(frozen=True, slots=True)
class Standard:
    id: str
    title: str
    source: str
    profile: str  # "legacy" (a required-section list) | "six_layer" (SPEC_STANDARD layers)
    phrasing_rules: bool
    environment: str  # "none" | "pypi_template" | "quality_gate"
    signatures: str  # "allowed" | "api_catalog_only"
    markers: tuple[str, ...] = ()
    required: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    is_current: bool = False

    def label(self) -> str:
        return f"{self.id} ({self.title})"


@functools.cache
def standards() -> tuple[Standard, ...]:
    """Every version, oldest first (data/task_standards.toml)."""
    text = data_path("task_standards.toml").read_text("utf-8")
    data = tomllib.loads(text)
    cur = data["current"]
    return tuple(Standard(e["id"], e["title"], e["source"], e["profile"], bool(e["phrasing_rules"]),
                          e["environment"], e["signatures"], tuple(e.get("markers", [])),
                          tuple(e.get("required", [])), e["id"] == cur)
                 for e in data["standard"])


def current() -> Standard:
    return next(s for s in standards() if s.is_current)


def by_id(std_id: str) -> Standard | None:
    return next((s for s in standards() if s.id == std_id), None)


# where a task records the standard it was written to, in the order they are read
TASK_JSON_KEYS = ("spec_standard", "standard")
MAP_HEADER_KEYS = ("spec_standard", "standard")
_SPEC_META = re.compile(r"^\s*(?:[-*]\s*)?\**(?:spec[ _]standard|standard)\**\s*[:=]\s*(?P<val>\S.*?)\s*$",
                        re.I)


def _match(value: str) -> Standard | None:
    """The standard a recorded value names: its id anywhere in the text ("SPEC_STANDARD 2026-07-23")."""
    hits = [s for s in standards() if s.id in value]
    return max(hits, key=lambda s: len(s.id)) if hits else None


def _spec_meta(spec: Spec) -> tuple[str, int] | None:
    """`spec_standard: X` in the spec's own meta: the INTERNAL comment header or a Meta line."""
    for i, line in enumerate(spec.lines, 1):
        m = _SPEC_META.match(line)
        if m:
            return m.group("val").strip("`*\"' "), i
    return None


def recorded(spec: Spec | None, task: Any = None) -> tuple[str, str] | None:
    """(value, where) of the standard the task records: task.json, then the map header, then the spec."""
    tj = getattr(task, "task_json", None)
    if tj is not None:
        for k in TASK_JSON_KEYS:
            v = tj.data.get(k)
            if isinstance(v, str) and v.strip():
                return v.strip(), f"task.json {k}"
    stm = getattr(task, "map", None)
    if stm is not None:
        for k in MAP_HEADER_KEYS:
            v = stm.get(k)
            if v:
                return v, f"spec_test_map.md header {k}"
    if spec is not None:
        meta = _spec_meta(spec)
        if meta:
            return meta[0], f"spec.md line {meta[1]}"
    return None


def resembles(spec: Spec | None) -> Standard | None:
    """The newest standard whose marker headings the spec shows: a hint, never the standard applied.

    A spec that lacks a section must not move to an older standard by lacking it
    (deleting `## Environment` must not excuse the missing Environment section).
    """
    if spec is None:
        return None
    keys = {s.key for s in spec.sections if s.level in (2, 3)}
    found = standards()[0]
    for std in standards():
        if any(norm_heading(m) in keys for m in std.markers):
            found = std
    return found


def detect(spec: Spec | None, cfg: dict[str, Any], task: Any = None) -> tuple[Standard, str]:
    """(standard, why): the configuration, else what the task records, else the current standard.

    Never from what the spec lacks: a task that records nothing is judged by the
    current standard (seed, Gate F: a spec failing the phrasing rules is not QUALIFIED).
    """
    want = str(cfg.get("spec", {}).get("standard", "auto"))
    if want != "auto":
        std = by_id(want)
        if std is not None:
            return std, "set by [spec] standard in the configuration"
    structure = cfg.get("spec", {}).get("structure", "auto")
    if structure == "six_layer":
        return current(), "set by [spec] structure = six_layer"
    if structure == "legacy":
        legacy = [s for s in standards() if s.profile == "legacy"]
        return legacy[-1], "set by [spec] structure = legacy"
    rec = recorded(spec, task)
    if rec is not None:
        std = _match(rec[0])
        if std is not None:
            return std, f"recorded in {rec[1]} ({rec[0]!r})"
        return current(), (f"{rec[1]} names {rec[0]!r}, which is no known standard "
                           f"({', '.join(s.id for s in standards())}): the current standard applies")
    return current(), "no standard recorded (task.json spec_standard, map header, spec meta): the current standard applies"
