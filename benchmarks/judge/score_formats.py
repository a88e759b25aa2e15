"""The one score reader on every recorded score file of the Bmk-dev branches (issue 26 item 8).

    python3 benchmarks/gates/extract_bmk_dev.py            # once: the task folders
    python3 benchmarks/judge/score_formats.py [TASKS_DIR] [--out FILE]

TASKS_DIR defaults to /work/scratch/i14/tasks (extract_bmk_dev.py's output: one folder per
branch). Every JSON or XML file under a task folder whose name says it is a score or result
is read twice: with the rule the judge used before (a gavel-shaped file with `summary`
passed/total counts, a `cases` list and `pass_rate_excluding_skips`, the rate taken as
stated) and with the one reader (formats/score.py), which says what it derived and what it
could not. Written: score_formats.json (one row per file) and a summary on stdout. The files
are third-party material and are never committed; the rows name branch, task and path.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "src"))

from gavelkit.core.safeio import json_object_or_none  # noqa: E402
from gavelkit.task.formats.score import SCORE_NAME_HINTS, read_score  # noqa: E402


def before(path: Path) -> str | None:
    """Why the judge refused this file before the one reader (None: it used it)."""
    data = json_object_or_none(path)
    if data is None:
        return "not a JSON object"
    s = data.get("summary")
    if not isinstance(s, dict):
        return "no 'summary' object"
    for k in ("passed", "total"):
        if not isinstance(s.get(k), int) or isinstance(s.get(k), bool):
            return f"summary.{k} is missing or not a count"
    if not isinstance(data.get("cases"), list) or not data["cases"]:
        return "no 'cases' list"
    if not isinstance(data.get("pass_rate_excluding_skips"), int | float):
        return "no pass_rate_excluding_skips"
    return None


def row(path: Path, root: Path) -> dict[str, object]:
    role = "reference" if "reference" in path.name.lower() else "candidate"
    sr, fnd = read_score(path, role)
    rel = path.relative_to(root)
    out: dict[str, object] = {"branch": rel.parts[0], "task": rel.parts[1],
                              "file": str(Path(*rel.parts[2:])), "role": role,
                              "before": before(path) or "used"}
    if sr is None:
        return out | {"format": None, "now": fnd[0].message if fnd else "unreadable"}
    return out | {"format": sr.format, "passed": sr.passed, "total": sr.total,
                  "rate": sr.pass_rate, "stated": sr.stated_rate,
                  "now": sr.problem() or "used", "notes": list(sr.notes), "gaps": list(sr.gaps)}


def score_files(task: Path) -> list[Path]:
    return sorted(p for p in task.rglob("*") if p.suffix.lower() in (".json", ".xml")
                  and p.is_file() and any(h in p.name.lower() for h in SCORE_NAME_HINTS)
                  and p.name != "run_meta.json" and "oracle" not in p.parts)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("tasks", nargs="?", default="/work/scratch/i14/tasks")
    ap.add_argument("--out", default=str(HERE / "score_formats.json"))
    a = ap.parse_args()
    root = Path(a.tasks)
    if not root.is_dir():
        print(f"{root}: not found (run benchmarks/gates/extract_bmk_dev.py)", file=sys.stderr)
        return 2
    rows = [row(p, root) for branch in sorted(root.iterdir()) if branch.is_dir()
            for task in sorted(branch.iterdir()) if task.is_dir() for p in score_files(task)]
    Path(a.out).write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", "utf-8")
    used_before = sum(r["before"] == "used" for r in rows)
    used_now = sum(r["now"] == "used" for r in rows)
    print(f"{len(rows)} score files: the judge used {used_before} before, {used_now} now")
    print("formats:", dict(Counter(str(r["format"]) for r in rows)))
    print("why not usable now:", dict(Counter(str(r["now"]).split(":")[0] for r in rows
                                              if r["now"] != "used")))
    changed = [r for r in rows if r["before"] != "used" and r["now"] == "used"]
    for r in changed:
        print(f"  newly used: {r['branch']}/{r['task']}/{r['file']} ({r['format']}; "
              f"was: {r['before']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
