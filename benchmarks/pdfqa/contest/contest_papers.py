"""pdfqa on real contest papers (MCM/ICM and CUMCM), scored against hand labels.

    python3 benchmarks/pdfqa/contest/contest_papers.py extract --mirrors /work/.mirror --out DIR
    python3 benchmarks/pdfqa/contest/contest_papers.py render  --out DIR   # PNGs for labelling
    python3 benchmarks/pdfqa/contest/contest_papers.py run     --out DIR [--tag after]

`sources.json` names every paper by (repo, commit, path). `extract` reads each blob
out of a local git mirror of the repository (the `fetch` tool's layout,
MIRRORS/owner+name/repo); papers whose blob is absent are skipped, never committed.
`labels.json` holds one row per paper, labelled by looking at renders (why is in
each row's `notes`). `run` calls `gavel award pdfqa --anonymous --format json` in a
fresh process per paper and compares, per check:

- pages: total page count and body pages (AI-use report excluded) equal the label;
- captions: duplicate (PDF-C001, an error) numbers equal the labelled real duplicates;
  order/gap warnings (PDF-C002/C003) are listed for explanation;
- identity: an error (PDF-A001/A002/A004/A005) iff the label says the paper names
  someone; warnings (PDF-A003/A006) are listed for explanation;
- blank: PDF-B001 pages equal the labelled blank pages;
- ai_report: PDF-P002 found iff labelled, with the same first page.

A *false FAIL* is an error where the label has no problem; a *miss* is a labelled
problem with no error. Totals are given for the papers the fixes were developed on
("dev") and for papers labelled afterwards and not used to tune ("heldout").
Results go to results-<tag>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ID_ERRORS = {"PDF-A001", "PDF-A002", "PDF-A004", "PDF-A005", "PDF-A007"}
ID_WARNINGS = {"PDF-A003", "PDF-A006", "PDF-A008"}


def sources() -> list[dict]:
    return json.loads((HERE / "sources.json").read_text(encoding="utf-8"))


def extract(mirrors: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for s in sources():
        repo = mirrors / s["repo"].replace("/", "+") / "repo"
        dest = out / f"{s['id']}.pdf"
        if dest.exists():
            continue
        r = subprocess.run(["git", "-C", str(repo), "cat-file", "blob", f"{s['commit']}:{s['path']}"],
                           capture_output=True)
        if r.returncode != 0 or not r.stdout.startswith(b"%PDF"):
            print(f"skip {s['id']}: blob absent ({r.stderr.decode()[:80].strip()})")
            continue
        dest.write_bytes(r.stdout)
        print(f"{s['id']}: {len(r.stdout)} bytes")


def render(out: Path, dpi: int) -> None:
    """Every page as a PNG (for looking at), and page 1 plus the last 3 at higher dpi."""
    import pypdfium2 as pdfium

    for s in sources():
        pdf = out / f"{s['id']}.pdf"
        if not pdf.exists():
            continue
        folder = out / "png" / s["id"]
        if folder.exists():
            continue
        folder.mkdir(parents=True)
        doc = pdfium.PdfDocument(str(pdf))
        n = len(doc)
        for i in range(n):
            big = i == 0 or i >= n - 3
            img = doc[i].render(scale=(90 if big else dpi) / 72).to_pil()
            img.save(folder / f"p{i + 1:03d}.png")
        doc.close()


def run_one(pdf: Path) -> dict:
    cmd = [sys.executable, "-m", "gavelkit", "award", "pdfqa", str(pdf), "--anonymous",
           "--format", "json"]
    src = str(HERE.parents[2] / "src")  # this checkout's gavelkit, not an installed one
    env = {**os.environ, "PYTHONWARNINGS": "ignore",
           "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    doc = json.loads(r.stdout) if r.stdout.strip() else {}
    return {"rc": r.returncode, "doc": doc, "stderr": r.stderr[-400:]}


def score(label: dict, got: dict) -> dict:
    doc = got["doc"]
    fs = doc.get("findings", [])
    summ = doc.get("summary", {})
    pages = summ.get("pages") or {}
    by = lambda codes: [f for f in fs if f["code"] in codes]  # noqa: E731
    row: dict = {"rc": got["rc"]}
    # pages
    ai = pages.get("ai_report") or {}
    body = pages.get("body")
    ok_pages = pages.get("total") == label["pages"] and body == label["body_pages"]
    row["pages"] = {"ok": ok_pages, "got": [pages.get("total"), body],
                    "want": [label["pages"], label["body_pages"]]}
    # ai report
    want_ai = label.get("ai_report_first")
    got_ai = ai.get("first") if ai else None
    row["ai_report"] = {"ok": want_ai == got_ai, "got": got_ai, "want": want_ai,
                        "false_fail": False, "miss": bool(want_ai) and not got_ai}
    # captions
    dups = sorted({f"{f['data'].get('series')}:{f['data'].get('number')}"
                   for f in by({"PDF-C001"})})
    want_dups = sorted(label.get("duplicate_captions", []))
    row["captions"] = {
        "ok": dups == want_dups, "got": dups, "want": want_dups,
        "false_fail": bool(set(dups) - set(want_dups)),
        "miss": bool(set(want_dups) - set(dups)),
        "warnings": [f["message"][:160] for f in by({"PDF-C002", "PDF-C003", "PDF-C004"})],
        "doubled_prefix": [f["message"][:160] for f in by({"PDF-C005"})],
        "counts": summ.get("captions"),
    }
    # identity
    errs = by(ID_ERRORS)
    want_id = bool(label.get("identity"))
    row["identity"] = {
        "ok": bool(errs) == want_id, "got": [f["message"][:160] for f in errs], "want": want_id,
        "false_fail": bool(errs) and not want_id, "miss": want_id and not errs,
        "warnings": [f["message"][:160] for f in by(ID_WARNINGS)],
    }
    # blank pages
    blank = sorted({f["data"]["page"] for f in by({"PDF-B001"})})
    want_blank = sorted(label.get("blank_pages", []))
    row["blank"] = {"ok": blank == want_blank, "got": blank, "want": want_blank,
                    "false_fail": bool(set(blank) - set(want_blank)),
                    "miss": bool(set(want_blank) - set(blank))}
    row["pages"].update(false_fail=False, miss=not ok_pages)
    return row


CHECKS = ("pages", "captions", "identity", "blank", "ai_report")


def run(out: Path, tag: str) -> None:
    labels = {x["id"]: x for x in json.loads((HERE / "labels.json").read_text(encoding="utf-8"))}
    rows = {}
    for s in sources():
        pdf = out / f"{s['id']}.pdf"
        if not pdf.exists() or s["id"] not in labels:
            continue
        got = run_one(pdf)
        rows[s["id"]] = score(labels[s["id"]], got)
        r = rows[s["id"]]
        bad = [c for c in CHECKS if not r[c]["ok"]]
        print(f"{s['id']:24} rc={r['rc']} {'ok' if not bad else 'DISAGREE ' + ','.join(bad)}",
              flush=True)
    totals = {}
    for part in ("dev", "heldout", "new27"):
        sub = {k: r for k, r in rows.items() if labels[k].get("set", "dev") == part}
        t: dict = {}
        for c in CHECKS:
            t[c] = {
                "agree": sum(r[c]["ok"] for r in sub.values()),
                "false_fail": sum(r[c].get("false_fail", False) for r in sub.values()),
                "miss": sum(r[c].get("miss", False) for r in sub.values()),
                "papers": len(sub),
            }
        t["papers_with_false_fail"] = sum(
            any(r[c].get("false_fail") for c in CHECKS) for r in sub.values())
        t["papers_exit_1"] = sum(r["rc"] == 1 for r in sub.values())
        totals[part] = t
    result = {"tag": tag, "totals": totals, "papers": rows}
    (HERE / f"results-{tag}.json").write_text(json.dumps(result, ensure_ascii=False, indent=1),
                                             encoding="utf-8")
    print(json.dumps(totals, indent=1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("step", choices=["extract", "render", "run"])
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--out", type=Path, required=True, help="scratch folder for PDFs/PNGs")
    ap.add_argument("--dpi", type=int, default=40)
    ap.add_argument("--tag", default="after")
    a = ap.parse_args()
    if a.step == "extract":
        extract(a.mirrors, a.out)
    elif a.step == "render":
        render(a.out, a.dpi)
    else:
        run(a.out, a.tag)


if __name__ == "__main__":
    main()
