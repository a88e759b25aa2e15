"""Issue 26 items 2 and 12: the state machine fits graduated and legacy tasks, and
REOPENED_S3 voids what was made on the old oracle."""

from __future__ import annotations

import json
from pathlib import Path

from gavelkit.task.formats.pipeline_state import read_pipeline_state
from gavelkit.task.pipeline.oracle import check_oracle
from gavelkit.task.pipeline.state import init_state, plan_transition, transition
from task_helpers import copy_good, judge_record

from gk_testing import cli, fires


def _state(d: Path) -> str:
    ps, _ = read_pipeline_state(d / "PIPELINE_STATE.md")
    return ps.state


def _at(d: Path, state: str) -> None:
    init_state(d, date="2026-01-01", force=True)
    p = d / "PIPELINE_STATE.md"
    p.write_text(p.read_text().replace("S1_SCREENING", state, 1))


def test_graduated_task_enters_oracle_merge_on_its_oracle(tmp_path):
    """A graduated tasks/{id}/ folder has oracle/test_*.py, no kept_upstream.txt."""
    d = copy_good(tmp_path)
    _at(d, "S3A_DONE")
    plan = plan_transition(d, "S3_ORACLE_MERGE")
    assert plan.ok, [f.message for f in plan.findings]


def test_oracle_merge_still_needs_some_oracle(tmp_path):
    # near miss: the same task with no oracle at all is refused
    d = copy_good(tmp_path)
    for rel in ("kept_nodeids.txt",):
        (d / rel).unlink()
    for p in (d / "oracle").glob("test_*.py"):
        p.unlink()
    _at(d, "S3A_DONE")
    plan = plan_transition(d, "S3_ORACLE_MERGE")
    fires(plan.findings, "TSK-S003")


def _legacy(tmp_path: Path) -> Path:
    d = copy_good(tmp_path)
    (d / "reference_score.json").write_text(json.dumps(
        {"summary": {"passed": 7, "failed": 0, "total": 7}, "pass_rate": 1.0}))
    (d / "judge").mkdir()
    (d / "judge" / "score_result.json").write_text(json.dumps(
        {"summary": {"passed": 5, "failed": 2, "total": 7}, "pass_rate": 5 / 7}))
    return d


def test_legacy_task_reaches_s5_through_a_command(tmp_path):
    d = _legacy(tmp_path)
    rc, out, _ = cli("task", "init", str(d), "--adopt", "--date", "2026-12-01")
    assert rc == 0, out
    assert _state(d) == "S5_JUDGE"
    text = (d / "PIPELINE_STATE.md").read_text()
    assert "adopted by `gavel task init --adopt`" in text
    assert "S4_SETUP: ok (reference_score.json)" in text
    # and the judge's edges work from there
    assert plan_transition(d, "S4_EVAL_RUN").ok


def test_adopt_stops_at_the_first_unmet_guard(tmp_path):
    # near miss: a reference below 100 % stops adoption at S3_ORACLE_MERGE
    d = _legacy(tmp_path)
    (d / "reference_score.json").write_text(json.dumps(
        {"summary": {"passed": 6, "failed": 1, "total": 7}, "pass_rate": 6 / 7}))
    init_state(d, date="2026-12-01", adopt=True)
    assert _state(d) == "S3_ORACLE_MERGE"
    assert "S4_SETUP: not met" in (d / "PIPELINE_STATE.md").read_text()


def test_adopt_never_certifies_qualified(tmp_path):
    d = _legacy(tmp_path)
    tj = json.loads((d / "task.json").read_text("utf-8-sig"))
    tj["status"] = "QUALIFIED"
    (d / "task.json").write_text(json.dumps(tj), "utf-8")
    init_state(d, date="2026-12-01", adopt=True)
    assert _state(d) == "S5_JUDGE"


def test_reopened_s3_voids_reference_runs_and_spotcheck_tables(tmp_path):
    d = copy_good(tmp_path)
    _at(d, "S5_JUDGE")
    (d / "judge").mkdir()
    (d / "judge" / "score_result.json").write_text(json.dumps({"passed": 5, "total": 7}))
    ref = d / "judge" / "reference_run"
    ref.mkdir()
    (ref / "score_result.json").write_text(json.dumps({"summary": {"passed": 7, "total": 7}}))
    (d / "judge" / "spotcheck.md").write_text("| nodeid | assertion summary | spec_section | verdict |\n")
    judge_record(d)
    assert transition(d, "QUALIFIED", "ok", date="2026-01-05").written
    (d / "kept_nodeids.txt").write_text((d / "kept_nodeids.txt").read_text() + "oracle/test_atomic.py::test_new\n")
    res = check_oracle(d, date="2026-02-01")
    assert _state(d) == "REOPENED_S3"
    assert not (ref / "score_result.json").exists()
    assert (ref / "score_result_superseded_2026-02-01.json").is_file()
    assert not (d / "judge" / "spotcheck.md").exists()
    assert (d / "judge" / "spotcheck_superseded_2026-02-01.md").is_file()
    assert any("reference run on the old oracle" in a for a in res.actions)


def test_unchanged_oracle_keeps_its_reference_run(tmp_path):
    # near miss: no oracle change, nothing renamed
    d = copy_good(tmp_path)
    _at(d, "S5_JUDGE")
    (d / "judge").mkdir()
    (d / "judge" / "score_result.json").write_text(json.dumps({"passed": 5, "total": 7}))
    ref = d / "judge" / "reference_run"
    ref.mkdir()
    (ref / "score_result.json").write_text("{}")
    judge_record(d)
    assert transition(d, "QUALIFIED", "ok", date="2026-01-05").written
    res = check_oracle(d, date="2026-02-01")
    assert not res.changes and (ref / "score_result.json").is_file()


# ------------------------------------------------------------------ spot-check tables (item 12)
def _filled_table(d: Path, verdict: str = "derivable") -> str:
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.gates import spotcheck as sc

    task = load_task(d)
    rows = sc.build(task, 7, seed=0)
    for r in rows:
        r.verdict = verdict
    rows[0].verdict = "not derivable" if verdict == "derivable" else verdict
    return sc.render(rows, "A", 0, 7, sc.allowed_verdicts(task.config, "A"))


def test_stale_spotcheck_table_is_not_reused_after_the_map_changed(tmp_path):
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.gates import spotcheck as sc

    d = copy_good(tmp_path)
    text = _filled_table(d)
    assert "map sha256 " in text
    m = d / "spec_test_map.md"
    m.write_text(m.read_text() + "\n")
    f = fires(sc.verify(load_task(d), text, "t.md").findings, "TSK-A010")
    assert "the map changed since" in f.message


def test_spotcheck_table_of_the_current_map_is_not_stale(tmp_path):
    from gavelkit.core.findings import Finding
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.gates import spotcheck as sc

    d = copy_good(tmp_path)
    res = sc.verify(load_task(d), _filled_table(d), "t.md")
    assert not [f for f in res.findings if f.code == "TSK-A010"]
    from gk_testing import clean

    clean([Finding(f.code, f.severity, f.message, f.path, f.line, f.col) for f in res.findings],
          "TSK-A010")


def test_failed_spot_rows_are_named_in_the_finding_and_the_request(tmp_path):
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.gates import spotcheck as sc
    from gavelkit.task.judging.diagnosis import _failed_spot_rows

    d = copy_good(tmp_path)
    res = sc.verify(load_task(d), _filled_table(d), "t.md")
    f = fires(res.findings, "TSK-A007")
    first = sc.build(load_task(d), 7, seed=0)[0].nodeid
    assert f"{first} (not derivable, line" in f.message
    lines = _failed_spot_rows({"findings": [x.to_dict() for x in res.findings]})
    assert len(lines) == 1 and first in lines[0] and "not derivable" in lines[0]
