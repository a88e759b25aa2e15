"""Time gavelkit's PDF QA and contact sheet against the poppler command-line pipeline.

    python3 benchmarks/pdfqa/bench.py [--runs 5] [--out benchmarks/pdfqa/results.json]

Both sides run as fresh processes, as a contest team would run them:
  QA      ours: `python3 -m gavelkit award pdfqa paper.pdf --max-pages 25 --anonymous`
          poppler: pdfinfo, pdfinfo -meta, pdftotext (all pages), pdftotext -f 1 -l 1,
                   pdftoppm -png -r 30 (what the public pdf_qa.sh runs, without its greps)
  sheet   ours: `python3 -m gavelkit award contact-sheet paper.pdf -o sheet.png` (60 dpi)
          poppler: pdftoppm -png -r 60, then a Python+Pillow paste of the PNGs into a grid
                   (cheaper than the public script's matplotlib composition)
Runs are interleaved (each round runs all four once). Wall time: min and median; CPU is user+sys of all child processes
(less sensitive to a busy machine). poppler-utils must be installed (benchmark only).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
COMPOSE = r"""
import glob, math, sys
from PIL import Image
files = sorted(glob.glob(sys.argv[1] + '/page-*.png'))
ims = [Image.open(f) for f in files]
n = len(ims); cols = max(1, math.ceil(math.sqrt(n))); rows = math.ceil(n / cols)
w = max(i.size[0] for i in ims); h = max(i.size[1] for i in ims)
sheet = Image.new('RGB', (cols * (w + 10) + 10, rows * (h + 30) + 60), 'white')
for k, im in enumerate(ims):
    r, c = divmod(k, cols)
    sheet.paste(im.convert('RGB'), (10 + c * (w + 10), 60 + r * (h + 30)))
sheet.save(sys.argv[2], compress_level=1)
"""


def run_steps(steps: list[list[str]], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    for cmd in steps:
        r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if r.returncode not in (0, 1):
            raise SystemExit(f"{cmd[:4]} failed ({r.returncode}): {r.stderr.decode()[:300]}")
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def summarise(name: str, walls: list[float], cpus: list[float]) -> dict[str, float]:
    res = {"wall_min_s": round(min(walls), 3),
           "wall_median_s": round(sorted(walls)[len(walls) // 2], 3),
           "cpu_min_s": round(min(cpus), 3),
           "cpu_median_s": round(sorted(cpus)[len(cpus) // 2], 3)}
    print(f"{name:16s} wall min {res['wall_min_s']:.3f}s  median {res['wall_median_s']:.3f}s  "
          f"cpu min {res['cpu_min_s']:.3f}s  median {res['cpu_median_s']:.3f}s", flush=True)
    return res


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default=str(HERE / "results.json"))
    args = ap.parse_args()
    for tool in ("pdfinfo", "pdftotext", "pdftoppm"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} missing: apt-get install poppler-utils (benchmark only)")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    py = sys.executable
    work = Path(tempfile.mkdtemp(prefix="gk-bench-"))
    paper = work / "paper25.pdf"
    subprocess.run([py, str(HERE / "make_paper.py"), str(paper)], check=True, env=env)
    p = str(paper)

    def ours_qa(tmp: str) -> list[list[str]]:
        return [[py, "-m", "gavelkit", "award", "pdfqa", p, "--max-pages", "25", "--anonymous",
                 "--format", "json"]]

    def poppler_qa(tmp: str) -> list[list[str]]:
        return [["pdfinfo", p], ["pdfinfo", "-meta", p], ["pdftotext", p, "-"],
                ["pdftotext", "-f", "1", "-l", "1", p, "-"],
                ["pdftoppm", "-png", "-r", "30", p, f"{tmp}/page"]]

    def ours_sheet(tmp: str) -> list[list[str]]:
        return [[py, "-m", "gavelkit", "award", "contact-sheet", p, "-o", f"{tmp}/sheet.png"]]

    def poppler_sheet(tmp: str) -> list[list[str]]:
        return [["pdftoppm", "-png", "-r", "60", p, f"{tmp}/page"],
                [py, "-c", COMPOSE, tmp, f"{tmp}/sheet.png"]]

    results = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "loadavg_at_start": [round(x, 2) for x in os.getloadavg()]},
        "paper": {"pages": 25, "bytes": paper.stat().st_size, "maker": "make_paper.py"},
        "runs": args.runs,
    }
    pipes = (("qa_gavelkit", ours_qa), ("qa_poppler", poppler_qa),
             ("sheet_gavelkit", ours_sheet), ("sheet_poppler", poppler_sheet))
    times: dict[str, tuple[list[float], list[float]]] = {n: ([], []) for n, _ in pipes}
    # interleaved: every round runs each pipeline once, so load changes hit both sides
    for _ in range(args.runs):
        for name, fn in pipes:
            with tempfile.TemporaryDirectory() as tmp:
                w, c = run_steps(fn(tmp), env)
            times[name][0].append(w)
            times[name][1].append(c)
    for name, _ in pipes:
        results[name] = summarise(name, *times[name])
    for what in ("qa", "sheet"):
        ours, theirs = results[f"{what}_gavelkit"], results[f"{what}_poppler"]
        results[f"{what}_ratio"] = {
            k: round(ours[f"{k}_s"] / theirs[f"{k}_s"], 3)
            for k in ("wall_min", "wall_median", "cpu_min", "cpu_median")}
        print(f"{what}: gavelkit/poppler " + ", ".join(
            f"{k} {v:.2f}x" for k, v in results[f"{what}_ratio"].items()))
    results["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
