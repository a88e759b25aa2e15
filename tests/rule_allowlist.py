"""The shrinking list of rules that have no fires/near examples yet.

`tests/data/rules_without_examples.txt` was the whole catalog's backlog when the
examples format landed. It only shrinks: a rule that gets its examples leaves it,
and a new rule never joins it (test_rule_catalog holds both).
"""

from __future__ import annotations

from pathlib import Path

LIST = Path(__file__).resolve().parent / "data" / "rules_without_examples.txt"


def entries() -> list[str]:
    lines = LIST.read_text(encoding="utf-8").splitlines() if LIST.is_file() else []
    return [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]


def without_examples() -> frozenset[str]:
    return frozenset(entries())
