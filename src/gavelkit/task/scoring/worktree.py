"""What a run is made of: the expected node ids, the private oracle worktree, the solution copy.

- the expected node ids come from the task (kept_nodeids.txt, the reference run, covered
  map rows or the taxonomy), never from the candidate's process; taxonomy keys written
  without the file path (`test_atomic::test_x`, as real Bmk-dev tasks do) are resolved
  against `oracle.test_files`;
- the oracle is copied to a private worktree with the remove-paths and any copy of the
  target package deleted, so `sys.path[0]` cannot shadow the solution;
- planted files (conftest.py, sitecustomize.py, .pth, pytest configuration) are removed
  from the private solution copy with a finding, and candidate source that reaches into
  the test machinery is flagged.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

from gavelkit.core.findings import Finding
from gavelkit.task.formats.load import Task
from gavelkit.task.formats.nodeids import func_key

PLANTED_NAMES = {"conftest.py": "warning", "sitecustomize.py": "error",
                 "usercustomize.py": "error", "pytest.ini": "warning"}
SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".tox", "node_modules",
             ".mypy_cache", ".pytest_cache", ".ruff_cache"}


def inside(a: Path, b: Path) -> bool:
    """Is a inside b (or equal)?"""
    try:
        a.relative_to(b)
        return True
    except ValueError:
        return False


def unsafe_entries(root: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """One walk of root (links not followed, VCS/build litter skipped), two lists:
    (relative path, target) of symlinks that resolve outside root, and (relative path,
    what it is) of entries that are no regular file or folder once links are followed
    (FIFOs, devices, sockets, link loops, dangling links: copying one blocks forever, a
    FIFO or a link to /dev/zero, or fails half-way)."""
    import errno
    import stat

    from gavelkit.core.safeio import kind_of

    outside, special = [], []
    base = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS or
                       os.path.islink(os.path.join(dirpath, d))]
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, root)
            if os.path.islink(p):
                try:
                    target = Path(p).resolve(strict=False)
                except (RuntimeError, OSError):  # a loop: reported below
                    target = base
                if not inside(target, base):
                    outside.append((rel, str(target)))
            try:
                mode = os.stat(p).st_mode
            except OSError as exc:
                special.append((rel, "a link loop" if exc.errno == errno.ELOOP else
                                "a dangling link" if os.path.islink(p) else
                                f"unreadable ({exc.strerror})"))
                continue
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                special.append((rel, f"a {kind_of(mode)}"))
    return sorted(outside), sorted(special)


def special_entries(root: Path) -> list[tuple[str, str]]:
    """(relative path, what it is) of entries under root that are no regular file or
    folder once links are followed (see unsafe_entries)."""
    return unsafe_entries(root)[1]


def ignore_litter(_dir: str, names: list[str]) -> set[str]:
    return {n for n in names if n in SKIP_DIRS}


_ignore, _inside = ignore_litter, inside  # the names of the first split


def tree_digest(root: Path) -> dict[str, str]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


_tree_digest = tree_digest


def layer_of(task: Task) -> Any:
    from gavelkit.task.gates.gate_e import layer_index

    idx = layer_index(task)

    def layer(nodeid: str) -> str:
        hit = idx.get(func_key(nodeid))
        if hit:
            return hit
        stem = func_key(nodeid).split(".", 1)[0]
        return "atomic" if stem == "test_atomic" else "unknown"
    return layer


def _taxonomy_keys(task: Task) -> list[str]:
    from gavelkit.task.formats.scoring_ids import taxonomy_keys

    return taxonomy_keys(task)


def resolve_ids(task: Task, ids: list[str]) -> list[str]:
    """Node ids with a real file part (one rule with Gate E: formats/scoring_ids.py)."""
    from gavelkit.task.formats.scoring_ids import resolve_ids as resolve

    return resolve(task, ids)


def expand_by_reference(ids: list[str], reference: dict[str, Any] | None) -> list[str]:
    """Base ids of parametrised tests replaced by the instances the reference run scored
    for them: a candidate is scored on the reference's expansion, never on what its own
    process collects (a parametrisation computed from the candidate's values would let it
    choose its own tests)."""
    cases = reference.get("cases") if isinstance(reference, dict) else None
    if not isinstance(cases, list):
        return ids
    ran = [c["nodeid"] for c in cases if isinstance(c, dict) and isinstance(c.get("nodeid"), str)]
    known = set(ran)
    by_base = _instances_by_base(ran)
    out: list[str] = []
    for nid in ids:
        out += by_base[nid] if nid not in known and nid in by_base else [nid]
    return list(dict.fromkeys(out))


def _instances_by_base(ran: list[str]) -> dict[str, list[str]]:
    from gavelkit.task.formats.nodeids import base_nodeid

    by_base: dict[str, list[str]] = {}
    for n in ran:
        b = base_nodeid(n)
        if b != n:
            by_base.setdefault(b, []).append(n)
    return by_base


def expected_ids(task: Task, reference: dict[str, Any] | None) -> tuple[list[str], str]:
    """The ids to score: what the task names (kept ids, the map, task.json taxonomy); a
    reference run's ids only when the task names none, since a run made on an older
    oracle would hide every test added since (issue 26)."""
    from gavelkit.task.formats.scoring_ids import named_ids

    if task.kept is not None and task.kept.ids:
        ids = resolve_ids(task, list(task.kept.ids))
        return expand_by_reference(ids, reference), task.rel(task.paths["kept"])
    ids = named_ids(task)
    if ids:
        return (expand_by_reference(resolve_ids(task, ids), reference),
                "spec_test_map.md / task.json taxonomy")
    if reference and isinstance(reference.get("cases"), list):
        ids = [c["nodeid"] for c in reference["cases"] if isinstance(c, dict) and "nodeid" in c]
        if ids:
            return ids, "reference run (the task names no scoring ids)"
    return [], "none"


def load_reference(task: Task, reference_score: str | Path | None) -> dict[str, Any] | None:
    path = Path(reference_score) if reference_score else None
    if path is None:
        cand = task.dir / "judge" / "reference_run" / "score_result.json"
        if cand.is_file():
            path = cand
        elif task.reference_score is not None:
            return task.reference_score.raw
    if path is None or not path.is_file():
        return None
    from gavelkit.core.safeio import json_object_or_none

    return json_object_or_none(path)


def is_code_file(rel: str) -> bool:
    """Is a worktree file the oracle's code or configuration (never rewritten by a test)?"""
    name = rel.replace("\\", "/").rsplit("/", 1)[-1]
    return name.endswith((".py", ".pyc")) or name in (
        "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", "gavel-oracle-pytest.ini")


def _copy_tree(src: Path, dst: Path) -> None:
    """A test folder copied whole (its fixture folders and data files: upstream tests read
    `tests/fake-repo-pre` and the like); an entry that is no regular file or folder is
    unusable input (InputError, exit 2): copying one could block forever."""
    from gavelkit.core.errors import InputError

    bad = special_entries(src)
    if bad:
        rel, what = bad[0]
        raise InputError(str(src / rel), f"is {what}, not a regular file or folder; refusing "
                         "to copy the oracle (it could block forever)")
    shutil.copytree(src, dst, ignore=ignore_litter, dirs_exist_ok=True)


def oracle_folders(files: list[str]) -> list[str]:
    """The top-level folders of the task that hold the test files (`oracle`, `tests`)."""
    out = []
    for rel in files:
        parts = Path(rel.replace("\\", "/")).parts
        if len(parts) > 1 and parts[0] not in (".", "..") and not Path(rel).is_absolute():
            out.append(parts[0])
    return list(dict.fromkeys(out))


def prepare_worktree(task: Task, work: Path, files: list[str], remove: list[str],
                     package: str | None) -> list[str]:
    """Copy the oracle into a private worktree; return what was removed and why.

    The folders that hold the test files are copied whole (`oracle/`, and for upstream
    tests `tests/` with its fixture folders); a test file at the task's top level is
    copied with its conftest.py only (the top level also holds the task's own records)."""
    removed = []
    for top in dict.fromkeys(["oracle", *oracle_folders(files)]):
        if (task.dir / top).is_dir() and not (task.dir / top).is_symlink():
            _copy_tree(task.dir / top, work / top)
    for rel in files:
        src = task.dir / rel
        dst = work / rel
        if src.is_file() and not dst.exists():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
            conf = src.parent / "conftest.py"
            if conf.is_file() and not (dst.parent / "conftest.py").exists():
                shutil.copy2(conf, dst.parent / "conftest.py")
    for base in (task.dir / "oracle", task.dir):
        if (base / "pytest.ini").is_file():
            shutil.copy2(base / "pytest.ini", work / "gavel-oracle-pytest.ini")
            break
    targets = list(remove)
    if package:
        targets += [package, f"{package}.py"]
    for rel in targets:
        for base in (work, *(work / t for t in dict.fromkeys(["oracle", *oracle_folders(files)])),
                     *(work / Path(f).parent for f in files)):
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


# what pytest itself imports besides the standard library (its declared dependencies)
RUNNER_MODULES = frozenset({"pytest", "_pytest", "pluggy", "iniconfig", "packaging", "py",
                            "exceptiongroup", "tomli", "colorama", "pygments"})


def shadowed_modules(import_root: Path, package: str | None) -> list[str]:
    """Top-level modules of the solution's import root (which goes on sys.path before the
    standard library and site-packages) that the test runner itself imports: pytest would
    run on the solution's copy. The target package itself is expected there."""
    import sys

    runner = RUNNER_MODULES | set(getattr(sys, "stdlib_module_names", ()))
    top = (package or "").split(".")[0]
    out = set()
    try:
        entries = list(import_root.iterdir())
    except OSError:
        return []
    for p in entries:
        stem = p.name.split(".", 1)[0]
        if p.is_dir() and (p / "__init__.py").is_file():
            out.add(p.name)
        elif p.is_file() and p.suffix in (".py", ".so", ".pyd"):
            out.add(stem)
    return sorted((out & runner) - {top})
