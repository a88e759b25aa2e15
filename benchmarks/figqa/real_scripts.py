"""figqa on real plotting scripts from public contest and textbook repositories.

usage: python benchmarks/figqa/real_scripts.py run  WORKDIR OUT.jsonl [--mirror DIR]
                                                    [--sources CSV] [--timeout 90] [--only S]
       python benchmarks/figqa/real_scripts.py eval OUT.jsonl [--labels CSV] [--out JSON]

`run` materialises each repository of real_sources.csv (repo, commit, path) from a
local git mirror (the `fetch` tool's /work/.mirror/<owner>+<name>/repo, or any bare
clone at that commit) into WORKDIR, then runs every listed script exactly as a
user would: `gavel award figqa run SCRIPT --annotate WORKDIR/annotated --format json`
from the script's own folder.  Repositories that are absent are skipped and
counted.  Nothing of the third-party code is committed: only the source list,
our labels and the numbers.

`eval` joins a run with real_labels.csv (one row per flagged or sampled figure,
labelled by looking at its annotated PNG) and counts figures flagged rightly,
figures flagged only by false alarms, and misses.  Run it with the interpreter
that has pandas, scipy, seaborn, networkx, openpyxl and scikit-learn installed
next to gavelkit, or most scripts fail on their own imports.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _materialise(repo: str, commit: str, mirror: Path, work: Path) -> Path | None:
    dest = work / repo.replace("/", "+")
    if (dest / ".done").exists():
        return dest
    git = mirror / repo.replace("/", "+") / "repo"
    if not git.exists():
        return None
    dest.mkdir(parents=True, exist_ok=True)
    # blob by blob: a snapshot may lack its largest files, and `git archive` then fails whole
    ls = subprocess.run(["git", "--git-dir", str(git), "ls-tree", "-r", "-z", commit],
                        capture_output=True)
    if ls.returncode != 0:
        return None
    entries = []
    for item in ls.stdout.split(b"\0"):
        if not item:
            continue
        meta, name = item.split(b"\t", 1)
        mode, typ, oid = meta.split()
        if typ == b"blob" and mode != b"120000":
            entries.append((oid, name.decode("utf-8", "surrogateescape")))
    cat = subprocess.Popen(["git", "--git-dir", str(git), "cat-file", "--batch"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert cat.stdin is not None and cat.stdout is not None
    for oid, name in entries:
        cat.stdin.write(oid + b"\n")
        cat.stdin.flush()
        head = cat.stdout.readline().split()
        if len(head) < 3:  # "<oid> missing"
            continue
        data = cat.stdout.read(int(head[2]))
        cat.stdout.read(1)
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    cat.stdin.close()
    cat.wait()
    (dest / ".done").write_text(commit)
    return dest


def run(a: argparse.Namespace) -> int:
    with open(a.sources, encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if a.only in r["path"] or a.only in r["repo"]]
    work, mirror = Path(a.workdir).resolve(), Path(a.mirror)
    ann = work / "annotated"
    done = set()
    if os.path.exists(a.out):
        with open(a.out, encoding="utf-8") as fh:
            done = {(json.loads(x)["repo"], json.loads(x)["path"]) for x in fh if x.strip()}
    src = str(HERE.parents[1] / "src")  # this checkout's gavelkit, not an installed one
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONHASHSEED="0",
               PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with open(a.out, "a", encoding="utf-8") as out:
        for r in rows:
            if (r["repo"], r["path"]) in done:
                continue
            root = _materialise(r["repo"], r["commit"], mirror, work)
            rec: dict = {"repo": r["repo"], "path": r["path"], "kind": r.get("kind", "")}
            if root is None:
                rec["status"] = "absent"
            else:
                script = root / r["path"]
                tag = (r["repo"].replace("/", "+") + "__" + r["path"].replace("/", "__"))[:-3]
                cmd = [sys.executable, "-m", "gavelkit", "award", "figqa", "run", script.name,
                       "--annotate", str(ann / tag), "--format", "json", "--quiet",
                       "--timeout", str(a.timeout)]
                if a.snapshots:  # every figure as drawn, to label by eye before the findings
                    cmd += ["--snapshot", str(work / "snapshots" / tag)]
                t0 = time.perf_counter()
                proc = subprocess.run(cmd, cwd=script.parent, capture_output=True, text=True,
                                      errors="replace", env=env)
                rec["seconds"] = round(time.perf_counter() - t0, 1)
                rec["exit"] = proc.returncode
                try:
                    doc = json.loads(proc.stdout)
                except ValueError:
                    doc = {}
                    rec["stderr"] = proc.stderr[-800:]
                rec["findings"] = [{"code": f["code"], "message": f["message"][:300],
                                    "figure": (f.get("data") or {}).get("figure"),
                                    "kind": (f.get("data") or {}).get("kind")}
                                   for f in doc.get("findings", [])]
                rec["figures"] = doc.get("figures", [])
                codes = {f["code"] for f in rec["findings"]}
                rec["status"] = ("timeout" if "FIG-S003" in codes else
                                 "script-failed" if "FIG-S001" in codes and not rec["figures"]
                                 else "ok" if rec["figures"] else "no-figure")
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
            out.flush()
            print(f"{rec['status']:14} {len(rec.get('figures', []))} fig "
                  f"{sum(f.get('collisions', 0) for f in rec.get('figures', []))} coll  "
                  f"{r['repo']}:{r['path']}", file=sys.stderr)
    return 0


def evaluate(a: argparse.Namespace) -> int:
    """Join a run with the hand labels, figure by figure.

    Each label row says what a person sees on the figure: `collision` with the
    kinds of real defects on it (real_kinds, ';'-separated figqa kinds), or
    `clean`.  A flagged figure is "right" when at least one reported kind is real,
    "false alarms only" when none is; a real kind that is not reported is a miss.
    """
    with open(a.results, encoding="utf-8") as fh:
        runs = [json.loads(x) for x in fh if x.strip()]
    labels: dict[tuple[str, str, int], dict] = {}
    if os.path.exists(a.labels):
        with open(a.labels, encoding="utf-8") as fh:
            for r in csv.DictReader(fh):
                labels[(r["repo"], r["path"], int(r["figure"]))] = r
    status = Counter(r["status"] for r in runs)
    figs = [(r, f) for r in runs for f in r.get("figures", [])]
    tally: Counter = Counter()
    false_kinds: Counter = Counter()
    missed_kinds: Counter = Counter()
    unlabelled, rows = [], []
    for r, f in figs:
        reported = {x["kind"] for x in r.get("findings", [])
                    if x.get("figure") == f["index"] and x.get("kind")}
        lab = labels.get((r["repo"], r["path"], int(f["index"])))
        if lab is None:
            if reported:
                unlabelled.append(f"{r['repo']}:{r['path']} fig {f['index']}")
            continue
        real = {k for k in lab.get("real_kinds", "").split(";") if k}
        if f.get("error") and not reported:
            verdict = "could not check"  # e.g. usetex without LaTeX (FIG-S004, exit 2)
        elif reported:
            verdict = "flagged, right" if reported & real else "flagged, false alarms only"
        else:
            verdict = "clean, missed" if real else "clean, right"
        tally[verdict] += 1
        false_kinds.update(reported - real)
        missed_kinds.update(real - reported)
        rows.append({"repo": r["repo"], "path": r["path"], "figure": f["index"],
                     "verdict": verdict, "reported": sorted(reported), "real": sorted(real),
                     "false_kinds": sorted(reported - real), "missed": sorted(real - reported),
                     "why": lab.get("why", "")})
    codes = Counter(x["code"] for r in runs for x in r.get("findings", []))
    res = {"results": os.path.basename(a.results), "scripts": len(runs),
           "scripts_by_status": dict(status), "scripts_ran": status.get("ok", 0),
           "figures": len(figs), "figures_flagged": sum(1 for r, f in figs if f.get("collisions")),
           "figures_could_not_check": sum(1 for r, f in figs if f.get("error")),
           "labelled_figures": len(rows), "verdicts": dict(tally),
           "false_alarm_kinds_on_labelled": dict(false_kinds),
           "missed_kinds_on_labelled": dict(missed_kinds),
           "flagged_unlabelled": unlabelled, "finding_codes": dict(codes.most_common()),
           "figures_detail": rows}
    with open(a.out, "w", encoding="utf-8") as fh:
        json.dump(res, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    print(json.dumps({k: v for k, v in res.items() if k not in ("figures_detail",
                                                                 "finding_codes")},
                     indent=1, ensure_ascii=False))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("workdir")
    r.add_argument("out")
    r.add_argument("--mirror", default="/work/.mirror")
    r.add_argument("--sources", default=str(HERE / "real_sources.csv"))
    r.add_argument("--timeout", type=float, default=90)
    r.add_argument("--only", default="")
    r.add_argument("--snapshots", action="store_true", help="also save every figure as drawn")
    e = sub.add_parser("eval")
    e.add_argument("results")
    e.add_argument("--labels", default=str(HERE / "real_labels.csv"))
    e.add_argument("--out", default=str(HERE / "real_results.json"))
    a = ap.parse_args()
    return run(a) if a.cmd == "run" else evaluate(a)


if __name__ == "__main__":
    sys.exit(main())
