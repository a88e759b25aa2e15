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
from collections.abc import Callable
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
Share = Callable[[int], "float | None"]  # column index -> share of its cells, None: none
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
    out = _columns_by_header(table)
    rows = [r.cells for r in table.rows if len(r.cells) == len(table.header)]
    if "nodeid" not in out and rows:
        _add_by_content(out, table, "nodeid", _nodeid_share(rows))
    if "section" not in out and rows and headings:
        _add_by_content(out, table, "section", _section_share(rows, headings))
    return out


def _columns_by_header(table: MdTable) -> dict[str, Column]:
    syn = vocabulary()["columns"]
    keys = table.keys()
    out: dict[str, Column] = {}
    for role in _ROLES:
        taken = {c.index for c in out.values()}
        i = next((i for i, k in enumerate(keys) if k in syn[role] and i not in taken), None)
        if i is not None:
            out[role] = Column(table.header[i], i, "header")
    return out


def _nodeid_share(rows: list[list[str]]) -> Share:
    """Share of a column's non-empty cells shaped like node ids (None: no such cells)."""
    def share(i: int) -> float | None:
        cells = [r[i] for r in rows if r[i].strip()]
        return sum(looks_like_nodeid(c) for c in cells) / len(cells) if cells else None
    return share


def _section_share(rows: list[list[str]], headings: set[str]) -> Share:
    """Share of a column's non-empty cells naming a spec heading (None: no such cells)."""
    def share(i: int) -> float | None:
        cells = [r[i] for r in rows if r[i].strip() and r[i].strip() not in _NONE_CELLS]
        if not cells:
            return None
        hit = sum(any(_heading_key(p) in headings for p in split_sections(c)) for c in cells)
        return hit / len(cells)
    return share


def _add_by_content(out: dict[str, Column], table: MdTable, role: str, share: Share) -> None:
    """The first column not named for another role whose cells reach the role's detection
    share; a column named as provenance (source_nodeid, Provenance) holds upstream ids, not
    scoring ids, so it is taken and never a candidate."""
    threshold = float(vocabulary()["detect"][f"{role}_share"])
    taken = {c.index for c in out.values()}
    for i in range(len(table.header)):
        if i in taken:
            continue
        got = share(i)
        if got is not None and got >= threshold:
            out[role] = Column(table.header[i], i, "content")
            return


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
    _read_header(lines, mask, stm)
    rejected = _read_tables(text, headings, stm, findings)
    if not stm.layout:
        findings.append(_no_main_table(lines, mask, stm, rejected))
    return stm, findings


def _read_header(lines: list[str], mask: list[bool], stm: SpecTestMap) -> None:
    """Title, `key: value` lines before the first table, inline keys, the Total footer."""
    first_table = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith("|")), len(lines))
    for i, line in enumerate(lines):
        if not mask[i]:
            _read_header_line(line, i + 1, i < first_table, stm)


def _read_header_line(line: str, lineno: int, before_tables: bool, stm: SpecTestMap) -> None:
    if line.startswith("# ") and not stm.title:
        stm.title = line[2:].strip()
    elif _FOOTER.match(line):
        _read_footer(line, lineno, stm)
    elif not (before_tables and _header_line(line, lineno, stm)):
        for m in _INLINE_KV.finditer(line):
            stm.header.setdefault(m.group("key"), m.group("val").strip())
            stm.header_lines.setdefault(m.group("key"), lineno)


def _read_footer(line: str, lineno: int, stm: SpecTestMap) -> None:
    stm.footer_line = lineno
    for part in re.split(r"\|", line):
        m = re.match(r"\s*([\w ()\-]+?)\s*:\s*(\d+)\s*$", part)
        if m:
            stm.footer[norm_key(m.group(1))] = int(m.group(2))


def _header_line(line: str, lineno: int, stm: SpecTestMap) -> bool:
    """A `key: value` line of the map's header; False when the line is not one."""
    if line.startswith("#") or line.lstrip().startswith("|"):
        return False
    m = _HEADER_LINE.match(line)
    if not m or " " in m.group("key"):
        return False
    stm.header[m.group("key")] = strip_ticks(m.group("val"))
    stm.header_lines[m.group("key")] = lineno
    return True


@dataclass(frozen=True, slots=True, order=True)
class _Rejected:
    """A table that is not a main map table; tables with node ids rank first."""

    rank: int
    line: int
    why: str


def _read_tables(text: str, headings: set[str] | None, stm: SpecTestMap,
                 findings: list[Finding]) -> list[_Rejected]:
    """Rows of every main table (node-id and section columns); the other tables' reasons."""
    seen: dict[str, int] = {}
    rejected: list[_Rejected] = []
    for table in find_tables(text):
        cols = assign_columns(table, headings)
        if "nodeid" not in cols or "section" not in cols:
            stm.extra_tables.append(table)
            rejected.append(_Rejected(0 if "nodeid" in cols else 1, table.header_line,
                                      _why_not(table, cols)))
            continue
        _take_layout(table, cols, stm, findings)
        _read_rows(table, cols, stm, seen, findings, stm.path)
    return rejected


def _take_layout(table: MdTable, cols: dict[str, Column], stm: SpecTestMap,
                 findings: list[Finding]) -> None:
    """The first main table sets the layout and columns; a later one of another layout warns."""
    layout = "with-source" if "source" in cols else "no-source"
    if stm.layout:
        if stm.layout != layout:
            findings.append(Finding(
                "TSK-R002", "warning", f"map table at line {table.header_line} uses the "
                f"{layout} layout, earlier tables use {stm.layout}", stm.path, table.header_line, 1))
        return
    stm.layout = layout
    stm.columns = cols
    if any(c.how == "content" for c in cols.values()):
        findings.append(Finding(
            "TSK-R009", "info", "map columns found by content, not by header: "
            + "; ".join(f"{role} = {c.describe()}" for role, c in cols.items()
                        if c.how == "content"), stm.path, table.header_line, 1))


def _no_main_table(lines: list[str], mask: list[bool], stm: SpecTestMap,
                   rejected: list[_Rejected]) -> Finding:
    """No main table: a bullet list of node ids is read (a warning), else why not (an error)."""
    bullets = _read_bullets(lines, mask, stm)
    if bullets:
        stm.unreadable = "bullet list of node ids without spec sections"
        return Finding(
            "TSK-R002", "warning", f"the map lists {bullets} node ids as bullets (first at "
            f"line {stm.rows[0].line}) with no spec sections; coverage per section cannot "
            "be computed from it", stm.path, stm.rows[0].line, 1)
    worst = min(rejected) if rejected else _Rejected(2, 0, "the file has no Markdown table")
    stm.unreadable = worst.why
    return Finding("TSK-R002", "error", f"no map table with node-id and spec-section columns: "
                   f"{worst.why}", stm.path, worst.line, 1 if worst.line else 0)


def _read_rows(table: MdTable, cols: dict[str, Column], stm: SpecTestMap, seen: dict[str, int],
               findings: list[Finding], path: str) -> None:
    n = len(table.header)
    for row in table.rows:
        if len(row.cells) != n:
            findings.append(Finding(
                "TSK-R002", "error", f"row has {len(row.cells)} cells, header has {n}; row skipped",
                path, row.line, 1))
            continue
        r = _map_row(row.cells, cols, row.line)
        findings += [Finding("TSK-R002", "error", p, path, row.line, 1)
                     for p in _row_problems(r, cols)]
        if not r.nodeid:
            continue
        if r.nodeid in seen:
            findings.append(Finding(
                "TSK-R002", "error", f"node id {r.nodeid} already listed at line "
                f"{seen[r.nodeid]}", path, row.line, 1))
        else:
            seen[r.nodeid] = row.line
        stm.rows.append(r)


def _map_row(cells: list[str], cols: dict[str, Column], line: int) -> MapRow:
    def cell(role: str) -> str:
        return strip_ticks(cells[cols[role].index]) if role in cols else ""

    nodeid = strip_ticks(cells[cols["nodeid"].index].split("<br")[0])
    status_raw, layer_raw = cell("status"), cell("layer")
    status = normalise_status(status_raw) if "status" in cols else "covered"
    layer = normalise_layer(layer_raw)
    if not layer and normalise_status(layer_raw) == "excluded" and not status_raw:
        status = "excluded"
    section_cell = cells[cols["section"].index]
    return MapRow(nodeid, layer, split_sections(section_cell), status, cell("source").lower(),
                  cell("notes"), section_cell, line, status_raw, layer_raw)


def _row_problems(r: MapRow, cols: dict[str, Column]) -> list[str]:
    problems = []
    if not r.nodeid or " " in re.sub(r"\[.*\]$", "", r.nodeid):
        problems.append(f"node id {r.nodeid!r} is empty or has spaces outside its [parameters]")
    if r.layer and r.layer not in LAYERS:
        problems.append(f"layer {r.layer_raw!r} is not one of {', '.join(sorted(LAYERS))}")
    if "status" in cols and not r.status:
        problems.append("status is empty")
    elif r.status not in STATUSES:
        problems.append(f"status {r.status_raw!r} is not one of {', '.join(sorted(STATUSES))} "
                        "(nor a spelling of one)")
    if r.status == "covered":
        problems += _covered_row_problems(r, cols)
    return problems


def _covered_row_problems(r: MapRow, cols: dict[str, Column]) -> list[str]:
    problems = []
    if not r.sections:
        problems.append("covered row names no spec_section")
    if not r.layer and "layer" in cols:
        problems.append("covered row has no layer")
    return problems


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
