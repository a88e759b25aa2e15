"""taxonomy.jsonl: one `{"taxonomy_key"|"test_id": ..., "layer": ...}` object per line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

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
        try:
            obj = parse_json(raw, path)
        except InputError as exc:
            findings.append(Finding("TSK-R004", "error", f"not a JSON object: {exc.message}",
                                    path, i, exc.col or 1))
            continue
        if not isinstance(obj, dict):
            findings.append(Finding("TSK-R004", "error", "line is JSON but not an object",
                                    path, i, 1))
            continue
        key = next((obj[k] for k in KEY_NAMES if isinstance(obj.get(k), str)), None)
        if not key:
            findings.append(Finding("TSK-R004", "error",
                                    "no 'taxonomy_key' or 'test_id' string", path, i, 1))
            continue
        layer = obj.get("layer")
        if not isinstance(layer, str) or layer not in LAYERS:
            findings.append(Finding("TSK-R004", "error",
                                    f"layer {layer!r} is not one of {', '.join(sorted(LAYERS))}",
                                    path, i, 1))
            continue
        if key in seen:
            findings.append(Finding("TSK-R004", "error",
                                    f"key {key} already at line {seen[key]}", path, i, 1))
            continue
        seen[key] = i
        extra = {k: v for k, v in obj.items() if k not in (*KEY_NAMES, "layer", "source")}
        tax.entries.append(TaxEntry(key, layer, str(obj.get("source") or ""), i, extra))
    return tax, findings


def read_taxonomy(path: str | Path) -> tuple[Taxonomy | None, list[Finding]]:
    return read_with(parse_taxonomy, path)
