"""The task area keeps the shape issue 23 measured (radon cc): no block rated D or worse,
few rated C, no long function. Held for the gates, pipeline, formats (the score reader
is the judge's: test_shape_judge.py), metrics, fleet and reports, and their CLI modules."""

from __future__ import annotations

from pathlib import Path

from shape_helpers import area_shape, long_functions

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
    shape = area_shape(AREA)
    assert not shape.worse, shape.worse
    assert shape.c_density <= 2.0, shape.rated_c


def test_no_long_functions() -> None:
    long = long_functions(AREA, 80)
    assert not long, long
