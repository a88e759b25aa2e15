"""taxonomy.jsonl: one `{"taxonomy_key"|"test_id": ..., "layer": ...}` object per line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.core.safeio import parse_json
from gavelkit.task.formats._read import read_with
from gavelkit.task.formats.spec_test_map import LAYERS

KEY_NAMES = ("taxonomy_key", "test_id")


@dataclass(slots=True)
class TaxEntry:
    key: str
    layer: str
    source: str = ""
    line: int = 0
    extra: dict = field(default_factory=dict)


@dataclass(slots=True)
class Taxonomy:
    path: str
    entries: list[TaxEntry] = field(default_factory=list)

    def by_key(self) -> dict[str, TaxEntry]:
        return {e.key: e for e in self.entries}


def parse_taxonomy(text: str, path: str = "taxonomy.jsonl") -> tuple[Taxonomy, list[Finding]]:
    tax = Taxonomy(path)
    findings: list[Finding] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        entry, why, col = _entry(raw, path, i)
        if entry is not None and entry.key in seen:
            entry, why, col = None, f"key {entry.key} already at line {seen[entry.key]}", 1
        if entry is None:
            findings.append(Finding("TSK-R004", "error", why, path, i, col))
            continue
        seen[entry.key] = i
        tax.entries.append(entry)
    return tax, findings


def _entry(raw: str, path: str, i: int) -> tuple[TaxEntry | None, str, int]:
    """One line as an entry, or (None, why, column) when it is not a usable one."""
    try:
        obj = parse_json(raw, path)
    except InputError as exc:
        return None, f"not a JSON object: {exc.message}", exc.col or 1
    if not isinstance(obj, dict):
        return None, "line is JSON but not an object", 1
    key, layer, why = _key_and_layer(obj)
    if why:
        return None, why, 1
    extra = {k: v for k, v in obj.items() if k not in (*KEY_NAMES, "layer", "source")}
    return TaxEntry(key, layer, str(obj.get("source") or ""), i, extra), "", 0


def _key_and_layer(obj: dict[str, Any]) -> tuple[str, str, str]:
    """(key, layer, '') of an entry, or ('', '', why) when either is not usable."""
    key = next((obj[k] for k in KEY_NAMES if isinstance(obj.get(k), str)), None)
    if not key:
        return "", "", "no 'taxonomy_key' or 'test_id' string"
    layer = obj.get("layer")
    if not isinstance(layer, str) or layer not in LAYERS:
        return "", "", f"layer {layer!r} is not one of {', '.join(sorted(LAYERS))}"
    return key, layer, ""


def read_taxonomy(path: str | Path) -> tuple[Taxonomy | None, list[Finding]]:
    return read_with(parse_taxonomy, path)
