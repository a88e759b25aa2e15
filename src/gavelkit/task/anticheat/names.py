"""Name helpers shared by the place model and its anchors: one spelling of a package
name (`Foo_Bar.baz` and `foo-bar-baz` are the same distribution) and the literal part
of a glob pattern (what a prefilter can search for)."""

from __future__ import annotations

import re

GLOBCH = re.compile(r"[*?\[]")


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def literal(pat: str) -> str:
    return GLOBCH.sub("", pat.replace("[!", "[").split("[")[0] if "[" in pat else pat)
