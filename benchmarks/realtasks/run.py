"""Reproduce the recorded reference score of each real Bmk-dev task from a PyPI release.

    python3 benchmarks/realtasks/run.py [--label after] [--only TASK ...] [--corpus DIR]
        -> benchmarks/realtasks/results-<label>.json and results-<label>.md

For every task folder in the corpus (default `/work/shared/corpus/bmk-real`, skipped
when absent) the task is copied to a temporary folder and
`gavel task solvability TASK --reference-package SPEC --format json` is run, where SPEC
is the release picked in RELEASES below (why each one: see NOTES.md). Recorded is the
task's own reference score (task.json `reference_score` or `reference_pass_rate`);
measured is gavel's pass rate of non-skipped tests. When the two differ by more than
2 points the table shows gavel's first diagnosis line: the benchmark's goal is that the
diagnosis then names the true cause.

Needs the package index (PyPI) for the releases and their dependencies the first time;
uv's cache serves later runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = Path("/work/shared/corpus/bmk-real")

# task -> (release spec, why this release). repo_commit dates were read from the upstream
# repositories' history (`git describe --tags COMMIT`); where task.json records no commit
# the release published last before the task's oracle_version date is used.
RELEASES = {
    "anyio-async-runtime-fullrepro-001": ("anyio==4.14.1", "commit 85b8b6e = 4.14.1+10"),
    "attrs-classes-fullrepro-001": ("attrs==26.1.0", "no commit recorded; latest before 2026-07"),
    "cookiecutter-fullrepro-001": ("cookiecutter==2.7.1", "commit c88fbe9 = v2.7.1+1"),
    "dateparser-dates-fullrepro-001": ("dateparser==1.4.1", "commit 273eb23 = v1.4.1+3"),
    "diskcache-cache-fullrepro-001": ("diskcache==5.6.3", "commit ebfa37c = v5.6.3+2"),
    "dynaconf-settings-fullrepro-001": ("dynaconf==3.3.2", "commit not in upstream history; "
                                        "last release before the task date 2026-07-16"),
    "fsspec-filesystem-fullrepro-001": ("fsspec==2026.6.0", "commit 82d24f7 = 2026.6.0+5"),
    "griffe-apimodel-fullrepro-001": ("griffe==2.1.0", "commit e1d7386 = 2.1.0+14"),
    "h2-protocol-fullrepro-001": ("h2==4.3.0", "no commit recorded; last release before "
                                  "the oracle date 2026-07-17"),
}


def recorded(task: Path) -> tuple[float | None, str]:
    try:
        data = json.loads((task / "task.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None, "unreadable task.json"
    rs = data.get("reference_score")
    if isinstance(rs, dict) and rs.get("total"):
        return rs["passed"] / rs["total"], f"{rs['passed']}/{rs['total']}"
    rpr = data.get("reference_pass_rate")
    if isinstance(rpr, (int, float)):
        n = (data.get("oracle") or {}).get("count")
        return float(rpr), f"rate {rpr}" + (f" of {n}" if n else "")
    return None, "none recorded"


def gavel() -> list[str]:
    exe = shutil.which("gavel")
    return [exe] if exe else [sys.executable, "-m", "gavelkit"]


def run_one(task: Path, spec: str, work: Path, extra: list[str]) -> dict:
    copy = work / task.name
    shutil.copytree(task, copy)
    out = work / (task.name + "-ref")
    cmd = [*gavel(), "task", "solvability", str(copy), "--reference-package", spec,
           "--out", str(out), "--format", "json", "--quiet", *extra]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False,
                          env={**os.environ, "GAVEL_PROGRESS": "0"})
    dt = time.monotonic() - t0
    row: dict = {"exit": proc.returncode, "seconds": round(dt, 1)}
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        row["error"] = (proc.stderr.strip() or proc.stdout.strip())[-400:]
        return row
    row["measured"] = doc.get("pass_rate")
    row["summary"] = doc.get("summary")
    row["diagnosis"] = doc.get("diagnosis") or []
    row["findings"] = [f"{f.get('code')} {f.get('message', '')[:200]}"
                       for f in doc.get("findings", []) if f.get("severity") == "error"][:5]
    return row


def fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", default="after")
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--extra", nargs=argparse.REMAINDER, default=[],
                    help="further arguments for gavel task solvability")
    a = ap.parse_args()
    corpus = Path(a.corpus)
    if not corpus.is_dir():
        print(f"corpus {corpus} absent: nothing to do")
        return 0
    rows = []
    with tempfile.TemporaryDirectory(prefix="gavel-realtasks-") as tmp:
        for task in sorted(p for p in corpus.iterdir() if p.is_dir()):
            if a.only and task.name not in a.only:
                continue
            spec, why = RELEASES.get(task.name, (None, "no release picked"))
            rec, rec_text = recorded(task)
            row = {"task": task.name, "release": spec, "why_release": why,
                   "recorded": rec, "recorded_text": rec_text}
            if spec is None:
                row["error"] = why
            elif not (task / "oracle").is_dir():
                row["error"] = "task folder has no oracle/ (not copied upstream)"
            else:
                row.update(run_one(task, spec, Path(tmp), a.extra))
            m = row.get("measured")
            row["within_2_points"] = (m is not None and rec is not None
                                      and abs(m - rec) <= 0.02)
            rows.append(row)
            print(json.dumps({k: row.get(k) for k in ("task", "release", "recorded",
                                                      "measured", "seconds", "error")}),
                  flush=True)
    (HERE / f"results-{a.label}.json").write_text(json.dumps(rows, indent=2) + "\n")
    lines = [f"# Real-task reference reproduction ({a.label})", "",
             "| task | release | recorded | measured | passed/total | s | cause when different |",
             "|---|---|---:|---:|---|---:|---|"]
    for r in rows:
        s = r.get("summary") or {}
        cause = ""
        if r.get("error"):
            cause = "not run: " + r["error"][:160]
        elif not r["within_2_points"]:
            cause = " / ".join(d[:260] for d in (r.get("diagnosis") or r.get("findings")
                                                 or ["?"])[:4])
        lines.append(f"| {r['task']} | {r.get('release')} | {fmt(r.get('recorded'))} | "
                     f"{fmt(r.get('measured'))} | {s.get('passed', '')}/{s.get('total', '')}"
                     f"{'; ' + str(s.get('skipped')) + ' skipped' if s.get('skipped') else ''}"
                     f" | {r.get('seconds', '')} | {cause.replace('|', '/')} |")
    ok = sum(1 for r in rows if r["within_2_points"])
    lines += ["", f"{ok}/{len(rows)} tasks within 2 points of the recorded reference score."]
    (HERE / f"results-{a.label}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
