"""What every judge step returns, and the local notebook a step fills before it returns.

A step (judge.py lists them in order) takes typed inputs and returns one frozen result
that carries, besides its own facts, the `Check`s it decided and the `Finding`s it
raised. Nothing downstream writes into a step's result: `verdict.decide` reads the
checks of all steps, the records read the facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gavelkit.core.findings import Finding, Severity
from gavelkit.task.judging.verdict import Check, Route, Status


@dataclass(frozen=True, slots=True, kw_only=True)
class StepResult:
    checks: tuple[Check, ...] = ()
    findings: tuple[Finding, ...] = ()


@dataclass(slots=True)
class Notes:
    """A step's checks and findings while it runs (local to one step call, then frozen)."""

    where: str
    checks: list[Check] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def check(self, name: str, status: Status, reason: str = "",
              route: Route | None = None) -> None:
        self.checks.append(Check(name, status, reason, route))

    def add(self, code: str, severity: Severity, message: str, **data: Any) -> None:
        self.findings.append(Finding(code, severity, message, self.where, 0, 0,
                                     data=data or None))

    def frozen(self) -> dict[str, Any]:
        """The keyword arguments every StepResult takes: `Result(..., **notes.frozen())`."""
        return {"checks": tuple(self.checks), "findings": tuple(self.findings)}
