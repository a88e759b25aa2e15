"""Markdown helpers shared by the task-file readers: tables and cell text.

Real task files put tables next to prose, split one logical table across two
blocks, escape pipes inside cells and wrap values in backticks; the readers
need each table with the line of every row so findings point at the row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gavelkit.core.fences import fence_closes, fence_open

_SEP_CELL = re.compile(r"^\s*:?-{1,}:?\s*$")


@dataclass(slots=True)
class MdRow:
    cells: list[str]
    line: int  # 1-based


@dataclass(slots=True)
class MdTable:
    header: list[str]
    header_line: int
    rows: list[MdRow] = field(default_factory=list)
    heading: str = ""  # text of the nearest heading above the table

    def keys(self) -> list[str]:
        return [norm_key(h) for h in self.header]


def norm_key(text: str) -> str:
    """Header cell -> lookup key: lower case, no backticks, spaces/dashes as '_'."""
    return re.sub(r"[\s\-]+", "_", strip_ticks(text).strip().lower())


def strip_ticks(text: str) -> str:
    t = text.strip()
    if len(t) >= 2 and t[0] == "`" and t[-1] == "`" and "`" not in t[1:-1]:
        return t[1:-1].strip()
    return t


_CODE_SPAN = re.compile(r"`[^`]*`")


def split_row(line: str) -> list[str]:
    """Cells of a `| a | b |` line; `\\|` and pipes inside backticks stay in the cell."""
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    if "\\" not in s and s.count("`") % 2 == 0 and not any(
            "|" in span for span in _CODE_SPAN.findall(s)):  # the common row (fast path)
        return [c.strip() for c in s.split("|")]
    return _split_escaped(s)


def _split_escaped(s: str) -> list[str]:
    """The slow path of split_row: `\\|` is a pipe in the cell, so is one inside backticks."""
    cells: list[str] = []
    buf: list[str] = []
    in_code = False
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == "\\" and i + 1 < len(s) and s[i + 1] == "|":
            buf.append("|")
            i += 2
            continue
        if ch == "`":
            in_code = not in_code
        if ch == "|" and not in_code:
            cells.append("".join(buf).strip())
            buf = []
        else:
            buf.append(ch)
        i += 1
    cells.append("".join(buf).strip())
    return cells


def is_separator(cells: list[str]) -> bool:
    return bool(cells) and all(_SEP_CELL.match(c) for c in cells)


def code_mask(lines: list[str]) -> list[bool]:
    """True for lines inside fenced code blocks or HTML comments (not Markdown content)."""
    mask = [False] * len(lines)
    fence: str | None = None
    in_comment = False
    for i, line in enumerate(lines):
        if fence is not None:
            mask[i] = True
            if fence_closes(line, fence):
                fence = None
            continue
        if in_comment:
            mask[i] = True
            if "-->" in line:
                in_comment = False
            continue
        opened = fence_open(line)
        if opened is not None:
            fence = opened[0]
            mask[i] = True
            continue
        if line.lstrip().startswith("<!--"):
            mask[i] = True
            if "-->" not in line:
                in_comment = True
    return mask


def find_tables(text: str) -> list[MdTable]:
    """Every pipe table (header + separator + rows) outside code fences."""
    lines = text.split("\n")
    mask = code_mask(lines)
    out: list[MdTable] = []
    heading = ""
    i = 0
    while i < len(lines):
        if mask[i]:
            i += 1
            continue
        if lines[i].startswith("#"):
            heading = lines[i].lstrip("#").strip()
        table = _table_at(lines, mask, i, heading)
        if table is None:
            i += 1
            continue
        out.append(table)
        i = table.header_line + 1 + len(table.rows)
    return out


def _table_at(lines: list[str], mask: list[bool], i: int, heading: str) -> MdTable | None:
    """The table whose header is line index i (a separator row follows), with its rows."""
    n = len(lines)
    if "|" not in lines[i] or i + 1 >= n or mask[i + 1] or "|" not in lines[i + 1]:
        return None
    if not is_separator(split_row(lines[i + 1])):
        return None
    table = MdTable(split_row(lines[i]), i + 1, heading=heading)
    j = i + 2
    while j < n and not mask[j] and lines[j].strip().startswith("|"):
        table.rows.append(MdRow(split_row(lines[j]), j + 1))
        j += 1
    return table


def escape_cell(text: str) -> str:
    return text.replace("\n", " ").replace("|", "\\|").strip()
