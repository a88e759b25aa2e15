"""Measure `gavel task gates` over every real task folder we can find.

    nice -n 10 python benchmarks/gates/measure.py LABEL   # LABEL: before | after

Task sets (each skipped when absent):
- corpus/bmk-real and corpus/bmk-tasks under ../shared (relative to the repo root or
  one level further up, for a worktree);
- the Bmk-dev extraction of benchmarks/gates/extract_bmk_dev.py (default
  /work/scratch/i14/tasks, or $GAVEL_BMK_TASKS).

Writes benchmarks/gates/results_<LABEL>.json (per task: verdicts, findings by
code and severity, whether its map could be read, Gate D source) and prints a
Markdown summary. Folders with identical content on several branches are
counted once in the "distinct" figures (digest of spec, task.json, map, kept ids,
taxonomy and oracle test files).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# GAVEL_SRC measures another checkout's code on the same material, e.g. the "before":
#   git worktree add /tmp/before a1323e1 && GAVEL_SRC=/tmp/before/src python measure.py before
sys.path.insert(0, os.environ.get("GAVEL_SRC") or str(ROOT / "src"))

from gavelkit.cli.main import main as gavel  # noqa: E402

QUALIFIED = {"QUALIFIED", "REINSTATED-QUALIFIED"}
MAP_NAMES = ("spec_test_map.md", "filter/spec_test_map.md")
DIGEST_FILES = ("spec.md", "task.json", "MANIFEST.json", "spec_test_map.md", "kept_nodeids.txt",
                "taxonomy.jsonl", "source_nodeid_map.json")


def task_sets() -> list[tuple[str, Path]]:
    out: list[tuple[str, Path]] = []
    for base in (ROOT.parent / "shared", ROOT.parent.parent / "shared"):
        for name in ("bmk-real", "bmk-tasks"):
            d = base / "corpus" / name
            if d.is_dir() and not any(n == f"corpus/{name}" for n, _ in out):
                out += [(f"corpus/{name}", p) for p in sorted(d.iterdir()) if p.is_dir()]
    bmk = Path(os.environ.get("GAVEL_BMK_TASKS", "/work/scratch/i14/tasks"))
    if bmk.is_dir():
        for branch in sorted(p for p in bmk.iterdir() if p.is_dir()):
            out += [(f"bmk-dev/{branch.name}", p) for p in sorted(branch.iterdir()) if p.is_dir()]
    return out


def digest(d: Path) -> str:
    h = hashlib.sha256()
    files = [d / n for n in DIGEST_FILES] + sorted((d / "oracle").glob("*.py"))
    for p in files:
        if p.is_file():
            h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]


def authors_status(d: Path) -> str:
    for name in ("task.json", "MANIFEST.json"):
        p = d / name
        if p.is_file():
            try:
                data = json.loads(p.read_text("utf-8-sig"))
            except (OSError, ValueError):
                return "unreadable"
            if isinstance(data, dict) and isinstance(data.get("status"), str):
                return data["status"]
    return ""


def map_unreadable(d: Path, findings: list[dict], doc: dict) -> bool | None:
    """True when the folder has a map file but the gates read no row from it."""
    if not any((d / n).is_file() for n in MAP_NAMES):
        return None
    dd = doc.get("gates", {}).get("D", {}).get("data", {})
    if "map" in dd:  # after: Gate D reports what it read
        return not dd["map"].get("rows")
    return any("no map table" in f["message"] for f in findings)


def run_one(d: Path) -> dict:
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = gavel(["task", "gates", str(d), "--format", "json"])
        except SystemExit as exc:  # argparse
            rc = int(exc.code or 0)
    dt = time.perf_counter() - t0
    rec: dict = {"rc": rc, "seconds": round(dt, 3)}
    if rc not in (0, 1) or "Traceback" in err.getvalue():
        rec["crash"] = err.getvalue()[-400:]
        return rec
    doc = json.loads(out.getvalue())
    fs = doc["findings"]
    rec["verdicts"] = doc.get("verdicts", {})
    rec["errors"] = Counter(f["code"] for f in fs if f["severity"] == "error")
    rec["warnings"] = Counter(f["code"] for f in fs if f["severity"] == "warning")
    rec["n_findings"] = len(fs)
    rec["map_unreadable"] = map_unreadable(d, fs, doc)
    dd = doc.get("gates", {}).get("D", {}).get("data", {})
    if "map" in dd or "source" in dd:  # after: Gate D names its source when it has one
        rec["gate_d_source"] = dd.get("source") or "none"
    else:  # before: the map was the only source
        rec["gate_d_source"] = "map" if any((d / n).is_file() for n in MAP_NAMES) else "none"
    if "standard" in doc:
        rec["standard"] = doc["standard"]
    return rec


def summarise(records: list[dict]) -> dict:
    ok = [r for r in records if "crash" not in r]
    seen: set[str] = set()
    distinct = []
    for r in ok:
        if r["digest"] not in seen:
            seen.add(r["digest"])
            distinct.append(r)

    def block(rs: list[dict]) -> dict:
        q = [r for r in rs if r["status"] in QUALIFIED]
        nf = [r["n_findings"] for r in rs]
        ne = [sum(r["errors"].values()) for r in rs]
        has_map = [r for r in rs if r["map_unreadable"] is not None]
        codes = sorted({c for r in rs for c in r["errors"]})
        share = {c: round(sum(1 for r in q if c in r["errors"]) / len(q), 3) if q else None
                 for c in codes}
        verdicts = {g: dict(Counter(r["verdicts"].get(g, "-") for r in rs)) for g in "DEF"}
        return {"tasks": len(rs), "qualified": len(q),
                "maps_present": len(has_map),
                "maps_unreadable": sum(1 for r in has_map if r["map_unreadable"]),
                "findings_per_task_mean": round(statistics.mean(nf), 1) if nf else 0,
                "findings_per_task_median": statistics.median(nf) if nf else 0,
                "errors_per_task_mean": round(statistics.mean(ne), 1) if ne else 0,
                "qualified_passing_all_gates": sum(1 for r in q if not r["errors"]),
                "verdicts": verdicts,
                "gate_d_source": dict(Counter(r["gate_d_source"] for r in rs)),
                "qualified_share_failed_by_error_rule": dict(
                    sorted(share.items(), key=lambda kv: -(kv[1] or 0)))}

    return {"all_folders": block(ok), "distinct": block(distinct),
            "crashes": [r["dir"] for r in records if "crash" in r]}


def markdown(label: str, s: dict) -> str:
    lines = [f"## {label}", ""]
    for name in ("distinct", "all_folders"):
        b = s[name]
        lines += [f"### {name.replace('_', ' ')}: {b['tasks']} tasks ({b['qualified']} QUALIFIED by "
                  "their authors)", "",
                  f"- maps present {b['maps_present']}, unreadable **{b['maps_unreadable']}**",
                  f"- findings per task: mean {b['findings_per_task_mean']}, median "
                  f"{b['findings_per_task_median']}; errors per task mean {b['errors_per_task_mean']}",
                  f"- QUALIFIED tasks with no error finding: {b['qualified_passing_all_gates']}",
                  "- verdicts: " + "; ".join(f"{g}: {v}" for g, v in b["verdicts"].items()),
                  f"- Gate D source: {b['gate_d_source']}", "",
                  "| error rule | share of QUALIFIED tasks it fails |", "|---|---|"]
        lines += [f"| {c} | {v:.0%} |" for c, v in b["qualified_share_failed_by_error_rule"].items()
                  if v is not None]
        lines.append("")
    lines.append(f"crashes: {s['crashes'] or 'none'}")
    return "\n".join(lines) + "\n"


def main() -> int:
    label = sys.argv[1] if len(sys.argv) > 1 else "run"
    records = []
    for group, d in task_sets():
        rec = {"set": group, "dir": f"{group}/{d.name}", "task": d.name, "status": authors_status(d),
               "digest": digest(d)}
        rec.update(run_one(d))
        records.append(rec)
    summary = summarise(records)
    here = Path(__file__).parent
    import gavelkit

    (here / f"results_{label}.json").write_text(
        json.dumps({"label": label, "code": str(Path(gavelkit.__file__).parents[1]),
                    "summary": summary, "tasks": records}, indent=1,
                   default=dict) + "\n", "utf-8")
    md = markdown(label, summary)
    (here / f"results_{label}.md").write_text(md, "utf-8")
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
