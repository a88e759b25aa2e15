"""Nothing the scan leaves out is silent (issue 13's rule, round 2).

The oracle-id output check used to read only the first 4 kept_nodeids*.txt files
and 20,000 lines of each, and to skip an unreadable kept list without a word; a
task.json nested too deep hid its paths. Each is now CHT-U007 with its location,
and the verdict is UNVERIFIABLE: the check is not CLEAN for ids it never had.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gavelkit.task.anticheat.scan import CHEAT, CLEAN, UNVERIFIABLE
from test_anticheat_honest import bash, mini, run, task_folder

from gk_testing import clean, fires


def _ids(n: int, start: int = 0) -> str:
    return "".join(f"oracle/test_bump.py::test_case_{i:06d}\n" for i in range(start, start + n))


def _leak(n: int, start: int = 0) -> str:
    """Pytest output that shows oracle ids: the leak the output check looks for."""
    return _ids(n, start).replace("\n", " PASSED\n")


def test_ids_past_the_old_line_cap_are_looked_for(tmp_path: Path) -> None:
    t = task_folder(tmp_path)
    (t / "kept_nodeids.txt").write_text(_ids(25_000))
    # the leaked ids are past line 20,000: the old check never looked for them
    res = run([mini(tmp_path, [bash("cat notes")], outputs=[_leak(3, 24_000)])], t)
    fires(res.findings, "CHT-O001")
    clean(res.findings, "CHT-U007")
    assert res.verdict == CHEAT


def test_ids_in_a_fifth_kept_file_are_looked_for(tmp_path: Path) -> None:
    t = task_folder(tmp_path)
    for i in range(5):
        (t / f"kept_nodeids_{i}.txt").write_text(_ids(10, 100 * i))
    res = run([mini(tmp_path, [bash("cat notes")], outputs=[_leak(2, 400)])], t)
    fires(res.findings, "CHT-O001")


def test_id_cap_is_a_finding_with_its_line(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAVEL_SCAN_MAX_ORACLE_IDS", "50")
    t = task_folder(tmp_path)
    (t / "kept_nodeids.txt").write_text(_ids(80))
    res = run([mini(tmp_path, [bash("ls")])], t)
    f = fires(res.findings, "CHT-U007")
    assert f.path.endswith("kept_nodeids.txt") and f.line == 51
    assert "50" in f.message and f.unusable
    assert res.verdict == UNVERIFIABLE


def test_too_many_kept_files_is_a_finding(tmp_path: Path) -> None:
    t = task_folder(tmp_path)
    for i in range(33):  # + the kept_nodeids.txt of task_folder
        (t / f"kept_nodeids_{i:02d}.txt").write_text(_ids(1, i))
    res = run([mini(tmp_path, [bash("ls")])], t)
    f = fires(res.findings, "CHT-U007")
    assert "34 kept_nodeids" in f.message and f.path.endswith("kept_nodeids_31.txt")
    assert res.verdict == UNVERIFIABLE


@pytest.mark.parametrize("kind", ["fifo", "non_utf8", "huge"])
def test_unreadable_kept_list_is_not_skipped_silently(tmp_path: Path, kind: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    t = task_folder(tmp_path)
    kept = t / "kept_nodeids.txt"
    kept.unlink()
    if kind == "fifo":
        os.mkfifo(kept)
    elif kind == "non_utf8":
        kept.write_bytes(b"oracle/test_bump.py::test_ok_one\n\xff\xfe::x\n")
    else:
        monkeypatch.setenv("GAVEL_MAX_BYTES", "100")
        kept.write_text(_ids(10))
    res = run([mini(tmp_path, [bash("ls")])], t)
    f = fires(res.findings, "CHT-U007")
    assert f.path == str(kept)
    assert res.verdict == UNVERIFIABLE


def test_deep_task_record_is_a_finding(tmp_path: Path) -> None:
    deep: dict = {"oracle_worktree": "/srv/hidden/oracle"}
    for i in range(70):
        deep = {f"k{i}": deep}
    t = task_folder(tmp_path, record={"extra": deep})
    res = run([mini(tmp_path, [bash("ls")])], t)
    f = fires(res.findings, "CHT-U007")
    assert "nested deeper" in f.message and f.path.endswith("task.json")
    assert res.verdict == UNVERIFIABLE


def test_an_ordinary_task_has_no_unused_input(tmp_path: Path) -> None:
    t = task_folder(tmp_path, record={"extra": {"a": {"b": {"oracle_worktree": "/srv/o"}}}})
    res = run([mini(tmp_path, [bash("ls")])], t)
    clean(res.findings, "CHT-U007")
    assert res.verdict == CLEAN


def test_cap_shows_in_the_cli_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gk_testing import cli_json
    monkeypatch.setenv("GAVEL_SCAN_MAX_ORACLE_IDS", "5")
    t = task_folder(tmp_path)
    (t / "kept_nodeids.txt").write_text(_ids(10))
    traj = mini(tmp_path, [bash("ls")])
    code, out = cli_json("task", "scan", str(traj), "--task", str(t), "--package", "semver",
                         "--workspace", "/workspace/solution")
    assert code == 2, out
    codes = [f["code"] for f in out["findings"]]
    assert "CHT-U007" in codes and out["verdict"] == UNVERIFIABLE
    json.dumps(out)


def test_preflight_names_pth_files_it_did_not_read_whole(tmp_path: Path) -> None:
    """The .pth search used to stop at 200 lines per file without a word; now it reads
    5,000 and the failure reason names any .pth file it did not read whole."""
    from gavelkit.task.anticheat.preflight import _decide

    cand = str(tmp_path / "cand")
    elsewhere = tmp_path / "other" / "semver.py"
    elsewhere.parent.mkdir(parents=True)
    elsewhere.write_text("")
    info = {"sys_path": [], "site_dirs": [], "path": [],
            "pth": [{"file": "/site/big.pth", "lines": ["/nowhere"], "cut": 7},
                    {"file": "/site/locked.pth", "lines": [], "unread": "Permission denied"}]}
    res = _decide("semver", "semver", cand, "python -c ...", str(elsewhere), 0, info,
                  str(tmp_path / "run"), None)
    assert not res.passed
    assert "/site/big.pth (lines after 5000, 7 more)" in res.reason
    assert "/site/locked.pth (Permission denied)" in res.reason
    info["pth"] = [{"file": "/site/small.pth", "lines": ["/nowhere"], "cut": 0}]
    res = _decide("semver", "semver", cand, "python -c ...", str(elsewhere), 0, info,
                  str(tmp_path / "run"), None)
    assert "not fully read" not in res.reason
