"""CANDIDATES.md: the root ledger table `repo | status | metric | detail`.

Repo keys mix `owner__name`, `owner/name` and task ids; `superseded_by=...`
is appended inside the detail cell. The writer changes one row's detail in
place (REOPENED_S3 must not overwrite the QUALIFIED row) or appends a row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gavelkit.core.findings import Finding
from gavelkit.task.formats._md import escape_cell, find_tables
from gavelkit.task.formats._read import read_with

LEDGER_HEADER = ["repo", "status", "metric", "detail"]


@dataclass(slots=True)
class LedgerRow:
    repo: str
    status: str
    metric: str
    detail: str
    line: int
    cells: list[str] = field(default_factory=list)

    def matches(self, names: set[str]) -> bool:
        key = self.repo.strip("` ").lower()
        return key in names or key.replace("__", "/") in names or key.replace("/", "__") in names


@dataclass(slots=True)
class Ledger:
    path: str
    lines: list[str]
    rows: list[LedgerRow] = field(default_factory=list)
    table_end: int = -1  # 0-based index after the last row of the ledger table
    columns: list[str] = field(default_factory=list)


def parse_candidates(text: str, path: str = "CANDIDATES.md") -> tuple[Ledger, list[Finding]]:
    led = Ledger(path, text.split("\n"))
    findings: list[Finding] = []
    for table in find_tables(text):
        keys = table.keys()
        if "repo" not in keys or "status" not in keys:
            continue
        led.columns = keys
        ix = {k: keys.index(k) for k in keys}
        for row in table.rows:
            c = row.cells
            if len(c) != len(keys):
                findings.append(Finding("TSK-R008", "error",
                                        f"ledger row has {len(c)} cells, header has {len(keys)}",
                                        path, row.line, 1))
                continue

            def get(k: str, c: list[str] = c, ix: dict[str, int] = ix) -> str:
                return c[ix[k]] if k in ix else ""

            led.rows.append(LedgerRow(get("repo"), get("status").strip("` ").upper(),
                                      get("metric"), get("detail"), row.line, c))
        led.table_end = (table.rows[-1].line if table.rows else table.header_line + 1)
        break
    else:
        findings.append(Finding("TSK-R008", "error",
                                "no ledger table with repo and status columns", path, 0, 0))
    return led, findings


def read_candidates(path: str | Path) -> tuple[Ledger | None, list[Finding]]:
    return read_with(parse_candidates, path)


def _render_row(cells: list[str]) -> str:
    return "| " + " | ".join(escape_cell(c) for c in cells) + " |"


def render_with_superseded(led: Ledger, row: LedgerRow, version: str) -> str:
    """Ledger text with `superseded_by: <version>` appended to `row`'s detail."""
    lines = list(led.lines)
    cells = list(row.cells)
    col = led.columns.index("detail") if "detail" in led.columns else len(cells) - 1
    note = f"superseded_by: {version}"
    if note not in cells[col]:
        cells[col] = f"{cells[col]}; {note}" if cells[col].strip() else note
    lines[row.line - 1] = _render_row(cells)
    return "\n".join(lines)


def render_with_row(led: Ledger, cells: dict[str, str]) -> str:
    lines = list(led.lines)
    cols = led.columns or LEDGER_HEADER
    line = _render_row([cells.get(c, "") for c in cols])
    lines.insert(led.table_end, line)
    return "\n".join(lines)
