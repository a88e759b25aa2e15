"""A one-line progress display on stderr, shown only when a person is watching.

Commands that may run over ~2 s (PDF QA on big papers, contact sheets, figqa over a
gallery, scans of big transcripts, report-all, judge-all) show where they are on a
terminal, and stay silent when stderr is piped or captured, or with ``--quiet``, so
agents and CI logs never see carriage returns. Stdlib only, no dependency.

API (adopt it in any command)::

    from gavelkit.core.progress import Progress, track

    # 1. wrap an iterable: yields the same items, counts them
    for task in track(tasks, "report-all", quiet=args.quiet, what=lambda t: t.name):
        ...

    # 2. a context manager, updated by hand (or from a library callback)
    with Progress("pdfqa", total=n, quiet=args.quiet) as bar:
        for i in range(n):
            ...
            bar.advance(item=f"page {i + 1}")      # one step done
        # or: bar.update(done, total)              # absolute position (callback style)

    # library code takes a plain callback and never imports this module:
    pdfqa.load(path, progress=bar.update)          # progress(done, total)

Behaviour:
- enabled only when ``stream.isatty()`` (default stream: ``sys.stderr``), ``quiet`` is
  false and ``GAVEL_PROGRESS`` is not ``0``; ``GAVEL_PROGRESS=1`` forces it on (tests,
  demos); ``enabled=True/False`` overrides both.
- nothing is drawn before ``delay`` seconds (0.5 by default), so quick runs never
  flicker, and redraws are throttled to one per ``interval`` seconds (0.1).
- the line reads ``label: done/total (pct%) item`` (or ``label: done item`` with no
  total) and is cleared on close, so the command's own output starts on a clean line.
- never raises on a closed or broken stream: progress must not kill the work.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO, TypeVar

T = TypeVar("T")

CLEAR = "\r\x1b[K"


def _wanted(stream: TextIO, quiet: bool) -> bool:
    env = os.environ.get("GAVEL_PROGRESS", "")
    if env == "0" or quiet:
        return False
    if env == "1":
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


class Progress:
    """One progress line on a terminal; a no-op everywhere else."""

    def __init__(self, label: str, total: int | None = None, *, quiet: bool = False,
                 stream: TextIO | None = None, enabled: bool | None = None,
                 delay: float = 0.5, interval: float = 0.1, width: int = 100) -> None:
        self.label = label
        self.total = total
        self.done = 0
        self.item = ""
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = _wanted(self.stream, quiet) if enabled is None else enabled
        self.delay = delay
        self.interval = interval
        self.width = width
        self.start = time.monotonic()
        self._last = -1e9
        self.shown = False

    # -- updating ---------------------------------------------------------------
    def update(self, done: int, total: int | None = None, item: str = "") -> None:
        """Absolute position; the signature fits ``progress(done, total)`` callbacks."""
        self.done = done
        if total is not None:
            self.total = total
        if item:
            self.item = item
        self._draw()

    def advance(self, n: int = 1, item: str = "") -> None:
        """``n`` more steps done; ``item`` names what is being worked on now."""
        self.update(self.done + n, None, item)

    def line(self) -> str:
        """The text that would be shown (without the carriage return)."""
        if self.total:
            pct = 100.0 * self.done / self.total
            text = f"{self.label}: {self.done}/{self.total} ({pct:.0f}%)"
        else:
            text = f"{self.label}: {self.done}"
        if self.item:
            text += f" {self.item}"
        return text[: self.width]

    def _draw(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        finished = self.total is not None and self.done >= self.total
        if not force and (now - self.start < self.delay
                          or (now - self._last < self.interval and not finished)):
            return
        self._last = now
        self._write(CLEAR + self.line())
        self.shown = True

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = False

    # -- closing ----------------------------------------------------------------
    def close(self) -> None:
        """Clear the line (if anything was drawn); safe to call twice."""
        if self.enabled and self.shown:
            self._write(CLEAR)
        self.shown = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def track(items: Iterable[T], label: str, total: int | None = None, *, quiet: bool = False,
          stream: TextIO | None = None, enabled: bool | None = None, delay: float = 0.5,
          what: Callable[[T], str] | None = None) -> Iterator[T]:
    """Yield ``items`` unchanged while counting them on a progress line.

    ``total`` defaults to ``len(items)`` when it has one; ``what(item)`` names the item
    being worked on. The line is cleared when the loop ends, breaks or raises.
    """
    if total is None:
        try:
            total = len(items)  # type: ignore[arg-type]
        except TypeError:
            total = None
    bar = Progress(label, total, quiet=quiet, stream=stream, enabled=enabled, delay=delay)
    try:
        for it in items:
            if what is not None:
                bar.item = what(it)
            bar._draw()
            yield it
            bar.done += 1
        bar._draw()
    finally:
        bar.close()
