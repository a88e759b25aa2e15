"""Run `gavel task gates` and `gavel task spotcheck` over every corpus task.

    python3 benchmarks/task_gates/run.py [CORPUS_DIR] > benchmarks/task_gates/results.json

Checks that no task makes a command crash (exit 3 / traceback), and records
per task the verdicts, the count of findings per rule code, and the wall time.
Default corpus: ../shared/corpus/bmk-tasks relative to the repo root (or one
level further up for a worktree).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from gavelkit.cli.main import main  # noqa: E402


def _corpus() -> Path:
    if len(sys.argv) > 1:
        return Path(sys.argv[1])
    for c in (ROOT.parent / "shared" / "corpus" / "bmk-tasks",
              ROOT.parent.parent / "shared" / "corpus" / "bmk-tasks"):
        if c.is_dir():
            return c
    raise SystemExit("corpus not found; pass its path")


def _run(*argv: str) -> tuple[int, str, str, float]:
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(argv))
    return rc, out.getvalue(), err.getvalue(), time.perf_counter() - t0


def main_() -> int:
    corpus = _corpus()
    results = {}
    crashed = []
    for d in sorted(p for p in corpus.iterdir() if p.is_dir()):
        rc, out, err, dt = _run("task", "gates", str(d), "--format", "json")
        if rc not in (0, 1) or "Traceback" in err:
            crashed.append((d.name, rc, err[-500:]))
            continue
        doc = json.loads(out)
        by_code = Counter(f["code"] for f in doc["findings"])
        by_sev = Counter(f["severity"] for f in doc["findings"])
        d_gate = doc["gates"].get("D", {})
        uncovered = [r["section"] for r in d_gate.get("table", []) if r["status"] == "uncovered"]
        src, sout, serr, sdt = _run("task", "spotcheck", str(d), "--sample", "5", "--seed", "1",
                                    "--format", "json")
        if src not in (0, 1) or "Traceback" in serr:
            crashed.append((d.name + " spotcheck", src, serr[-500:]))
        spot = json.loads(sout) if sout.strip() else {}
        results[d.name] = {
            "exit_code": rc, "verdicts": doc["verdicts"], "seconds": round(dt, 3),
            "severity_counts": dict(by_sev), "codes": dict(sorted(by_code.items())),
            "gate_d_uncovered": uncovered,
            "layers": doc["gates"].get("E", {}).get("data", {}).get("layers"),
            "spotcheck": {"exit_code": src, "gate": spot.get("gate"),
                          "rows": len(spot.get("rows", [])), "seconds": round(sdt, 3)},
        }
    print(json.dumps({"corpus": str(corpus), "tasks": results, "crashed": crashed}, indent=2))
    return 1 if crashed else 0


if __name__ == "__main__":
    raise SystemExit(main_())
