"""Gate every figure of the matplotlib gallery; write one JSON line per script.

usage: python benchmarks/figqa/gallery_run.py GALLERIES_DIR OUT.jsonl [--snapshots DIR]
       [--jobs 2] [--timeout 60] [--only SUBSTR]
       python benchmarks/figqa/gallery_run.py --summary OUT.jsonl SUMMARY.json

GALLERIES_DIR is `galleries/` from the matplotlib sdist of the installed
version (pip download --no-binary :all: --no-deps matplotlib==X; the sdist's
build step may fail, the tarball is what we need).  Each script runs headless
through gavelkit's figqa runner in its own process with a timeout.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

RUNNER = Path(__file__).resolve().parents[2] / "src" / "gavelkit" / "award" / "figures" / "runner.py"
SECTIONS = ("examples", "plot_types", "tutorials", "users_explain")


def run_one(script: Path, root: Path, snapshots: str | None, timeout: float) -> dict:
    rel = str(script.relative_to(root))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        cmd = [sys.executable, str(RUNNER), "--out", out]
        if snapshots:
            cmd += ["--snapshot", os.path.join(snapshots, rel.replace("/", "__")[:-3])]
        cmd += ["--", str(script)]
        env = dict(os.environ, MPLBACKEND="Agg")
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=script.parent, capture_output=True, text=True, errors="replace",
                                  timeout=timeout, env=env, start_new_session=True)
        except subprocess.TimeoutExpired:
            return {"script": rel, "status": "timeout"}
        dt = time.perf_counter() - t0
        if not os.path.exists(out):
            return {"script": rel, "status": "runner-failed", "stderr": proc.stderr[-500:]}
        with open(out, encoding="utf-8") as fh:
            res = json.load(fh)
    status = "ok" if res["exit"] == 0 else "script-failed"
    return {"script": rel, "status": status, "seconds": round(dt, 2),
            "exception": res.get("exception"), "figures": res["figures"]}


def summarize(path: str) -> dict:
    """Counts over a finished run: scripts by status, figures, flagged figures, kinds."""
    from collections import Counter

    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(x) for x in fh if x.strip()]
    kinds: Counter = Counter()
    figs = flagged = 0
    for r in rows:
        for f in r.get("figures", []):
            figs += 1
            flagged += bool(f["collisions"])
            kinds.update({c["kind"] for c in f["collisions"]})
    return {"scripts": len(rows), "status": dict(Counter(r["status"] for r in rows)),
            "figures": figs, "figures_flagged": flagged,
            "figures_flagged_by_kind": dict(kinds.most_common()),
            "failed_scripts": sorted(r["script"] for r in rows if r["status"] != "ok")}


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--summary":
        with open(sys.argv[3], "w", encoding="utf-8") as fh:
            json.dump(summarize(sys.argv[2]), fh, indent=1)
            fh.write("\n")
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("galleries")
    ap.add_argument("out")
    ap.add_argument("--snapshots")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    root = Path(a.galleries).resolve()
    scripts = sorted(p for s in SECTIONS for p in (root / s).rglob("*.py")
                     if a.only in str(p) and not p.name.startswith("_"))
    done = 0
    if os.path.exists(a.out):  # resume: keep finished scripts
        with open(a.out, encoding="utf-8") as fh:
            seen = {json.loads(x)["script"] for x in fh if x.strip()}
        scripts = [p for p in scripts if str(p.relative_to(root)) not in seen]
    with open(a.out, "a", encoding="utf-8") as fh, ThreadPoolExecutor(a.jobs) as pool:
        for row in pool.map(lambda s: run_one(s, root, os.path.abspath(a.snapshots) if a.snapshots else None, a.timeout), scripts):
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            done += 1
            if sys.stderr.isatty():
                print(f"\r{done}/{len(scripts)}", end="", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
