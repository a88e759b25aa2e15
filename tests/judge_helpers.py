"""Shared pieces of the scoring/judging tests: a small task, solutions written as text."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

from task_helpers import GOOD

REFERENCE = '''
class Tally:
    def __init__(self, total):
        self.total = total

    def __repr__(self):
        return f"Tally({self.total})"


def parse(text):
    n = 0
    for ch in text:
        if ch == "|":
            n += 1
        elif ch != " ":
            raise ValueError(ch)
    return Tally(n)


def render(t):
    return str(t.total)
'''

BROKEN = REFERENCE.replace("raise ValueError(ch)", "pass").replace(
    "return str(t.total)", "return str(t.total + 1)")


def make_task(tmp: Path, name: str = "task_good", atomic_only: bool = False) -> Path:
    """A copy of the hand-made tally task; atomic_only keeps one oracle file (one process)."""
    dest = tmp / name
    shutil.copytree(GOOD, dest)
    if atomic_only:
        kept = dest / "kept_nodeids.txt"
        ids = [x for x in kept.read_text().splitlines() if x.startswith("oracle/test_atomic.py")]
        kept.write_text("\n".join(ids) + "\n")
    return dest


def solution(tmp: Path, name: str, files: dict[str, str]) -> Path:
    """Write a solution folder: {relative path: source}."""
    root = tmp / "solutions" / name
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"), "utf-8")
    root.mkdir(parents=True, exist_ok=True)
    return root


def ref_solution(tmp: Path, name: str = "ref") -> Path:
    return solution(tmp, name, {"tally/__init__.py": REFERENCE})


def filled_spotcheck(task: Path, verdict: str = "derivable") -> Path:
    """judge/spotcheck.md with the seed-0 sample and one verdict in every row (the judge's
    Gate A/C table, filled as a senior engineer would for this small hand-made task)."""
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.gates import spotcheck

    t = load_task(task)
    gate = "C" if spotcheck.gate_c_triggered(t)[0] else "A"
    rows = spotcheck.build(t, 8, 0, gate)
    for r in rows:
        r.verdict = verdict
    out = task / "judge" / "spotcheck.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(spotcheck.render(rows, gate, 0, len(rows),
                                    spotcheck.allowed_verdicts(t.config, gate)), "utf-8")
    return out


def stand_in_preflight(package: str, candidate: str, passed: bool, reason: str):  # type: ignore[no-untyped-def]
    """What the anti-cheat pack's preflight returns, without running the probe: the module
    resolves into the candidate (passed) or into the system's site-packages."""
    from gavelkit.task.anticheat.preflight import PreflightResult

    out = (f"{candidate}/{package}/__init__.py" if passed
           else f"/usr/lib/python3/{package}/__init__.py")
    return PreflightResult(package, candidate, passed, "ok" if passed else "outside", reason,
                           f'python -c "import {package}; print({package}.__file__)"', out, 0)


def filled_gate_b(task: Path, run: Path, neutral: str = "yes", qa: str = "no") -> Path:
    """judge/gate_b.md for the run's failure clusters, every judgement cell answered (the
    judge's Gate B table: by default each cluster a model failure)."""
    import json as _json

    from gavelkit.task.formats.load import load_task
    from gavelkit.task.judging import gate_b_table
    from gavelkit.task.judging.metrics import compute

    t = load_task(task)
    score = _json.loads((run / "score_result.json").read_text("utf-8"))
    cands = [c for c in compute(t, score).clusters if c.klass == "candidate"]
    text = gate_b_table.render(cands).replace("| ? | ? |", f"| {neutral} | {qa} |")
    out = task / gate_b_table.TABLE
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, "utf-8")
    return out
