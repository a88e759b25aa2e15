"""The scoring set a task names, with each id's file resolved the way the scorer resolves it.

One place for Gate E (every scoring id's file exists, issue 26 item 7) and the
scorer (which ids to run): kept_nodeids.txt, else the map's covered rows, else
task.json's taxonomy keys; a key without a real file part (`test_atomic::t`,
`generated_tests.t`) is matched to a task.json `oracle.test_files` entry or an
`oracle/test_*.py` file by its stem. Graduated packets moved their tests into
`oracle/test_atomic.py` / `oracle/test_integration.py` by layer while the map and
taxonomy still name the original module (`filter/generated_tests.py::t`): an id whose
file is absent is then matched by its test function (or class), when exactly one
oracle test file defines it at the top level; a missing file under `oracle/` itself is
never rematched (it is the oracle's own file, and missing). A map row written
`file.py::TestClass.test_m` (the taxonomy's dotted key form after the file) names the pytest
id `file.py::TestClass::test_m` when that file defines `class TestClass` at the top level;
any other dotted name (a doctest item `file.py::module.func`) is left as written.
"""

from __future__ import annotations

import re
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
        return [k for k in map(_entry_key, entries) if k]
    return [k for k, v in tx.items() if isinstance(v, str) and "::" in k]


def _entry_key(e: object) -> str:
    """An entry's taxonomy_key (or test_id) as text, '' when it names none."""
    if not isinstance(e, dict):
        return ""
    key = e.get("taxonomy_key") or e.get("test_id")
    return str(key) if key else ""


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


_TOP = re.compile(r"^(?:async[ \t]+)?def[ \t]+(test\w*)|^class[ \t]+(Test\w*)", re.M)


def _by_name(task: Any, files: list[str]) -> dict[str, list[str]]:
    """Top-level test function / class name -> the oracle files defining it."""
    out: dict[str, list[str]] = {}
    for rel in files:
        p = task.resolve(rel)
        try:
            text = p.read_text("utf-8", "replace") if p.is_file() else ""
        except OSError:
            continue
        for m in _TOP.finditer(text):
            out.setdefault(m.group(1) or m.group(2), []).append(rel)
    return out


_CLASS = re.compile(r"^class[ \t]+(\w+)", re.M)


def _top_classes(path: Path) -> set[str]:
    """Names of the classes a test file defines at the top level (none when unreadable)."""
    try:
        return set(_CLASS.findall(path.read_text("utf-8", "replace"))) if path.is_file() else set()
    except OSError:
        return set()


def _split(nid: str) -> tuple[str, str]:
    """(file part, rest) of `file.py::a::b`, `module::a` or `module.a`."""
    if "::" in nid:
        f, rest = nid.split("::", 1)
        return f, rest
    f = file_of(nid)
    return f, nid[len(f):].lstrip(".")


def resolve_ids(task: Any, ids: list[str]) -> list[str]:
    """Node ids with a real file part: `test_atomic::t` -> `oracle/test_atomic.py::t`."""
    by_stem = _by_stem(task)
    names: dict[str, list[str]] | None = None
    classes: dict[str, set[str]] = {}
    out = []
    for nid in ids:
        f = file_of(nid)
        if f and not task.resolve(f).is_file():
            stem = Path(f).stem if f.endswith(".py") else f.replace("\\", "/").rsplit("/", 1)[-1]
            if stem in by_stem:
                nid = by_stem[stem] + nid[len(f):]
            elif not f.replace("\\", "/").startswith("oracle/"):
                # a module of the packet's history (filter/generated_tests.py); a missing
                # file of the oracle folder itself stays missing (TSK-X025 / E010)
                if names is None:
                    names = _by_name(task, sorted(set(by_stem.values())))
                _, rest = _split(nid)
                hits = names.get(re.split(r"[:.\[]", rest, maxsplit=1)[0], [])
                if rest and len(hits) == 1:
                    nid = f"{hits[0]}::{rest}"
        out.append(_class_separators(task, nid, classes))
    return list(dict.fromkeys(out))


def _class_separators(task: Any, nid: str, classes: dict[str, set[str]]) -> str:
    """`f.py::TestC.test_m[p]` -> `f.py::TestC::test_m[p]` when f.py defines class TestC at
    the top level (pytest names a method `Class::method`; a dot there is never collected)."""
    f, _, rest = nid.partition("::")
    head, bracket, params = rest.partition("[")
    if not f or "." not in head or "::" in head:
        return nid
    if f not in classes:
        classes[f] = _top_classes(task.resolve(f))
    if head.split(".", 1)[0] not in classes[f]:
        return nid
    return f"{f}::{head.replace('.', '::')}{bracket}{params}"


def missing_files(task: Any, ids: list[str] | None = None) -> dict[str, list[str]]:
    """file -> the scoring ids that name it, for each file not in the task folder."""
    out: dict[str, list[str]] = {}
    for nid in resolve_ids(task, named_ids(task) if ids is None else ids):
        f = file_of(nid)
        if f and not task.resolve(f).is_file():  # the repository-level oracle/{id}/ too
            out.setdefault(f, []).append(nid)
    return out
