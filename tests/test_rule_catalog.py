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
