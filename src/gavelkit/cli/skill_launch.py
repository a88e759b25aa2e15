"""What the skill folders' scripts run once they have found gavelkit.

The scripts in `skills/*/scripts/` keep the seed's invocations (`lint_run.py handoff FILE
--agent NAME`, `pdf_qa.sh X.pdf --max-pages 25 --anonymous`, ...). Each one only finds a
gavelkit (the copy `gavel skills install` puts in `scripts/_gavelkit/`, a checkout around it,
or an installed one) and calls `run(script, argv)`: this module checks that the script's
pip prerequisites are importable, saying the exact pip command for this interpreter when
one is not, and forwards to the `gavel` command the script stands for.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

#: script -> (import name, pip distribution) it cannot run without
NEEDS: dict[str, tuple[tuple[str, str], ...]] = {
    "lint_run.py": (("yaml", "PyYAML"),),
    "pdf_qa.sh": (("yaml", "PyYAML"), ("pypdfium2", "pypdfium2"), ("PIL", "Pillow")),
    "make_contact_sheet.py": (("yaml", "PyYAML"), ("pypdfium2", "pypdfium2"),
                              ("PIL", "Pillow")),
    "validate_ledger.py": (("yaml", "PyYAML"),),
    "gavel": (("yaml", "PyYAML"),),
}


def missing(script: str) -> list[str]:
    """pip distributions the script needs that this interpreter cannot import.

    Imported, not looked up: every script's command imports them anyway, so the linter's
    start-up (agents call it dozens of times a run) pays nothing extra for the check."""
    out = []
    for module, dist in NEEDS.get(script, ()):
        try:
            __import__(module)
        except ImportError:
            out.append(dist)
    return out


def pip_command(dists: list[str]) -> str:
    """The pasteable command that installs `dists` for the interpreter running now."""
    import shlex

    return shlex.join([sys.executable or "python3", "-m", "pip", "install", *dists])


def lint_run_argv(argv: list[str]) -> list[str]:
    """The seed's `lint_run.py` words as `gavel award ...` words."""
    if argv and argv[0] == "--self-test":
        return ["award", "self-test", *argv[1:]]
    if argv and argv[0] == "aggregate":
        return ["award", "aggregate", *argv[1:]]
    return ["award", "lint", *argv]


def validate_ledger(argv: list[str]) -> int:
    """The seed's `validate_ledger.py [TASK_DIR...]`: Gate E on each task folder (default:
    every folder under tasks/ and wip/ that holds a spec.md); the worst exit code."""
    from pathlib import Path

    from gavelkit.cli.main import main

    tasks = [a for a in argv if not a.startswith("-")]
    opts = [a for a in argv if a.startswith("-")]
    if not tasks:
        tasks = sorted(str(p.parent) for pat in ("tasks/*/spec.md", "wip/*/spec.md")
                       for p in Path(".").glob(pat))
    if not tasks:
        sys.stderr.write("validate_ledger: no task folders given or found under tasks/ or wip/"
                         f" of {os.getcwd()}\n")
        return 2
    worst = 0
    for task in tasks:
        print(f"== {task}", flush=True)
        worst = max(worst, main(["task", "gates", task, "--gate", "E", *opts]))
    return worst


FORWARD: dict[str, Callable[[list[str]], list[str]]] = {
    "lint_run.py": lint_run_argv,
    "pdf_qa.sh": lambda argv: ["award", "pdfqa", *argv],
    "make_contact_sheet.py": lambda argv: ["award", "contact-sheet", *argv],
    "gavel": lambda argv: argv,
}


def run(script: str, argv: list[str]) -> int:
    """Check the prerequisites of `script`, then run what it stands for; the exit code.

    Any other first word is a gavel command (`python3 scripts/_gavel.py award status RUN`):
    the skill's own gavelkit runs every command, not only the seed's scripts."""
    if script not in NEEDS:
        argv, script = [script, *argv], "gavel"
    lack = missing(script)
    if lack:
        sys.stderr.write(f"{script}: {' and '.join(lack)} {'is' if len(lack) == 1 else 'are'} "
                         f"not installed for {sys.executable}; install with:\n"
                         f"    {pip_command(lack)}\n")
        return 2
    if script == "validate_ledger.py":
        return validate_ledger(argv)
    from gavelkit.cli.main import main

    return main(FORWARD[script](argv))

