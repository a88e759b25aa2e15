"""Issue 16: the judge exactly as the task-judge seed says, on variants of examples/task-semver.

Each test reproduces one item of the issue on a copy of the example (scored once per
session with this interpreter, see semver_variant.py) and checks the fixed behaviour.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from gavelkit.core.errors import InputError
from gavelkit.task.anticheat import api as anticheat_api
from gavelkit.task.judging import verdict as V
from gavelkit.task.judging.judge import judge_run
from judge_helpers import stand_in_preflight
from semver_variant import (
    fill_gate_b,
    fill_spotcheck,
    restamp,
    scored_example,
    set_state,
    state_of,
    task_json,
)

from gk_testing import clean, cli, cli_json, fires

BROKEN_RUN = "candidate-runs/broken-001"
WORDING_RUN = "candidate-runs/wording"


def _traj(task: Path, run: str) -> list[str]:
    return [str(task / run / "trajectory.jsonl")]


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return scored_example(tmp_path_factory.mktemp("semver"))


@pytest.fixture
def task(scored: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "task-semver"
    shutil.copytree(scored, dest)
    return dest


@pytest.fixture
def provenance(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """The anti-cheat pack's preflight and scan, stood in: pass unless told otherwise."""
    state = {"preflight": True, "scan": "CLEAN"}

    def pre(package, candidate, python=None, remove_paths=()):  # type: ignore[no-untyped-def]
        ok = state["preflight"]
        return stand_in_preflight(package, candidate, ok, "inside" if ok else "outside")

    def scan(paths, task_dir, package, forbid=(), **kw):  # type: ignore[no-untyped-def]
        from gavelkit.core.findings import Finding

        if not paths:
            return anticheat_api.Scan("UNVERIFIABLE", [], "no trajectory")
        for p in paths:
            if not Path(p).is_file():
                return anticheat_api.Scan("UNVERIFIABLE", [], f"{p}: not a readable file")
        if state["scan"] == "CHEAT_DETECTED":
            return anticheat_api.Scan("CHEAT_DETECTED", [Finding(
                "CHT-R001", "error", "read oracle/test_atomic.py", paths[0], 1, 1)], "1 finding")
        return anticheat_api.Scan("CLEAN", [], "0 findings")
    monkeypatch.setattr(anticheat_api, "preflight", pre)
    monkeypatch.setattr(anticheat_api, "scan", scan)
    return state


def judged(task: Path, run: str = BROKEN_RUN, **kw):  # type: ignore[no-untyped-def]
    kw.setdefault("trajectories", _traj(task, run))
    return judge_run(task, task / run, date="2026-12-01", **kw)


def qualify(task: Path, run: str = BROKEN_RUN):  # type: ignore[no-untyped-def]
    """Judge once (Gate A/C pending, table written), fill the table, judge again."""
    first = judged(task, run)
    assert first.verdict == "PENDING", first.reasons
    fill_spotcheck(task)
    return judged(task, run)


# ---------------------------------------------------------------- the one verdict function

def test_verdict_function_every_check_counts() -> None:
    ok = [V.Check(n, V.PASS) for n in V.REQUIRED]
    assert V.decide(ok).verdict == "QUALIFIED"
    for name in V.REQUIRED:
        rest = [c for c in ok if c.name != name]
        assert V.decide(rest).verdict != "QUALIFIED", f"missing {name} must block"
        for status in (V.FAIL, V.UNVERIFIABLE, V.PENDING):
            d = V.decide([*rest, V.Check(name, status, "x", "filter")])
            assert d.verdict != "QUALIFIED" and d.blocking[0].name == name
    cheat = V.decide([*ok, V.Check("anti-cheat", V.FAIL, "read the oracle", "env")])
    assert cheat.verdict == "CHEAT_DETECTED" and cheat.next_state == "S4_SETUP"
    pend = V.decide([c for c in ok if c.name != "gate-A/C"] + [V.Check("gate-A/C", V.PENDING)])
    assert pend.verdict == "PENDING" and pend.next_state is None
    first = V.decide([*ok, V.Check("gate-F", V.FAIL, "", "spec"), V.Check("gate-B", V.FAIL, "",
                                                                         "filter")])
    assert first.route == "filter"  # Gate B comes before Gate F in the seed's order
    assert not V.scores_usable([*ok, V.Check("preflight", V.FAIL)])[0]
    assert not V.scores_usable([*ok, V.Check("solvability", V.FAIL)])[0]


def test_record_guard_re_decides_the_checks() -> None:
    rec = {"schema_version": V.SCHEMA_VERSION, "verdict": "QUALIFIED",
           "checks": [c.to_dict() for c in (V.Check(n, V.PASS) for n in V.REQUIRED)],
           "judged_on": {"oracle_digest": "abc", "score_sha256": "s1", "score_file": "x"}}
    assert V.qualified_record_ok(rec, "abc", "s1")[0]
    assert not V.qualified_record_ok(rec, "abd", "s1")[0]
    assert not V.qualified_record_ok(rec, "abc", "s2")[0]
    assert not V.qualified_record_ok(rec, "abc", None)[0]
    forged = json.loads(json.dumps(rec))
    forged["checks"][4]["status"] = "FAIL"
    assert not V.qualified_record_ok(forged, "abc", "s1")[0]
    assert not V.qualified_record_ok({"verdict": "QUALIFIED"}, "abc", "s1")[0]


# ---------------------------------------------------------------- 1. entry state

@pytest.mark.parametrize("state", ["S2_SPEC_DRAFT", "S4_EVAL_RUN", "QUALIFIED"])
def test_judge_refuses_outside_s5(task: Path, provenance, state: str) -> None:  # type: ignore[no-untyped-def]
    set_state(task, state)
    before = (task / "task.json").read_bytes(), (task / "PIPELINE_STATE.md").read_bytes()
    rc, out, err = cli("task", "judge", str(task), "--run", str(task / BROKEN_RUN), "-q")
    assert rc == 1 and "S5_JUDGE" in out + err
    assert ((task / "task.json").read_bytes(), (task / "PIPELINE_STATE.md").read_bytes()) == before
    assert not (task / "judge" / "diagnosis_report.md").exists()
    res = judged(task)
    fires(res.findings, "TSK-J012")
    assert res.written == []


def test_a_refused_judge_still_removes_a_killed_judges_temp_files(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    """A judge killed after it moved the state (QUALIFIED) but before its report was
    renamed into place leaves a temp file; every later run is refused, and must still
    remove it (a live writer's temp file stays)."""
    set_state(task, "QUALIFIED")
    (task / "judge").mkdir(exist_ok=True)
    dead = task / "judge" / f".diagnosis_report.md.{2 ** 22 + 77}.abc123.tmp"
    dead.write_text("half")
    live = task / "judge" / f".diagnosis_report.md.{os.getpid()}.def456.tmp"
    live.write_text("being written")
    rc, out, err = cli("task", "judge", str(task), "--run", str(task / BROKEN_RUN), "-q")
    assert rc == 1 and "S5_JUDGE" in out + err
    assert not dead.exists() and live.exists()


# ---------------------------------------------------------------- 2. Gate A/C

@pytest.mark.sandbox
def test_gate_ac_pending_until_a_verified_table(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    res = judged(task)
    assert res.verdict == "PENDING" and "Gate A/C pending" in " ".join(res.reasons)
    fires(res.findings, "TSK-J013")
    table = (task / "judge" / "spotcheck.md").read_text()
    assert "| nodeid | assertion summary | spec_section | verdict |" in table
    assert "## " in table  # the exact heading line is quoted, not the map's name for it
    assert state_of(task) == "S5_JUDGE"
    assert task_json(task)["status"] == "SELECTED"  # nothing certified, nothing recorded
    fill_spotcheck(task)
    ok = judged(task)
    assert ok.verdict == "QUALIFIED", ok.reasons
    clean(ok.findings, "TSK-J012")
    clean(ok.findings, "TSK-J016")
    clean(ok.findings, "TSK-J013")
    clean(ok.findings, "TSK-J014")
    assert state_of(task) == "QUALIFIED" and task_json(task)["status"] == "QUALIFIED"


@pytest.mark.sandbox
def test_gate_ac_negative_verdict_routes_to_filter(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    judged(task)
    fill_spotcheck(task, "not derivable")
    res = judged(task)
    fires(res.findings, "TSK-J014")
    assert res.verdict == "BROKEN" and res.route == "filter"
    assert (task / "judge" / "filter_correction_request.md").is_file()


# ---------------------------------------------------------------- 3. Gate B

@pytest.mark.sandbox
def test_gate_b_message_wording_is_a_verifier_failure(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    res = judged(task, WORDING_RUN)  # a failing gate routes back even while A/C is pending
    # 27 exception-message regexes the spec does not promise (Non-Goals: "does not define the
    # text of help or error messages") are verifier failures; the 20 deprecation-warning
    # regexes quote wording the spec does promise, so they stay model failures
    assert res.gate_b.verdict == "FAIL" and res.gate_b.verifier == 27, res.gate_b
    assert res.gate_b.failures == 47
    fires(res.findings, "TSK-J015")
    assert res.verdict == "BROKEN" and res.route == "filter"
    req = (task / "judge" / "filter_correction_request.md").read_text()
    assert "Regex pattern did not match" in req or "unpromised" in req
    assert "test_immutable_major" in req
    assert not res.weaknesses and "weaknesses" not in task_json(task)
    assert state_of(task) == "S3_ORACLE_MERGE"  # the judge's own filter route moves the state


@pytest.mark.sandbox
def test_gate_b_passes_on_model_failures(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    res = qualify(task)
    assert res.gate_b.verdict == "PASS" and res.gate_b.verifier == 0
    clean(res.findings, "TSK-J015")


# ---------------------------------------------------------------- 4. manual moves

@pytest.mark.sandbox
def test_manual_qualified_needs_the_judges_result(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    set_state(task, "S5_JUDGE")
    rc, doc = cli_json("task", "state", str(task), "--to", "QUALIFIED")
    assert rc == 1 and not doc["written"]
    # a BROKEN judge result does not open the door either
    res = judged(task, WORDING_RUN, move_state=False)
    assert res.verdict == "BROKEN"
    rc, doc = cli_json("task", "state", str(task), "--to", "QUALIFIED")
    assert rc == 1 and not doc["written"] and state_of(task) == "S5_JUDGE"
    # a QUALIFIED result opens it; a changed score file closes it again
    assert judged(task, move_state=False).verdict == "PENDING"
    fill_spotcheck(task)
    res = judged(task, move_state=False)
    assert res.verdict == "QUALIFIED", res.reasons
    score = task / BROKEN_RUN / "score_result.json"
    saved = score.read_bytes()
    score.write_text(json.dumps({"summary": {"passed": 1, "total": 1}}))
    rc, _doc = cli_json("task", "state", str(task), "--to", "QUALIFIED")
    assert rc == 1 and state_of(task) == "S5_JUDGE"
    score.write_bytes(saved)
    rc, doc = cli_json("task", "state", str(task), "--to", "QUALIFIED")
    assert rc == 0 and doc["written"] and state_of(task) == "QUALIFIED"


@pytest.mark.sandbox
def test_reopened_task_needs_a_new_judge_result(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    assert qualify(task).verdict == "QUALIFIED"
    t = task / "kept_nodeids.txt"
    ids = t.read_text().splitlines()
    t.write_text("\n".join(ids[:-1]) + "\n")
    rc, _ = cli_json("task", "check-oracle", str(task))
    assert state_of(task) == "REOPENED_S3"
    sup = sorted((task / BROKEN_RUN).glob("score_result_superseded_*.json"))
    assert sup
    shutil.copy(sup[0], task / BROKEN_RUN / "score_result.json")
    rc, doc = cli_json("task", "state", str(task), "--to", "QUALIFIED")
    assert rc == 1 and not doc["written"] and state_of(task) == "REOPENED_S3"


# ---------------------------------------------------------------- 5. scores that must not be used

@pytest.mark.sandbox
@pytest.mark.parametrize("how", ["preflight", "cheat", "reference"])
def test_no_scores_shown_when_they_must_not_be_used(task: Path, provenance, how: str) -> None:  # type: ignore[no-untyped-def]
    if how == "preflight":
        provenance["preflight"] = False
    elif how == "cheat":
        provenance["scan"] = "CHEAT_DETECTED"
    else:
        shutil.copy(task / BROKEN_RUN / "score_result.json",
                    task / "judge" / "reference_run" / "score_result.json")
    res = judged(task)
    assert res.verdict in ("BROKEN", "CHEAT_DETECTED")
    report = (task / "judge" / "diagnosis_report.md").read_text()
    layer_part = report[report.index("## Candidate Score By Layer"):report.index("## Protocol")]
    assert "Not shown" in layer_part and "| atomic |" not in layer_part
    assert "| C1 |" not in report and "rate_gap" not in report
    tj = task_json(task)
    assert not tj.get("labels") and "weaknesses" not in tj and "integration_gap" not in tj


# ---------------------------------------------------------------- 6. coverage_gap caveat

def _make_gap(task: Path) -> None:
    m = task / "spec_test_map.md"
    text = m.read_text().replace("; Cross-View Invariants |", " |")
    m.write_text(text.replace("| Cross-View Invariants |", "| Comparison |"))


@pytest.mark.sandbox
def test_coverage_gap_recorded_in_task_json_is_a_labelled_caveat(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    _make_gap(task)
    restamp(task, BROKEN_RUN)
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.gates import run_gates

    if run_gates(load_task(task), "D").verdicts["D"] != "GAP":
        pytest.skip("the map edit did not produce a Gate D GAP on this example")
    set_state(task, "S5_JUDGE")
    res = judged(task)
    assert res.verdict == "BROKEN" and res.route == "filter"
    assert "coverage-gap" in task_json(task)["labels"]
    assert state_of(task) == "S3_ORACLE_MERGE"
    set_state(task, "S5_JUDGE")  # test-filter tried, the run was repeated
    tj = task_json(task)
    tj["coverage_gap"] = {"sections": ["Cross-View Invariants"],
                          "reason": "test-filter attempted generation (filter_iter 1); no further "
                                    "spec-derivable tests without circular assertions"}
    (task / "task.json").write_text(json.dumps(tj, indent=2))
    judged(task)
    fill_spotcheck(task)
    ok = judged(task)
    assert ok.verdict == "QUALIFIED", ok.reasons
    report = (task / "judge" / "diagnosis_report.md").read_text()
    assert "coverage_gap" in report and "Cross-View Invariants" in report
    assert "coverage-gap" in task_json(task)["labels"]


# ---------------------------------------------------------------- 7, 8, 15.7: records

def test_status_moves_with_the_verdict(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    provenance["scan"] = "CHEAT_DETECTED"
    res = judged(task)
    assert res.verdict == "CHEAT_DETECTED"
    tj = task_json(task)
    assert tj["status"] == "CHEAT_DETECTED" == tj["judge"]["verdict"]
    assert state_of(task) == "S4_SETUP"
    assert not list(task.rglob("*.lock"))


@pytest.mark.sandbox
def test_labels_are_recomputed_and_score_replaced(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    a = qualify(task, "candidate-runs/perfect")
    assert a.verdict == "QUALIFIED"
    assert "saturated-candidate-score" in task_json(task)["labels"]
    tj = task_json(task)
    tj["candidate_score"]["model"] = "old-model"
    (task / "task.json").write_text(json.dumps(tj, indent=2))
    set_state(task, "S5_JUDGE")  # a new run to judge (walked back by hand for the test)
    b = judged(task)
    assert b.verdict == "PENDING"  # its failures need the judge's Gate B table (issue 26)
    fill_gate_b(task)
    b = judged(task)
    assert b.verdict == "QUALIFIED"
    tj = task_json(task)
    assert "saturated-candidate-score" not in tj["labels"] and "discriminating" in tj["labels"]
    assert "model" not in tj["candidate_score"] and tj["candidate_score"]["passed"] == 215
    hist = tj["candidate_score_history"]
    assert hist[-1]["passed"] == 295 and hist[-1]["model"] == "old-model"


def test_no_lock_file_left_even_after_a_crash(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    (task / "task.json.lock").write_text("")  # what a killed writer leaves
    (task / "PIPELINE_STATE.md.lock").write_text("")
    judged(task)
    assert not list(task.rglob("*.lock"))


# ---------------------------------------------------------------- 10, 11: cascade and weaknesses

@pytest.mark.sandbox
def test_six_planted_bugs_are_not_twenty_root_causes(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    res = qualify(task)
    cd = res.metrics.to_dict()["cascade"]
    assert cd["failures"] == 80
    assert 6 <= cd["root_causes"] <= 9, [c.signature for c in res.metrics.clusters]
    sigs = " ".join(c.signature for c in res.metrics.clusters)
    for call in ("compare", "bump_prerelease", "bump_build", "finalize_version", "min_ver",
                 "cmd_bump"):
        assert call in sigs, (call, sigs)


@pytest.mark.sandbox
def test_weaknesses_carry_their_own_sections_and_layers(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    res = qualify(task)
    by = {(w.dimension, w.layer): w for w in res.weaknesses}
    api = [w for (d, _), w in by.items() if d == "api-surface"]
    assert {w.layer for w in api} >= {"system_e2e", "integration"}
    assert sum(w.affected_tests for w in api) == 45
    for w in res.weaknesses:
        own = {s for c in res.metrics.clusters if c.klass == "candidate" and c.dimension
               == w.dimension for s in c.sections}
        assert set(w.spec_sections) <= own
    diag = " ".join(res.solvability.diagnosis_text)
    assert "candidate" not in diag


# ---------------------------------------------------------------- 12. filter loop cap

@pytest.mark.sandbox
def test_filter_loop_past_its_cap_retires(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    set_state(task, "S5_JUDGE", filter_iter=2)
    res = judged(task, WORDING_RUN)
    assert res.route == "filter"
    assert state_of(task) == "RETIRED", res.transition
    clean(res.findings, "TSK-J009")


# ---------------------------------------------------------------- 13. terminal todos

@pytest.mark.sandbox
def test_qualified_appends_the_candidates_row(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    ledger = task / "CANDIDATES.md"
    ledger.write_text("# Candidates\n\n| repo | status | metric | detail |\n|---|---|---|---|\n"
                      "| other-task | SELECTED | - | - |\n")
    res = qualify(task)
    assert res.verdict == "QUALIFIED"
    text = ledger.read_text()
    assert "task-semver" in text and "QUALIFIED" in text


@pytest.mark.sandbox
def test_qualified_without_ledger_says_whose_todo_it_is(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    res = qualify(task)
    report = (task / "judge" / "diagnosis_report.md").read_text()
    assert "CANDIDATES.md" in report and res.verdict == "QUALIFIED"


# ---------------------------------------------------------------- issue 13 items 3-5: fail closed

@pytest.mark.sandbox
@pytest.mark.parametrize("score", ["{}", '{"summary": {}}', '{"cases": "x", "summary": 3}'])
def test_incomplete_score_is_not_qualified(task: Path, provenance, score: str) -> None:  # type: ignore[no-untyped-def]
    judged(task)
    fill_spotcheck(task)
    (task / BROKEN_RUN / "score_result.json").write_text(score)
    try:
        res = judged(task)
    except InputError as exc:  # unusable at all: exit 2, nothing judged (issue 13)
        assert "score" in str(exc)
    else:  # readable but incomplete: an UNVERIFIABLE input check
        fires(res.findings, "TSK-J016")
        assert res.verdict != "QUALIFIED"
    assert task_json(task)["status"] != "QUALIFIED" and state_of(task) != "QUALIFIED"


@pytest.mark.parametrize("kind", ["empty", "types", "dir"])
def test_unusable_task_json_is_not_qualified(task: Path, provenance, kind: str) -> None:  # type: ignore[no-untyped-def]
    judged(task)
    fill_spotcheck(task)
    tj = task / "task.json"
    if kind == "empty":
        tj.write_text("{}")
    elif kind == "types":
        tj.write_text(json.dumps({"instance_id": 12345, "oracle": [1, 2]}))
    else:
        tj.unlink()
        tj.mkdir()
    rc, _out, err = cli("task", "judge", str(task), "--run", str(task / BROKEN_RUN),
                       "--trajectory", *_traj(task, BROKEN_RUN))
    assert rc in (1, 2) and "QUALIFIED" not in state_of(task)
    assert "Traceback" not in err


@pytest.mark.sandbox
@pytest.mark.parametrize("kind", ["missing", "dir"])
def test_unusable_trajectory_is_not_qualified(task: Path, provenance, tmp_path: Path, kind: str) -> None:  # type: ignore[no-untyped-def]
    judged(task)
    fill_spotcheck(task)
    bad = tmp_path / "nope.jsonl"
    if kind == "dir":
        bad.mkdir()
    rc, _out, err = cli("task", "judge", str(task), "--run", str(task / BROKEN_RUN),
                        "--trajectory", str(bad))
    assert rc == 2 and str(bad) in err and "Traceback" not in err
    assert state_of(task) == "S5_JUDGE" and task_json(task)["status"] != "QUALIFIED"
    res = judged(task, trajectories=[])  # no trajectory at all: anti-cheat UNVERIFIABLE
    fires(res.findings, "TSK-J004")
    assert res.verdict == "PENDING" and state_of(task) == "S5_JUDGE"


# ---------------------------------------------------------------- friction

def test_low_solvability_request_names_the_failing_nodes(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    ref = json.loads((task / "judge" / "reference_run" / "score_result.json").read_text())
    for c in ref["cases"][:30]:
        c.update({"outcome": "failed", "counted_as": "failed",
                  "classification": {"class": "candidate", "rule": "assertion"}})
    ref["summary"]["passed"] -= 30
    ref["summary"]["failed"] = 30
    ref["pass_rate_excluding_skips"] = ref["summary"]["passed"] / ref["summary"]["total"]
    (task / "judge" / "reference_run" / "score_result.json").write_text(json.dumps(ref))
    res = judged(task)
    assert res.route == "filter"
    req = (task / "judge" / "filter_correction_request.md").read_text()
    assert ref["cases"][0]["nodeid"] in req


def test_gate_f_quotes_the_flagged_word_past_160_characters(task: Path) -> None:
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.gates import run_gates

    spec = task / "spec.md"
    long = ("**Long.** The bump helpers keep every part that is not raised exactly as it was "
            "given, including leading text, trailing identifiers and any build metadata, and "
            "callers may rely on that.")
    assert long.index("may") > 160
    spec.write_text(spec.read_text().replace("## Formatting\n", "## Formatting\n\n" + long + "\n", 1))
    f = fires(run_gates(load_task(task), "F").findings, "TSK-F007")
    assert "callers may rely" in f.message


@pytest.mark.sandbox
def test_rescore_walks_back_to_the_judge_after_an_oracle_edit(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    """Friction: after a map edit every step back to S5_JUDGE was walked by hand."""
    assert qualify(task).verdict == "QUALIFIED"
    m = task / "spec_test_map.md"
    m.write_text(m.read_text().replace("| Formatting | covered |", "| Formatting | covered |", 1)
                 + "\n")
    cli_json("task", "check-oracle", str(task))
    assert state_of(task) == "REOPENED_S3"
    # the reference run and the spot-check table were made on the old oracle: void (issue 26)
    assert not (task / "judge" / "reference_run" / "score_result.json").exists()
    assert not (task / "judge" / "spotcheck.md").exists()
    rc, out, err = cli("task", "judge", str(task), "--run", str(task / BROKEN_RUN))
    assert rc == 1 and "--rescore" in out + err
    rc, _, _ = cli("task", "solvability", str(task), "--reference", str(task / "reference"),
                   "--isolation", "none", "--offline")
    rc, doc = cli_json("task", "judge", str(task), "--run", str(task / BROKEN_RUN), "--rescore",
                       "--trajectory", *_traj(task, BROKEN_RUN))
    assert doc["judge"]["verdict"] == "PENDING", doc["judge"]["reasons"]  # a fresh table is due
    fill_spotcheck(task)
    rc, doc = cli_json("task", "judge", str(task), "--run", str(task / BROKEN_RUN),
                       "--trajectory", *_traj(task, BROKEN_RUN))
    assert doc["judge"]["verdict"] == "QUALIFIED", doc["judge"]["reasons"]
    assert state_of(task) == "QUALIFIED"
    hist = (task / "PIPELINE_STATE.md").read_text()
    for edge in ("| REOPENED_S3 | S4_EVAL_RUN |", "| S4_EVAL_RUN | S4_ANALYSIS |",
                 "| S4_DONE | S5_JUDGE |", "| S5_JUDGE | QUALIFIED |"):
        assert edge in hist


@pytest.mark.sandbox
def test_stale_reference_run_does_not_survive_reopened_s3(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    """Issue 26 item 2: after an oracle change the old 100 % reference run certifies nothing."""
    assert qualify(task).verdict == "QUALIFIED"
    m = task / "spec_test_map.md"
    m.write_text(m.read_text() + "\n")
    cli_json("task", "check-oracle", str(task))
    voided = sorted(p.name for p in (task / "judge" / "reference_run").glob("score_result*.json"))
    assert voided and all("_superseded_" in n for n in voided)
    _rc, doc = cli_json("task", "judge", str(task), "--run", str(task / BROKEN_RUN), "--rescore",
                       "--trajectory", *_traj(task, BROKEN_RUN))
    assert doc["judge"]["verdict"] != "QUALIFIED"
    assert any("no reference run" in r for r in doc["judge"]["reasons"]), doc["judge"]["reasons"]


@pytest.mark.sandbox
def test_judge_all_and_the_cli_agree(task: Path, provenance, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """One decision: judge-all's row, the CLI's verdict and the record are the same."""
    from gavelkit.task.judging.fleet import FleetOptions, judge_all

    other = tmp_path / "fleet" / "task-semver"
    shutil.copytree(task, other)
    rows = judge_all(other.parent, FleetOptions(move_state=False, isolation="none",
                                                offline=True))
    assert [r["run"] for r in rows] == ["wording"]  # the newest run by name
    rc, doc = cli_json("task", "judge", str(task), "--run", str(task / WORDING_RUN), "--no-state",
                       "--trajectory", *_traj(task, WORDING_RUN))
    j = doc["judge"]
    assert rc == 1
    assert (rows[0]["verdict"], rows[0]["route"]) == (j["verdict"], j["route"]) == ("BROKEN",
                                                                                    "filter")
    assert rows[0]["blocking"] == [c["name"] for c in j["checks"] if c["status"] not in ("PASS", "N/A")]
    rec = json.loads((other / "judge" / "judge_result.json").read_text())
    assert V.decide(V.checks_from_record(rec)).verdict == rec["verdict"] == "BROKEN"


@pytest.mark.sandbox
def test_an_error_finding_without_a_check_still_blocks(task: Path, provenance, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Fail closed by construction: a new error finding cannot sit beside QUALIFIED."""
    from gavelkit.task.judging import scores

    orig = scores._small_oracle

    def extra(task, score, notes):  # type: ignore[no-untyped-def]
        notes.add("TSK-J011", "error", "an error some later code adds without a check")
        return orig(task, score, notes)
    monkeypatch.setattr(scores, "_small_oracle", extra)
    set_state(task, "S5_JUDGE")
    fill = judged(task, move_state=False)  # writes the table; A/C pending blocks anyway
    assert fill.verdict == "PENDING"
    fill_spotcheck(task)
    res = judged(task)
    assert res.verdict == "BROKEN" and any(c.name == "other-errors" for c in res.checks)


@pytest.mark.sandbox
def test_judge_all_table_and_fleet_page_agree_with_single_judge_runs(
        task: Path, provenance, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Three variants (certifiable, Gate B failure, no map = Gate D UNKNOWN): judge-all's
    rows and table, the fleet page and one `gavel task judge` per task say the same."""
    from gavelkit.task.judging.fleet import FleetOptions, judge_all, render_table
    from gavelkit.task.judging.report import build_fleet, find_tasks

    example = Path(__file__).resolve().parents[1] / "examples" / "task-semver"
    fleet, single = tmp_path / "fleet", tmp_path / "single"
    keep = {"t1-perfect": "perfect", "t2-wording": "wording", "t3-nomap": "perfect"}
    for name, run in keep.items():
        d = fleet / name
        shutil.copytree(task, d)
        for r in (d / "candidate-runs").iterdir():
            if r.name != run:
                shutil.rmtree(r)
        shutil.copy(example / "judge" / "spotcheck.md", d / "judge" / "spotcheck.md")
        tj = task_json(d)
        tj["instance_id"] = name  # Gate E: the folder is named after the task
        (d / "task.json").write_text(json.dumps(tj, indent=2))
    (fleet / "t3-nomap" / "spec_test_map.md").unlink()
    restamp(fleet / "t3-nomap", "candidate-runs/perfect")
    shutil.copytree(fleet, single)
    rows = judge_all(fleet, FleetOptions(move_state=False, isolation="none", offline=True))
    by = {r["task"]: r for r in rows}
    assert not any(r.get("error") for r in rows), rows
    table = render_table(rows)
    page = {r["id"]: r for r in build_fleet(find_tasks(fleet)).data["tasks"]}
    for name, run in keep.items():
        rc, doc = cli_json("task", "judge", str(single / name), "--run",
                           str(single / name / "candidate-runs" / run), "--no-state",
                           "--trajectory", str(single / name / "candidate-runs" / run /
                                               "trajectory.jsonl"))
        j = doc["judge"]
        row = by[name]
        assert rc == (0 if j["verdict"] == "QUALIFIED" else 1)
        assert (row["verdict"], row["route"]) == (j["verdict"], j["route"]), name
        assert row["blocking"] == [c["name"] for c in j["checks"]
                                   if c["status"] not in ("PASS", "N/A")]
        assert f"| {name} | {j['verdict']}" in table
        tid = json.loads((fleet / name / "task.json").read_text())["instance_id"]
        assert page[tid]["verdict"] == j["verdict"], name
    assert by["t1-perfect"]["verdict"] == "QUALIFIED", json.loads(
        (fleet / "t1-perfect" / "judge" / "judge_result.json").read_text())["reasons"]
    assert (by["t2-wording"]["verdict"], by["t2-wording"]["route"]) == ("BROKEN", "filter")
    assert by["t3-nomap"]["verdict"] == "BROKEN" and "gate-D" in by["t3-nomap"]["blocking"]
    assert "1 QUALIFIED" in table and "2 BROKEN" in table


@pytest.mark.sandbox
def test_gate_ac_an_empty_table_is_pending_never_pass(task: Path, provenance) -> None:  # type: ignore[no-untyped-def]
    judged(task)
    table = task / "judge" / "spotcheck.md"
    header = [ln for ln in table.read_text().splitlines() if not ln.startswith("| `")]
    table.write_text("\n".join(header) + "\n")  # the prefilled table with every row removed
    res = judged(task)
    assert res.verdict == "PENDING", res.reasons
    fires(res.findings, "TSK-J013")
    clean(res.findings, "TSK-J014")
    assert "no rows" in " ".join(res.reasons)
    assert state_of(task) == "S5_JUDGE"
    table.unlink()  # the near miss: the table sampled again, its rows filled
    judged(task)
    fill_spotcheck(task)
    assert judged(task).verdict == "QUALIFIED"


def test_unverified_evidence_only_when_nothing_failed() -> None:
    """A withheld score is evidence only when the checks in its way could not be made."""
    ok = [V.Check(n, V.PASS) for n in ("inputs", "preflight", "anti-cheat", "run-integrity",
                                       "freshness", "solvability", "score")]
    lack = [c if c.name != "preflight" else V.Check("preflight", V.UNVERIFIABLE, "no code")
            for c in ok]
    assert V.unverified_evidence(lack) == (("preflight", "no code"),)
    assert V.unverified_evidence([*lack, V.Check("freshness", V.FAIL, "stale")]) is None
    assert V.unverified_evidence([*lack, V.Check("anti-cheat", V.FAIL, "cheat")]) is None
    assert V.unverified_evidence([*lack, V.Check("score", V.UNVERIFIABLE, "unread")]) is None
    assert V.unverified_evidence([*lack, V.Check("solvability", V.PENDING, "?")]) is None


def test_a_counts_only_reference_is_not_called_empty() -> None:
    """A reference file that counts 6/7 but lists no failure: the diagnosis says so (it said
    'scored nothing (0/0)'); a reference that scored nothing (near miss) still says 0/0."""
    from gavelkit.task.judging.blame import ENV_CAUSES, diagnose

    (b,) = diagnose({"summary": {"passed": 6, "failed": 1, "total": 7}})
    assert b.cause == "unrecorded" and "records 6/7 passed" in b.text and "0/0" not in b.text
    assert b.cause in ENV_CAUSES  # re-run the reference: S4_SETUP
    (e,) = diagnose({"summary": {"passed": 0, "total": 0}})
    assert e.cause == "nothing-scored" and "0/0" in e.text
