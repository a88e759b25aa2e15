"""Find the lines of a big log that contain any of a set of literal anchors, fast.

The scanner parses only lines that can matter; this module finds them. Two
engines give the same answers (tests run both):

* `re2` — google-re2 (PyPI `google-re2`), one alternation of the escaped
  literals run over each 8 MiB block: a DFA, so its speed does not depend on the
  number of anchors (measured in benchmarks/scan/).
* `find` — pure Python: one `bytes.find` pass per anchor per block (memchr-class
  speed per pass). Used when re2 is not importable or GAVEL_SCAN_ENGINE=find.

Both stream a file block by block, so memory is bounded by the block size plus
the longest line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

BLOCK = 8 * 1024 * 1024
MAX_LINE = int(os.environ.get("GAVEL_SCAN_MAX_LINE", str(256 * 1024 * 1024)))


def available_engines() -> list[str]:
    out = ["find"]
    try:
        import re2  # noqa: F401
    except ImportError:
        return out
    return ["re2", *out]


def default_engine() -> str:
    want = os.environ.get("GAVEL_SCAN_ENGINE", "")
    engines = available_engines()
    if want in engines:
        return want
    return engines[0]


Span = Callable[[Any, int], "tuple[int, int] | None"]


@lru_cache(maxsize=256)
def span_search(rx: Any) -> Span:
    """`rx.search(buf, pos)` as its (start, end) span, or None. For a google-re2 pattern
    searched in bytes this is the one call its wrapper makes (`_regexp.Match` with the
    same bounds, whose first span is the match; the wrapper adds a generator and a match
    object per call, a good part of a short search's cost); any other pattern or text
    goes through `search` itself."""
    inner = getattr(getattr(rx, "_regexp", None), "Match", None)
    anchor = _re2_unanchored()
    if inner is None or anchor is None:
        return _plain_search(rx)
    plain = _plain_search(rx)

    def search(buf: Any, pos: int = 0) -> tuple[int, int] | None:
        if type(buf) is not bytes:
            return plain(buf, pos)
        span = inner(anchor, buf, max(0, min(pos, len(buf))), len(buf))[0]
        return None if span[0] == -1 else span
    return search


def _plain_search(rx: Any) -> Span:
    def search(buf: Any, pos: int = 0) -> tuple[int, int] | None:
        m = rx.search(buf, pos)
        return None if m is None else (m.start(), m.end())
    return search


def _re2_unanchored() -> Any:
    try:
        import re2
    except ImportError:
        return None
    return getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)


class Matcher:
    """`starts(block)`: sorted offsets where some anchor occurs in the block."""

    def __init__(self, anchors: Sequence[bytes], engine: str | None = None,
                 extra: bytes | None = None) -> None:
        self.anchors = sorted({a for a in anchors if a}, key=len, reverse=True)
        self.engine = engine or default_engine()
        self._rx = None
        # a regular expression found besides the literals (base64 runs): re2 merges it
        # into its alternation; the pure-Python engine runs it as a pass of its own
        self._extra = re.compile(extra) if extra and self.engine == "find" else None
        if self.engine == "find":
            self.anchors = _merged(self.anchors)
        elif self.engine == "re2" and self.anchors:
            self._rx = _re2_alternation(self.anchors, extra)
            self._span = span_search(self._rx)

    def found(self, buf: bytes) -> bool:
        """Does any anchor occur in buf? (one short text: a command, a path)"""
        if not self.anchors:
            return False
        if self._rx is not None:
            return self._span(buf, 0) is not None
        return any(a in buf for a in self.anchors) or (
            self._extra is not None and self._extra.search(buf) is not None)

    def span(self, buf: bytes, pos: int = 0) -> tuple[int, int] | None:
        """(start, end) of the first anchor at or after `pos`, or None."""
        if not self.anchors:
            return None
        if self._rx is not None:
            return self._span(buf, pos)
        return self._find_span(buf, pos)

    def _find_span(self, buf: bytes, pos: int) -> tuple[int, int] | None:
        best: tuple[int, int] | None = None
        for a in self.anchors:
            i = buf.find(a, pos, best[0] + len(a) if best else len(buf))
            if i != -1 and (best is None or i < best[0]):
                best = (i, i + len(a))
        if self._extra is not None:
            m = self._extra.search(buf, pos)
            if m is not None and (best is None or m.start() < best[0]):
                best = (m.start(), m.end())
        return best

    def line_starts(self, buf: bytes, end: int) -> list[int]:
        """Start offsets of the lines in buf[:end] that contain an anchor."""
        if not self.anchors:
            return []
        if self._rx is not None:
            return self._re2_line_starts(buf, end)
        seen: set[int] = set()
        out: list[int] = []
        if self._extra is not None:
            for m in self._extra.finditer(buf, 0, end):
                _add_line(buf, m.start(), seen, out)
        for a in self.anchors:
            _anchor_lines(buf, end, a, seen, out)
        out.sort()
        return out

    def _re2_line_starts(self, buf: bytes, end: int) -> list[int]:
        out: list[int] = []
        search, find, rfind = self._rx.search, buf.find, buf.rfind  # type: ignore[union-attr]
        pos = 0
        while pos < end:
            m = search(buf, pos, end)
            if m is None:
                break
            i = m.start()
            out.append(rfind(b"\n", 0, i) + 1)
            nl = find(b"\n", i, end)
            pos = end if nl == -1 else nl + 1
        return out


def _merged(anchors: list[bytes]) -> list[bytes]:
    """For one bytes.find pass per anchor: merge variants ("pip ", 'pip"') and drop
    anchors that contain another anchor (their lines are found anyway)."""
    base = set()
    for a in anchors:
        core = a.rstrip(b' \t"\\')
        base.add(core if len(core) >= 3 else a)
    return sorted((a for a in base if not any(b != a and b in a for b in base)),
                  key=len, reverse=True)


def _re2_alternation(anchors: list[bytes], extra: bytes | None) -> Any:
    import re2

    opts = re2.Options()
    opts.max_mem = 256 << 20
    alts = [re.escape(a) for a in anchors] + ([extra] if extra else [])
    return re2.compile(b"|".join(alts), opts)


def _add_line(buf: bytes, i: int, seen: set[int], out: list[int]) -> None:
    start = buf.rfind(b"\n", 0, i) + 1
    if start not in seen:
        seen.add(start)
        out.append(start)


def _anchor_lines(buf: bytes, end: int, a: bytes, seen: set[int], out: list[int]) -> None:
    """The lines holding anchor `a` (one find per line: the rest of a line is skipped)."""
    pos = 0
    while True:
        i = buf.find(a, pos, end)
        if i == -1:
            return
        _add_line(buf, i, seen, out)
        nl = buf.find(b"\n", i, end)
        if nl == -1:
            return
        pos = nl + 1


@dataclass(slots=True)
class LineStats:
    lines: int = 0
    bytes: int = 0
    bad_lines: list[int] | None = None     # lines that do not look like a JSON object
    last_line_unterminated: bool = False
    overlong: list[int] | None = None
    markers: int = 0                       # >0 once one of the caller's markers was seen
    block_lines: int = 0
    on_block: Callable[[int], None] | None = None  # called with bytes read so far


def hit_lines(path: str, matcher: Matcher, every_line: bool, stats: LineStats,
              check_shape: bool = True,
              markers: Sequence[bytes] = ()) -> Iterator[tuple[int, bytes]]:
    """Yield (1-based line number, line bytes) for every line with an anchor.

    With every_line, yield all non-blank lines. `check_shape` records lines whose
    first/last non-blank bytes are not `{`/`}` (truncated or foreign lines) in
    stats.bad_lines, so the caller can parse just those and report them.
    """
    stats.bad_lines = []
    stats.overlong = []
    line_no = 0
    rest = b""
    with open(path, "rb") as fh:
        while True:
            block = fh.read(BLOCK)
            stats.bytes += len(block)
            if stats.on_block is not None:
                stats.on_block(stats.bytes)
            eof = not block
            buf = rest + block if rest else block
            if eof and not buf:
                break
            buf, end = _complete(buf, eof, stats)
            if end == 0:
                rest, skipped = _no_line_end(fh, buf, stats, line_no)
                line_no += skipped
                continue
            _see_markers(buf, end, markers, stats)
            yield from _lines_in(buf, end, line_no, matcher, every_line, stats, check_shape)
            line_no += stats.block_lines
            rest = buf[end:]
            if eof:
                break
    stats.lines = line_no


def _complete(buf: bytes, eof: bool, stats: LineStats) -> tuple[bytes, int]:
    """The block and where its complete lines end (0: none yet). At the end of the file
    the last line counts, terminated or not (it gets its newline)."""
    if not eof:
        return buf, buf.rfind(b"\n") + 1
    if buf[-1:] != b"\n":
        stats.last_line_unterminated = bool(buf.strip())
        buf += b"\n"
    return buf, len(buf)


def _see_markers(buf: bytes, end: int, markers: Sequence[bytes], stats: LineStats) -> None:
    if not stats.markers and any(buf.find(mk, 0, end) != -1 for mk in markers):
        stats.markers = 1


def _no_line_end(fh: Any, buf: bytes, stats: LineStats, line_no: int) -> tuple[bytes, int]:
    """A block with no newline yet: keep reading, unless the line is over MAX_LINE (then
    it is skipped unchecked and reported). Returns what to keep and the lines skipped."""
    if len(buf) <= MAX_LINE:
        return buf, 0
    stats.overlong.append(line_no + 1)  # type: ignore[union-attr]
    return _skip_line(fh, stats), 1


def _skip_line(fh: Any, stats: LineStats) -> bytes:
    """Skip to the next newline without holding the line; what follows it."""
    while True:
        more = fh.read(BLOCK)
        stats.bytes += len(more)
        if not more:
            return b""
        nl = more.find(b"\n")
        if nl != -1:
            return more[nl + 1:]


def _lines_in(buf: bytes, end: int, line_no: int, matcher: Matcher, every_line: bool,
              stats: LineStats, check_shape: bool) -> Iterator[tuple[int, bytes]]:
    """Yield the hit lines of buf[:end]; store the block's line count in stats.block_lines.

    When every line is visited anyway (shape check or every_line), line numbers come
    from that walk; otherwise newlines are counted between hits only once.
    """
    if check_shape or every_line:
        yield from _walk_lines(buf, end, line_no, matcher, every_line, stats, check_shape)
        return
    counted = 0
    cur = line_no
    for start in matcher.line_starts(buf, end):
        cur += buf.count(b"\n", counted, start)
        counted = start
        line = buf[start:buf.find(b"\n", start, end)]
        if line.strip():
            yield cur + 1, line
    stats.block_lines = (cur - line_no) + buf.count(b"\n", counted, end)


def _walk_lines(buf: bytes, end: int, line_no: int, matcher: Matcher, every_line: bool,
                stats: LineStats, check_shape: bool) -> Iterator[tuple[int, bytes]]:
    """Every line of the block: the shape check on each, the hit (or every) line yielded."""
    bad = cast(list[int], stats.bad_lines)       # set by hit_lines
    find = buf.find
    hits = set() if every_line else set(matcher.line_starts(buf, end))
    pos = 0
    n = line_no
    while pos < end:
        nl = find(b"\n", pos, end)
        n += 1
        if nl > pos:
            suspect = check_shape and _suspect(buf, pos, nl)
            if suspect:
                bad.append(n)
            if (every_line or suspect or pos in hits) and buf[pos:nl].strip():
                yield n, buf[pos:nl]
        pos = nl + 1
    stats.block_lines = n - line_no


def _suspect(buf: bytes, pos: int, nl: int) -> bool:
    """A line that does not look like one JSON object (`{…}`): truncated or foreign."""
    a, z = buf[pos], buf[nl - 1]
    if a == 123 and (z == 125 or z == 13):
        return False
    seg = buf[pos:nl].strip()
    return bool(seg) and (seg[:1] != b"{" or seg[-1:] != b"}")
