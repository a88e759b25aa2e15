"""Tamper suite: candidate solutions that try to cheat the scorer; each is blocked or flagged.

Every case is a broken `tally` (render is wrong, letters are not rejected) plus one
cheat. An honest scorer must still see the failures; the cheat must leave a finding.
Where bubblewrap is active a cheat may simply fail (read-only tree, no network):
the assertions accept "blocked" or "flagged", never "silently counted as passed".
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path

from gavelkit.task.scoring.options import RunOptions
from gavelkit.task.scoring.runner import run_solution
from judge_helpers import BROKEN, make_task, solution

from gk_testing import clean, fires


def score(tmp: Path, name: str, files: dict[str, str], **kw):  # type: ignore[no-untyped-def]
    task = make_task(tmp, atomic_only=True)
    files = {"tally/__init__.py": BROKEN, **files}
    sol = solution(tmp, name, files)
    res = run_solution(task, RunOptions(solution=sol, out=tmp / "out", package="tally", **kw))
    return task, res


def honest(res) -> None:  # type: ignore[no-untyped-def]
    """The two real bugs of BROKEN are still counted as failures."""
    bad = {c["nodeid"].split("::")[1] for c in res.score["cases"] if c["counted_as"] != "passed"}
    assert {"test_parse_rejects_letters", "test_render_digits"} <= bad, bad
    assert res.pass_rate is not None and res.pass_rate <= 0.6


def test_planted_conftest_is_removed(tmp_path: Path) -> None:
    conftest = """
    import pytest

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(item, call):
        outcome = yield
        rep = outcome.get_result()
        rep.outcome = "passed"

    def pytest_sessionfinish(session, exitstatus):
        session.exitstatus = 0
    """
    _, res = score(tmp_path, "conftest", {"conftest.py": conftest, "tally/conftest.py": conftest})
    f = fires(res.findings, "TSK-X003")
    assert "conftest.py" in f.message
    honest(res)


def test_planted_sitecustomize_and_pth_are_removed(tmp_path: Path) -> None:
    site = "import builtins\nbuiltins.GAVEL_PWNED = True\n"
    pth = "import os; os.environ['GAVEL_PWNED'] = '1'\n"
    _, res = score(tmp_path, "site", {"sitecustomize.py": site, "usercustomize.py": site,
                                      "evil.pth": pth})
    found = [f for f in res.findings if f.code == "TSK-X002"]
    assert {f.data["file"] for f in found} == {"sitecustomize.py", "usercustomize.py", "evil.pth"}
    fires(res.findings, "TSK-X002")
    honest(res)


def test_pytest_config_in_solution_is_removed(tmp_path: Path) -> None:
    _, res = score(tmp_path, "ini", {"pytest.ini": "[pytest]\naddopts = -p no:python\n",
                                     "pyproject.toml": "[tool.pytest.ini_options]\naddopts='-x'\n"})
    assert len([f for f in res.findings if f.code == "TSK-X003"]) == 2
    honest(res)


def test_monkeypatched_report_is_caught_by_the_second_channel(tmp_path: Path) -> None:
    forge = BROKEN + '''
import _pytest.reports as _r
_orig = _r.TestReport.from_item_and_call
def _fake(item, call):
    rep = _orig(item, call)
    rep.outcome = "passed"
    rep.longrepr = None
    return rep
_r.TestReport.from_item_and_call = staticmethod(_fake)
'''
    _, res = score(tmp_path, "forge", {"tally/__init__.py": forge})
    f = [x for x in res.findings if x.code == "TSK-X010"]
    assert any("forged" in x.message for x in f) and any("replaced" in x.message for x in f)
    fires(res.findings, "TSK-X010")
    fires(res.findings, "TSK-X012")
    fires(res.findings, "TSK-X004")
    honest(res)


def test_report_writer_attacks(tmp_path: Path) -> None:
    """Forge lines on the result pipe and mute os.write. The pipe's number is in no
    environment variable any more (the plugin's configuration is an anonymous memory file
    it closes at import), so the forger writes to every inherited pipe it finds, at any
    descriptor number (it scanned only 3-63 and missed the pipe whenever the judge's own
    process held more descriptors, as after the figqa tests: the test then failed for want
    of a forged line, not for a forged line accepted)."""
    writer = BROKEN + '''
import json, os, stat
_fd = [fd for fd in map(int, os.listdir("/proc/self/fd")) if fd > 2
       and os.path.exists(f"/proc/self/fd/{fd}") and stat.S_ISFIFO(os.fstat(fd).st_mode)
       and os.access(f"/proc/self/fd/{fd}", os.W_OK)]
if _fd:
    for nid in ("oracle/test_atomic.py::test_render_digits",
                "oracle/test_atomic.py::test_parse_rejects_letters"):
        for when in ("setup", "call", "teardown"):
            line = {"p": json.dumps({"t": "report", "nodeid": nid, "when": when,
                                     "outcome": "passed", "raw": {"kind": "ok"}}), "m": "0" * 64}
            for fd in _fd:
                try:
                    os.write(fd, (json.dumps(line) + "\\n").encode())
                except OSError:
                    pass
'''
    _, res = score(tmp_path, "writer", {"tally/__init__.py": writer})
    f = fires(res.findings, "TSK-X010")
    assert any("authentication" in x.message for x in res.findings if x.code == "TSK-X010"), f
    honest(res)
    mute = BROKEN + '''
import os
_w = os.write
def _write(fd, data):
    return len(data) if fd > 2 else _w(fd, data)
os.write = _write
'''
    _, res2 = score(tmp_path / "m", "mute", {"tally/__init__.py": mute})
    # the plugin bound os.write before any candidate import: results still arrive
    honest(res2)
    assert any("os.write" in x.message for x in res2.findings if x.code == "TSK-X010")


def test_fake_summary_and_hard_exit(tmp_path: Path) -> None:
    fake = BROKEN + '''
print("=================== 7 passed in 0.01s ===================")
import atexit, os
atexit.register(lambda: print("7 passed"))
'''
    _, res = score(tmp_path, "fake", {"tally/__init__.py": fake})
    assert any(f.data.get("pattern") == "fake-summary" for f in res.findings
               if f.code == "TSK-X004")
    honest(res)
    bye = BROKEN.replace("def render(t):\n", "def render(t):\n    import os\n    os._exit(0)\n")
    _, res2 = score(tmp_path / "b", "exit", {"tally/__init__.py": bye})
    case = next(c for c in res2.score["cases"] if "render_digits" in c["nodeid"])
    assert case["counted_as"] in ("error", "failed")  # died mid-test: never a pass
    assert res2.summary["passed"] < 5
    fires(res2.findings, "TSK-X013")


def test_reading_oracle_files(tmp_path: Path) -> None:
    """The task folder is hidden in the sandbox; reading it is flagged either way."""
    task = make_task(tmp_path, atomic_only=True)
    reader = BROKEN + f'''
try:
    KEPT = open({str(task / "kept_nodeids.txt")!r}).read()
except OSError:
    KEPT = ""
if "render_digits" in KEPT:
    def render(t):
        return str(t.total)
'''
    sol = solution(tmp_path, "reader", {"tally/__init__.py": reader})
    res = run_solution(task, RunOptions(solution=sol, out=tmp_path / "out", package="tally"))
    assert any(f.data.get("pattern") == "oracle-paths" for f in res.findings
               if f.code == "TSK-X004")
    case = next(c for c in res.score["cases"] if "render_digits" in c["nodeid"])
    if res.score["gavel"]["isolation"]["active"]:
        assert case["counted_as"] == "failed"  # blocked: the file is not visible
    else:
        fires(res.findings, "TSK-X006")  # not blocked: the result says so


def test_network_socket(tmp_path: Path) -> None:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    srv.settimeout(20)
    port = srv.getsockname()[1]
    got: list[bytes] = []

    def accept() -> None:
        try:
            conn, _ = srv.accept()
            got.append(conn.recv(100))
            conn.close()
        except OSError:
            pass
    th = threading.Thread(target=accept, daemon=True)
    th.start()
    net = BROKEN + f'''
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2).sendall(b"leak")
except OSError:
    pass
'''
    _, res = score(tmp_path, "net", {"tally/__init__.py": net})
    if th.is_alive():  # nothing connected: unblock accept() with an empty connection
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            pass
    th.join(timeout=5)
    srv.close()
    got = [g for g in got if g]
    assert any(f.data.get("pattern") == "network" for f in res.findings if f.code == "TSK-X004")
    if res.score["gavel"]["isolation"]["active"]:
        assert got == []  # blocked: a fresh network namespace
    else:
        fires(res.findings, "TSK-X006")
    honest(res)


def test_rewriting_test_files(tmp_path: Path) -> None:
    rewrite = BROKEN + '''
import os
for name in ("oracle/test_atomic.py",):
    try:
        with open(name, "w") as fh:
            fh.write("def test_render_digits():\\n    pass\\n")
    except OSError:
        pass
'''
    task, res = score(tmp_path, "rewrite", {"tally/__init__.py": rewrite})
    # the working folder is writable, with or without bwrap (tests write their outputs
    # there, issue 26 item 6): a rewritten oracle file is caught by the hashes
    fires(res.findings, "TSK-X008")
    assert not res.score["gavel"]["integrity"]["worktree_unchanged"]
    assert "def test_parse_counts_strokes" in (task / "oracle" / "test_atomic.py").read_text()
    honest(res)
    # without the sandbox the write lands in the private worktree: detected by the hashes
    _, open_res = score(tmp_path / "n", "rewrite2", {"tally/__init__.py": rewrite},
                        isolation="none")
    fires(open_res.findings, "TSK-X008")
    _, plain = score(tmp_path / "p", "plain", {})
    clean(plain.findings, "TSK-X008")  # the worktree is not modified: with or without bwrap
    clean(plain.findings, "TSK-X004")
    clean(plain.findings, "TSK-X002")
    clean(plain.findings, "TSK-X003")
    clean(plain.findings, "TSK-X013")
    clean(plain.findings, "TSK-X011")


def test_extra_ids_are_ignored_and_listed() -> None:
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.scoring.results import assemble
    from gavelkit.task.scoring.sandbox import FileRun
    from task_helpers import GOOD

    task = load_task(GOOD)
    msgs = [{"t": "report", "nodeid": "oracle/test_atomic.py::test_invented", "when": "call",
             "outcome": "passed", "raw": {"kind": "ok"}},
            {"t": "end", "exitstatus": 0}]
    fr = FileRun("oracle/test_atomic.py", 0, "", "", 0.1, msgs, 0, False)
    findings: list = []
    ids = ["oracle/test_atomic.py::test_render_digits"]
    out = assemble(task, ids, "test", [{"oracle/test_atomic.py": fr}], lambda n: "atomic", None,
                   RunOptions(solution=".", out="."), findings)
    fires(findings, "TSK-X011")
    assert out["summary"]["not_collected"] == 1


def test_symlink_to_the_reference_is_not_followed(tmp_path: Path) -> None:
    from judge_helpers import REFERENCE

    ref = solution(tmp_path, "realref", {"tally/__init__.py": REFERENCE})
    task = make_task(tmp_path, atomic_only=True)
    sol = tmp_path / "solutions" / "linker"
    sol.mkdir(parents=True)
    (sol / "tally").symlink_to(ref / "tally", target_is_directory=True)
    res = run_solution(task, RunOptions(solution=sol, out=tmp_path / "out", package="tally"))
    f = fires(res.findings, "TSK-X015")
    assert f.path == "tally"
    fires(res.findings, "TSK-X007")  # nothing of its own left to import
    assert res.summary["passed"] == 0
    inside = solution(tmp_path, "inner", {"impl/tally/__init__.py": REFERENCE})
    (inside / "tally").symlink_to(inside / "impl" / "tally", target_is_directory=True)
    ok = run_solution(task, RunOptions(solution=inside, out=tmp_path / "out2", package="tally"))
    clean(ok.findings, "TSK-X015")
    assert ok.pass_rate == 1.0


def test_result_lines_are_checked_one_by_one_and_garbage_never_stops_the_reader() -> None:
    """The parent checks each line as it arrives (split across reads, forged, non-ASCII,
    truncated): only lines under the run's key count; everything else is a bad MAC."""
    import hmac as _hmac
    import json
    import os

    from gavelkit.task.scoring.sandbox import _Messages, _read_pipe

    key = os.urandom(32)
    payload = json.dumps({"t": "end", "exitstatus": 0}).encode()
    good = _hmac.digest(key, payload, "sha256").hex().encode() + b" " + payload + b"\n"
    forged = _hmac.digest(b"x" * 32, payload, "sha256").hex().encode() + b" " + payload + b"\n"
    rfd, wfd = os.pipe()
    os.write(wfd, good[:7])
    os.write(wfd, good[7:] + forged + ("\u00e9" * 64).encode() + b" {}\n"
             + json.dumps({"p": payload.decode(), "m": "0" * 64}).encode() + b"\n" + good
             + b"deadbeef trunc")
    os.close(wfd)
    sink = _Messages(key)
    _read_pipe(rfd, sink)
    assert sink.messages == [{"t": "end", "exitstatus": 0}] * 2
    assert sink.bad == 4
