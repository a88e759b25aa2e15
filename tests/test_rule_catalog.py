"""The rule catalog and the code agree: every code used exists, every rule is used."""

from __future__ import annotations

import re
from pathlib import Path

from gavelkit.core.rules import catalog

SRC = Path(__file__).resolve().parent.parent / "src" / "gavelkit"
CODE = re.compile(r"""["']([A-Z]{2,4}-[A-Z]{0,3}\d{3})["']""")


def used_codes() -> set[str]:
    out: set[str] = set()
    for p in SRC.rglob("*.py"):
        if p.name == "figqa.py":
            continue
        out |= set(CODE.findall(p.read_text(encoding="utf-8")))
    return out


def test_every_used_code_is_in_the_catalog() -> None:
    missing = sorted(used_codes() - set(catalog()))
    assert not missing, f"codes used in src but not in data/rules/*.toml: {missing}"


def test_every_catalog_rule_has_doc_and_valid_severity() -> None:
    for code, rule in catalog().items():
        assert rule.severity in ("error", "warning", "info"), code
        assert len(rule.doc) > 40 and rule.title, code


def test_every_catalog_rule_is_used_somewhere() -> None:
    files = [*SRC.rglob("*.py"), *SRC.joinpath("data").rglob("*.yaml"),
             *SRC.joinpath("data").glob("*.toml")]  # rule tables as data (not rules/ itself)
    text = "\n".join(p.read_text(encoding="utf-8") for p in files)
    unused = [c for c in catalog() if c not in text]
    assert not unused, f"catalog rules never emitted: {unused}"


# ------------------------------------------------------------------ examples in one place

MAX_WITHOUT_EXAMPLES = 1  # only ever lower this: the list of rules without examples shrinks


def test_every_rule_has_examples_or_is_on_the_shrinking_list() -> None:
    from rule_allowlist import entries

    listed = entries()
    lacking = sorted(c for c, r in catalog().items() if r.examples is None)
    new = sorted(set(lacking) - set(listed))
    assert not new, (f"rules without fires/near examples: {new}. Give each a [CODE.fires] and a "
                     "[CODE.near] table (CONTRIBUTING.md 'Adding a rule'); the list in "
                     "tests/data/rules_without_examples.txt is closed to new rules")
    done = sorted(c for c in listed if c in catalog() and catalog()[c].examples is not None)
    gone = sorted(c for c in listed if c not in catalog())
    assert not done and not gone, (f"remove from tests/data/rules_without_examples.txt: "
                                   f"{done} (they have examples now) {gone} (no such rule)")
    assert listed == sorted(set(listed)), "keep the list sorted, one code a line"
    assert len(listed) <= MAX_WITHOUT_EXAMPLES, (
        "tests/data/rules_without_examples.txt grew: new rules get examples instead")
