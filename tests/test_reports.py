"""HTML reports: the sections and data are in the page, it is self-contained, and bad
input degrades to "missing" or exit 2, never a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gavelkit.core.errors import InputError
from report_util import assert_self_contained, judged_task, outline
from task_helpers import CORPUS, copy_good, need_corpus

from gk_testing import clean, cli, cli_json, fires
from run_util import add_card, add_gate, make_run, pass_phases

AWARD_SECTIONS = ["next", "timeline", "issues", "budgets", "panel", "conflicts", "decisions", "pdfqa",
                  "findings"]
TASK_SECTIONS = ["rates", "coverage", "clusters", "gates", "history", "files"]


def example_run(root: Path) -> Path:
    return next((root / "examples/award-run/work").iterdir())


# ----------------------------------------------------------------------------- award

def test_award_report_of_the_example_run(root: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    rc, text, err = cli("award", "report", str(example_run(root)), "-o", str(out), "--no-pdfqa")
    assert rc == 0, err
    assert "NEXT advance phase 8" in text
    html = out.read_text("utf-8")
    o = outline(html)
    assert o.sections == AWARD_SECTIONS
    assert_self_contained(o, html)
    assert o.svgs >= 4  # timeline, budgets, two panel rounds
    body = o.body
    # timeline: every gate file is a row; stalled id marked
    assert "phase-4-loop-2.yaml" in body and "stalled" in o.classes
    assert "G4-1 in phase 4 recurred unchanged in loops 0, 1" in body.replace("  ", " ")
    # open issues by severity then id: medium before low
    assert body.index("G4-3") < body.index("G1-1") < body.index("G7-1")
    # budgets, panel with threshold and floor, conflicts and their fate, next action
    assert "4/8" in body and "2/3" in body
    assert "threshold 80" in html and "floor 65" in html
    assert "resolved by re-dispatching seat C (round 2)" in body
    assert "panel round 2 passes at finalist" in body
    assert "not run: skipped (--no-pdfqa)" in body


def test_award_report_json_and_target(root: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    rc, text, _ = cli("award", "report", str(example_run(root)), "-o", str(out),
                      "--target", "outstanding", "--no-pdfqa", "--format", "json")
    doc = json.loads(text)
    assert rc == 0 and doc["output"] == str(out)
    rep = doc["report"]
    assert rep["next_action"]["action"] == "rescore"
    assert rep["target"]["threshold"] == 85.0 and rep["rounds"][-1]["result"] == "FAIL"
    assert [b["name"] for b in rep["budgets"][:2]] == ["fix loops (whole run)", "panel rounds"]
    assert "threshold 85" in out.read_text("utf-8")


def test_award_report_fresh_and_broken_runs(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    out = tmp_path / "fresh.html"
    rc, _, err = cli("award", "report", str(run), "-o", str(out), "--no-pdfqa")
    assert rc == 0, err
    o = outline(out.read_text("utf-8"))
    assert "No gate files yet." in o.body and "No panel round yet." in o.body
    pass_phases(run, 6)
    add_gate(run, 7, 0, [("G7-9", "blocker")])
    (run / "gates" / "phase-3-loop-1.yaml").write_text("gate: [unclosed\n", "utf-8")
    rc, _, err = cli("award", "report", str(run), "-o", str(out), "--no-pdfqa")
    assert rc == 2, err  # a gate file it could not read: the page says so (round 2)
    o = outline(out.read_text("utf-8"))
    assert "G7-9" in o.body and "phase-3-loop-1.yaml" in o.body
    assert "fix" in o.body  # next action: fix loop for phase 7


def test_award_report_panel_conflict_open(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 7)
    add_card(run, "A", 1)
    add_card(run, "B", 1)
    add_card(run, "C", 1, correctness=80, reproducibility=80, summary=80, modeling=80,
             results=40)
    from gavelkit.award.runs.report import build

    rep = build(run, pdfqa=False)
    assert rep.data["conflicts"] and rep.data["conflicts"][0]["state"] == "OPEN"
    assert rep.data["next_action"]["action"] == "adjudicate"
    assert "OPEN" in outline(rep.html).body


def test_pdfqa_section_states(tmp_path: Path) -> None:
    """No paper, an unreadable paper and a real paper with a blank page: the report says
    which, and shows the framed contact sheet the `award contact-sheet` command draws."""
    from gavelkit.award.pdf.writer import PageSpec, Text, build_pdf
    from gavelkit.award.runs import report

    run = make_run(tmp_path)
    assert "no compiled paper" in report.pdf_qa(run)["reason"]
    (run / "paper").mkdir(exist_ok=True)
    (run / "paper" / "solution.pdf").write_bytes(b"%PDF-1.4 stub")
    q = report.pdf_qa(run)
    assert not q["ran"] and "could not read" in q["reason"]
    page = PageSpec([Text(72, 700 - 14 * i, f"Line {i} of the model section.") for i in range(30)])
    (run / "paper" / "solution.pdf").write_bytes(build_pdf([page, PageSpec([]), page]))
    q = report.pdf_qa(run)
    assert q["ran"] and q["sheet"].startswith("data:image/png;base64,")
    assert any(f["code"] == "PDF-B001" for f in q["findings"])
    assert q["summary"]["framed"].get("2")
    html = report.build(run).html
    o = outline(html)
    assert "PDF-B001" in o.body and o.imgs[0].startswith("data:image/png")
    assert_self_contained(o)


def test_award_report_bad_input_exit_2(tmp_path: Path) -> None:
    rc, _, err = cli("award", "report", str(tmp_path / "nope"), "-o", str(tmp_path / "x.html"))
    assert rc == 2 and "does not exist" in err
    rc, _, err = cli("award", "report", str(tmp_path), "-o", str(tmp_path))
    assert rc == 2 and "is a directory" in err and "Traceback" not in err
    rc, _, err = cli("award", "report", str(tmp_path), "--target", "gold-medal")
    assert rc == 2


def test_output_rule_both_ways(tmp_path: Path) -> None:
    from gavelkit.cli.report_cmd import _out_path

    with pytest.raises(InputError) as exc:
        _out_path(str(tmp_path))
    fires([exc.value.to_finding()], "RPT-O001")
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError):
        _out_path(str(tmp_path / "file" / "r.html"))
    assert _out_path(str(tmp_path / "new" / "r.html")).name == "r.html"


# ----------------------------------------------------------------------------- task

def test_task_report_of_a_judged_task(tmp_path: Path) -> None:
    t = judged_task(tmp_path)
    out = tmp_path / "task.html"
    rc, text, err = cli("task", "report", str(t), "-o", str(out))
    assert rc == 0, err
    assert "state QUALIFIED, verdict QUALIFIED, gap +0.800" in text
    html = out.read_text("utf-8")
    o = outline(html)
    assert o.sections == TASK_SECTIONS
    assert_self_contained(o, html)
    assert o.svgs == 3  # layer rates, heat map, clusters
    body = o.body
    assert "task.json integration_gap" in body and "the score file gives +0.800" in body
    assert "cross-view-consistency" in body  # true gap event
    assert "Tally.render is not implemented" in body and "api-surface" in body
    # crash clusters: the two 'render' crashes fold into one (addresses differ)
    assert "AttributeError: 'Tally' object at 0x… has no attribute 'render'" in body
    assert "error with no crash message" in body
    # heat map marks core sections; gates and recorded gates; history in order
    assert "★ Error Semantics" in html
    assert "A_spec_mapping: passed" in body
    assert body.index("picked") < body.index("run scored") < body.index("judge verdict")
    assert "render_digits pads with spaces" in body


def test_task_report_data(tmp_path: Path) -> None:
    from gavelkit.task.judging.report import build_task

    d = build_task(judged_task(tmp_path, record_gap=False)).data
    assert d["gap"]["source"] == "computed from judge/score_result.json"
    assert d["gap"]["atomic_rate"] == pytest.approx(0.8)
    assert d["gap"]["integration_e2e_rate"] == 0.0
    assert d["layers"]["atomic"]["rate"] == pytest.approx(0.8)
    assert d["reference"]["pass_rate"] == 1.0
    assert [c["count"] for c in d["crash_clusters"]] == [2, 1]
    cov = {s["section"]: s for s in d["coverage"]["sections"]}
    assert cov["## Parsing"]["by_layer"] == {"atomic": 2} and cov["## Parsing"]["status"] == \
        "covered"
    assert cov["## Error Semantics"]["core"] is True
    assert len(d["coverage"]["tests"]) == 7
    assert set(d["gates"]) == {"D", "E", "F"}
    assert [h["to"] for h in d["history"]] == ["S1_SELECTED", "S5_JUDGE", "QUALIFIED",
                                               "QUALIFIED"]


def test_task_report_with_almost_nothing(tmp_path: Path) -> None:
    t = tmp_path / "bare"
    t.mkdir()
    (t / "spec.md").write_text("# x\n\n## Only\n\ntext\n", "utf-8")
    out = tmp_path / "bare.html"
    rc, _, err = cli("task", "report", str(t), "-o", str(out))
    assert rc == 0, err
    o = outline(out.read_text("utf-8"))
    assert o.sections == TASK_SECTIONS
    assert "No candidate score by layer." in o.body
    assert "No coverage: spec.md or spec_test_map.md missing." in o.body
    assert "No PIPELINE_STATE.md History and no judge record." in o.body


def test_task_report_unreadable_files_degrade(tmp_path: Path) -> None:
    t = copy_good(tmp_path)
    (t / "task.json").write_bytes(b"\xff\xfe not json")
    (t / "score_result.json").write_text("{broken", "utf-8")
    rc, _, err = cli("task", "report", str(t), "-o", str(tmp_path / "r.html"))
    assert rc == 2, err  # written, but it names what it could not read (round 2)
    assert "could not read" in (tmp_path / "r.html").read_text("utf-8")
    rc, _, err = cli("task", "report", str(tmp_path / "missing"))
    assert rc == 2 and "Traceback" not in err


def test_task_report_on_corpus(tmp_path: Path) -> None:
    from gavelkit.task.judging.report import build_task

    for t in need_corpus():
        rep = build_task(t)
        o = outline(rep.html)
        assert o.sections == TASK_SECTIONS, t.name
        assert_self_contained(o)  # corpus text itself quotes URLs
        assert rep.data["coverage"]["sections"], t.name
    cleo = build_task(CORPUS / "cleo-fullrepro-001").data
    assert cleo["candidate"]["source"] == "evidence/candidate_score.json"
    assert cleo["candidate"]["passed"] == 16 and cleo["candidate"]["total"] == 79
    assert cleo["layers"]["atomic"]["rate"] == pytest.approx(10 / 47)
    assert cleo["gap"]["rate_gap"] == pytest.approx(10 / 47 - 6 / 32)
    assert "requires_value" in cleo["crash_clusters"][0]["root_cause"]
    assert len(cleo["weaknesses"]) == 3
    jrnl = build_task(CORPUS / "jrnl-journal-fullrepro-002").data
    assert jrnl["verdict_source"] == "judge/diagnosis_report.md"
    assert jrnl["gap"]["atomic_rate"] is None  # no atomic layer: no gap, not 0


# ----------------------------------------------------------------------------- fleet

def _fleet_dir(tmp_path: Path) -> Path:
    fleet = tmp_path / "tasks"
    fleet.mkdir()
    judged_task(fleet)
    bare = fleet / "bare-001"
    bare.mkdir()
    (bare / "spec.md").write_text("# x\n\n## Only\n\ntext\n", "utf-8")
    (fleet / "notes").mkdir()  # not a task: ignored
    return fleet


def test_fleet_report(tmp_path: Path) -> None:
    fleet = _fleet_dir(tmp_path)
    out = tmp_path / "fleet.html"
    rc, text, err = cli("task", "report-all", str(fleet), "-o", str(out), "--reports",
                        str(tmp_path / "per"))
    assert rc == 0, err
    assert "2 task(s)" in text and err == ""  # piped: no progress line
    html = out.read_text("utf-8")
    o = outline(html)
    assert_self_contained(o, html)
    assert o.rows["tasks"] == 3  # header + 2 tasks
    assert 'data-state="QUALIFIED"' in html and 'data-verdict="PENDING"' in html
    assert '<a href="per/task_good.html">' in html
    assert (tmp_path / "per" / "task_good.html").is_file()
    assert len(o.scripts) == 1 and "f-gap" in html
    assert o.svgs == 1


def test_fleet_progress_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gavelkit.core import progress

    real = progress.track

    def forced(items, label, **kw):  # type: ignore[no-untyped-def]
        kw.update(enabled=not kw.get("quiet"), delay=0)
        return real(items, label, **kw)

    monkeypatch.setattr(progress, "track", forced)
    fleet = _fleet_dir(tmp_path)
    rc, _, err = cli("task", "report-all", str(fleet), "-o", str(tmp_path / "f.html"))
    assert rc == 0 and "report-all: 2/2 (100%)" in err
    rc, out, err = cli("task", "report-all", str(fleet), "-o", str(tmp_path / "f.html"), "-q")
    assert rc == 0 and out == "" and err == ""


def test_fleet_left_out_rule_both_ways(tmp_path: Path) -> None:
    from gavelkit.task.judging.report import build_fleet

    good = copy_good(tmp_path)
    rep = build_fleet([good])
    clean(rep.findings, "RPT-T001")
    rep = build_fleet([good, tmp_path / "gone"])
    f = fires(rep.findings, "RPT-T001")
    assert "gone" in f.path and len(rep.data["tasks"]) == 1
    assert "task left out" in outline(rep.html).body


def test_fleet_on_corpus_and_nested_layout(tmp_path: Path) -> None:
    need_corpus()
    repo = tmp_path / "repo"
    shutil.copytree(CORPUS, repo / "tasks")
    rc, text, err = cli("task", "report-all", str(repo), "-o", str(tmp_path / "f.html"),
                        "--format", "json")
    doc = json.loads(text)
    assert rc == 0, err
    assert len(doc["report"]["tasks"]) == 4
    assert doc["report"]["verdicts"] == ["QUALIFIED"]
    rc, _, err = cli("task", "report-all", str(tmp_path / "none"))
    assert rc == 2


def test_heatmap_by_layer_for_big_oracles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gavelkit.task.judging import report, report_charts

    monkeypatch.setattr(report_charts, "MATRIX_MAX_TESTS", 3)
    html = report.build_task(judged_task(tmp_path)).html
    assert "covered tests per layer (7 tests" in html and "★ Error Semantics" in html


def test_demo_writes_the_award_report(root: Path, tmp_path: Path) -> None:
    from gavelkit.cli.demo import report_step

    step = report_step(example_run(root), tmp_path / "award-report.html")
    assert step.ok, step.detail
    assert outline((tmp_path / "award-report.html").read_text("utf-8")).sections == \
        AWARD_SECTIONS


@pytest.mark.parametrize("odd", [
    {"weaknesses": ["not a dict", 3], "labels": "not a list", "judge": "QUALIFIED"},
    {"judge": {"verdict": 7, "failure_clusters": {"c1": "cascade", "c2": {"tests": 4}},
               "fairness_gates": ["A"]}},
    {"judge": {"failure_clusters": [1, {"name": None, "tests": "x"}]},
     "integration_gap": {"atomic_rate": "high", "rate_gap": None},
     "true_gap_events": [{"failed_test": None}, "x"], "reopened_s3": {"reason": 5}},
    {"integration_gap": [], "true_gap_events": {"a": 1}, "candidate_score": {"passed": "x"}},
])
def test_task_report_survives_odd_task_json(tmp_path: Path, odd: dict) -> None:
    t = judged_task(tmp_path)
    tj = json.loads((t / "task.json").read_text("utf-8"))
    tj.update(odd)
    (t / "task.json").write_text(json.dumps(tj), "utf-8")
    score = json.loads((t / "judge" / "score_result.json").read_text("utf-8"))
    score["cases"] += [{"nodeid": "x::y", "outcome": "failed", "call": [1]},
                       {"nodeid": "x::z", "outcome": "error", "layer": {"a": 1},
                        "call": {"crash": {"message": 42}}}, "junk"]
    (t / "judge" / "score_result.json").write_text(json.dumps(score), "utf-8")
    rc, _, err = cli("task", "report", str(t), "-o", str(tmp_path / "r.html"))
    # readable but breaking a rule (labels/weaknesses of the wrong type): findings, exit 1
    assert rc == (1 if "labels" in odd else 0), err
    assert outline((tmp_path / "r.html").read_text("utf-8")).sections == TASK_SECTIONS


def test_award_report_overrun_loop_is_drawn(tmp_path: Path) -> None:
    from gavelkit.award.runs.report import build

    run = make_run(tmp_path)
    pass_phases(run, 1)
    for k, ids in enumerate([["A", "B", "C"], ["A", "B"], ["A"], ["A"]]):
        add_gate(run, 2, k, [(i, "high") for i in ids])
    rep = build(run, pdfqa=False)
    assert rep.data["next_action"]["action"] == "STOP"
    assert "loop 3" in rep.html and "AWD-T008" in rep.html
    assert any(i["stalled"] for i in rep.data["issues"])


def test_task_report_reads_the_judges_records(tmp_path: Path) -> None:
    """The shapes issue 8's judge writes: clusters with size/class/layers, gate keys like
    D_coverage, and judge/judge_result.json with route, reasons and the cascade."""
    from gavelkit.task.judging.report import build_task

    t = judged_task(tmp_path)
    tj = json.loads((t / "task.json").read_text("utf-8"))
    tj["judge"]["failure_clusters"] = [{
        "id": "C1", "root_cause": "ImportError: cannot import name 'render'",
        "class": "candidate", "size": 35, "tests": ["a::b"] * 20,
        "layers": {"atomic": 30, "integration": 5}, "dimension": "api-surface"}]
    tj["judge"]["fairness_gates"] = {"D_coverage": "FULL", "B_failure_pattern": "PASS",
                                     "A/C_spotcheck": "table prefilled"}
    (t / "task.json").write_text(json.dumps(tj), "utf-8")
    (t / "judge" / "judge_result.json").write_text(json.dumps({
        "verdict": "BROKEN", "route": "filter", "date": "2026-07-21",
        "reasons": ["Gate B failed"],
        "metrics": {"cascade": {"failures": 35, "root_causes": 1, "cascaded": 34}}}), "utf-8")
    rep = build_task(t)
    c = rep.data["judge_clusters"][0]
    assert (c["count"], c["kind"], c["layer"]) == (35, "candidate", "atomic 30, integration 5")
    assert rep.data["verdict"] == "BROKEN"
    assert rep.data["verdict_source"] == "judge/judge_result.json"
    body = outline(rep.html).body
    assert "cascade: 35 failure(s) from 1 root cause(s)" in body
    assert "route back to filter" in body and "Gate B failed" in body
    assert "D_coverage: FULL" in body and "B_failure_pattern: PASS" in body


def test_reports_are_deterministic(root: Path, tmp_path: Path) -> None:
    from gavelkit.award.runs.report import build
    from gavelkit.task.judging.report import build_task

    run = example_run(root)
    assert build(run, pdfqa=False).html == build(run, pdfqa=False).html
    t = judged_task(tmp_path)
    assert build_task(t).html == build_task(t).html


def test_single_reports_tell_their_stages(root: Path, tmp_path: Path) -> None:
    from gavelkit.award.runs.report import build
    from gavelkit.task.judging.report import build_task

    seen: list[tuple[int, int, str]] = []
    build(example_run(root), pdfqa=False, progress=lambda *a: seen.append(a))
    assert [s[2] for s in seen] == ["status", "PDF QA", "charts", "done"]
    seen.clear()
    build_task(judged_task(tmp_path), progress=lambda *a: seen.append(a))
    assert seen[-1] == (2, 2, "done")


def test_award_report_shows_adjudicated_and_persisting_conflicts(tmp_path: Path) -> None:
    from gavelkit.award.runs.report import build

    run = make_run(tmp_path, target="Meritorious")
    pass_phases(run, 7)
    add_card(run, "A", 1, results=90)
    add_card(run, "B", 1, results=90)
    add_card(run, "C", 1, results=60)
    add_card(run, "C", 2, results=66)
    states = [c["state"] for c in build(run, pdfqa=False).data["conflicts"]]
    assert states == ["persisted in round 2", "OPEN"]
    (run / "phase-logs" / "phase7.md").write_text(
        "```yaml\ndecision_memo:\n  phase: 7\n  budget_spent: {loops: 2, cap: 3}\n"
        "  unresolved: []\n  adjudications:\n"
        "    - {criterion: results, outcome: 'lead sides with seat C'}\n"
        "  options:\n    - {option: a, consequence: b, recommended: true}\n"
        "    - {option: c, consequence: d, recommended: false}\n```\n")
    rep = build(run, pdfqa=False)
    assert rep.data["conflicts"][-1]["state"] == "adjudicated: lead sides with seat C"
    assert "adjudicated: lead sides with seat C" in outline(rep.html).body


def test_fleet_in_worker_processes(tmp_path: Path) -> None:
    from gavelkit.task.judging.report import build_fleet

    good = copy_good(tmp_path)
    other = copy_good(tmp_path, "other")
    one = build_fleet([good, tmp_path / "gone", other])
    two = build_fleet([good, tmp_path / "gone", other], jobs=2)
    assert two.data == one.data and [f.to_dict() for f in two.findings] == \
        [f.to_dict() for f in one.findings]
    rc, _, err = cli("task", "report-all", str(tmp_path), "--jobs", "0")
    assert rc == 2 and "--jobs" in err


def test_history_includes_the_ledger_row(tmp_path: Path) -> None:
    from gavelkit.task.judging.report import build_task

    t = judged_task(tmp_path)
    (tmp_path / "CANDIDATES.md").write_text(
        "# Candidates\n\n| repo | status | metric | detail |\n|---|---|---|---|\n"
        "| example/tally | QUALIFIED | spec_v1 / 7 tests | superseded_by=v2 |\n"
        "| other/repo | RETIRED | - | - |\n", "utf-8")
    hist = build_task(t).data["history"]
    ledger = [h for h in hist if h["source"].startswith("CANDIDATES.md")]
    assert len(ledger) == 1 and ledger[0]["to"] == "QUALIFIED"
    assert "superseded_by=v2" in ledger[0]["note"]


def test_gate_findings_past_the_page_limit_are_counted(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The page shows the first findings of a gate and says how many there are in all."""
    from gavelkit.core.findings import Finding
    from gavelkit.task import gates as gates_mod
    from gavelkit.task.judging import report, report_data

    real = gates_mod.run_gates

    def noisy(task, which="DEF"):  # type: ignore[no-untyped-def]
        rep = real(task, which)
        rep.results["E"].findings += [Finding("TSK-E001", "warning", f"finding {i}",
                                              str(task.dir / "spec.md"), i + 1, 1)
                                      for i in range(3)]
        return rep

    monkeypatch.setattr(report_data, "SHOWN_FINDINGS", 1)
    monkeypatch.setattr(gates_mod, "run_gates", noisy)
    rep = report.build_task(judged_task(tmp_path))
    gates = rep.data["gates"]
    cut = [g for g, r in gates.items() if r["total"] > len(r["findings"])]
    assert cut, {g: r["total"] for g, r in gates.items()}
    assert "(first 1 shown" in rep.html


def test_award_report_counts_only_stalled_ids_still_open(root: Path, tmp_path: Path) -> None:
    """Every phase passed: no stalled id is open, whatever recurred before (issue 27)."""
    out = tmp_path / "r.html"
    rc, _text, _ = cli("award", "report", str(example_run(root)), "-o", str(out), "--no-pdfqa",
                      "--format", "json")
    assert rc == 0
    html = out.read_text("utf-8")
    assert '<div class="v">0</div><div class="k">stalled ids still open (1 resolved since)' in html


def test_award_report_and_status_show_risk_accepted_mediums(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 1)
    p = add_gate(run, 2, 0, [("G2-1", "medium")])
    p.write_text(p.read_text().replace("required_fix: f", "risk_acceptance: appendix only, "
                                       "not judged"))
    _rc, doc = cli_json("award", "status", str(run))
    loop = doc["status"]["phases"][2]["loops"][0]
    assert loop["open_medium_low"][0]["risk_acceptance"] == "appendix only, not judged"
    out = tmp_path / "r.html"
    cli("award", "report", str(run), "-o", str(out), "--no-pdfqa")
    assert "risk accepted</span> appendix only, not judged" in out.read_text("utf-8")
