"""spec_test_map.md: header keys, the main row table(s) in every real layout, extra tables.

Real maps drift: `oracle_source` is written bare, in backticks, with a
`filter/` prefix or only inside a prose sentence; the main table names its
node-id column `test_nodeid`, `oracle_nodeid`, `Local case` or `Native test`,
its section column `spec_section`, `Specification section` or `Spec basis`,
comes with or without a source/provenance column in any position, or is split
in two blocks; some maps are a bullet list of node ids with no sections. The
column names accepted are data (data/task_map_columns.toml); when no header
names the node-id or section column, the column is found by its content
(cells shaped like pytest node ids; cells naming spec headings) and the map
says which columns it used. Status and layer values are normalised
(`removed-unpromised-surface [20260709]` -> excluded) with the original kept.
One malformed row is a finding at its line, the rest of the map is still read;
a map with no usable table says why, at the line of the table it rejected.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.findings import Finding
from gavelkit.data import path as data_path  # not importlib.resources: zipfile at start-up
from gavelkit.task.formats._md import MdTable, code_mask, find_tables, norm_key, strip_ticks
from gavelkit.task.formats._read import read_with

LAYERS = frozenset({"atomic", "integration", "system_e2e"})
STATUSES = frozenset({"covered", "excluded", "source-only", "spec_gap", "undocumented"})
_HEADER_LINE = re.compile(r"^\s*(?:[-*]\s+)?`?(?P<key>[A-Za-z_][\w/.-]*)`?\s*:\s*(?P<val>.+?)\s*$")
_INLINE_KV = re.compile(r"`(?P<key>(?:filter/)?oracle_source|oracle_version)\s*:\s*(?P<val>[^`]+)`")
_FOOTER = re.compile(r"^\s*Total\s*:", re.I)
_NONE_CELLS = frozenset({"", "-", "—", "–", "n/a", "none"})
_NODEID = re.compile(r"^[\w./\\-]+(?:\.py)?::[\w\[]")
_BULLET_ID = re.compile(r"^\s*[-*]\s+`(?P<id>[^`\s]+::[^`]+)`\s*(?:\[(?P<layer>[\w/ -]+)\])?")
_ROLES = ("nodeid", "section", "layer", "status", "source", "notes")


@functools.cache
def vocabulary() -> dict[str, Any]:
    """Column synonyms, detection shares, status/layer spellings (data/task_map_columns.toml)."""
    text = data_path("task_map_columns.toml").read_text("utf-8")
    return tomllib.loads(text)



def _clean_value(value: str) -> str:
    v = strip_ticks(value).strip().strip("`*_ ").lower()
    v = re.sub(r"\s*[\[(].*$", "", v).strip()
    return v


def _normalise(value: str, table: dict[str, list[str]]) -> str:
    v = _clean_value(value)
    if not v:
        return ""
    for canon, spellings in table.items():
        for s in spellings:
            if v == s or v.startswith((s + "-", s + "_", s + " ")):
                return canon
    return v


def normalise_status(value: str) -> str:
    """`covered`, `Covered`, `removed-unpromised-surface [2026]` -> covered / excluded ..."""
    return _normalise(value, vocabulary()["status"])


def normalise_layer(value: str) -> str:
    """`system`, `E2E`, `system-e2e` -> system_e2e; a status word is not a layer ('')."""
    v = _normalise(value, vocabulary()["layer"])
    if v in LAYERS:
        return v
    return "" if normalise_status(value) in STATUSES else v


def looks_like_nodeid(cell: str) -> bool:
    c = strip_ticks(cell.split("<br")[0]).strip()
    return bool(_NODEID.match(c))


@dataclass(slots=True)
class MapRow:
    nodeid: str
    layer: str
    sections: list[str]  # spec headings as written (prefixes/backticks removed)
    status: str  # normalised (covered, excluded, source-only, spec_gap, undocumented)
    source: str = ""
    notes: str = ""
    raw_section: str = ""
    line: int = 0
    status_raw: str = ""  # the cell as written
    layer_raw: str = ""

    @property
    def covered(self) -> bool:
        return self.status == "covered"


@dataclass(slots=True)
class Column:
    header: str  # header cell as written
    index: int
    how: str  # "header" | "content"

    def describe(self) -> str:
        return f"'{self.header}' (column {self.index + 1}, by {self.how})"


@dataclass(slots=True)
class SpecTestMap:
    path: str
    title: str = ""
    header: dict[str, str] = field(default_factory=dict)  # key -> value (ticks stripped)
    header_lines: dict[str, int] = field(default_factory=dict)
    rows: list[MapRow] = field(default_factory=list)
    layout: str = ""  # "with-source" | "no-source" | "bullet-list"
    columns: dict[str, Column] = field(default_factory=dict)  # role -> column of the first main table
    extra_tables: list[MdTable] = field(default_factory=list)
    footer: dict[str, int] = field(default_factory=dict)
    footer_line: int = 0
    unreadable: str = ""  # why no row could be read ("" when rows were read)

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

    @property
    def has_sections(self) -> bool:
        """True when some covered row names a spec section (the map can drive Gate D)."""
        return any(r.sections for r in self.covered_rows())

    def columns_used(self) -> dict[str, str]:
        return {role: c.describe() for role, c in self.columns.items()}


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


def _heading_key(text: str) -> str:
    t = re.sub(r"^(?:#{1,6}\s*|§\s*|section\s+)", "", text.strip(), flags=re.I)
    return re.sub(r"\s+", " ", t.replace("`", "").replace("**", "").strip(" \"'")).casefold()


def assign_columns(table: MdTable, headings: set[str] | None = None) -> dict[str, Column]:
    """Role -> column, by header synonyms first, then by content for node id and section."""
    syn = vocabulary()["columns"]
    keys = table.keys()
    out: dict[str, Column] = {}
    for role in _ROLES:
        for i, k in enumerate(keys):
            if k in syn[role] and i not in {c.index for c in out.values()}:
                out[role] = Column(table.header[i], i, "header")
                break
    det = vocabulary()["detect"]
    taken = {c.index for c in out.values()}
    rows = [r.cells for r in table.rows if len(r.cells) == len(keys)]
    if "nodeid" not in out and rows:
        # the first column not named for another role whose cells are node ids; a column
        # named as provenance (source_nodeid, Provenance) holds upstream ids, not scoring ids
        for i in range(len(keys)):
            cells = [r[i] for r in rows if r[i].strip()]
            if i in taken or not cells:
                continue
            if sum(looks_like_nodeid(c) for c in cells) / len(cells) >= float(det["nodeid_share"]):
                out["nodeid"] = Column(table.header[i], i, "content")
                taken.add(i)
                break
    if "section" not in out and rows and headings:
        for i in range(len(keys)):
            if i in taken:
                continue
            cells = [r[i] for r in rows if r[i].strip() and r[i].strip() not in _NONE_CELLS]
            if not cells:
                continue
            hit = sum(any(_heading_key(p) in headings for p in split_sections(c)) for c in cells)
            if hit / len(cells) >= float(det["section_share"]):
                out["section"] = Column(table.header[i], i, "content")
                break
    return out


def _why_not(table: MdTable, cols: dict[str, Column]) -> str:
    head = " | ".join(table.header)
    if "nodeid" not in cols:
        return (f"table at line {table.header_line} ({head}) has no node-id column: no header "
                "names one and no column holds pytest node ids (file.py::name)")
    return (f"table at line {table.header_line} ({head}) has node ids in "
            f"{cols['nodeid'].describe()} but no spec-section column: no header names one "
            "and no column's cells name spec headings")


def parse_spec_test_map(text: str, path: str = "spec_test_map.md",
                        headings: set[str] | None = None) -> tuple[SpecTestMap, list[Finding]]:
    """Parse a map; `headings` (normalised spec headings) enables section-column detection."""
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
    rejected: list[tuple[int, int, str]] = []  # (rank, line, why): tables with node ids first
    for table in find_tables(text):
        cols = assign_columns(table, headings)
        if "nodeid" not in cols or "section" not in cols:
            stm.extra_tables.append(table)
            rejected.append((0 if "nodeid" in cols else 1, table.header_line,
                             _why_not(table, cols)))
            continue
        layout = "with-source" if "source" in cols else "no-source"
        if stm.layout and stm.layout != layout:
            findings.append(Finding(
                "TSK-R002", "warning", f"map table at line {table.header_line} uses the "
                f"{layout} layout, earlier tables use {stm.layout}", path, table.header_line, 1))
        if not stm.layout:
            stm.layout = layout
            stm.columns = cols
            if any(c.how == "content" for c in cols.values()):
                findings.append(Finding(
                    "TSK-R009", "info", "map columns found by content, not by header: "
                    + "; ".join(f"{role} = {c.describe()}" for role, c in cols.items()
                                if c.how == "content"), path, table.header_line, 1))
        _read_rows(table, cols, stm, seen, findings, path)
    if not stm.layout:
        bullets = _read_bullets(lines, mask, stm)
        if bullets:
            stm.unreadable = "bullet list of node ids without spec sections"
            findings.append(Finding(
                "TSK-R002", "warning", f"the map lists {bullets} node ids as bullets (first at "
                f"line {stm.rows[0].line}) with no spec sections; coverage per section cannot "
                "be computed from it", path, stm.rows[0].line, 1))
        else:
            _rank, line, why = min(rejected) if rejected else (2, 0, "the file has no Markdown table")
            stm.unreadable = why
            findings.append(Finding(
                "TSK-R002", "error", f"no map table with node-id and spec-section columns: {why}",
                path, line, 1 if line else 0))
    return stm, findings


def _read_rows(table: MdTable, cols: dict[str, Column], stm: SpecTestMap, seen: dict[str, int],
               findings: list[Finding], path: str) -> None:
    n = len(table.header)
    for row in table.rows:
        cells = row.cells
        if len(cells) != n:
            findings.append(Finding(
                "TSK-R002", "error", f"row has {len(cells)} cells, header has {n}; row skipped",
                path, row.line, 1))
            continue

        def cell(role: str, cells: list[str] = cells) -> str:
            return strip_ticks(cells[cols[role].index]) if role in cols else ""

        nodeid = strip_ticks(cells[cols["nodeid"].index].split("<br")[0])
        status_raw, layer_raw = cell("status"), cell("layer")
        status = normalise_status(status_raw) if "status" in cols else "covered"
        layer = normalise_layer(layer_raw)
        if not layer and normalise_status(layer_raw) == "excluded" and not status_raw:
            status = "excluded"
        section_cell = cells[cols["section"].index]
        r = MapRow(nodeid, layer, split_sections(section_cell), status, cell("source").lower(),
                   cell("notes"), section_cell, row.line, status_raw, layer_raw)
        problems = []
        if not nodeid or " " in re.sub(r"\[.*\]$", "", nodeid):
            problems.append(f"node id {nodeid!r} is empty or has spaces outside its [parameters]")
        if layer and layer not in LAYERS:
            problems.append(f"layer {layer_raw!r} is not one of {', '.join(sorted(LAYERS))}")
        if "status" in cols and not status:
            problems.append("status is empty")
        elif status not in STATUSES:
            problems.append(f"status {status_raw!r} is not one of {', '.join(sorted(STATUSES))} "
                            "(nor a spelling of one)")
        if status == "covered" and not r.sections:
            problems.append("covered row names no spec_section")
        if status == "covered" and not layer and "layer" in cols:
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


def _read_bullets(lines: list[str], mask: list[bool], stm: SpecTestMap) -> int:
    """`- `file.py::test` [layer] - note` lines: node ids with a layer and no section."""
    n = 0
    for i, line in enumerate(lines):
        if mask[i]:
            continue
        m = _BULLET_ID.match(line)
        if not m:
            continue
        layer_raw = (m.group("layer") or "").strip()
        stm.rows.append(MapRow(m.group("id").strip(), normalise_layer(layer_raw), [], "covered",
                               line=i + 1, status_raw="", layer_raw=layer_raw))
        n += 1
    if n:
        stm.layout = "bullet-list"
    return n


def read_spec_test_map(path: str | Path, headings: set[str] | None = None
                       ) -> tuple[SpecTestMap | None, list[Finding]]:
    return read_with(lambda text, p: parse_spec_test_map(text, p, headings), path)
