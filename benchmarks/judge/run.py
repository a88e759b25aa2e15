"""Scoring overhead against bare pytest, and judge-all --jobs 2 against --jobs 1.

    python3 benchmarks/judge/run.py [--runs 5] [--fleet 4]   # writes benchmarks/judge/results.json

1. Overhead: the example task (semver 3.0.2 oracle, 295 node ids, 3 files) scored with
   the reference solution, warm uv environment. Compared against bare pytest in the
   same environment on the same oracle and solution:
   - `bare_per_file`: `python -m pytest -q -p no:cacheprovider FILE` once per file
     (the same process layout as the runner's default `--group file`);
   - `bare_single`: one `python -m pytest` over all three files (layout of `--group run`).
   The runner is timed end to end (`run_solution`: copies, hashing, sandbox, plugin,
   reconciliation, writing score_result.json), with and without bubblewrap.
   Reported: min and median of `--runs` alternating repetitions; ratio = min / min.
2. Fleet: `--fleet N` copies of the example task, each judged from scratch (reference
   run, candidate run, judge) with judge-all --jobs 1, then --jobs 2 (process pool).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from gavelkit.task.judging.fleet import FleetOptions, judge_all  # noqa: E402
from gavelkit.task.scoring.envbuild import build_env  # noqa: E402
from gavelkit.task.scoring.options import RunOptions  # noqa: E402
from gavelkit.task.scoring.runner import run_solution  # noqa: E402
from gavelkit.task.scoring.sandbox import bwrap_available  # noqa: E402

FILES = ["oracle/test_atomic.py", "oracle/test_integration.py", "oracle/test_system.py"]


def _bare(task: Path, python: str, files: list[list[str]]) -> float:
    env = {**os.environ, "PYTHONPATH": str(task / "reference"),
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    t0 = time.perf_counter()
    for group in files:
        p = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c",
                            os.devnull, "--rootdir", str(task), *group], cwd=task, env=env,
                           capture_output=True, text=True, check=False)
        assert p.returncode == 0, p.stdout[-2000:]
    return time.perf_counter() - t0


def _ours(task: Path, out: Path, isolation: str, group: str) -> float:
    t0 = time.perf_counter()
    res = run_solution(task, RunOptions(solution=task / "reference", out=out, role="reference",
                                        isolation=isolation, group=group))
    assert res.pass_rate == 1.0, res.summary
    return time.perf_counter() - t0


def _cpu() -> float:
    """User+system CPU seconds of this process and its finished children."""
    a = resource.getrusage(resource.RUSAGE_SELF)
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def _stats(xs: list[float]) -> dict[str, float]:
    return {"min": round(min(xs), 3), "median": round(statistics.median(xs), 3),
            "runs": [round(x, 3) for x in xs]}


def overhead(runs: int, work: Path) -> dict:
    task = work / "task-semver"
    shutil.copytree(ROOT / "examples" / "task-semver", task)
    env = build_env(task / "oracle" / "requirements.txt")  # warm the cache first
    modes = {"bare_per_file": lambda: _bare(task, env.python, [[f] for f in FILES]),
             "bare_single": lambda: _bare(task, env.python, [FILES]),
             "gavel_per_file_none": lambda: _ours(task, work / "o1", "none", "file"),
             "gavel_single_none": lambda: _ours(task, work / "o2", "none", "run")}
    if bwrap_available()[0]:
        modes["gavel_per_file_bwrap"] = lambda: _ours(task, work / "o3", "bwrap", "file")
        modes["gavel_single_bwrap"] = lambda: _ours(task, work / "o4", "bwrap", "run")
    times: dict[str, list[float]] = {k: [] for k in modes}
    cpu: dict[str, list[float]] = {k: [] for k in modes}
    for fn in modes.values():  # one warm-up round (page cache, pyc of gavel itself)
        fn()
    for _ in range(runs):
        for k, fn in modes.items():
            c0 = _cpu()
            times[k].append(fn())
            cpu[k].append(_cpu() - c0)
    out = {k: _stats(v) for k, v in times.items()}
    cpu_out = {k: _stats(v) for k, v in cpu.items()}
    ratios, cpu_ratios = {}, {}
    for k in out:
        base = ("bare_per_file" if k.startswith("gavel_per_file") else
                "bare_single" if k.startswith("gavel_single") else None)
        if base:
            ratios[k] = {"median": round(out[k]["median"] / out[base]["median"], 3),
                         "min": round(out[k]["min"] / out[base]["min"], 3)}
            # bubblewrap's pid namespace hides the test process from RUSAGE_CHILDREN
            cpu_ratios[k] = (None if k.endswith("bwrap") else
                             round(cpu_out[k]["median"] / cpu_out[base]["median"], 3))
    return {"timings_s": out, "cpu_s": cpu_out, "ratio_vs_bare_same_layout": ratios,
            "cpu_ratio_vs_bare_same_layout": cpu_ratios,
            "env_python": env.python, "node_ids": 295}


def fleet(n: int, work: Path) -> dict:
    base = work / "fleet"
    for i in range(n):
        shutil.copytree(ROOT / "examples" / "task-semver", base / f"task-semver-{i}")
    res = {}
    for jobs in (1, 2):
        for p in base.iterdir():  # from scratch each time
            shutil.rmtree(p / "judge", ignore_errors=True)
            for f in p.glob("candidate-runs/*/score_result.json"):
                f.unlink()
        t0 = time.perf_counter()
        rows = judge_all(base, FleetOptions(jobs=jobs, move_state=False))
        dt = time.perf_counter() - t0
        assert all(not r.get("error") for r in rows), rows
        res[f"jobs_{jobs}_s"] = round(dt, 3)
    res["speedup"] = round(res["jobs_1_s"] / res["jobs_2_s"], 3)
    res["tasks"] = n
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--fleet", type=int, default=4)
    ap.add_argument("--out", default=str(Path(__file__).with_name("results.json")))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gavel-bench-") as tmp:
        work = Path(tmp)
        load0 = os.getloadavg()
        result = {"machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                              "python": sys.version.split()[0],
                              "bwrap": bwrap_available()[0], "loadavg_start": load0},
                  "overhead": overhead(a.runs, work), "fleet": fleet(a.fleet, work)}
        result["machine"]["loadavg_end"] = os.getloadavg()
    Path(a.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
