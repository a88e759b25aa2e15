"""Phase 7 as a contest team runs it (issue 27): the panel files decide the phase, no
round-4 dead end, card errors are repairs, memos may knowingly accept, and every
decision is followed within the caps."""

from __future__ import annotations

from pathlib import Path

from gavelkit.award.blocks.lint import lint_paths
from gavelkit.award.runs.budget import run_status
from gavelkit.award.runs.memo_draft import draft

from award_util import card, dump, lint, memo
from gk_testing import clean, cli, fires
from run_util import add_card, add_gate, make_run, panel_ready, pass_phases


def _conflict(run: Path, round_: int = 1) -> None:
    add_card(run, "A", round_, results=90)
    add_card(run, "B", round_, results=88)
    add_card(run, "C", round_, results=64)  # 26 below seat A on a shared criterion


def test_round1_conflict_is_seen_without_a_phase7_gate(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 6)  # phases 0-6 gated; the seed defines no Phase-7 gate
    _conflict(run)
    st = run_status(run)
    assert (st.action.kind, st.action.phase) == ("adjudicate", 7), st.action
    assert "seat C" in st.action.reason
    clean(st.findings, "AWD-T014")


def test_phase6_passed_dispatches_the_panel(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 6)
    st = run_status(run)
    assert (st.action.kind, st.action.phase) == ("advance", 7)
    assert "dispatch the three blind seats" in st.action.reason
    assert f"gavel award briefs {run}" in st.action.reason  # the run, not a literal RUN_DIR


def test_panel_before_the_paper_gate_warns(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 5)
    for s in "ABC":
        add_card(run, s, 1)
    fires(run_status(run).findings, "AWD-T014")


def _exhausted(tmp_path: Path) -> Path:
    """Three full rounds at outstanding, each improving, still failing."""
    run = panel_ready(tmp_path, target="Outstanding")
    for r, sc in ((1, 70), (2, 72), (3, 74)):
        for s in "ABC":
            add_card(run, s, r, modeling=sc)
    return run


def _decide(run: Path, choice: str, round_: int = 3, **extra: str) -> Path:
    dec = {"choice": choice, "by": "team lead", "rationale": "deadline", **extra}
    p = run / "phase-logs" / f"phase7-decision-{choice}.md"
    p.write_text("```yaml\n" + dump(memo(decision=dec, stopped_at={"phase": 7,
                                                                    "round": round_}))
                 + "```\n")
    return p


def test_draft_after_round3_offers_only_what_can_be_done(tmp_path: Path) -> None:
    run = _exhausted(tmp_path)
    st = run_status(run)
    assert st.action.kind == "STOP" and st.action.final_round
    body = draft(st)["decision_memo"]
    choices = [o["option"].split(":")[0] for o in body["options"]]
    assert choices == ["accept_risk", "change_scope", "stop"]
    rec = [o for o in body["options"] if o["recommended"]]
    assert len(rec) == 1 and not rec[0]["option"].startswith("accept_risk")
    assert "meritorious" in rec[0]["option"] or "finalist" in rec[0]["option"]
    assert any("accept_risk | change_scope | stop" in i for i in st.action.items)
    rc, _, _ = cli("award", "status", str(run), "--write-memo")
    assert rc == 1
    res = lint_paths([run / "phase-logs" / "phase7-decision-memo.md"], "decision_memo")[0]
    assert res.all_findings() == [], res.all_findings()
    clean(res.all_findings(), "AWD-M011")


def test_rework_after_round3_is_no_round4(tmp_path: Path) -> None:
    run = _exhausted(tmp_path)
    p = _decide(run, "rework")
    st = run_status(run)
    assert st.action.kind == "STOP", st.action
    assert "round 4" not in st.action.reason
    assert "all 3 panel rounds are used" in st.action.reason
    assert "accept_risk, change_scope" in st.action.reason
    fires(lint_paths([p], "decision_memo")[0].all_findings(), "AWD-M013")


def test_rework_before_the_last_round_is_fine(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, target="Outstanding")
    for r in (1, 2):
        for s in "ABC":
            add_card(run, s, r, modeling=70)  # round 2 did not improve: STOP
    p = _decide(run, "rework", round_=2)
    clean(lint_paths([p], "decision_memo")[0].all_findings(), "AWD-M013")
    st = run_status(run)
    assert st.action.kind == "rescore" and "round 3" in st.action.reason


def test_accept_risk_after_round3_advances(tmp_path: Path) -> None:
    run = _exhausted(tmp_path)
    _decide(run, "accept_risk")
    st = run_status(run)
    assert (st.action.kind, st.action.phase) == ("advance", 8), st.action


def test_change_scope_with_a_target_is_followed(tmp_path: Path) -> None:
    run = _exhausted(tmp_path)
    _decide(run, "change_scope", target="finalist")
    st = run_status(run)
    assert st.target.name == "finalist" and "change_scope" in st.target_source
    assert (st.action.kind, st.action.phase) == ("advance", 8), st.action


def test_change_scope_without_a_passing_target_stops_again(tmp_path: Path) -> None:
    run = _exhausted(tmp_path)
    _decide(run, "change_scope")
    st = run_status(run)
    assert st.action.kind == "STOP" and "no re-score is left" in st.action.reason


def test_decision_target_must_name_a_tier(tmp_path: Path) -> None:
    bad = memo(decision={"choice": "change_scope", "by": "lead", "rationale": "r",
                         "target": "gold"}, stopped_at={"phase": 7, "round": 3})
    f = fires(lint(tmp_path, "decision_memo", bad), "AWD-M012")
    assert "gold" in f.message


def test_stop_decision_ends_the_run(tmp_path: Path) -> None:
    run = _exhausted(tmp_path)
    _decide(run, "stop")
    st = run_status(run)
    assert st.action.kind == "STOP" and "stopped by the human decision" in st.action.reason
    assert not any("--write-memo" in i for i in st.action.items)


def test_arithmetic_slip_in_a_card_is_a_repair(tmp_path: Path) -> None:
    run = panel_ready(tmp_path)
    for s in "AB":
        add_card(run, s, 1)
    c = card("C", scores={"correctness": 82.5, "reproducibility": 82.5, "summary": 82.5,
                          "modeling": 82.5, "results": 82.5}, total=82.3,
             contest="MCM 2026 Problem C")
    (run / "scorecards" / "phase7-seat-C-round-1.yaml").write_text(dump(c))
    st = run_status(run)
    assert st.action.kind == "repair", st.action
    assert "seat C" in st.action.reason and "not a re-score round" in st.action.reason
    assert not any("--write-memo" in i for i in st.action.items)


def test_memo_accepting_with_a_high_open_warns_unless_named(tmp_path: Path) -> None:
    accept = {"option": "submit at the current level", "consequence": "keeps the schedule",
              "recommended": True}
    other = {"option": "stop", "consequence": "nothing handed in", "recommended": False}
    f = fires(lint(tmp_path, "decision_memo", memo(options=[accept, other])), "AWD-M011")
    assert f.severity == "warning" and "G7-1" in f.message
    named = dict(accept, consequence="submits with G7-1 (thin sensitivity) open")
    clean(lint(tmp_path, "decision_memo", memo(options=[named, other])), "AWD-M011")


def test_gate_loop_gap_counts_and_is_an_error(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 1)
    add_gate(run, 2, 0, [("G2-1", "high"), ("G2-2", "high")])
    add_gate(run, 2, 2)  # loop 1's gate deleted
    st = run_status(run)
    assert fires(st.findings, "AWD-T011").severity == "error"
    assert st.fix_loops_used == 2 and st.action.kind == "repair"


def test_deleted_last_gate_of_a_handed_off_loop_still_counts(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 1)
    from award_util import handoff

    for lp in (0, 1):
        (run / "phase-logs" / f"phase2-loop{lp}.md").write_text(
            "```yaml\n" + dump(handoff(phase=2, loop=lp, agent="mathodology-modeler",
                                       artifacts=[], innovation_ledger=[
                                           {"id": "INN-1", "idea": "x", "load_bearing": True}]))
            + "```\n")
    add_gate(run, 2, 0)
    add_gate(run, 3, 0)
    st = run_status(run)
    f = fires(st.findings, "AWD-T011")
    assert "loop 1" in f.message and st.fix_loops_used == 1
    assert not [x for x in st.findings if x.code == "AWD-T020" and "phase 2" in x.message]


def test_gate_without_a_handoff_warns(tmp_path: Path) -> None:
    from award_util import handoff

    run = make_run(tmp_path)
    add_gate(run, 0, 0)
    fires(run_status(run).findings, "AWD-T020")
    (run / "phase-logs" / "phase0.md").write_text("```yaml\n" + dump(handoff(
        phase=0, loop=0, agent="mathodology-problem-analyst", artifacts=[],
        scope_ledger=[{"id": "MECH-1", "text": "demand", "status": "covered"}])) + "```\n")
    clean(run_status(run).findings, "AWD-T020")
