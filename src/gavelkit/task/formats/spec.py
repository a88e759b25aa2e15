"""spec.md as a tree of H2/H3 sections with the exact heading text and lines.

Gates D, E, F and the spot-check all talk about "the exact heading", so the
reader keeps the heading text byte-for-byte (backticks included) and, beside
it, a normalised form used only for matching map cells that drift (`##`
prefixes, backticks, case). Headings inside code fences and HTML comments
(the INTERNAL header) are not headings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from gavelkit.core.findings import Finding
from gavelkit.task.formats._md import code_mask
from gavelkit.task.formats._read import read_with

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")


def norm_heading(text: str) -> str:
    """Matching form of a heading or map cell: no #, §, backticks, quotes; folded case."""
    t = text.strip()
    t = re.sub(r"^(?:#{1,6}\s*|§\s*|section\s+)", "", t, flags=re.I)
    t = t.replace("`", "").replace("**", "")
    t = t.strip(" \t\"'“”")
    return re.sub(r"\s+", " ", t).casefold()


@dataclass(slots=True)
class Section:
    level: int
    text: str  # exact heading text, without the leading #'s
    line: int  # 1-based line of the heading
    end: int  # last line (inclusive) of the section body, children included
    parent: int | None = None  # index of the enclosing H2 for an H3
    children: list[int] = field(default_factory=list)

    @property
    def key(self) -> str:
        return norm_heading(self.text)

    @property
    def raw(self) -> str:
        return "#" * self.level + " " + self.text


@dataclass(slots=True)
class Spec:
    path: str
    lines: list[str]
    title: str = ""
    title_line: int = 0
    sections: list[Section] = field(default_factory=list)  # every H2..H6 in order
    mask: list[bool] = field(default_factory=list)  # True = code/comment line

    def tree(self) -> list[Section]:
        """H2 and H3 sections, in document order (what the gates audit)."""
        return [s for s in self.sections if s.level in (2, 3)]

    def find(self, text: str) -> list[Section]:
        """Sections whose heading matches `text` after normalisation."""
        key = norm_heading(text)
        return [s for s in self.sections if s.key == key]

    def exact(self, text: str) -> Section | None:
        """The section whose heading is exactly `text` (an optional #-prefix may be given)."""
        t = text.strip()
        m = _HEADING.match(t)
        level = None
        if m and t.startswith("#"):
            level, t = len(m.group(1)), m.group(2)
        for s in self.sections:
            if s.text == t and (level is None or s.level == level):
                return s
        return None

    def body(self, sec: Section, own_only: bool = False) -> list[tuple[int, str]]:
        """(line, text) of the section's content, code/comments excluded.

        own_only stops at the first sub-heading (content before any child).
        """
        out: list[tuple[int, str]] = []
        for ln in range(sec.line + 1, sec.end + 1):
            text = self.lines[ln - 1]
            if self.mask[ln - 1]:
                continue
            if own_only and _HEADING.match(text) and text.startswith("#"):
                break
            out.append((ln, text))
        return out

    def raw_body(self, sec: Section) -> list[tuple[int, str]]:
        return [(ln, self.lines[ln - 1]) for ln in range(sec.line + 1, sec.end + 1)]


def parse_spec(text: str, path: str = "spec.md") -> tuple[Spec, list[Finding]]:
    lines = text.split("\n")
    mask = code_mask(lines)
    spec = Spec(path, lines, mask=mask)
    findings: list[Finding] = []
    stack: list[int] = []  # indexes of open sections by level
    for i, line in enumerate(lines):
        m = None if mask[i] or not line.startswith("#") else _HEADING.match(line)
        if m:
            _add_heading(spec, stack, len(m.group(1)), m.group(2).strip(), i, findings)
    findings += _repeated_headings(spec)
    if not spec.tree():
        findings.append(Finding("TSK-R001", "error", "spec has no H2/H3 sections", path, 0, 0))
    return spec, findings


def _add_heading(spec: Spec, stack: list[int], level: int, text: str, i: int,
                 findings: list[Finding]) -> None:
    """One heading at line index i: the title, or a section closing deeper open ones."""
    if level == 1:
        if not spec.title:
            spec.title, spec.title_line = text, i + 1
        for idx in stack:
            spec.sections[idx].end = i
        stack.clear()
        return
    if not text:
        findings.append(Finding("TSK-R001", "warning", "empty heading", spec.path, i + 1, 1))
        return
    _open_section(spec, stack, level, text, i, findings)


def _open_section(spec: Spec, stack: list[int], level: int, text: str, i: int,
                  findings: list[Finding]) -> None:
    while stack and spec.sections[stack[-1]].level >= level:
        spec.sections[stack.pop()].end = i
    sec = Section(level, text, i + 1, len(spec.lines))
    if stack:
        parent = stack[-1]
        if level == 3 and spec.sections[parent].level == 2:
            sec.parent = parent
            spec.sections[parent].children.append(len(spec.sections))
    elif level == 3:
        findings.append(Finding("TSK-R001", "warning", f"H3 '{text}' appears before any H2 "
                                "section", spec.path, i + 1, 1))
    spec.sections.append(sec)
    stack.append(len(spec.sections) - 1)


def _repeated_headings(spec: Spec) -> list[Finding]:
    out: list[Finding] = []
    seen: dict[tuple[int, str], int] = {}
    for s in spec.sections:
        if s.level not in (2, 3):
            continue
        k = (s.level, s.text)
        if k in seen:
            out.append(Finding(
                "TSK-R001", "warning",
                f"heading '{s.raw}' repeats line {seen[k]}; map rows cannot tell them apart",
                spec.path, s.line, 1))
        else:
            seen[k] = s.line
    return out


def read_spec(path: str | Path) -> tuple[Spec | None, list[Finding]]:
    return read_with(parse_spec, path)
