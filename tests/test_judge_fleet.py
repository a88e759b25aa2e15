"""judge-all: many tasks in parallel processes, or on a local Dask cluster."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gavelkit.task.judging.fleet import (
    FleetOptions,
    candidate_runs,
    find_tasks,
    judge_all,
    render_table,
)
from judge_helpers import BROKEN, REFERENCE, make_task

from gk_testing import clean, cli, cli_json, fires


def fleet(root: Path, n: int = 2) -> Path:
    """n task folders, each with reference/ and candidate-runs/r1/solution/."""
    tasks = root / "tasks"
    first = make_task(root / "src", atomic_only=True)
    data = json.loads((first / "task.json").read_text("utf-8-sig"))
    data["package"] = "tally"
    (first / "task.json").write_text(json.dumps(data))
    for sub, text in (("reference/tally/__init__.py", REFERENCE),
                      ("candidate-runs/r1/solution/tally/__init__.py", BROKEN)):
        p = first / sub
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    from gavelkit.task.pipeline.state import init_state

    init_state(first, date="2026-01-01")  # the judge's entry: PIPELINE_STATE.md at S5_JUDGE
    sp = first / "PIPELINE_STATE.md"
    sp.write_text(sp.read_text("utf-8").replace("S1_SCREENING", "S5_JUDGE", 1), "utf-8")
    for i in range(n):
        shutil.copytree(first, tasks / ("task_good" if i == 0 else f"task_good_{i}"))
    return tasks


def test_discovery(tmp_path: Path) -> None:
    tasks = fleet(tmp_path)
    found = find_tasks(tasks)
    assert [p.name for p in found] == ["task_good", "task_good_1"]
    assert [r.name for r, s in candidate_runs(found[0]) if s is not None] == ["r1"]


@pytest.mark.sandbox
def test_judge_all_jobs_2(tmp_path: Path) -> None:
    tasks = fleet(tmp_path)
    rc, doc = cli_json("task", "judge-all", str(tasks), "--jobs", "2", "--no-state")
    rows = doc["tasks"]
    assert [r["task"] for r in rows] == ["task_good", "task_good_1"]
    from gavelkit.core.findings import Finding

    clean([Finding(f["code"], f["severity"], f["message"]) for f in doc["findings"]], "TSK-J010")
    for r in rows:
        assert r["total"] == 5 and r["passed"] == 3 and r["reference_rate"] == 1.0
        assert r["verdict"] in ("QUALIFIED", "BROKEN")
    assert (tasks / "task_good" / "judge" / "reference_run" / "score_result.json").is_file()
    assert (tasks / "task_good" / "candidate-runs" / "r1" / "score_result.json").is_file()
    table = render_table(rows)
    assert table.count("| task_good") == 2 and "2 task(s)" in table
    # the second pass reuses the scores (nothing is re-run) and renders text
    rc2, out, _ = cli("task", "judge-all", str(tasks), "--no-state")
    assert "task_good_1" in out and rc2 == rc


def test_judge_all_errors_are_rows(tmp_path: Path) -> None:
    tasks = fleet(tmp_path, 1)
    shutil.rmtree(tasks / "task_good" / "candidate-runs")
    rows = judge_all(tasks, FleetOptions(move_state=False))
    assert "no scored candidate run" in rows[0]["error"]
    rc, doc = cli_json("task", "judge-all", str(tasks))
    assert rc == 1
    from gavelkit.core.findings import Finding

    fires([Finding(**{k: v for k, v in f.items() if k in ("code", "severity", "message", "path")})
           for f in doc["findings"]], "TSK-J010")
    (tmp_path / "empty").mkdir()
    rc, doc = cli_json("task", "judge-all", str(tmp_path / "empty"))
    assert rc == 1 and "no task folders" in doc["findings"][0]["message"]
    rc, _, err = cli("task", "judge-all", str(tasks), "--jobs", "0")
    assert rc == 2 and "--jobs" in err


@pytest.mark.sandbox
def test_judge_all_on_a_local_dask_cluster(tmp_path: Path) -> None:
    pytest.importorskip("dask.distributed")
    tasks = fleet(tmp_path)
    rows = judge_all(tasks, FleetOptions(jobs=2, executor="dask", move_state=False))
    assert [r.get("error") for r in rows] == [None, None]
    assert [r["total"] for r in rows] == [5, 5]
    assert all(r["reference_rate"] == 1.0 for r in rows)
