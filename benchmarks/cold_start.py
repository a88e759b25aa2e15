"""Cold start of the linter against `python3 -c "import yaml"`: agents call it many times.

Paired method: every round runs the baseline and each command once, in an order that
alternates round by round (A B A B, then B A B A), so a load swing hits both sides of a
pair alike. The ratio reported is the median of the per-round ratios (command time /
baseline time of the same round), next to the median times. `--predecessor PATH` adds the
public seed's own `lint_run.py` (not shipped here; point at a copy) to the comparison.
Writes results/cold_start.json plus a Markdown table on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(cmd: list[str], runs: int, env: dict[str, str]) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        out.append((time.perf_counter() - t0) * 1000)
        if r.returncode not in (0, 1):
            raise SystemExit(f"{cmd} exited {r.returncode}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--predecessor", help="path to the public lint_run.py, to compare with")
    ap.add_argument("--out", default=str(ROOT / "benchmarks/results/cold_start.json"))
    args = ap.parse_args()
    card = next(ROOT.glob("examples/award-run/work/*/scorecards/phase7-seat-A-round-1.yaml"))
    py = sys.executable
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src")
    entry = Path(sys.executable).parent / "gavel"
    cmds = {
        "baseline: python3 -c 'import yaml'": [py, "-c", "import yaml"],
        "python3 -c 'pass'": [py, "-c", "pass"],
        "gavel award lint scorecard FILE": ([str(entry)] if entry.exists() and
                                            entry.read_text(errors="ignore").startswith("#!")
                                            and "pyenv" not in entry.read_text(errors="ignore")
                                            else [py, "-m", "gavelkit"])
        + ["award", "lint", "scorecard", str(card)],
        "python3 -m gavelkit award lint scorecard FILE": [py, "-m", "gavelkit", "award", "lint",
                                                          "scorecard", str(card)],
        "lint_run.py scorecard FILE": [py, str(ROOT / "skills/mathodology-award-gates/scripts/"
                                            "lint_run.py"), "scorecard", str(card)],
    }
    if args.predecessor:
        cmds["predecessor lint_run.py scorecard FILE"] = [py, args.predecessor, "scorecard",
                                                          str(card)]
    base_name = "baseline: python3 -c 'import yaml'"
    for cmd in cmds.values():  # warm the page cache and .pyc files
        timed(cmd, 2, env)
    samples: dict[str, list[float]] = {name: [] for name in cmds}
    ratios: dict[str, list[float]] = {name: [] for name in cmds}
    names = list(cmds)
    for i in range(args.runs):
        order = names if i % 2 == 0 else names[::-1]
        got = {name: timed(cmds[name], 1, env)[0] for name in order}
        for name, ms in got.items():
            samples[name].append(ms)
            ratios[name].append(ms / got[base_name])
    results = {}
    for name, xs in samples.items():
        results[name] = {"median_ms": round(statistics.median(xs), 1),
                         "p90_ms": round(sorted(xs)[int(0.9 * (len(xs) - 1))], 1),
                         "runs": len(xs),
                         "ratio_to_baseline": round(statistics.median(ratios[name]), 2)}
    doc = {"machine": {"python": platform.python_version(), "platform": platform.platform(),
                       "cpus": os.cpu_count(), "loadavg_before": os.getloadavg()[0],
                       "shim_free_entry_point": bool(shutil.which("gavel"))},
           "date": time.strftime("%Y-%m-%d"), "goal": "lint cold start <= 1.5x baseline (paired)", "method": "paired, alternating order",
           "results": results}
    Path(args.out).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    print("| command | median ms | p90 ms | × baseline |\n|---|---|---|---|")
    for name, r in results.items():
        print(f"| {name} | {r['median_ms']} | {r['p90_ms']} | {r['ratio_to_baseline']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
