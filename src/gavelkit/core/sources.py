"""Turn a file (bare YAML or Markdown with fences) into positioned YAML documents.

This is the single entry point every YAML-reading command uses, so CRLF, BOM,
size limits, duplicate keys and alias bombs are handled once.
"""

from __future__ import annotations

import os

from gavelkit.core.errors import InputError
from gavelkit.core.fences import YAML_TAGS, find_fences
from gavelkit.core.findings import Finding
from gavelkit.core.textio import read_text
from gavelkit.core.yamlload import load_documents

TYPE_CHECKING = False  # typing costs start-up time that agents pay on every call
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd"})


class SourceDoc:
    """One YAML document from a file, with its place in that file."""

    __slots__ = ("col", "data", "fenced", "line", "path")

    def __init__(self, data: Any, path: str, line: int, col: int, fenced: bool) -> None:
        self.data = data
        self.path = path
        self.line = line
        self.col = col
        self.fenced = fenced


class Source:
    """A loaded file: its YAML documents and the findings met while reading it."""

    __slots__ = ("docs", "findings", "path")

    def __init__(self, path: str) -> None:
        self.path = path
        self.docs: list[SourceDoc] = []
        self.findings: list[Finding] = []

    @property
    def unusable(self) -> bool:
        return any(f.unusable for f in self.findings)


def load_source(path: str | Path, text: str | None = None,
                root: str | Path | None = None) -> Source:
    """Read `path` and parse its YAML; problems become findings, never exceptions.

    A YAML error in one fence is reported and the other fences are still read. With
    `root`, a path whose links lead outside it is not read (a finding says so).
    """
    name = str(path)
    src = Source(name)
    if text is None:
        try:
            text = read_text(path, root=root)
        except InputError as exc:
            src.findings.append(exc.to_finding())
            return src
    suffix = os.path.splitext(name)[1].lower()
    fences = find_fences(text) if suffix not in (".yaml", ".yml") else []
    yaml_fences = [f for f in fences if f.lang in YAML_TAGS]
    if suffix in MARKDOWN_SUFFIXES or yaml_fences:
        for fence in yaml_fences:
            if not fence.closed:
                src.findings.append(Finding(
                    "GK-Y004", "warning",
                    f"YAML fence opened at line {fence.open_line} is never closed; "
                    "read to the end of the file", name, fence.open_line, fence.indent + 1))
            _parse_into(src, fence.text, fence.line0, fence.indent, fenced=True)
    else:
        _parse_into(src, text, 0, 0, fenced=False)
    return src


def _parse_into(src: Source, text: str, line0: int, col0: int, fenced: bool) -> None:
    try:
        docs = load_documents(text, src.path, line0, col0)
    except InputError as exc:
        src.findings.append(exc.to_finding())
        return
    for d in docs:
        for dup in d.duplicates:
            src.findings.append(Finding(
                "GK-Y003", "error",
                f"duplicate key '{dup.key}' (first at line {dup.first_line}); YAML keeps "
                "only the last value, so one of them is silently lost",
                src.path, dup.line, dup.col))
        src.docs.append(SourceDoc(d.data, src.path, d.line, d.col, fenced))
