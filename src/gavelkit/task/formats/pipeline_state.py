"""PIPELINE_STATE.md: the `## Current` block, its todo checklist, and the History table.

The file is edited by agents and by hand, so a rewrite touches only what a
transition changes (the Current values, the todo list, one new History row)
and leaves the usage note, Forbidden Transitions and Catalogue byte-for-byte.
The Catalogue's per-state todo lists are read so a reset uses the task's own
wording when it has one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from gavelkit.core.findings import Finding
from gavelkit.task.formats._md import escape_cell, is_separator, split_row
from gavelkit.task.formats._read import read_with

_KV = re.compile(r"^(?P<key>[A-Za-z_][\w]*)(?P<sep>:\s*)(?P<val>.*?)\s*$")
_TODO = re.compile(r"^(?P<indent>\s*)[-*]\s+\[(?P<mark>[ xX])\]\s+(?P<text>.*)$")
_STATE_TOKEN = re.compile(r"[A-Z][A-Z0-9_]*")
HISTORY_HEADER = ["#", "date", "from", "to", "note"]


@dataclass(slots=True)
class TodoItem:
    text: str
    done: bool = False
    line: int = 0


@dataclass(slots=True)
class HistoryRow:
    num: int
    date: str
    from_state: str
    to_state: str
    note: str
    line: int = 0


@dataclass(slots=True)
class PipelineState:
    path: str
    lines: list[str]
    current: dict[str, str] = field(default_factory=dict)
    current_lines: dict[str, int] = field(default_factory=dict)  # key -> 1-based line
    block: tuple[int, int] = (0, 0)  # 0-based [start, end) of the Current fence content
    todo: list[TodoItem] = field(default_factory=list)
    todo_span: tuple[int, int] = (0, 0)  # 0-based [start, end) of the todo items
    todo_header: int = -1  # 0-based line of "todo:"
    history: list[HistoryRow] = field(default_factory=list)
    history_insert: int = -1  # 0-based index where the next row goes
    catalogue: dict[str, list[str]] = field(default_factory=dict)

    @property
    def state(self) -> str:
        m = _STATE_TOKEN.search(self.current.get("state", ""))
        return m.group(0) if m else ""

    def iter_value(self, name: str) -> int:
        m = re.match(r"\s*(\d+)", self.current.get(name, ""))
        return int(m.group(1)) if m else 0


def _section_bounds(lines: list[str], title: str) -> tuple[int, int] | None:
    start = None
    for i, line in enumerate(lines):
        if start is None:
            if re.match(r"^##\s+" + re.escape(title) + r"\b", line, re.I):
                start = i
        elif re.match(r"^##\s", line):
            return start, i
    return (start, len(lines)) if start is not None else None


def _fence(lines: list[str], s: int, e: int, path: str,
           findings: list[Finding]) -> tuple[int, int, bool]:
    """(body start, body end, fenced) of the Current block; an unfenced block is tolerated."""
    fence = next((j for j in range(s + 1, e) if lines[j].strip().startswith("```")), None)
    if fence is None:
        return s + 1, e, False
    close = next((j for j in range(fence + 1, e) if lines[j].strip().startswith("```")), None)
    if close is None:
        findings.append(Finding("TSK-R007", "error", "Current block fence never closed",
                                path, fence + 1, 1))
        close = e
    return fence + 1, close, True


def _current_values(ps: PipelineState, start: int, end: int, fenced: bool,
                    findings: list[Finding]) -> None:
    for j in range(start, end):
        raw = ps.lines[j].strip()
        if not raw or raw.startswith("todo:"):
            if raw.startswith("todo:") and not fenced:
                break
            continue
        m = _KV.match(raw)
        if not m:
            if fenced:
                findings.append(Finding("TSK-R007", "warning",
                                        f"Current line is not 'key: value': {raw!r}",
                                        ps.path, j + 1, 1))
            continue
        key = m.group("key")
        if key in ps.current:  # the last would win silently: which one is true?
            findings.append(Finding("TSK-R007", "error", f"'{key}:' is given twice in the "
                                    f"Current block (lines {ps.current_lines[key]} and "
                                    f"{j + 1}); keep one", ps.path, j + 1, 1,
                                    unusable=key == "state"))
        ps.current[key] = m.group("val")
        ps.current_lines[key] = j + 1


def _todo(ps: PipelineState, start: int, end: int) -> None:
    """The `todo:` checklist after the Current values (continuation lines joined)."""
    lines = ps.lines
    head = next((j for j in range(start, end) if re.match(r"^\s*todo\s*:\s*$", lines[j])), None)
    if head is None:
        return
    ps.todo_header = last = head
    for k in range(head + 1, end):
        ln = lines[k]
        mm = _TODO.match(ln)
        if mm:
            ps.todo.append(TodoItem(mm.group("text").strip(), mm.group("mark") != " ", k + 1))
            last = k
        elif ln.strip() and ln.startswith(("  ", "\t")) and ps.todo:
            ps.todo[-1].text += " " + ln.strip()
            last = k
        elif ln.strip():
            break
    ps.todo_span = (head + 1, last + 1)


def _parse_current(ps: PipelineState, findings: list[Finding]) -> None:
    cur = _section_bounds(ps.lines, "Current")
    if cur is None:
        findings.append(Finding("TSK-R007", "error", "no '## Current' section", ps.path, 0, 0))
        return
    s, e = cur
    start, end, fenced = _fence(ps.lines, s, e, ps.path, findings)
    ps.block = (start, end)
    _current_values(ps, start, end, fenced, findings)
    _todo(ps, end, e)
    if "state" not in ps.current:
        findings.append(Finding("TSK-R007", "error", "Current block has no 'state:' line",
                                ps.path, s + 1, 1))
    for name in ("spec_iter", "filter_iter", "eval_iter"):
        v = ps.current.get(name)
        if v is not None and not re.match(r"^\d+\b", v):
            findings.append(Finding("TSK-R007", "error", f"{name} is not a number: {v!r}",
                                    ps.path, ps.current_lines[name], 1))


def _parse_history(ps: PipelineState, findings: list[Finding]) -> None:
    hist = _section_bounds(ps.lines, "History")
    if hist is None:
        findings.append(Finding("TSK-R007", "error", "no '## History' section", ps.path, 0, 0))
        return
    s, e = hist
    header_seen, last_row = False, s
    for j in range(s + 1, e):
        ln = ps.lines[j]
        if not ln.strip().startswith("|"):
            if header_seen and ln.strip():
                break
            continue
        cells = split_row(ln)
        last_row = j
        if not header_seen or is_separator(cells):
            header_seen = True
        else:
            _history_row(ps, cells, j, findings)
    if not header_seen:
        findings.append(Finding("TSK-R007", "warning", "History has no table; one is added "
                                "on the next transition", ps.path, s + 1, 1))
    ps.history_insert = last_row + 1


def _history_row(ps: PipelineState, cells: list[str], j: int, findings: list[Finding]) -> None:
    if len(cells) < 5:
        findings.append(Finding("TSK-R007", "warning",
                                f"History row has {len(cells)} cells, expected 5",
                                ps.path, j + 1, 1))
        return
    num = int(cells[0]) if cells[0].isdigit() else 0
    ps.history.append(HistoryRow(num, cells[1], cells[2], cells[3], " | ".join(cells[4:]), j + 1))


def _parse_catalogue(ps: PipelineState) -> None:
    cat = _section_bounds(ps.lines, "Catalogue")
    if cat is None:
        return
    state, in_todo = None, False
    for ln in ps.lines[cat[0] + 1:cat[1]]:
        if ln.startswith("### "):
            m = _STATE_TOKEN.search(ln[4:])
            state, in_todo = (m.group(0) if m else None), False
            if state:
                ps.catalogue.setdefault(state, [])
        elif state is not None:
            in_todo = _catalogue_line(ln, ps.catalogue[state], in_todo)


def _catalogue_line(ln: str, todo: list[str], in_todo: bool) -> bool:
    """One line under a state's heading: a todo item (or its continuation) is added to
    `todo`; returns whether the next line is still inside the todo list."""
    if re.match(r"^\s*todo\s*:", ln):
        return True
    mm = _TODO.match(ln)
    if in_todo and mm:
        todo.append(mm.group("text").strip())
    elif in_todo and ln.strip() and ln.startswith("      ") and todo:
        todo[-1] += " " + ln.strip()
    elif ln.strip() and not ln.startswith(" "):
        return False
    return in_todo


def parse_pipeline_state(text: str, path: str = "PIPELINE_STATE.md") -> tuple[PipelineState, list[Finding]]:
    ps = PipelineState(path, text.split("\n"))
    findings: list[Finding] = []
    _parse_current(ps, findings)
    _parse_history(ps, findings)
    _parse_catalogue(ps)
    return ps, findings


def read_pipeline_state(path: str | Path) -> tuple[PipelineState | None, list[Finding]]:
    return read_with(parse_pipeline_state, path)


def render_transition(ps: PipelineState, updates: dict[str, str], todo: list[str],
                      row: HistoryRow) -> str:
    """The file text with Current values updated, todo replaced and one History row added.

    Every other line is kept as it was. Existing `key:   value` padding is kept.
    """
    lines = list(ps.lines)
    s, e = ps.block
    edits: list[tuple[int, int, list[str]]] = [  # (start, end, replacement), 0-based
        (s, e, _current_block(lines[s:e], updates)), _todo_edit(ps, lines, todo),
        _history_edit(ps, lines, row)]
    for start, end, repl in sorted(edits, key=lambda t: (t[0], t[1]), reverse=True):
        lines[start:end] = repl
    return "\n".join(lines)


def _current_block(block: list[str], updates: dict[str, str]) -> list[str]:
    """The Current block with each updated `key: value` rewritten in place, new keys appended."""
    new_block = list(block)
    seen = set()
    for idx, text in enumerate(new_block):
        m = _KV.match(text.strip())
        if m and m.group("key") in updates:
            key = m.group("key")
            lead = text[: len(text) - len(text.lstrip())]
            new_block[idx] = f"{lead}{key}{m.group('sep')}{updates[key]}"
            seen.add(key)
    return new_block + [f"{key}: {val}" for key, val in updates.items() if key not in seen]


def _todo_edit(ps: PipelineState, lines: list[str], todo: list[str]
               ) -> tuple[int, int, list[str]]:
    items = [f"- [ ] {t}" for t in todo]
    if ps.todo_header >= 0:
        ts, te = ps.todo_span
        if te <= ts:
            ts = te = ps.todo_header + 1
        return ts, te, items
    e = ps.block[1]  # after the Current fence
    anchor = e + 1 if e < len(lines) and lines[e].strip().startswith("```") else e
    return anchor, anchor, ["", "todo:", *items]


def _history_edit(ps: PipelineState, lines: list[str], row: HistoryRow
                  ) -> tuple[int, int, list[str]]:
    cells = [str(row.num), row.date, row.from_state, row.to_state, escape_cell(row.note)]
    line = "| " + " | ".join(cells) + " |"
    header = ["| " + " | ".join(HISTORY_HEADER) + " |", "|---|------|------|----|------|"]
    if ps.history_insert < 0:
        return len(lines), len(lines), ["", "## History", "", *header, line]
    at = ps.history_insert
    has_table = any(ln.strip().startswith("|") for ln in lines[max(0, at - 2):at])
    return at, at, [line] if has_table else ["", *header, line]
