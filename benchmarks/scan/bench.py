"""Scan throughput on a >= 1 GB generated transcript: gavel vs ripgrep vs plain reading.

    python benchmarks/scan/bench.py [--size-mb 1100] [--keep]

Generates the transcript (gen_transcript.py) in a temp folder, warms the page
cache, then times, each on the same file:

* plain reading: `cat > /dev/null` and Python readinto() with a 64 MiB buffer;
* ripgrep `rg -c -F -f anchors.txt`: the *same* literal anchors our prefilter uses;
* gavel prefilter only (re2 engine): the line-finding pass without parsing;
* gavel scan, full (`scan_trajectories`, re2 engine): prefilter + JSON parse of hit
  lines + normalisation + shell parsing + rules;
* gavel scan, pure-Python `find` engine (no re2);
* gavel scan --thorough (every line parsed) on a 200 MB slice.

It checks that every method sees the planted forbidden lines, writes
results.json next to this file and prints a Markdown table. Needs ripgrep on PATH
(Debian: apt-get install ripgrep) for the ripgrep row.
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "src"))

from gavelkit.task.anticheat import prefilter  # noqa: E402
from gavelkit.task.anticheat.scan import build_context, scan_trajectories  # noqa: E402

WS = "/home/agent/work/widgetlib"


def timed(fn, repeat: int = 3):  # type: ignore[no-untyped-def]
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-mb", type=int, default=1100)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--file", help="reuse an existing generated transcript")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gavel-scan-bench-"))
    path = Path(args.file) if args.file else tmp / "session.jsonl"
    meta_path = tmp / "gen.json"
    if not args.file:
        with open(meta_path, "w") as fh:
            subprocess.run([sys.executable, str(HERE / "gen_transcript.py"), str(path),
                            "--size-mb", str(args.size_mb)], check=True, stdout=fh)
        planted = json.loads(meta_path.read_text())["planted_lines"]
    else:
        planted = json.loads(Path(args.file + ".gen.json").read_text())["planted_lines"]
    size = path.stat().st_size
    mb = size / 1e6
    subprocess.run(["cat", str(path)], stdout=subprocess.DEVNULL, check=True)  # warm cache
    ctx = build_context(None, "widgetlib", workspace=[WS])
    anchors = tmp / "anchors.txt"
    anchors.write_bytes(b"\n".join(ctx.anchors) + b"\n")
    rows: list[dict] = []

    def row(name: str, seconds: float, note: str = "", size_mb: float = mb) -> None:
        rows.append({"method": name, "seconds": round(seconds, 3),
                     "mb_per_s": round(size_mb / seconds, 1), "note": note})
        print(f"{name:<48} {seconds:8.2f} s {size_mb / seconds:9.1f} MB/s  {note}", flush=True)

    t, _ = timed(lambda: subprocess.run(["cat", str(path)], stdout=subprocess.DEVNULL, check=True))
    row("cat > /dev/null (page cache)", t)

    def readinto() -> int:
        buf = bytearray(64 << 20)
        n = 0
        with open(path, "rb") as fh:
            while k := fh.readinto(buf):
                n += k
        return n
    t, _ = timed(readinto)
    row("Python readinto, 64 MiB buffer", t)

    rg = shutil.which("rg")
    rg_lines = None
    if rg:
        # ripgrep and our full scan alternate, 5 rounds each, so machine load hits both alike
        ver = subprocess.run([rg, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
        rg_t, ours_t = [], []
        for _ in range(5):
            t, out = timed(lambda: subprocess.run([rg, "-c", "-F", "-f", str(anchors), str(path)],
                                                  capture_output=True, text=True, check=True),
                           repeat=1)
            rg_t.append(t)
            t2, _ = timed(lambda: scan_trajectories([str(path)], ctx=ctx, engine="re2")
                          if "re2" in prefilter.available_engines() else None, repeat=1)
            ours_t.append(t2)
        rg_lines = int(out.stdout.strip())
        row(f"ripgrep -c -F -f anchors ({len(ctx.anchors)} literals)", statistics.median(rg_t),
            f"{ver}; {rg_lines} matching lines; median of 5 interleaved runs")
        if "re2" in prefilter.available_engines():
            row("gavel scan, full (re2), interleaved with ripgrep", statistics.median(ours_t),
                "median of 5 interleaved runs; ratio per round: " + ", ".join(
                    f"{r / o:.2f}" for r, o in zip(rg_t, ours_t, strict=True)))
        _t1, out1 = timed(lambda: subprocess.run([rg, "-n", "-F", "-f", str(anchors), str(path)],
                                                capture_output=True, check=True), repeat=1)
        rg_hit_lines = {int(x.split(b":", 1)[0]) for x in out1.stdout.splitlines()}
        missing = [p for p in planted if p not in rg_hit_lines]
        next(r for r in rows if r["method"].startswith("ripgrep"))["planted_missed"] = missing

    def prefilter_only() -> int:
        m = prefilter.Matcher(ctx.anchors, "re2")
        st = prefilter.LineStats()
        return sum(1 for _ in prefilter.hit_lines(str(path), m, False, st, check_shape=False))
    if "re2" in prefilter.available_engines():
        t, n = timed(prefilter_only)
        row("gavel prefilter only (re2, lines found)", t, f"{n} lines")

    slice_path = tmp / "slice.jsonl"
    with open(path, "rb") as src, open(slice_path, "wb") as dst:
        dst.write(src.read(200_000_000))
        dst.write(src.readline())
    smb = slice_path.stat().st_size / 1e6
    if "re2" in prefilter.available_engines():
        t, res = timed(lambda: scan_trajectories([str(path)], ctx=ctx, engine="re2"))
        err_lines = sorted({f.line for f in res.findings if f.severity == "error"})
        row("gavel scan, full (re2 engine)", t,
            f"verdict {res.verdict}; {res.files[0].get('events_parsed')} events parsed; "
            f"{len(err_lines)} error lines; all planted found: {set(planted) <= set(err_lines)}"
            f"; {len(set(err_lines) - set(planted))} more (commands run in a forbidden folder "
            "the session cd'ed into: Claude Code's Bash keeps its folder)")
    t, res = timed(lambda: scan_trajectories([str(slice_path)], ctx=ctx, engine="find"),
                   repeat=1)
    row("gavel scan, pure-Python find engine, 200 MB slice", t,
        f"verdict {res.verdict}; {res.files[0].get('events_parsed')} events parsed",
        size_mb=smb)
    t, res = timed(lambda: scan_trajectories([str(slice_path)], ctx=ctx, thorough=True), repeat=1)
    row("gavel scan --thorough (every line parsed), 200 MB slice", t,
        f"{res.files[0]['events']} events", size_mb=smb)

    try:
        import orjson
        doc_json = f"orjson {orjson.__version__}"
    except ImportError:
        doc_json = "json (stdlib)"
    doc = {"file_bytes": size, "lines": None, "planted_lines": planted,
           "anchors": len(ctx.anchors), "rows": rows,
           "machine": {"python": platform.python_version(), "platform": platform.platform(),
                       "cpus": os.cpu_count()},
           "engines": prefilter.available_engines(), "json": doc_json,
           "load_average_at_end": os.getloadavg()}
    rg_row = next((r for r in rows if r["method"].startswith("ripgrep")), None)
    full = next((r for r in rows if r["method"].startswith("gavel scan, full (re2), inter")),
                None)
    if rg_row and full:
        doc["ratio_of_medians"] = round(full["mb_per_s"] / rg_row["mb_per_s"], 2)
        doc["paired_ratios"] = [round(r / o, 3) for r, o in zip(rg_t, ours_t, strict=True)]
        doc["median_paired_ratio"] = round(statistics.median(doc["paired_ratios"]), 2)
        print(f"\nfull scan / ripgrep: median of paired rounds {doc['median_paired_ratio']}, "
              f"ratio of medians {doc['ratio_of_medians']}")
    (HERE / "results.json").write_text(json.dumps(doc, indent=2) + "\n")
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print(f"kept {tmp}")


if __name__ == "__main__":
    main()
