"""Where patterns match in a document's texts joined together: the gate's per-document
marks (gate.Gate.prepare), one search per pattern over the joined action texts with its
matches mapped back to the texts they overlap, and literal sets found in UTF-8 bytes.
Split from gate.py, which decides what the marks mean."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from itertools import accumulate
from operator import add
from typing import Any

from gavelkit.task.anticheat.prefilter import span_search

Search = Callable[[Any, int], "tuple[int, int] | None"]


def rx_search(rx: Any) -> Search:
    return span_search(rx)


@lru_cache(maxsize=16)
def text_found(rx: Any) -> Callable[[str], bool]:
    """`rx.search(text) is not None` for a str: a re2 pattern runs on the UTF-8 bytes,
    what its wrapper would encode the text to, through the direct call."""
    if isinstance(rx, re.Pattern):
        return lambda text: rx.search(text) is not None
    span = rx_search(rx)
    return lambda text: span(text.encode("utf-8", "surrogatepass"), 0) is not None


def mark(search: Search, joined: Any, starts: Sequence[int], flags: list[int],
         bit: int) -> None:
    """Set `bit` in flags[i] for every text i of `joined` (texts at `starts`, one
    separator between them) that a match of `search` overlaps; after a match the
    search goes on at the next text, so one call per marked text."""
    pos, last = 0, len(starts) - 1
    while True:
        span = search(joined, pos)
        if span is None:
            return
        i = bisect_right(starts, span[0]) - 1
        if i < last and span[0] == starts[i + 1] - 1:
            i += 1              # a match starting on the separator (`\nX=`) is the next's
        j = max(i, bisect_right(starts, max(span[1] - 1, span[0])) - 1)
        for k in range(max(i, 0), j + 1):
            flags[k] |= bit
        if j >= last:
            return
        pos = starts[j + 1]


class Joined:
    """Texts run together with one newline between them (as str and as UTF-8 bytes,
    each built once, when a pass first asks for it) and where each text starts."""

    def __init__(self, texts: list[str], raws: list[bytes]) -> None:
        self.texts, self.raws = texts, raws
        self._text: tuple[str, list[int]] | None = None
        self._raw: tuple[bytes, list[int]] | None = None

    def text(self) -> tuple[str, list[int]]:
        if self._text is None:
            self._text = "\n".join(self.texts), starts_of(map(len, self.texts))
        return self._text

    def raw(self) -> tuple[bytes, list[int]]:
        if self._raw is None:
            self._raw = b"\n".join(self.raws), starts_of(map(len, self.raws))
        return self._raw


def mark_texts(rx: Any, on: Joined, flags: list[int], bit: int) -> None:
    """`mark` with a compiled pattern: re2 on the UTF-8 bytes (its wrapper would encode a
    str on every call; its ASCII classes match where `re`'s do, and more), `re` on text."""
    joined, starts = on.text() if isinstance(rx, re.Pattern) else on.raw()
    mark(rx_search(rx), joined, starts, flags, bit)


def starts_of(lengths: Iterable[int]) -> list[int]:
    """Where each text starts when they are joined with one separator: the sum of the
    lengths before it, plus one separator for each text before it."""
    sums = list(accumulate(lengths, initial=0))
    sums.pop()
    return list(map(add, sums, range(len(sums))))


class Literals:
    """Where any of a few literals occurs in UTF-8 bytes: exactly where the alternation
    of the escaped literals (what `re` ran on the text) occurs in the text, UTF-8 being
    self-synchronising (a text holds a literal iff its bytes hold the literal's bytes).
    No variant is merged (the prefilter's pure engine widens `pip ` to `pip`)."""

    def __init__(self, lits: list[bytes], engine: str | None) -> None:
        from gavelkit.task.anticheat import prefilter

        alt = b"|".join(re.escape(a) for a in sorted(set(lits), key=len, reverse=True))
        rx: Any = re.compile(alt)
        if (engine or prefilter.default_engine()) == "re2":
            import re2

            rx = re2.compile(alt)
        self.span = span_search(rx)

    def found(self, buf: bytes) -> bool:
        return self.span(buf, 0) is not None
