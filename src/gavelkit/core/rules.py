"""The rule catalog: every finding code with its default severity, title and doc.

The catalog is data (`gavelkit/data/rules/*.toml`, one file per pack) so that
SARIF output, `gavel rules` and the tests all read the same table. It is only
parsed when someone needs titles or docs, never on the lint hot path.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass

from gavelkit.core.findings import Severity


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    severity: Severity
    title: str
    doc: str
    pack: str
    varies: bool = False  # severity depends on context (the default is the usual one)


@functools.cache
def catalog() -> dict[str, Rule]:
    out: dict[str, Rule] = {}
    from gavelkit.data import path

    folder = path("rules")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".toml"):
            continue
        table = tomllib.loads(entry.read_text(encoding="utf-8"))
        pack = entry.name[: -len(".toml")]
        for code, spec in table.items():
            if code in out:
                raise ValueError(f"rule {code} defined twice ({out[code].pack}, {pack})")
            out[code] = Rule(code, spec["severity"], spec["title"], spec["doc"].strip(), pack,
                             bool(spec.get("severity_varies", False)))
    return out


def get(code: str) -> Rule | None:
    return catalog().get(code)
