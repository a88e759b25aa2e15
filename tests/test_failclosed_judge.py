"""Issue 13, items 3-6 and 13: the judge certifies nothing it could not read or check.

Every case runs the real CLI in a child (a FIFO or /dev/zero must not hang the
suite) and asserts the contract whoever's code enforces it: exit code is not 0,
nothing says QUALIFIED (neither task.json nor PIPELINE_STATE.md), and there is
no traceback.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from hostile import run_gavel
from judge_helpers import REFERENCE, filled_spotcheck, make_task, solution


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tally task at S4_DONE with a reference run and a perfect candidate run."""
    from gavelkit.task.pipeline.state import init_state
    from gavelkit.task.scoring.options import RunOptions
    from gavelkit.task.scoring.runner import run_solution

    base = tmp_path_factory.mktemp("fc-judge")
    task = make_task(base)
    ref = solution(base, "ref", {"tally/__init__.py": REFERENCE})
    run_solution(task, RunOptions(solution=ref, out=task / "judge" / "reference_run",
                                  role="reference", package="tally"))
    run_solution(task, RunOptions(solution=ref, out=task / "candidate-runs" / "perfect",
                                  package="tally"))
    data = json.loads((task / "task.json").read_text("utf-8-sig"))
    data["package"] = "tally"
    (task / "task.json").write_text(json.dumps(data, indent=2))
    init_state(task, "tally_task", date="2026-01-01", force=True)
    p = task / "PIPELINE_STATE.md"
    p.write_text(p.read_text().replace("state:       S1_SCREENING", "state:       S4_DONE"))
    filled_spotcheck(task)  # Gate A/C: the judge certifies only with a verified table
    work = base / "agent-work"
    work.mkdir()
    (base / "clean.jsonl").write_text(clean_trajectory(str(task / "spec.md"), str(work)) + "\n")
    return base


def clean_trajectory(read: str, cwd: str) -> str:
    """One Claude Code line: the agent reads the spec in its own workspace (an honest run)."""
    return json.dumps({"parentUuid": None, "isSidechain": False, "cwd": cwd, "sessionId": "s1",
                       "type": "assistant", "uuid": "1", "timestamp": "2026-01-01T00:00:00Z",
                       "message": {"role": "assistant", "type": "message", "content": [
                           {"type": "tool_use", "id": "t1", "name": "Read",
                            "input": {"file_path": read}}]}})


@pytest.fixture
def base(prepared: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "b"
    shutil.copytree(prepared, dest, symlinks=True)
    return dest


def judge(base: Path, *extra: str) -> tuple[int | str, str, str]:
    task = base / "task_good"
    return run_gavel(["task", "judge", str(task), "--run", str(task / "candidate-runs" /
                                                                "perfect"),
                      "--date", "2026-01-03", "--trajectory", str(base / "clean.jsonl"),
                      *extra], cwd=base, timeout=60)


def qualified_written(task: Path) -> bool:
    tj = task / "task.json"
    text = tj.read_text("utf-8", "replace") if tj.is_file() else ""
    state = (task / "PIPELINE_STATE.md").read_text("utf-8")
    return '"status": "QUALIFIED"' in text or "state:       QUALIFIED" in state


def assert_refused(base: Path, rc: int | str, out: str, err: str) -> None:
    assert rc in (1, 2), (rc, out[-400:], err[-400:])
    assert "Traceback" not in err and "internal error" not in err, err
    assert "verdict: QUALIFIED" not in out, out
    assert not qualified_written(base / "task_good")


@pytest.mark.sandbox
def test_the_fixture_qualifies(base: Path) -> None:
    """Control: the untouched task is QUALIFIED (so each refusal below is the input's doing)."""
    rc, out, err = judge(base)
    assert rc == 0 and "verdict: QUALIFIED" in out, (out, err)


def _score(base: Path) -> Path:
    return base / "task_good" / "candidate-runs" / "perfect" / "score_result.json"


def _edit_json(path: Path, change: Callable[[dict], object]) -> None:
    data = json.loads(path.read_text("utf-8-sig"))
    change(data)
    path.write_text(json.dumps(data), "utf-8")


# ---- item 3: score_result.json empty or missing keys -------------------------------------

@pytest.mark.parametrize("spoil", ["empty_object", "no_summary", "summary_wrong_type",
                                   "cases_not_list", "rate_string"])
def test_bad_score_result_is_not_qualified(base: Path, spoil: str) -> None:
    p = _score(base)
    if spoil == "empty_object":
        p.write_text("{}", "utf-8")
    elif spoil == "no_summary":
        _edit_json(p, lambda d: (d.pop("summary"), d.pop("by_layer", None)))
    elif spoil == "summary_wrong_type":
        _edit_json(p, lambda d: d.__setitem__("summary", [1, 2]))
    elif spoil == "cases_not_list":
        _edit_json(p, lambda d: d.__setitem__("cases", "all passed"))
    else:
        _edit_json(p, lambda d: d.__setitem__("pass_rate_excluding_skips", "1.0"))
    assert_refused(base, *judge(base))


# ---- item 4: task.json empty, wrong types, a directory -----------------------------------

@pytest.mark.parametrize("spoil", ["empty_object", "id_int", "oracle_list", "directory",
                                   "test_files_str"])
def test_bad_task_json_is_not_qualified(base: Path, spoil: str) -> None:
    p = base / "task_good" / "task.json"
    if spoil == "empty_object":
        p.write_text("{}", "utf-8")
    elif spoil == "id_int":
        _edit_json(p, lambda d: d.__setitem__("instance_id", 12345))
    elif spoil == "oracle_list":
        _edit_json(p, lambda d: d.__setitem__("oracle", [1, 2]))
    elif spoil == "test_files_str":
        _edit_json(p, lambda d: d["oracle"].__setitem__("test_files", "oracle/test_atomic.py"))
    else:
        p.unlink()
        p.mkdir()
    rc, out, err = judge(base)
    assert_refused(base, rc, out, err)
    if spoil == "directory":
        assert rc == 2 and "task.json" in err


# ---- item 5: --trajectory that cannot be read ----------------------------------------------

@pytest.mark.parametrize("kind", ["missing", "directory", "loop", "fifo", "devzero", "empty"])
def test_unusable_trajectory_is_not_qualified(base: Path, kind: str) -> None:
    t = base / "traj.jsonl"
    if kind == "directory":
        t.mkdir()
    elif kind == "loop":
        t.symlink_to(t)
    elif kind == "fifo":
        os.mkfifo(t)
    elif kind == "devzero":
        t.symlink_to("/dev/zero")
    elif kind == "empty":
        t.write_text("")
    rc, out, err = judge(base, "--trajectory", str(t))
    assert rc != "hang"
    assert_refused(base, rc, out, err)
    assert "traj.jsonl" in err + out


# ---- item 6: corrupt oracle digests never advise --record ---------------------------------

@pytest.mark.sandbox
@pytest.mark.parametrize("content", ["{not json", "[" * 20000, '{"files": 3}', ""])
def test_corrupt_digests_say_corrupt(base: Path, content: str) -> None:
    rc, out, err = judge(base)
    assert rc == 0
    digests = base / "task_good" / "oracle_digests.json"
    assert digests.is_file()
    digests.write_text(content, "utf-8")
    rc, out, err = run_gavel(["task", "check-oracle", str(base / "task_good")], cwd=base)
    text = out + err
    assert rc == 2, (rc, text)
    assert "corrupt" in text.lower() and "oracle_digests.json" in text
    assert "--record" not in text and "never recorded" not in text
    assert "Traceback" not in text


# ---- item 13: relative paths are resolved before any change of folder --------------------

@pytest.mark.sandbox
def test_relative_solution_and_candidate(base: Path) -> None:
    task = base / "task_good"
    rc, out, err = run_gavel(["task", "run", "task_good", "--solution", "solutions/ref",
                              "--out", "runs/rel", "--offline"], cwd=base, timeout=120)
    assert rc == 0, (out, err)
    meta = json.loads((base / "runs" / "rel" / "score_result.json").read_text("utf-8"))
    assert meta["summary"]["passed"] == meta["summary"]["total"] > 0
    other = base / "elsewhere"
    other.mkdir()
    rc, out, err = run_gavel(["task", "judge", str(task), "--run", str(base / "runs" / "rel"),
                              "--no-state", "--dry-run", "--date", "2026-01-03"], cwd=other)
    assert "preflight: PASS" in out, (out, err)
    assert "route: env" not in out
    rc, out, err = run_gavel(["task", "preflight", "--package", "tally", "--candidate",
                              "solutions/ref", "--cwd", str(task)], cwd=base)
    assert rc == 0, (out, err)

