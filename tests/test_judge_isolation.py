"""Issue 24, judge side: a score taken without the sandbox never certifies, results whose
integrity check never came are tampering, and the preflight is re-checked after the
session (the scoring run's evidence that the target package loaded from elsewhere)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gavelkit.task.judging.judge import judge_run
from gavelkit.task.scoring.options import RunOptions
from gavelkit.task.scoring.runner import run_solution
from gavelkit.task.scoring.sandbox import bwrap_available
from semver_variant import fill_spotcheck, scored_example, set_state

RUN = "candidate-runs/broken-001"


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    task = scored_example(tmp_path_factory.mktemp("semver"))
    first = judge_run(task, task / RUN, trajectories=[str(task / RUN / "trajectory.jsonl")],
                      date="2026-12-01")
    assert first.verdict == "PENDING"  # Gate A/C table written: fill it once
    fill_spotcheck(task)
    return task


@pytest.fixture
def task(scored: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "task-semver"
    shutil.copytree(scored, dest)
    return dest


def judged(task: Path):  # type: ignore[no-untyped-def]
    return judge_run(task, task / RUN, trajectories=[str(task / RUN / "trajectory.jsonl")],
                     date="2026-12-01")


def _edit(task: Path, change) -> None:  # type: ignore[no-untyped-def]
    p = task / RUN / "score_result.json"
    data = json.loads(p.read_text("utf-8"))
    change(data)
    p.write_text(json.dumps(data), "utf-8")


@pytest.mark.skipif(not bwrap_available()[0], reason="needs a sandboxed run to compare with")
def test_a_run_scored_without_the_sandbox_never_qualifies(task: Path) -> None:
    assert judged(task).verdict == "QUALIFIED"  # the near miss: the same run, sandboxed
    run = task / RUN
    run_solution(task, RunOptions(solution=run / "solution", out=run, isolation="none"))
    set_state(task, "S5_JUDGE")
    res = judged(task)
    assert res.verdict == "PENDING", res.reasons
    assert any("without the sandbox" in r for r in res.reasons), res.reasons


@pytest.mark.sandbox  # the fixture is a sandboxed, judged task
def test_results_without_their_integrity_check_are_tampering(task: Path) -> None:
    def drop(d: dict) -> None:
        d["gavel"]["findings"].append({"code": "TSK-X026", "severity": "error", "message":
                                       "the test process reported results but ended "
                                       "without gavel's integrity check", "path": "."})
    _edit(task, drop)
    assert judged(task).verdict == "CHEAT_DETECTED"


@pytest.mark.sandbox  # the fixture is a sandboxed, judged task
def test_the_preflight_is_rechecked_after_the_session(task: Path) -> None:
    def outside(d: dict) -> None:
        ev = d["gavel"].setdefault("integrity", {}).setdefault("evidence", {})
        ev["tamper"] = ["semver loaded from /elsewhere/semver/__init__.py, outside the "
                        "candidate"]
    _edit(task, outside)
    res = judged(task)
    assert res.verdict != "QUALIFIED"
    pre = [c for c in res.checks if c.name == "preflight"]
    assert pre and pre[0].status == "FAIL" and "after the session" in pre[0].reason


@pytest.mark.sandbox  # the fixture is a sandboxed, judged task
def test_without_the_sandbox_the_judge_never_runs_the_candidate(
        task: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The preflight's literal import runs the candidate's code: unconfined, that code has
    the judge's rights (it could rewrite the score file the judge reads next). With no
    sandbox the import is not done and the preflight is UNVERIFIABLE (TSK-J002)."""
    mark = tmp_path / "imported-unconfined"
    init = task / RUN / "solution" / "semver" / "__init__.py"
    init.write_text(init.read_text("utf-8") + f"\nopen({str(mark)!r}, 'w').close()\n",
                    "utf-8")
    monkeypatch.setenv("GAVEL_NO_BWRAP", "1")
    res = judged(task)
    assert not mark.exists()
    assert res.verdict != "QUALIFIED"
    pre = [c for c in res.checks if c.name == "preflight"]
    assert pre and pre[0].status == "UNVERIFIABLE" and "sandbox" in pre[0].reason, pre
    assert "TSK-J002" in {f.code for f in res.findings}
