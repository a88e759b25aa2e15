"""Issue 24, families 1 and 7: a solution's build cannot poison later runs, use the
network or hang the judge; an environment changed after it was built is rebuilt."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

import scoring_fixtures as fx
from gavelkit.task.scoring.options import RunOptions
from gavelkit.task.scoring.runner import run_solution
from gavelkit.task.scoring.sandbox import bwrap_available

from gk_testing import fires

BWRAP = bwrap_available()[0]


@pytest.fixture
def wheels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "wheels"
    fx.dep_wheel(folder)
    monkeypatch.setenv("UV_FIND_LINKS", str(folder))
    return folder


def run(task: Path, sol: Path, out: Path, **kw):  # type: ignore[no-untyped-def]
    kw.setdefault("offline", True)
    kw.setdefault("role", "reference")
    return run_solution(task, RunOptions(solution=sol, out=out, **kw))


def _backend(proj: Path, before_build: str) -> None:
    b = proj / "gk_backend.py"
    b.write_text(b.read_text().replace("def build_wheel(wheel_directory, config_settings=None, "
                                       "metadata_directory=None):\n",
                                       "def build_wheel(wheel_directory, config_settings=None, "
                                       "metadata_directory=None):\n" + before_build))


def test_a_build_that_sleeps_is_stopped(tmp_path: Path, wheels: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAVEL_BUILD_TIMEOUT", "3")
    task = fx.task(tmp_path / "task")
    proj = fx.project(tmp_path / "checkout")
    _backend(proj, "    import time\n    time.sleep(600)\n")
    res = run(task, proj, tmp_path / "out")
    f = fires(res.findings, "TSK-X022")  # not built: scored as a plain folder, said so
    assert "did not finish within 3 s" in f.message


@pytest.mark.skipif(not BWRAP, reason="the build is confined only under bubblewrap")
def test_a_build_has_no_network(tmp_path: Path, wheels: Path) -> None:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    srv.settimeout(15)
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
    task = fx.task(tmp_path / "task")
    proj = fx.project(tmp_path / "checkout")
    _backend(proj, "    import socket\n    try:\n        socket.create_connection(('127.0.0.1', "
             f"{port}), timeout=2).sendall(b'leak')\n    except OSError:\n        pass\n")
    res = run(task, proj, tmp_path / "out")
    if th.is_alive():
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            pass
    th.join(timeout=5)
    srv.close()
    assert [g for g in got if g] == []
    assert res.score["gavel"]["install"]["build_sandbox"]["network"] == "blocked"
    assert res.summary["passed"] == 3


def test_an_environment_changed_after_it_was_built_is_rebuilt(tmp_path: Path,
                                                              wheels: Path) -> None:
    """A run without the sandbox (or anything else) appends a 'pass everything' hook to
    pytest in the task environment: the next run notices it and rebuilds."""
    task = fx.task(tmp_path / "task")
    plain = fx.plain_folder(tmp_path / "plain")
    first = run(task, plain, tmp_path / "a")
    env = Path(first.score["gavel"]["environment"]["path"])
    target = next(env.rglob("site-packages/_pytest/python.py"))
    with open(target, "a") as fh:
        fh.write("\n\ndef pytest_pyfunc_call(pyfuncitem):\n    return True\n")
    again = run(task, plain, tmp_path / "b")
    assert again.summary == first.summary
    rebuilt = again.score["gavel"]["environment"]["rebuilt_because"]
    assert any("_pytest/python.py" in r for r in rebuilt), rebuilt
    fresh = next(Path(again.score["gavel"]["environment"]["path"]).rglob(
        "site-packages/_pytest/python.py")).read_text()
    assert not fresh.endswith("def pytest_pyfunc_call(pyfuncitem):\n    return True\n")
