"""Errors that mean "this input cannot be used at all" (exit 2).

They carry a location so the CLI can print one clear line naming the file and
place instead of a traceback.
"""

from __future__ import annotations

from gavelkit.core.findings import Finding


class InputError(Exception):
    """Input that cannot be read or used: missing, binary, non-UTF-8, broken YAML, too big."""

    def __init__(self, path: str, message: str, line: int = 0, col: int = 0,
                 code: str = "GK-IO001") -> None:
        super().__init__(message)
        self.path = path
        self.message = message
        self.line = line
        self.col = col
        self.code = code

    def __str__(self) -> str:
        loc = self.path
        if self.line:
            loc += f":{self.line}:{max(self.col, 1)}"
        return f"{loc}: {self.message}"

    def to_finding(self) -> Finding:
        return Finding(self.code, "error", self.message, self.path, self.line, self.col,
                       unusable=True)


class UsageError(Exception):
    """A command was called wrongly (unknown target, unknown agent, bad option): exit 2."""
