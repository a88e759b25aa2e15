"""A one-line progress counter on stderr, only when a person is watching.

Shown when stderr is a terminal, the command was not asked to be quiet, and the
work has already taken half a second; piped or captured runs stay silent.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(self, label: str, enabled: bool | None = None,
                 stream: TextIO | None = None, delay: float = 0.5) -> None:
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = enabled
        self.label = label
        self.start = time.monotonic()
        self.delay = delay
        self.last = 0.0
        self.shown = False

    def update(self, done: int, total: int, what: str = "page") -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < self.delay or (now - self.last < 0.1 and done < total):
            return
        self.last = now
        self.shown = True
        self.stream.write(f"\r{self.label}: {what} {done}/{total}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
