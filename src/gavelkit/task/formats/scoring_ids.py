"""The scoring set a task names, with each id's file resolved the way the scorer resolves it.

One place for Gate E (every scoring id's file exists, issue 26 item 7) and the
scorer (which ids to run): kept_nodeids.txt, else the map's covered rows, else
task.json's taxonomy keys; a key without a real file part (`test_atomic::t`,
`generated_tests.t`) is matched to a task.json `oracle.test_files` entry or an
`oracle/test_*.py` file by its stem.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gavelkit.task.formats.nodeids import file_of


def taxonomy_keys(task: Any) -> list[str]:
    """Keys of task.json `taxonomy` in either shape: {key: layer} or {"entries": [...]}."""
    tx = task.task_json.data.get("taxonomy") if task.task_json else None
    if not isinstance(tx, dict):
        return []
    entries = tx.get("entries")
    if isinstance(entries, list):
        return [str(e.get("taxonomy_key") or e.get("test_id")) for e in entries
                if isinstance(e, dict) and (e.get("taxonomy_key") or e.get("test_id"))]
    return [k for k, v in tx.items() if isinstance(v, str) and "::" in k]


def named_ids(task: Any) -> list[str]:
    """The ids the task itself names as its scoring set (never a reference run's)."""
    if task.kept is not None and task.kept.ids:
        return list(task.kept.ids)
    if task.map is not None:
        covered = [r.nodeid for r in task.map.covered_rows()]
        if covered:
            return covered
    if task.task_json is not None and task.task_json.taxonomy:
        return list(task.task_json.taxonomy)
    return taxonomy_keys(task)


def _by_stem(task: Any) -> dict[str, str]:
    files = task.task_json.test_files if task.task_json else []
    out = {Path(f).stem: f for f in files}
    od = task.dir / "oracle"
    for p in sorted(od.glob("test_*.py")) if od.is_dir() else []:
        out.setdefault(p.stem, str(p.relative_to(task.dir)))
    return out


def resolve_ids(task: Any, ids: list[str]) -> list[str]:
    """Node ids with a real file part: `test_atomic::t` -> `oracle/test_atomic.py::t`."""
    by_stem = _by_stem(task)
    out = []
    for nid in ids:
        f = file_of(nid)
        if f and not (task.dir / f).is_file():
            stem = Path(f).stem if f.endswith(".py") else f.replace("\\", "/").rsplit("/", 1)[-1]
            if stem in by_stem:
                nid = by_stem[stem] + nid[len(f):]
        out.append(nid)
    return list(dict.fromkeys(out))


def missing_files(task: Any, ids: list[str] | None = None) -> dict[str, list[str]]:
    """file -> the scoring ids that name it, for each file not in the task folder."""
    out: dict[str, list[str]] = {}
    for nid in resolve_ids(task, named_ids(task) if ids is None else ids):
        f = file_of(nid)
        if f and not task.resolve(f).is_file():  # the repository-level oracle/{id}/ too
            out.setdefault(f, []).append(nid)
    return out
