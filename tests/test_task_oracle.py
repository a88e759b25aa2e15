"""Oracle digests at QUALIFIED and the REOPENED_S3 protocol."""

from __future__ import annotations

import json
from pathlib import Path

from gavelkit.task.formats.pipeline_state import read_pipeline_state
from gavelkit.task.pipeline.digests import compare_digests, record_digests
from gavelkit.task.pipeline.oracle import check_oracle
from gavelkit.task.pipeline.state import init_state, transition
from task_helpers import copy_good, edit

from gk_testing import clean, cli, cli_json, fires

LEDGER = """# Candidates

| repo | status | metric | detail |
|---|---|---|---|
| example__tally | SELECTED | spec_v1 | picked |
| task_good | QUALIFIED | 7 tests / reference 7-7 | graduated 2026-01-05 |
"""


def _qualified(tmp_path: Path) -> Path:
    """A wip-style task moved to QUALIFIED through gavel, with a ledger two levels up."""
    root = tmp_path / "repo"
    d = copy_good(root / "wip")
    (root / "CANDIDATES.md").write_text(LEDGER, "utf-8")
    init_state(d, date="2026-01-01")
    p = d / "PIPELINE_STATE.md"
    p.write_text(p.read_text().replace("S1_SCREENING", "S5_JUDGE", 1))
    (d / "judge").mkdir()
    (d / "judge" / "score_result.json").write_text(json.dumps({"passed": 5, "total": 7}))
    r = transition(d, "QUALIFIED", "gates pass", date="2026-01-05")
    assert r.written
    return d


def test_qualified_records_digests_of_every_oracle_file(tmp_path):
    d = _qualified(tmp_path)
    rec = json.loads((d / "oracle_digests.json").read_text())
    assert sorted(rec["files"]) == ["kept_nodeids.txt", "oracle/test_atomic.py",
                                    "oracle/test_integration.py", "spec_test_map.md",
                                    "taxonomy.jsonl"]
    assert rec["oracle_version"] == "v1" and rec["recorded"] == "2026-01-05"
    assert compare_digests(d) == []
    res = check_oracle(d, date="2026-02-01")
    assert res.changes == [] and not res.actions
    clean(res.findings, "TSK-O002")
    clean(res.findings, "TSK-O001")


def test_changed_oracle_runs_the_reopened_s3_protocol(tmp_path):
    d = _qualified(tmp_path)
    edit(d / "oracle" / "test_atomic.py", '== "4"', '== "four"')
    edit(d / "spec_test_map.md", "oracle_version: `v1`", "oracle_version: `v2`")
    res = check_oracle(d, date="2026-02-01")
    f = fires(res.findings, "TSK-O002")
    assert f.severity == "error" and "oracle/test_atomic.py (changed)" in f.message
    clean(res.findings, "TSK-O003")
    clean(res.findings, "TSK-O004")
    assert res.new_version == "v2" and res.old_version == "v1"
    ps, _ = read_pipeline_state(d / "PIPELINE_STATE.md")
    assert ps.state == "REOPENED_S3" and ps.history[-1].from_state == "QUALIFIED"
    ledger = (d.parent.parent / "CANDIDATES.md").read_text()
    assert "| task_good | QUALIFIED | 7 tests / reference 7-7 | graduated 2026-01-05; " \
           "superseded_by: v2 |" in ledger
    assert "| example__tally | SELECTED | spec_v1 | picked |" in ledger
    assert not (d / "judge" / "score_result.json").exists()
    assert (d / "judge" / "score_result_superseded_2026-02-01.json").is_file()
    # second run: already REOPENED_S3, nothing more to do, nothing renamed twice
    res2 = check_oracle(d, date="2026-02-02")
    assert not res2.actions and fires(res2.findings, "TSK-O002").severity == "warning"
    # back to QUALIFIED only after a new candidate score
    r = transition(d, "QUALIFIED")
    assert "new score_result.json" in fires(r.findings, "TSK-S003").message
    (d / "judge" / "score_result.json").write_text(json.dumps({"passed": 7, "total": 7}))
    assert transition(d, "QUALIFIED", "re-judged", date="2026-02-03").written
    assert compare_digests(d) == []  # new baseline recorded


def test_unbumped_version_and_missing_ledger_row(tmp_path):
    d = _qualified(tmp_path)
    (d.parent.parent / "CANDIDATES.md").write_text(LEDGER.replace("| task_good | QUALIFIED",
                                                                  "| other | QUALIFIED"))
    (d / "kept_nodeids.txt").write_text("oracle/test_atomic.py::test_render_digits\n")
    res = check_oracle(d, date="2026-02-01", dry_run=True)
    assert "v1" in fires(res.findings, "TSK-O003").message
    fires(res.findings, "TSK-O004")
    assert res.new_version.startswith("v1+sha256:")
    # dry run: nothing written
    ps, _ = read_pipeline_state(d / "PIPELINE_STATE.md")
    assert ps.state == "QUALIFIED" and (d / "judge" / "score_result.json").is_file()
    assert any(a.startswith("renamed judge/score_result.json") for a in res.actions)


def test_graduated_folder_without_state_file(tmp_path):
    d = copy_good(tmp_path)
    edit(d / "task.json", '"status": "SELECTED"', '"status": "QUALIFIED"')
    res = check_oracle(d)
    f = fires(res.findings, "TSK-O001")
    assert f.severity == "warning" and "--record" in f.message
    rc, data = cli_json("task", "check-oracle", str(d), "--record")
    assert rc == 0 and data["actions"][0].startswith("recorded 5 oracle digests")
    edit(d / "taxonomy.jsonl", '"layer": "system_e2e"', '"layer": "integration"')
    rc, data = cli_json("task", "check-oracle", str(d), "--date", "2026-03-01")
    assert rc == 1 and data["changes"] == [["taxonomy.jsonl", "changed"]]
    tj = json.loads((d / "task.json").read_text("utf-8-sig"))
    assert tj["status"] == "REOPENED_S3" and tj["reopened_s3"]["date"] == "2026-03-01"
    assert tj["zz_unknown_key"] == {"kept": ["as", "is"]}
    assert (d / "task.json").read_bytes().startswith(b"\xef\xbb\xbf")


def test_not_recorded_and_not_qualified_is_info(tmp_path):
    d = copy_good(tmp_path)
    rc, out, _ = cli("task", "check-oracle", str(d))
    assert rc == 0 and "never recorded" in out
    record_digests(d)
    rc, out, _ = cli("task", "check-oracle", str(d))
    assert rc == 0 and "unchanged" in out
