"""kept_nodeids.txt: the scoring set, one pytest node id per line.

Also the node-id helpers every other module uses to compare the drifting key
forms (`oracle/test_atomic.py::t[p]`, `test_atomic::t`, `test_atomic.t`,
`generated_tests.t`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from gavelkit.core.findings import Finding
from gavelkit.task.formats._read import read_with


@dataclass(slots=True)
class NodeIds:
    path: str
    ids: list[str] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)


def base_nodeid(nodeid: str) -> str:
    """Node id without its parametrisation suffix: `f.py::t[a-b]` -> `f.py::t`."""
    return re.sub(r"\[.*\]$", "", nodeid.strip())


def func_key(nodeid: str) -> str:
    """Comparable key `stem.Class.func` for a node id or any taxonomy key form.

    `oracle/test_atomic.py::T::t[x]`, `test_atomic::T::t`, `test_atomic.T.t`
    all become `test_atomic.T.t` (the scorer's key algorithm).
    """
    s = base_nodeid(nodeid)
    if "::" in s:
        file_part, _, rest = s.partition("::")
        stem = file_part.replace("\\", "/").rsplit("/", 1)[-1]
        if stem.endswith(".py"):
            stem = stem[:-3]
        return ".".join([stem, *rest.split("::")])
    s = s.replace("\\", "/").rsplit("/", 1)[-1]
    return s


def func_name(nodeid: str) -> str:
    return func_key(nodeid).rsplit(".", 1)[-1]


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0] if "::" in nodeid else ""


def parse_nodeids(text: str, path: str = "kept_nodeids.txt") -> tuple[NodeIds, list[Finding]]:
    out = NodeIds(path)
    findings: list[Finding] = []
    for i, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if raw != raw.rstrip() or raw != raw.lstrip():
            findings.append(Finding("TSK-R003", "warning",
                                    "node id has leading/trailing white space", path, i, 1))
        if "::" not in line or " " in base_nodeid(line):
            findings.append(Finding("TSK-R003", "error",
                                    f"not a pytest node id (file.py::name): {line!r}", path, i, 1))
            continue
        if line in out.lines:
            findings.append(Finding("TSK-R003", "error",
                                    f"duplicate node id (first at line {out.lines[line]})",
                                    path, i, 1))
            continue
        out.lines[line] = i
        out.ids.append(line)
    return out, findings


def read_nodeids(path: str | Path) -> tuple[NodeIds | None, list[Finding]]:
    return read_with(parse_nodeids, path)
