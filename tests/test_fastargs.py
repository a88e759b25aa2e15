"""The lint command's fast argv reader agrees with its argparse parser, or steps aside."""

from __future__ import annotations

import pytest

from gavelkit.cli.award_blocks import _lint_spec, lint_parser
from gavelkit.cli.fastargs import parse

from gk_testing import cli

AGREE = [
    ["scorecard", "a.yaml"],
    ["handoff", "a.md", "b.md", "--agent", "modeler"],
    ["handoff", "--agent=coder", "a.md", "--run-dir", "work/r1"],
    ["gate", "a.yaml", "--format", "json", "-q"],
    ["memo", "--format=sarif", "a.yaml", "--quiet", "--config", "gavel.toml"],
    ["variant", "-", "--format", "text"],
]
STEP_ASIDE = [
    ["scorecard"],                               # no file
    ["nonsense", "a.yaml"],                      # bad choice
    ["scorecard", "a.yaml", "--format", "xml"],  # bad choice of option value
    ["scorecard", "a.yaml", "--agent"],          # missing value
    ["scorecard", "a.yaml", "--ag", "x"],        # abbreviation: argparse's call
    ["scorecard", "a.yaml", "--help"],
    ["scorecard", "a.yaml", "-h"],
    ["scorecard", "--", "a.yaml"],
    ["scorecard", "a.yaml", "--quiet=yes"],
    ["scorecard", "a.yaml", "--agent", "--format"],
]


@pytest.mark.parametrize("argv", AGREE)
def test_fast_reader_matches_argparse(argv: list[str]) -> None:
    fast = parse(argv, _lint_spec())
    assert fast is not None
    assert vars(fast) == vars(lint_parser("gavel award lint").parse_args(argv))


@pytest.mark.parametrize("argv", STEP_ASIDE)
def test_fast_reader_leaves_the_rest_to_argparse(argv: list[str]) -> None:
    assert parse(argv, _lint_spec()) is None


def test_argparse_still_owns_errors_and_help() -> None:
    rc, out, err = cli("award", "lint", "scorecard")
    assert rc == 2 and "required" in err
    rc, out, _ = cli("award", "lint", "scorecard", "x.yaml", "--help")
    assert rc == 0 and "--run-dir" in out
