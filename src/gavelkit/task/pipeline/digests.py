"""Oracle digests: the SHA-256 of every oracle file, recorded at QUALIFIED.

The oracle files are kept_nodeids.txt, taxonomy.jsonl, spec_test_map.md, the
oracle test files and oracle/conftest.py; the record is `oracle_digests.json` in
the task folder. The state machine reads these to guard QUALIFIED; the
REOPENED_S3 protocol (oracle.py) acts on a difference.

Library API: `record_digests(task_dir)`, `compare_digests(task_dir)`,
`current_digests(task)`, `combined(digests)`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from gavelkit.core.textio import atomic_write, read_bytes
from gavelkit.task.formats.load import Task, load_task

DIGEST_FILE = "oracle_digests.json"


def oracle_files(task: Task) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for key in ("kept", "taxonomy", "map"):
        p = task.paths.get(key)
        if p is not None:
            out[task.rel(p)] = p
    for rel, p in task.test_files.items():
        out[rel] = p
    conf = task.dir / "oracle" / "conftest.py"
    if conf.is_file():
        out[task.rel(conf)] = conf
    return dict(sorted(out.items()))


def _sha(path: Path) -> str:
    return hashlib.sha256(read_bytes(path, allow_empty=True)).hexdigest()


def current_digests(task: Task) -> dict[str, str]:
    return {rel: _sha(p) for rel, p in oracle_files(task).items()}


def combined(digests: dict[str, str]) -> str:
    h = hashlib.sha256()
    for rel, d in sorted(digests.items()):
        h.update(f"{rel}\0{d}\n".encode())
    return h.hexdigest()


def declared_version(task: Task) -> str | None:
    if task.map and task.map.oracle_version:
        return task.map.oracle_version
    if task.task_json and task.task_json.oracle_version:
        return task.task_json.oracle_version
    return None


def version_of(task: Task, digests: dict[str, str]) -> str:
    return declared_version(task) or f"sha256:{combined(digests)[:12]}"


def load_record(task_dir: Path) -> dict[str, Any] | None:
    p = task_dir / DIGEST_FILE
    if not p.is_file():
        return None
    try:
        data = json.loads(p.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("files"), dict) else None


def record_digests(task_dir: str | Path, date: str | None = None) -> dict[str, Any]:
    from gavelkit.task.pipeline.clock import today

    d = Path(task_dir)
    task = load_task(d)
    digests = current_digests(task)
    rec = {"schema": 1, "recorded": date or today(), "oracle_version": version_of(task, digests),
           "combined": combined(digests), "files": digests}
    atomic_write(d / DIGEST_FILE, json.dumps(rec, indent=2) + "\n")
    return rec


def diff(old: dict[str, str], new: dict[str, str]) -> list[tuple[str, str]]:
    out = []
    for rel in sorted(set(old) | set(new)):
        if rel not in new:
            out.append((rel, "removed"))
        elif rel not in old:
            out.append((rel, "added"))
        elif old[rel] != new[rel]:
            out.append((rel, "changed"))
    return out


def compare_digests(task_dir: str | Path) -> list[tuple[str, str]] | None:
    """Changes since the recorded digests, [] if none, None if nothing was recorded."""
    d = Path(task_dir)
    rec = load_record(d)
    if rec is None:
        return None
    return diff(rec["files"], current_digests(load_task(d)))


def ledger_names(task: Task) -> set[str]:
    names = {task.id.lower(), task.dir.resolve().name.lower()}
    if task.task_json:
        repo = task.task_json.data.get("repo")
        if isinstance(repo, str):
            names |= {repo.lower(), repo.lower().replace("/", "__")}
    return names


