"""The task area keeps the shape issue 23 measured (radon cc): no block rated D or worse,
few rated C, no long function. Held for the gates, pipeline, formats (the score reader
is the judge's: test_shape_judge.py), metrics, fleet and reports, and their CLI modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "gavelkit"
TASK = SRC / "task"
AREA = [*sorted((TASK / "gates").glob("*.py")), *sorted((TASK / "pipeline").glob("*.py")),
        *[p for p in sorted((TASK / "formats").glob("*.py"))
          if p.name not in ("score.py", "score_formats.py")],
        *[TASK / "judging" / f"{n}.py" for n in ("metrics", "fleet", "report", "report_data",
                                                  "report_charts")],
        SRC / "cli" / "task_pipeline.py", *sorted((SRC / "cli").glob("task_gates*.py"))]


def test_area_has_files() -> None:
    assert len(AREA) > 30 and all(p.is_file() for p in AREA)


def test_no_complex_blocks() -> None:
    radon = pytest.importorskip("radon.complexity")
    lines = 0
    rated_c: list[str] = []
    for p in AREA:
        text = p.read_text("utf-8")
        lines += text.count("\n")
        for b in radon.cc_visit(text):
            rank = radon.cc_rank(b.complexity)
            assert rank in "ABC", f"{p.name}:{b.lineno} {b.name} rated {rank} ({b.complexity})"
            if rank == "C":
                rated_c.append(f"{p.name}:{b.name}")
    assert len(rated_c) * 1000 / lines <= 2.0, rated_c


def test_no_long_functions() -> None:
    for p in AREA:
        for node in ast.walk(ast.parse(p.read_text("utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = node.end_lineno - node.lineno + 1
                assert n <= 80, f"{p.name}:{node.lineno} {node.name} is {n} lines"
