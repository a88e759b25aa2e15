"""Options and output every command shares: --format, --quiet, and rendering."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from gavelkit.core.findings import Finding, exit_code

TYPE_CHECKING = False  # typing costs start-up time that agents pay on every call
if TYPE_CHECKING:
    import argparse
    from typing import Any


def parser(prog: str, description: str) -> argparse.ArgumentParser:
    import argparse  # lazily: the hottest commands read their argv without it (fastargs)

    return argparse.ArgumentParser(prog=prog, description=description,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)


def add_format(p: argparse.ArgumentParser, sarif: bool = False) -> None:
    choices = ["text", "json", "sarif"] if sarif else ["text", "json"]
    p.add_argument("--format", choices=choices, default="text",
                   help="output format (default: text)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="text format: print only errors and the verdict")


def emit(findings: Sequence[Finding], fmt: str, command: str,
         extra: dict[str, Any] | None = None, text: str | None = None,
         quiet: bool = False, anchor: str | None = None, *, outcome: int = 0,
         code: int | None = None) -> int:
    """Print findings in the chosen format and return the command's one exit code, which is
    also the JSON's `exit_code`: a command never prints one code and exits with another.

    `outcome` is what the command itself decided, as an exit code (1: a gate failed or a
    verdict is not a pass): the exit code is the worse of it and the findings'. A command
    whose rule differs (the panel's verdict decides, not its findings) passes `code`. SARIF
    puts a finding that has no path at `anchor`, the command's main input."""
    from gavelkit.core import render

    rc = code if code is not None else max(exit_code(findings), outcome)
    if fmt == "json":
        print(render.render_json(findings, command, extra, rc))
    elif fmt == "sarif":
        print(render.render_sarif(findings, anchor))
    else:
        shown = [f for f in findings if f.severity == "error"] if quiet else list(findings)
        body = render.render_text(shown, summary=not quiet)
        if text:
            body = f"{body}\n{text}" if body else text
        if body:
            print(body)
    sys.stdout.flush()
    return rc
