"""The judge keeps the shape issue 23 measured (radon cc): no block rated D or worse, few
rated C, no long function. Held for the files the judge's owner keeps; the project-wide
numbers are the lead's test."""

from __future__ import annotations

from pathlib import Path

from shape_helpers import area_shape, long_functions

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
    shape = area_shape(OWNED)
    assert not shape.worse, shape.worse
    assert shape.c_density <= 2.0, shape.rated_c


def test_no_long_functions() -> None:
    long = long_functions(OWNED, 80)
    assert not long, long
