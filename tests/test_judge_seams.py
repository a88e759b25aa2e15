"""Seams between Gate D/E/F (issue 14) and the judge (issue 16): one reading of each record.

- task.json `coverage_gap`: Gate D and the judge read it with one function, so an
  accepted GAP is a Gate D warning *and* a passing judge check (no filter loop, the
  `coverage-gap` label), and an unusable record is neither;
- Gate D UNKNOWN blocks QUALIFIED; coverage from the task's record is used and marked;
- Gate F N/A (a standard without phrasing rules) is not a failure and not a pass: the
  verdict names it and the standard the gates applied.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gavelkit.task.formats.load import load_task
from gavelkit.task.formats.task_json import read_coverage_gap
from gavelkit.task.gates import run_gates
from gavelkit.task.judging import judge as J
from gavelkit.task.judging import verdict as V
from gavelkit.task.judging.conclude import conclude
from gavelkit.task.judging.diagnosis import render_requests
from gavelkit.task.judging.fairness import Fairness, gates_def
from gavelkit.task.judging.inputs import EntryCheck, Loaded
from gavelkit.task.judging.records import fairness, fairness_notes
from gavelkit.task.judging.step import Notes, StepResult
from task_helpers import copy_good, edit

REASON = "test-filter tried (filter_iter 1): no further spec-derivable tests"


def _tj(d: Path) -> dict:
    return json.loads((d / "task.json").read_text("utf-8-sig"))


def _set(d: Path, **keys: object) -> None:
    tj = _tj(d)
    for k, v in keys.items():
        if v is None:
            tj.pop(k, None)
        else:
            tj[k] = v
    (d / "task.json").write_text(json.dumps(tj, indent=2), "utf-8")


def _gap_task(tmp_path: Path, **keys: object) -> Path:
    d = copy_good(tmp_path)
    edit(d / "spec_test_map.md", "| Error Semantics |", "| Parsing |")
    _set(d, **keys)
    return d


def _judged(d: Path, others: V.Status = V.PASS, extra: tuple[V.Check, ...] = ()) -> J.JudgeResult:
    """The judge's Gate D/E/F checks on a task, every other required check `others`."""
    task = load_task(d)
    notes = Notes(str(d))
    gates = run_gates(task, "DEF")
    fair = Fairness(gates=gates, coverage_caveat=gates_def(gates, notes), **notes.frozen())
    stand = StepResult(checks=tuple(V.Check(name, others, "stand-in") for name in V.REQUIRED
                                    if name not in ("gate-D", "gate-E", "gate-F")) + extra)
    loaded = Loaded(task, d / "run", d / "run" / "score_result.json", "2026-01-01", ())
    return J.JudgeResult(loaded, EntryCheck(), fairness=fair,
                         conclusion=conclude(task, [fair, stand], fair, None))


def _check(res: J.JudgeResult, name: str) -> V.Check:
    return next(c for c in res.checks if c.name == name)


# ---------------------------------------------------------------- one reader of coverage_gap

@pytest.mark.parametrize("value,sections", [
    ({"sections": ["Error Semantics"], "reason": REASON}, ["Error Semantics"]),
    ({"sections": "Error Semantics; Cross-View Invariants", "reason": REASON},
     ["Error Semantics", "Cross-View Invariants"]),
    ([{"section": "Error Semantics", "reason": REASON}], ["Error Semantics"]),  # MANIFEST shape
    ([{"spec_section": "## Error Semantics", "reason": REASON}], ["## Error Semantics"]),
])
def test_coverage_gap_shapes_read(value, sections):
    entries, problems = read_coverage_gap(value)
    assert [s for s, _ in entries] == sections and not problems
    assert all(why == REASON for _, why in entries)


@pytest.mark.parametrize("value,why", [
    ({"sections": ["Error Semantics"]}, "without a reason"),
    (["Error Semantics"], "not a {section, reason} object"),
    ("Error Semantics", "not in a shape"),
    ({"Error Semantics": REASON}, "not in a shape"),
    ({"sections": {"a": 1}, "reason": REASON}, "not a list"),
])
def test_coverage_gap_without_reason_or_shape_is_a_problem(value, why):
    entries, problems = read_coverage_gap(value)
    assert not entries and any(why in p for p in problems)
    assert '"sections"' in problems[-1] and '"reason"' in problems[-1]


@pytest.mark.parametrize("key,value", [
    ("coverage_gap", {"sections": ["Error Semantics"], "reason": REASON}),
    ("coverage_gap", [{"section": "error semantics", "reason": REASON}]),
    ("coverage-gap", [{"section": "Error Semantics", "reason": REASON}]),
])
def test_accepted_gap_gate_d_and_judge_agree(tmp_path, key, value):
    d = _gap_task(tmp_path, **{key: value})
    rep = run_gates(load_task(d), "D")
    assert rep.results["D"].data["gap_accepted"]
    assert {f.severity for f in rep.findings if f.code == "TSK-D002"} == {"warning"}
    res = _judged(d)
    gd = _check(res, "gate-D")
    assert gd.status == V.PASS and gd.route is None and "caveat" in gd.reason
    assert res.coverage_caveat == {"sections": ["Error Semantics"], "reason": REASON}
    lab = next(x for x in res.labels if x["label"] == "coverage-gap")
    assert "accepted as a caveat" in lab["evidence"]
    # gate E/F of the good task pass: the accepted gap alone routes nowhere
    assert res.verdict == "QUALIFIED", res.reasons
    assert "accepted as a caveat" in fairness_notes(res)["gate-D"]


@pytest.mark.parametrize("value", [
    None,
    {"sections": ["Error Semantics"]},              # no reason: not accepted by either
    ["Error Semantics"],                            # shape neither reads
    {"sections": ["Cross-View Invariants"], "reason": REASON},  # another section
])
def test_unaccepted_gap_fails_both_and_names_the_shape(tmp_path, value):
    d = _gap_task(tmp_path, coverage_gap=value)
    rep = run_gates(load_task(d), "D")
    err = next(f for f in rep.findings if f.code == "TSK-D002")
    assert err.severity == "error" and not rep.results["D"].data.get("gap_accepted")
    assert '"sections"' in err.message and '"reason"' in err.message  # the shape it accepts
    if value is not None and value != {"sections": ["Cross-View Invariants"], "reason": REASON}:
        assert "not usable" in err.message
    res = _judged(d)
    gd = _check(res, "gate-D")
    assert gd.status == V.FAIL and gd.route == "filter" and '"sections"' in gd.reason
    assert res.verdict == "BROKEN" and res.route == "filter"
    assert any(x["label"] == "coverage-gap" for x in res.labels)
    assert "Error Semantics" in render_requests(res)["filter_correction_request.md"]


def test_accepted_sections_are_not_requested_when_another_check_routes_to_filter(tmp_path):
    d = _gap_task(tmp_path, coverage_gap={"sections": ["Error Semantics"], "reason": REASON})
    res = _judged(d, extra=(V.Check("gate-B", V.FAIL, "verifier failures", "filter"),))
    assert res.route == "filter"
    req = render_requests(res)["filter_correction_request.md"]
    asked = req.split("## Uncovered spec sections")[1].split("Not requested")[0] \
        if "## Uncovered spec sections" in req else ""
    assert "Error Semantics" not in asked and "Not requested: Error Semantics" in req


# ---------------------------------------------------------------- Gate D sources

def test_gate_d_unknown_blocks_qualified_as_unverifiable(tmp_path):
    d = copy_good(tmp_path)
    (d / "spec_test_map.md").unlink()
    _set(d, coverage=None, coverage_gap=None)
    res = _judged(d)
    gd = _check(res, "gate-D")
    assert gd.status == V.UNVERIFIABLE and "no coverage source" in gd.reason
    assert res.verdict != "QUALIFIED" and gd in res.ruling.blocking


def test_coverage_from_the_task_record_is_used_and_marked(tmp_path):
    d = copy_good(tmp_path)
    (d / "spec_test_map.md").unlink()
    _set(d, coverage={"verdict": "PARTIAL_ACCEPTABLE", "uncovered_sections": [
        {"spec_section": "Non-Goals", "type": "narrative", "impact": "none"}]})
    res = _judged(d)
    gd = _check(res, "gate-D")
    assert gd.status == V.PASS and "from the task's record, not recomputed" in gd.reason
    assert fairness_notes(res)["gate-D"].startswith("from the task's record, not recomputed: "
                                                   "task.json coverage.verdict = ")
    assert fairness(res)["gate-D"] == "PARTIAL"


def test_recorded_core_gap_is_accepted_by_coverage_gap(tmp_path):
    d = copy_good(tmp_path)
    (d / "spec_test_map.md").unlink()
    _set(d, coverage={"verdict": "GAP", "uncovered_core_sections": ["Error Semantics"]})
    assert _check(_judged(d), "gate-D").status == V.FAIL
    _set(d, coverage_gap={"sections": ["Error Semantics"], "reason": REASON})
    rep = run_gates(load_task(d), "D")
    assert rep.results["D"].data["gap_accepted"] and rep.passed
    res = _judged(d)
    assert _check(res, "gate-D").status == V.PASS and res.verdict == "QUALIFIED"


# ---------------------------------------------------------------- Gate F N/A and the standard

def test_gate_f_not_applicable_is_named_with_the_standard(tmp_path):
    d = copy_good(tmp_path)
    (d / "gavel-task.toml").write_text('[spec]\nstandard = "2026-07-13b"\n', "utf-8")
    res = _judged(d)
    gf = _check(res, "gate-F")
    assert gf.status == V.NA and "2026-07-13b" in gf.reason and "no phrasing" in gf.reason
    assert not gf.blocks
    said = " ".join(res.reasons)
    assert "judged under spec standard 2026-07-13b" in said
    assert "predates the current standard" in said
    if res.verdict == "QUALIFIED":
        assert "gate-F N/A" in res.reasons[0]
    assert fairness(res)["gate-F"] == "N/A" and "not a failure" in fairness_notes(res)["gate-F"]


def test_current_standard_is_stated_too(tmp_path):
    res = _judged(copy_good(tmp_path))
    assert res.verdict == "QUALIFIED"
    assert any(r.startswith("judged under spec standard 2026-07-23") for r in res.reasons)
    assert not any("predates" in r for r in res.reasons)


def test_only_gate_f_may_be_not_applicable():
    with pytest.raises(ValueError):
        V.Check("gate-D", V.NA, "x")
    ok = [V.Check(n, V.PASS) for n in V.REQUIRED if n != "gate-F"]
    d = V.decide([*ok, V.Check("gate-F", V.NA, "written to standard 2026-07-13b")])
    assert d.verdict == "QUALIFIED" and "gate-F N/A: written to standard 2026-07-13b" in d.reasons[0]
    # a record that claims N/A for another check is not a pass
    rec = {"checks": [c.to_dict() for c in ok if c.name != "gate-D"]
           + [{"name": "gate-D", "status": "N/A"}, {"name": "gate-F", "status": "N/A"}]}
    assert V.decide(V.checks_from_record(rec)).verdict != "QUALIFIED"
