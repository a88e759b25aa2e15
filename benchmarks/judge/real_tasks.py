"""The judge on the real Bmk-dev tasks (corpus/bmk-real): what it says, and what blocks QUALIFIED.

    python3 benchmarks/judge/real_tasks.py [--tasks a,b] [--out FILE] [--label before]

For each task: a scratch copy; the reference = the registry release of its upstream
library (the picks of issue 15's benchmark, benchmarks/realtasks/run.py, repeated here);
`gavel task solvability --reference-package SPEC` (installed with its dependencies); the
same release scored as a *perfect candidate* (`gavel task run --solution-package SPEC`,
with dependencies, import provenance recorded); then `gavel task judge
--run ... --no-state` (no trajectory: there is no agent run for these tasks). Recorded
per task: reference and candidate pass rates, the judge's verdict and route, the gate
verdicts, the reasons, cascade root counts, seconds. Everything runs through the CLI
(`--format json`), so the script works across module moves. The corpus and the index
are located at run time; a task whose release cannot be installed is recorded as such.

Results go to benchmarks/judge/real_tasks_<label>.json; NOTES.md reads them.
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
CORPUS = Path(os.environ.get("GAVEL_BMK_REAL", "/work/shared/corpus/bmk-real"))
RELEASES = {
    "anyio-async-runtime-fullrepro-001": "anyio==4.14.1",
    "attrs-classes-fullrepro-001": "attrs==26.1.0",
    "cookiecutter-fullrepro-001": "cookiecutter==2.7.1",
    "dateparser-dates-fullrepro-001": "dateparser==1.4.1",
    "diskcache-cache-fullrepro-001": "diskcache==5.6.3",
    "dynaconf-settings-fullrepro-001": "dynaconf==3.3.2",
    "fsspec-filesystem-fullrepro-001": "fsspec==2026.6.0",
    "griffe-apimodel-fullrepro-001": "griffe==2.1.0",
    "h2-protocol-fullrepro-001": "h2==4.3.0",
}


def gavel(*argv: str, timeout: float = 1800) -> tuple[int, dict]:
    cmd = [sys.executable, "-m", "gavelkit", *argv, "--format", "json", "-q"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    try:
        return p.returncode, json.loads(p.stdout)
    except ValueError:
        return p.returncode, {"stderr": p.stderr.strip()[-400:], "stdout": p.stdout[-400:]}


def at_s5_judge(task: Path) -> None:
    """The judge judges only a task at S5_JUDGE (issue 26 item 3); these corpus copies have
    no PIPELINE_STATE.md, so the benchmark writes one at S5_JUDGE by hand, as a maintainer
    judging a legacy task would (`task init`, then the state line)."""
    gavel("task", "init", str(task))
    ps = task / "PIPELINE_STATE.md"
    text = ps.read_text("utf-8")
    ps.write_text(text.replace("state:       S1_SCREENING", "state:       S5_JUDGE", 1), "utf-8")


def one(name: str, spec: str, work: Path) -> dict:
    t0 = time.monotonic()
    src = CORPUS / name
    task = work / name
    shutil.copytree(src, task)
    row: dict = {"task": name, "reference_package": spec}
    rc, doc = gavel("task", "solvability", str(task), "--reference-package", spec)
    row["solvability_rc"] = rc
    if "stderr" in doc:
        row["error"] = f"solvability: {doc['stderr'] or doc['stdout']}"
        return row
    row["reference_rate"] = doc.get("pass_rate")
    row["reference_summary"] = doc.get("summary")
    row["reference_diagnosis"] = (doc.get("diagnosis") or [])[:3]
    run = task / "candidate-runs" / "release-as-candidate"
    rc, doc = gavel("task", "run", str(task), "--solution-package", spec, "--out", str(run))
    row["candidate_rate"] = doc.get("pass_rate")
    if rc == 2:
        row["error"] = f"candidate run failed: {doc.get('stderr') or doc.get('error')}"
    at_s5_judge(task)
    rc, doc = gavel("task", "judge", str(task), "--run", str(run), "--no-state")
    j = doc.get("judge") or {}
    row.update({"judge_rc": rc, "verdict": j.get("verdict"), "route": j.get("route"),
                "reasons": (j.get("reasons") or [])[:6],
                "gates": j.get("fairness_gates"),
                "checks": [c for c in (j.get("checks") or []) if c.get("status") != "PASS"],
                "standard": j.get("standard"),
                "cascade": ((j.get("metrics") or {}).get("cascade")),
                "finding_codes": sorted({f.get("code") for f in doc.get("findings", [])}),
                "stderr": doc.get("stderr")})
    row["seconds"] = round(time.monotonic() - t0, 1)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", help="comma-separated task names (default: all)")
    ap.add_argument("--label", default="after")
    ap.add_argument("--out")
    a = ap.parse_args()
    if not CORPUS.is_dir():
        print(f"skipped: {CORPUS} not found")
        return 0
    names = a.tasks.split(",") if a.tasks else sorted(RELEASES)
    rows = []
    with tempfile.TemporaryDirectory(prefix="gavel-judge-real-") as tmp:
        for n in names:
            if not (CORPUS / n).is_dir():
                rows.append({"task": n, "error": "not in the corpus"})
                continue
            try:
                rows.append(one(n, RELEASES[n], Path(tmp)))
            except subprocess.TimeoutExpired as exc:
                rows.append({"task": n, "error": f"timeout: {exc}"})
            print(json.dumps({k: rows[-1].get(k) for k in ("task", "reference_rate",
                                                          "candidate_rate", "verdict", "route",
                                                          "seconds", "error")}), flush=True)
    out = Path(a.out) if a.out else HERE / f"real_tasks_{a.label}.json"
    out.write_text(json.dumps({"label": a.label, "rows": rows}, indent=1) + "\n", "utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
