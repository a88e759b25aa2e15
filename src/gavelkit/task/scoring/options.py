"""What a scoring run is asked to do and what it returns (shared by runner, sandbox and results)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.findings import Finding


@dataclass(slots=True)
class RunOptions:
    solution: str | Path
    out: str | Path
    package: str | None = None
    remove_paths: list[str] = field(default_factory=list)
    python: str | None = None
    offline: bool = False
    role: str = "candidate"  # candidate | reference
    test_timeout: float = 60.0
    file_timeout: float = 900.0
    memory_mb: int = 4096
    cpu_seconds: int = 1800
    fsize_mb: int = 512
    isolation: str = "auto"  # auto | bwrap | none
    repeat: int = 1
    group: str = "file"  # file: one pytest process per test file | run: one for all files
    reference_score: str | Path | None = None
    cache: str | Path | None = None
    progress: Any = None  # callable(str) or None


@dataclass(slots=True)
class RunResult:
    score: dict[str, Any]
    findings: list[Finding]
    path: Path

    @property
    def summary(self) -> dict[str, int]:
        return self.score["summary"]

    @property
    def pass_rate(self) -> float | None:
        return self.score.get("pass_rate_excluding_skips")


# ----------------------------------------------------------------- helpers
_BWRAP: dict[str, Any] = {}
