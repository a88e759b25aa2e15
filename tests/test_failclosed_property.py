"""Property: every command's file inputs, fed any hostile file, keep the exit-code contract.

For each place a command reads (or writes) a file (tests/hostile.py SLOTS),
Hypothesis picks hostile kinds (empty, binary, non-UTF-8, broken YAML, alias
bomb, deep nesting, huge, FIFO, /dev/zero link, link out of the root, folder
for file, loops, ...). Each call runs in a child with a time limit and an
address-space cap, and must: exit 0, 1 or 2 (never 3, never killed), print no
traceback, and leave everything outside the workspace's output paths alone.
Few examples per command keep it fast; the benchmark runs the whole matrix.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hostile import KINDS, SLOTS, build_workspace, plant, run_gavel, snapshot
from test_failclosed_judge import prepared  # noqa: F401 - the module fixture

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def judged(prepared: Path) -> Path:  # noqa: F811
    return prepared / "task_good"


@pytest.mark.parametrize("slot", SLOTS, ids=[s[0] for s in SLOTS])
@settings(max_examples=2, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(data=st.data())
def test_hostile_file_keeps_the_contract(slot: tuple[str, str, list[str]], data: st.DataObject,
                                         judged: Path) -> None:
    name, rel, argv = slot
    # each slot starts from a different kind, so the few examples cover every kind overall
    start = 2 * SLOTS.index(slot) % len(KINDS)
    kind = data.draw(st.sampled_from(KINDS[start:] + KINDS[:start]), label="kind")
    ws = Path(tempfile.mkdtemp(prefix="gavel-hostile-"))
    try:
        build_workspace(ws, ROOT, judged)
        plant(kind, ws / rel, ws / "outside")
        keep = {p: v for p, v in snapshot(ws).items()
                if not p.startswith((str(ws / "out"), str(ws / rel)))}
        outside = snapshot(ws / "outside")
        rc, out, err = run_gavel([a.replace("{ws}", str(ws)) for a in argv], cwd=ws,
                                 timeout=60)
        assert rc in (0, 1, 2), f"{name} / {kind}: exit {rc}: {err[-500:]}"
        assert "Traceback" not in err + out, f"{name} / {kind}: {err[-800:]}"
        assert snapshot(ws / "outside") == outside, f"{name} / {kind} changed outside/"
        after = snapshot(ws)
        writes_in_place = {"award manifest", "award briefs (variant)", "task judge (score)",
                           "task judge --trajectory", "task state", "skills install (record)"}
        if name not in writes_in_place:
            changed = [p for p, v in keep.items() if after.get(p) != v]
            assert not changed, f"{name} / {kind} changed {changed[:3]}"
    finally:
        shutil.rmtree(ws, ignore_errors=True)


def test_every_kind_is_plantable(tmp_path: Path) -> None:
    """The generator itself: each kind puts something at the path (or its parent)."""
    (tmp_path / "outside").mkdir()
    for kind in KINDS:
        target = tmp_path / kind / "sub" / "f.txt"
        plant(kind, target, tmp_path / "outside")
        assert target.is_symlink() or target.parent.exists()
