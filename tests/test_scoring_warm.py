"""The prestarted test process (task.scoring.warm): same results as a cold start, never the
wrong code, always ended."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from gavelkit.task.scoring import warm
from gavelkit.task.scoring.envbuild import build_env
from gavelkit.task.scoring.options import RunOptions
from gavelkit.task.scoring.runner import run_solution
from judge_helpers import BROKEN, make_task, ref_solution, solution

from gk_testing import clean, cli, cli_json, fires

SRC = Path(__file__).resolve().parents[1] / "src"


def _env(task: Path):  # type: ignore[no-untyped-def]
    return build_env(task / "oracle" / "requirements.txt")


def _cases(score: dict) -> list[tuple[str, str]]:
    return [(c["nodeid"], c["outcome"]) for c in score["cases"]]


def _cli_run(task: Path, sol: Path, out: Path, *extra: str) -> dict:
    rc, doc = cli_json("task", "run", str(task), "--solution", str(sol), "--out", str(out),
                       "--package", "tally", "--quiet", *extra)
    assert rc in (0, 1), doc
    return json.loads((out / "score_result.json").read_text())


def test_prestarted_run_scores_like_a_cold_start(tmp_path: Path) -> None:
    task = make_task(tmp_path)
    sol = solution(tmp_path, "broken", {"tally/__init__.py": BROKEN})
    _env(task)
    cold = run_solution(task, RunOptions(solution=sol, out=tmp_path / "cold", package="tally"))
    assert cold.score["gavel"]["processes"]["prestarted"] == {"used": False,
                                                               "why_not": "not prestarted"}
    hot = _cli_run(task, sol, tmp_path / "hot")
    assert hot["gavel"]["processes"]["prestarted"] == {"used": True, "why_not": ""}
    assert not [f for f in hot["gavel"]["findings"] if f["code"] == "TSK-X023"]
    clean(cold.findings, "TSK-X023")
    assert _cases(hot) == _cases(cold.score) and hot["summary"] == cold.summary
    assert hot["summary"]["failed"] >= 2  # the broken solution really ran
    assert hot["gavel"]["isolation"]["active"] == cold.score["gavel"]["isolation"]["active"]
    assert not (tmp_path / "hot" / "logs" / ".warm.log").exists()
    assert (tmp_path / "hot" / "logs" / "all-files.log").is_file()


LIMITS = '''
import resource


def test_round_trip():
    assert resource.getrlimit(resource.RLIMIT_AS)[0] == 3000 * 1024 * 1024
    assert resource.getrlimit(resource.RLIMIT_CORE) == (0, 0)


def test_workflow_with_fixture():
    assert resource.getrlimit(resource.RLIMIT_CPU)[0] == 1800
    assert resource.getrlimit(resource.RLIMIT_FSIZE)[0] == 512 * 1024 * 1024
'''


@pytest.mark.parametrize("prestart", [True, False])
def test_limits_hold_in_a_prestarted_and_a_cold_process(tmp_path: Path, prestart: bool) -> None:
    task = make_task(tmp_path)
    (task / "oracle" / "test_integration.py").write_text(LIMITS)
    sol = ref_solution(tmp_path)
    _env(task)
    if prestart:
        score = _cli_run(task, sol, tmp_path / "out", "--memory-mb", "3000")
    else:
        score = run_solution(task, RunOptions(solution=sol, out=tmp_path / "out", package="tally",
                                              memory_mb=3000)).score
    assert score["gavel"]["processes"]["prestarted"]["used"] is prestart
    assert score["summary"]["passed"] == 7, score["cases"]


SHADOW = '''
import iniconfig


def test_round_trip():
    assert "site-packages" in iniconfig.__file__, iniconfig.__file__


def test_workflow_with_fixture():
    import tally

    assert tally.parse("||").total == 2
'''


def test_a_solution_shadowing_a_module_pytest_imports_is_never_used(tmp_path: Path) -> None:
    """A solution shipping its own iniconfig (a module pytest itself imports): the
    solution's folder comes after the standard library and site-packages (issue 24), so
    pytest and the tests get the environment's in a prestarted and in a cold process
    alike; TSK-X023 names the module."""
    task = make_task(tmp_path)
    (task / "oracle" / "test_integration.py").write_text(SHADOW)
    sol = ref_solution(tmp_path)
    env = _env(task)
    where = subprocess.run([env.python, "-c", "import iniconfig; print(iniconfig.__file__)"],
                           capture_output=True, text=True, check=True).stdout.strip()
    src = Path(where)
    if src.name == "__init__.py":
        import shutil

        shutil.copytree(src.parent, sol / "iniconfig")
    else:
        (sol / src.name).write_bytes(src.read_bytes())
    score = _cli_run(task, sol, tmp_path / "out", "--role", "reference")
    assert score["gavel"]["processes"]["prestarted"]["used"] is True
    assert score["summary"]["passed"] == 7, score["cases"]
    shadow = [f for f in score["gavel"]["findings"] if f["code"] == "TSK-X023"]
    assert len(shadow) == 1 and shadow[0]["data"]["modules"] == ["iniconfig"], shadow
    cold = run_solution(task, RunOptions(solution=sol, out=tmp_path / "cold", package="tally",
                                         role="reference"))
    f = fires(cold.findings, "TSK-X023")
    assert f.data["modules"] == ["iniconfig"] and f.path == str(sol)
    assert cold.summary == score["summary"]


def test_shadowed_modules_names_runner_modules_but_not_the_target(tmp_path: Path) -> None:
    from gavelkit.task.scoring.worktree import shadowed_modules

    root = tmp_path / "sol"
    for rel in ("packaging/__init__.py", "json.py", "tally/__init__.py", "docs/index.md",
                "email/readme.txt", "helpers.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    assert shadowed_modules(root, "tally") == ["json", "packaging"]
    assert shadowed_modules(root, "packaging") == ["json"]  # a task rebuilding packaging
    assert shadowed_modules(tmp_path / "missing", "tally") == []


def test_go_refuses_a_folder_that_shadows_an_imported_module(tmp_path: Path) -> None:
    """Only the folders put before the standard library (gavel's plugin, the target
    package alone) can shadow what the warm-up imported: the process then declines."""
    task = make_task(tmp_path)
    env = _env(task)
    run_dir = warm.run_folder()
    try:
        (run_dir / "pkgview" / "pluggy").mkdir()
        w = warm.Warm(run_dir, env.python, Path(env.path), [task.resolve()],
                      (4096, warm.CPU_SECONDS, warm.FSIZE_MB), None)
        assert w.wait_ready()
        msg = {"argv": ["--version"], "env": {"PATH": "/usr/bin"}, "plugin": {},
               "front": [str(run_dir / "pkgview")], "back": [str(run_dir / "work")]}
        assert not w.go(json.dumps(msg).encode())
        assert "pluggy" in w.why and w.state == "cancelled"
        assert w.proc.returncode is not None  # ended, not left behind
    finally:
        w.close()
    assert not run_dir.exists()


def test_compatible_names_what_differs(tmp_path: Path) -> None:
    task = make_task(tmp_path)
    env = _env(task)
    w = warm.Warm(warm.run_folder(), env.python, Path(env.path), [task.resolve()],
                  (4096, warm.CPU_SECONDS, warm.FSIZE_MB), None)
    try:
        same = (env.python, Path(env.path), [task.resolve()], (4096, warm.CPU_SECONDS,
                                                               warm.FSIZE_MB))
        assert w.compatible(*same) == ""
        assert "environment" in w.compatible(env.python, tmp_path, *same[2:])
        assert "hidden" in w.compatible(*same[:2], [tmp_path], same[3])
        assert "limits" in w.compatible(*same[:3], (100, 1, 1))
    finally:
        w.close()
    assert w.compatible(*same) == "cancelled" and w.proc.returncode is not None


def test_prestart_only_when_it_can_help(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    task = make_task(tmp_path)
    sol = ref_solution(tmp_path)
    _env(task)
    kw = {"spec": None, "install": "auto", "isolation": "none", "memory_mb": 4096}
    w = warm.prestart(str(task), solution=str(sol), python=None, **kw)
    assert w.state == "started"
    w.close()

    def why(**over: object) -> str:
        got = warm.prestart(**{"task_dir": str(task), "solution": str(sol), "python": None,
                               **kw, **over})
        assert got.state == "not started" and got.run_dir is None
        return got.record()["why_not"]
    assert "--python" in why(python=sys.executable)
    (sol / "pyproject.toml").write_text("[project]\nname = 'tally'\nversion = '1'\n")
    assert "project" in why()
    (sol / "pyproject.toml").unlink()
    assert "no task folder" in why(task_dir=str(tmp_path / "nowhere"))
    monkeypatch.setenv("GAVEL_NO_PRESTART", "1")
    assert "GAVEL_NO_PRESTART" in why()
    monkeypatch.delenv("GAVEL_NO_PRESTART")
    monkeypatch.setenv("GAVEL_CACHE_DIR", str(tmp_path / "empty-cache"))  # not built yet
    assert "not built yet" in why()


def test_a_run_that_was_not_prestarted_says_why(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    task = make_task(tmp_path)
    _env(task)
    monkeypatch.setenv("GAVEL_NO_PRESTART", "1")
    score = _cli_run(task, ref_solution(tmp_path), tmp_path / "out")
    assert score["gavel"]["processes"]["prestarted"] == {
        "used": False, "why_not": "switched off (GAVEL_NO_PRESTART is set)"}
    assert score["summary"]["passed"] == 7


def _spy_warms(monkeypatch: pytest.MonkeyPatch) -> list[warm.Warm]:
    """Every Warm the command makes, to check afterwards that each one has ended."""
    made: list[warm.Warm] = []
    real = warm.Warm.__init__

    def spy(self, *a, **k):  # type: ignore[no-untyped-def]
        real(self, *a, **k)
        made.append(self)
    monkeypatch.setattr(warm.Warm, "__init__", spy)
    return made


def test_bad_input_after_the_prestart_leaves_nothing_behind(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    task = make_task(tmp_path)
    _env(task)
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    made = _spy_warms(monkeypatch)
    (task / "kept_nodeids.txt").write_bytes(b"\xff\xfe binary \x00")  # unusable: exit 2
    rc, _, err = cli("task", "run", str(task), "--solution", str(ref_solution(tmp_path)),
                     "--out", str(tmp_path / "out"))
    assert rc == 2 and "kept_nodeids.txt" in err, err
    assert made and all(w.proc.returncode is not None for w in made)
    assert list(temp.iterdir()) == []


def test_fast_exit_keeps_output_and_exit_code(tmp_path: Path) -> None:
    task = make_task(tmp_path)
    _env(task)
    env = {**os.environ, "PYTHONPATH": str(SRC), "GAVEL_PROGRESS": "0"}
    cmd = [sys.executable, "-m", "gavelkit", "task", "run", str(task), "--solution",
           str(ref_solution(tmp_path)), "--out", str(tmp_path / "out"), "--format", "json"]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["summary"]["passed"] == 7
    p = subprocess.run([*cmd[:5], str(tmp_path / "no-task"), *cmd[6:]], capture_output=True,
                       text=True, env=env, check=False)
    assert p.returncode == 2 and "no-task" in p.stderr


EARLY_AGREE = [
    ("run", ["T", "--solution", "S", "--out", "O"]),
    ("run", ["--out=O", "T", "--solution-package", "semver==3.0.2", "--role", "reference",
             "--quiet", "--format", "json"]),
    ("run", ["T", "--solution", "S", "--out", "O", "--memory-mb", "3000", "--isolation", "none",
             "--install", "never", "--offline", "--group", "file", "--repeat", "2"]),
    ("run", ["T", "--solution", "S", "--out", "O", "--python", "py", "--timeout", "5",
             "--file-timeout", "9", "--package", "p", "--reference-run", "r.json", "-q"]),
    ("solvability", ["T", "--reference", "S"]),
    ("solvability", ["T", "--reference-package", "x==1", "--out", "O", "--threshold", "0.9"]),
]
EARLY_ASIDE = [
    ("run", ["T", "--out", "O"]),                                    # no solution
    ("run", ["T", "--solution", "S", "--solution-package", "x", "--out", "O"]),  # both
    ("run", ["T", "--sol", "S", "--out", "O"]),                      # abbreviation
    ("run", ["T", "--solution", "S", "--out", "O", "--remove-path", "a"]),  # repeatable
    ("run", ["T", "--solution", "S", "--out", "O", "--memory-mb", "lots"]),
    ("run", ["T", "--solution", "S", "--out", "O", "--memory-mb", "0"]),
    ("run", ["T", "--solution", "S", "--out", "O", "--isolation", "docker"]),
    ("run", ["T", "--solution", "S", "--out", "O", "-h"]),
    ("solvability", ["T", "--solution", "S"]),                       # the other command's
]


@pytest.mark.parametrize(("command", "argv"), EARLY_AGREE)
def test_early_reader_agrees_with_the_commands_parser(command: str, argv: list[str]) -> None:
    from gavelkit.cli.task_early import read
    from gavelkit.cli.task_judging import run_parser, solvability_parser

    fast = read(command, argv)
    assert fast is not None
    full = (run_parser if command == "run" else solvability_parser)("gavel").parse_args(argv)
    sol, spec = (("solution", "solution_package") if command == "run" else
                 ("reference", "reference_package"))
    assert fast.task == full.task and fast.spec == getattr(full, spec)
    assert (fast.solution is None) == (getattr(full, sol) is None)
    if fast.solution is not None:  # argparse makes it absolute; prestart resolves it
        assert Path(fast.solution).resolve() == Path(getattr(full, sol)).resolve()
    for key in ("install", "python", "isolation", "memory_mb"):
        assert getattr(fast, key) == getattr(full, key), key


@pytest.mark.parametrize(("command", "argv"), EARLY_ASIDE)
def test_early_reader_steps_aside(command: str, argv: list[str]) -> None:
    from gavelkit.cli.task_early import read

    assert read(command, argv) is None


def test_an_early_process_the_command_refuses_is_ended(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Prestarted before argparse, then argparse refuses the command line (exit 2): the
    process and its run folder are gone."""
    task = make_task(tmp_path)
    _env(task)
    made = _spy_warms(monkeypatch)
    rc, _, err = cli("task", "run", str(task), "--solution", str(ref_solution(tmp_path)),
                     "--out", str(tmp_path / "out"), "--timeout", "0")
    assert rc == 2 and "--timeout" in err
    assert len(made) == 1 and made[0].proc.returncode is not None
    assert not made[0].run_dir.exists() and not warm.EARLY


def test_a_warm_up_that_hangs_is_abandoned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An interpreter that never gets ready (here: a stand-in that sleeps) is killed after
    READY_TIMEOUT and the run starts cold; the parent never waits forever."""
    hang = tmp_path / "python"
    hang.write_text("#!/bin/sh\nexec sleep 30\n")
    hang.chmod(0o755)
    monkeypatch.setattr(warm, "READY_TIMEOUT", 0.3)
    w = warm.Warm(warm.run_folder(), str(hang), tmp_path, [tmp_path],
                  (4096, warm.CPU_SECONDS, warm.FSIZE_MB), None)
    try:
        assert not w.go(b"{}")
        assert "not ready after 0.3 s" in w.why and w.proc.returncode is not None
    finally:
        w.close()


def test_a_fifo_task_json_never_blocks_the_prestart(tmp_path: Path) -> None:
    """The early hook reads task.json before the command's own checks: a FIFO there must
    not block it (it did, once); the command then refuses the FIFO by name."""
    task = make_task(tmp_path)
    (task / "task.json").unlink()
    os.mkfifo(task / "task.json")
    env = {**os.environ, "PYTHONPATH": str(SRC), "GAVEL_PROGRESS": "0"}
    p = subprocess.run([sys.executable, "-m", "gavelkit", "task", "run", str(task),
                        "--solution", str(ref_solution(tmp_path)), "--out",
                        str(tmp_path / "out")], capture_output=True, text=True, env=env,
                       timeout=60, check=False)
    assert p.returncode == 2 and "FIFO" in p.stderr, p.stderr
