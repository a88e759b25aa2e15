"""Handoff rules (seed §1; reference §1.5-1.6 and edge cases 11-18)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gavelkit.award.blocks.handoff import UnknownAgentError
from gavelkit.award.blocks.lint import lint_paths

from award_util import dump, handoff, lint, write
from gk_testing import clean, cli, fires

CODER = "mathodology-coder"


def test_good_handoff_is_clean(tmp_path: Path) -> None:
    fs = lint(tmp_path, "handoff", handoff(), agent=CODER)
    assert fs == []
    for code in ("AWD-H001", "AWD-H002", "AWD-H003", "AWD-H004", "AWD-H005", "AWD-H006",
                 "AWD-H007", "AWD-H008", "AWD-H011", "AWD-H012", "AWD-H013", "AWD-H014",
                 "AWD-H015", "AWD-H016", "AWD-H017", "AWD-H018", "AWD-H019", "AWD-B001",
                 "AWD-B002", "AWD-B003"):
        clean(fs, code)


def test_missing_key(tmp_path: Path) -> None:
    h = handoff()
    del h["handoff"]["critic_focus"]
    f = fires(lint(tmp_path, "handoff", h), "AWD-H001")
    assert "critic_focus" in f.message and f.line == 2


@pytest.mark.parametrize("value", ["4", 4.0, True, None])
def test_phase_must_be_int(tmp_path: Path, value: object) -> None:
    fires(lint(tmp_path, "handoff", handoff(phase=value)), "AWD-H002")


@pytest.mark.parametrize(("value", "code"), [(-1, "AWD-H003"), (9, "AWD-H003")])
def test_phase_range(tmp_path: Path, value: int, code: str) -> None:
    fires(lint(tmp_path, "handoff", handoff(phase=value)), code)
    clean(lint(tmp_path, "handoff", handoff(phase=8)), code)
    clean(lint(tmp_path, "handoff", handoff(phase=0)), code)


def test_loop_negative(tmp_path: Path) -> None:
    fires(lint(tmp_path, "handoff", handoff(loop=-1)), "AWD-H004")
    clean(lint(tmp_path, "handoff", handoff(loop=2)), "AWD-H004")


@pytest.mark.parametrize("status", ["Complete", "done"])
def test_status_enum(tmp_path: Path, status: str) -> None:
    f = fires(lint(tmp_path, "handoff", handoff(status=status)), "AWD-H005")
    assert (f.hint is not None) == (status == "Complete")


def test_lists_must_be_lists(tmp_path: Path) -> None:
    f = fires(lint(tmp_path, "handoff", handoff(decisions=None)), "AWD-H002")
    assert "decisions" in f.message


def test_empty_artifacts_is_allowed(tmp_path: Path) -> None:
    clean(lint(tmp_path, "handoff", handoff(artifacts=[])), "AWD-H006")


@pytest.mark.parametrize(("path", "code"), [
    ("work", "AWD-H007"),
    ("work/", "AWD-H007"),
    ("work/r1", "AWD-H007"),
    ("work/r1/../../etc/passwd", "AWD-H007"),
    ("/work/r1/x", "AWD-H007"),
    ("Work/r1/x", "AWD-H007"),
    ("work\\r1\\x", "AWD-H007"),
    ("outputs/x.pdf", "AWD-H007"),
    ("../work/r1/x", "AWD-H007"),
    ("work/../work/r2/x", "AWD-H008"),
])
def test_artifact_paths_rejected(tmp_path: Path, path: str, code: str) -> None:
    h = handoff(artifacts=[{"path": "work/r1/a.pdf", "role": "a"}, {"path": path, "role": "b"}])
    f = fires(lint(tmp_path, "handoff", h), code)
    assert "artifacts[1]" in f.message


def test_dot_prefixed_path_inside_run_warns(tmp_path: Path) -> None:
    h = handoff(artifacts=[{"path": "./work/r1/x.pdf", "role": "x"}])
    fs = lint(tmp_path, "handoff", h)
    assert fires(fs, "AWD-H019").hint == "write 'work/r1/x.pdf'"
    clean(fs, "AWD-H007")


def test_artifact_malformed_and_role(tmp_path: Path) -> None:
    fs = lint(tmp_path, "handoff", handoff(artifacts=["work/r1/x", {"role": "y"},
                                                      {"path": "work/r1/z"}]))
    assert sum(f.code == "AWD-H006" for f in fs) == 2
    fires(fs, "AWD-H006")
    fires(fs, "AWD-H011")


def test_run_id_from_file_location(tmp_path: Path) -> None:
    h = handoff(artifacts=[{"path": "work/r2/outputs/x.pdf", "role": "x"}])
    fs = lint(tmp_path, "handoff", h, name="work/r1/phase-logs/phase4.md".replace(".md", ".yaml"))
    f = fires(fs, "AWD-H008")
    assert "'r2'" in f.message and "'r1'" in f.message
    clean(lint(tmp_path, "handoff", handoff(), name="work/r1/phase-logs/p4.yaml"), "AWD-H008")


def test_run_dir_existence_and_symlink(tmp_path: Path) -> None:
    run = tmp_path / "work" / "r1"
    (run / "outputs" / "figures").mkdir(parents=True)
    (run / "outputs" / "figures" / "sens.pdf").write_bytes(b"%PDF")
    outside = tmp_path / "secret.txt"
    outside.write_text("x")
    os.symlink(outside, run / "outputs" / "link.txt")
    h = handoff(artifacts=[
        {"path": "work/r1/outputs/figures/sens.pdf", "role": "ok"},
        {"path": "work/r1/outputs/missing.pdf", "role": "gone"},
        {"path": "work/r1/outputs/link.txt", "role": "leak"},
    ])
    p = write(tmp_path, "h.yaml", h)
    fs = [f for r in lint_paths([p], "handoff", run_dir=run) for f in r.all_findings()]
    assert fires(fs, "AWD-H009").message.startswith("artifacts[1]")
    assert fires(fs, "AWD-H010").message.startswith("artifacts[2]")
    ok = write(tmp_path, "ok.yaml", handoff())
    fs2 = [f for r in lint_paths([ok], "handoff", run_dir=run) for f in r.all_findings()]
    clean(fs2, "AWD-H009")
    clean(fs2, "AWD-H010")


def test_run_dir_with_other_run(tmp_path: Path) -> None:
    run = tmp_path / "work" / "r9"
    run.mkdir(parents=True)
    p = write(tmp_path, "h.yaml", handoff())
    fs = [f for r in lint_paths([p], "handoff", run_dir=run) for f in r.all_findings()]
    fires(fs, "AWD-H008")


def test_assumptions(tmp_path: Path) -> None:
    bad = handoff(assumptions=[
        "demand is flat",
        {"id": "A1", "text": "t", "sensitivity_plan": "p"},
        {"id": "A2", "text": "t", "evidence": "  ", "sensitivity_plan": "p"},
        {"id": "A3", "text": "t", "evidence": "Smith 2020", "sensitivity_plan": ""},
        {"id": "A3", "text": "t", "evidence": ["WHO 2023 table 2"], "sensitivity_plan": "p"},
    ])
    fs = lint(tmp_path, "handoff", bad)
    assert sum(f.code == "AWD-H013" for f in fs) == 2
    h012 = [f.message for f in fs if f.code == "AWD-H012"]
    assert any("assumptions[0]" in m for m in h012)
    assert any("sensitivity_plan" in m for m in h012)
    assert any("repeats id 'A3'" in m for m in h012)
    fires(fs, "AWD-H012")
    fires(fs, "AWD-H013")


def test_unknown_agent_in_library_and_cli(tmp_path: Path) -> None:
    p = write(tmp_path, "h.yaml", handoff())
    with pytest.raises(UnknownAgentError):
        lint_paths([p], "handoff", agent="mathodology-codr")
    rc, _, err = cli("award", "lint", "handoff", str(p), "--agent", "mathodology-codr")
    assert rc == 2 and "unknown agent 'mathodology-codr'" in err


def test_agent_mismatch(tmp_path: Path) -> None:
    h = handoff(agent="mathodology-modeler")
    fires(lint(tmp_path, "handoff", h, agent=CODER), "AWD-H014")


def test_declared_unknown_agent_warns(tmp_path: Path) -> None:
    fs = lint(tmp_path, "handoff", handoff(agent="mathodology-codr"))
    assert fires(fs, "AWD-H018").severity == "warning"


def test_role_key_missing(tmp_path: Path) -> None:
    h = handoff()
    del h["handoff"]["collision_gate_result"]
    fires(lint(tmp_path, "handoff", h, agent=CODER), "AWD-H015")
    clean(lint(tmp_path, "handoff", h), "AWD-H015")  # no --agent: no role keys


@pytest.mark.parametrize("value", [None, "passed", {"status": "pass"}, {"status": "ok",
                                                                         "command": "x"}])
def test_collision_gate_result_content(tmp_path: Path, value: object) -> None:
    fires(lint(tmp_path, "handoff", handoff(collision_gate_result=value), agent=CODER), "AWD-H016")


def test_collision_gate_fail_contradicts_complete(tmp_path: Path) -> None:
    res = {"status": "fail", "command": "python3 code/run_all.py"}
    fires(lint(tmp_path, "handoff", handoff(collision_gate_result=res), agent=CODER), "AWD-H017")
    clean(lint(tmp_path, "handoff", handoff(collision_gate_result=res, status="partial"),
               agent=CODER), "AWD-H017")


def test_ledgers(tmp_path: Path) -> None:
    base = dict(agent="mathodology-modeler")
    good = handoff(**base, innovation_ledger=[{"id": "INN-1", "text": "coupled model"}])
    clean(lint(tmp_path, "handoff", good, agent="mathodology-modeler"), "AWD-H016")
    for bad in ([], None, [{"id": "MECH-1"}], [{"id": "INN-1"}, {"id": "INN-1"}]):
        fires(lint(tmp_path, "handoff", handoff(**base, innovation_ledger=bad),
                   agent="mathodology-modeler"), "AWD-H016")
    pa = handoff(agent="mathodology-problem-analyst", scope_ledger=[{"id": "MECH-1"}])
    clean(lint(tmp_path, "handoff", pa, agent="mathodology-problem-analyst"), "AWD-H016")
    ed = handoff(agent="mathodology-paper-editor", ledger_closeout=None)
    fires(lint(tmp_path, "handoff", ed, agent="mathodology-paper-editor"), "AWD-H016")


def test_agents_without_extra_keys(tmp_path: Path) -> None:
    h = handoff(agent="mathodology-submission-packager")
    assert lint(tmp_path, "handoff", h, agent="mathodology-submission-packager") == []


def test_wrong_block_type_is_not_taken(tmp_path: Path) -> None:
    md = "```yaml\ngate: {phase: 4}\n```\n\n```yaml\nvariant: {contest: MCM}\n```\n"
    f = fires(lint(tmp_path, "handoff", md, name="x.md"), "AWD-B001")
    assert "gate at line 2" in f.message and "variant at line 6" in f.message


def test_bare_handoff_is_inferred(tmp_path: Path) -> None:
    fs = lint(tmp_path, "handoff", handoff()["handoff"])
    assert fires(fs, "AWD-B002").severity == "info"
    assert not [f for f in fs if f.severity == "error"]


def test_bare_variant_is_not_taken_as_handoff(tmp_path: Path) -> None:
    from award_util import variant

    fires(lint(tmp_path, "handoff", variant()["variant"]), "AWD-B001")


@pytest.mark.parametrize("value", ["null", "[]", "3"])
def test_wrapper_without_mapping(tmp_path: Path, value: str) -> None:
    f = fires(lint(tmp_path, "handoff", f"handoff: {value}\n"), "AWD-B003")
    assert f.line == 1


def test_indented_fence_in_list_item(tmp_path: Path) -> None:
    from award_util import dump

    body = dump(handoff()).replace("\n", "\n   ")
    md = f"# Phase 4\n\n1. Handoff:\n\n   ```yaml\n   {body}\n   ```\n"
    fs = lint(tmp_path, "handoff", md, name="p4.md")
    assert fs == []


def test_positions_point_at_markdown_lines(tmp_path: Path) -> None:
    md = ("# log\n\nprose\n\n```yaml\nhandoff:\n  phase: 4\n  agent: mathodology-coder\n"
          "  loop: 0\n  status: done\n  artifacts: []\n  decisions: []\n  assumptions: []\n"
          "  evidence: []\n  commands: []\n  weaknesses: []\n  questions: []\n"
          "  critic_focus: []\n```\n")
    f = fires(lint(tmp_path, "handoff", md, name="p.md"), "AWD-H005")
    assert (f.line, f.col) == (10, 11)


def test_seed_invocation_checks_artifacts_on_disk(tmp_path: Path) -> None:
    """`lint handoff work/<run-id>/phase-logs/phase4.md --agent mathodology-coder`, as the
    seed writes it: the run is the file's own, so a missing artifact fails (issue 27 item 9)."""
    from gavelkit.award.runs.layout import init_run

    run, _, _ = init_run(tmp_path, "r1")
    (run / "outputs/figures/sens.pdf").write_bytes(b"%PDF")
    log = run / "phase-logs" / "phase4.md"
    log.write_text("```yaml\n" + dump(handoff()) + "```\n")
    rc, out, _ = cli("award", "lint", "handoff", str(log), "--agent", "mathodology-coder")
    assert rc == 0, out
    (run / "outputs/figures/sens.pdf").unlink()
    rc, out, _ = cli("award", "lint", "handoff", str(log), "--agent", "mathodology-coder")
    assert rc == 1 and "AWD-H009" in out
    fires([f for r in lint_paths([log], "handoff") for f in r.all_findings()], "AWD-H009")
