"""oracle.mapping_file (`source_nodeid_map.json`): the task's own node id -> spec section record.

Native-batch packets keep, beside or instead of spec_test_map.md, a JSON file
whose `cases` list each scored test with `oracle_nodeid` (the scoring id),
`source_nodeid` (upstream provenance), `layer` and `spec_section` (one heading
or several joined by `;`). Gate D uses it when the map gives no sections.
"""

from __future__ import annotations

import json
from pathlib import Path

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.core.textio import read_text
from gavelkit.task.formats.spec_test_map import (
    MapRow,
    normalise_layer,
    normalise_status,
    split_sections,
)

NODEID_KEYS = ("oracle_nodeid", "test_nodeid", "nodeid", "node_id")


def parse_mapping(data: object, path: str) -> tuple[list[MapRow] | None, list[Finding]]:
    cases = data.get("cases") if isinstance(data, dict) else data
    if not isinstance(cases, list):
        return None, [Finding("TSK-R010", "error", "mapping file has no `cases` list", path, 1, 1)]
    got = [_case_row(c) for c in cases]
    rows = [r for r in got if r is not None]
    skipped = len(got) - len(rows)
    findings: list[Finding] = []
    if skipped:
        findings.append(Finding("TSK-R010", "warning",
                                f"{skipped} case(s) without an oracle node id and spec_section "
                                "were skipped", path, 1, 1))
    return rows, findings


def _case_row(c: object) -> MapRow | None:
    """One case as a map row; None when it names no oracle node id or spec section."""
    if not isinstance(c, dict):
        return None
    nid, sec = _case_nodeid(c), _case_sections(c)
    if nid is None or sec is None:
        return None
    status = c.get("status")
    status_raw = status if isinstance(status, str) else ""
    layer_raw = str(c.get("layer") or "")
    return MapRow(nid, normalise_layer(layer_raw), split_sections(sec),
                  normalise_status(status_raw) if isinstance(status, str) else "covered",
                  str(c.get("source_nodeid") or ""), "", sec, 0, status_raw, layer_raw)


def _case_nodeid(c: dict[str, object]) -> str | None:
    return next((v for k in NODEID_KEYS if isinstance(v := c.get(k), str)), None)


def _case_sections(c: dict[str, object]) -> str | None:
    """`spec_section` (or `spec_sections`) as one `;`-joined cell; None if not text."""
    sec = c.get("spec_section", c.get("spec_sections"))
    if isinstance(sec, list):
        sec = "; ".join(x for x in sec if isinstance(x, str))
    return sec if isinstance(sec, str) else None


def read_mapping_file(path: str | Path) -> tuple[list[MapRow] | None, list[Finding]]:
    try:
        text = read_text(path)
    except InputError as exc:
        return None, [exc.to_finding()]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [Finding("TSK-R010", "error", f"mapping file is not valid JSON: {exc.msg}",
                              str(path), exc.lineno, exc.colno)]
    return parse_mapping(data, str(path))
