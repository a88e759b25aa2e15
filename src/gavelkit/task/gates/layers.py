"""The layer of each scoring test, from every record that gives one.

Shared by Gate E's minimums and metadata checks and by the scorer: taxonomy.jsonl,
task.json taxonomy, the map, and the file name (`test_atomic.py` is atomic).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from gavelkit.task.formats.nodeids import func_key


def leaf(nodeid: str) -> str:
    """Node id without its file part (`f.py::C::t[p]` -> `C::t[p]`), stable across graduation."""
    return nodeid.split("::", 1)[1] if "::" in nodeid else nodeid


def layer_index(task: Any) -> dict[str, str]:
    """func_key -> layer from taxonomy.jsonl, task.json taxonomy, the map, file names."""
    out: dict[str, str] = {}
    if task.map:
        for r in task.map.rows:
            if r.layer:
                out.setdefault(func_key(r.nodeid), r.layer)
    if task.task_json:
        for k, v in task.task_json.taxonomy.items():
            out[func_key(k)] = v
    if task.taxonomy:
        for e in task.taxonomy.entries:
            out[func_key(e.key)] = e.layer
    return out


def _file_layer(nodeid: str) -> str:
    stem = func_key(nodeid).split(".", 1)[0]
    return "atomic" if stem == "test_atomic" else ""


def scoring_set(task: Any) -> list[str]:
    if task.kept is not None:
        return list(task.kept.ids)
    if task.map is not None:
        return [r.nodeid for r in task.map.covered_rows()]
    if task.task_json is not None and task.task_json.taxonomy:
        return list(task.task_json.taxonomy)
    return []


def layer_counts(task: Any) -> tuple[dict[str, int], dict[str, int], list[str]]:
    """(functions per layer, node ids per layer, node ids with no known layer)."""
    idx = layer_index(task)
    funcs: dict[str, set[str]] = {}
    nodes: Counter[str] = Counter()
    unknown: list[str] = []
    for nid in scoring_set(task):
        fk = func_key(nid)
        layer = idx.get(fk) or _file_layer(nid)
        if not layer:
            unknown.append(nid)
            continue
        funcs.setdefault(layer, set()).add(fk)
        nodes[layer] += 1
    return {k: len(v) for k, v in funcs.items()}, dict(nodes), unknown


