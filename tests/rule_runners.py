"""How the tests run a rule example: in this process, as `gavel` would in a fresh one.

`gavelkit.cli.rule_examples.run_case` calls the example's command function in this
process. Commands that would start another interpreter per example get an
in-process stand-in here, registered by their command words.
"""

from __future__ import annotations

from pathlib import Path

from gavelkit.cli.rule_examples import Command, Outcome, run_case
from gavelkit.core.rules import Case

IN_PROCESS: dict[tuple[str, ...], Command] = {}


def run(case: Case, where: Path) -> Outcome:
    command = next((c for words, c in IN_PROCESS.items() if case.run[: len(words)] == words),
                   None)
    return run_case(case, where, command)
