"""Failure classification, gap metrics, true gap events, cascades, saturation, labels (no runs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gavelkit.task.formats.load import load_task
from gavelkit.task.judgedata import table
from gavelkit.task.judging.metrics import compute, integration_gap, layer_rates, root_signature
from gavelkit.task.scoring.classify import Context, classify_text
from judge_helpers import make_task


@pytest.fixture
def ctx() -> Context:
    return Context("tally", {"pytest", "requests", "pyyaml"}, {"parse", "render", "Tally"},
                   list(table("failure_classes")["rule"]))


@pytest.mark.parametrize("outcome,phase,text,klass,rule", [
    ("collection_error", "collect", "ModuleNotFoundError: No module named 'requests'",
     "environment", "missing-requirement"),
    ("collection_error", "collect", "ModuleNotFoundError: No module named 'yaml'",
     "environment", "missing-requirement"),
    ("collection_error", "collect", "ModuleNotFoundError: No module named 'tally'",
     "environment", "missing-target"),
    ("collection_error", "collect", "ImportError: cannot import name '_internal' from 'tally'",
     "verifier", "private-name"),
    ("collection_error", "collect", "ModuleNotFoundError: No module named 'tally._impl'",
     "verifier", "private-name"),
    ("collection_error", "collect", "ImportError: cannot import name 'render' from 'tally'",
     "candidate", "public-name"),
    ("failed", "call", "AttributeError: module 'tally' has no attribute 'parse'",
     "candidate", "public-name"),
    ("collection_error", "collect", "ModuleNotFoundError: No module named 'numpy'",
     "candidate", "undeclared-dependency"),
    ("error", "collect", "pytest: error: unrecognized arguments: --timeout=5",
     "environment", "plugin-missing"),
    ("failed", "call", "async def functions are not natively supported.",
     "environment", "async-plugin"),
    ("error", "setup", "fixture 'mocker' not found", "environment", "fixture-plugin"),
    ("error", "setup", "fixture 'sample_db' not found", "verifier", "fixture-oracle"),
    ("failed", "call", "MemoryError", "infrastructure", "killed"),
    ("not_collected", "process", "the test process ended (exit -9)", "infrastructure", "killed"),
    ("failed", "call", "OSError: [Errno 30] Read-only file system: '/etc/x'",
     "environment", "read-only-fs"),
    ("failed", "call", "socket.gaierror: [Errno -3] Temporary failure in name resolution",
     "candidate", "network"),
    ("timeout", "call", "GavelTimeout: test exceeded", "candidate", "timeout"),
    ("not_collected", "collect", "node id not collected", "verifier", "not-collected"),
    ("failed", "call", "AssertionError: assert '5' == '4'", "candidate", "assertion"),
    ("failed", "call", "ZeroDivisionError: division by zero", "candidate", "exception"),
])
def test_decision_table(ctx: Context, outcome: str, phase: str, text: str, klass: str,
                        rule: str) -> None:
    got = classify_text(outcome, phase, text, ctx)
    assert (got["class"], got["rule"]) == (klass, rule), got
    assert got["signal"]


def _case(nid: str, layer: str, counted: str, msg: str = "", outcome: str | None = None,
          klass: str = "candidate", longrepr: str = "") -> dict:
    c = {"nodeid": nid, "base_nodeid": nid.split("[")[0], "layer": layer, "file": nid.split("::")[0],
         "outcome": outcome or counted, "counted_as": counted,
         "call": {"crash": {"path": "x.py", "lineno": 3, "message": msg} if msg else None,
                  "longrepr": longrepr or msg}}
    if counted not in ("passed", "skipped"):
        c["classification"] = {"class": klass, "rule": "x", "signal": "s"}
    return c


def _task(tmp: Path, depends: bool = False):  # type: ignore[no-untyped-def]
    task = make_task(tmp)
    if depends:
        tax = task / "taxonomy.jsonl"
        lines = [json.loads(x) for x in tax.read_text().splitlines() if x.strip()]
        for e in lines:
            if e.get("taxonomy_key") == "test_integration.test_round_trip":
                e["depends_on"] = ["test_atomic.test_render_digits"]
        tax.write_text("\n".join(json.dumps(e) for e in lines) + "\n")
    return load_task(task)


A = "oracle/test_atomic.py::"
INT = "oracle/test_integration.py::"


def test_rates_and_gap() -> None:
    cases = [_case(A + "a", "atomic", "passed"), _case(A + "b", "atomic", "failed", "x"),
             _case(INT + "c", "integration", "failed", "x"),
             _case(INT + "d", "system_e2e", "passed"), _case(A + "s", "atomic", "skipped")]
    rates = layer_rates(cases)
    assert rates["atomic"] == {"passed": 1, "total": 2, "rate": 0.5}
    gap = integration_gap(rates)
    assert gap == {"atomic_rate": 0.5, "integration_e2e_rate": 0.5, "rate_gap": 0.0}


def test_true_gap_event_from_section_overlap_and_depends_on(tmp_path: Path) -> None:
    task = _task(tmp_path)
    cases = [_case(A + "test_render_digits", "atomic", "passed"),
             _case(A + "test_parse_rejects_letters", "atomic", "passed"),
             _case(INT + "test_round_trip", "integration", "failed",
                   "AssertionError: assert '5' == '4'")]
    m = compute(task, {"cases": cases, "pass_rate_excluding_skips": 2 / 3})
    # Cross-View Invariants has no atomic test in this map: no basis, no event
    assert m.true_gap_events == []
    task2 = _task(tmp_path / "d", depends=True)
    m2 = compute(task2, {"cases": cases, "pass_rate_excluding_skips": 2 / 3})
    assert [e["failed_test"] for e in m2.true_gap_events] == [INT + "test_round_trip"]
    ev = m2.true_gap_events[0]
    assert ev["all_depended_pass"] and ev["basis"] == "depends_on"
    assert ev["depended_atomic_tests"] == [A + "test_render_digits"]
    cases[0] = _case(A + "test_render_digits", "atomic", "failed", "AssertionError")
    assert compute(task2, {"cases": cases}).true_gap_events == []


def test_cascade_groups_failures_under_one_missing_name(tmp_path: Path) -> None:
    task = _task(tmp_path)
    msg = "ImportError: cannot import name 'render' from 'tally'"
    cases = [_case(A + f"t{i}", "atomic", "collection_error", msg) for i in range(40)]
    cases += [_case(A + "u", "atomic", "failed", "AssertionError: assert 1 == 2"),
              _case(INT + "w", "integration", "failed", "ZeroDivisionError",
                    longrepr="x\nsolution/tally/core.py:12: in render\nE   ZeroDivisionError\n"
                             "solution/tally/core.py:12: ZeroDivisionError")]
    m = compute(task, {"cases": cases, "gavel": {"package": "tally"}})
    top = m.clusters[0]
    assert top.signature == "missing name render" and len(top.tests) == 40
    assert top.dimension == "api-surface"
    d = m.to_dict()["cascade"]
    assert d == {"failures": 42, "root_causes": 3, "cascaded": 39}
    assert any(c.signature.startswith("ZeroDivisionError in tally/core.py:12") for c in m.clusters)
    assert "cascade-dominated" in [lab["label"] for lab in m.labels]
    # a missing primitive explains integration failures: not composition evidence
    assert m.true_gap_events == []


def test_root_signature_forms() -> None:
    c = _case(A + "t[1]", "atomic", "failed", "AssertionError: assert 0x7f == 1")
    assert root_signature(c, "tally") == "AssertionError in oracle/test_atomic.py::t"
    c2 = _case(A + "t", "atomic", "collection_error", "boom", outcome="collection_error")
    assert root_signature(c2, "tally") == "collection error in oracle/test_atomic.py"


def test_negative_gap_diagnostic(tmp_path: Path) -> None:
    task = _task(tmp_path)
    cases = [_case(A + "test_render_digits", "atomic", "collection_error",
                   "ImportError: cannot import name 'helper' from 'tally'"),
             _case(A + "test_parse_rejects_letters", "atomic", "failed", "AssertionError"),
             _case(A + "test_tally_total_is_fixed", "atomic", "passed"),
             _case(INT + "test_round_trip", "integration", "passed"),
             _case(INT + "test_workflow_with_fixture", "system_e2e", "passed")]
    m = compute(task, {"cases": cases})
    neg = m.negative_gap
    assert neg["applies"] and neg["atomic_import_failures"] == [A + "test_render_digits"]
    assert neg["atomic_assertion_failures"] == [A + "test_parse_rejects_letters"]
    assert neg["route"] == "S3_ORACLE_MERGE" and len(neg["diagnosis"]) == 2
    assert not compute(task, {"cases": cases[2:]}).negative_gap["applies"]


def test_saturation_heuristic(tmp_path: Path) -> None:
    task_dir = make_task(tmp_path)
    data = json.loads((task_dir / "task.json").read_text("utf-8-sig"))
    data["source_meta"] = {"files": 24}
    (task_dir / "task.json").write_text(json.dumps(data))
    sol = tmp_path / "sol" / "tally"
    sol.mkdir(parents=True)
    for n in ("__init__.py", "core.py"):
        (sol / n).write_text("x = 1\n")
    cases = [_case(A + "a", "atomic", "passed")]
    m = compute(load_task(task_dir), {"cases": cases, "pass_rate_excluding_skips": 1.0},
                solution_dir=tmp_path / "sol")
    assert m.saturation["applies"] and m.saturation["candidate_files"] == 2
    labels = [lab["label"] for lab in m.labels]
    assert labels[:2] == ["saturated-candidate-score", "trivially-solved"]
    m2 = compute(load_task(task_dir), {"cases": cases, "pass_rate_excluding_skips": 0.5},
                 solution_dir=tmp_path / "sol")
    assert not m2.saturation["applies"] and "below 100" in m2.saturation["reason"]


@pytest.mark.parametrize(("copy", "rate", "applies", "said"), [
    ({"share": 0.8, "lines": 80, "total": 100}, 1.0, True, "80% of the candidate's code"),
    ({"share": 0.3, "lines": 3, "total": 10}, 1.0, True, "CHT-C001"),
    ({"share": 0.29, "lines": 29, "total": 100}, 1.0, False, "neither route applies"),
    ({"share": 0.8, "lines": 80, "total": 100}, 0.9, False, "below 100"),
    ({"share": 0.0, "lines": 0, "total": 0}, 1.0, False, "file counts unknown"),
    ({}, 1.0, False, "file counts unknown"),
])
def test_saturation_copy_share_route(tmp_path: Path, copy: dict[str, Any], rate: float,
                                     applies: bool, said: str) -> None:
    """The anti-cheat scan's copy share (CHT-C001) is saturation's second route: it
    applies at 100 % from min_copy_share on, even where the file counts are unknown."""
    task = load_task(make_task(tmp_path))
    cases = [_case(A + "a", "atomic", "passed")]
    m = compute(task, {"cases": cases, "pass_rate_excluding_skips": rate}, copy=copy)
    assert m.saturation["applies"] is applies
    assert said in m.saturation["reason"]
    assert ("trivially-solved" in [lab["label"] for lab in m.labels]) is applies


def test_environment_failures_are_kept_apart(tmp_path: Path) -> None:
    task = _task(tmp_path)
    cases = [_case(A + "a", "atomic", "collection_error",
                   "ModuleNotFoundError: No module named 'requests'", klass="environment"),
             _case(A + "b", "atomic", "passed")]
    m = compute(task, {"cases": cases, "pass_rate_excluding_skips": 0.5})
    assert m.classes == {"environment": 1}
    assert m.root_failures == 0
    assert "environment-noise" in [lab["label"] for lab in m.labels]


def test_task_table_override(tmp_path: Path) -> None:
    from gavelkit.task.judgedata import for_task

    (tmp_path / "gavel-judge.toml").write_text("[labels.saturation]\nmax_file_ratio = 0.9\n")
    assert for_task("labels", tmp_path)["saturation"]["max_file_ratio"] == 0.9
    assert for_task("labels", tmp_path)["saturation"]["min_upstream_files"] == 6


def test_public_harness_score_files_from_the_corpus(tmp_path: Path) -> None:
    """Score files of the public harness (no counted_as, no gavel section) judge cleanly."""
    import shutil

    from gavelkit.task.judging.judge import judge_run
    from task_helpers import need_corpus

    src = next((p for p in need_corpus() if (p / "evidence" / "candidate_score.json").is_file()),
               None)
    if src is None:
        pytest.skip("no corpus task with evidence/candidate_score.json")
    task = tmp_path / src.name
    shutil.copytree(src, task)
    score_file = task / "evidence" / "candidate_score.json"
    data = json.loads(score_file.read_text("utf-8-sig"))
    refused = judge_run(task, score_file, move_state=False)
    assert str(refused.verdict) == "REFUSED"  # no PIPELINE_STATE.md: no entry (issue 26 item 3)
    from gavelkit.task.pipeline.state import init_state

    init_state(task, date="2026-12-01", adopt=True)  # the documented way in for a legacy task
    p = task / "PIPELINE_STATE.md"
    import re

    p.write_text(re.sub(r"^state:( +)\w+", r"state:\1S5_JUDGE", p.read_text("utf-8"), count=1,
                        flags=re.M), "utf-8")
    res = judge_run(task, score_file, move_state=False)
    assert res.verdict == "BROKEN"  # the original solution folder is not on this machine
    # no preflight: the judge must not use the score (issue 16), but it parses
    assert not res.scores_usable and res.metrics is None
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.judging.metrics import compute

    m = compute(load_task(task), data, None)
    for layer, counts in data["by_layer"].items():
        assert m.layers[layer]["passed"] == counts.get("passed", 0)
        assert m.layers[layer]["total"] == counts["total"]
    assert res.reference_rate == 1.0
    assert (task / "judge" / "diagnosis_report.md").is_file()
