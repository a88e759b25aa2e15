"""Shared helpers for the task-pack tests: the hand-made fixture task and the corpus."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"
GOOD = DATA / "taskpack" / "task_good"
ROOT = Path(__file__).resolve().parent.parent
# ../shared/corpus relative to the repo root; a worktree one level deeper
# (/work/wt/<name>) finds it one folder further up.
CORPUS = next((c for c in (ROOT.parent / "shared" / "corpus" / "bmk-tasks",
                           ROOT.parent.parent / "shared" / "corpus" / "bmk-tasks")
               if c.is_dir()), ROOT.parent / "shared" / "corpus" / "bmk-tasks")


def corpus_tasks() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.iterdir() if p.is_dir())


def need_corpus() -> list[Path]:
    tasks = corpus_tasks()
    if not tasks:
        pytest.skip(f"corpus folder {CORPUS} is absent; corpus checks skipped")
    return tasks


def copy_good(tmp_path: Path, name: str = "task_good") -> Path:
    dest = tmp_path / name
    shutil.copytree(GOOD, dest)
    return dest


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), "utf-8")


def judge_record(task_dir: Path, score_rel: str = "judge/score_result.json") -> Path:
    """judge/judge_result.json as the judge writes it for a QUALIFIED verdict on the current
    oracle and on `score_rel`: what `state --to QUALIFIED` needs (tests of the state
    machine and the oracle protocol, not of the judge)."""
    import hashlib
    import json

    from gavelkit.task.formats.load import load_task
    from gavelkit.task.judging.verdict import PASS, REQUIRED, SCHEMA_VERSION
    from gavelkit.task.pipeline.digests import combined, current_digests

    score = task_dir / score_rel
    rec = {"schema_version": SCHEMA_VERSION, "verdict": "QUALIFIED",
           "checks": [{"name": n, "status": PASS, "reason": "", "route": None} for n in REQUIRED],
           "judged_on": {"oracle_digest": combined(current_digests(load_task(task_dir))),
                         "score_file": score_rel,
                         "score_sha256": hashlib.sha256(score.read_bytes()).hexdigest()}}
    out = task_dir / "judge" / "judge_result.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rec), "utf-8")
    return out
