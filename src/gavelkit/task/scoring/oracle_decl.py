"""What the oracle itself declares about outcomes, read from its files (never from a run).

A test may be skipped or expected to fail because its oracle says so: a `skip`, `skipif`
or `xfail` mark on the function, its class or its module (`pytestmark`), on a
`pytest.param` of its parametrisation, or a `pytest.skip()`, `pytest.xfail()` or
`pytest.importorskip()` call in its body. Markers added at run time by anything else (a
plugin the candidate registered) are not the oracle's. A conftest.py of the oracle that
adds markers or skips itself makes the declaration incomplete (`dynamic`): then only the
reference run can say which outcomes are the oracle's.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

MARKS = ("skip", "skipif", "xfail")
CALLS = {"skip": "skip", "xfail": "xfail", "importorskip": "skip"}


@dataclass(slots=True)
class Declared:
    """{`stem.Class.func` key: mark names} and whether conftest code adds marks itself."""
    marks: dict[str, set[str]] = field(default_factory=dict)
    dynamic: bool = False
    defined: set[str] = field(default_factory=set)  # every function and method key

    def allows(self, key: str, name: str) -> bool:
        wanted = {"skip", "skipif"} if name in ("skip", "skipif", "skipped") else {"xfail"}
        return self.dynamic or bool(self.marks.get(key, set()) & wanted)


def _mark_name(node: ast.AST) -> str | None:
    """`pytest.mark.xfail`, `mark.skipif(...)`, `pytest.mark.xfail(reason=...)` -> name."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute) and node.attr in MARKS:
        inner = node.value
        if (isinstance(inner, ast.Attribute) and inner.attr == "mark") or \
                (isinstance(inner, ast.Name) and inner.id == "mark"):
            return node.attr
    return None


def _names_in(node: ast.AST) -> set[str]:
    """Mark names anywhere in an expression (a list of marks, `pytest.param(marks=...)`)."""
    return {n for sub in ast.walk(node) for n in [_mark_name(sub)] if n}


def _calls_in(fn: ast.AST) -> set[str]:
    out = set()
    for sub in ast.walk(fn):
        if isinstance(sub, ast.Call):
            f = sub.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(
                f, ast.Name) else ""
            if name in CALLS:
                out.add(CALLS[name])
    return out


def _mentions(text: str) -> bool:
    """Can the text hold a skip or xfail mark or call at all (every name in MARKS and
    CALLS has one of these words in it)?"""
    return "skip" in text or "xfail" in text


def _module(tree: ast.Module, stem: str, out: dict[str, set[str]], defined: set[str],
            marks_possible: bool = True) -> None:
    """The marks of each test function of one file (every function key into `defined`);
    with `marks_possible` False (the text names no mark: `_mentions`) only the keys."""
    if not marks_possible:
        _defined(tree.body, stem + ".", defined)
        return
    module_marks: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark"
                                                for t in node.targets):
            module_marks |= _names_in(node.value)

    def visit(body: list[ast.stmt], prefix: str, inherited: set[str]) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                marks = set(inherited)
                for d in node.decorator_list:
                    marks |= _names_in(d)
                for sub in node.body:
                    if isinstance(sub, ast.Assign) and any(
                            isinstance(t, ast.Name) and t.id == "pytestmark"
                            for t in sub.targets):
                        marks |= _names_in(sub.value)
                visit(node.body, f"{prefix}{node.name}.", marks)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                defined.add(f"{stem}.{prefix}{node.name}")
                marks = set(inherited) | _calls_in(node)
                for d in node.decorator_list:
                    marks |= _names_in(d)
                if marks:
                    out.setdefault(f"{stem}.{prefix}{node.name}", set()).update(marks)
    visit(tree.body, "", module_marks)


def _defined(body: list[ast.stmt], prefix: str, defined: set[str]) -> None:
    for node in body:
        if isinstance(node, ast.ClassDef):
            _defined(node.body, f"{prefix}{node.name}.", defined)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            defined.add(prefix + node.name)


def declared(work: Path, files: list[str]) -> Declared:
    """The declaration of the oracle's test files (paths relative to the worktree), and
    whether a conftest.py beside them adds marks or skips by itself."""
    out = Declared()
    seen_dirs: set[Path] = set()
    for rel in files:
        p = work / rel
        try:
            text = p.read_text("utf-8", "replace")
            tree = ast.parse(text)
        except (OSError, SyntaxError, ValueError):
            out.dynamic = True  # cannot be read: nothing can be held against the candidate
            continue
        _module(tree, p.stem, out.marks, out.defined, _mentions(text))
        for d in [p.parent, *p.parent.parents]:
            if d in seen_dirs or not str(d).startswith(str(work)):
                break
            seen_dirs.add(d)
            conf = d / "conftest.py"
            if conf.is_file() and _conftest_dynamic(conf):
                out.dynamic = True
    return out


def _conftest_dynamic(conf: Path) -> bool:
    try:
        text = conf.read_text("utf-8", "replace")
        if not _mentions(text) and "marker" not in text:  # add_marker, applymarker
            return False
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError):
        return True
    for sub in ast.walk(tree):
        if isinstance(sub, ast.Attribute) and sub.attr in ("add_marker", "applymarker"):
            return True
        if _mark_name(sub) or (isinstance(sub, ast.Call) and _calls_in(sub)):
            return True
    return False
