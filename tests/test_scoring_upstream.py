"""Upstream-test oracles (issue 26 items 5-7): base ids expand as pytest expands them,
fixture folders beside the tests are copied, the sandbox has writable temporary and
working folders, and a missing oracle file is named as such."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from gavelkit.task.scoring.options import RunOptions
from gavelkit.task.scoring.runner import run_solution
from judge_helpers import REFERENCE, make_task, solution

from gk_testing import clean, fires


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), "utf-8")


def upstream_task(tmp: Path, test_body: str, kept: list[str],
                  extra: dict[str, str] | None = None) -> Path:
    """A task whose tests live in `tests/` (as an upstream repository keeps them)."""
    task = make_task(tmp, "upstream")
    _write(task / "tests" / "test_up.py", test_body)
    for rel, text in (extra or {}).items():
        _write(task / rel, text)
    (task / "kept_nodeids.txt").write_text("\n".join(kept) + "\n", "utf-8")
    data = json.loads((task / "task.json").read_text("utf-8-sig"))
    data["oracle"]["test_files"] = ["tests/test_up.py"]
    data["taxonomy"] = {k: "atomic" for k in kept}
    (task / "task.json").write_text(json.dumps(data), "utf-8")
    return task


def score(tmp: Path, task: Path, role: str = "reference", **kw):  # type: ignore[no-untyped-def]
    sol = solution(tmp, f"sol-{role}", {"tally/__init__.py": REFERENCE})
    return run_solution(task, RunOptions(solution=sol, out=tmp / f"out-{role}", package="tally",
                                         role=role, **kw))


PARAM = """
import pytest
from tally import parse

@pytest.mark.parametrize("text,total", [("|", 1), ("||", 2), ("|||", 3)])
def test_counts(text, total):
    assert parse(text).total == total

def test_plain():
    assert parse("").total == 0
"""


def test_a_base_id_of_a_parametrised_test_expands_into_its_instances(tmp_path: Path) -> None:
    task = upstream_task(tmp_path, PARAM, ["tests/test_up.py::test_counts",
                                           "tests/test_up.py::test_plain"])
    res = score(tmp_path, task)
    ids = [c["nodeid"] for c in res.score["cases"]]
    assert ids == ["tests/test_up.py::test_counts[|-1]", "tests/test_up.py::test_counts[||-2]",
                   "tests/test_up.py::test_counts[|||-3]", "tests/test_up.py::test_plain"], ids
    assert res.summary["passed"] == 4 and res.summary["not_collected"] == 0
    assert {c.get("expanded_from") for c in res.score["cases"][:3]} == {
        "tests/test_up.py::test_counts"}
    clean(res.findings, "TSK-X011")


def test_a_candidate_is_scored_on_the_references_expansion(tmp_path: Path) -> None:
    """The candidate's own collection never decides which instances count: one that yields
    fewer parametrisations still answers for every instance the reference ran."""
    task = upstream_task(tmp_path, PARAM, ["tests/test_up.py::test_counts"])
    ref = score(tmp_path, task)
    assert ref.summary["passed"] == 3
    body = PARAM.replace('[("|", 1), ("||", 2), ("|||", 3)]', '[("|", 1)]')
    (task / "tests" / "test_up.py").write_text(textwrap.dedent(body), "utf-8")
    cand = score(tmp_path, task, role="candidate", reference_score=ref.path)
    assert cand.summary["total"] == 3 and cand.summary["passed"] == 1, cand.summary
    assert cand.summary["not_collected"] == 2


def test_fixture_folders_beside_the_tests_are_copied(tmp_path: Path) -> None:
    body = """
    from pathlib import Path

    def test_relative_to_the_working_folder():
        assert Path("tests/fake-repo-pre/cookiecutter.json").read_text() == "{}"

    def test_relative_to_the_file():
        assert (Path(__file__).parent / "fake-repo-pre" / "hooks" / "h.py").is_file()
    """
    task = upstream_task(tmp_path, body, ["tests/test_up.py::test_relative_to_the_working_folder",
                                          "tests/test_up.py::test_relative_to_the_file"],
                         {"tests/fake-repo-pre/cookiecutter.json": "{}",
                          "tests/fake-repo-pre/hooks/h.py": "x = 1\n"})
    res = score(tmp_path, task)
    assert res.summary["passed"] == 2, [c["call"].get("longrepr") for c in res.score["cases"]]


WRITES = """
import os, tempfile
from pathlib import Path

def test_var_tmp():
    with tempfile.NamedTemporaryFile(dir="/var/tmp") as fh:
        fh.write(b"x")

def test_tmp():
    Path("/tmp/gavel-probe").write_text("x")

def test_working_folder():
    Path("generated-project").mkdir()
    Path("generated-project/out.txt").write_text("x")

def test_home():
    Path(os.path.expanduser("~/.config")).mkdir(parents=True, exist_ok=True)
"""


def test_isolation_never_changes_an_honest_score_that_writes_temporary_files(
        tmp_path: Path) -> None:
    kept = [f"tests/test_up.py::{n}" for n in ("test_var_tmp", "test_tmp",
                                                "test_working_folder", "test_home")]
    task = upstream_task(tmp_path, WRITES, kept)
    boxed = score(tmp_path, task)
    assert boxed.summary["passed"] == 4, [c["call"].get("longrepr") for c in boxed.score["cases"]]
    plain = score(tmp_path, task, role="candidate", isolation="none")
    assert plain.summary["passed"] == 4
    clean(boxed.findings, "TSK-X008")  # outputs in the working folder are not tampering
    assert "generated-project/out.txt" in boxed.score["gavel"]["integrity"]["worktree_written"]


def test_the_private_temporary_folders_are_size_capped(tmp_path: Path) -> None:
    from gavelkit.task.scoring.sandbox import bwrap_available

    body = """
    import pytest

    @pytest.mark.parametrize("where", ["/tmp", "/var/tmp"])
    def test_fill(where):
        with open(where + "/big", "wb") as fh:
            fh.write(b"x" * (3 * 1024 * 1024))
    """
    task = upstream_task(tmp_path, body, ["tests/test_up.py::test_fill"])
    res = score(tmp_path, task, tmp_mb=2)
    if not bwrap_available()[0]:
        fires(res.findings, "TSK-X006")
        return
    assert res.summary["passed"] == 0, res.summary
    assert all("No space left" in c["call"].get("longrepr", "") for c in res.score["cases"])


def test_a_missing_oracle_file_is_named_and_blamed_on_the_oracle(tmp_path: Path) -> None:
    from gavelkit.task.judging.blame import reference_diagnosis

    task = upstream_task(tmp_path, PARAM, ["tests/test_up.py::test_plain",
                                           "tests/test_gone.py::test_x"])
    res = score(tmp_path, task)
    f = fires(res.findings, "TSK-X025")
    assert "oracle file missing: tests/test_gone.py" in f.message
    by = {c["nodeid"]: c for c in res.score["cases"]}
    assert by["tests/test_up.py::test_plain"]["counted_as"] == "passed"  # the rest still runs
    gone = by["tests/test_gone.py::test_x"]
    assert gone["classification"]["rule"] == "oracle-file-missing"
    assert gone["classification"]["class"] == "verifier"
    diag = " ".join(reference_diagnosis(res.score))
    assert "oracle file missing: tests/test_gone.py" in diag
    assert "gavel defect" not in diag and "environment" not in diag.split("->")[1]


def test_every_named_file_present_is_no_missing_file(tmp_path: Path) -> None:
    task = upstream_task(tmp_path, PARAM, ["tests/test_up.py::test_plain"])
    res = score(tmp_path, task)
    clean(res.findings, "TSK-X025")
    assert res.score["gavel"]["missing_oracle_files"] == []


CLASSES = """
from tally import parse

class TestFind:
    def test_one(self):
        assert parse("|").total == 1

    class TestNested:
        def test_two(self):
            assert parse("||").total == 2
"""


def test_a_dotted_class_method_id_is_scored_as_the_pytest_id(tmp_path: Path) -> None:
    """cookiecutter (upload branch): the map names `tests/test_hooks.py::TestFindHooks.
    test_find_hook` (the taxonomy's dotted form after the file); pytest's id is
    `TestFindHooks::test_find_hook`. Left dotted, 33 honest tests were 'not collected' and
    blamed on the task."""
    task = upstream_task(tmp_path, CLASSES, ["tests/test_up.py::TestFind.test_one",
                                             "tests/test_up.py::TestFind.TestNested.test_two"])
    res = score(tmp_path, task)
    assert [c["nodeid"] for c in res.score["cases"]] == [
        "tests/test_up.py::TestFind::test_one", "tests/test_up.py::TestFind::TestNested::test_two"]
    assert res.summary["passed"] == 2 and res.summary["not_collected"] == 0, res.summary


def test_a_dotted_name_that_is_no_class_of_the_file_is_left_as_written(tmp_path: Path) -> None:
    """Near miss: `f.py::module.func` is how pytest names a doctest item, and a dotted name
    whose first part the file does not define as a class is not rewritten."""
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.formats.scoring_ids import resolve_ids

    task = upstream_task(tmp_path, CLASSES, ["tests/test_up.py::TestFind::test_one"])
    got = resolve_ids(load_task(task), ["tests/test_up.py::test_up.helper",
                                        "tests/test_up.py::TestGone.test_one",
                                        "tests/test_up.py::TestFind.test_one[a.b]"])
    assert got == ["tests/test_up.py::test_up.helper", "tests/test_up.py::TestGone.test_one",
                   "tests/test_up.py::TestFind::test_one[a.b]"]
