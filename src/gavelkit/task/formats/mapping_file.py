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
    rows: list[MapRow] = []
    skipped = 0
    for c in cases:
        if not isinstance(c, dict):
            skipped += 1
            continue
        nid = next((c[k] for k in NODEID_KEYS if isinstance(c.get(k), str)), None)
        sec = c.get("spec_section", c.get("spec_sections"))
        if isinstance(sec, list):
            sec = "; ".join(x for x in sec if isinstance(x, str))
        if nid is None or not isinstance(sec, str):
            skipped += 1
            continue
        status = c.get("status")
        rows.append(MapRow(nid, normalise_layer(str(c.get("layer") or "")), split_sections(sec),
                           normalise_status(status) if isinstance(status, str) else "covered",
                           str(c.get("source_nodeid") or ""), "", sec, 0,
                           status if isinstance(status, str) else "", str(c.get("layer") or "")))
    findings: list[Finding] = []
    if skipped:
        findings.append(Finding("TSK-R010", "warning",
                                f"{skipped} case(s) without an oracle node id and spec_section "
                                "were skipped", path, 1, 1))
    return rows, findings


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
