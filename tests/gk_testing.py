"""Helpers shared by the tests: run the CLI in-process, and record rule coverage.

`fires(findings, code)` and `clean(findings, code)` assert and also record that
the rule was seen firing / not firing, so conftest can check at the end of a
full run that every catalog rule has both kinds of test. A not-firing test only
counts as a near miss when its input produced some other finding: `clean` on a
clean input shows nothing about the rule (an empty input passes every rule). The
rule's own examples (tests/test_rule_examples.py) are the usual near misses.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterable
from typing import Any

from gavelkit.cli.main import main
from gavelkit.core.findings import Finding

FIRED: set[str] = set()
CLEAN: set[str] = set()        # near misses: not firing on input with other findings
CLEAN_EMPTY: set[str] = set()  # not firing on input with no finding at all (counts for nothing)
UNRUNNABLE: set[str] = set()   # examples skipped: a program they need (bwrap) is not on PATH


def codes(findings: Iterable[Finding]) -> list[str]:
    return [f.code for f in findings]


def fires(findings: Iterable[Finding], code: str) -> Finding:
    findings = list(findings)
    found = [f for f in findings if f.code == code]
    assert found, f"expected {code}, got {[(f.code, f.message) for f in findings]}"
    from gavelkit.core.rules import get

    rule = get(code)
    assert rule is not None, f"{code} is not in the rule catalog (src/gavelkit/data/rules/)"
    assert rule.varies or found[0].severity == rule.severity, (
        f"{code} emitted as {found[0].severity}, catalog says {rule.severity}")
    FIRED.add(code)
    return found[0]


def clean(findings: Iterable[Finding], code: str) -> None:
    findings = list(findings)
    found = [f for f in findings if f.code == code]
    assert not found, f"did not expect {code}: {[f.message for f in found]}"
    (CLEAN if findings else CLEAN_EMPTY).add(code)


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(argv))
    return rc, out.getvalue(), err.getvalue()


def cli_json(*argv: str) -> tuple[int, dict[str, Any]]:
    rc, out, err = cli(*argv, "--format", "json")
    assert out.strip(), f"no JSON output; stderr={err}"
    doc = json.loads(out)
    # one result decides both: a command never prints one exit code and exits with another
    assert not isinstance(doc, dict) or doc.get("exit_code", rc) == rc, (doc.get("exit_code"), rc)
    return rc, doc
