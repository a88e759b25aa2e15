"""Issue 26 item 10: root causes a paper can cite.

Failures are clustered by what failed (entry point, exception type and trigger), the
spec section describes a cluster but does not split it, the behaviour is described
from the section and the assertion, and true-gap dependencies come from what the
integration test calls. The cases imitate the recorded runs of Bmk-dev beta (tox,
copier, dvc): pytest-json-report cases with the test source in `longrepr`.
"""

from __future__ import annotations

from gavelkit.task.formats.load import load_task
from gavelkit.task.judging.metrics import compute
from gavelkit.task.judging.rootcause import cli_entry, module_names
from task_helpers import GOOD

A = "oracle/test_atomic.py::"
I = "oracle/test_integration.py::"  # noqa: E741


def _tox_case(name: str, sub: str, expect: str, layer: str = "integration") -> dict:
    lr = (f"    def {name}(tmp_path):\n        write(tmp_path, 'tox.ini', INI)\n"
          f"        result = run_tox(tmp_path, \"{sub}\")\n\n"
          f"        assert result.returncode == 0, result.stdout + result.stderr\n"
          f">       assert \"{expect}\" in result.stdout\n"
          f"E       AssertionError: assert '{expect}' in 'x: OK'\n"
          f"E        +  where 'x: OK' = CompletedProcess(args=['/venv/bin/python', '-m', 'tox', "
          f"'--colored', 'no', '{sub}'], returncode=0, stdout='x: OK', stderr='').stdout\n\n"
          f"filter/generated_tests.py:87: AssertionError")
    return {"nodeid": I + name, "layer": layer, "outcome": "failed",
            "call": {"outcome": "failed", "longrepr": lr,
                     "crash": {"message": f"AssertionError: assert '{expect}' in 'x: OK'"}}}


def _score(cases: list[dict]) -> dict:
    return {"cases": cases, "gavel": {"package": "tox"}}


def test_one_entry_point_across_sections_is_one_root():
    task = load_task(GOOD)
    cases = [_tox_case("test_round_trip", "list", "a -> b"),
             _tox_case("test_workflow_with_fixture", "list", "c -> d", "system_e2e"),
             _tox_case("test_internal_repr", "config", "e = f")]
    m = compute(task, _score(cases))
    roots = {c.entry: len(c.tests) for c in m.clusters}
    assert roots == {"tox list": 2, "tox config": 1}
    top = m.clusters[0]
    assert top.exception == "AssertionError" and top.trigger == "assertion"
    # described from the spec section and the assertion, not pytest's exception repr
    assert top.signature.startswith("`tox list` (Cross-View Invariants): assert \"a -> b\" in")
    assert "CompletedProcess" not in top.signature


def test_different_exception_is_another_root():
    # near miss: the same entry point failing with a raised JSONDecodeError is its own root
    task = load_task(GOOD)
    bad = _tox_case("test_internal_repr", "list", "e = f")
    bad["call"]["longrepr"] = bad["call"]["longrepr"].replace(
        "E       AssertionError:", "E       json.decoder.JSONDecodeError: Expecting value\nE       ")
    m = compute(task, _score([_tox_case("test_round_trip", "list", "a -> b"), bad]))
    assert sorted((c.entry, c.exception) for c in m.clusters) == [
        ("tox list", "AssertionError"), ("tox list", "JSONDecodeError")]


def test_missing_cli_module_is_one_cascade_root():
    """copier: every `python -m copier` test fails with `No module named copier.__main__`."""
    task = load_task(GOOD)
    msg = "AssertionError: /venv/bin/python: No module named copier.__main__"
    cases = [{"nodeid": I + n, "layer": "system_e2e", "outcome": "failed",
              "call": {"outcome": "failed", "crash": {"message": msg},
                       "longrepr": f">       assert r.returncode == 0\nE       {msg}"}}
             for n in ("test_round_trip", "test_workflow_with_fixture", "test_internal_repr")]
    m = compute(task, _score(cases))
    assert [(c.signature, len(c.tests)) for c in m.clusters] == [
        ("missing module copier.__main__", 3)]


def test_cli_entry_reads_the_helper_call_or_the_argv():
    lines = ['        result = run_dvc(root, "repro", "--no-commit")',
             ">       assert result.returncode == 0"]
    assert cli_entry("", lines, 1, "dvc") == "dvc repro"
    argv = "CompletedProcess(args=['/v/bin/python', '-m', 'tox', '--colored', 'no', 'depends'"
    assert cli_entry(argv, [">       assert out"], 0, "tox") == "tox depends"
    # a public API call with literals is not a CLI runner of another program
    assert cli_entry("", ['>       assert run_copy("src", "dst") is None'], 0, "copier") == ""


def test_module_names_are_the_package_imports():
    public, helpers = module_names(["from tally import Tally, parse\ndef _h():\n  pass\n"], "tally")
    assert public == {"Tally", "parse"} and helpers == {"_h"}


def _fail(nodeid: str, layer: str, call_line: str) -> dict:
    return {"nodeid": nodeid, "layer": layer, "outcome": "failed",
            "call": {"outcome": "failed", "crash": {"message": "AssertionError: assert 1 == 2"},
                     "longrepr": f">       {call_line}\nE       AssertionError: assert 1 == 2"}}


def _passed(nodeid: str, layer: str = "atomic") -> dict:
    return {"nodeid": nodeid, "layer": layer, "outcome": "passed"}


def test_true_gap_dependencies_come_from_what_the_test_calls(tmp_path):
    """test_round_trip calls parse and render; all atomic tests of parse/render pass."""
    task = load_task(GOOD)
    cases = [_passed(A + "test_parse_counts_strokes[a]"), _passed(A + "test_render_digits"),
             _passed(A + "test_parse_rejects_letters"), _passed(A + "test_tally_total_is_fixed"),
             _fail(I + "test_round_trip", "integration", "assert render(parse(t)) == '5'")]
    m = compute(task, {"cases": cases, "gavel": {"package": "tally"}})
    ev = m.true_gap_events
    assert len(ev) == 1 and ev[0]["basis"].startswith("calls: ")
    assert "parse" in ev[0]["basis"] and "render" in ev[0]["basis"]
    assert A + "test_render_digits" in ev[0]["depended_atomic_tests"]


def test_a_failing_primitive_it_calls_is_cascade_not_composition():
    # near miss: the atomic test of render fails, so the integration failure is no gap event
    task = load_task(GOOD)
    cases = [_passed(A + "test_parse_counts_strokes[a]"),
             _fail(A + "test_render_digits", "atomic", "assert render(parse('||||')) == '4'"),
             _fail(I + "test_round_trip", "integration", "assert render(parse(t)) == '5'")]
    m = compute(task, {"cases": cases, "gavel": {"package": "tally"}})
    assert m.true_gap_events == []
