"""Hostile-input campaign: every command's file inputs x every kind of hostile file.

Goal (issue 13): exit code always in {0, 1, 2} -- never 3 ("internal error"), never a
traceback, never a hang (each call is killed after --timeout s and counted as "hang"),
never a file outside the workspace's output paths changed, never a symlink followed out
of the root it was given into `outside/`.

    python benchmarks/failclosed/campaign.py [--kinds a,b] [--slots substr] [--out FILE]

Writes a JSON result (counts by exit code, and every case that broke the contract) and
prints a summary table. Each call runs in a child with a 1.5 GB address-space cap. The
judge slots need a scored run of the hand-made tally task; it is made once per campaign
(skipped, with a note, when scoring is unavailable).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "src"))

from hostile import KINDS, SLOTS, build_workspace, plant, run_gavel, snapshot  # noqa: E402


def judged_task(tmp: Path) -> Path | None:
    """Score the reference tally solution once so the judge slots have a run to judge."""
    try:
        from gavelkit.task.pipeline.state import init_state
        from gavelkit.task.scoring.options import RunOptions
        from gavelkit.task.scoring.runner import run_solution
    except ImportError:
        return None
    from judge_helpers import REFERENCE, make_task, solution

    task = make_task(tmp, "prep")
    ref = solution(tmp, "ref", {"tally/__init__.py": REFERENCE})
    try:
        run_solution(task, RunOptions(solution=ref, out=task / "candidate-runs" / "perfect",
                                      package="tally"))
        run_solution(task, RunOptions(solution=ref, out=task / "judge" / "reference_run",
                                      role="reference", package="tally"))
    except Exception as exc:
        print(f"note: could not score the tally task ({exc}); judge slots use no run")
        return None
    data = json.loads((task / "task.json").read_text("utf-8-sig"))
    data["package"] = "tally"
    (task / "task.json").write_text(json.dumps(data, indent=2), "utf-8")
    init_state(task, "tally_task", date="2026-01-01", force=True)
    p = task / "PIPELINE_STATE.md"
    p.write_text(p.read_text("utf-8").replace("state:       S1_SCREENING",
                                              "state:       S4_DONE"), "utf-8")
    return task


def one_case(base: Path, slot: tuple[str, str, list[str]], kind: str, judge_run: Path | None,
             timeout: float) -> dict[str, object]:
    name, rel, argv = slot
    ws = Path(tempfile.mkdtemp(prefix="case-", dir=base))
    build_workspace(ws, REPO, judge_run)
    target = ws / rel
    try:
        plant(kind, target, ws / "outside")
    except OSError as exc:
        shutil.rmtree(ws, ignore_errors=True)
        return {"slot": name, "kind": kind, "rc": "skip", "why": str(exc)}
    outside_before = snapshot(ws / "outside")
    args = [a.replace("{ws}", str(ws)) for a in argv]
    t0 = time.monotonic()
    rc, out, err = run_gavel(args, cwd=ws, timeout=timeout)
    dt = time.monotonic() - t0
    broke = []
    if rc not in (0, 1, 2):
        broke.append(f"exit {rc}")
    if "Traceback (most recent call last)" in err or "Traceback (most recent call last)" in out:
        broke.append("traceback")
    if snapshot(ws / "outside") != outside_before:
        broke.append("changed a file outside")
    if kind == "outside_link" and "secret" in out and rc == 0:
        broke.append("read through a link out of its root")
    for p in (ws / "out").rglob("*"):
        if p.is_symlink():
            continue
        if p.is_file() and "agent: secret" in p.read_text("utf-8", "replace"):
            broke.append("copied a file from outside its root")
            break
    os.system(f"chmod -R u+rwX {ws} 2>/dev/null")
    shutil.rmtree(ws, ignore_errors=True)
    last = (err.strip().splitlines() or [""])[-1][:220]
    return {"slot": name, "kind": kind, "rc": rc, "seconds": round(dt, 2), "broke": broke,
            "stderr": last}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kinds", help="comma-separated subset of " + ",".join(KINDS))
    ap.add_argument("--slots", help="only slots whose name contains this text")
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--out", help="write the JSON result here")
    ap.add_argument("--label", default="run", help="label stored in the result (before/after)")
    a = ap.parse_args()
    kinds = a.kinds.split(",") if a.kinds else KINDS
    slots = [s for s in SLOTS if not a.slots or a.slots in s[0]]
    base = Path(tempfile.mkdtemp(prefix="gavel-failclosed-"))
    judge_run = judged_task(base) if any("judge" in s[0] for s in slots) else None
    cases = []
    t0 = time.monotonic()
    for slot in slots:
        for kind in kinds:
            c = one_case(base, slot, kind, judge_run, a.timeout)
            cases.append(c)
            mark = "!" if c.get("broke") else " "
            print(f"{mark} {c['rc']!s:>4}  {slot[0]:<32} {kind:<15} {c.get('stderr', '')[:90]}",
                  flush=True)
    shutil.rmtree(base, ignore_errors=True)
    counts = Counter(str(c["rc"]) for c in cases)
    broken = [c for c in cases if c.get("broke")]
    result = {"label": a.label, "cases": len(cases), "by_exit": dict(sorted(counts.items())),
              "broken": len(broken), "seconds": round(time.monotonic() - t0, 1),
              "broken_cases": broken,
              "by_slot": {s[0]: dict(Counter(str(c["rc"]) for c in cases
                                             if c["slot"] == s[0])) for s in slots}}
    print(f"\n{len(cases)} cases: by exit {dict(sorted(counts.items()))}; "
          f"{len(broken)} broke the contract")
    if a.out:
        Path(a.out).write_text(json.dumps(result, indent=1) + "\n", "utf-8")
    return 0 if not broken else 1


if __name__ == "__main__":
    sys.exit(main())
