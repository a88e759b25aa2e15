"""Issue 26 item 9: judge-all on a folder holding an already-QUALIFIED task, and the
trajectory files it hands to the scan."""

from __future__ import annotations

from pathlib import Path

import pytest

from gavelkit.task.judging.fleet import FleetOptions, judge_all, render_table, run_trajectories
from gavelkit.task.pipeline.state import init_state
from test_judge_fleet import fleet

from gk_testing import cli_json


def _qualified(task: Path) -> None:
    init_state(task, date="2026-01-01", force=True)
    p = task / "PIPELINE_STATE.md"
    p.write_text(p.read_text().replace("S1_SCREENING", "QUALIFIED", 1))


def test_judge_all_leaves_a_qualified_task_alone_without_crashing(tmp_path):
    tasks = fleet(tmp_path)
    _qualified(tasks / "task_good")
    rc, doc = cli_json("task", "judge-all", str(tasks), "--no-state")
    assert rc in (0, 1), doc  # never the internal error (exit 3) it was
    rows = {r["task"]: r for r in doc["tasks"]}
    q = rows["task_good"]
    assert q["verdict"] == "NOT JUDGED" and q["state"] == "QUALIFIED" and "error" not in q
    assert "S5_JUDGE" in q["not_judged"]
    assert rows["task_good_1"]["verdict"] in ("QUALIFIED", "BROKEN")  # the other is judged
    assert "NOT JUDGED (state QUALIFIED)" in render_table(doc["tasks"])


def test_judge_all_on_dask_gives_no_error_row_for_a_qualified_task(tmp_path):
    pytest.importorskip("dask.distributed")
    tasks = fleet(tmp_path)
    _qualified(tasks / "task_good")
    rows = judge_all(tasks, FleetOptions(jobs=2, executor="dask", move_state=False))
    assert [r.get("error") for r in rows] == [None, None]
    assert rows[0]["verdict"] == "NOT JUDGED"


def test_run_trajectories_beyond_trajectory_jsonl(tmp_path):
    task = tmp_path / "t"
    run = task / "candidate-runs" / "r1"
    for rel in ("trajectory.jsonl", "run.traj", "logs/agent.jsonl", "trajectories/x.json",
                "solution/trajectory.jsonl", "score_result.json", "notes.txt"):
        p = run / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("{}\n")
    got = {str(Path(p).relative_to(run)) for p in run_trajectories(task, run)}
    assert got == {"trajectory.jsonl", "run.traj", "logs/agent.jsonl", "trajectories/x.json"}


def test_no_state_file_is_no_entry(tmp_path):
    """Issue 26 item 3: judging needs PIPELINE_STATE.md at S5_JUDGE; nothing is written."""
    tasks = fleet(tmp_path, 1)
    t = tasks / "task_good"
    (t / "PIPELINE_STATE.md").unlink()
    before = (t / "task.json").read_bytes()
    from gk_testing import cli

    rc, out, err = cli("task", "judge", str(t), "--run", str(t / "candidate-runs" / "r1"))
    assert rc != 0 and "no PIPELINE_STATE.md" in out + err and "--adopt" in out + err
    assert (t / "task.json").read_bytes() == before
    assert not (t / "judge" / "judge_result.json").exists()
