"""What the hottest command imports: agents pay every module on every lint call.

Not a timing test (those live in benchmarks/cold_start.py): it pins the modules that
cost the most start-up time and that `gavel award lint` does not need on a clean run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CARD = next(ROOT.glob("examples/award-run/work/*/scorecards/phase7-seat-A-round-1.yaml"))
HANDOFFS = sorted(ROOT.glob("examples/award-run/work/*/phase-logs/phase4.md"))
HEAVY = {"argparse", "typing", "pathlib", "shutil", "glob", "tomllib", "json", "dataclasses",
         "gavelkit.task"}


def imported(argv: list[str]) -> set[str]:
    # only what the command itself brings in: an installer's start-up hooks (.pth files,
    # setuptools' editable finder) may load typing or shutil before any of our code runs
    code = ("import sys\nbefore = set(sys.modules)\nfrom gavelkit.cli.main import main\n"
            "rc = main(sys.argv[1:])\n"
            "print('\\n'.join(sorted(set(sys.modules) - before)), file=sys.stderr)\n")
    r = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True,
                       cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    return set(r.stderr.split())


@pytest.mark.parametrize(("argv", "allowed"), [
    (["award", "lint", "scorecard", str(CARD)], set()),
    # a handoff inside a run folder is checked against the files on disk: pathlib earns it
    (["award", "lint", "handoff", "--agent", "mathodology-coder", *map(str, HANDOFFS)],
     {"pathlib"}),
])
def test_lint_imports_nothing_heavy(argv: list[str], allowed: set[str]) -> None:
    mods = imported(argv)
    assert "yaml" in mods  # the control: the linter really ran
    assert not (HEAVY - allowed) & mods, sorted((HEAVY - allowed) & mods)


def test_help_still_uses_argparse() -> None:
    assert "argparse" in imported(["award", "lint", "scorecard", "--help"])
