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
            # one bytes.find pass per anchor: merge variants ("pip ", 'pip"') and drop
            # anchors that contain another anchor (their lines are found anyway)
            base = set()
            for a in self.anchors:
                core = a.rstrip(b' \t"\\')
                base.add(core if len(core) >= 3 else a)
            self.anchors = sorted((a for a in base if not any(b != a and b in a for b in base)),
                                  key=len, reverse=True)
        if self.engine == "re2" and self.anchors:
            import re2

            opts = re2.Options()
            opts.max_mem = 256 << 20
            alts = [re.escape(a) for a in self.anchors] + ([extra] if extra else [])
            self._rx = re2.compile(b"|".join(alts), opts)

    def found(self, buf: bytes) -> bool:
        """Does any anchor occur in buf? (one short text: a command, a path)"""
        if not self.anchors:
            return False
        if self._rx is not None:
            return self._rx.search(buf) is not None
        return any(a in buf for a in self.anchors) or (
            self._extra is not None and self._extra.search(buf) is not None)

    def span(self, buf: bytes, pos: int = 0) -> tuple[int, int] | None:
        """(start, end) of the first anchor at or after `pos`, or None."""
        if not self.anchors:
            return None
        if self._rx is not None:
            m = self._rx.search(buf, pos)
            return None if m is None else (m.start(), m.end())
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
        out: list[int] = []
        if not self.anchors:
            return out
        find, rfind = buf.find, buf.rfind
        if self._rx is not None:
            search = self._rx.search
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
        seen: set[int] = set()
        if self._extra is not None:
            for m in self._extra.finditer(buf, 0, end):
                start = rfind(b"\n", 0, m.start()) + 1
                if start not in seen:
                    seen.add(start)
                    out.append(start)
        for a in self.anchors:
            pos = 0
            while True:
                i = find(a, pos, end)
                if i == -1:
                    break
                start = rfind(b"\n", 0, i) + 1
                if start not in seen:
                    seen.add(start)
                    out.append(start)
                nl = find(b"\n", i, end)
                if nl == -1:
                    break
                pos = nl + 1
        out.sort()
        return out


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
            if eof:
                if not buf:
                    break
                end = len(buf)
                if buf[-1:] != b"\n":
                    stats.last_line_unterminated = bool(buf.strip())
                    buf += b"\n"
                    end = len(buf)
            else:
                end = buf.rfind(b"\n") + 1
                if end == 0:
                    if len(buf) > MAX_LINE:
                        line_no += 1
                        stats.overlong.append(line_no)
                        # skip to the next newline without holding the line
                        while True:
                            more = fh.read(BLOCK)
                            stats.bytes += len(more)
                            if not more:
                                rest = b""
                                break
                            nl = more.find(b"\n")
                            if nl != -1:
                                rest = more[nl + 1:]
                                break
                        continue
                    rest = buf
                    continue
            if not stats.markers and any(buf.find(mk, 0, end) != -1 for mk in markers):
                stats.markers = 1
            yield from _lines_in(buf, end, line_no, matcher, every_line, stats, check_shape)
            line_no += stats.block_lines
            rest = buf[end:]
            if eof:
                break
    stats.lines = line_no


def _lines_in(buf: bytes, end: int, line_no: int, matcher: Matcher, every_line: bool,
              stats: LineStats, check_shape: bool) -> Iterator[tuple[int, bytes]]:
    """Yield the hit lines of buf[:end]; store the block's line count in stats.block_lines.

    When every line is visited anyway (shape check or every_line), line numbers come
    from that walk; otherwise newlines are counted between hits only once.
    """
    bad = stats.bad_lines
    assert bad is not None
    find = buf.find
    if check_shape or every_line:
        hits = set() if every_line else set(matcher.line_starts(buf, end))
        pos = 0
        n = line_no
        while pos < end:
            nl = find(b"\n", pos, end)
            n += 1
            if nl > pos:
                a = buf[pos]
                z = buf[nl - 1]
                suspect = check_shape and (a != 123 or (z != 125 and z != 13))
                if suspect:
                    seg = buf[pos:nl].strip()
                    suspect = bool(seg) and (seg[:1] != b"{" or seg[-1:] != b"}")
                    if suspect:
                        bad.append(n)
                if every_line or suspect or pos in hits:
                    line = buf[pos:nl]
                    if line.strip():
                        yield n, line
            pos = nl + 1
        stats.block_lines = n - line_no
        return
    counted = 0
    cur = line_no
    for start in matcher.line_starts(buf, end):
        cur += buf.count(b"\n", counted, start)
        counted = start
        nl = find(b"\n", start, end)
        line = buf[start:nl]
        if line.strip():
            yield cur + 1, line
    stats.block_lines = (cur - line_no) + buf.count(b"\n", counted, end)
