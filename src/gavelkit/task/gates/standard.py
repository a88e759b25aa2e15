"""Which version of the spec standard a task was written to (the standard is data).

Bmk-dev's spec standard changed while tasks were being written: ten sections
(2026-06-30), then Invocation Protocol and an Environment section whose
template promised "any third-party packages on PyPI" (2026-07-13), then the
six-layer SPEC_STANDARD with hard phrasing rules (2026-07-23). Judging a
July-13 task by July-23 rules buries the one real message ("this task predates
the current standard") under dozens of errors, so the gates apply the version
the spec shows and summarise the current one in a line.

    std, why = detect(spec, cfg)      # Standard, "headings: Invocation Protocol"
    std.is_current, std.phrasing_rules, std.environment, std.signatures
"""

from __future__ import annotations

import functools
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


def detect(spec: Spec | None, cfg: dict[str, Any]) -> tuple[Standard, str]:
    """(standard, why): config override, else the newest version whose markers the spec has."""
    want = str(cfg.get("spec", {}).get("standard", "auto"))
    if want != "auto":
        std = by_id(want)
        if std is not None:
            return std, "set by [spec] standard in the configuration"
    structure = cfg.get("spec", {}).get("structure", "auto")
    if structure == "six_layer":
        return current(), "set by [spec] structure = six_layer"
    if spec is None:
        return current(), "no readable spec: the current standard applies"
    keys = {s.key for s in spec.sections if s.level in (2, 3)}
    found = standards()[0], "none of the later standards' headings present"
    for std in standards():
        hits = [m for m in std.markers if norm_heading(m) in keys]
        if hits:
            found = std, "headings: " + ", ".join(hits)
    if structure == "legacy" and found[0].profile == "six_layer":
        legacy = [s for s in standards() if s.profile == "legacy"]
        return legacy[-1], "set by [spec] structure = legacy"
    return found
