"""`gavel demo` runs the bundled examples and every step comes out as expected."""

from __future__ import annotations

import json
from pathlib import Path

from gk_testing import cli


def test_demo_json(tmp_path: Path) -> None:
    rc, out, err = cli("demo", "--format", "json", "--out", str(tmp_path))
    doc = json.loads(out)
    bad = [s for steps in doc["demos"].values() for s in steps if not s["ok"]]
    assert rc == 0 and doc["ok"], bad or err
    assert (tmp_path / "examples" / "award-run").is_dir()


def test_demo_missing_examples(tmp_path: Path) -> None:
    rc, _, err = cli("demo", "--examples", str(tmp_path / "nope"))
    assert rc == 2 and "examples folder not found" in err


def test_example_run_lints_clean_with_run_dir(root: Path) -> None:
    from gavelkit.award.blocks.lint import lint_paths

    run = next((root / "examples/award-run/work").iterdir())
    for log in sorted((run / "phase-logs").glob("phase[0-6].md")):
        res = lint_paths([log], "handoff", run_dir=run)[0]
        for b in res.blocks:
            agent = b.block.body["agent"]
            again = lint_paths([log], "handoff", agent=agent, run_dir=run)[0]
            assert [f for f in again.all_findings() if f.severity == "error"] == [], log


def test_example_run_ships_the_figqa_gate(root: Path) -> None:
    run = next((root / "examples/award-run/work").iterdir())
    copy = run / "code" / "figqa.py"
    assert copy.read_bytes() == (root / "src/gavelkit/award/figures/figqa.py").read_bytes()
    assert "assert_no_overlap(fig)" in (run / "code" / "run_all.py").read_text()
