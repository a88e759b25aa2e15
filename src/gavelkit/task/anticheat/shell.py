"""The shell reader's public face: `parse(src)` -> the simple commands a script runs.

The work is done by `shparse` (syntax tree), `shwords` (quoting, expansions, brace
expansion) and `sheval` (static evaluation with a session state); this module keeps
the short entry point that tests and tools use for one script on its own.
"""

from __future__ import annotations

from gavelkit.task.anticheat.sheval import (
    MAX_DEPTH,
    MAX_LEN,
    ShState,
    SimpleCommand,
    resolve_path,
    run,
)

__all__ = ["MAX_DEPTH", "MAX_LEN", "SimpleCommand", "parse", "resolve_path"]


def parse(src: str, cwd: str | None = None, home: str = "/root",
          env: dict[str, str] | None = None, notes: list[str] | None = None) -> list[SimpleCommand]:
    """Evaluate one script from a fresh state; what could not be followed goes to `notes`."""
    state = ShState(home=home, cwd=cwd, env=dict(env or {}))
    return run(src, state, notes if notes is not None else [])
