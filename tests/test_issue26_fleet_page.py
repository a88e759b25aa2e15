"""Issue 26 item 11: the fleet page shows gavel's verdict beside the recorded one, the
disagreement, error counts and top causes with the tasks they hit, sorted by what blocks
most, at full width."""

from __future__ import annotations

import json
from pathlib import Path

from gavelkit.task.judging.fleet_verdict import decide_row, static_check
from gavelkit.task.judging.report import build_fleet
from task_helpers import copy_good, edit


def _recorded_qualified_but_failing(root: Path) -> Path:
    d = copy_good(root, "recorded-q")
    tj = json.loads((d / "task.json").read_text("utf-8-sig"))
    tj["status"] = "QUALIFIED"
    tj["instance_id"] = "recorded-q"
    (d / "task.json").write_text(json.dumps(tj), "utf-8")
    edit(d / "spec.md", "## Non-Goals\n", "## Non-Goals\n\n- Colours are outside this design.\n")
    return d


def test_computed_verdict_beside_the_recorded_one(tmp_path):
    bad = _recorded_qualified_but_failing(tmp_path / "tasks")
    copy_good(tmp_path / "tasks", "clean")
    rep = build_fleet([bad, tmp_path / "tasks" / "clean"])
    rows = {r["id"]: r for r in rep.data["tasks"]}
    b = rows["recorded-q"]
    assert b["recorded"] == "QUALIFIED" and b["recorded_source"] == "task.json status"
    assert b["computed"] == "BROKEN" and b["route"] == "spec" and b["disagrees"]
    assert any(x.startswith("gate-F FAIL") for x in b["blocking"])
    # what blocks most comes first; the top causes name the tasks they hit
    assert rep.data["tasks"][0]["errors"] >= rep.data["tasks"][-1]["errors"]
    f002 = next(c for c in rep.data["causes"] if c["code"] == "TSK-F002")
    assert f002["tasks"] == [b["id"]]
    assert rep.data["disagree"] == 1
    html = rep.html
    assert "main { max-width:none; }" in html and 'class="disagree"' in html
    assert "Top causes" in html and "disagrees" in html


def test_a_task_gavel_never_judged_is_pending_not_qualified(tmp_path):
    # near miss: clean static gates alone never make QUALIFIED
    v = decide_row({g: {"verdict": x, "errors": 0} for g, x in
                    (("D", "FULL"), ("E", "PASS"), ("F", "PASS"))}, None, "QUALIFIED", "s")
    assert v.computed == "PENDING" and v.disagrees and "static gates only" in v.basis


def test_judge_record_with_todays_gates_decides():
    checks = [{"name": n, "status": "PASS"} for n in
              ("inputs", "preflight", "anti-cheat", "solvability", "score", "gate-A/C", "gate-B",
               "gate-D", "gate-E", "gate-F")]
    ok = {g: {"verdict": x, "errors": 0} for g, x in (("D", "FULL"), ("E", "PASS"), ("F", "PASS"))}
    assert decide_row(ok, checks, "QUALIFIED", "s").computed == "QUALIFIED"
    now_failing = {**ok, "E": {"verdict": "FAIL", "errors": 2}}
    v = decide_row(now_failing, checks, "QUALIFIED", "s")
    assert v.computed == "BROKEN" and v.disagrees
    assert static_check("D", {"verdict": "GAP", "gap_accepted": True}).status == "PASS"
    assert static_check("F", {"verdict": "N/A"}).status == "N/A"
