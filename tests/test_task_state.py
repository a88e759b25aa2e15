"""The pipeline state machine: guards, loop caps, history, todo reset, locking."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gavelkit.core.errors import InputError
from gavelkit.task.formats.pipeline_state import read_pipeline_state
from gavelkit.task.pipeline.state import allowed_next, init_state, plan_transition, transition
from task_helpers import judge_record

from gk_testing import clean, cli, cli_json, fires


def _set_state(d: Path, state: str, **iters: int) -> None:
    p = d / "PIPELINE_STATE.md"
    text = p.read_text("utf-8").replace("state:       S1_SCREENING", f"state:       {state}")
    for k, v in iters.items():
        text = text.replace(f"{k}:".ljust(13) + "0", f"{k}:".ljust(13) + str(v))
    p.write_text(text, "utf-8")


@pytest.fixture
def task(tmp_path: Path) -> Path:
    d = tmp_path / "wip" / "demo-001"
    d.mkdir(parents=True)
    init_state(d, date="2026-01-01")
    return d


def _ps(d: Path):
    ps, fnd = read_pipeline_state(d / "PIPELINE_STATE.md")
    assert ps is not None and not [f for f in fnd if f.severity == "error"], fnd
    return ps


def test_init_writes_a_parseable_state_and_refuses_to_overwrite(task: Path):
    ps = _ps(task)
    assert ps.state == "S1_SCREENING" and ps.current["updated"] == "2026-01-01"
    assert ps.todo and not ps.history
    rc, out, _ = cli("task", "init", str(task))
    assert rc == 1 and "already exists" in out
    rc, data = cli_json("task", "init", str(task))
    fires([_f(x) for x in data["findings"]], "TSK-S006")
    rc, _, err = cli("task", "init", str(task.parent / "other"))
    assert rc == 2 and "no such directory" in err
    (task.parent / "fresh").mkdir()
    rc, data = cli_json("task", "init", str(task.parent / "fresh"), "--id", "fresh-9")
    assert rc == 0
    clean([_f(x) for x in data["findings"]], "TSK-S006")
    assert "Pipeline State — fresh-9" in (task.parent / "fresh" / "PIPELINE_STATE.md").read_text()


def _f(d: dict):
    from gavelkit.core.findings import Finding

    return Finding(d["code"], d["severity"], d["message"], d["path"], d["line"], d["col"])


def test_happy_path_appends_history_and_resets_todo(task: Path):
    r = transition(task, "S1_SELECTED", "decision keep", date="2026-01-02")
    assert r.written and r.to_state == "S1_SELECTED"
    clean(r.findings, "TSK-S002")
    clean(r.findings, "TSK-S001")
    ps = _ps(task)
    assert ps.state == "S1_SELECTED" and ps.current["updated"] == "2026-01-02"
    assert [t.text for t in ps.todo] == ["Append a SELECTED row to CANDIDATES.md"]
    h = ps.history[-1]
    assert (h.num, h.from_state, h.to_state, h.note) == (1, "S1_SCREENING", "S1_SELECTED",
                                                         "decision keep")
    r = transition(task, "S2_SPEC_DRAFT", date="2026-01-03")
    assert _ps(task).history[-1].num == 2 and _ps(task).current["stage"] == "2"


def test_unknown_and_disallowed_transitions_write_nothing(task: Path):
    before = (task / "PIPELINE_STATE.md").read_bytes()
    r = transition(task, "S5_JUGDE")
    fires(r.findings, "TSK-S001")
    r = transition(task, "S4_SETUP")
    f = fires(r.findings, "TSK-S002")
    assert "S1_SCREENING -> S4_SETUP" in f.message and not r.written
    assert (task / "PIPELINE_STATE.md").read_bytes() == before
    rc, out, _ = cli("task", "state", str(task), "--to", "S4_SETUP")
    assert rc == 1 and "refused" in out


def test_s5_guard_checks_the_named_run_not_a_glob(task: Path, tmp_path: Path):
    """`--run` names the evidence: another run's score found by a glob does not stand in for
    a named run that has none (issue 23)."""
    _set_state(task, "S4_DONE")
    other = task / "candidate-runs" / "old"
    other.mkdir(parents=True)
    (other / "score_result.json").write_text(json.dumps({"summary": {"passed": 1, "total": 2}}))
    named = tmp_path / "elsewhere" / "run7"
    named.mkdir(parents=True)
    r = transition(task, "S5_JUDGE", dry_run=True, run=named)
    assert str(named) in fires(r.findings, "TSK-S003").message
    rc, out, _ = cli("task", "state", str(task), "--to", "S5_JUDGE", "--run", str(named),
                     "--dry-run")
    assert rc == 1 and "run7" in out
    (named / "score_result.json").write_text(json.dumps({"summary": {"passed": 2, "total": 2}}))
    r = transition(task, "S5_JUDGE", run=named)  # near miss: the named run is scored
    clean(r.findings, "TSK-S003")
    assert r.written


def test_guards(task: Path):
    _set_state(task, "S4_DONE")
    r = transition(task, "S5_JUDGE")
    assert "candidate run" in fires(r.findings, "TSK-S003").message
    run = task / "candidate-runs" / "run1"
    run.mkdir(parents=True)
    (run / "score_result.json").write_text(json.dumps({"summary": {"passed": 1, "total": 2}}))
    r = transition(task, "S5_JUDGE")
    clean(r.findings, "TSK-S003")
    assert r.written

    _set_state_text(task, "S5_JUDGE", "S3_DONE")
    (task / "filter").mkdir()
    ref = task / "filter" / "reference_score.json"
    ref.write_text(json.dumps({"summary": {"passed": 99, "failed": 1, "total": 100}}))
    r = transition(task, "S4_SETUP")
    assert "99.0%" in fires(r.findings, "TSK-S003").message
    ref.write_text(json.dumps({"summary": {"passed": 0, "total": 0}}))
    assert "0/0" in fires(transition(task, "S4_SETUP").findings, "TSK-S003").message
    ref.write_text(json.dumps({"summary": {"passed": 98, "skipped": 2, "total": 100}}))
    r = transition(task, "S4_SETUP")
    clean(r.findings, "TSK-S003")
    assert r.written

    _set_state_text(task, "S4_SETUP", "S3A_REWRITE")
    assert fires(transition(task, "S3B_TRIGGER").findings, "TSK-S003")
    (task / "filter" / "rewrite_audit.md").write_text("audit\n")
    assert transition(task, "S3B_TRIGGER").written


def _set_state_text(d: Path, old: str, new: str) -> None:
    p = d / "PIPELINE_STATE.md"
    text = p.read_text("utf-8")
    import re

    text = re.sub(r"(state:\s+)" + old, r"\g<1>" + new, text, count=1)
    p.write_text(text, "utf-8")


@pytest.mark.parametrize("to,counter,cap", [("S2_SPEC_DRAFT", "spec_iter", 3),
                                            ("S3_ORACLE_MERGE", "filter_iter", 2),
                                            ("S4_SETUP", "eval_iter", 2)])
def test_loop_exits_increment_and_retire_past_the_cap(task: Path, to, counter, cap):
    (task / "filter").mkdir()
    (task / "filter" / "kept_upstream.txt").write_text("a.py::t\n")
    (task / "filter" / "reference_score.json").write_text(json.dumps({"passed": 5, "total": 5}))
    _set_state(task, "S5_JUDGE", **{counter: cap - 1})
    r = transition(task, to, "loop")
    clean(r.findings, "TSK-S004")
    ps = _ps(task)
    assert ps.state == to and ps.iter_value(counter) == cap
    _set_state_text(task, to, "S5_JUDGE")
    r = transition(task, to, "again")
    f = fires(r.findings, "TSK-S004")
    assert r.written and r.to_state == "RETIRED" and f"{cap + 1} > cap {cap}" in f.message
    ps = _ps(task)
    assert ps.state == "RETIRED" and ps.iter_value(counter) == cap + 1
    assert "RETIRED instead of" in ps.history[-1].note and ps.history[-1].to_state == "RETIRED"
    assert allowed_next("RETIRED") == []


def test_qualified_to_qualified_is_refused(task: Path):
    _set_state(task, "QUALIFIED")
    r = transition(task, "QUALIFIED")
    assert "forbidden" in fires(r.findings, "TSK-S005").message
    _set_state_text(task, "QUALIFIED", "S5_JUDGE")
    r = transition(task, "QUALIFIED", "all gates pass")
    assert "judge" in fires(r.findings, "TSK-S003").message  # no judge result yet
    (task / "judge").mkdir(exist_ok=True)
    (task / "judge" / "score_result.json").write_text('{"passed": 1, "total": 1}')
    judge_record(task)
    r = transition(task, "QUALIFIED", "all gates pass")
    clean(r.findings, "TSK-S005")
    assert r.written and (task / "oracle_digests.json").is_file()


def test_state_cli_show_and_dry_run(task: Path):
    rc, data = cli_json("task", "state", str(task))
    assert rc == 0 and data["state"] == "S1_SCREENING" and data["next"] == ["S1_SELECTED", "RETIRED"]
    assert data["caps"] == {"spec_iter": 3, "filter_iter": 2, "eval_iter": 2}
    rc, out, _ = cli("task", "state", str(task), "--to", "s1_selected", "--dry-run")
    assert rc == 0 and "would move" in out and _ps(task).state == "S1_SCREENING"
    rc, out, _ = cli("task", "state", str(task), "--to", "S1_SELECTED", "--note", "ok")
    assert rc == 0 and _ps(task).state == "S1_SELECTED"
    rc, out, err = cli("task", "state", str(task.parent / "missing"))
    assert rc == 2 and "Traceback" not in err


def test_broken_state_file_is_unusable(task: Path):
    (task / "PIPELINE_STATE.md").write_text("# nothing\n")
    with pytest.raises(InputError):
        plan_transition(task, "S1_SELECTED")
    rc, _, err = cli("task", "state", str(task), "--to", "S1_SELECTED")
    assert rc == 2 and "Current" in err


# ------------------------------------------------------------------ concurrency
WRITER = r"""
import sys, time
from gavelkit.task.pipeline.state import transition
from gavelkit.task.formats.pipeline_state import read_pipeline_state
CYCLE = {"S4_EVAL_RUN": "S4_ANALYSIS", "S4_ANALYSIS": "S4_DONE", "S4_DONE": "S5_JUDGE",
         "S5_JUDGE": "S4_EVAL_RUN"}
d, want, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
done = 0
while done < want:
    ps, _ = read_pipeline_state(d + "/PIPELINE_STATE.md")
    r = transition(d, CYCLE[ps.state], f"{tag} {done}")
    if r.written:
        done += 1
print(done)
"""


def _cycle_task(task: Path) -> None:
    _set_state(task, "S4_EVAL_RUN")
    run = task / "candidate-runs" / "r"
    run.mkdir(parents=True)
    (run / "score_result.json").write_text(json.dumps({"passed": 1, "total": 1}))


def _check_history(task: Path) -> int:
    ps = _ps(task)
    nums = [h.num for h in ps.history]
    assert nums == list(range(1, len(nums) + 1))
    prev = "S4_EVAL_RUN"
    for h in ps.history:
        assert h.from_state == prev, (h, prev)
        prev = h.to_state
    assert ps.state == prev
    return len(nums)


def test_two_writers_serialise(task: Path, subprocess_env):
    _cycle_task(task)
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(task), "12", tag],
                              env=subprocess_env, stdout=subprocess.PIPE, text=True)
             for tag in ("A", "B")]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sum(int(o) for o in outs) == 24
    assert _check_history(task) == 24
    notes = [h.note for h in _ps(task).history]
    assert sum(n.startswith("A ") for n in notes) == 12


def test_kill_mid_write_never_leaves_a_broken_file(task: Path, subprocess_env):
    _cycle_task(task)
    state = task / "PIPELINE_STATE.md"
    for i in range(6):
        before = state.stat().st_mtime_ns
        p = subprocess.Popen([sys.executable, "-c", WRITER, str(task), "100000", f"K{i}"],
                             env=subprocess_env, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while state.stat().st_mtime_ns == before and time.monotonic() < deadline:
            time.sleep(0.005)  # wait until this writer is busy writing
        time.sleep(0.003 * i)  # then kill at varying points of its write loop
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        _check_history(task)  # old or new file, never a mix
    n = _check_history(task)
    assert n >= 6  # every writer got at least one transition in before it died
    # a killed writer's lock is released by the OS: a new transition still works
    ps = _ps(task)
    nxt = {"S4_EVAL_RUN": "S4_ANALYSIS", "S4_ANALYSIS": "S4_DONE", "S4_DONE": "S5_JUDGE",
           "S5_JUDGE": "S4_EVAL_RUN"}[ps.state]
    assert transition(task, nxt, "after kills").written


def test_caps_are_configurable_per_task(task: Path):
    (task / "gavel-task.toml").write_text("[state]\ncaps = { spec_iter = 1 }\n")
    _set_state(task, "S2_SPEC_CHECK", spec_iter=1)
    r = transition(task, "S2_SPEC_DRAFT", "loop")
    assert r.to_state == "RETIRED" and "2 > cap 1" in fires(r.findings, "TSK-S004").message


def test_optional_lint_guards_of_later_templates(task: Path):
    (task / "filter").mkdir()
    (task / "filter" / "reference_score.json").write_text(json.dumps({"passed": 3, "total": 3}))
    _set_state(task, "S3_DONE")
    clean(plan_transition(task, "S4_SETUP").findings, "TSK-S003")  # off by default
    (task / "gavel-task.toml").write_text('[state]\nenable_guards = ["lint_pass", "lint_fresh"]\n')
    assert "none of" in fires(plan_transition(task, "S4_SETUP").findings, "TSK-S003").message
    lint = task / "filter" / "lint_result.txt"
    lint.write_text("LINT_FAIL\n3 problems\n")
    assert "'LINT_FAIL'" in fires(plan_transition(task, "S4_SETUP").findings, "TSK-S003").message
    lint.write_text("LINT_PASS\n")
    clean(plan_transition(task, "S4_SETUP").findings, "TSK-S003")
    # QUALIFIED needs the lint result to be newer than every oracle test file
    (task / "oracle").mkdir()
    test_file = task / "oracle" / "test_atomic.py"
    test_file.write_text("def test_a():\n    assert 1\n")
    os.utime(lint, (1_000_000, 1_000_000))
    _set_state_text(task, "S3_DONE", "S5_JUDGE")
    (task / "judge").mkdir(exist_ok=True)
    (task / "judge" / "score_result.json").write_text('{"passed": 1, "total": 1}')
    judge_record(task)
    f = fires(plan_transition(task, "QUALIFIED").findings, "TSK-S003")
    assert "oracle/test_atomic.py changed after lint_result.txt" in f.message
    os.utime(lint, None)
    os.utime(test_file, (1_000_000, 1_000_000))
    clean(plan_transition(task, "QUALIFIED").findings, "TSK-S003")
