"""`gavel skills install`: copies skills, updates its own files, never clobbers edits."""

from __future__ import annotations

import json
import os
from pathlib import Path

from gk_testing import cli


def test_install_update_and_refuse(tmp_path: Path) -> None:
    dest = tmp_path / "skills"
    rc, out, _ = cli("skills", "install", "--dest", str(dest), "--format", "json")
    res = json.loads(out)
    assert rc == 0 and "mathodology-award-gates/SKILL.md" in res["installed"]
    launcher = dest / "mathodology-award-gates/scripts/lint_run.py"
    assert launcher.is_file() and os.access(launcher, os.X_OK)
    rc, out, _ = cli("skills", "install", "--dest", str(dest), "--format", "json")
    assert rc == 0 and json.loads(out)["installed"] == []
    skill = dest / "mathodology-award-gates/SKILL.md"
    skill.write_text("my local notes")
    rc, _, err = cli("skills", "install", "--dest", str(dest))
    assert rc == 1 and "refused" in err and skill.read_text() == "my local notes"
    rc, _, _ = cli("skills", "install", "--dest", str(dest), "--force")
    assert rc == 0 and skill.read_text() != "my local notes"


def test_preexisting_foreign_file_is_refused(tmp_path: Path) -> None:
    dest = tmp_path / "skills"
    f = dest / "mathodology-award-gates/SKILL.md"
    f.parent.mkdir(parents=True)
    f.write_text("someone else's skill")
    rc, _, _ = cli("skills", "install", "--dest", str(dest), "--skill", "mathodology-award-gates")
    assert rc == 1 and f.read_text() == "someone else's skill"


def test_unknown_skill_is_usage_error(tmp_path: Path) -> None:
    rc, _, err = cli("skills", "install", "--dest", str(tmp_path), "--skill", "nope")
    assert rc == 2 and "no skill" in err


def test_validate_ledger_launcher(root: Path, tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    import subprocess
    import sys

    script = root / "skills/task-judge/scripts/validate_ledger.py"
    good = root / "tests/data/taskpack/task_good"
    r = subprocess.run([sys.executable, str(script), str(good)], capture_output=True, text=True,
                       env=subprocess_env, cwd=tmp_path, timeout=120)
    assert r.returncode == 0 and "Gate E PASS" in r.stdout, r.stdout + r.stderr
    r2 = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                        env=subprocess_env, cwd=tmp_path, timeout=60)
    assert r2.returncode == 2 and "no task folders" in r2.stderr
