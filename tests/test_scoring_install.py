"""Issue 15: references and candidates installed as packages, pytest_args parsed, honest
diagnosis and counts, an absolute --python, run records with relative paths.

All offline: the `tally` project (scoring_fixtures) has a dependency served from a local
wheel folder (UV_FIND_LINKS) and an entry point, and builds with an in-tree backend.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import scoring_fixtures as fx
from gavelkit.task.scoring.counts import count_line
from gavelkit.task.scoring.install import (
    install_failure,
    is_project,
    missing_requirements,
    verify_provenance,
)
from gavelkit.task.scoring.pytestargs import parse_pytest_args
from gavelkit.task.scoring.runner import RunOptions, run_solution

from gk_testing import clean, cli, cli_json, fires


@pytest.fixture
def wheels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A local wheel folder with gkdep (and, on request, the built tally wheel)."""
    folder = tmp_path / "wheels"
    fx.dep_wheel(folder)
    monkeypatch.setenv("UV_FIND_LINKS", str(folder))
    return folder


def _tally_wheel(tmp: Path, wheels: Path) -> None:
    proj = fx.project(tmp / "wheel-src", layout="flat")
    subprocess.run([sys.executable, "-c", "import gk_backend, sys; "
                    "gk_backend.build_wheel(sys.argv[1])", str(wheels)], cwd=proj, check=True)


def run(task: Path, sol: Path | str, tmp: Path, **kw) -> object:
    kw.setdefault("offline", True)
    return run_solution(task, RunOptions(solution=sol, out=tmp / "out", **kw))


def cases(res) -> dict[str, dict]:  # type: ignore[no-untyped-def]
    return {c["nodeid"].split("::")[1]: c for c in res.score["cases"]}


# ---------------------------------------------------------------- 1, 2: installs
def test_project_checkout_is_built_and_installed_with_its_dependency(tmp_path: Path,
                                                                     wheels: Path) -> None:
    task = fx.task(tmp_path / "task")
    proj = fx.project(tmp_path / "checkout", layout="src")
    before = sorted(str(p.relative_to(proj)) for p in proj.rglob("*"))
    res = run(task, proj, tmp_path, role="reference")
    assert res.summary["passed"] == 3, res.score["cases"]
    inst = res.score["gavel"]["install"]
    assert inst["kind"] == "project" and inst["provenance"]["ok"], inst
    assert inst["provenance"]["matched"] == 2  # __init__.py and formats.py, byte-identical
    assert "site-packages" in inst["provenance"]["module_file"]
    # built from a private copy: the checkout gained no build/, egg-info or __pycache__
    assert sorted(str(p.relative_to(proj)) for p in proj.rglob("*")) == before
    clean(res.findings, "TSK-X021")
    clean(res.findings, "TSK-X022")


def test_a_build_that_changes_the_code_is_refused(tmp_path: Path, wheels: Path) -> None:
    """The installed module must be byte-identical to the solution's source."""
    task = fx.task(tmp_path / "task")
    proj = fx.project(tmp_path / "checkout", layout="src")
    backend = proj / "gk_backend.py"
    backend.write_text(backend.read_text().replace(
        "data = p.read_bytes()", "data = p.read_bytes() + b'\\nPATCHED = True\\n'"))
    res = run(task, proj, tmp_path, role="reference")
    f = fires(res.findings, "TSK-X021")
    assert "differ" in f.message and "tally/__init__.py" in f.message


def test_flat_project_and_plain_folder_both_work(tmp_path: Path, wheels: Path) -> None:
    task = fx.task(tmp_path / "task")
    flat = run(task, fx.project(tmp_path / "flat", layout="flat"), tmp_path / "a",
               role="reference")
    assert flat.summary["passed"] == 3
    plain = run(task, fx.plain_folder(tmp_path / "plain"), tmp_path / "b", role="reference")
    assert plain.summary["passed"] == 3
    assert plain.score["gavel"]["install"]["kind"] == "none"
    assert plain.score["gavel"]["import_root_layout"] == "flat"


def test_reference_package_spec_installs_with_dependencies(tmp_path: Path,
                                                           wheels: Path) -> None:
    from gavelkit.task.scoring.solvability import check_solvability

    _tally_wheel(tmp_path, wheels)
    task = fx.task(tmp_path / "task")
    opts = RunOptions(solution="", out=tmp_path / "ref", offline=True)
    res = check_solvability(task, None, "tally==0.1", opts)
    assert res.passed and res.rate == 1.0, res.run.score["cases"]
    inst = res.run.score["gavel"]["install"]
    assert inst["kind"] == "spec" and inst["provenance"]["ok"]
    assert inst["provenance"]["distribution"] == "tally 0.1"


def test_offline_install_names_the_missing_requirement(tmp_path: Path, wheels: Path) -> None:
    task = fx.task(tmp_path / "task")
    proj = fx.project(tmp_path / "checkout", dep="gk-nowhere-to-be-found>=1")
    res = run(task, proj, tmp_path, role="reference")
    f = fires(res.findings, "TSK-X005")
    assert "'gk-nowhere-to-be-found'" in f.message and "missing" in f.message
    # every test is an environment failure, named as such, never the oracle's or candidate's
    assert {c["classification"]["class"] for c in res.score["cases"]} == {"environment"}
    stderr = ("  × No solution found when resolving dependencies:\n  ╰─▶ Because six was not "
              "found in the cache and tally==0.1 depends on six, we can conclude ...\n"
              "hint: Packages were unavailable because the network was disabled.")
    assert missing_requirements(stderr) == ["six"]
    assert "requirement 'six' is missing (the package index cannot be reached" in \
        install_failure("tally", stderr, offline=True)


def test_provenance_refuses_code_that_differs_from_the_source(tmp_path: Path,
                                                              wheels: Path) -> None:
    task = fx.task(tmp_path / "task")
    proj = fx.project(tmp_path / "checkout", layout="src")
    res = run(task, proj, tmp_path, role="reference")
    env = res.score["gavel"]["environment"]
    src = proj / "src"
    assert verify_provenance(env["python"], Path(env["path"]), "tally", source_root=src)["ok"]
    (src / "tally" / "formats.py").write_text("class Bars:\n    pass\n")
    bad = verify_provenance(env["python"], Path(env["path"]), "tally", source_root=src)
    assert not bad["ok"] and bad["differs"] == ["tally/formats.py"]
    assert is_project(proj) and not is_project(src)


# ---------------------------------------------------------------- 3: pytest_args
def test_pytest_args_keep_option_values(tmp_path: Path) -> None:
    args = ["--continue-on-collection-errors", "-p", "no:cacheprovider"]
    task = fx.task(tmp_path / "task", pytest_args=args)
    res = run(task, fx.plain_folder(tmp_path / "plain"), tmp_path, role="reference")
    assert res.summary["passed"] == 3
    pa = res.score["gavel"]["pytest_args"]
    assert pa["kept"] == args and pa["dropped"] == [] and pa["refused"] == []
    clean(res.findings, "TSK-X020")


def test_pytest_args_parsing_rules() -> None:
    r = parse_pytest_args(["-W", "error::DeprecationWarning", "--tb=short", "-vs", "-x",
                           "-k", "slow", "--cov", "src", "-n", "4", "tests/", "-p", "tally",
                           "-pno:randomly", "-o", "addopts=-x", "-o", "xfail_strict=true",
                           "--import-mode=importlib", "--pyargs", "--mystery", "v"], {"anyio"})
    assert r.kept == ["-W", "error::DeprecationWarning", "--tb=short", "-v", "-s", "-p",
                      "no:randomly", "-o", "xfail_strict=true", "--import-mode=importlib"]
    assert [d["args"] for d in r.dropped] == [["--cov", "src"], ["-n", "4"], ["tests/"],
                                              ["--mystery", "v"]]
    assert [d["args"] for d in r.refused] == [["-x"], ["-k", "slow"], ["-p", "tally"],
                                              ["-o", "addopts=-x"], ["--pyargs"]]
    assert r.disabled_plugins == ["randomly"]
    assert all(d["why"] for d in r.dropped + r.refused)


def test_refused_and_dropped_args_are_recorded_and_shown(tmp_path: Path) -> None:
    task = fx.task(tmp_path / "task", pytest_args=["-x", "-p", "tally", "--cov", "src"])
    sol = fx.plain_folder(tmp_path / "plain")
    _rc, out, _ = cli("task", "run", str(task), "--solution", str(sol), "--out",
                     str(tmp_path / "o"), "--offline", "--role", "reference")
    assert "pytest_args refused: -p tally" in out and "pytest_args dropped: --cov src" in out
    assert "3/3 passed" in out
    score = json.loads((tmp_path / "o" / "score_result.json").read_text())
    assert [d["args"] for d in score["gavel"]["pytest_args"]["refused"]] == [["-x"],
                                                                             ["-p", "tally"]]
    _rc, doc = cli_json("task", "run", str(task), "--solution", str(sol), "--out",
                       str(tmp_path / "o2"), "--offline", "--role", "reference")
    from gavelkit.core.findings import Finding

    fires([Finding(f["code"], f["severity"], f["message"]) for f in doc["findings"]],
          "TSK-X020")


def test_gavels_own_broken_command_line_is_not_the_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gavelkit.task.scoring import sandbox

    orig = sandbox.Sandbox.command

    def broken(self, files, extra):  # type: ignore[no-untyped-def]
        cmd = orig(self, files, extra)
        i = cmd.index("--continue-on-collection-errors")
        return [*cmd[:i], "--gavel-no-such-option", *cmd[i:]]
    monkeypatch.setattr(sandbox.Sandbox, "command", broken)
    task = fx.task(tmp_path / "task")
    res = run(task, fx.plain_folder(tmp_path / "plain"), tmp_path, role="reference")
    classes = {c["classification"]["class"] for c in res.score["cases"]}
    rules = {c["classification"]["rule"] for c in res.score["cases"]}
    assert classes == {"infrastructure"} and rules == {"gavel-command-line"}


# ---------------------------------------------------------------- 4: --python
def test_relative_python_is_resolved(tmp_path: Path, wheels: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    task = fx.task(tmp_path / "task")
    warm = run(task, fx.plain_folder(tmp_path / "plain"), tmp_path / "warm", role="reference")
    py = Path(warm.score["gavel"]["environment"]["python"])
    monkeypatch.chdir(py.parent.parent)  # the environment's folder: `bin/python` is relative
    res = run(task, fx.plain_folder(tmp_path / "plain2"), tmp_path, role="reference",
              python="bin/python")
    assert res.summary["passed"] == 3, res.score["cases"]
    assert Path(res.score["gavel"]["environment"]["python"]).is_absolute()
    clean(res.findings, "TSK-X013")


def test_interpreter_that_never_starts_is_an_environment_error(tmp_path: Path) -> None:
    task = fx.task(tmp_path / "task")
    bad = tmp_path / "python"
    bad.write_text("#!/bin/sh\necho 'cannot start: broken install' >&2\nexit 127\n")
    bad.chmod(0o755)
    res = run(task, fx.plain_folder(tmp_path / "plain"), tmp_path, role="reference",
              python=str(bad))
    f = fires(res.findings, "TSK-X005")
    assert "cannot start" in f.message
    assert {c["classification"]["class"] for c in res.score["cases"]} == {"environment"}
    from gavelkit.task.judging.blame import reference_diagnosis

    diag = reference_diagnosis(res.score)
    assert diag[0].startswith("3 environment failure(s)") and "cannot start" in diag[0]
    assert not any("oracle expects" in d or "oracle defect" in d for d in diag)


# ---------------------------------------------------------------- 5: blame
def _diag(tmp: Path, files: dict[str, str], **task_kw) -> list[str]:  # type: ignore[no-untyped-def]
    from gavelkit.task.judging.blame import reference_diagnosis

    task = fx.task(tmp / "task")
    data = json.loads((task / "task.json").read_text())
    data.update(task_kw)
    (task / "task.json").write_text(json.dumps(data))
    sol = tmp / "sol"
    for rel, text in files.items():
        (sol / rel).parent.mkdir(parents=True, exist_ok=True)
        (sol / rel).write_text(text)
    res = run(task, sol, tmp, role="reference")
    return reference_diagnosis(res.score)


def test_missing_third_party_module_in_the_reference_is_the_environment(tmp_path: Path) -> None:
    diag = _diag(tmp_path, {"tally/__init__.py": fx.INIT, "tally/formats.py": fx.FORMATS})
    assert diag[0].startswith("3 environment failure(s)"), diag
    assert "'gkdep'" in diag[0] and "No module named 'gkdep'" in diag[0]
    assert not any("oracle expects" in d or "oracle defect" in d for d in diag)


def test_missing_metadata_in_the_reference_is_the_environment(tmp_path: Path) -> None:
    init = fx.INIT.replace("import gkdep", "gkdep = None").replace(
        'return gkdep.count(text, "|")', 'return text.count("|")')
    diag = _diag(tmp_path, {"tally/__init__.py": init, "tally/formats.py": fx.FORMATS})
    text = "\n".join(diag)
    assert "environment" in diag[0] and "metadata" in text, diag
    assert "oracle expects other behaviour" not in text


def test_missing_own_name_in_the_reference_is_its_version(tmp_path: Path) -> None:
    old = "def total(text):\n    return text.count('|')\n"  # an older release: no formats
    diag = _diag(tmp_path, {"tally/__init__.py": old}, repo_commit="abc1234")
    text = "\n".join(diag)
    assert "reference version" in text and "abc1234" in text, diag
    assert "oracle expects other behaviour" not in text


def test_only_a_cleanly_importing_reference_points_at_the_oracle(tmp_path: Path) -> None:
    init = fx.INIT.replace("import gkdep", "gkdep = None").replace(
        'return gkdep.count(text, "|")', 'return 99').replace(
        "for ep in entry_points", "from tally.formats import Bars\n    return Bars\n"
        "    for ep in entry_points").replace('return version("tally")', 'return "0.1"')
    diag = _diag(tmp_path, {"tally/__init__.py": init, "tally/formats.py": fx.FORMATS})
    assert any("the oracle expects other behaviour" in d for d in diag), diag
    assert "assert 99 == 3" in "\n".join(diag)


# ---------------------------------------------------------------- 6: counts
def test_counts_state_the_skip_rule(tmp_path: Path) -> None:
    assert count_line({"passed": 89, "total": 90, "skipped": 1}, 1.0) == \
        "89/90 passed; 1 skipped; 100.0 % of non-skipped"
    assert count_line({"passed": 2, "total": 3, "skipped": 0}) == "2/3 passed; 66.7 % of all"
    assert "no rate" in count_line({"passed": 0, "total": 2, "skipped": 2})
    task = fx.task(tmp_path / "task")
    t = task / "oracle" / "test_atomic.py"
    t.write_text(t.read_text().replace("def test_version_from_metadata():",
                                       "def test_version_from_metadata():\n"
                                       "    import pytest\n    pytest.skip('not here')"))
    _rc, out, _ = cli("task", "run", str(task), "--solution", str(fx.plain_folder(tmp_path / "p")),
                     "--out", str(tmp_path / "o"), "--offline", "--role", "reference")
    assert "2/3 passed; 1 skipped; 100.0 % of non-skipped" in out


# ---------------------------------------------------------------- issue 16 item 9
@pytest.mark.sandbox
def test_run_records_store_relative_solution_paths(tmp_path: Path) -> None:
    task = fx.task(tmp_path / "task")
    runs = tmp_path / "task" / "candidate-runs" / "r1"
    sol = fx.plain_folder(runs / "solution")
    run_solution(task, RunOptions(solution=sol, out=runs, offline=True))
    meta = json.loads((runs / "run_meta.json").read_text())
    score = json.loads((runs / "score_result.json").read_text())
    assert meta["solution_dir"] == "solution" and score["solution_dir"] == "solution"
    assert not Path(meta["import_root"]).is_absolute()
    # the task folder moves as a whole: the judge still finds the solution
    moved = tmp_path / "moved"
    shutil.move(str(task), moved)
    from gavelkit.task.judging.judge import judge_run
    from gavelkit.task.pipeline.state import init_state

    init_state(moved, "tally_task", date="2026-01-01", force=True)  # the judge's entry
    p = moved / "PIPELINE_STATE.md"
    p.write_text(p.read_text().replace("state:       S1_SCREENING", "state:       S5_JUDGE"))

    res = judge_run(moved, moved / "candidate-runs" / "r1", write=False, move_state=False)
    assert res.preflight.ran, res.preflight.reason
    clean(res.findings, "TSK-J020")
    # a solution that changed after scoring is refused, by name
    (moved / "candidate-runs" / "r1" / "solution" / "tally" / "formats.py").write_text("x = 1\n")
    res = judge_run(moved, moved / "candidate-runs" / "r1", write=False, move_state=False)
    f = fires(res.findings, "TSK-J020")
    assert "changed since it was scored" in f.message and "tally/formats.py" in f.message
    os.utime(moved)


# ---------------------------------------------------------------- process layout
def test_one_process_then_crashed_files_rerun_alone(tmp_path: Path) -> None:
    """A crash in one file must not sink the others: the shared process dies in
    test_atomic.py, so the files it did not finish are re-run one process each."""
    from judge_helpers import REFERENCE, make_task, solution

    task = make_task(tmp_path)
    crash = REFERENCE.replace("def parse(text):\n", "def parse(text):\n    if text == '||||':\n"
                              "        import os\n        os._exit(3)\n")
    sol = solution(tmp_path, "crash", {"tally/__init__.py": crash})
    res = run_solution(task, RunOptions(solution=sol, out=tmp_path / "o", package="tally"))
    proc = res.score["gavel"]["processes"]
    assert proc["group"] == "auto"
    assert proc["rerun_alone"] == ["oracle/test_atomic.py", "oracle/test_integration.py"]
    by = {c["nodeid"]: c["outcome"] for c in res.score["cases"]}
    # test_render_digits kills the process; the integration file, never reached by the
    # shared process, is run alone and scored in full
    assert by["oracle/test_atomic.py::test_parse_rejects_letters"] == "passed"
    assert by["oracle/test_atomic.py::test_render_digits"] != "passed"
    assert by["oracle/test_integration.py::test_round_trip"] == "passed"
    assert by["oracle/test_integration.py::test_workflow_with_fixture"] == "passed"
    fast = run_solution(task, RunOptions(solution=tmp_path / "solutions" / "crash",
                                         out=tmp_path / "o2", package="tally", group="run"))
    assert fast.score["gavel"]["processes"]["rerun_alone"] == []
    assert fast.summary["passed"] < res.summary["passed"]  # without re-runs more is lost


def test_candidate_package_spec_is_installed(tmp_path: Path, wheels: Path) -> None:
    _tally_wheel(tmp_path, wheels)
    task = fx.task(tmp_path / "task")
    rc, out, _ = cli("task", "run", str(task), "--solution-package", "tally==0.1", "--out",
                     str(tmp_path / "o"), "--offline")
    assert rc == 0 and "3/3 passed; 100.0 % of all" in out, out
    assert "installed: tally==0.1 with its dependencies; provenance OK" in out


def test_disabled_plugins_are_not_loaded(tmp_path: Path) -> None:
    """`-p no:NAME` in pytest_args wins over a requirement's plugin gavel would load."""
    from types import SimpleNamespace

    from gavelkit.task.scoring.envbuild import Env
    from gavelkit.task.scoring.sandbox import Sandbox

    env = Env(tmp_path, "/usr/bin/python3", "k", ["pytest-randomly", "pytest-asyncio"],
              [{"dist": "pytest-randomly", "name": "randomly", "value": "x"},
               {"dist": "pytest-asyncio", "name": "asyncio", "value": "y"}])
    pa = parse_pytest_args(["-p", "no:randomly", "--asyncio-mode=auto"], {"randomly", "asyncio"})
    box = Sandbox(tmp_path / "run", env, None, SimpleNamespace(), False, pa.disabled_plugins)
    cmd = box.command(["oracle/test_a.py"], pa.kept)
    assert "randomly" not in [cmd[i + 1] for i, c in enumerate(cmd) if c == "-p"]
    assert cmd[cmd.index("asyncio") - 1:cmd.index("asyncio") + 1] == ["-p", "asyncio"]
    assert cmd[-3:] == ["no:randomly", "--asyncio-mode=auto", "oracle/test_a.py"]


# ---------------------------------------------------------------- confinement of candidate code
PEEK = '''
def _peek():
    seen = {}
    try:
        with open(ESCAPE, "w") as fh:
            fh.write("x")
        seen["wrote"] = True
    except OSError as exc:
        seen["wrote"] = type(exc).__name__
    try:
        with open(ORACLE) as fh:
            seen["oracle"] = len(fh.read())
    except OSError as exc:
        seen["oracle"] = type(exc).__name__
    base = pathlib.Path("src") if pathlib.Path("src", PKG).is_dir() else pathlib.Path(".")
    (base / PKG / "_seen.py").write_text("SEEN = " + repr(seen) + "\\n")


'''


@pytest.mark.sandbox
def test_a_projects_build_cannot_write_outside_or_read_the_oracle(tmp_path: Path,
                                                                   wheels: Path) -> None:
    """The build runs the candidate's own code (here its PEP 517 backend; setup.py alike).
    Under bubblewrap it writes only its build copy and wheel folder and sees nothing of
    the task (with the oracle) or the rest of the machine; a .pth it installs runs at
    interpreter starts that inspect the environment, also confined."""
    from gavelkit.task.scoring.sandbox import bwrap_available

    task = fx.task(tmp_path / "task")
    proj = fx.project(tmp_path / "checkout", layout="src")
    escape, pth_escape = tmp_path / "escaped.txt", tmp_path / "pth-escaped.txt"
    backend = (proj / "gk_backend.py").read_text()
    backend = backend.replace("def build_wheel(", PEEK.replace("ESCAPE", repr(str(escape)))
                              .replace("ORACLE", repr(str(task / "oracle" / "test_atomic.py")))
                              + "def build_wheel(")
    backend = backend.replace("    rec = []\n", "    _peek()\n    rec = []\n", 1)
    pth = f"import os; open({str(pth_escape)!r}, 'w').write('x')\n"
    backend = backend.replace('        rec.append(f"{di}/RECORD,,")',
                              f'        z.writestr("gk_peek.pth", {pth!r})\n'
                              '        rec.append(f"{di}/RECORD,,")')
    (proj / "gk_backend.py").write_text(backend)
    res = run(task, proj, tmp_path, role="reference")
    inst = res.score["gavel"]["install"]
    env = Path(res.score["gavel"]["environment"]["path"])
    seen_file = next(env.rglob("site-packages/tally/_seen.py"))
    seen = {}
    exec(seen_file.read_text(), seen)  # our own fixture wrote it
    assert res.summary["passed"] == 3, res.score["cases"]
    if bwrap_available()[0]:
        assert inst["build_sandbox"]["active"] is True, inst
        # the build sees only its build environment, copy and wheel folder: no task, no
        # network (issue 24: it used to see the whole machine, the task folder hidden)
        assert inst["build_sandbox"]["network"] == "blocked", inst
        assert seen["SEEN"]["wrote"] == "OSError" or seen["SEEN"]["wrote"].endswith("Error")
        assert seen["SEEN"]["oracle"] == "FileNotFoundError", seen
        assert not escape.exists() and not pth_escape.exists()
    else:  # no bubblewrap here: the build ran as before, and the record says so
        assert inst["build_sandbox"] == {"active": False, "why": bwrap_available()[1]}
        assert seen["SEEN"]["wrote"] is True and escape.exists()


def test_a_reference_release_may_ship_its_package_through_a_dependency(tmp_path: Path,
                                                                       wheels: Path) -> None:
    """griffe 2.x: `pip install griffe` gets the `griffe` package from griffelib, which
    griffe requires. Accepted for a reference release (said so), refused for a candidate:
    a thin candidate package that depends on the upstream library is not its own work."""
    from gavelkit.task.scoring.solvability import check_solvability

    fx.dep_wheel(wheels, "tallylib", "0.1", package={"tally/__init__.py": "X = 1\n"})
    fx.dep_wheel(wheels, "tallymeta", "0.1", package={}, requires=("tallylib==0.1",))
    task = fx.task(tmp_path / "task")
    ref = check_solvability(task, None, "tallymeta==0.1",
                            RunOptions(solution="", out=tmp_path / "ref", offline=True))
    prov = ref.run.score["gavel"]["install"]["provenance"]
    assert prov["ok"] and prov["via"] == "tallylib", prov
    assert "tallylib" in prov["why"] and "never for a candidate" in prov["why"]
    clean(ref.run.findings, "TSK-X021")
    cand = run_solution(task, RunOptions(solution="", out=tmp_path / "cand", offline=True,
                                         package_spec="tallymeta==0.1", role="candidate"))
    f = fires(cand.findings, "TSK-X021")
    assert "tallylib" in f.message and "must ship the package itself" in f.message
