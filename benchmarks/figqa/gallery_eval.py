"""Precision and recall of the figure gate against hand labels of gallery figures.

usage: python benchmarks/figqa/gallery_eval.py GALLERIES_DIR [--labels CSV] [--out JSON]
       [--jobs 2] [--timeout 120]

Each labelled script is re-run through the figqa runner with the current code;
a figure counts as "flagged" when the gate reports at least one collision.
The labels (gallery_labels.csv) were made by looking at the rendered figures,
without regard to what the gate said: `collision` means a person sees text
overlapping data or other text, or text cut off; `clean` means they do not.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gallery_run import run_one  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("galleries")
    ap.add_argument("--labels", default=str(HERE / "gallery_labels.csv"))
    ap.add_argument("--out", default=str(HERE / "gallery_results.json"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300)
    a = ap.parse_args()
    root = Path(a.galleries).resolve()
    with open(a.labels, encoding="utf-8") as fh:
        labels = [r for r in csv.DictReader(fh) if r["script"].strip()]
    scripts = sorted({r["script"] for r in labels})
    with ThreadPoolExecutor(a.jobs) as pool:
        runs = dict(zip(scripts, pool.map(
            lambda s: run_one(root / s, root, None, a.timeout), scripts), strict=True))
    rows = []
    counts = defaultdict(lambda: {"tp": 0, "fp": 0, "fn": 0, "tn": 0})
    for lab in labels:
        run = runs[lab["script"]]
        figs = {f["index"]: f for f in run.get("figures", [])}
        fig = figs.get(int(lab["figure"]))
        flagged = bool(fig and fig["collisions"])
        truth = lab["label"] == "collision"
        cell = ("tp" if flagged else "fn") if truth else ("fp" if flagged else "tn")
        for group in ("all", lab.get("trap") or "none"):
            counts[group][cell] += 1
        rows.append({"script": lab["script"], "figure": int(lab["figure"]),
                     "label": lab["label"], "trap": lab.get("trap", ""), "outcome": cell,
                     "status": run["status"] if fig else f"{run['status']}/figure missing",
                     "kinds": sorted({c["kind"] for c in fig["collisions"]}) if fig else []})

    def metrics(c: dict) -> dict:
        p = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else None
        r = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else None
        return {**c, "precision": None if p is None else round(p, 3),
                "recall": None if r is None else round(r, 3)}

    res = {"figures_labelled": len(labels), "scripts": len(scripts),
           "metrics": {k: metrics(v) for k, v in sorted(counts.items())},
           "errors": [r for r in rows if r["outcome"] in ("fp", "fn")], "figures": rows}
    with open(a.out, "w", encoding="utf-8") as fh:
        json.dump(res, fh, indent=1)
        fh.write("\n")
    m = res["metrics"]["all"]
    print(f"{len(labels)} figures: precision {m['precision']}, recall {m['recall']} "
          f"(tp {m['tp']}, fp {m['fp']}, fn {m['fn']}, tn {m['tn']})")
    for r in res["errors"]:
        print(f"  {r['outcome'].upper()} {r['script']} fig {r['figure']} {r['kinds']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
