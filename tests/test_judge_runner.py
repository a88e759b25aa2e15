"""The isolated runner: outcomes, denominator integrity, layouts, limits, environment cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gavelkit.task.scoring.options import RunOptions
from gavelkit.task.scoring.results import node_outcome
from gavelkit.task.scoring.runner import run_solution
from gavelkit.task.scoring.sandbox import bwrap_available
from judge_helpers import BROKEN, REFERENCE, make_task, ref_solution, solution

from gk_testing import clean, cli_json, fires


def run(task: Path, sol: Path, tmp: Path, **kw) -> object:
    kw.setdefault("package", "tally")
    return run_solution(task, RunOptions(solution=sol, out=tmp / "out", **kw))


def test_reference_scores_everything_and_records_facts(tmp_path: Path) -> None:
    task = make_task(tmp_path)
    res = run(task, ref_solution(tmp_path), tmp_path, role="reference")
    assert res.summary == {"passed": 7, "failed": 0, "error": 0, "skipped": 0, "timeout": 0,
                           "collection_error": 0, "not_collected": 0, "total": 7}
    assert res.pass_rate == 1.0
    g = res.score["gavel"]
    assert g["environment"]["kind"] == "uv" and g["environment"]["requirements_hash"]
    assert g["isolation"]["plugin_autoload"] is False
    assert g["isolation"]["active"] == bwrap_available()[0]
    assert g["integrity"]["oracle_digest_before"] == g["integrity"]["oracle_digest_after"]
    assert g["import_root_layout"] == "flat"
    data = json.loads((tmp_path / "out" / "score_result.json").read_text())
    for key in ("platform", "python_version", "timeout_seconds", "remove_paths", "source_repo",
                "solution_dir", "nodeids", "taxonomy", "run_dir", "grouped_results", "summary",
                "pass_rate_excluding_skips", "by_layer", "cases"):
        assert key in data, key
    assert data["by_layer"]["atomic"]["total"] == 5
    for code in ("TSK-X001", "TSK-X007", "TSK-X009", "TSK-X010", "TSK-X012", "TSK-X014"):
        clean(res.findings, code)


def test_failures_carry_crash_and_classification(tmp_path: Path) -> None:
    task = make_task(tmp_path)
    res = run(task, solution(tmp_path, "broken", {"tally/__init__.py": BROKEN}), tmp_path)
    failed = [c for c in res.score["cases"] if c["counted_as"] != "passed"]
    assert {c["nodeid"].split("::")[1] for c in failed} >= {"test_parse_rejects_letters",
                                                            "test_render_digits"}
    c = next(c for c in failed if "render_digits" in c["nodeid"])
    assert c["call"]["crash"]["lineno"] > 0 and "AssertionError" in c["call"]["crash"]["message"]
    assert c["classification"]["class"] == "candidate" and c["classification"]["signal"]
    assert res.score["gavel"]["classification"]["candidate"] == len(failed)


def test_one_process_for_all_files_gives_the_same_outcomes(tmp_path: Path) -> None:
    task = make_task(tmp_path)
    sol = solution(tmp_path, "broken", {"tally/__init__.py": BROKEN})
    per_file = run(task, sol, tmp_path / "a")
    grouped = run(task, sol, tmp_path / "b", group="run")
    assert [(c["nodeid"], c["outcome"]) for c in per_file.score["cases"]] == \
        [(c["nodeid"], c["outcome"]) for c in grouped.score["cases"]]
    assert len(grouped.score["grouped_results"]) == 2


def test_isolation_status_is_stated(tmp_path: Path) -> None:
    task = make_task(tmp_path, atomic_only=True)
    res = run(task, ref_solution(tmp_path), tmp_path, isolation="none")
    f = fires(res.findings, "TSK-X006")
    assert "ISOLATION INACTIVE" in f.message
    assert res.score["gavel"]["isolation"]["network"] == "NOT blocked"
    if bwrap_available()[0]:
        res2 = run(task, ref_solution(tmp_path, "r2"), tmp_path / "b")
        clean(res2.findings, "TSK-X006")
        assert res2.score["gavel"]["isolation"]["mechanism"] == "bubblewrap"


FAKE_BWRAP = """#!/bin/sh
# stands in for bubblewrap: logs the call, drops its options, runs the command in --chdir
echo "$@" >> "$0.log"
dir=.
while [ "$#" -gt 0 ]; do
  case "$1" in
    --) shift; break ;;
    --chdir) dir="$2"; shift 2 ;;
    --unshare-all|--die-with-parent|--new-session) shift ;;
    --tmpfs|--dev|--proc) shift 2 ;;
    *) shift 3 ;;
  esac
done
cd "$dir" && exec "$@"
"""


def test_isolation_active_is_stated_without_bubblewrap(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The clean side of TSK-X006 on any machine: the probe is faked to say bubblewrap
    works and a stand-in wrapper runs the command, so the run states isolation as active
    (it is not really isolated: this checks the statement, the bwrap branch above checks
    the real thing)."""
    from gavelkit.task.scoring import sandbox

    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text(FAKE_BWRAP)
    fake.chmod(0o755)
    monkeypatch.delenv("GAVEL_NO_BWRAP", raising=False)
    monkeypatch.setattr(sandbox, "_BWRAP", {"ok": True, "why": "", "exe": str(fake)})
    task = make_task(tmp_path, atomic_only=True)
    res = run(task, ref_solution(tmp_path), tmp_path)
    clean(res.findings, "TSK-X006")
    iso = res.score["gavel"]["isolation"]
    assert iso["active"] is True and iso["mechanism"] == "bubblewrap"
    assert res.pass_rate == 1.0
    calls = Path(str(fake) + ".log").read_text()
    assert "--unshare-all" in calls and "--ro-bind" in calls  # the command went through it


def test_no_bwrap_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAVEL_NO_BWRAP", "1")
    ok, why = bwrap_available()
    assert ok is False and "GAVEL_NO_BWRAP" in why


def test_src_layout_detected(tmp_path: Path) -> None:
    task = make_task(tmp_path, atomic_only=True)
    sol = solution(tmp_path, "srclayout", {"src/tally/__init__.py": REFERENCE,
                                           "pyproject.toml": "[project]\nname='tally'\n"})
    res = run(task, sol, tmp_path)
    assert res.pass_rate == 1.0
    # the pyproject.toml has no version: it cannot be built, so the folder is scored as is
    assert res.score["gavel"]["import_root_layout"] == "src"
    assert res.score["gavel"]["install"]["kind"] == "none"
    fires(res.findings, "TSK-X022")


def test_missing_package_is_named_not_silent(tmp_path: Path) -> None:
    task = make_task(tmp_path, atomic_only=True)
    res = run(task, solution(tmp_path, "empty", {"README.md": "nothing here\n"}), tmp_path)
    fires(res.findings, "TSK-X007")
    assert res.summary["collection_error"] == 5
    fires(res.findings, "TSK-X009")
    assert res.pass_rate == 0.0


def test_zero_of_n_is_an_error_not_a_rate(tmp_path: Path) -> None:
    task = make_task(tmp_path, atomic_only=True)
    (task / "kept_nodeids.txt").write_text("oracle/test_atomic.py::test_does_not_exist\n")
    res = run(task, ref_solution(tmp_path), tmp_path)
    assert res.summary["not_collected"] == 1
    fires(res.findings, "TSK-X009")
    case = res.score["cases"][0]
    assert case["classification"]["rule"] == "not-collected"


def test_no_expected_ids(tmp_path: Path) -> None:
    task = make_task(tmp_path, atomic_only=True)
    (task / "kept_nodeids.txt").unlink()
    (task / "spec_test_map.md").unlink()
    (task / "taxonomy.jsonl").unlink()
    data = json.loads((task / "task.json").read_text("utf-8-sig"))
    data.pop("taxonomy")
    (task / "task.json").write_text(json.dumps(data))
    res = run(task, ref_solution(tmp_path), tmp_path)
    fires(res.findings, "TSK-X001")
    assert res.summary["total"] == 0 and res.pass_rate is None


def test_per_test_timeout_uses_signal_and_keeps_other_results(tmp_path: Path) -> None:
    task = make_task(tmp_path, atomic_only=True)
    slow = REFERENCE.replace("def render(t):\n", "def render(t):\n    import time\n"
                             "    time.sleep(30)\n")
    res = run(task, solution(tmp_path, "slow", {"tally/__init__.py": slow}), tmp_path,
              test_timeout=1.0)
    outcomes = {c["nodeid"].split("::")[1]: c["outcome"] for c in res.score["cases"]}
    assert outcomes["test_render_digits"] == "timeout"
    assert outcomes["test_parse_rejects_letters"] == "passed"
    cls = next(c for c in res.score["cases"] if c["outcome"] == "timeout")["classification"]
    assert cls["rule"] == "timeout"


def test_file_wall_limit_kills_the_process_group(tmp_path: Path) -> None:
    task = make_task(tmp_path, atomic_only=True)
    hang = "import time\nwhile True:\n    time.sleep(1)\n" + REFERENCE
    res = run(task, solution(tmp_path, "hang", {"tally/__init__.py": hang}), tmp_path,
              file_timeout=3.0)
    assert res.summary["timeout"] == 5
    assert res.score["grouped_results"]["oracle/test_atomic.py"]["killed_after_timeout"]


def test_memory_limit_is_infrastructure_for_a_reference_and_the_candidates_own(
        tmp_path: Path) -> None:
    """A reference over the memory limit: raise the limit (infrastructure). A candidate's
    MemoryError comes from its own code, and a candidate could raise one on purpose to
    move its failures out of the evidence (issue 24): the candidate's failure."""
    task = make_task(tmp_path, atomic_only=True)
    hog = REFERENCE.replace("def render(t):\n", "def render(t):\n    b = bytearray(800 * 2**20)\n")
    ref = run(task, solution(tmp_path, "hog", {"tally/__init__.py": hog}), tmp_path,
              memory_mb=500, role="reference")
    case = next(c for c in ref.score["cases"] if "render_digits" in c["nodeid"])
    assert case["counted_as"] == "failed"
    assert case["classification"]["class"] == "infrastructure"
    cand = run(task, solution(tmp_path, "hog2", {"tally/__init__.py": hog}), tmp_path / "c",
               memory_mb=500)
    case = next(c for c in cand.score["cases"] if "render_digits" in c["nodeid"])
    assert case["counted_as"] == "failed"
    assert case["classification"]["class"] == "candidate", case["classification"]


def test_candidate_skip_counts_as_failure(tmp_path: Path) -> None:
    task = make_task(tmp_path, atomic_only=True)
    skipper = REFERENCE.replace("def render(t):\n", "def render(t):\n    import unittest\n"
                                "    raise unittest.SkipTest('not implemented')\n")
    res = run(task, solution(tmp_path, "skip", {"tally/__init__.py": skipper}), tmp_path)
    case = next(c for c in res.score["cases"] if "render_digits" in c["nodeid"])
    assert case["outcome"] == "skipped" and case["counted_as"] == "failed"
    assert res.summary["skipped"] == 0 and res.pass_rate == 0.8
    # the reference's own skips are not counted against anyone
    ref = run(task, solution(tmp_path, "skipref", {"tally/__init__.py": skipper}),
              tmp_path / "r", role="reference")
    assert ref.summary["skipped"] == 1


def test_repeat_marks_flaky_nodes(tmp_path: Path) -> None:
    task = make_task(tmp_path, atomic_only=True)
    flaky = REFERENCE.replace("def render(t):\n", (
        "def render(t):\n    import os, pathlib\n"
        "    p = pathlib.Path('seen')  # the working folder; HOME is a fresh tmpfs per process\n"
        "    if not p.exists():\n        p.write_text('x')\n        return 'wrong'\n"))
    res = run(task, solution(tmp_path, "flaky", {"tally/__init__.py": flaky}), tmp_path,
              repeat=2, role="reference")
    f = fires(res.findings, "TSK-X014")
    assert f.data["flaky"] == ["oracle/test_atomic.py::test_render_digits"]
    assert next(c for c in res.score["cases"] if "render" in c["nodeid"])["flaky"] is True


def test_node_outcome_rules() -> None:
    def rep(when, outcome, **kw):
        return {"when": when, "outcome": outcome, "raw": kw.pop("raw", {"kind": "ok"}), **kw}
    assert node_outcome([rep("setup", "passed"), rep("call", "passed"),
                         rep("teardown", "passed")])[0] == "passed"
    assert node_outcome([rep("setup", "failed")])[0] == "error"
    assert node_outcome([rep("setup", "passed"), rep("call", "skipped", wasxfail=True)])[0] == "xfail"
    forged = node_outcome([rep("setup", "passed"),
                           rep("call", "passed", raw={"kind": "exception", "exc": "AssertionError"})])
    assert forged[0] == "failed" and forged[2] is True
    assert node_outcome([rep("setup", "passed"), rep("call", "passed"),
                         rep("teardown", "failed")])[0] == "error"


def test_env_is_cached_by_requirements_hash(tmp_path: Path) -> None:
    from gavelkit.task.scoring.envbuild import build_env, norm

    req = tmp_path / "requirements.txt"
    req.write_text("pytest\n# comment\n")
    a = build_env(req)
    b = build_env(req)
    assert a.key == b.key and b.reused
    assert Path(b.python).is_file()
    assert norm("Pytest_Timeout>=2; python_version>'3'") == "pytest-timeout"


def test_env_failure_is_reported_not_scored(tmp_path: Path) -> None:
    task = make_task(tmp_path, atomic_only=True)
    (task / "oracle" / "requirements.txt").write_text("pytest\nno-such-dist-gavelkit-test==0.0.1\n")
    res = run(task, ref_solution(tmp_path), tmp_path, offline=True)
    f = fires(res.findings, "TSK-X005")
    assert "'no-such-dist-gavelkit-test'" in f.message  # the missing requirement, by name
    assert res.summary["error"] == 5  # nothing ran: environment errors, never the candidate's
    assert {c["classification"]["class"] for c in res.score["cases"]} == {"environment"}
    clean(run(make_task(tmp_path / "ok", atomic_only=True), ref_solution(tmp_path, "r3"),
              tmp_path / "ok").findings, "TSK-X005")


def test_cli_run_json_and_bad_input(tmp_path: Path) -> None:
    task = make_task(tmp_path, atomic_only=True)
    sol = ref_solution(tmp_path)
    rc, doc = cli_json("task", "run", str(task), "--solution", str(sol), "--out",
                       str(tmp_path / "o"), "--package", "tally")
    assert rc == 0 and doc["summary"]["passed"] == 5 and doc["pass_rate"] == 1.0
    from gk_testing import cli

    rc, _, err = cli("task", "run", str(task), "--solution", str(tmp_path / "nope"), "--out",
                     str(tmp_path / "o2"))
    assert rc == 2 and "solution folder not found" in err
    rc, _, err = cli("task", "run", str(tmp_path / "nothing"), "--solution", str(sol), "--out",
                     str(tmp_path / "o3"))
    assert rc == 2 and "Traceback" not in err


@pytest.mark.parametrize("quiet,tty", [(True, True), (False, False)])
def test_progress_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch, quiet: bool,
                                     tty: bool) -> None:
    import sys

    from gavelkit.cli.task_judging import progress_printer

    monkeypatch.delenv("GAVEL_PROGRESS", raising=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: tty)
    assert progress_printer(quiet) is None


def test_progress_on_a_terminal(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    import sys

    from gavelkit.cli.task_judging import progress_printer

    monkeypatch.delenv("GAVEL_PROGRESS", raising=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    cb = progress_printer(False, "judge-all")
    assert cb is not None
    cb.bar.delay = 0
    cb("task-x: QUALIFIED", 1, 2)
    assert "task-x" in capsys.readouterr().err


def test_only_plugins_the_requirements_name_are_loaded() -> None:
    from gavelkit.task.scoring.envbuild import Env

    env = Env(Path("/x"), "/x/bin/python", "k", ["pytest", "pytest-asyncio>=0.21", "requests"],
              plugins=[{"dist": "pytest_asyncio", "name": "asyncio", "value": "pytest_asyncio"},
                       {"dist": "pytest-randomly", "name": "randomly", "value": "pytest_randomly"},
                       {"dist": "pytest-asyncio", "name": "asyncio", "value": "pytest_asyncio"}])
    assert env.plugin_args() == ["asyncio"]
    assert env.to_dict()["plugins"] == ["asyncio"]


def test_quiet_run_and_solvability_print_errors_and_the_verdict_line(tmp_path: Path) -> None:
    """-q (issue 16): like the linters, errors and one verdict line, no per-layer breakdown."""
    from gk_testing import cli

    task = make_task(tmp_path, atomic_only=True)
    sol = ref_solution(tmp_path)
    args = ("--solution", str(sol), "--package", "tally", "--isolation", "none")
    rc, full, _ = cli("task", "run", str(task), *args, "--out", str(tmp_path / "o"))
    assert rc == 0 and "atomic: 5/5" in full and "TSK-X006" in full  # warnings shown
    rc, out, _ = cli("task", "run", str(task), *args, "--out", str(tmp_path / "o"), "-q")
    assert rc == 0 and out.strip().splitlines() == ["5/5 passed; 100.0 % of all"]
    rc, out, _ = cli("task", "solvability", str(task), "--reference", str(sol), "--package",
                     "tally", "--isolation", "none", "--out", str(tmp_path / "s"), "-q")
    lines = out.strip().splitlines()
    assert rc == 0 and len(lines) == 1 and lines[0].startswith("solvability: PASS - reference 5/5")
    # an error still shows under -q, with the verdict line after it
    bad = solution(tmp_path, "broken", {"tally/__init__.py": BROKEN})
    rc, out, _ = cli("task", "solvability", str(task), "--reference", str(bad), "--package",
                     "tally", "--isolation", "none", "--out", str(tmp_path / "b"), "-q")
    lines = out.strip().splitlines()
    assert rc == 1 and lines[-1].startswith("solvability: FAIL")
    assert any("TSK-J005" in x and " error: " in x for x in lines[:-1])
    assert not any(" warning: " in x for x in lines)


def test_solution_entries_that_are_no_file_are_left_out_and_named(tmp_path: Path) -> None:
    """A FIFO, a link loop and a link to /dev/zero in the solution would block or break the
    copy: they are not copied (TSK-X024 each) and the rest is scored."""
    import os

    task = make_task(tmp_path, atomic_only=True)
    sol = ref_solution(tmp_path)
    os.mkfifo(sol / "pipe")
    (sol / "loop").symlink_to(sol / "loop")
    (sol / "tally" / "zeros.bin").symlink_to("/dev/zero")
    res = run(task, sol, tmp_path, role="reference")
    assert res.summary["passed"] == res.summary["total"] == 5
    named = {f.path: f.data["what"] for f in res.findings if f.code == "TSK-X024"}
    assert named == {"loop": "a link loop", "pipe": "a FIFO (named pipe)",
                     "tally/zeros.bin": "a character device"}, named
    fires(res.findings, "TSK-X024")
    clean(run(task, ref_solution(tmp_path, "r2"), tmp_path / "b").findings, "TSK-X024")


@pytest.mark.parametrize("where", ["oracle/test_atomic.py", "oracle/requirements.txt"])
def test_an_oracle_file_that_is_a_device_is_unusable_input(tmp_path: Path, where: str) -> None:
    from gavelkit.core.errors import InputError

    task = make_task(tmp_path, atomic_only=True)
    (task / where).unlink()
    (task / where).symlink_to("/dev/zero")
    with pytest.raises(InputError) as exc:
        run(task, ref_solution(tmp_path), tmp_path)
    assert where.split("/")[-1] in str(exc.value) and "device" in str(exc.value)
