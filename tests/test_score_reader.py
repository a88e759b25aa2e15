"""The one score reader (issue 26 item 8, issue 23 item 2): every common scorer format into one
type, the rate always recomputed, and what could not be derived said, never guessed.

tests/data/scores/ holds one real run of tests/data/scores/test_demo.py.txt (pytest 9.2,
pytest-json-report 1.5.0), written by both reporters: the two formats must read the same.
The Bmk-dev shapes below are cut down from the recorded runs of E2E-Bmk/Bmk-dev (branch
beta: dvc, alembic, vcrpy; benchmarks/gates/extract_bmk_dev.py fetches them whole).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gavelkit.core.errors import InputError
from gavelkit.task.formats.score import find_score_file, load_score, read_score, score_from_dict
from gavelkit.task.judging.runmeta import read_run_meta

from gk_testing import clean, fires

DATA = Path(__file__).parent / "data" / "scores"
DEMO_IDS = ["tests/test_demo.py::test_ok", "tests/test_demo.py::test_param[1]",
            "tests/test_demo.py::test_param[2]", "tests/test_demo.py::test_setup_error",
            "tests/test_demo.py::test_xfail", "tests/test_demo.py::test_skip",
            "tests/test_demo.py::TestGroup::test_in_class"]


def _case(nid: str, outcome: str, **kw: object) -> dict[str, object]:
    return {"nodeid": nid, "outcome": outcome, **kw}


# ---------------------------------------------------------------- one run, two reporters

@pytest.mark.parametrize("name,fmt", [("pytest-json-report.json", "pytest-json-report"),
                                      ("junit.xml", "junit-xml")])
def test_real_reports_of_one_run_read_the_same(name: str, fmt: str) -> None:
    sr = load_score(DATA / name)
    assert sr.format == fmt and sr.problem() is None, sr.gaps
    # xfail counts as passed, the skip leaves the denominator: 4 of 6
    assert (sr.passed, sr.total, sr.counts["failed"], sr.counts["error"],
            sr.counts["skipped"]) == (4, 7, 1, 1, 1)
    assert sr.pass_rate == pytest.approx(4 / 6)
    assert [c.nodeid for c in sr.cases] == DEMO_IDS
    # the setup error's crash is where metrics look for it (the failing phase as `call`)
    err = next(c for c in sr.raw["cases"] if c["nodeid"].endswith("test_setup_error"))
    assert "fixture could not start" in err["call"]["crash"]["message"]


def test_pytest_json_report_summary_omitting_zero_counts() -> None:
    data = json.loads((DATA / "pytest-json-report.json").read_text())
    data["tests"] = [t for t in data["tests"] if t["outcome"] == "passed"]
    data["summary"] = {"passed": 3, "total": 3, "collected": 3}  # failed/error: 0, omitted
    sr, fnd = score_from_dict(data, "r.json")
    assert sr.problem() is None and sr.pass_rate == 1.0 and sr.counts["failed"] == 0
    assert any("omits zero counts" in n for n in sr.notes)
    clean(fnd, "TSK-R006")  # what was derived is said where the score is used (the judge)


# ---------------------------------------------------------------- Bmk-dev harness shapes

def test_harness_summary_with_only_the_nonzero_count() -> None:
    """dvc's recorded run: {"error": 43, "total": 43}, crashes in `setup`."""
    setup = {"outcome": "failed", "crash": {"message": "AssertionError: repro failed"}}
    cases = [_case(f"filter/generated_tests.py::test_{i}", "error", setup=setup,
                   layer="integration") for i in range(3)]
    sr, _ = score_from_dict({"summary": {"error": 3, "total": 3}, "pass_rate": 0.0,
                             "cases": cases}, "dvc.json")
    assert sr.format == "harness" and sr.problem() is None
    assert (sr.passed, sr.total, sr.pass_rate) == (0, 3, 0.0)
    assert sr.raw["cases"][0]["call"]["crash"]["message"] == "AssertionError: repro failed"
    assert sr.raw["cases"][0]["call"]["phase"] == "setup"


def test_subtests_outcomes_count_as_their_result() -> None:
    """pycparser's recorded runs (pytest-subtests): "subtests passed" is a pass."""
    cases = [_case("t.py::a", "passed"), _case("t.py::b", "subtests passed")]
    sr, _ = score_from_dict({"summary": {"passed": 2, "total": 2}, "cases": cases}, "s.json")
    assert sr.problem() is None and sr.pass_rate == 1.0


def test_counts_that_do_not_add_up_are_not_a_measurement() -> None:
    # near miss of the above: one count missing from a summary with no test records
    sr, fnd = score_from_dict({"summary": {"error": 2, "total": 3}}, "x.json")
    assert sr.problem() and "add up to 2" in sr.problem()
    assert any(f.severity == "warning" for f in fnd if f.code == "TSK-R006")


def test_no_summary_counts_are_derived_from_the_records() -> None:
    cases = [_case("t.py::a", "passed"), _case("t.py::b", "failed"), _case("t.py::c", "skipped")]
    sr, _ = score_from_dict({"cases": cases}, "s.json")
    assert sr.problem() is None and (sr.passed, sr.total, sr.pass_rate) == (1, 3, 0.5)
    assert any("derived from its 3 test records" in n for n in sr.notes)


def test_summary_that_contradicts_its_records_is_not_used() -> None:
    cases = [_case("t.py::a", "passed"), _case("t.py::b", "failed")]
    sr, _ = score_from_dict({"summary": {"passed": 2, "total": 2}, "cases": cases}, "s.json")
    assert sr.problem() and "disagrees with its own test records" in sr.problem()


def test_counts_only_file_picks_the_role_and_says_what_is_missing() -> None:
    """alembic's recorded run: reference and candidate counts, the failures alone."""
    data = {"reference": {"passed": 30, "failed": 0, "total": 30, "pass_rate": 1.0},
            "candidate": {"passed": 29, "failed": 1, "total": 30, "pass_rate": 0.9666666667},
            "failures": [{"nodeid": "filter/t.py::test_x", "layer": "integration",
                          "message": "ResolutionError"}]}
    cand, _ = score_from_dict(data, "a.json")
    ref, _ = score_from_dict(data, "a.json", role="reference")
    assert (cand.passed, cand.total) == (29, 30) and (ref.passed, ref.total) == (30, 30)
    assert [c.nodeid for c in cand.cases] == ["filter/t.py::test_x"] and not ref.cases
    assert "recorded for its 1 failure(s) only" in cand.problem()
    assert ref.problem() == "no per-test outcomes (counts only)"


def test_percentage_rate_and_flat_counts() -> None:
    sr, fnd = score_from_dict({"total": 43, "passed": 43, "failed": 0, "errors": 0,
                               "pass_rate": 100.0}, "ref.json")
    assert sr.pass_rate == sr.stated_rate == 1.0
    assert not [f for f in fnd if f.code == "TSK-R006" and f.severity == "error"]


# ---------------------------------------------------------------- the rate is recomputed

def test_a_stated_rate_the_counts_do_not_give_is_refused() -> None:
    cases = [_case(f"t.py::t{i}", "passed" if i < 2 else "failed") for i in range(4)]
    base = {"summary": {"passed": 2, "failed": 2, "total": 4}, "cases": cases,
            "gavel": {"schema": 1}}
    honest, _ = score_from_dict({**base, "pass_rate_excluding_skips": 0.5}, "s.json")
    forged, fnd = score_from_dict({**base, "pass_rate_excluding_skips": 0.99}, "s.json")
    assert honest.problem() is None and forged.pass_rate == 0.5
    assert "disagrees with its own counts" in forged.problem()
    assert fires(fnd, "TSK-R006").severity == "warning"


def test_a_rounded_stated_rate_is_its_counts_rate() -> None:
    """0.6667 for 4/6 is the counts' rate rounded as written (it was called a mismatch:
    'stated 0.6667 differs from counts (0.6667)'); 0.6665 (near miss) is not its rounding."""
    cases = [_case(f"t.py::t{i}", "passed" if i < 4 else "failed") for i in range(6)]
    base = {"summary": {"passed": 4, "failed": 2, "total": 6}, "cases": cases,
            "gavel": {"schema": 1}}
    rounded, fnd = score_from_dict({**base, "pass_rate_excluding_skips": 0.6667}, "s.json")
    assert rounded.problem() is None and not [f for f in fnd if f.code == "TSK-R006"]
    off, fnd = score_from_dict({**base, "pass_rate_excluding_skips": 0.6665}, "s.json")
    assert "stated pass rate 0.6665 disagrees" in off.problem()
    assert "4/6 = 0.666667" in fires(fnd, "TSK-R006").message


def test_gavels_own_file_is_read_strictly() -> None:
    """A gavel score without its summary is damaged, even with every case present: it is
    never silently re-derived (the foreign formats are)."""
    cases = [_case("t.py::a", "passed", counted_as="passed")]
    sr, _ = score_from_dict({"cases": cases, "pass_rate_excluding_skips": 1.0,
                             "gavel": {"schema": 1}}, "s.json")
    assert sr.format == "gavel" and sr.problem() == "no 'summary' object"
    ok, _ = score_from_dict({"cases": cases, "pass_rate_excluding_skips": 1.0,
                             "summary": {"passed": 1, "total": 1}, "gavel": {}}, "s.json")
    assert ok.problem() is None


# ---------------------------------------------------------------- XML: refuse what can hurt

def test_junit_with_entities_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "junit.xml"
    p.write_text('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]>'
                 '<testsuite tests="1"><testcase name="t" classname="m">&a;</testcase>'
                 '</testsuite>')
    with pytest.raises(InputError, match="DOCTYPE"):
        load_score(p)
    sr, fnd = read_score(p)
    assert sr is None and fires(fnd, "TSK-R006")


def test_broken_junit_names_its_place(tmp_path: Path) -> None:
    p = tmp_path / "junit.xml"
    p.write_text('<testsuite tests="1">\n<testcase name="t"\n</testsuite>')
    with pytest.raises(InputError) as exc:
        load_score(p)
    assert exc.value.line >= 2


def test_junit_counts_disagreeing_with_its_suite_is_a_gap(tmp_path: Path) -> None:
    p = tmp_path / "junit.xml"
    p.write_text('<testsuite tests="2"><testcase name="test_a" classname="tests.test_m"/>'
                 '</testsuite>')
    sr = load_score(p)
    assert sr.cases[0].nodeid == "tests/test_m.py::test_a"
    assert sr.problem() and "count 2" in sr.problem()


# ---------------------------------------------------------------- run folders and paths

def test_run_folder_with_another_scorers_file_name(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run_meta.json").write_text("{}")
    (run / "notes.json").write_text("{}")
    assert find_score_file(run) == run / "score_result.json"  # none: reported as missing
    (run / "candidate_score_report_v5.json").write_text("{}")
    assert find_score_file(run) == run / "candidate_score_report_v5.json"
    (run / "reference_score_filter_v5.json").write_text("{}")
    assert find_score_file(run).name == "candidate_score_report_v5.json"  # the role decides
    assert find_score_file(run, "reference").name == "reference_score_filter_v5.json"
    (run / "junit.xml").write_text("<testsuite/>")
    assert find_score_file(run).name == "candidate_score_report_v5.json"
    (run / "candidate_score_report_v5.json").unlink()
    (run / "reference_score_filter_v5.json").unlink()
    (run / "results.json").write_text("{}")
    with pytest.raises(InputError, match="several result files"):  # never a guess
        find_score_file(run)
    (run / "score_result.json").write_text("{}")
    assert find_score_file(run).name == "score_result.json"


def test_windows_paths_in_a_recorded_run_are_not_joined_onto_the_run_folder(tmp_path: Path) -> None:
    run = tmp_path / "run"
    (run / "solution").mkdir(parents=True)
    score = run / "score_result.json"
    score.write_text(json.dumps({"solution_dir": "G:\\research\\candidate-runs\\x\\solution"}))
    meta = read_run_meta(score)
    assert meta.solution_dir is None and meta.foreign_paths == (
        "G:\\research\\candidate-runs\\x\\solution",)
    # near miss: a relative POSIX path is the run folder's own
    score.write_text(json.dumps({"solution_dir": "solution"}))
    meta = read_run_meta(score)
    assert meta.solution_dir == str((run / "solution").resolve()) and not meta.foreign_paths


def test_a_consistent_gavel_file_has_no_reading_findings() -> None:
    cases = [_case("t.py::a", "passed")]
    _, fnd = score_from_dict({"summary": {"passed": 1, "failed": 0, "total": 1}, "cases": cases,
                              "pass_rate_excluding_skips": 1.0, "gavel": {}}, "s.json")
    clean(fnd, "TSK-R006")
