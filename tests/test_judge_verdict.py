"""The judge: the seed's order, verdicts, routes, records, state moves, and the CLI."""

from __future__ import annotations

import json
import shutil
import sys
import types
from pathlib import Path

import pytest

from gavelkit.core.errors import InputError
from gavelkit.task.anticheat import api as anticheat_api
from gavelkit.task.judging.judge import judge_run
from gavelkit.task.judging.records import record
from gavelkit.task.judging.verdict import SCHEMA_VERSION
from gavelkit.task.pipeline.state import init_state
from gavelkit.task.scoring.options import RunOptions
from gavelkit.task.scoring.runner import run_solution
from judge_helpers import (
    BROKEN,
    REFERENCE,
    filled_gate_b,
    filled_spotcheck,
    make_task,
    solution,
    stand_in_preflight,
)

from gk_testing import clean, cli, cli_json, fires


def restamp(task: Path, run: str = "bad") -> None:
    """After editing the oracle in a test: mark the run as scored on the current oracle
    (what re-running the candidate would record), so the test reaches the gate it aims at."""
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.pipeline.digests import combined, current_digests

    p = task / "candidate-runs" / run / "score_result.json"
    data = json.loads(p.read_text())
    data["gavel"]["integrity"]["oracle_digest_before"] = combined(current_digests(load_task(task)))
    p.write_text(json.dumps(data))


def set_state(task: Path, state: str) -> None:
    init_state(task, "tally_task", date="2026-01-01", force=True)
    p = task / "PIPELINE_STATE.md"
    p.write_text(p.read_text().replace("state:       S1_SCREENING", f"state:       {state}"))


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A task with a reference run, a broken candidate run and a perfect candidate run."""
    base = tmp_path_factory.mktemp("judge")
    task = make_task(base)
    ref = solution(base, "ref", {"tally/__init__.py": REFERENCE})
    bad = solution(base, "bad", {"tally/__init__.py": BROKEN})
    run_solution(task, RunOptions(solution=ref, out=task / "judge" / "reference_run",
                                  role="reference", package="tally"))
    run_solution(task, RunOptions(solution=bad, out=task / "candidate-runs" / "bad",
                                  package="tally"))
    run_solution(task, RunOptions(solution=ref, out=task / "candidate-runs" / "perfect",
                                  package="tally"))
    data = json.loads((task / "task.json").read_text("utf-8-sig"))
    data["package"] = "tally"
    (task / "task.json").write_text(json.dumps(data, indent=2))
    set_state(task, "S4_DONE")
    filled_spotcheck(task)  # Gate A/C: the judge's verified table (issue 16)
    filled_gate_b(task, task / "candidate-runs" / "bad")  # Gate B: the judge's answers (issue 26)
    return task


@pytest.fixture
def task(prepared: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "task_good"
    shutil.copytree(prepared, dest)
    return dest


@pytest.fixture
def provenance(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Stand-in for the anti-cheat pack's preflight: passes unless told otherwise."""
    state = {"passed": True}

    def fake(package, candidate, python=None, remove_paths=()):  # type: ignore[no-untyped-def]
        return stand_in_preflight(package, candidate, state["passed"],
                                  "resolves into the candidate" if state["passed"]
                                  else "resolves outside the candidate")
    monkeypatch.setattr(anticheat_api, "preflight", fake)

    def clean_scan(paths, task_dir, package, forbid=(), **kw):  # type: ignore[no-untyped-def]
        return anticheat_api.Scan("CLEAN", [], "stand-in scan: clean")
    monkeypatch.setattr(anticheat_api, "scan", clean_scan)
    return state


@pytest.mark.sandbox
def test_order_verdict_and_records(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    res = judge_run(task, task / "candidate-runs" / "bad", date="2026-02-02")
    assert res.steps == ["preflight", "anti-cheat", "solvability", "fairness", "scores"]
    assert res.verdict == "QUALIFIED", (res.reasons, [f.message for f in res.findings])
    for code in ("TSK-J001", "TSK-J002", "TSK-J003", "TSK-J005", "TSK-J006", "TSK-J007",
                 "TSK-J008", "TSK-J009", "TSK-J011"):
        clean(res.findings, code)
    clean(res.findings, "TSK-J004")  # the (stand-in) scan read a trajectory
    report = (task / "judge" / "diagnosis_report.md").read_text()
    from gavelkit.task.judgedata import table

    pos = [report.index(f"## {s}") if s not in ("Verdict",) else report.index("Verdict:")
           for s in table("report")["sections"]]
    assert pos == sorted(pos), "report sections out of the seed's order"
    assert report.index("## Preflight output") < report.index("## Candidate Score By Layer")
    assert "tally/__init__.py" in report and "| C1 |" in report
    tj = json.loads((task / "task.json").read_text("utf-8-sig"))
    assert tj["zz_unknown_key"] == {"kept": ["as", "is"]} and tj["oracle"]["custom_flag"] is True
    assert tj["judge"]["verdict"] == "QUALIFIED" and tj["judge"]["preflight_output"].startswith(
        "### Preflight output")
    assert tj["weaknesses"] and {"dimension", "description", "affected_tests", "layer"} <= set(
        tj["weaknesses"][0])
    assert tj["integration_gap"]["rate_gap"] is not None and "true_gap_events" in tj
    assert tj["candidate_score"]["total"] == 7
    state = (task / "PIPELINE_STATE.md").read_text()
    assert "state:       QUALIFIED" in state and "| S5_JUDGE | QUALIFIED |" in state
    assert (task / "oracle_digests.json").is_file()
    rec = json.loads((task / "judge" / "judge_result.json").read_text())
    assert rec["order"] == res.steps and rec["fairness_gates"]["gate-D"] == "FULL"
    assert record(res)["candidate_score"]["summary"]["total"] == 7


@pytest.mark.sandbox
def test_a_preflight_that_cannot_run_blocks_qualified(task: Path, provenance, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """No candidate folder to import from: the literal block says `(not run: ...)`, the
    preflight is UNVERIFIABLE and the task goes back to S4_SETUP, never QUALIFIED."""
    run = task / "candidate-runs" / "bad"
    ok = judge_run(task, run, move_state=False)  # near miss: the recorded solution is there
    clean(ok.findings, "TSK-J002")
    res = judge_run(task, run, solution=tmp_path / "gone")
    f = fires(res.findings, "TSK-J002")
    assert "not found" in f.message and not res.preflight.ran
    assert res.verdict == "BROKEN" and res.route == "env"
    assert "(not run:" in (task / "judge" / "diagnosis_report.md").read_text()
    state = (task / "PIPELINE_STATE.md").read_text()
    assert "state:       S4_SETUP" in state and "eval_iter:   1" in state


def test_adapter_calls_the_anticheat_api(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from gavelkit.task.anticheat.preflight import PreflightResult

    calls = {}
    pre = types.ModuleType("gavelkit.task.anticheat.preflight")

    def run_preflight(package, candidate, python=None, remove_paths=(), env=None,  # type: ignore[no-untyped-def]
                      pythonpath=True):
        calls["pre"] = (package, candidate, python, list(remove_paths))
        calls["env"] = env
        return stand_in_preflight(package, candidate, True, "ok")
    pre.run_preflight = run_preflight  # type: ignore[attr-defined]
    pre.PreflightResult = PreflightResult  # type: ignore[attr-defined]
    scan = types.ModuleType("gavelkit.task.anticheat.scan")

    def scan_trajectories(paths, task_dir, package, forbid=()):  # type: ignore[no-untyped-def]
        calls["scan"] = (paths, task_dir, package, list(forbid))
        return types.SimpleNamespace(verdict="CLEAN", findings=[])
    scan.scan_trajectories = scan_trajectories  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gavelkit.task.anticheat.preflight", pre)
    monkeypatch.setitem(sys.modules, "gavelkit.task.anticheat.scan", scan)
    p = anticheat_api.preflight("tally", str(tmp_path), python="/x/python", remove_paths=["tally"])
    assert p.ran and p.passed and calls["pre"] == ("tally", str(tmp_path), "/x/python",
                                                    ["tally"])
    assert "PYTHONPATH" not in calls["env"]  # the probe never sees gavel's own import path
    s = anticheat_api.scan(["t.jsonl"], str(tmp_path), "tally", ["/secret"])
    assert s.verdict == "CLEAN" and calls["scan"][3] == ["/secret"]


@pytest.mark.sandbox
def test_a_run_folder_with_another_scorers_file_name_is_judged(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    run = task / "candidate-runs" / "bad"
    (run / "score_result.json").rename(run / "candidate_score_report_v5.json")
    res = judge_run(task, run, move_state=False)
    assert res.verdict == "QUALIFIED", res.reasons
    assert record(res)["judged_on"]["score_file"].endswith("candidate_score_report_v5.json")


@pytest.mark.sandbox
def test_the_candidates_stated_rate_is_recomputed(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    """A stated rate the counts do not give is never used: the score is UNVERIFIABLE (it was
    taken as stated, so a forged 1.0 on a failing run passed the score gates)."""
    p = task / "candidate-runs" / "bad" / "score_result.json"
    data = json.loads(p.read_text())
    data["pass_rate_excluding_skips"] = 1.0
    p.write_text(json.dumps(data))
    res = judge_run(task, task / "candidate-runs" / "bad", move_state=False)
    f = fires(res.findings, "TSK-J016")
    assert "disagrees with its own counts" in f.message
    assert res.verdict == "BROKEN" and res.route == "rerun" and not res.scores_usable


@pytest.mark.sandbox
def test_high_score_without_provenance_is_refused(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    provenance["passed"] = False
    res = judge_run(task, task / "candidate-runs" / "perfect")
    fires(res.findings, "TSK-J001")
    fires(res.findings, "TSK-J006")
    assert res.verdict == "BROKEN"
    provenance["passed"] = True
    set_state(task, "S5_JUDGE")  # the run was repaired and repeated
    ok = judge_run(task, task / "candidate-runs" / "perfect", move_state=False)
    clean(ok.findings, "TSK-J006")
    assert ok.verdict == "QUALIFIED"
    assert "saturated-candidate-score" in [lab["label"] for lab in ok.metrics.labels]


@pytest.mark.sandbox
def test_copy_share_of_the_scan_feeds_saturation(task: Path, provenance,  # type: ignore[no-untyped-def]
                                                 monkeypatch) -> None:
    """The judge scans with the solution folder; the scan's copy share (CHT-C001) at 100 %
    makes the task trivially-solved even where file counts are unknown."""
    seen: dict[str, object] = {}

    def copying_scan(paths, task_dir, package, forbid=(), **kw):  # type: ignore[no-untyped-def]
        seen.update(kw)
        return anticheat_api.Scan("CLEAN", (), "stand-in scan: clean",
                                  {"share": seen["copy_share"], "lines": 9, "total": 10})
    monkeypatch.setattr(anticheat_api, "scan", copying_scan)
    seen["copy_share"] = 0.9
    res = judge_run(task, task / "candidate-runs" / "perfect", move_state=False)
    assert seen["solution"] and Path(str(seen["solution"])).is_dir()
    assert res.metrics.saturation["applies"] and res.metrics.saturation["copy_share"] == 0.9
    assert "CHT-C001" in res.metrics.saturation["reason"]
    assert "trivially-solved" in [lab["label"] for lab in res.metrics.labels]
    seen["copy_share"] = 0.1                      # near miss: little of it copied
    low = judge_run(task, task / "candidate-runs" / "perfect", move_state=False)
    assert not low.metrics.saturation["applies"]
    assert "trivially-solved" not in [lab["label"] for lab in low.metrics.labels]


def test_cheat_from_trajectory(task: Path, provenance, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from gavelkit.core.findings import Finding

    def fake_scan(paths, task_dir, package, forbid=(), **kw):  # type: ignore[no-untyped-def]
        return anticheat_api.Scan("CHEAT_DETECTED", [Finding(
            "CHT-R001", "error", "read oracle/test_atomic.py", "t.jsonl", 3, 1)], "1 finding")
    monkeypatch.setattr(anticheat_api, "scan", fake_scan)
    before = json.loads((task / "task.json").read_text("utf-8-sig"))
    traj = task / "t.jsonl"  # the judge refuses a trajectory it cannot read (issue 13)
    traj.write_text('{"type": "user"}\n')
    res = judge_run(task, task / "candidate-runs" / "bad", trajectories=[str(traj)])
    fires(res.findings, "TSK-J003")
    clean(res.findings, "TSK-J004")  # a trajectory was scanned
    assert res.verdict == "CHEAT_DETECTED" and res.route == "env"
    tj = json.loads((task / "task.json").read_text("utf-8-sig"))
    assert tj.get("candidate_score") == before.get("candidate_score")  # score discarded
    assert "weaknesses" not in tj
    assert "state:       S4_SETUP" in (task / "PIPELINE_STATE.md").read_text()


def test_cheat_from_the_scoring_run(task: Path, provenance, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    forge = BROKEN + ("\nimport _pytest.reports as _r\n_o = _r.TestReport.from_item_and_call\n"
                      "def _f(item, call):\n    rep = _o(item, call)\n    rep.outcome = 'passed'\n"
                      "    return rep\n_r.TestReport.from_item_and_call = staticmethod(_f)\n")
    sol = solution(tmp_path, "forge", {"tally/__init__.py": forge})
    run_solution(task, RunOptions(solution=sol, out=task / "candidate-runs" / "forge",
                                  package="tally"))
    res = judge_run(task, task / "candidate-runs" / "forge", move_state=False)
    assert res.verdict == "CHEAT_DETECTED"
    assert any("tampering" in f.message for f in res.findings if f.code == "TSK-J003")


def test_solvability_below_threshold(task: Path, provenance, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = solution(tmp_path, "badref", {"tally/__init__.py": BROKEN})
    rc, doc = cli_json("task", "solvability", str(task), "--reference", str(bad), "--package",
                       "tally")
    assert rc == 1 and not doc["passed"] and doc["diagnosis"]
    assert any(f["code"] == "TSK-J005" for f in doc["findings"])
    res = judge_run(task, task / "candidate-runs" / "bad", move_state=False)
    fires(res.findings, "TSK-J005")
    assert res.verdict == "BROKEN" and res.route == "filter"
    assert "candidate" in " ".join(res.solvability.diagnosis_text)
    assert (task / "judge" / "filter_correction_request.md").is_file()


def test_solvability_environment_diagnosis(task: Path, provenance, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A module the requirements list but the environment lacks: environment, not oracle."""
    t = task / "oracle" / "test_atomic.py"
    t.write_text("import gk_missing_req  # noqa\n" + t.read_text())
    (task / "oracle" / "requirements.txt").write_text("pytest\ngk-missing-req\n")
    ref = solution(tmp_path, "ref2", {"tally/__init__.py": REFERENCE})
    from gavelkit.task.scoring.solvability import check_solvability

    sv = check_solvability(task, str(ref), None, RunOptions(
        solution=ref, out=task / "judge" / "reference_run", package="tally",
        python=sys.executable), None)
    assert not sv.passed
    assert sv.diagnosis[0].startswith("5 environment failure(s) [missing-requirement")
    restamp(task)
    res = judge_run(task, task / "candidate-runs" / "bad", move_state=False)
    assert res.verdict == "BROKEN" and res.route == "env"
    assert res.run_dir.name == "bad"


def test_gate_routes_spec_and_filter(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    spec = task / "spec.md"
    spec.write_text(spec.read_text().replace("- This specification does not require a graphical",
                                             "- We do not build a graphical"))
    res = judge_run(task, task / "candidate-runs" / "bad")
    assert res.verdict == "BROKEN" and res.route == "spec"
    assert (task / "judge" / "spec_patch_request.md").is_file()
    st = (task / "PIPELINE_STATE.md").read_text()
    assert "state:       S2_SPEC_DRAFT" in st and "spec_iter:   1" in st


def test_gate_d_gap_routes_to_filter(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    m = task / "spec_test_map.md"
    m.write_text(m.read_text().replace("| Error Semantics |", "| Parsing |"))
    restamp(task)
    res = judge_run(task, task / "candidate-runs" / "bad")
    assert res.gates.verdicts["D"] == "GAP"
    # the judge's own filter_correction_request.md is the guard's evidence (issue 16 item 12)
    clean(res.findings, "TSK-J009")
    assert res.verdict == "BROKEN" and res.route == "filter"
    req = (task / "judge" / "filter_correction_request.md").read_text()
    assert "Error Semantics" in req
    assert "state:       S3_ORACLE_MERGE" in (task / "PIPELINE_STATE.md").read_text()


@pytest.mark.sandbox
def test_small_generated_oracle(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    m = task / "spec_test_map.md"
    m.write_text(m.read_text().replace("filter/oracle_source: mixed",
                                       "filter/oracle_source: generated_only"))
    restamp(task)
    res = judge_run(task, task / "candidate-runs" / "bad", move_state=False)
    fires(res.findings, "TSK-J008")
    assert res.verdict == "BROKEN"


def test_oracle_changed_while_judging(task: Path, provenance, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import gavelkit.task.judging.metrics as metrics

    orig = metrics.compute

    def tampering(t, *a, **k):  # type: ignore[no-untyped-def]
        with open(task / "oracle" / "test_atomic.py", "a") as fh:
            fh.write("\n# edited\n")
        return orig(t, *a, **k)
    monkeypatch.setattr(metrics, "compute", tampering)
    res = judge_run(task, task / "candidate-runs" / "bad", move_state=False)
    fires(res.findings, "TSK-J007")


def test_state_not_moved_outside_s5(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    set_state(task, "S2_SPEC_DONE")
    res = judge_run(task, task / "candidate-runs" / "bad")
    fires(res.findings, "TSK-J012")
    assert res.written == [] and "state:       S2_SPEC_DONE" in (task / "PIPELINE_STATE.md").read_text()


@pytest.mark.sandbox
def test_the_s5_entry_guard_checks_the_run_judged(task: Path, provenance, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A run outside candidate-runs/ is the run judged: the S5_JUDGE entry guard checks its
    score (it searched candidate-runs/ by glob, and refused this run)."""
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(task / "candidate-runs" / "bad", elsewhere)
    shutil.rmtree(task / "candidate-runs")
    res = judge_run(task, elsewhere)
    clean(res.findings, "TSK-J009")
    assert res.verdict == "QUALIFIED" and "state:       QUALIFIED" in (
        task / "PIPELINE_STATE.md").read_text()


@pytest.mark.sandbox
def test_a_refused_state_move_is_reported(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    """BROKEN routed to S4_SETUP, whose guard needs a 100 % reference: the move is refused,
    said (TSK-J009), and task.json's status is not written without it."""
    provenance["passed"] = False
    p = task / "judge" / "reference_run" / "score_result.json"
    ref = json.loads(p.read_text())
    case = next(c for c in ref["cases"] if c["counted_as"] == "passed")
    case["outcome"] = case["counted_as"] = "failed"
    ref["summary"]["passed"] -= 1
    ref["summary"]["failed"] += 1
    ref["pass_rate_excluding_skips"] = ref["summary"]["passed"] / ref["summary"]["total"]
    p.write_text(json.dumps(ref))
    res = judge_run(task, task / "candidate-runs" / "bad")
    w = fires(res.findings, "TSK-J009")
    assert "S4_SETUP" in w.message and res.route == "env"
    assert "state:       S4_DONE" not in (task / "PIPELINE_STATE.md").read_text()
    assert "state:       S5_JUDGE" in (task / "PIPELINE_STATE.md").read_text()
    assert json.loads((task / "task.json").read_text("utf-8-sig")).get("status") != "BROKEN"


def test_missing_score_moves_back_to_eval_run(task: Path) -> None:
    set_state(task, "S5_JUDGE")
    rc, _, err = cli("task", "judge", str(task), "--run", str(task / "candidate-runs" / "none"))
    assert rc == 2 and "score_result.json" in err
    assert "state:       S4_EVAL_RUN" in (task / "PIPELINE_STATE.md").read_text()


@pytest.mark.sandbox
def test_cli_judge_json(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    rc, doc = cli_json("task", "judge", str(task), "--run", str(task / "candidate-runs" / "bad"),
                       "--dry-run")
    assert rc == 0 and doc["judge"]["verdict"] == "QUALIFIED" and doc["written"] == []
    assert not (task / "judge" / "diagnosis_report.md").exists()
    rc, out, _ = cli("task", "judge", str(task), "--run", str(task / "candidate-runs" / "bad"),
                     "--no-state")
    assert rc == 0 and "verdict: QUALIFIED" in out
    assert "state:       S4_DONE" in (task / "PIPELINE_STATE.md").read_text()


@pytest.mark.sandbox
def test_pending_prints_the_exit_code_it_exits_with(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    """PENDING is not certified: exit 1, and the JSON says 1 (it said 0 while exiting 1)."""
    (task / "judge" / "spotcheck.md").unlink()
    rc, doc = cli_json("task", "judge", str(task), "--run", str(task / "candidate-runs" / "bad"),
                       "--dry-run")
    assert doc["judge"]["verdict"] == "PENDING" and not doc["counts"]["error"]
    assert rc == doc["exit_code"] == 1


def test_reference_package_is_installed_from_the_index(tmp_path: Path) -> None:
    """--reference-package installs the published library with its dependencies (uv cache
    first, then PyPI); a release the index does not have is named in the finding."""
    from gavelkit.task.scoring.solvability import check_solvability

    root = Path(__file__).resolve().parents[1]
    task = tmp_path / "task-semver"
    shutil.copytree(root / "examples" / "task-semver", task)
    res = check_solvability(task, None, "semver==3.0.2",
                            RunOptions(solution="", out=tmp_path / "ref", role="reference"))
    if any(f.code == "TSK-X005" for f in res.findings):
        pytest.skip("package index unreachable and semver not in the uv cache")
    assert res.rate == 1.0 and res.run.score["gavel"]["install"]["kind"] == "spec"
    bad = check_solvability(task, None, "gavelkit-no-such-package-xyz==0.0.1",
                            RunOptions(solution="", out=tmp_path / "nope", role="reference",
                                       offline=True))
    f = next(f for f in bad.findings if f.code == "TSK-X005")
    assert "'gavelkit-no-such-package-xyz'" in f.message


def test_unusable_inputs_exit_2(task: Path, tmp_path: Path) -> None:
    bad = tmp_path / "badrun"
    bad.mkdir()
    (bad / "score_result.json").write_text("[1, 2]")
    rc, _, err = cli("task", "judge", str(task), "--run", str(bad))
    assert rc == 2 and "not a JSON object" in err and "Traceback" not in err
    (bad / "score_result.json").write_bytes(b"\xff\xfe\x00")
    rc, _, err = cli("task", "judge", str(task), "--run", str(bad))
    assert rc == 2 and "Traceback" not in err
    rc, _, err = cli("task", "solvability", str(task), "--reference", str(tmp_path / "nope"))
    assert rc == 2 and "reference folder not found" in err
    rc, _, err = cli("task", "judge", str(tmp_path / "no-task"), "--run", str(bad))
    assert rc == 2
    rc, _, err = cli("task", "run", str(task), "--solution", str(task), "--out",
                     str(tmp_path / "o"), "--repeat", "0")
    assert rc == 2 and "--repeat" in err


def test_stale_run_is_refused(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    set_state(task, "S5_JUDGE")
    t = task / "oracle" / "test_atomic.py"
    t.write_text(t.read_text() + "\n\ndef test_added_later():\n    assert True\n")
    res = judge_run(task, task / "candidate-runs" / "bad")
    fires(res.findings, "TSK-J011")
    assert res.verdict == "BROKEN" and res.route == "rerun"
    assert "state:       S4_EVAL_RUN" in (task / "PIPELINE_STATE.md").read_text()


def _claude_line(path: str, uid: str, cwd: str) -> str:
    return json.dumps({"parentUuid": None, "isSidechain": False, "cwd": cwd, "sessionId": "s1",
                       "type": "assistant", "uuid": uid, "timestamp": "2026-01-01T00:00:00Z",
                       "message": {"role": "assistant", "type": "message", "content": [
                           {"type": "tool_use", "id": f"t{uid}", "name": "Read",
                            "input": {"file_path": path}}]}})


@pytest.mark.sandbox
def test_order_with_the_real_anticheat_pack(task: Path, tmp_path: Path) -> None:
    """Issue 7's preflight and scan, wired: clean trajectory -> QUALIFIED; oracle read -> cheat."""
    work = tmp_path / "agent-work"
    work.mkdir()
    clean_log = tmp_path / "clean.jsonl"
    clean_log.write_text(_claude_line(str(task / "spec.md"), "1", str(work)) + "\n")
    res = judge_run(task, task / "candidate-runs" / "bad", trajectories=[str(clean_log)],
                    move_state=False)
    assert res.preflight.ran and res.preflight.passed, res.preflight.reason
    assert res.scan.verdict == "CLEAN", res.scan.findings
    assert res.verdict == "QUALIFIED", res.reasons
    report = (task / "judge" / "diagnosis_report.md").read_text()
    pre = report.index("## Preflight output")
    assert "import tally; print(tally.__file__)" in report[pre:pre + 600]
    assert pre < report.index("## Anti-Cheat") < report.index("## Candidate Score By Layer")
    cheat_log = tmp_path / "cheat.jsonl"
    cheat_log.write_text(_claude_line(str(task / "kept_nodeids.txt"), "2", str(work)) + "\n")
    res2 = judge_run(task, task / "candidate-runs" / "bad", trajectories=[str(cheat_log)],
                     move_state=False)
    assert res2.scan.verdict == "CHEAT_DETECTED" and res2.verdict == "CHEAT_DETECTED"
    fires(res2.findings, "TSK-J003")


# ---------------------------------------------------------------- judge_result.json schema

def _validator():  # type: ignore[no-untyped-def]
    import jsonschema

    from gavelkit.task.judging.schema import judge_result_schema

    schema = judge_result_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.sandbox
def test_written_judge_results_follow_the_versioned_schema(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    v = _validator()
    rc, printed = cli_json("task", "schema", "judge-result")
    assert rc == 0 and printed["$id"].endswith(f"/judge-result/{SCHEMA_VERSION}.json")
    rc, text, _ = cli("task", "schema", "judge-result", "--format", "text")
    assert rc == 0 and text.startswith("$schema:")
    for run, setup in (("bad", None), ("perfect", "no table")):
        if setup:
            (task / "judge" / "spotcheck.md").unlink()
        rc, doc = cli_json("task", "judge", str(task), "--run", str(task / "candidate-runs" / run))
        written = json.loads((task / "judge" / "judge_result.json").read_text())
        for rec in (written, doc["judge"]):  # on disk, and the CLI's (with the transition)
            errors = sorted(v.iter_errors(rec), key=str)
            assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors]
        assert written["schema_version"] == SCHEMA_VERSION and doc["judge"]["verdict"] in (
            "QUALIFIED", "PENDING")
        set_state(task, "S5_JUDGE")


def test_a_record_outside_the_schema_fails_validation(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    v = _validator()
    judge_run(task, task / "candidate-runs" / "bad", move_state=False)
    rec = json.loads((task / "judge" / "judge_result.json").read_text())
    assert not list(v.iter_errors(rec))
    for bad in ({**rec, "schema_version": SCHEMA_VERSION + 1},
                {**rec, "checks": [*rec["checks"], {"name": "gate-Z", "status": "PASS",
                                                    "reason": "", "route": None}]},
                {**rec, "fairness_gates": {**rec["fairness_gates"], "D_coverage": "FULL"}},
                {k: x for k, x in rec.items() if k != "judged_on"}):
        assert list(v.iter_errors(bad))


@pytest.mark.sandbox
def test_qualified_guard_reads_only_its_schema_version(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    from gavelkit.task.judging.verdict import qualified_record_ok

    judge_run(task, task / "candidate-runs" / "bad", move_state=False)
    rec = json.loads((task / "judge" / "judge_result.json").read_text())
    on = rec["judged_on"]
    assert qualified_record_ok(rec, on["oracle_digest"], on["score_sha256"])[0]
    ok, why = qualified_record_ok({**rec, "schema_version": None}, on["oracle_digest"],
                                  on["score_sha256"])
    assert not ok and "schema_version" in why



# ---------------------------------------------------------------- one --config, every command

@pytest.mark.sandbox
def test_judge_and_gates_read_the_same_config(task: Path, provenance, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`task gates --config` and `task judge --config` reach the same Gate E (issue 23: the
    judge took no --config, so the two could disagree)."""
    strict = tmp_path / "strict.toml"
    strict.write_text("[gate_e]\nmin_atomic = 900\n")
    rc, gates = cli_json("task", "gates", str(task), "--config", str(strict))
    assert rc == 1 and gates["gates"]["E"]["verdict"] == "FAIL"
    run = str(task / "candidate-runs" / "bad")
    rc, doc = cli_json("task", "judge", str(task), "--run", run, "--dry-run", "--config",
                       str(strict))
    assert rc == 1 and doc["judge"]["fairness_gates"]["gate-E"] == "FAIL"
    rc, doc = cli_json("task", "judge", str(task), "--run", run, "--dry-run")  # near miss
    assert rc == 0 and doc["judge"]["fairness_gates"]["gate-E"] == "PASS"


def test_judge_tables_are_overridden_and_type_checked(task: Path, provenance, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.judgedata import for_task

    cfg = tmp_path / "c.toml"
    cfg.write_text("[tables.gate_b]\nfail_share = 0.01\n")
    assert for_task("gate_b", load_task(task, cfg))["fail_share"] == 0.01
    assert for_task("gate_b", load_task(task))["fail_share"] == 0.5
    for bad, why in (('[tables.gate_b]\nfail_share = "half"\n', "tables.gate_b.fail_share"),
                     ("[tables.gateb]\nfail_share = 0.1\n", "no such judge table")):
        cfg.write_text(bad)
        before = sorted(p.name for p in (task / "judge").iterdir())
        rc, _out, err = cli("task", "judge", str(task), "--run",
                            str(task / "candidate-runs" / "bad"), "--config", str(cfg))
        assert rc == 2 and why in err and str(cfg) in err, err
        assert sorted(p.name for p in (task / "judge").iterdir()) == before  # nothing done
    (task / "gavel-judge.toml").write_text('[gate_b]\nfail_share = "half"\n')  # the older file
    with pytest.raises(InputError, match="fail_share"):
        load_task(task)


# ---------------------------------------------------------------- thresholds are data

def _fail_one_reference_case(task: Path) -> None:
    p = task / "judge" / "reference_run" / "score_result.json"
    ref = json.loads(p.read_text())
    case = next(c for c in ref["cases"] if c["counted_as"] == "passed")
    case["outcome"] = case["counted_as"] = "failed"
    ref["summary"]["passed"] -= 1
    ref["summary"]["failed"] += 1
    ref["pass_rate_excluding_skips"] = ref["summary"]["passed"] / ref["summary"]["total"]
    p.write_text(json.dumps(ref))


def test_the_solvability_threshold_is_data(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    _fail_one_reference_case(task)
    run = task / "candidate-runs" / "bad"
    res = judge_run(task, run, move_state=False)
    solv = next(c for c in res.checks if c.name == "solvability")
    assert solv.status == "FAIL" and "below 95%" in solv.reason
    with (task / "gavel-task.toml").open("a") as fh:  # the task's own file, plus this
        fh.write("\n[judge]\nsolvable = 0.8\n")
    res = judge_run(task, run, move_state=False)
    solv = next(c for c in res.checks if c.name == "solvability")
    assert solv.status == "PASS" and solv.reason.endswith(">= 80 %"), solv.reason


@pytest.mark.sandbox
def test_the_prefilled_spotcheck_size_is_data(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    (task / "judge" / "spotcheck.md").unlink()
    with (task / "gavel-task.toml").open("a") as fh:
        fh.write("\n[judge]\nspotcheck_rows = 2\n")
    res = judge_run(task, task / "candidate-runs" / "bad", move_state=False)
    assert res.verdict == "PENDING" and len(res.fairness.spotcheck.prefilled) == 2
    table = (task / "judge" / "spotcheck.md").read_text()
    assert table.count("| `") == 2


def test_a_recorded_run_of_another_scorer_says_what_it_could_not_derive(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    """alembic's recorded run holds counts and its one failure: read, and UNVERIFIABLE with
    the reason (it was refused as 'no summary object')."""
    run = task / "candidate-runs" / "bad"
    (run / "score_result.json").write_text(json.dumps({
        "candidate": {"passed": 6, "failed": 1, "total": 7, "pass_rate": 6 / 7},
        "failures": [{"nodeid": "oracle/test_atomic.py::test_x", "message": "boom"}]}))
    res = judge_run(task, run, move_state=False)
    f = fires(res.findings, "TSK-J016")
    assert "recorded for its 1 failure(s) only" in f.message
    assert "read as counts: counts from its 'candidate' record" in f.message
    assert res.verdict == "BROKEN" and not res.scores_usable



@pytest.mark.sandbox
def test_a_score_without_gavels_run_record_is_never_fresh_enough_to_certify(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    """Another scorer's file (here: gavel's own without its `gavel` record) cannot show it
    was scored on today's oracle, nor what the sandbox caught: PENDING, never QUALIFIED."""
    run = task / "candidate-runs" / "bad"
    ok = judge_run(task, run, move_state=False)
    assert ok.verdict == "QUALIFIED"  # near miss: the same run with its record
    data = json.loads((run / "score_result.json").read_text())
    data.pop("gavel")
    (run / "score_result.json").write_text(json.dumps(data))
    res = judge_run(task, run, move_state=False)
    fresh = next(c for c in res.checks if c.name == "freshness")
    assert fresh.status == "UNVERIFIABLE" and "read as harness" in fresh.reason
    assert res.verdict == "PENDING" and res.route is None


def test_the_task_report_shows_the_judges_gate_names_in_their_rows(task: Path, provenance, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    judge_run(task, task / "candidate-runs" / "bad")
    out = tmp_path / "report.html"
    rc, _, err = cli("task", "report", str(task), "-o", str(out))
    assert rc == 0, err
    html = out.read_text()
    d_row = next(r for r in html.split("<tr>") if r.startswith("<td>D</td>"))
    assert "gate-D: FULL" in d_row
    assert "not a static gate</td><td></td><td></td><td>gate-D" not in html


def _without_code(task: Path, name: str = "bad") -> Path:
    """A run as a maintainer holds it: another scorer's file (no gavel run record) and no
    target package known, so no preflight can be made."""
    run = task / "candidate-runs" / name
    data = json.loads((run / "score_result.json").read_text())
    data.pop("gavel")
    (run / "score_result.json").write_text(json.dumps(data))
    meta = json.loads((task / "task.json").read_text("utf-8-sig"))
    meta.pop("package")
    (task / "task.json").write_text(json.dumps(meta))
    for name in ("run_meta.json",):
        (run / name).unlink(missing_ok=True)
    return run


def test_a_recorded_run_without_its_code_shows_its_evidence_unverified(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    """Issue 26 item 8: layers, gap, clusters and Gate B's evidence of a recorded run are
    shown, marked unverified, with the checks that could not be made; never used."""
    before = json.loads((task / "task.json").read_text("utf-8-sig")).get("candidate_score")
    res = judge_run(task, _without_code(task), move_state=False)
    assert res.verdict != "QUALIFIED" and not res.scores_usable
    ev = res.unverified
    assert ev is not None and ev.metrics.clusters and ev.score.total
    assert {"preflight", "freshness"} <= {name for name, _ in ev.not_checked}
    assert next(c for c in res.checks if c.name == "gate-B").status == "UNVERIFIABLE"
    report = (task / "judge" / "diagnosis_report.md").read_text()
    assert "**Unverified: recorded evidence, not a usable score.**" in report
    assert "- preflight: " in report and "| layer | passed | total | rate |" in report
    rec = json.loads((task / "judge" / "judge_result.json").read_text())
    _validator().validate(rec)
    assert rec["scores_usable"] is False and rec["candidate_score"] is None
    assert rec["unverified_evidence"]["metrics"]["clusters"]
    assert rec["unverified_evidence"]["gate_b"]["failures"] > 0
    after = json.loads((task / "task.json").read_text("utf-8-sig")).get("candidate_score")
    assert after == before  # task.json records only a usable score
    _rc, text, _ = cli("task", "judge", str(task), "--run", str(task / "candidate-runs" / "bad"),
                      "--no-state", "--dry-run")
    assert "scores: UNVERIFIED evidence only" in text and "not checked: preflight" in text
    assert "preflight: NOT RUN" in text


@pytest.mark.sandbox
def test_a_failed_preflight_shows_no_evidence(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    """Near miss: the same withheld score after a preflight that ran and failed is not
    shown at all (a score the candidate may have borrowed is not evidence)."""
    provenance["passed"] = False
    res = judge_run(task, task / "candidate-runs" / "bad", move_state=False)
    assert not res.scores_usable and res.unverified is None
    report = (task / "judge" / "diagnosis_report.md").read_text()
    assert "Unverified: recorded evidence" not in report and "Not shown: " in report
    assert json.loads((task / "judge" / "judge_result.json").read_text())[
        "unverified_evidence"] is None


@pytest.mark.sandbox
def test_a_dry_run_checks_the_entry_state_too(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    """A dry run says what the real run would: refused outside S5_JUDGE (it said QUALIFIED
    for a task already QUALIFIED); at S5_JUDGE (near miss) it judges and writes nothing."""
    run = str(task / "candidate-runs" / "bad")
    set_state(task, "S5_JUDGE")
    rc, doc = cli_json("task", "judge", str(task), "--run", run, "--dry-run")
    assert doc["judge"]["verdict"] == "QUALIFIED" and not (task / "judge" / "judge_result.json").exists()
    set_state(task, "QUALIFIED")
    rc, text, _ = cli("task", "judge", str(task), "--run", run, "--dry-run")
    assert rc == 1 and "not S5_JUDGE" in text and "verdict: QUALIFIED" not in text
    fires(judge_run(task, Path(run), write=False).findings, "TSK-J012")


def test_a_saturated_recorded_run_without_its_code_is_refused_not_shown(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    """TSK-J006 (a pass rate at the threshold without a passing preflight) refuses the
    score outright: not even as unverified evidence (the bad run, near miss, is shown)."""
    res = judge_run(task, _without_code(task, "perfect"), move_state=False)
    fires(res.findings, "TSK-J006")
    assert res.unverified is None and not res.scores_usable


@pytest.mark.sandbox
def test_a_gavel_score_that_records_no_sandbox_never_certifies(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    """Fail closed: a gavel run record without its isolation block (an older gavel, or a
    hand-trimmed file) was judged QUALIFIED; now anti-cheat is UNVERIFIABLE. Near miss: the
    same file with `isolation.active: true` certifies."""
    run = task / "candidate-runs" / "bad"
    p = run / "score_result.json"
    data = json.loads(p.read_text())
    assert data["gavel"]["isolation"]["active"] is True
    assert judge_run(task, run, move_state=False).verdict == "QUALIFIED"
    data["gavel"].pop("isolation")
    p.write_text(json.dumps(data))
    res = judge_run(task, run, move_state=False)
    ac = next(c for c in res.checks if c.name == "anti-cheat")
    assert ac.status == "UNVERIFIABLE" and "records no sandbox" in ac.reason
    assert res.verdict == "PENDING"
