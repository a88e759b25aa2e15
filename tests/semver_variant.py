"""Variants of examples/task-semver for the judge tests (issue 16), scored once per session.

`scored_example(base)` copies the example, scores the reference and the broken
candidate with this interpreter (one pytest process: fast, offline), and a third
candidate, `wording`, that differs from the reference only in the wording of its
exception and warning messages (the seed's Gate B case: the spec's Non-Goals say
error-message text is not defined, so those failures are verifier failures).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "task-semver"

def wording_solution(dest: Path) -> Path:
    """The reference with only its messages reworded (the demo's Gate B case)."""
    from gavelkit.task.judging.demo_task import wording_solution as reword

    return reword(EXAMPLE / "reference", dest)


def scored_example(base: Path) -> Path:
    """A scored copy of the example: judge/reference_run, runs broken-001 and wording."""
    from gavelkit.task.scoring.runner import RunOptions, run_solution

    task = base / "task-semver"
    shutil.copytree(EXAMPLE, task, ignore=shutil.ignore_patterns("*.lock", "judge"))
    opts = {"python": sys.executable, "group": "run", "offline": True, "isolation": "auto"}
    run_solution(task, RunOptions(solution=task / "reference", out=task / "judge" / "reference_run",
                                  role="reference", **opts))
    run = task / "candidate-runs" / "broken-001"
    run_solution(task, RunOptions(solution=run / "solution", out=run, **opts))
    w = task / "candidate-runs" / "wording"
    wording_solution(w / "solution")
    shutil.copy(run / "trajectory.jsonl", w / "trajectory.jsonl")
    run_solution(task, RunOptions(solution=w / "solution", out=w, **opts))
    perfect = task / "candidate-runs" / "perfect"
    shutil.copytree(task / "reference", perfect / "solution")
    shutil.copy(run / "trajectory.jsonl", perfect / "trajectory.jsonl")
    run_solution(task, RunOptions(solution=perfect / "solution", out=perfect, **opts))
    return task


def set_state(task: Path, state: str, **counters: int) -> None:
    p = task / "PIPELINE_STATE.md"
    lines = []
    for line in p.read_text("utf-8").splitlines():
        key = line.split(":", 1)[0].strip()
        if key == "state":
            line = f"state:       {state}"
        elif key in counters:
            line = f"{key + ':':<13}{counters[key]}"
        lines.append(line)
    p.write_text("\n".join(lines) + "\n", "utf-8")


def state_of(task: Path) -> str:
    for line in (task / "PIPELINE_STATE.md").read_text("utf-8").splitlines():
        if line.strip().startswith("state:"):
            return line.split(":", 1)[1].strip()
    return ""


def task_json(task: Path) -> dict:
    return json.loads((task / "task.json").read_text("utf-8-sig"))


def fill_spotcheck(task: Path, verdict: str = "derivable") -> Path:
    """Fill the judge's prefilled Gate A/C table (judge/spotcheck.md) with one verdict."""
    p = task / "judge" / "spotcheck.md"
    out = []
    for line in p.read_text("utf-8").splitlines():
        if line.startswith("| `"):
            cells = line.rstrip().rstrip("|").split(" | ")
            cells[-1] = verdict
            line = " | ".join(cells) + " |"
        out.append(line)
    p.write_text("\n".join(out) + "\n", "utf-8")
    fill_gate_b(task)
    return p


def fill_gate_b(task: Path, neutral: str = "yes", qa: str = "no") -> Path | None:
    """Answer the judge's Gate B table (judge/gate_b.md), when the judge wrote one: by
    default every cluster a model failure (reimplementation-neutral, output not per spec)."""
    p = task / "judge" / "gate_b.md"
    if not p.is_file():
        return None
    out = []
    for line in p.read_text("utf-8").splitlines():
        if line.startswith("| C"):
            cells = line.rstrip().rstrip("|").split(" | ")
            cells[-2], cells[-1] = neutral, qa
            line = " | ".join(cells) + " |"
        out.append(line)
    p.write_text("\n".join(out) + "\n", "utf-8")
    return p


def restamp(task: Path, run: str) -> None:
    """After a map edit in a test: mark the run as scored on the current oracle (what
    re-running the candidate records), so the test reaches the gate it aims at."""
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.pipeline.digests import combined, current_digests

    p = task / run / "score_result.json"
    data = json.loads(p.read_text("utf-8"))
    data["gavel"]["integrity"]["oracle_digest_before"] = combined(current_digests(load_task(task)))
    p.write_text(json.dumps(data), "utf-8")
