"""The pre-commit hooks (.pre-commit-hooks.yaml) as a contest team's repository runs them.

`pre-commit try-repo` runs here offline: the hook repository is a scratch git copy of this
one's hook file with `language: python` turned into `language: system` (the only change,
asserted), so pre-commit builds no virtualenv and the `gavel` on PATH (this checkout's
sources) runs. The hook file as users get it, with pre-commit installing gavelkit into its
own virtualenv from the package index, is run by benchmarks/package/check_install.py (CI).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gavelkit.cli.main import resolve

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / ".pre-commit-hooks.yaml"
RUN = "work/20260130-0900-mcm26c"


def hooks() -> dict[str, dict[str, object]]:
    return {h["id"]: h for h in yaml.safe_load(HOOKS.read_text(encoding="utf-8"))}


def test_hooks_name_real_commands_and_the_right_files() -> None:
    hs = hooks()
    assert set(hs) == {"gavel-award-lint", "gavel-figqa"}
    for h in hs.values():
        words = str(h["entry"]).split()
        assert words[0] == "gavel" and resolve(words[1:]) is not None, h["entry"]
        assert h["language"] == "python"
    lint = re.compile(str(hs["gavel-award-lint"]["files"]))
    for path in (f"{RUN}/gates/phase-1-loop-0.yaml", f"{RUN}/phase-logs/phase4.md",
                 f"contest/{RUN}/scorecards/phase7-seat-A-round-1.yml"):
        assert lint.search(path), path
    for path in ("README.md", "work/notes.md", f"{RUN}/code/run_all.py", "homework/x.yaml"):
        assert not lint.search(path), path
    fig = re.compile(str(hs["gavel-figqa"]["files"]))
    assert fig.search(f"{RUN}/code/model.py") and not fig.search(f"{RUN}/paper/build_paper.py")


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    pytest.importorskip("pre_commit")
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    text = HOOKS.read_text(encoding="utf-8")
    local = text.replace("language: python", "language: system")
    assert local.count("language: system") == len(hooks()) and "language: python" not in local
    hook_repo = tmp_path / "hooks"
    hook_repo.mkdir()
    (hook_repo / ".pre-commit-hooks.yaml").write_text(local, encoding="utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "gavel"
    shim.write_text(f'#!/bin/sh\nPYTHONPATH={ROOT / "src"} exec {sys.executable} -m gavelkit '
                    '"$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "PRE_COMMIT_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path),
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org",
           "PRE_COMMIT_COLOR": "never", "MPLBACKEND": "Agg"}
    env.pop("PYTHONPATH", None)
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "hooks"]):
        subprocess.run([git, *args], cwd=hook_repo, env=env, check=True, capture_output=True)
    contest = tmp_path / "contest"
    shutil.copytree(ROOT / "examples" / "award-run" / "work", contest / "work")
    subprocess.run([git, "init", "-q"], cwd=contest, env=env, check=True)
    subprocess.run([git, "add", "."], cwd=contest, env=env, check=True)
    return hook_repo, contest, env


def try_repo(hook: str, setup: tuple[Path, Path, dict[str, str]]) -> subprocess.CompletedProcess:
    hook_repo, contest, env = setup
    subprocess.run(["git", "add", "-A"], cwd=contest, env=env, check=True)
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", "--verbose",
                           str(hook_repo), hook], cwd=contest, env=env, capture_output=True,
                          text=True, timeout=300)


def test_award_lint_hook_passes_a_good_run_and_fails_a_bad_scorecard(setup) -> None:
    r = try_repo("gavel-award-lint", setup)
    assert r.returncode == 0 and "Passed" in r.stdout, r.stdout + r.stderr
    card = setup[1] / RUN / "scorecards" / "phase7-seat-A-round-1.yaml"
    card.write_text(card.read_text(encoding="utf-8").replace(
        "weight: 0.25, score: 84", "weight: 0.35, score: 84", 1), encoding="utf-8")
    r = try_repo("gavel-award-lint", setup)
    assert r.returncode == 1 and "Failed" in r.stdout
    assert f"{RUN}/scorecards/phase7-seat-A-round-1.yaml:6:5: AWD-S008 error" in r.stdout


def test_award_lint_hook_catches_a_leaking_brief(setup) -> None:
    brief = setup[1] / RUN / "briefs" / "seat-A-round-1.md"
    brief.parent.mkdir(exist_ok=True)
    brief.write_text("# Seat A\nThe panel passes at outstanding when every seat is >= 85.\n",
                     encoding="utf-8")
    r = try_repo("gavel-award-lint", setup)
    assert r.returncode == 1 and f"{RUN}/briefs/seat-A-round-1.md:2:" in r.stdout, r.stdout


def test_figqa_hook_reruns_the_gate(setup) -> None:
    code = setup[1] / RUN / "code"
    (code / "model.py").write_text((code / "model.py").read_text(encoding="utf-8") + "\n",
                                   encoding="utf-8")
    r = try_repo("gavel-figqa", setup)
    assert r.returncode == 0 and f"{RUN}/code/run_all.py: 2 figure(s) gated, 0 collision" in \
        r.stdout, r.stdout + r.stderr
    (code / "run_all.py").write_text(
        "import matplotlib.pyplot as plt\n"
        "fig, ax = plt.subplots()\n"
        "ax.plot([0, 1], [0, 1])\n"
        "ax.text(0.5, 0.5, 'a label right over the line', ha='center', va='center')\n"
        "fig.savefig('out.png')\n", encoding="utf-8")
    r = try_repo("gavel-figqa", setup)
    assert r.returncode == 1 and "FIG-D001" in r.stdout, r.stdout + r.stderr


def test_the_documented_local_config_blocks_a_bad_commit(setup) -> None:
    """docs/pre-commit-config.yaml, installed as a git hook: the commit itself is refused."""
    _, contest, env = setup
    config = ROOT / "docs" / "pre-commit-config.yaml"
    local = {h["id"]: h for h in yaml.safe_load(config.read_text())["repos"][0]["hooks"]}
    for hid, hook in hooks().items():  # the same hooks as the published file
        assert {k: v for k, v in local[hid].items() if k != "language"} == {
            k: v for k, v in hook.items() if k not in ("language", "description")}, hid
    shutil.copy(config, contest / ".pre-commit-config.yaml")
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=contest, env=env,
                   check=True, capture_output=True)
    card = contest / RUN / "scorecards" / "phase7-seat-A-round-1.yaml"
    good = card.read_text(encoding="utf-8")
    card.write_text(good.replace("weight: 0.25, score: 84", "weight: 0.35, score: 84", 1),
                    encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=contest, env=env, check=True)
    r = subprocess.run(["git", "commit", "-qm", "round 1"], cwd=contest, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "AWD-S008" in r.stdout + r.stderr, r.stdout + r.stderr
    card.write_text(good, encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=contest, env=env, check=True)
    r = subprocess.run(["git", "commit", "-qm", "round 1"], cwd=contest, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
