"""The judge keeps the shape issue 23 measured (radon cc): no block rated D or worse, few
rated C, no long function. Held for the files the judge's owner keeps; the project-wide
numbers are the lead's test."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "gavelkit"
JUDGING = ("judge", "inputs", "hardchecks", "solvable", "fairness", "scores", "conclude",
           "records", "result", "verdict", "blame", "diagnosis", "runmeta", "rejudge", "step",
           "schema")
OWNED = [SRC / "task" / "judging" / f"{m}.py" for m in JUDGING] + [
    SRC / "task" / "formats" / "score.py", SRC / "task" / "formats" / "score_formats.py",
    SRC / "cli" / "task_judging.py", SRC / "cli" / "common.py", SRC / "core" / "config.py",
    SRC / "task" / "config.py", SRC / "task" / "judgedata.py", SRC / "core" / "htmlreport.py",
    SRC / "core" / "fences.py", SRC / "core" / "mdtemplate.py"]


def test_no_complex_blocks() -> None:
    radon = pytest.importorskip("radon.complexity")
    lines = 0
    c_or_worse: list[str] = []
    for p in OWNED:
        text = p.read_text("utf-8")
        lines += text.count("\n")
        for b in radon.cc_visit(text):
            rank = radon.cc_rank(b.complexity)
            assert rank in "ABC", f"{p.name}:{b.lineno} {b.name} rated {rank} ({b.complexity})"
            if rank == "C":
                c_or_worse.append(f"{p.name}:{b.name}")
    assert len(c_or_worse) * 1000 / lines <= 2.0, c_or_worse


def test_no_long_functions() -> None:
    for p in OWNED:
        for node in ast.walk(ast.parse(p.read_text("utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = node.end_lineno - node.lineno + 1
                assert n <= 80, f"{p.name}:{node.lineno} {node.name} is {n} lines"
