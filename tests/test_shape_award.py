"""The award area keeps the shape issue 23 measured (radon cc): no block rated D or worse,
at most 5 rated C per 1,000 lines, no long function. Held for src/gavelkit/award and the
award CLI modules; figures/figqa.py is a standalone file a run copies, so it counts for
"no D or worse" and "no long function" but not for the C density."""

from __future__ import annotations

from pathlib import Path

from shape_helpers import area_shape, long_functions

SRC = Path(__file__).resolve().parents[1] / "src" / "gavelkit"
AREA = [*sorted((SRC / "award").rglob("*.py")), *sorted((SRC / "cli").glob("award*.py"))]
STANDALONE = SRC / "award" / "figures" / "figqa.py"


def test_area_has_files() -> None:
    assert len(AREA) > 40 and STANDALONE in AREA


def test_no_complex_blocks() -> None:
    shape = area_shape(AREA, frozenset({STANDALONE}))
    assert not shape.worse, shape.worse
    assert shape.c_density <= 5.0, shape.rated_c


def test_no_long_functions() -> None:
    long = long_functions(AREA, 80)
    assert not long, long
