"""The one result type every check returns, and how findings become an exit code.

A check never prints or exits: it returns Findings. The CLI renders them and
derives the exit code, so library callers and the CLI agree on what failed.
"""

from __future__ import annotations

from collections.abc import Iterable

TYPE_CHECKING = False  # typing costs start-up time that agents pay on every call
if TYPE_CHECKING:
    from typing import Any, Literal

    Severity = Literal["error", "warning", "info"]
else:
    Severity = str
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_UNUSABLE = 2


class Finding:
    """One rule hit at one place.

    `unusable` marks input that could not be read or used at all (missing,
    binary, broken YAML, ...): such a finding makes the command exit 2, not 1.
    Line and column are 1-based; 0 means "the whole file". A plain slotted class,
    not a dataclass: dataclasses cost as much start-up as PyYAML itself.
    """

    __slots__ = ("code", "col", "data", "hint", "line", "message", "path", "severity",
                 "unusable")

    def __init__(self, code: str, severity: Severity, message: str, path: str = "",
                 line: int = 0, col: int = 0, hint: str | None = None, unusable: bool = False,
                 data: dict[str, Any] | None = None) -> None:
        self.code = code
        self.severity = severity
        self.message = message
        self.path = path
        self.line = line
        self.col = col
        self.hint = hint
        self.unusable = unusable
        self.data = data if data is not None else {}

    def __repr__(self) -> str:
        return (f"Finding({self.code!r}, {self.severity!r}, {self.message!r}, {self.path!r}, "
                f"{self.line}, {self.col})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Finding) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def location(self) -> str:
        if not self.path:
            return "-"
        if self.line <= 0:
            return self.path
        return f"{self.path}:{self.line}:{max(self.col, 1)}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "col": self.col,
        }
        if self.hint:
            out["hint"] = self.hint
        if self.unusable:
            out["unusable"] = True
        if self.data:
            out["data"] = self.data
        return out


def exit_code(findings: Iterable[Finding]) -> int:
    """2 if any input was unusable, else 1 if any error, else 0."""
    worst = EXIT_OK
    for f in findings:
        if f.unusable:
            return EXIT_UNUSABLE
        if f.severity == "error":
            worst = EXIT_FINDINGS
    return worst


def counts(findings: Iterable[Finding]) -> dict[str, int]:
    out = {s: 0 for s in SEVERITIES}
    for f in findings:
        out[f.severity] += 1
    return out


def sort_key(f: Finding) -> tuple[str, int, int, str]:
    return (f.path, f.line, f.col, f.code)
