"""The lean mini-swe-agent decoder (trajectory/lean.py) on real runs: same events, same
findings, and the time it saves.

    python benchmarks/scan/lean_decode.py [--corpus DIR] [--rounds 5] [--scan-rounds 3]

Material: the 500 mini-swe-agent `.traj.json` files of `honest_sources.json` (never
committed; --corpus, $GAVEL_HONEST_CORPUS or the scratch copies; absent: the script
says so and writes nothing).

1. Events: every file decoded by orjson and by the lean path (forced on), its format
   and every field of every event compared.
2. Findings: every file scanned with the lean path forced on and forced off, in two
   contexts (the honest task folder of honest_corpus.py with workspace /testbed; a
   strict one that forbids /testbed, so that nearly every action is a finding), verdict,
   every finding and the files' records compared.
3. Time: decode + event building of the whole corpus (files in memory, gc off while
   decoding as in the scanner), orjson path against lean path, alternating, CPU time
   of this process, median of --rounds; the whole scan both ways (median of
   --scan-rounds); msgspec's import in a scan process (median of 7 subprocesses).

Writes `lean_results.json` next to this file.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = HERE.parent.parent / "src"
sys.path.insert(0, str(SRC))
sys.path.insert(0, str(HERE))

from honest_corpus import WS, make_task, package_of, repo_of  # noqa: E402

from gavelkit.task.anticheat import trajectory as traj  # noqa: E402
from gavelkit.task.anticheat.scan import build_context, scan_trajectories  # noqa: E402
from gavelkit.task.anticheat.trajectory import lean  # noqa: E402
from gavelkit.task.anticheat.trajectory.events import loads  # noqa: E402

CORPORA = [os.environ.get("GAVEL_HONEST_CORPUS", ""),
           "/work/scratch/honest/swebench_results/20251118_gemini-3-pro-74pct",
           "/work/scratch/i17/corpus/swebench_results/20251118_gemini-3-pro-74pct"]
BOM = b"\xef\xbb\xbf"
DEFAULT_AFTER = lean.LEAN_AFTER        # before this script forces it on and off


def corpus_files(dirs: list[str]) -> list[Path]:
    for d in dirs:
        if d and os.path.isdir(d):
            files = sorted(Path(d).rglob("*.traj.json"))
            if files:
                return files
    return []


def events(doc: Any) -> tuple[str | None, list[traj.Event]]:
    fmt = traj.document_format(doc)
    return fmt, list(traj.document_events(fmt, doc)) if fmt else []


def compare_events(files: list[Path]) -> dict[str, Any]:
    """orjson's and the lean path's format and events of every file."""
    lean.LEAN_AFTER = 0
    n_events = declined = 0
    differ: list[dict[str, Any]] = []
    for p in files:
        body = p.read_bytes().lstrip(BOM)
        want = events(loads(body))
        doc = lean.decode(body)
        if doc is None:
            declined += 1
            continue
        got = events(doc)
        n_events += len(want[1])
        if got != want:
            at = next((k for k, (a, b) in enumerate(zip(got[1], want[1], strict=False)) if a != b), None)
            differ.append({"file": p.name, "format": [got[0], want[0]], "event": at,
                           "events": [len(got[1]), len(want[1])]})
    return {"events": n_events, "declined": declined, "files_differing": differ,
            "identical": not differ and not declined}


def _contexts(root: Path, repos: set[str], strict: bool) -> dict[str, Any]:
    out = {}
    for repo in repos:
        pkg, aliases = package_of(repo)
        if strict:   # no task folder (its task.json makes /testbed the agent's own), and
            # /testbed forbidden: nearly every action is a finding to compare
            out[repo] = build_context(None, pkg, forbid=[WS], workspace=["/elsewhere/work"],
                                      aliases=aliases)
        else:
            out[repo] = build_context(str(root / "tasks" / pkg), pkg, workspace=[WS],
                                      aliases=aliases)
    return out


def _scan_all(items: list[tuple[Path, str]], ctxs: dict[str, Any], after: int) -> list[Any]:
    lean.LEAN_AFTER = after
    out = []
    for p, repo in items:
        r = scan_trajectories([str(p)], ctx=ctxs[repo])
        out.append((r.verdict, [f.to_dict() for f in r.findings], r.files))
    return out


def compare_findings(items: list[tuple[Path, str]], root: Path) -> dict[str, Any]:
    """Every scan's verdict, findings and file records, lean forced on and off."""
    repos = {r for _, r in items}
    result: dict[str, Any] = {}
    used = [0]
    real = lean.decode

    def counting(raw: bytes) -> Any:
        doc = real(raw)
        used[0] += doc is not None
        return doc

    for name, strict in (("honest", False), ("strict", True)):
        off = _scan_all(items, _contexts(root, repos, strict), -1)
        lean.decode = counting      # type: ignore[assignment]
        used[0] = 0
        try:
            on = _scan_all(items, _contexts(root, repos, strict), 0)
        finally:
            lean.decode = real      # type: ignore[assignment]
        differ = [p.name for (p, _), a, b in zip(items, on, off, strict=True) if a != b]
        verdicts: dict[str, int] = defaultdict(int)
        for v, _, _ in on:
            verdicts[v] += 1
        result[name] = {"verdicts": dict(verdicts), "findings": sum(len(f) for _, f, _ in on),
                        "lean_documents": used[0], "files_differing": differ,
                        "identical": not differ and used[0] == len(items)}
    return result


def _decode_events_orjson(body: bytes) -> None:
    gc.disable()            # as _scan_document decodes
    doc = loads(body)
    gc.enable()
    events(doc)


def _decode_events_lean(body: bytes) -> None:
    gc.disable()
    doc = lean.decode(body)
    gc.enable()
    events(doc)


def _decode_orjson(body: bytes) -> None:
    gc.disable()
    loads(body)
    gc.enable()


def _decode_lean(body: bytes) -> None:
    gc.disable()
    lean.decode(body)
    gc.enable()


PATHS = {"decode": (_decode_orjson, _decode_lean),
         "decode_events": (_decode_events_orjson, _decode_events_lean)}


def _interleaved(bodies: list[bytes], pair: tuple[Any, Any], flip: bool) -> tuple[float, float]:
    """CPU seconds of the two paths over the corpus, alternating file by file (and which
    goes first), so that both meet the same moments of a shared machine."""
    spent = [0.0, 0.0]
    clock = time.process_time
    for k, body in enumerate(bodies):
        order = (0, 1) if (k % 2 == 0) != flip else (1, 0)
        for w in order:
            t = clock()
            pair[w](body)
            spent[w] += clock() - t
    return spent[0], spent[1]


def timing(files: list[Path], rounds: int) -> dict[str, Any]:
    """CPU seconds for the corpus, orjson path against lean path, median of `rounds`."""
    lean.LEAN_AFTER = 0
    bodies = [p.read_bytes().lstrip(BOM) for p in files]
    mb = sum(map(len, bodies)) / 1e6
    out: dict[str, Any] = {"MB": round(mb, 1), "rounds": rounds}
    for name, pair in PATHS.items():
        _interleaved(bodies[:20], pair, False)      # warm-up
        runs = [_interleaved(bodies, pair, bool(r % 2)) for r in range(rounds)]
        a, b = (statistics.median(x) for x in zip(*runs, strict=True))
        out[name] = {"orjson_cpu_s": [round(x, 4) for x, _ in runs],
                     "lean_cpu_s": [round(y, 4) for _, y in runs],
                     "median_orjson_s": round(a, 4), "median_lean_s": round(b, 4),
                     "lean_over_orjson": round(b / a, 3),
                     "saving_ms_per_MB": round((a - b) * 1000 / mb, 3)}
    return out


def scan_timing(items: list[tuple[Path, str]], root: Path, rounds: int) -> dict[str, Any]:
    """The whole scan of the corpus both ways, repository by repository alternating
    (fresh contexts per round, built outside the timed part)."""
    by_repo: dict[str, list[tuple[Path, str]]] = defaultdict(list)
    for p, repo in items:
        by_repo[repo].append((p, repo))
    runs: dict[str, list[float]] = defaultdict(list)
    for r in range(rounds):
        ctxs = {m: _contexts(root, set(by_repo), False) for m in ("orjson", "lean")}
        spent = {"orjson": 0.0, "lean": 0.0}
        gc.collect()
        for k, group in enumerate(by_repo.values()):
            modes = [("orjson", -1), ("lean", 0)]
            for name, after in (modes if (k + r) % 2 == 0 else modes[::-1]):
                t = time.process_time()
                _scan_all(group, ctxs[name], after)
                spent[name] += time.process_time() - t
        for name, v in spent.items():
            runs[name].append(v)
    med = {k: statistics.median(v) for k, v in runs.items()}
    mb = sum(p.stat().st_size for p, _ in items) / 1e6
    return {"rounds": rounds, "cpu_s": {k: [round(x, 3) for x in v] for k, v in runs.items()},
            "median_s": {k: round(v, 3) for k, v in med.items()},
            "lean_over_orjson": round(med["lean"] / med["orjson"], 3),
            "saving_ms_per_MB": round((med["orjson"] - med["lean"]) * 1000 / mb, 3)}


_IMPORT = ("import time\n"
           "from gavelkit.task.anticheat import scan, analyze, prefilter, gate\n"
           "from gavelkit.task.anticheat.trajectory import lean, swe, events\n"
           "t = time.perf_counter()\n"
           "from gavelkit.task.anticheat.trajectory import leanschema\n"
           "print((time.perf_counter() - t) * 1000)\n")


def import_cost(n: int = 7) -> dict[str, Any]:
    """msgspec with the schema, imported in a process that has the scanner loaded."""
    env = dict(os.environ, PYTHONPATH=str(SRC))
    ms = [float(subprocess.run([sys.executable, "-c", _IMPORT], env=env, check=True,
                               capture_output=True, text=True).stdout) for _ in range(n)]
    return {"runs_ms": [round(x, 2) for x in ms], "median_ms": round(statistics.median(ms), 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", action="append", default=[])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--scan-rounds", type=int, default=3)
    args = ap.parse_args()
    files = corpus_files(args.corpus + CORPORA)
    if not files:
        print("no mini-swe-agent corpus found (see honest_sources.json): skipped")
        return
    items = [(p, repo_of(p.name.removesuffix(".traj.json")) or "x/x") for p in files]
    out: dict[str, Any] = {"files": len(files), "bytes": sum(p.stat().st_size for p in files),
                           "corpus": "gruckion/mini-swe-agent swebench_results/"
                                     "20251118_gemini-3-pro-74pct/trajs (honest_sources.json)"}
    out["events"] = compare_events(files)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for repo in {r for _, r in items}:
            make_task(root, repo)
        out["findings"] = compare_findings(items, root)
        out["time_decode_events"] = timing(files, args.rounds)
        out["time_scan"] = scan_timing(items, root, args.scan_rounds)
    imp = import_cost()
    saving = out["time_decode_events"]["decode_events"]["saving_ms_per_MB"]
    out["import"] = imp
    scan_saving = out["time_scan"]["saving_ms_per_MB"]
    out["threshold"] = {
        "LEAN_AFTER_MB": round(DEFAULT_AFTER / 1e6, 1),
        "break_even_MB_decode_events": round(imp["median_ms"] / saving, 1) if saving > 0 else None,
        "break_even_MB_whole_scan": round(imp["median_ms"] / scan_saving, 1)
        if scan_saving > 0 else None}
    out["loadavg"] = round(os.getloadavg()[0], 2)
    (HERE / "lean_results.json").write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps({k: out[k] for k in ("events", "threshold", "import")}, indent=1))
    print(json.dumps(out["findings"], indent=1))
    print(json.dumps({k: v for k, v in out["time_decode_events"].items()
                      if isinstance(v, dict)}, indent=1))
    print(json.dumps(out["time_scan"], indent=1))


if __name__ == "__main__":
    main()
