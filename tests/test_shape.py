"""The code's shape, held like the import rules: complexity and function length (issue 23).

The numbers are radon's, counted as `radon cc -s -n C src` counts them (closures folded into
their function), so a reader can reproduce them by hand. figqa.py is the standalone file a
team copies into its code; it is left out of the density (it is one file by design) but not
out of the F and length rules.
"""

from __future__ import annotations

from pathlib import Path

from shape_helpers import function_lengths

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "gavelkit"
STANDALONE = {"figqa.py"}
DATA = SRC / "data"  # tables and rule fixtures (a fixture may be an old figqa.py kept as text)

# C-or-worse blocks per 1,000 source lines; the anchors (yamllint, pyflakes, pytest, the
# SWE-bench harness, inspect_ai's log package) measure 1.1-4.6.
MAX_DENSITY = 5.0
MAX_LONG = 2  # functions over LONG_LINES lines
LONG_LINES = 100


def _harvest() -> list[tuple[Path, object]]:
    """Every block `radon cc -s src` lists (functions, methods, classes), with its file."""
    from radon.cli import Config  # a test extra: the numbers are held, never skipped
    from radon.cli.harvest import CCHarvester
    from radon.complexity import SCORE

    cfg = Config(min="A", max="F", exclude=None, ignore=None, show_complexity=True,
                 average=False, total_average=False, order=SCORE, no_assert=False,
                 show_closures=False)
    return [(Path(name), block) for name, blocks in CCHarvester([str(SRC)], cfg).results
            for block in blocks if Path(name).suffix == ".py" and DATA not in Path(name).parents]


def _rank(block: object) -> str:
    from radon.complexity import cc_rank

    return cc_rank(block.complexity)  # type: ignore[attr-defined]


def test_no_f_rated_block() -> None:
    worst = [f"{p.relative_to(ROOT)}:{b.lineno} {b.name} ({b.complexity})"  # type: ignore[attr-defined]
             for p, b in _harvest() if _rank(b) == "F"]
    assert not worst, "F-rated blocks (split them along their seams):\n  " + "\n  ".join(worst)


def test_complexity_density() -> None:
    lines = sum(len(p.read_text(encoding="utf-8").splitlines())
                for p in SRC.rglob("*.py") if p.name not in STANDALONE)
    dense = [(p, b) for p, b in _harvest() if p.name not in STANDALONE and _rank(b) >= "C"]
    density = len(dense) * 1000 / lines
    assert density <= MAX_DENSITY, (
        f"{len(dense)} C-or-worse blocks in {lines} lines = {density:.1f} per 1,000 "
        f"(at most {MAX_DENSITY}); worst: " + ", ".join(
            f"{p.name}:{b.name}" for p, b in sorted(  # type: ignore[attr-defined]
                dense, key=lambda pb: -pb[1].complexity)[:10]))  # type: ignore[attr-defined]


def test_few_long_functions() -> None:
    long = sorted(((n, f"{p.relative_to(ROOT)}:{name}") for p in SRC.rglob("*.py")
                   for name, _line, n in function_lengths(p) if n > LONG_LINES), reverse=True)
    assert len(long) <= MAX_LONG, (
        f"{len(long)} functions over {LONG_LINES} lines (at most {MAX_LONG}): "
        + ", ".join(f"{where} ({n})" for n, where in long))
