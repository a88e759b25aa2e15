"""Find fenced YAML blocks in Markdown, keeping where each one starts.

Handles what real phase logs contain and the public extractor missed: any case
of the `yaml`/`yml` tag, info strings after it, `~~~` fences, fences indented
inside list items (content dedented by the fence's indent), longer fences that
contain shorter ones, and a fence left open at the end of the file.
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


def find_fences(text: str) -> list[Fence]:
    """All fenced code blocks of a Markdown text (any language)."""
    lines = text.split("\n")
    out: list[Fence] = []
    i = 0
    n = len(lines)
    while i < n:
        m = _OPEN.match(lines[i])
        if not m or (m.group("fence")[0] == "`" and "`" in m.group("info")):
            i += 1
            continue
        fence = m.group("fence")
        indent_str = m.group("indent")
        indent = len(indent_str.expandtabs(4))
        close = re.compile(r"^[ \t]*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$")
        body: list[str] = []
        j = i + 1
        closed = False
        while j < n:
            if close.match(lines[j]):
                closed = True
                break
            body.append(_dedent(lines[j], indent))
            j += 1
        out.append(Fence(_lang(m.group("info")), "\n".join(body), i + 1, indent, i + 1, closed))
        i = j + 1
    return out


def _dedent(line: str, indent: int) -> str:
    expanded = line.expandtabs(4) if "\t" in line[: indent + 1] else line
    k = 0
    while k < indent and k < len(expanded) and expanded[k] == " ":
        k += 1
    return expanded[k:]


def has_yaml_fence(text: str) -> bool:
    return any(f.lang in YAML_TAGS for f in find_fences(text))
