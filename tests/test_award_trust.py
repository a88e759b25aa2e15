"""Issue 19: an award run a contest team can trust end to end.

Each test reproduces one observed break: the blind panel kept blind (seed §3, §6),
adjudication only after a persisting conflict, a STOP lifted only by a recorded human
decision, no silent gaps, and the misleading or frictional results listed in the issue.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gavelkit.award.blocks.lint import lint_paths
from gavelkit.award.runs.budget import run_status

from award_util import card, dump, gate, lint, memo, variant, write
from gk_testing import clean, cli, cli_json, fires
from run_util import add_card, add_gate, make_run, panel_ready, pass_phases, spend_run_budget

MEMO_OPTIONS = ("  options:\n    - {option: rework the model, consequence: costs a day, "
                "recommended: true}\n    - {option: stop here, consequence: lower award, "
                "recommended: false}\n")


def _memo(run: Path, name: str, body: str) -> Path:
    p = run / "phase-logs" / name
    p.write_text(f"```yaml\ndecision_memo:\n{body}{MEMO_OPTIONS}```\n", encoding="utf-8")
    return p


def _conflict_round(run: Path) -> None:
    add_card(run, "A", 1, results=90)
    add_card(run, "B", 1, results=90)
    add_card(run, "C", 1, results=60)



# ------------------------------------------------------------------ §3 adjudication

def test_memo_adjudication_without_redispatch_does_not_pass(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, "Meritorious")
    _conflict_round(run)
    _memo(run, "phase7.md", "  phase: 7\n  budget_spent: {loops: 0, cap: 2}\n  unresolved: []\n"
          "  adjudications:\n    - {criterion: results, outcome: 'lead sides with C'}\n")
    st = run_status(run)
    # the premature memo is a protocol error: repair it, then re-dispatch seat C
    assert st.action.kind == "repair" and "then: adjudicate" in st.action.reason, st.action
    assert st.rounds[0].panel is not None and not st.rounds[0].panel.passed
    fires(st.findings, "AWD-P011")
    cards = sorted(str(p) for p in (run / "scorecards").glob("*-round-1.yaml"))
    rc, out, _ = cli("award", "aggregate", *cards, "--target", "meritorious", "--memo",
                     str(run / "phase-logs" / "phase7.md"))
    assert rc == 1 and "RESULT: FAIL" in out, out


def test_adjudication_after_persisting_conflict_passes(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, "Meritorious")
    _conflict_round(run)
    add_card(run, "C", 2, results=62)
    assert run_status(run).action.kind == "STOP"
    _memo(run, "phase7.md", "  phase: 7\n  budget_spent: {loops: 1, cap: 2}\n  unresolved: []\n"
          "  adjudications:\n    - {criterion: results, outcome: 'lead sides with C'}\n")
    st = run_status(run)
    assert st.action.kind == "advance" and st.action.phase == 8, st.action
    clean(st.findings, "AWD-P011")
    clean(st.findings, "AWD-P012")


def test_memo_of_another_phase_does_not_adjudicate(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, "Meritorious")
    _conflict_round(run)
    add_card(run, "C", 2, results=62)
    _memo(run, "phase4.md", "  phase: 4\n  budget_spent: {loops: 1, cap: 2}\n  unresolved: []\n"
          "  adjudications:\n    - {criterion: results, outcome: 'lead sides with C'}\n")
    st = run_status(run)
    assert st.action.kind == "STOP", st.action
    fires(st.findings, "AWD-P012")


def test_aggregate_rejects_redispatch_of_non_outlier(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, "Meritorious")
    _conflict_round(run)
    add_card(run, "B", 2, results=88)
    sc = run / "scorecards"
    rc, doc = cli_json("award", "aggregate", str(sc / "phase7-seat-A-round-1.yaml"),
                       str(sc / "phase7-seat-B-round-2.yaml"),
                       str(sc / "phase7-seat-C-round-1.yaml"), "--target", "meritorious",
                       "--adjudication-round")
    assert rc == 1 and doc["panel"]["result"] == "FAIL"
    assert any(f["code"] == "AWD-P013" for f in doc["findings"]), doc["findings"]
    st = run_status(run)
    f = fires(st.findings, "AWD-T007")
    assert f.severity == "error"
    assert st.action.kind != "advance"
    rc, _, _ = cli("award", "status", str(run))
    assert rc == 1


def test_aggregate_adjudication_round_needs_the_previous_card(tmp_path: Path) -> None:
    a = write(tmp_path, "a.yaml", card("A", scores={"results": 90}))
    b = write(tmp_path, "b.yaml", card("B", scores={"results": 90}))
    c = write(tmp_path, "c.yaml", card("C", scores={"results": 85}, round_=2))
    rc, doc = cli_json("award", "aggregate", str(a), str(b), str(c), "--target", "meritorious",
                       "--adjudication-round")
    assert rc == 1 and any(f["code"] == "AWD-P013" for f in doc["findings"])
    prev = write(tmp_path, "c1.yaml", card("C", scores={"results": 60}))
    rc, doc = cli_json("award", "aggregate", str(a), str(b), str(c), "--target", "meritorious",
                       "--adjudication-round", "--previous", str(prev))
    assert rc == 0, doc


def test_evidence_question_carries_no_other_seat_score(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, "Meritorious")
    _conflict_round(run)
    st = run_status(run)
    q = [i for i in st.action.items if "evidence question" in i]
    assert q, st.action.items
    assert "seat A" not in q[0] and "seat B" not in q[0] and "90" not in q[0], q[0]


def test_briefs_round2_writes_only_the_outlier_brief(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, "Meritorious")
    _conflict_round(run)
    rc, doc = cli_json("award", "briefs", str(run), "--round", "2",
                       "--question", "Does Figure 3 show the hold-out error?")
    assert rc == 0, doc
    assert [Path(p).name for p in doc["written"]] == ["seat-C-round-2.md"]
    text = Path(doc["written"][0]).read_text(encoding="utf-8")
    assert "Does Figure 3 show the hold-out error?" in text and "results" in text
    assert "90" not in text.replace("| 90-100 |", "") and "seat A" not in text
    rc, _, _ = cli("award", "briefs", "--check", doc["written"][0])
    assert rc == 0
    rc, _, err = cli("award", "briefs", str(run), "--round", "2", "--seat", "A")
    assert rc == 2 and "outlier" in err


def test_briefs_are_not_written_under_phase_logs(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, "Meritorious")
    rc, doc = cli_json("award", "briefs", str(run))
    assert rc == 0
    assert len(doc["written"]) == 3
    assert all("phase-logs" not in p for p in doc["written"]), doc["written"]


def test_brief_suggests_no_missing_tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from gavelkit.award.runs import briefs

    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    text = briefs.render_brief("A", tmp_path / "r1", "MCM")
    assert "pdftotext" not in text and "pdfinfo" not in text


LEAKS = [
    ("no criterion may fall below 70", "AWD-K001"),
    ("Every criterion must be at least 65.", "AWD-K001"),
    ("A total of 85 is needed to pass.", "AWD-K001"),
    ("Target: 国一", "AWD-K002"),
    ("Our goal is the O-Prize.", "AWD-K002"),
    ("The team hopes for a finalist result.", "AWD-K002"),
    ("我们的目标是一等奖", "AWD-K002"),
    ("Other seats scored summary 78.", "AWD-K005"),
    ("seat A scored 'summary' 95; which artifact evidence supports your score?", "AWD-K005"),
    ("Judge B gave results 64.", "AWD-K005"),
]


@pytest.mark.parametrize(("line", "code"), LEAKS)
def test_leak_checker_catches_plain_leaks(tmp_path: Path, line: str, code: str) -> None:
    from gavelkit.award.runs.briefs import check_brief

    p = write(tmp_path, "brief.md", f"# Judge seat C\n\n{line}\n")
    fires(check_brief(p), code)


def test_generated_briefs_are_clean(tmp_path: Path) -> None:
    from gavelkit.award.runs.briefs import check_brief, render_brief

    run = tmp_path / "work" / "r1"
    for seat in "ABC":
        for rnd in (1, 2, 3):
            p = write(tmp_path, f"b-{seat}{rnd}.md", render_brief(seat, run, "CUMCM 2026", rnd))
            found = check_brief(p)
            for code in ("AWD-K001", "AWD-K002", "AWD-K003", "AWD-K004", "AWD-K005"):
                clean(found, code)
    p = write(tmp_path, "adj.md", render_brief(
        "C", run, "MCM", 2, question="Which page shows the hold-out validation?",
        criterion="results"))
    assert check_brief(p) == []


# ------------------------------------------------------------------ §4 STOP and decisions

def _stalled_phase4(run: Path) -> None:
    pass_phases(run, 3)
    add_gate(run, 4, 0, [("G4-1", "high"), ("G4-2", "blocker")])
    add_gate(run, 4, 1, [("G4-1", "high"), ("G4-3", "blocker")])


def _decide(memo_path: Path, choice: str) -> None:
    text = memo_path.read_text(encoding="utf-8")
    text = text.replace("```yaml\ndecision_memo:\n",
                        "```yaml\ndecision_memo:\n  decision: {choice: " + choice +
                        ", by: 'Ana (team lead)', rationale: 'new approach for G4-1'}\n", 1)
    memo_path.write_text(text, encoding="utf-8")


def test_stop_mentions_write_memo(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    _stalled_phase4(run)
    rc, out, _ = cli("award", "status", str(run))
    assert rc == 1 and "STOP" in out and "--write-memo" in out


def test_recorded_decision_lifts_stop_and_run_resumes(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    _stalled_phase4(run)
    rc, out, _ = cli("award", "status", str(run), "--write-memo")
    assert rc == 1
    memo_path = run / "phase-logs" / "phase4-decision-memo.md"
    # a drafted memo without a decision keeps the STOP
    assert run_status(run).action.kind == "STOP"
    _decide(memo_path, "rework")
    assert lint_paths([memo_path], "decision_memo")[0].all_findings() == []
    st = run_status(run)
    assert (st.action.kind, st.action.phase) == ("fix", 4), st.action
    rc, out, _ = cli("award", "status", str(run))
    assert rc == 0 and "rework" in out and "Ana" in out, out
    add_gate(run, 4, 2, [("G4-1", "high")])
    st = run_status(run)
    clean(st.findings, "AWD-T010")
    fires(st.findings, "AWD-T015")
    assert st.action.kind == "STOP"  # loop 2 is the phase's last evaluation and still fails
    add_gate(run, 4, 3, [])  # a rework past the cap needs a new decision: overrun
    assert run_status(run).action.kind == "STOP"


def test_accept_risk_decision_advances(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    _stalled_phase4(run)
    cli("award", "status", str(run), "--write-memo")
    _decide(run / "phase-logs" / "phase4-decision-memo.md", "accept_risk")
    st = run_status(run)
    assert (st.action.kind, st.action.phase) == ("advance", 5), st.action
    add_gate(run, 5, 0)
    assert (run_status(run).action.kind, run_status(run).action.phase) == ("advance", 6)


def test_decision_visible_in_report(tmp_path: Path) -> None:
    from gavelkit.award.runs.report import build

    run = make_run(tmp_path)
    _stalled_phase4(run)
    cli("award", "status", str(run), "--write-memo")
    _decide(run / "phase-logs" / "phase4-decision-memo.md", "change_scope")
    rep = build(run, pdfqa=False)
    assert rep.data["decisions"] and rep.data["decisions"][0]["choice"] == "change_scope"
    assert "change_scope" in rep.html and "phase4-decision-memo.md" in rep.html


def test_panel_stop_lifted_by_decision(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, target="Outstanding")
    for r, sc in ((1, 70), (2, 70)):
        for s in "ABC":
            add_card(run, s, r, modeling=sc)
    st = run_status(run)
    assert st.action.kind == "STOP"
    cli("award", "status", str(run), "--write-memo")
    p = run / "phase-logs" / "phase7-decision-memo.md"
    _decide(p, "rework")
    assert run_status(run).action.kind == "rescore"
    for s in "ABC":
        add_card(run, s, 3, modeling=80)
    st = run_status(run)
    clean(st.findings, "AWD-T010")


# ------------------------------------------------------------------ silent gaps

def test_skipped_phases_are_reported(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    add_gate(run, 2, 0)
    add_gate(run, 5, 0)
    st = run_status(run)
    f = fires(st.findings, "AWD-T016")
    assert "0, 1, 3, 4" in f.message
    assert st.action.kind != "advance"
    rc, _, _ = cli("award", "status", str(run))
    assert rc == 1


def test_status_lints_phase_log_handoffs(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 2)
    (run / "phase-logs" / "phase2.md").write_text(
        "```yaml\nhandoff:\n  phase: 2\n  agent: mathodology-modeler\n```\n", encoding="utf-8")
    st = run_status(run)
    fires(st.findings, "AWD-H001")
    assert st.action.kind != "advance"


def test_no_advance_while_exiting_1_on_medium_without_plan(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 2)
    p = run / "gates" / "phase-3-loop-0.yaml"
    p.write_text(dump(gate(phase=3, verdict="pass", issues=[
        {"id": "G3-1", "severity": "medium", "summary": "s", "artifact": "a",
         "owner": "mathodology-coder"}])), encoding="utf-8")
    rc, out, _ = cli("award", "status", str(run))
    assert rc == 1 and "NEXT: advance" not in out, out


def test_stale_manifest_blocks_phase_8(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, "Meritorious")
    (run / "outputs" / "figures" / "f.png").write_bytes(b"png")
    cli("award", "manifest", str(run))
    for s in "ABC":
        add_card(run, s, 1)
    assert (run_status(run).action.kind, run_status(run).action.phase) == ("advance", 8)
    (run / "outputs" / "figures" / "f.png").write_bytes(b"changed")
    st = run_status(run)
    fires(st.findings, "AWD-N003")
    assert st.action.kind != "advance"


def test_status_exit_code_does_not_depend_on_stdout(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    _stalled_phase4(run)
    r, w = os.pipe()
    os.close(r)
    try:
        proc = subprocess.run([sys.executable, "-c", "from gavelkit.cli.main import run; run()",
                               "award", "status", str(run)], stdout=w, stderr=subprocess.PIPE,
                              timeout=60)
    finally:
        os.close(w)
    assert proc.returncode == 1, proc.stderr
    assert b"Traceback" not in proc.stderr


# ------------------------------------------------------------------ scorecards and memos

def test_tier_band_of_declared_total_within_tolerance(tmp_path: Path) -> None:
    # true sum 85.0, declared 84.9 (within 0.1): finalist and outstanding both consistent
    for tier in ("finalist", "outstanding"):
        f = lint(tmp_path, "scorecard", card("A", scores={k: 85 for k in
                                                         ("summary", "modeling", "results",
                                                          "writing", "completeness")},
                                             total=84.9, tier=tier))
        clean(f, "AWD-S012")
        clean(f, "AWD-S011")
    f = lint(tmp_path, "scorecard", card("A", scores={"summary": 85, "modeling": 85,
                                                      "results": 85, "writing": 85,
                                                      "completeness": 85},
                                         total=84.9, tier="meritorious"))
    fires(f, "AWD-S012")


def test_draft_never_recommends_accepting_a_high(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 3)
    add_gate(run, 4, 0, [("G4-1", "high"), ("G4-2", "high")])
    add_gate(run, 4, 1, [("G4-1", "high"), ("G4-3", "high")])
    cli("award", "status", str(run), "--write-memo")
    res = lint_paths([run / "phase-logs" / "phase4-decision-memo.md"], "decision_memo")[0]
    assert res.all_findings() == []
    body = res.blocks[0].block.body
    rec = next(o for o in body["options"] if o["recommended"])
    assert "accept" not in rec["option"], rec


def test_phase7_draft_counts_rescores(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, target="Outstanding")
    for r, sc in ((1, 70), (2, 72), (3, 74)):
        for s in "ABC":
            add_card(run, s, r, modeling=sc)
    cli("award", "status", str(run), "--write-memo")
    res = lint_paths([run / "phase-logs" / "phase7-decision-memo.md"], "decision_memo")[0]
    assert res.blocks[0].block.body["budget_spent"] == {"loops": 2, "cap": 2}


def test_lint_memo_rejects_recommending_accept_with_high_open(tmp_path: Path) -> None:
    bad = memo(options=[
        {"option": "accept the residual risk and advance", "consequence": "c",
         "recommended": True},
        {"option": "rework", "consequence": "d", "recommended": False}])
    fires(lint(tmp_path, "decision_memo", bad), "AWD-M011")
    ok = memo(unresolved=[{"id": "G7-1", "severity": "medium", "summary": "s"}], options=[
        {"option": "accept the residual risk and advance", "consequence": "c",
         "recommended": True},
        {"option": "rework", "consequence": "d", "recommended": False}])
    clean(lint(tmp_path, "decision_memo", ok), "AWD-M011")


def test_lint_memo_rejects_empty_adjudication_outcome(tmp_path: Path) -> None:
    fires(lint(tmp_path, "decision_memo", memo(adjudications=[{"criterion": "results", "outcome": ""}])),
          "AWD-M010")
    clean(lint(tmp_path, "decision_memo", memo(adjudications=[{"criterion": "results",
                                                        "outcome": "kept C"}])), "AWD-M010")


def test_lint_memo_checks_the_decision(tmp_path: Path) -> None:
    fires(lint(tmp_path, "decision_memo", memo(decision={"choice": "maybe", "by": "x"})), "AWD-M012")
    fires(lint(tmp_path, "decision_memo", memo(decision={"choice": "rework"})), "AWD-M012")
    clean(lint(tmp_path, "decision_memo", memo(decision={"choice": "rework", "by": "Ana",
                                                "rationale": "new approach"})), "AWD-M012")


# ------------------------------------------------------------------ targets and digits

def test_unfilled_template_target_is_not_read(tmp_path: Path) -> None:
    from gavelkit.award.runs.layout import init_run

    run, _, _ = init_run(tmp_path, "r1")
    pass_phases(run, 0)
    st = run_status(run)
    assert st.target is None
    fires(st.findings, "AWD-T017")


def test_unknown_tier_text(tmp_path: Path) -> None:
    fires(lint(tmp_path, "variant", variant(target_tier="O prize")), "AWD-V008")
    clean(lint(tmp_path, "variant", variant(target_tier="Outstanding / O-Prize")), "AWD-V008")
    run = make_run(tmp_path, target="O prize")
    f = fires(run_status(run).findings, "AWD-T017")
    assert "O prize" in f.message


def test_report_shows_enough_digits_against_threshold(tmp_path: Path) -> None:
    from gavelkit.award.runs.report import build

    run = panel_ready(tmp_path, target="Outstanding")
    add_card(run, "A", 1, summary=85, modeling=85, results=84.8125, writing=85, completeness=85)
    add_card(run, "B", 1)
    add_card(run, "C", 1)
    html = build(run, pdfqa=False).html
    assert "Minimum seat total 84.9625" in html, html[html.find("Minimum seat"):][:200]


# ------------------------------------------------------------------ smaller items

def test_gate_with_only_an_invalid_severity(tmp_path: Path) -> None:
    f = lint(tmp_path, "gate", gate(issues=[{"id": "G4-1", "severity": "critical",
                                             "summary": "s", "artifact": "a",
                                             "required_fix": "f", "owner": "o"}]))
    fires(f, "AWD-G007")
    clean(f, "AWD-G015")


def test_deadline_with_time_but_no_zone(tmp_path: Path) -> None:
    f = fires(lint(tmp_path, "variant", variant(deadline="2026-02-02 20:00")), "AWD-V005")
    assert "no time zone" in f.message and "no time and" not in f.message


def test_aggregate_names_an_invalid_seat_card(tmp_path: Path) -> None:
    a = write(tmp_path, "a.yaml", card("A", scores={"summary": 120}))
    b = write(tmp_path, "b.yaml", card("B"))
    c = write(tmp_path, "c.yaml", card("C"))
    rc, out, _ = cli("award", "aggregate", str(a), str(b), str(c), "--target", "finalist")
    assert rc == 1 and "seat A missing" not in out, out


def test_gate_numeric_id_message(tmp_path: Path) -> None:
    f = fires(lint(tmp_path, "gate", gate(issues=[{"id": 7, "severity": "low", "summary": "s",
                                                   "artifact": "a", "required_fix": "f",
                                                   "owner": "o"}])), "AWD-G009")
    assert "non-empty" not in f.message


def test_gate_id_with_leading_zero(tmp_path: Path) -> None:
    f = fires(lint(tmp_path, "gate", gate(issues=[{"id": "G04-1", "severity": "high",
                                                   "summary": "s", "artifact": "a",
                                                   "required_fix": "f", "owner": "o"}])),
              "AWD-G009")
    assert f.hint and "G4-1" in f.hint


@pytest.mark.parametrize("rationale", ["TBD", "n/a", "todo", "-"])
def test_placeholder_acceptance_rationale(tmp_path: Path, rationale: str) -> None:
    fires(lint(tmp_path, "gate", gate(verdict="pass", issues=[
        {"id": "G4-1", "severity": "medium", "summary": "s", "artifact": "a", "owner": "o",
         "risk_acceptance": rationale}])), "AWD-G013")


# ------------------------------------------------------------------ friction

def test_award_help_exits_0() -> None:
    rc, out, _ = cli("award", "--help")
    assert rc == 0 and "award status" in out


def test_init_with_filled_variant_says_what_is_next(tmp_path: Path) -> None:
    v = write(tmp_path, "v.yaml", variant())
    rc, out, _ = cli("award", "init", "--root", str(tmp_path), "--run-id", "r1", "--variant",
                     str(v))
    assert rc == 0 and "next: fill" not in out, out


def test_lint_run_help_into_closed_pipe(root: Path) -> None:
    script = root / "skills" / "mathodology-award-gates" / "scripts" / "lint_run.py"
    r, w = os.pipe()
    os.close(r)
    try:
        proc = subprocess.run([sys.executable, str(script), "--help"], stdout=w,
                              stderr=subprocess.PIPE, timeout=60)
    finally:
        os.close(w)
    assert b"BrokenPipeError" not in proc.stderr and b"Traceback" not in proc.stderr
    assert proc.returncode == 0


def test_install_hints_name_real_distributions(root: Path) -> None:
    script = (root / "skills" / "mathodology-award-gates" / "scripts" / "lint_run.py").read_text()
    assert "pip install gavelkit " not in script and "pip install gavelkit\n" not in script


# ------------------------------------------------------------------ rule coverage

def test_previous_card_outlier_check_library(tmp_path: Path) -> None:
    from gavelkit.award.panel.aggregate import aggregate

    a = write(tmp_path, "phase7-seat-A-round-1.yaml", card("A", scores={"results": 90}))
    b = write(tmp_path, "phase7-seat-B-round-1.yaml", card("B", scores={"results": 90}))
    write(tmp_path, "phase7-seat-C-round-1.yaml", card("C", scores={"results": 60}))
    c2 = write(tmp_path, "phase7-seat-C-round-2.yaml", card("C", scores={"results": 80},
                                                           round_=2))
    ok = aggregate([a, b, c2], "meritorious", adjudication_round=True)
    clean(ok.findings, "AWD-P013")
    assert ok.passed
    b2 = write(tmp_path, "phase7-seat-B-round-2.yaml", card("B", scores={"results": 70},
                                                           round_=2))
    c1 = tmp_path / "phase7-seat-C-round-1.yaml"
    bad = aggregate([a, b2, c1], "meritorious", adjudication_round=True)
    assert "not the outlier" in fires(bad.findings, "AWD-P013").message
    assert not bad.passed


def test_clean_run_has_no_gap_findings(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, "Meritorious")
    (run / "outputs" / "figures" / "f.png").write_bytes(b"png")
    cli("award", "manifest", str(run))
    st = run_status(run)
    for code in ("AWD-T015", "AWD-T016", "AWD-T017", "AWD-T018", "AWD-T019"):
        clean(st.findings, code)


def test_phase_left_failing(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 3)
    add_gate(run, 4, 0, [("G4-1", "high")])
    add_gate(run, 5, 0)
    st = run_status(run)
    fires(st.findings, "AWD-T018")
    assert st.action.kind == "repair"


def test_accepted_phase_is_not_left_failing(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    _stalled_phase4(run)
    cli("award", "status", str(run), "--write-memo")
    _decide(run / "phase-logs" / "phase4-decision-memo.md", "accept_risk")
    add_gate(run, 5, 0)
    st = run_status(run)
    clean(st.findings, "AWD-T018")
    assert (st.action.kind, st.action.phase) == ("advance", 6)


def test_panel_without_manifest_is_said(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, "Meritorious")
    st = run_status(run)
    fires(st.findings, "AWD-T019")
    assert st.action.kind == "advance"  # a warning: the lead compiles it before dispatch


@pytest.mark.parametrize("line", [
    "other seats. Score the submission in front of you and stop.",
    "Seat C is a skeptical applied-math referee scoring ONLY correctness and reproducibility.",
    "Calibrate to real rarity: Outstanding ≈ top 1–2%, 国一 ≈ top 5–8%. Do not inflate.",
    "| 80 to under 85 | finalist |",
    "You have no contact with the other judges and no other context.",
])
def test_leak_checker_allows_blind_brief_wording(tmp_path: Path, line: str) -> None:
    from gavelkit.award.runs.briefs import check_brief

    p = write(tmp_path, "brief.md", f"# Judge seat C\n\n{line}\n")
    assert check_brief(p) == []


def test_panel_text_never_rounds_across_the_threshold(tmp_path: Path) -> None:
    # summary 84.99996 -> total 84.99999: fails outstanding, and must not read "85 < 85"
    cards = [write(tmp_path, f"{s}.yaml", card(s, scores=sc)) for s, sc in
             (("A", {k: 85 for k in ("modeling", "results", "writing", "completeness")}
               | {"summary": 84.99996}), ("B", {}), ("C", {}))]
    rc, out, _ = cli("award", "aggregate", *map(str, cards), "--target", "outstanding")
    assert rc == 1 and "84.99999" in out and "total 85 " not in out, out


def test_malformed_decision_is_said_and_lifts_nothing(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    _stalled_phase4(run)
    cli("award", "status", str(run), "--write-memo")
    _decide(run / "phase-logs" / "phase4-decision-memo.md", "Rework")
    st = run_status(run)
    assert st.action.kind == "STOP"
    assert "Rework" in fires(st.findings, "AWD-M012").message


def test_a_decision_lifts_the_whole_run_cap_one_loop_at_a_time(tmp_path: Path) -> None:
    """At 8 fix loops the run stops; a recorded rework lets exactly the next loop run
    (AWD-T015 says under which decision), and a loop after that without a new decision is
    an overrun again (AWD-T009), as for the per-phase cap."""
    run = make_run(tmp_path)
    spend_run_budget(run)
    add_gate(run, 5, 0, [("G5-1", "high"), ("G5-2", "high")])
    st = run_status(run)
    assert st.action.kind == "STOP" and "all 8 fix loops" in st.action.reason
    cli("award", "status", str(run), "--write-memo")
    _decide(run / "phase-logs" / "phase5-decision-memo.md", "rework")
    assert (run_status(run).action.kind, run_status(run).action.phase) == ("fix", 5)
    add_gate(run, 5, 1, [("G5-1", "high")])  # the loop the decision allowed
    st = run_status(run)
    clean(st.findings, "AWD-T009")
    assert any(f.code == "AWD-T015" and "fix loop 9" in f.message for f in st.findings)
    assert st.action.kind == "STOP"  # still failing, 9 loops used: a human decides again
    add_gate(run, 5, 2)  # run without a new decision
    f = fires(run_status(run).findings, "AWD-T009")
    assert "fix loop 10" in f.message and f.path.endswith("phase-5-loop-2.yaml")
