"""Precision on the real transcripts of the shared corpus: every finding must be explained.

    python benchmarks/scan/corpus_precision.py [CORPUS_DIR] [TASKS_DIR]

Scans ../shared/corpus/trajectories (Claude Code samples, SWE-agent demonstrations)
against every task package in ../shared/corpus/bmk-tasks, with that task's package
name, and also against the packages the SWE-agent runs actually work on
(marshmallow, pydicom), in the default (prefiltered) and the thorough mode.
Prints every finding and writes corpus_results.json next to this file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "src"))

from gavelkit.task.anticheat.scan import scan_trajectories  # noqa: E402

CASES = [("bandit-securityscan-fullrepro-001", "bandit"), ("cleo-fullrepro-001", "cleo"),
         ("jrnl-journal-fullrepro-002", "jrnl"),
         ("transitions-state-machine-fullrepro-001", "transitions"),
         (None, "marshmallow"), (None, "pydicom"), (None, "requests")]


def main() -> None:
    corpus = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/corpus/trajectories")
    tasks = Path(sys.argv[2] if len(sys.argv) > 2 else "/work/shared/corpus/bmk-tasks")
    out = []
    for task, pkg in CASES:
        for thorough in (False, True):
            res = scan_trajectories([str(corpus)], str(tasks / task) if task else None, pkg,
                                    thorough=thorough)
            rec = {"task": task, "package": pkg, "thorough": thorough, "verdict": res.verdict,
                   "files": len(res.files),
                   "formats": sorted({str(f["format"]) for f in res.files}),
                   "events": sum(f.get("events", 0) for f in res.files),
                   "findings": [f.to_dict() for f in res.findings]}
            out.append(rec)
            print(f"{task or '-':<42} {pkg:<12} thorough={thorough!s:<5} {res.verdict:<14} "
                  f"files={rec['files']} events={rec['events']} findings={len(res.findings)}")
            for f in res.findings:
                print(f"    {f.location()}: {f.code} {f.severity}: {f.message}")
    (HERE / "corpus_results.json").write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
