"""judge-all on a real Dask cluster: a `dask scheduler` and two `dask worker` processes.

Not an in-process LocalCluster: the scheduler and the workers are separate programs on
127.0.0.1, started here as subprocesses (own process groups, bounded waits) and always
killed at the end. The cluster run must give the same verdicts and write the same files
as the local run, and killing a worker in the middle must not lose a task.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gavelkit.task.judging.fleet import FleetOptions, judge_all
from test_judge_fleet import fleet

pytest.importorskip("dask.distributed")
DASK = shutil.which("dask") or str(Path(sys.executable).with_name("dask"))
if not Path(DASK).exists():
    pytest.skip("the dask command is not installed", allow_module_level=True)


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    with open(log, "wb") as fh:
        return subprocess.Popen([DASK, *args], stdout=fh, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env, start_new_session=True)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)


def _wait_workers(addr: str, n: int, timeout: float = 60) -> None:
    from dask.distributed import Client

    with Client(addr, timeout=timeout) as client:
        client.wait_for_workers(n, timeout=timeout)


def _files(root: Path) -> dict[str, set[str]]:
    """Per task: the files judge-all wrote (relative), without timing-dependent content."""
    out = {}
    for task in sorted(p for p in root.iterdir() if p.is_dir()):
        out[task.name] = {str(p.relative_to(task)) for p in task.rglob("*")
                          if p.is_file() and ("judge" in p.parts or p.name in (
                              "score_result.json", "run_meta.json"))}
    return out


@pytest.fixture
def cluster(tmp_path: Path, subprocess_env: dict[str, str]):  # type: ignore[no-untyped-def]
    port = _port()
    addr = f"tcp://127.0.0.1:{port}"
    env = {**subprocess_env, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    procs: list[subprocess.Popen[bytes]] = []
    logs = tmp_path / "dask-logs"
    logs.mkdir()
    try:
        procs.append(_start(["scheduler", "--host", "127.0.0.1", "--port", str(port),
                             "--no-dashboard"], logs / "scheduler.log", env))
        for i in range(2):
            procs.append(_start(["worker", addr, "--nworkers", "1", "--nthreads", "1",
                                 "--no-dashboard", "--host", "127.0.0.1",
                                 "--name", f"w{i}"], logs / f"worker{i}.log", env))
        try:
            _wait_workers(addr, 2)
        except Exception as exc:  # pragma: no cover - shows the logs on a start failure
            text = "\n".join(p.read_text("utf-8", "replace")[-1500:] for p in logs.iterdir())
            pytest.fail(f"the dask cluster did not start: {exc}\n{text}")
        yield addr, procs
    finally:
        for p in procs:
            _kill(p)


def test_judge_all_on_a_real_cluster_matches_the_local_run(tmp_path: Path, cluster) -> None:  # type: ignore[no-untyped-def]
    addr, procs = cluster
    local = fleet(tmp_path / "local", 3)
    remote = fleet(tmp_path / "remote", 3)
    rows_local = judge_all(local, FleetOptions(move_state=False))
    killed: list[float] = []

    def progress(msg: str, done: int | None = None, total: int | None = None) -> None:
        if done == 1 and not killed:  # one task back: kill a worker while others run
            _kill(procs[1])
            killed.append(time.monotonic())

    rows = judge_all(remote, FleetOptions(executor="dask", scheduler=addr, move_state=False),
                     progress=progress)
    assert killed, "the worker was not killed mid-run"
    assert [r.get("error") for r in rows] == [None] * 3
    key = ("task", "verdict", "route", "passed", "total", "reference_rate", "anti_cheat")
    assert [{k: r.get(k) for k in key} for r in rows] == \
        [{k: r.get(k) for k in key} for r in rows_local]
    assert _files(remote) == _files(local)


def test_cli_judge_all_with_scheduler(tmp_path: Path, cluster) -> None:  # type: ignore[no-untyped-def]
    from gk_testing import cli_json

    addr, _ = cluster
    tasks = fleet(tmp_path, 2)
    _rc, doc = cli_json("task", "judge-all", str(tasks), "--executor", "dask",
                       "--scheduler", addr, "--no-state")
    assert [r.get("error") for r in doc["tasks"]] == [None, None]
    assert all(r["reference_rate"] == 1.0 for r in doc["tasks"])
