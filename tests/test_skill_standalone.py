"""An installed skill folder, copied anywhere on its own, runs in a Python without gavelkit.

Seed 000 §7: "from a global skill install the same files live under scripts/ in this
skill's directory". The interpreter here has only the seed's pip prerequisites (PyYAML,
matplotlib, numpy, pypdfium2, Pillow: tests/prereq_python.py); the skill is installed
with `gavel skills install --only`, copied into another project, and the original is
deleted before anything runs. The seed's five invocations then run exactly as written, and
what they print is what gavel itself prints on the same files.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gk_testing import cli
from prereq_python import (
    clean_env,
    committed_seed_invocations,
    make_python,
    seed_invocations,
    seed_invocations_from_seed,
)

ROOT = Path(__file__).resolve().parent.parent
RUN_ID = "20260130-0900-mcm26c"
SKILL = "mathodology-award-gates"
#: seed 000 §7, verbatim (read from the seed; <run-id> is filled in when run)
SEED_INVOCATIONS = seed_invocations()
SELF_TEST_OK = re.compile(r"self-test: (PASS|OK|passed)\b")
SELF_TESTS = {"figqa.py": "python3", "lint_run.py": "python3", "pdf_qa.sh": "bash",
              "make_contact_sheet.py": "python3"}


@pytest.fixture(scope="module")
def prereq(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_python(tmp_path_factory.mktemp("prereq") / "venv")


def sh(cmd: str, cwd: Path, py: Path, home: Path, **env: str) -> subprocess.CompletedProcess:
    """Run a command line as a shell would (globs expanded), with `py` as python3."""
    return subprocess.run(["bash", "-c", cmd], cwd=cwd, env={**clean_env(py, home), **env},
                          capture_output=True, text=True, timeout=240)


def project(tmp: Path, name: str) -> Path:
    """A contest project holding the example run under work/<run-id>/."""
    proj = tmp / name
    shutil.copytree(ROOT / "examples" / "award-run" / "work", proj / "work")
    return proj


@pytest.fixture(scope="module")
def copied(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Installed with --only into one project, copied into another, the first deleted."""
    tmp = tmp_path_factory.mktemp("skillcopy")
    first = tmp / "first"
    rc, out, err = cli("skills", "install", "--only", SKILL, "--dest",
                       str(first / ".claude" / "skills"))
    assert rc == 0, out + err
    assert sorted(os.listdir(first / ".claude" / "skills")) == [".gavel-skills.json", SKILL]
    proj = project(tmp, "contest")
    shutil.copytree(first / ".claude" / "skills" / SKILL, proj / ".claude" / "skills" / SKILL)
    shutil.rmtree(first)
    return proj


def test_the_prereq_python_really_lacks_gavelkit(prereq: Path, tmp_path: Path) -> None:
    r = sh("python3 -c 'import yaml, matplotlib, numpy, pypdfium2, PIL; import gavelkit'",
           tmp_path, prereq, tmp_path)
    assert r.returncode == 1 and "No module named 'gavelkit'" in r.stderr, r.stderr
    r = sh("python3 -c 'import jinja2'", tmp_path, prereq, tmp_path)
    assert r.returncode == 1, "only the seed's prerequisites may be importable"


def test_seed_copy_matches_the_seed() -> None:
    """The committed copy (what a clean CI checkout runs) is the seed's text, word for word."""
    seed = seed_invocations_from_seed()
    if not seed:
        pytest.skip("seed 000 not found beside the checkout (../shared/seeds)")
    assert committed_seed_invocations() == seed


def test_the_seed_names_five_invocations() -> None:
    assert len(SEED_INVOCATIONS) == 5
    assert {Path(c.split()[1]).name for c in SEED_INVOCATIONS} == {
        "figqa.py", "lint_run.py", "pdf_qa.sh", "make_contact_sheet.py"}


@pytest.mark.parametrize("line", range(5))
def test_seed_invocation_from_a_copied_install(line: int, copied: Path, prereq: Path) -> None:
    cmd = SEED_INVOCATIONS[line].replace("<run-id>", RUN_ID)
    r = sh(cmd, copied, prereq, copied.parent)
    assert "Traceback" not in r.stderr and "gavelkit" not in r.stderr, r.stderr
    if "figqa.py" in cmd:
        assert r.returncode == 0 and SELF_TEST_OK.search(r.stdout), r.stdout + r.stderr
        return
    # the same words through this checkout's gavel, on the same files, print the same
    words = shlex.split(cmd)[2:]
    script = Path(shlex.split(cmd)[1]).name
    import glob

    from gavelkit.cli.skill_launch import FORWARD

    here = Path.cwd()
    os.chdir(copied)
    try:
        expanded = [h for w in words for h in (sorted(glob.glob(w)) if "*" in w else [w])]
        want_rc, want_out, _ = cli(*FORWARD[script](expanded))
    finally:
        os.chdir(here)
    assert (r.returncode, r.stdout.strip()) == (want_rc, want_out.strip()), r.stderr
    assert want_rc in (0, 1)
    if "contact_sheet" in cmd:
        assert (copied / "work" / RUN_ID / "outputs/figures/contact_sheet.png").is_file()


@pytest.mark.parametrize("script", sorted(SELF_TESTS))
def test_self_tests_from_a_copied_install(script: str, copied: Path, prereq: Path) -> None:
    path = f".claude/skills/{SKILL}/scripts/{script}"
    r = sh(f"{SELF_TESTS[script]} {path} --self-test", copied, prereq, copied.parent)
    assert r.returncode == 0 and SELF_TEST_OK.search(r.stdout), r.stdout + r.stderr


def test_task_judge_skill_runs_on_its_own(prereq: Path, tmp_path: Path) -> None:
    rc, _, err = cli("skills", "install", "--only", "task-judge", "--dest", str(tmp_path / "a"))
    assert rc == 0 and not (tmp_path / "a" / SKILL).exists(), err
    shutil.copytree(tmp_path / "a" / "task-judge", tmp_path / "elsewhere" / "task-judge")
    shutil.rmtree(tmp_path / "a")
    shutil.copytree(ROOT / "tests/data/taskpack/task_good", tmp_path / "repo/tasks/task_good")
    r = sh("python3 ../elsewhere/task-judge/scripts/validate_ledger.py", tmp_path / "repo",
           prereq, tmp_path)
    assert r.returncode == 0 and "Gate E PASS" in r.stdout, r.stdout + r.stderr
    # every other gavel command, on the skill's own gavelkit (SKILL.md: without gavel on PATH)
    r = sh("python3 ../elsewhere/task-judge/scripts/_gavel.py task gates-all tasks",
           tmp_path / "repo", prereq, tmp_path)
    assert r.returncode == 0 and "1 pass every gate" in r.stdout, r.stdout + r.stderr


def test_any_gavel_command_from_the_copy(copied: Path, prereq: Path) -> None:
    r = sh(f"python3 .claude/skills/{SKILL}/scripts/_gavel.py award status work/{RUN_ID}",
           copied, prereq, copied.parent)
    assert r.returncode in (0, 1) and "NEXT" in r.stdout, r.stdout + r.stderr
    r = sh(f"python3 .claude/skills/{SKILL}/scripts/_gavel.py", copied, prereq, copied.parent)
    assert r.returncode == 2 and "usage: python3 _gavel.py COMMAND" in r.stderr


def test_missing_pdf_libraries_name_the_pip_command(copied: Path, tmp_path: Path) -> None:
    py = make_python(tmp_path / "nopdf", ("PyYAML",))
    pdf = f"work/{RUN_ID}/paper/solution.pdf"
    want = shlex.join([str(py), "-m", "pip", "install", "pypdfium2", "Pillow"])
    for cmd in (f"bash .claude/skills/{SKILL}/scripts/pdf_qa.sh {pdf} --max-pages 25",
                f"python3 .claude/skills/{SKILL}/scripts/make_contact_sheet.py {pdf} -o x.png"):
        r = sh(cmd, copied, py, tmp_path)
        assert r.returncode == 2 and want in r.stderr, r.stderr
        assert "<" not in r.stderr and "Traceback" not in r.stderr
    r = sh(f"python3 .claude/skills/{SKILL}/scripts/lint_run.py --self-test", copied, py,
           tmp_path)
    assert r.returncode == 0, r.stderr  # the linter needs only PyYAML


def test_a_source_copy_says_the_install_command_that_fixes_it(prereq: Path,
                                                              tmp_path: Path) -> None:
    """A skill folder copied straight from a checkout has no gavelkit of its own: the message
    is a command that, pasted, makes the same invocation work."""
    proj = project(tmp_path, "p")
    shutil.copytree(ROOT / "skills" / SKILL, proj / ".claude" / "skills" / SKILL,
                    ignore=shutil.ignore_patterns("_gavelkit", "__pycache__"))
    cmd = f"python3 .claude/skills/{SKILL}/scripts/lint_run.py --self-test"
    r = sh(cmd, proj, prereq, tmp_path)
    assert r.returncode == 2 and "<" not in r.stderr, r.stderr
    fix = r.stderr.strip().splitlines()[-1].strip()
    words = shlex.split(fix)
    assert words[:5] == ["gavel", "skills", "install", "--only", SKILL], fix
    rc, out, err = cli(*words[1:], "--force")  # the copied files are not from an install
    assert rc == 0, out + err
    r = sh(cmd, proj, prereq, tmp_path)
    assert r.returncode == 0 and "OK" in r.stdout, r.stderr


def test_launcher_helper_is_one_file_in_every_skill(root: Path) -> None:
    copies = sorted((root / "skills").glob("*/scripts/_gavel.py"))
    assert len(copies) == 2 and len({c.read_bytes() for c in copies}) == 1, (
        "keep them identical: cp skills/mathodology-award-gates/scripts/_gavel.py "
        "skills/task-judge/scripts/_gavel.py")


def test_old_python_gets_a_runnable_command(root: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "_gavel_under_test", root / "skills" / SKILL / "scripts" / "_gavel.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(sys, "version_info", (3, 9, 18, "final", 0))
    assert mod.main("lint_run.py", ["gate", "a b.yaml"]) == 2
    err = capsys.readouterr().err
    assert "needs Python 3.11 or newer" in err
    assert shlex.split(err.strip().splitlines()[-1])[-2:] == ["gate", "a b.yaml"]
