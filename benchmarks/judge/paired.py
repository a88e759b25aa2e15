"""End-to-end `gavel task run` against bare pytest, measured in pairs (A B A B ...).

    python3 benchmarks/judge/paired.py [--pairs 10] [--corpus DIR] [--label NAME]
        -> benchmarks/judge/paired-<label>.json

A is bare pytest in the task's warm environment on the same oracle files and solution:
`python -m pytest -q -p no:cacheprovider FILES` with plugin autoload off, one process.
When the files hold tests the task does not name (gavel deselects them: the example's
files have 326 tests for 295 ids; on tasks whose ids drifted most of each file), A is
also timed with those tests deselected (`--deselect ID` for each), so it collects and
runs what gavel does, and each round's ratio is taken against the faster of the two bare
runs (the stricter baseline).
B is the whole command a user types, as a subprocess: `gavel task run TASK --solution S
--out O --role reference --quiet --format json` (CLI start-up, task loading, copies,
hashing, sandbox, result plugin, re-runs, reconciliation, writing the score). Each pair
runs A then B back to back so a load swing on the shared machine hits both; reported are
the median of the per-pair ratios B/A and the ratio of the medians.

Tasks: the bundled 295-test example (examples/task-semver, reference solution) and, when
the corpus is present, the real Bmk-dev tasks whose reference installs from PyPI (their
solvability run is done first to warm the derived environment; A then uses that
environment's interpreter, B scores the same installed reference with
`gavel task solvability --reference-package`).
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
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CORPUS = Path("/work/shared/corpus/bmk-real")
sys.path.insert(0, str(ROOT / "benchmarks" / "realtasks"))


def gavel() -> list[str]:
    exe = shutil.which("gavel")
    return [exe] if exe else [sys.executable, "-m", "gavelkit"]


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    return time.perf_counter() - t0, p


def bare_cmd(python: str, files: list[str], task: Path) -> list[str]:
    return [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", os.devnull,
            "--rootdir", str(task), *files]


def bare_variants(python: str, score: dict, task: Path, env: dict[str, str],
                  plugins: list[str]) -> dict[str, list[str]]:
    """The bare pytest commands that run what gavel ran. "files": the oracle files (the
    issue's baseline). When the files hold tests the task does not name (gavel deselects
    them; on tasks whose ids drifted, most of the file), also "named": the same files with
    every other collected test deselected, so bare collects what gavel collects and runs
    no more tests than gavel. Each round is timed against the faster of the two."""
    files = sorted({c["file"] for c in score["cases"]})
    ran = sorted(c["nodeid"] for c in score["cases"] if c.get("outcome") != "not_collected")
    head = bare_cmd(python, files, task)[:-len(files)] + plugins
    out = subprocess.run([*head, "--collect-only", *files], cwd=task, env=env,
                         capture_output=True, text=True, check=False)
    listed = sorted(line.strip() for line in out.stdout.splitlines() if "::" in line)
    variants = {"files": [*head, *files]}
    if listed != ran:
        skip = [x for nid in sorted(set(listed) - set(ran)) for x in ("--deselect", nid)]
        variants["named"] = [*head, *skip, *files]
    return variants


def pairs(name: str, bares: dict[str, tuple], b: tuple, n: int) -> dict:
    """Rounds of: each bare variant, then gavel; ratio = gavel / the faster bare run."""
    tb, ratios = [], []
    ta: dict[str, list[float]] = {k: [] for k in bares}
    exits: dict[str, int] = {}
    for _ in range(n):
        for k, a in bares.items():
            d, pa = timed(*a)
            ta[k].append(d)
            exits[k] = pa.returncode
        db, pb = timed(*b)
        if pb.returncode not in (0, 1):
            return {"task": name, "error": (pb.stderr or pb.stdout)[-600:]}
        tb.append(db)
        ratios.append(db / min(ta[k][-1] for k in bares))
    med = statistics.median
    fast = [min(ta[k][i] for k in bares) for i in range(n)]
    return {"task": name, "pairs": n, "bare_median_s": round(med(fast), 3),
            "bare_variant_median_s": {k: round(med(v), 3) for k, v in ta.items()},
            "gavel_median_s": round(med(tb), 3),
            "ratio_of_medians": round(med(tb) / med(fast), 3),
            "median_pair_ratio": round(med(ratios), 3),
            "min_pair_ratio": round(min(ratios), 3),
            "bare_s": {k: [round(x, 3) for x in v] for k, v in ta.items()},
            "gavel_s": [round(x, 3) for x in tb],
            "bare_exit": exits, "gavel_exit": pb.returncode}


def compile_gavelkit() -> None:
    """Byte-compile gavelkit as `pip install` does: with PYTHONDONTWRITEBYTECODE set (as on
    the shared machine) an editable checkout would otherwise recompile ~50 modules (~50 ms)
    on every `gavel` call, which no installed user pays."""
    import gavelkit

    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(gavelkit.__file__).parent)],
                   capture_output=True, check=False)


def versus(work: Path, n: int, old_src: Path) -> dict:
    """Bare pytest, this checkout and an older checkout (`--versus SRC`, e.g. a `git
    worktree` of the commit before), interleaved A B C per round on the example, all three
    through `python -m gavelkit` so the launcher is the same: before/after under one load."""
    task = work / "vs-task-semver"
    shutil.copytree(ROOT / "examples" / "task-semver", task)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(old_src / "gavelkit")],
                   capture_output=True, check=False)
    env = {**os.environ, "GAVEL_PROGRESS": "0"}

    def cmd(src: Path, out: str) -> tuple:
        c = [sys.executable, "-m", "gavelkit", "task", "run", str(task), "--solution",
             str(task / "reference"), "--out", str(work / out), "--role", "reference",
             "--quiet", "--format", "json"]
        return c, work, {**env, "PYTHONPATH": str(src)}
    new, old = cmd(ROOT / "src", "vs-new"), cmd(old_src, "vs-old")
    for c in (new, old):
        subprocess.run(c[0], cwd=c[1], env=c[2], capture_output=True, check=False)
    score = json.loads((work / "vs-new" / "score_result.json").read_text())
    python = score["gavel"]["environment"]["python"]
    files = sorted({c["file"] for c in score["cases"]})
    benv = {**os.environ, "PYTHONPATH": str(task / "reference"),
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    bare = (bare_cmd(python, files, task), task, benv)
    tb, tn, to, rn, ro = [], [], [], [], []
    for i in range(n):
        order = [("bare", bare), ("new", new), ("old", old)]
        if i % 2:
            order = [order[0], order[2], order[1]]
        got = {}
        for name, c in order:
            got[name], p = timed(*c)
            if name != "bare" and p.returncode not in (0, 1):
                return {"task": "versus", "error": (p.stderr or p.stdout)[-600:]}
        tb.append(got["bare"])
        tn.append(got["new"])
        to.append(got["old"])
        rn.append(got["new"] / got["bare"])
        ro.append(got["old"] / got["bare"])
    med = statistics.median
    return {"task": "examples/task-semver (295 tests), this checkout vs " + str(old_src),
            "rounds": n, "bare_median_s": round(med(tb), 3),
            "new_median_s": round(med(tn), 3), "old_median_s": round(med(to), 3),
            "new_median_ratio": round(med(rn), 3), "old_median_ratio": round(med(ro), 3),
            "new_min_ratio": round(min(rn), 3), "old_min_ratio": round(min(ro), 3),
            "bare_s": [round(x, 3) for x in tb], "new_s": [round(x, 3) for x in tn],
            "old_s": [round(x, 3) for x in to]}


def example(work: Path, n: int, extra: list[str]) -> dict:
    task = work / "task-semver"
    shutil.copytree(ROOT / "examples" / "task-semver", task)
    out = work / "semver-out"
    cmd = [*gavel(), "task", "run", str(task), "--solution", str(task / "reference"),
           "--out", str(out), "--role", "reference", "--quiet", "--format", "json", *extra]
    env = {**os.environ, "GAVEL_PROGRESS": "0"}
    first = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    score = json.loads((out / "score_result.json").read_text())
    python = score["gavel"]["environment"]["python"]
    benv = {**os.environ, "PYTHONPATH": str(task / "reference"),
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    bares = {k: (v, task, benv) for k, v in bare_variants(python, score, task, benv, []).items()}
    res = pairs("examples/task-semver (295 tests)", bares, (cmd, work, env), n)
    res["summary"] = score["summary"]
    res["prestarted"] = score["gavel"].get("processes", {}).get("prestarted")
    res["first_run_exit"] = first.returncode
    return res


def corpus_task(task_src: Path, spec: str, work: Path, n: int, extra: list[str]) -> dict:
    task = work / task_src.name
    shutil.copytree(task_src, task)
    out = work / (task.name + "-out")
    cmd = [*gavel(), "task", "solvability", str(task), "--reference-package", spec,
           "--out", str(out), "--quiet", "--format", "json", *extra]
    env = {**os.environ, "GAVEL_PROGRESS": "0"}
    subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    sp = out / "score_result.json"
    if not sp.is_file():
        return {"task": task.name, "error": "no score written"}
    score = json.loads(sp.read_text())
    python = (score["gavel"].get("environment") or {}).get("python")
    if not python:
        return {"task": task.name, "error": "no environment"}
    benv = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    plugins = []
    for p in (score["gavel"].get("isolation") or {}).get("plugins") or []:
        plugins += ["-p", p]
    bares = {k: (v, task, benv) for k, v in
             bare_variants(python, score, task, benv, plugins).items()}
    res = pairs(f"{task.name} ({spec})", bares, (cmd, work, env), n)
    res["summary"] = score["summary"]
    res["prestarted"] = score["gavel"].get("processes", {}).get("prestarted")
    return res


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--corpus-pairs", type=int, default=5)
    ap.add_argument("--only", nargs="*", help="corpus task names")
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--label", default="after")
    ap.add_argument("--versus", metavar="SRC", help="also time an older checkout's src/ "
                                                   "(e.g. a git worktree of the commit before)")
    ap.add_argument("--no-compile", action="store_true",
                    help="do not byte-compile gavelkit first (measures an uncompiled checkout)")
    ap.add_argument("--extra", nargs=argparse.REMAINDER, default=[])
    a = ap.parse_args()
    result = {"machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                          "loadavg_start": os.getloadavg()}, "tasks": []}
    if not a.no_compile:
        compile_gavelkit()
    with tempfile.TemporaryDirectory(prefix="gavel-paired-") as tmp:
        work = Path(tmp)
        if a.versus:
            result["tasks"].append(versus(work, a.pairs, Path(a.versus).resolve()))
            print(json.dumps({k: v for k, v in result["tasks"][-1].items()
                              if not k.endswith("_s") or k.endswith("median_s")}), flush=True)
        result["tasks"].append(example(work, a.pairs, a.extra))
        print(json.dumps({k: v for k, v in result["tasks"][-1].items()
                          if not k.endswith("_s") or k.endswith("median_s")}), flush=True)
        corpus = Path(a.corpus)
        if corpus.is_dir() and not a.no_corpus:
            from run import RELEASES  # benchmarks/realtasks/run.py

            for t in sorted(p for p in corpus.iterdir() if (p / "oracle").is_dir()):
                if (a.only and t.name not in a.only) or t.name not in RELEASES:
                    continue
                result["tasks"].append(corpus_task(t, RELEASES[t.name][0], work,
                                                   a.corpus_pairs, a.extra))
                print(json.dumps({k: v for k, v in result["tasks"][-1].items()
                                  if not k.endswith("_s") or k.endswith("median_s")}),
                      flush=True)
    result["machine"]["loadavg_end"] = os.getloadavg()
    (HERE / f"paired-{a.label}.json").write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
