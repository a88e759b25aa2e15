"""A report never certifies what it could not read (issue 13, round 2).

`gavel task report` and `gavel award report` used to exit 0 and show a complete-looking
page when task.json, a score file, the judge's record or a gate file was corrupt. Now
the page names each such file first ("could not read X"), nothing is taken from it or
substituted for it, and the command exits 2 with the file and the reason; a readable
file that breaks a rule gives findings and exit 1.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from report_util import judged_task, outline
from task_helpers import copy_good

from gk_testing import clean, cli, cli_json, fires
from run_util import add_gate, make_run, pass_phases


def _report(t: Path, out: Path, *extra: str) -> tuple[int, str, str, str]:
    rc, text, err = cli("task", "report", str(t), "-o", str(out), *extra)
    html = out.read_text("utf-8") if out.exists() else ""
    return rc, text, err, html


@pytest.mark.parametrize("kind", ["corrupt", "not_utf8", "directory", "fifo"])
def test_task_report_unusable_task_json_exits_2(tmp_path: Path, kind: str) -> None:
    t = judged_task(tmp_path)
    tj = t / "task.json"
    tj.unlink()
    if kind == "corrupt":
        tj.write_text('{"instance_id": "x", "judge": {"verdict": "QUALIF', "utf-8")
    elif kind == "not_utf8":
        tj.write_bytes(b"\xff\xfe not json")
    elif kind == "directory":
        tj.mkdir()
    else:
        os.mkfifo(tj)
    out = tmp_path / "r.html"
    rc, text, err, html = _report(t, out)
    assert rc == 2, (text, err)
    assert "task.json" in text + err and "Traceback" not in err
    assert "could not read <code>task.json" in html
    # the verdict of the unread record is not shown as if it were known
    assert "QUALIFIED</b> (task.json" not in html


def test_task_report_corrupt_score_is_not_replaced(tmp_path: Path) -> None:
    t = judged_task(tmp_path)
    (t / "judge" / "score_result.json").write_text("{broken", "utf-8")
    (t / "evidence").mkdir(exist_ok=True)
    (t / "evidence" / "candidate_score.json").write_text(json.dumps(
        {"summary": {"passed": 7, "total": 7}}), "utf-8")
    out = tmp_path / "r.html"
    rc, text, err, html = _report(t, out, "--format", "json")
    assert rc == 2, err
    doc = json.loads(text)
    assert doc["report"]["candidate"]["pass_rate"] is None
    assert "could not read judge/score_result.json" in doc["report"]["candidate"]["source"]
    assert any(f.get("unusable") and f["path"].endswith("score_result.json")
               for f in doc["findings"])
    assert "could not read <code>judge/score_result.json" in html


def test_task_report_score_folder_is_not_a_missing_score(tmp_path: Path) -> None:
    t = judged_task(tmp_path)
    sr = t / "judge" / "score_result.json"
    sr.unlink()
    sr.mkdir()
    rc, _, err, html = _report(t, tmp_path / "r.html")
    assert rc == 2, err
    assert "could not read <code>judge/score_result.json" in html


def test_task_report_corrupt_judge_record(tmp_path: Path) -> None:
    t = judged_task(tmp_path)
    (t / "judge" / "judge_result.json").write_text('{"verdict": "BROK', "utf-8")
    rc, text, err, html = _report(t, tmp_path / "r.html", "--format", "json")
    assert rc == 2, err
    f = fires([_f(x) for x in json.loads(text)["findings"]], "RPT-T002")
    assert f.path.endswith("judge_result.json") and f.unusable
    assert "could not read <code>judge/judge_result.json" in html


def test_task_report_readable_inputs_no_unread(tmp_path: Path) -> None:
    t = judged_task(tmp_path)
    rc, doc = cli_json("task", "report", str(t), "-o", str(tmp_path / "r.html"))
    assert rc == 0
    assert doc["report"]["unread"] == []
    clean([_f(x) for x in doc["findings"]], "RPT-T002")
    assert "could not read" not in (tmp_path / "r.html").read_text("utf-8")


def test_task_report_broken_but_readable_is_exit_1(tmp_path: Path) -> None:
    t = judged_task(tmp_path)
    tj = json.loads((t / "task.json").read_text("utf-8"))
    tj["labels"] = "not a list"
    (t / "task.json").write_text(json.dumps(tj), "utf-8")
    rc, text, err, html = _report(t, tmp_path / "r.html")
    assert rc == 1, (text, err)
    assert "labels" in text and "could not read" not in html


def test_task_report_quiet_still_names_the_file(tmp_path: Path) -> None:
    t = copy_good(tmp_path)
    (t / "task.json").write_bytes(b"{")
    rc, out, err = cli("task", "report", str(t), "-o", str(tmp_path / "r.html"), "-q")
    assert rc == 2 and out == "" and "task.json" in err


def test_fleet_row_says_what_it_could_not_read(tmp_path: Path) -> None:
    from gavelkit.task.judging.report import build_fleet

    t = judged_task(tmp_path)
    (t / "judge" / "judge_result.json").write_text("{", "utf-8")
    rep = build_fleet([t])
    f = fires(rep.findings, "RPT-T001")
    assert "could not read" in f.message and len(rep.data["tasks"]) == 1


def test_award_report_unreadable_gate_exit_2(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    pass_phases(run, 6)
    add_gate(run, 7, 0, [("G7-9", "blocker")])
    (run / "gates" / "phase-3-loop-1.yaml").write_text("gate: [unclosed\n", "utf-8")
    out = tmp_path / "r.html"
    rc, text, err = cli("award", "report", str(run), "-o", str(out), "--no-pdfqa")
    assert rc == 2, (text, err)
    assert "phase-3-loop-1.yaml" in text + err
    html = out.read_text("utf-8")
    assert "could not read <code>" in html and "phase-3-loop-1.yaml" in html
    assert "G7-9" in outline(html).body  # the rest is still shown


def test_award_report_unreadable_paper_exit_2(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    (run / "paper").mkdir(exist_ok=True)
    os.mkfifo(run / "paper" / "solution.pdf")
    out = tmp_path / "r.html"
    rc, text, err = cli("award", "report", str(run), "-o", str(out))
    assert rc == 2, (text, err)
    assert "solution.pdf" in text + err
    assert "could not read <code>" in out.read_text("utf-8")


def test_award_report_clean_run_exit_0(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    out = tmp_path / "r.html"
    rc, _, err = cli("award", "report", str(run), "-o", str(out), "--no-pdfqa")
    assert rc == 0, err
    assert "could not read" not in out.read_text("utf-8")


def _f(d: dict):  # a Finding back from its JSON form
    from gavelkit.core.findings import Finding

    return Finding(d["code"], d["severity"], d["message"], d["path"], d.get("line", 0),
                   d.get("col", 0), unusable=d.get("unusable", False))


def test_award_report_gates_as_a_file_is_not_a_fresh_run(tmp_path: Path) -> None:
    """A file where gates/ belongs: the gates cannot be read, which is not 'no gate yet'."""
    import shutil

    run = make_run(tmp_path)
    pass_phases(run, 2)
    shutil.rmtree(run / "gates")
    (run / "gates").write_text("not a folder\n", "utf-8")
    out = tmp_path / "r.html"
    rc, text, err = cli("award", "report", str(run), "-o", str(out), "--no-pdfqa")
    assert rc == 2, (text, err)
    assert "not a folder" in text + err
    assert "could not read <code>" in out.read_text("utf-8")
