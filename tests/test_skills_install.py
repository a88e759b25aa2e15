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


def test_only_one_skill(tmp_path: Path) -> None:
    """Issue 27: `--only NAME` installs that skill and nothing else."""
    dest = tmp_path / "skills"
    rc, out, _ = cli("skills", "install", "--only", "mathodology-award-gates", "--dest",
                     str(dest), "--format", "json")
    assert rc == 0
    assert {k.split("/")[0] for k in json.loads(out)["installed"]} == {"mathodology-award-gates"}
    assert not (dest / "task-judge").exists()


def test_scripts_are_executable_whatever_the_source_mode(tmp_path: Path, root: Path) -> None:
    """Issue 27: figqa.py (0644 in the repository) is installed 0755 like the launchers, and a
    reinstall repairs an earlier install that left it 0644; the gavelkit copy is not."""
    dest = tmp_path / "skills"
    assert cli("skills", "install", "--dest", str(dest))[0] == 0
    scripts = dest / "mathodology-award-gates/scripts"
    for name in ("figqa.py", "lint_run.py", "make_contact_sheet.py", "pdf_qa.sh"):
        assert os.stat(scripts / name).st_mode & 0o777 == 0o755, name
    assert os.stat(scripts / "_gavel.py").st_mode & 0o111 == 0  # imported, never run
    assert os.stat(scripts / "_gavelkit/gavelkit/cli/main.py").st_mode & 0o111 == 0
    os.chmod(scripts / "figqa.py", 0o644)
    rc, out, _ = cli("skills", "install", "--dest", str(dest), "--format", "json")
    assert rc == 0 and json.loads(out)["updated"] == ["mathodology-award-gates/scripts/figqa.py"]
    assert os.stat(scripts / "figqa.py").st_mode & 0o777 == 0o755


def test_each_skill_carries_this_gavelkit(tmp_path: Path, root: Path) -> None:
    dest = tmp_path / "skills"
    rc, out, _ = cli("skills", "install", "--dest", str(dest))
    assert rc == 0
    # text output: the copy is one line per skill, not two hundred
    assert "mathodology-award-gates/scripts/_gavelkit/ (" in out and out.count("_gavelkit") == 2
    pkg = root / "src" / "gavelkit"
    want = sorted(p.relative_to(pkg).as_posix() for p in pkg.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")
    for skill in ("mathodology-award-gates", "task-judge"):
        copy = dest / skill / "scripts/_gavelkit/gavelkit"
        got = sorted(p.relative_to(copy).as_posix() for p in copy.rglob("*") if p.is_file())
        assert got == want
        assert (copy / "cli/main.py").read_bytes() == (pkg / "cli/main.py").read_bytes()
        about = (dest / skill / "scripts/_gavelkit/ABOUT.txt").read_text()
        assert f"gavel skills install --only {skill} --dest ." in about


def test_files_a_new_version_no_longer_has_are_removed(tmp_path: Path) -> None:
    """An upgrade that drops a module removes the old copy of it; a file the user changed
    since is kept (and no longer tracked), never deleted."""
    dest = tmp_path / "skills"
    assert cli("skills", "install", "--only", "task-judge", "--dest", str(dest))[0] == 0
    record = json.loads((dest / ".gavel-skills.json").read_text())
    base = "task-judge/scripts/_gavelkit/gavelkit"
    for name, text in (("old_module.py", "x = 1\n"), ("edited.py", "y = 2\n")):
        (dest / base / name).write_text(text)
        import hashlib

        record[f"{base}/{name}"] = hashlib.sha256(text.encode()).hexdigest()
    (dest / ".gavel-skills.json").write_text(json.dumps(record))
    (dest / base / "edited.py").write_text("y = 3  # mine\n")
    rc, out, _ = cli("skills", "install", "--only", "task-judge", "--dest", str(dest),
                     "--format", "json")
    res = json.loads(out)
    assert rc == 0 and res["removed"] == [f"{base}/old_module.py"]
    assert res["kept"] == [f"{base}/edited.py"]
    assert not (dest / base / "old_module.py").exists() and (dest / base / "edited.py").exists()
    assert f"{base}/edited.py" not in json.loads((dest / ".gavel-skills.json").read_text())
