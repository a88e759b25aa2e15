"""What a scoring run is asked to do and what it returns (shared by runner, sandbox and results)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.findings import Finding
from gavelkit.task.scoring.warm import CPU_SECONDS, FSIZE_MB, TMP_MB


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
    cpu_seconds: int = CPU_SECONDS
    fsize_mb: int = FSIZE_MB
    tmp_mb: int = TMP_MB  # size of each private tmpfs: /tmp, /var/tmp, the scratch folder
    isolation: str = "auto"  # auto | bwrap | none
    repeat: int = 1
    # auto: all files in one pytest process, files it did not finish (crash, hang, kill)
    # re-run alone | file: one process per test file | run: one process, no re-runs
    group: str = "auto"
    reference_score: str | Path | None = None
    cache: str | Path | None = None
    progress: Any = None  # callable(str) or None
    package_spec: str | None = None  # install this requirement as the solution (x==1.2)
    install: str = "auto"  # auto: build + install project folders | never: copy as a folder
    warm: Any = None  # a prestarted test process (warm.prestart), used for the first launch
    config: Any = None  # the command's --config (task.config.ConfigFile), for load_task
    env_rebuilt: list[str] = field(default_factory=list)  # why the environment was rebuilt


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
