"""spec_test_map.md: header keys, the main row table(s) in both layouts, extra tables.

Real maps drift: `oracle_source` is written bare, in backticks, with a
`filter/` prefix or only inside a prose sentence; the main table comes as
`test_nodeid | source | layer | spec_section | status | notes`, without the
source column, with the source column first, or split in two blocks; the
`spec_section` cell holds one heading or several joined by `;` or `+`, with or
without `##` and backticks. One malformed row is a finding at its line, the
rest of the map is still read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from gavelkit.core.findings import Finding
from gavelkit.task.formats._md import MdTable, code_mask, find_tables, norm_key, strip_ticks
from gavelkit.task.formats._read import read_with

NODEID_KEYS = ("test_nodeid", "test_node_id", "nodeid", "node_id", "test")
LAYERS = frozenset({"atomic", "integration", "system_e2e"})
STATUSES = frozenset({"covered", "excluded", "source-only", "spec_gap", "undocumented"})
_HEADER_LINE = re.compile(r"^\s*(?:[-*]\s+)?`?(?P<key>[A-Za-z_][\w/.-]*)`?\s*:\s*(?P<val>.+?)\s*$")
_INLINE_KV = re.compile(r"`(?P<key>(?:filter/)?oracle_source|oracle_version)\s*:\s*(?P<val>[^`]+)`")
_FOOTER = re.compile(r"^\s*Total\s*:", re.I)
_NONE_CELLS = frozenset({"", "-", "—", "–", "n/a", "none"})


@dataclass(slots=True)
class MapRow:
    nodeid: str
    layer: str
    sections: list[str]  # spec headings as written (prefixes/backticks removed)
    status: str
    source: str = ""
    notes: str = ""
    raw_section: str = ""
    line: int = 0

    @property
    def covered(self) -> bool:
        return self.status == "covered"


@dataclass(slots=True)
class SpecTestMap:
    path: str
    title: str = ""
    header: dict[str, str] = field(default_factory=dict)  # key -> value (ticks stripped)
    header_lines: dict[str, int] = field(default_factory=dict)
    rows: list[MapRow] = field(default_factory=list)
    layout: str = ""  # "with-source" | "no-source"
    extra_tables: list[MdTable] = field(default_factory=list)
    footer: dict[str, int] = field(default_factory=dict)
    footer_line: int = 0

    def get(self, key: str) -> str | None:
        """Header value by key, accepting the `filter/` prefix variant."""
        for k in (key, f"filter/{key}"):
            if k in self.header:
                return self.header[k]
        return None

    @property
    def oracle_source(self) -> str | None:
        return self.get("oracle_source")

    @property
    def oracle_version(self) -> str | None:
        return self.get("oracle_version")

    def covered_rows(self) -> list[MapRow]:
        return [r for r in self.rows if r.covered]


def split_sections(cell: str) -> list[str]:
    """`## A`; `### B` / A + B / `A` -> ['A', 'B'] (headings as written, prefixes removed)."""
    text = cell.strip()
    if text.strip("`").strip().lower() in _NONE_CELLS:
        return []
    parts = re.split(r";|\s\+\s|<br\s*/?>", text)
    out: list[str] = []
    for p in parts:
        p = p.strip()
        if not p:
            continue
        p = strip_ticks(p)
        p = re.sub(r"^(?:#{1,6}\s*|§\s*)", "", p).strip()
        p = re.sub(r"^section\s+", "", p, flags=re.I) if p.lower().startswith("section ") else p
        if p.lower() in _NONE_CELLS:
            continue
        out.append(p)
    return out


def _is_main(table: MdTable) -> bool:
    keys = table.keys()
    return any(k in keys for k in NODEID_KEYS) and "spec_section" in keys


def parse_spec_test_map(text: str, path: str = "spec_test_map.md") -> tuple[SpecTestMap, list[Finding]]:
    stm = SpecTestMap(path)
    findings: list[Finding] = []
    lines = text.split("\n")
    mask = code_mask(lines)
    first_table = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith("|")), len(lines))
    for i, line in enumerate(lines):
        if mask[i]:
            continue
        if line.startswith("# ") and not stm.title:
            stm.title = line[2:].strip()
            continue
        if _FOOTER.match(line):
            stm.footer_line = i + 1
            for part in re.split(r"\|", line):
                m = re.match(r"\s*([\w ()\-]+?)\s*:\s*(\d+)\s*$", part)
                if m:
                    stm.footer[norm_key(m.group(1))] = int(m.group(2))
            continue
        if i < first_table and not line.startswith("#") and not line.lstrip().startswith("|"):
            m = _HEADER_LINE.match(line)
            if m and " " not in m.group("key"):
                stm.header[m.group("key")] = strip_ticks(m.group("val"))
                stm.header_lines[m.group("key")] = i + 1
                continue
        for m in _INLINE_KV.finditer(line):
            stm.header.setdefault(m.group("key"), m.group("val").strip())
            stm.header_lines.setdefault(m.group("key"), i + 1)
    seen: dict[str, int] = {}
    for table in find_tables(text):
        if not _is_main(table):
            stm.extra_tables.append(table)
            continue
        keys = table.keys()
        layout = "with-source" if "source" in keys else "no-source"
        if stm.layout and stm.layout != layout:
            findings.append(Finding(
                "TSK-R002", "warning", f"map table at line {table.header_line} uses the "
                f"{layout} layout, earlier tables use {stm.layout}", path, table.header_line, 1))
        stm.layout = stm.layout or layout
        idx = {k: keys.index(k) for k in keys}
        nid_col = next(idx[k] for k in NODEID_KEYS if k in idx)
        for row in table.rows:
            cells = row.cells
            if len(cells) != len(keys):
                findings.append(Finding(
                    "TSK-R002", "error",
                    f"row has {len(cells)} cells, header has {len(keys)}; row skipped",
                    path, row.line, 1))
                continue

            def cell(name: str, cells: list[str] = cells, idx: dict[str, int] = idx) -> str:
                return strip_ticks(cells[idx[name]]) if name in idx else ""

            nodeid = strip_ticks(cells[nid_col])
            status = cell("status").lower()
            layer = cell("layer").lower()
            r = MapRow(nodeid, layer, split_sections(cells[idx["spec_section"]]), status,
                       cell("source").lower(), cell("notes"), cells[idx["spec_section"]],
                       row.line)
            problems = []
            if not nodeid or " " in re.sub(r"\[.*\]$", "", nodeid):
                problems.append(f"node id {nodeid!r} is empty or has spaces outside its "
                                "[parameters]")
            if layer and layer not in LAYERS:
                problems.append(f"layer {layer!r} is not one of {', '.join(sorted(LAYERS))}")
            if not status:
                problems.append("status is empty")
            elif status not in STATUSES:
                problems.append(f"status {status!r} is not one of {', '.join(sorted(STATUSES))}")
            if status == "covered" and not r.sections:
                problems.append("covered row names no spec_section")
            if status == "covered" and not layer:
                problems.append("covered row has no layer")
            for p in problems:
                findings.append(Finding("TSK-R002", "error", p, path, row.line, 1))
            if not nodeid:
                continue
            if nodeid in seen:
                findings.append(Finding(
                    "TSK-R002", "error", f"node id {nodeid} already listed at line {seen[nodeid]}",
                    path, row.line, 1))
            else:
                seen[nodeid] = row.line
            stm.rows.append(r)
    if not stm.layout:
        findings.append(Finding(
            "TSK-R002", "error", "no map table with test_nodeid and spec_section columns found",
            path, 0, 0))
    return stm, findings


def read_spec_test_map(path: str | Path) -> tuple[SpecTestMap | None, list[Finding]]:
    return read_with(parse_spec_test_map, path)
