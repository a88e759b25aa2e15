"""Each rule's own examples (src/gavelkit/data/rules/*.toml), run as `gavel` would run them.

The firing example must produce the rule's code at the catalog's severity. The
near miss must not produce it, and must show something: either it produces some
other finding, or it differs from the firing input in one respect (one hunk of at
most `ONE_RESPECT_LINES` lines of the command, environment and files). Both run in
this process, one command call each; examples that would start a plotting
interpreter per example run their script in this process instead (rule_runners).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gavelkit.cli.rule_examples import (
    ONE_RESPECT_LINES,
    Listing,
    Outcome,
    difference,
    materialize,
    one_respect,
)
from gavelkit.core.rules import Case, Rule, catalog
from rule_runners import run

import gk_testing

RULES = sorted(code for code, rule in catalog().items() if rule.examples)
_LISTINGS: dict[str, Listing] = {}


def _rule(code: str) -> Rule:
    rule = catalog()[code]
    assert rule.examples is not None
    return rule


def _show(out: Outcome) -> str:
    found = [(f.code, f.message[:160]) for f in out.findings]
    return f"exit {out.exit}, findings {found}, refused {out.refused!r}, stderr {out.stderr[-400:]!r}"


def _ran(case: Case, where: Path, code: str) -> Outcome:
    missing = case.missing()
    if missing:
        gk_testing.UNRUNNABLE.add(code)
        pytest.skip(f"the example needs {', '.join(missing)} (a program on PATH, or a "
                    "Python that loads user site-packages)")
    out = run(case, where)
    assert not out.refused, f"the example's command was refused: {_show(out)}"
    return out


@pytest.mark.parametrize("code", RULES)
def test_firing_example_fires(code: str, tmp_path: Path) -> None:
    rule = _rule(code)
    out = _ran(rule.examples.fires, tmp_path / "fires", code)
    _LISTINGS[code] = out.listing
    found = [f for f in out.findings if f.code == code]
    assert found, f"{code}'s firing example does not fire: {_show(out)}"
    assert rule.varies or found[0].severity == rule.severity, (
        f"{code} emitted as {found[0].severity}, catalog says {rule.severity}")
    gk_testing.FIRED.add(code)


@pytest.mark.parametrize("code", RULES)
def test_near_miss_example_does_not_fire(code: str, tmp_path: Path) -> None:
    rule = _rule(code)
    out = _ran(rule.examples.near, tmp_path / "near", code)
    found = [f for f in out.findings if f.code == code]
    assert not found, f"{code}'s near miss fires: {_show(out)}"
    others = out.codes() - {code}
    firing = _LISTINGS.get(code) or materialize(rule.examples.fires, tmp_path / "fires")
    if not others:
        hunks, lines = difference(firing, out.listing)
        assert one_respect(firing, out.listing), (
            f"{code}'s near miss produces no finding and differs from the firing input in "
            f"{hunks} place(s), up to {lines} line(s): make it one step from firing (one "
            f"change of at most {ONE_RESPECT_LINES} lines), or input with other findings")
    gk_testing.CLEAN.add(code)
