"""The private worktree a solution is scored in: oracle copied, target copies removed, planted conftest/sitecustomize/.pth neutralised with a finding."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path

from gavelkit.core.findings import Finding
from gavelkit.task.formats.load import Task

PLANTED_NAMES = {"conftest.py": "warning", "sitecustomize.py": "error",
                 "usercustomize.py": "error", "pytest.ini": "warning"}
SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".tox", "node_modules",
             ".mypy_cache", ".pytest_cache", ".ruff_cache"}


def prepare_worktree(task: Task, work: Path, files: list[str], remove: list[str],
                     package: str | None) -> list[str]:
    """Copy the oracle into a private worktree; return what was removed and why."""
    removed = []
    if (task.dir / "oracle").is_dir():
        shutil.copytree(task.dir / "oracle", work / "oracle", ignore=_ignore)
    for rel in files:
        src = task.dir / rel
        dst = work / rel
        if src.is_file() and not dst.exists():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
            conf = src.parent / "conftest.py"
            if conf.is_file() and not (dst.parent / "conftest.py").exists():
                shutil.copy2(conf, dst.parent / "conftest.py")
    for ini in ("pytest.ini",):
        for base in (task.dir / "oracle", task.dir):
            if (base / ini).is_file():
                shutil.copy2(base / ini, work / "gavel-oracle-pytest.ini")
                break
    targets = list(remove)
    if package:
        targets += [package, f"{package}.py"]
    for rel in targets:
        for base in (work, work / "oracle", *(work / Path(f).parent for f in files)):
            p = base / rel
            if p.exists():
                shutil.rmtree(p) if p.is_dir() else p.unlink()
                removed.append(str(p.relative_to(work)))
    return sorted(set(removed))


def neutralise(sol: Path, package: str | None) -> list[Finding]:
    """Remove planted files from the private solution copy; one finding each."""
    out: list[Finding] = []
    for p in sorted(sol.rglob("*")):
        if not p.is_file():
            continue
        rel = str(p.relative_to(sol))
        sev = PLANTED_NAMES.get(p.name)
        why = ""
        if p.suffix == ".pth":
            sev, why = "error", "a .pth file runs code at interpreter start"
        elif p.name in ("sitecustomize.py", "usercustomize.py"):
            why = "runs code at interpreter start, before pytest"
        elif p.name == "conftest.py":
            why = "pytest would load it as test configuration"
        elif p.name == "pytest.ini":
            why = "pytest configuration belongs to the oracle"
        elif p.name in ("pyproject.toml", "tox.ini", "setup.cfg"):
            text = p.read_text("utf-8", "replace")
            if "[tool.pytest" in text or "[pytest]" in text or "[tool:pytest]" in text:
                sev, why = "warning", "carries pytest configuration"
        if sev and why:
            p.unlink()
            code = "TSK-X002" if sev == "error" else "TSK-X003"
            out.append(Finding(code, sev, f"solution file {rel} removed before scoring: {why}",
                               rel, 0, 0, data={"file": rel}))
    return out


def suspicious_source(sol: Path) -> list[Finding]:
    """Cheap static flags on candidate code that reaches into the test machinery."""
    from gavelkit.task.judgedata import table

    pats = [(re.compile(e["regex"]), e) for e in table("tamper_patterns")["pattern"]]
    out: list[Finding] = []
    for p in sorted(sol.rglob("*.py")):
        if set(p.relative_to(sol).parts) & SKIP_DIRS:
            continue
        try:
            lines = p.read_text("utf-8", "replace").splitlines()
        except OSError:
            continue
        rel = str(p.relative_to(sol))
        for i, line in enumerate(lines, 1):
            for rx, e in pats:
                m = rx.search(line)
                if m:
                    out.append(Finding("TSK-X004", "warning",
                                       f"candidate code {e['what']}: {line.strip()[:120]}",
                                       rel, i, m.start() + 1, data={"pattern": e["id"]}))
    return out


def _inside(a: Path, b: Path) -> bool:
    """Is a inside b (or equal)?"""
    try:
        a.relative_to(b)
        return True
    except ValueError:
        return False


def outside_links(root: Path) -> list[tuple[str, str]]:
    """(relative path, target) of symlinks under root that resolve outside it."""
    out = []
    base = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS or
                       os.path.islink(os.path.join(dirpath, d))]
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            if p.is_symlink():
                target = p.resolve(strict=False)
                if not _inside(target, base):
                    out.append((str(p.relative_to(root)), str(target)))
    return sorted(out)


def _ignore(_dir: str, names: list[str]) -> set[str]:
    return {n for n in names if n in SKIP_DIRS}


def _tree_digest(root: Path) -> dict[str, str]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out
