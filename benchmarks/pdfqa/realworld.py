"""Run `gavel award pdfqa --anonymous` (and, on a sample, the contact sheet) over
a folder of real-world PDFs; record exit codes, crashes and finding counts.

    apt-get download texlive-publishers-doc && dpkg-deb -x texlive-publishers-doc_*.deb x
    python3 benchmarks/pdfqa/realworld.py x/usr/share/doc/texlive-doc [--sheets 40]

Each file runs in a fresh process with a 120 s timeout, two at a time. A crash
is any exit code other than 0/1/2, any "Traceback" or "internal error" on stderr,
or a timeout.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def run_one(pdf: Path, base: Path, env: dict[str, str], sheet_dir: str | None) -> dict:
    cmd = [sys.executable, "-m", "gavelkit", "award", "pdfqa", str(pdf), "--anonymous",
           "--format", "json"]
    t0 = time.perf_counter()
    row: dict = {"file": str(pdf.relative_to(base)), "bytes": pdf.stat().st_size}
    try:
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        row.update(rc="timeout", crash=True, seconds=120.0)
        return row
    row["seconds"] = round(time.perf_counter() - t0, 3)
    row["rc"] = r.returncode
    row["crash"] = r.returncode not in (0, 1, 2) or "Traceback" in r.stderr or \
        "internal error" in r.stderr
    if r.returncode == 2:
        row["stderr"] = r.stderr.strip()[:300]
    try:
        doc = json.loads(r.stdout) if r.stdout.strip() else {}
    except json.JSONDecodeError:
        row["crash"] = True
        doc = {}
    pages = (doc.get("summary") or {}).get("pages") or {}
    row["pages"] = pages.get("total")
    row["codes"] = dict(collections.Counter(f["code"] for f in doc.get("findings", [])))
    row["samples"] = [f"{f['code']}: {f['message'][:140]}" for f in doc.get("findings", [])
                      if f["severity"] != "info"][:6]
    if sheet_dir is not None and r.returncode in (0, 1):
        out = os.path.join(sheet_dir, "sheet.png")
        t1 = time.perf_counter()
        s = subprocess.run([sys.executable, "-m", "gavelkit", "award", "contact-sheet", str(pdf),
                            "-o", out, "--format", "json"], env=env, capture_output=True,
                           text=True, timeout=300)
        row["sheet_rc"] = s.returncode
        row["sheet_seconds"] = round(time.perf_counter() - t1, 3)
        if s.returncode not in (0, 2) or "Traceback" in s.stderr:
            row["crash"] = True
            row["sheet_stderr"] = s.stderr[-300:]
    return row


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--sheets", type=int, default=40, help="also build sheets for every Nth file")
    ap.add_argument("--out", default=str(HERE / "realworld_results.json"))
    args = ap.parse_args()
    base = Path(args.folder)
    pdfs = sorted(base.rglob("*.pdf"))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(2) as ex:
        futs = []
        for k, p in enumerate(pdfs):
            sd = None
            if args.sheets and k % args.sheets == 0:
                sd = os.path.join(tmp, str(k))
                os.makedirs(sd)
            futs.append(ex.submit(run_one, p, base, env, sd))
        rows = [f.result() for f in futs]
    total = time.perf_counter() - t0
    codes: collections.Counter = collections.Counter()
    files_with: collections.Counter = collections.Counter()
    for r in rows:
        for c, n in (r.get("codes") or {}).items():
            codes[c] += n
            files_with[c] += 1
    summary = {
        "files": len(rows),
        "pages": sum(r.get("pages") or 0 for r in rows),
        "wall_seconds": round(total, 1),
        "rc": dict(collections.Counter(str(r.get("rc")) for r in rows)),
        "crashes": [r for r in rows if r.get("crash")],
        "sheets_built": sum(1 for r in rows if r.get("sheet_rc") == 0),
        "finding_counts": dict(codes.most_common()),
        "files_with_code": dict(files_with.most_common()),
        "slowest": sorted(({"file": r["file"], "pages": r.get("pages"), "seconds": r["seconds"]}
                           for r in rows if isinstance(r.get("seconds"), float)),
                          key=lambda x: -x["seconds"])[:8],
        "exit2": [{"file": r["file"], "stderr": r.get("stderr", "")} for r in rows
                  if r.get("rc") == 2],
    }
    Path(args.out).write_text(json.dumps({"summary": summary, "files": rows}, indent=1,
                                         ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in summary.items() if k not in ("exit2",)}, indent=1,
                     ensure_ascii=False)[:3000])
    return 1 if summary["crashes"] else 0


if __name__ == "__main__":
    sys.exit(main())
