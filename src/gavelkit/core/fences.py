"""The one Markdown fence scanner: where fenced code blocks open and close.

Handles what real phase logs contain and the public extractor missed: any case
of the `yaml`/`yml` tag, info strings after it, `~~~` fences, fences indented
inside list items (content dedented by the fence's indent), longer fences that
contain shorter ones, and a fence left open at the end of the file. A backtick
fence whose info string holds a backtick is not a fence (CommonMark). The task
readers' code mask (task/formats/_md.code_mask) uses the same two rules,
`fence_open` and `fence_closes`.
"""

from __future__ import annotations

import re

_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n]*)$")
YAML_TAGS = frozenset({"yaml", "yml"})


class Fence:
    """A fenced block: `line0` lines precede its content; `open_line` is 1-based."""

    __slots__ = ("closed", "indent", "lang", "line0", "open_line", "text")

    def __init__(self, lang: str, text: str, line0: int, indent: int, open_line: int,
                 closed: bool) -> None:
        self.lang = lang
        self.text = text
        self.line0 = line0
        self.indent = indent
        self.open_line = open_line
        self.closed = closed


def _lang(info: str) -> str:
    info = info.strip()
    if info.startswith("{"):
        m = re.match(r"\{\s*\.?([A-Za-z0-9_+-]+)", info)
        return m.group(1).lower() if m else ""
    return re.split(r"[\s{]", info, maxsplit=1)[0].lower() if info else ""


def fence_open(line: str) -> tuple[str, str, int] | None:
    """(fence, info string, indent) when `line` opens a fenced block, else None."""
    m = _OPEN.match(line)
    if not m or (m.group("fence")[0] == "`" and "`" in m.group("info")):
        return None
    return m.group("fence"), m.group("info"), len(m.group("indent").expandtabs(4))


def fence_closes(line: str, fence: str) -> bool:
    """Does `line` close a block opened by `fence` (the same character, at least as long,
    nothing else on the line)?"""
    s = line.strip()
    return len(s) >= len(fence) and set(s) == {fence[0]}


def find_fences(text: str) -> list[Fence]:
    """All fenced code blocks of a Markdown text (any language)."""
    lines = text.split("\n")
    out: list[Fence] = []
    i = 0
    n = len(lines)
    while i < n:
        opened = fence_open(lines[i])
        if opened is None:
            i += 1
            continue
        fence, info, indent = opened
        body: list[str] = []
        j = i + 1
        while j < n and not fence_closes(lines[j], fence):
            body.append(_dedent(lines[j], indent))
            j += 1
        out.append(Fence(_lang(info), "\n".join(body), i + 1, indent, i + 1, j < n))
        i = j + 1
    return out


def _dedent(line: str, indent: int) -> str:
    expanded = line.expandtabs(4) if "\t" in line[: indent + 1] else line
    k = 0
    while k < indent and k < len(expanded) and expanded[k] == " ":
        k += 1
    return expanded[k:]
