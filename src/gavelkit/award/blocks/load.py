"""Pick the run blocks of one kind out of loaded YAML documents.

A document contributes a block when it is a mapping with the kind's wrapper key
(`handoff:`, `gate:`, `scorecard:`, `decision_memo:`, `variant:`). A bare mapping
with no wrapper is taken as the requested kind only when its keys clearly belong to
that kind (an info finding says the wrapper was inferred); a block of another kind
is never silently taken.
"""

from __future__ import annotations

from gavelkit.award.tables import load_tables
from gavelkit.core.findings import Finding
from gavelkit.core.sources import Source
from gavelkit.core.yamlload import PosDict

TYPE_CHECKING = False  # typing costs start-up time that agents pay on every call
if TYPE_CHECKING:
    from typing import Any

KINDS = ("handoff", "gate", "scorecard", "decision_memo", "variant")


class Block:
    """One run block: its kind, body mapping, place, and 1-based index in its file."""

    __slots__ = ("body", "col", "index", "inferred", "kind", "line", "path")

    def __init__(self, kind: str, body: PosDict, path: str, line: int, col: int, index: int,
                 inferred: bool = False) -> None:
        self.kind = kind
        self.body = body
        self.path = path
        self.line = line
        self.col = col
        self.index = index
        self.inferred = inferred


def _guess(doc: PosDict) -> str | None:
    """The kind whose required keys a bare mapping matches best (>= 60 % of them)."""
    blocks = load_tables().blocks
    best, best_ratio = None, 0.0
    keys = set(doc)
    for kind in KINDS:
        req = set(blocks[kind]["required"])
        ratio = len(keys & req) / len(req)
        if ratio > best_ratio:
            best, best_ratio = kind, ratio
    return best if best_ratio >= 0.6 else None


def select(source: Source, kind: str) -> tuple[list[Block], list[Finding]]:
    """Blocks of `kind` in `source`, plus findings for missing or malformed ones."""
    found: list[Block] = []
    findings: list[Finding] = []
    others: list[str] = []
    bare: list[tuple[PosDict, int, int]] = []
    for doc in source.docs:
        data = doc.data
        if not isinstance(data, dict):
            others.append(f"a {type(data).__name__} document at line {doc.line}")
            continue
        wrappers = [k for k in KINDS if k in data]
        if not wrappers:
            bare.append((data, doc.line, doc.col))
            continue
        for w in wrappers:
            line, col = data.kpos(w) if isinstance(data, PosDict) else (doc.line, doc.col)
            if w != kind:
                others.append(f"{w} at line {line}")
                continue
            body = data[w]
            if not isinstance(body, dict):
                findings.append(Finding(
                    "AWD-B003", "error",
                    f"'{kind}:' must hold a mapping, got {_kind_name(body)}",
                    source.path, line, col))
                continue
            found.append(Block(kind, body, source.path, line, col, len(found) + 1))
    if not found:
        for data, line, col in bare:
            guess = _guess(data)
            if guess == kind:
                found.append(Block(kind, data, source.path, line, col, len(found) + 1, True))
                findings.append(Finding(
                    "AWD-B002", "info",
                    f"no '{kind}:' wrapper; the bare mapping was read as a {kind} block",
                    source.path, line, col, hint=f"start the block with '{kind}:'"))
            else:
                others.append(f"a bare mapping at line {line}" +
                              (f" (looks like {guess})" if guess else ""))
    if not found and not source.unusable:
        seen = f" (found: {', '.join(others)})" if others else ""
        findings.append(Finding("AWD-B001", "error",
                                f"no '{kind}' block found{seen}", source.path, 1 if source.docs else 0, 1))
    return found, findings


def _kind_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, list):
        return "a list"
    return f"a {type(value).__name__}"
