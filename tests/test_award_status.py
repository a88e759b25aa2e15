"""`gavel award status`: budget rules, improvement metrics, every next-action branch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gavelkit.award.blocks.lint import lint_paths
from gavelkit.award.runs.budget import run_status
from gavelkit.core.errors import UsageError

from gk_testing import clean, cli, fires
from run_util import add_card, add_gate, make_run, panel_ready, pass_phases, spend_run_budget


def test_fresh_run_advances_to_phase_0(tmp_path: Path) -> None:
    st = run_status(make_run(tmp_path))
    assert (st.action.kind, st.action.phase) == ("advance", 0)
    for code in ("AWD-T001", "AWD-T002", "AWD-T003", "AWD-T004", "AWD-T005", "AWD-T006",
                 "AWD-T007", "AWD-T008", "AWD-T009", "AWD-T010", "AWD-T011", "AWD-T012",
                 "AWD-T014", "AWD-L001", "AWD-L002"):
        clean(st.findings, code)


def test_advance_after_pass(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 2)
    st = run_status(run)
    assert (st.action.kind, st.action.phase) == ("advance", 3)


def test_fix_lists_open_ids_and_owners(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 3)
    add_gate(run, 4, 0, [("G4-1", "high"), ("G4-2", "blocker"), ("G4-3", "medium")])
    st = run_status(run)
    assert (st.action.kind, st.action.phase) == ("fix", 4)
    assert "fix loop 1" in st.action.reason
    assert any("G4-2 (blocker) -> mathodology-coder" in i for i in st.action.items)
    assert not any("G4-3" in i for i in st.action.items)


def test_improvement_is_strict_decrease_matched_by_id(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 3)
    add_gate(run, 4, 0, [("G4-1", "high"), ("G4-2", "blocker")])
    add_gate(run, 4, 1, [("G4-1", "high")])
    st = run_status(run)
    loops = st.phases[4].loops
    assert loops[1].improved is True
    assert st.phases[4].stalled == {"G4-1": [0, 1]}
    assert fires(st.findings, "AWD-T012").severity == "warning"
    assert (st.action.kind, st.action.phase) == ("fix", 4)


def test_same_count_is_no_improvement_and_stops(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 3)
    add_gate(run, 4, 0, [("G4-1", "high"), ("G4-2", "blocker")])
    add_gate(run, 4, 1, [("G4-1", "high"), ("G4-3", "high")])
    st = run_status(run)
    assert st.phases[4].loops[1].improved is False
    assert st.action.kind == "STOP" and "did not improve" in st.action.reason
    rc, _, _ = cli("award", "status", str(run))
    assert rc == 1


def test_disappearing_and_reappearing_id_is_not_stalled(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 3)
    add_gate(run, 4, 0, [("G4-1", "high"), ("G4-2", "high")])
    add_gate(run, 4, 1, [("G4-2", "high")])
    st = run_status(run)
    assert st.phases[4].stalled == {"G4-2": [0, 1]}
    add_gate(run, 4, 2, [("G4-1", "high")], verdict="fail")
    st2 = run_status(run)
    assert "G4-1" not in st2.phases[4].stalled  # it skipped loop 1


def test_phase_budget_exhausted(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 3)
    add_gate(run, 4, 0, [("G4-1", "high"), ("G4-2", "high"), ("G4-3", "high")])
    add_gate(run, 4, 1, [("G4-1", "high"), ("G4-2", "high")])
    add_gate(run, 4, 2, [("G4-1", "high")])
    st = run_status(run)
    assert st.action.kind == "STOP" and "all 3 evaluations" in st.action.reason


def test_loop_3_is_an_overrun(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 3)
    for k, n in enumerate((4, 3, 2, 1)):
        add_gate(run, 4, k, [(f"G4-{i}", "high") for i in range(1, n + 1)])
    st = run_status(run)
    fires(st.findings, "AWD-T008")
    assert st.action.kind == "STOP" and "overrun" in st.action.reason


def test_whole_run_cap(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    spend_run_budget(run)  # phases 1-4 use 8 fix loops; phase 5 then fails once
    add_gate(run, 5, 0, [("G5-1", "high")])
    st = run_status(run)
    assert st.fix_loops_used == 8
    assert st.action.kind == "STOP" and "all 8 fix loops" in st.action.reason
    clean(st.findings, "AWD-T009")
    add_gate(run, 5, 1)
    st2 = run_status(run)
    fires(st2.findings, "AWD-T009")


def test_continuing_after_non_improvement_is_an_error(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 3)
    add_gate(run, 4, 0, [("G4-1", "high")])
    add_gate(run, 4, 1, [("G4-1", "high")])
    add_gate(run, 4, 2)
    st = run_status(run)
    fires(st.findings, "AWD-T010")
    assert st.action.kind == "STOP"


def test_missing_loop_warns(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    add_gate(run, 0, 0, [("G0-1", "high")])
    add_gate(run, 0, 2)
    fires(run_status(run).findings, "AWD-T011")


def test_file_named_against_content(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    p = add_gate(run, 0, 0)
    p.rename(run / "gates" / "phase-0-loop-1.yaml")
    f = fires(run_status(run).findings, "AWD-T001")
    assert "loop 1" in f.message
    c = add_card(run, "A", 1)
    c.rename(run / "scorecards" / "phase7-seat-B-round-1.yaml")
    fires(run_status(run).findings, "AWD-T002")
    rc, _, _ = cli("award", "status", str(run))
    assert rc == 1


def test_two_blocks_in_one_gate_file(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    p = add_gate(run, 0, 0)
    p.write_text(p.read_text() + "---\n" + p.read_text())
    fires(run_status(run).findings, "AWD-T003")


def test_half_written_run(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    (run / "scorecards").rmdir()
    (run / "gates" / "phase-0-loop-0.yaml").write_text("")
    (run / "gates" / "phase-1-loop-0.yaml").write_text("gate: [\n")
    (run / "gates" / "notes.txt").write_text("draft")
    (run / "gates" / "phase-2-loop-0.yaml").write_bytes(b"\xff\xfe")
    (run / "stray.txt").write_text("x")
    st = run_status(run)
    codes = {f.code for f in st.findings}
    assert {"GK-IO002", "GK-Y001", "GK-IO004", "AWD-T004", "AWD-L001", "AWD-L002"} <= codes
    fires(st.findings, "AWD-L001")
    fires(st.findings, "AWD-L002")
    fires(st.findings, "AWD-T004")
    rc, out, err = cli("award", "status", str(run), "--format", "json")
    assert rc in (0, 1) and "Traceback" not in out + err
    doc = json.loads(out)
    assert doc["status"]["next_action"]["action"] in ("advance", "fix", "repair", "STOP")


def test_unreadable_run_dir_exit_2(tmp_path: Path) -> None:
    rc, _, err = cli("award", "status", str(tmp_path / "nope"))
    assert rc == 2 and "does not exist" in err
    with pytest.raises(UsageError):
        run_status(tmp_path / "nope")



def test_panel_dispatch_then_pass(tmp_path: Path) -> None:
    run = panel_ready(tmp_path)
    st = run_status(run)
    assert st.action.kind == "advance" and "dispatch" in st.action.reason
    for s in "ABC":
        add_card(run, s, 1)
    st = run_status(run)
    assert (st.action.kind, st.action.phase) == ("advance", 8)
    assert st.rounds[0].min_total == pytest.approx(88)


def test_target_from_flag_overrides_variant(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, target="Outstanding / O-Prize")
    for s in "ABC":
        add_card(run, s, 1, modeling=70)
    st = run_status(run)
    assert st.target.name == "outstanding" and st.action.kind == "rescore"
    st2 = run_status(run, target="finalist")
    assert st2.action.kind == "advance"


def test_no_target_stops(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, target="<flagship label>")
    for s in "ABC":
        add_card(run, s, 1)
    st = run_status(run)
    assert st.action.kind == "STOP" and "target tier is unknown" in st.action.reason


def test_rescore_then_improvement_rule(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, target="Outstanding")
    for s in "ABC":
        add_card(run, s, 1, modeling=70)
    st = run_status(run)
    assert st.action.kind == "rescore" and "round 2" in st.action.reason
    assert any(i.startswith("seat A:") for i in st.action.items)
    for s in "ABC":
        add_card(run, s, 2, modeling=70)  # same minimum: no improvement
    st2 = run_status(run)
    assert st2.rounds[1].improved is False
    assert st2.action.kind == "STOP" and "did not raise" in st2.action.reason
    for s in "ABC":
        add_card(run, s, 2, modeling=72)
    st3 = run_status(run)
    assert st3.rounds[1].improved is True and st3.action.kind == "rescore"


def test_panel_budget_exhausted(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, target="Outstanding")
    for r, sc in ((1, 70), (2, 72), (3, 74)):
        for s in "ABC":
            add_card(run, s, r, modeling=sc)
    st = run_status(run)
    assert st.action.kind == "STOP" and "all 3 panel rounds" in st.action.reason
    for s in "ABC":
        add_card(run, s, 4, modeling=76)
    st2 = run_status(run)
    fires(st2.findings, "AWD-T006")


def test_adjudicate_then_resolved(tmp_path: Path) -> None:
    run = panel_ready(tmp_path)
    add_card(run, "A", 1, results=90)
    add_card(run, "B", 1, results=90)
    add_card(run, "C", 1, results=60)
    st = run_status(run)
    assert st.action.kind == "adjudicate" and "seat C" in st.action.reason
    assert any("evidence question for seat C" in i for i in st.action.items)
    add_card(run, "C", 2, results=84)
    st2 = run_status(run)
    assert st2.rounds[1].kind == "adjudication" and st2.rounds[1].redispatched == "C"
    assert st2.action.kind == "advance"
    clean(st2.findings, "AWD-T007")


def test_conflict_persisting_after_adjudication_stops(tmp_path: Path) -> None:
    run = panel_ready(tmp_path)
    add_card(run, "A", 1, results=90)
    add_card(run, "B", 1, results=90)
    add_card(run, "C", 1, results=60)
    add_card(run, "C", 2, results=66)
    st = run_status(run)
    assert st.action.kind == "STOP" and "persisted" in st.action.reason


def test_memo_adjudication_clears_the_conflict(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, target="Meritorious")
    add_card(run, "A", 1, results=90)
    add_card(run, "B", 1, results=90)
    add_card(run, "C", 1, results=60)
    add_card(run, "C", 2, results=66)
    (run / "phase-logs" / "phase7.md").write_text(
        "```yaml\ndecision_memo:\n  phase: 7\n  budget_spent: {loops: 2, cap: 3}\n"
        "  unresolved: []\n  adjudications:\n"
        "    - {criterion: results, outcome: 'lead sides with seat C: hold-out fails'}\n"
        "  options:\n    - {option: a, consequence: b, recommended: true}\n"
        "    - {option: c, consequence: d, recommended: false}\n```\n")
    st = run_status(run)
    assert st.action.kind == "advance", st.action


def test_redispatch_of_non_outlier_warns(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, target="Outstanding")
    for s in "ABC":
        add_card(run, s, 1, modeling=70)
    add_card(run, "B", 2, modeling=72)
    fires(run_status(run).findings, "AWD-T007")


def test_incomplete_round(tmp_path: Path) -> None:
    run = panel_ready(tmp_path)
    add_card(run, "A", 1)
    add_card(run, "B", 1)
    st = run_status(run)
    fires(st.findings, "AWD-T005")
    assert st.action.kind == "STOP"


def test_panel_before_phase7_gate_warns(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 3)
    for s in "ABC":
        add_card(run, s, 1)
    fires(run_status(run).findings, "AWD-T014")


def test_write_memo_lints_clean(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 3)
    add_gate(run, 4, 0, [("G4-1", "high"), ("G4-2", "blocker")])
    add_gate(run, 4, 1, [("G4-1", "high"), ("G4-3", "blocker")])
    rc, out, _ = cli("award", "status", str(run), "--write-memo")
    assert rc == 1 and "decision memo draft written to" in out
    memo = run / "phase-logs" / "phase4-decision-memo.md"
    res = lint_paths([memo], "decision_memo")[0]
    assert res.all_findings() == [], res.all_findings()
    body = res.blocks[0].block.body
    assert {u["id"] for u in body["unresolved"]} == {"G4-1", "G4-3"}
    assert [o["recommended"] for o in body["options"]].count(True) == 1
    cli("award", "status", str(run), "--write-memo")
    assert (run / "phase-logs" / "phase4-decision-memo-2.md").exists()


def test_write_memo_for_panel_stop_lints_clean(tmp_path: Path) -> None:
    run = panel_ready(tmp_path, target="Outstanding")
    for r, sc in ((1, 70), (2, 72), (3, 74)):
        for s in "ABC":
            add_card(run, s, r, modeling=sc)
    cli("award", "status", str(run), "--write-memo")
    res = lint_paths([run / "phase-logs" / "phase7-decision-memo.md"], "decision_memo")[0]
    assert res.all_findings() == []


def test_example_run_status(root: Path) -> None:
    run = next((root / "examples/award-run/work").iterdir())
    st = run_status(run)
    assert st.target.name == "finalist"
    assert st.fix_loops_used == 4 and len(st.rounds) == 2
    assert st.phases[4].stalled == {"G4-1": [0, 1]}
    assert st.rounds[1].kind == "adjudication" and st.rounds[1].improved
    assert (st.action.kind, st.action.phase) == ("advance", 8)
    out = run_status(run, target="outstanding")
    assert out.action.kind == "rescore"
    assert [f for f in st.findings if f.severity == "error"] == []
    rc, text, _ = cli("award", "status", str(run), "--format", "table")
    assert rc == 0 and len(text.splitlines()) <= 16 and "NEXT advance p8" in text


def test_a_gate_linked_from_outside_the_run_is_not_the_runs(tmp_path: Path) -> None:
    """A passing gate file that is a link to a file outside the run does not pass the
    phase: it is refused by name (fail closed), and a gate inside the run still counts."""
    run = make_run(tmp_path / "runs")
    pass_phases(run, 1)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    real = add_gate(run, 2, 0)
    (outside / real.name).write_bytes(real.read_bytes())
    real.unlink()
    real.symlink_to(outside / real.name)
    st = run_status(run)
    f = next(f for f in st.findings if "outside" in f.message)
    assert f.severity == "error" and f.path.endswith("phase-2-loop-0.yaml")
    assert (st.action.kind, st.action.phase) != ("advance", 3)
    real.unlink()
    add_gate(run, 2, 0)  # the same gate, inside the run
    st = run_status(run)
    assert not [f for f in st.findings if "outside" in f.message]
    assert (st.action.kind, st.action.phase) == ("advance", 3)
