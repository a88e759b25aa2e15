"""Before/after table from results_before.json and results_after.json (distinct tasks).

    python benchmarks/gates/compare.py > benchmarks/gates/results_compare.md
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent


def main() -> int:
    b = json.loads((HERE / "results_before.json").read_text("utf-8"))["summary"]
    a = json.loads((HERE / "results_after.json").read_text("utf-8"))["summary"]
    out = ["# Gates D/E/F on real tasks: before and after", ""]
    for scope in ("distinct", "all_folders"):
        sb, sa = b[scope], a[scope]
        out += [f"## {scope.replace('_', ' ')} ({sa['tasks']} tasks, {sa['qualified']} QUALIFIED by "
                "their authors)", "", "| measure | before | after |", "|---|---|---|",
                f"| tasks whose map cannot be read (goal 0) | {sb['maps_unreadable']} of "
                f"{sb['maps_present']} | {sa['maps_unreadable']} of {sa['maps_present']} |",
                f"| findings per task, mean / median | {sb['findings_per_task_mean']} / "
                f"{sb['findings_per_task_median']} | {sa['findings_per_task_mean']} / "
                f"{sa['findings_per_task_median']} |",
                f"| error findings per task, mean | {sb['errors_per_task_mean']} | "
                f"{sa['errors_per_task_mean']} |",
                f"| QUALIFIED tasks with no error finding | {sb['qualified_passing_all_gates']} | "
                f"{sa['qualified_passing_all_gates']} |"]
        for g in "DEF":
            out.append(f"| Gate {g} verdicts | {sb['verdicts'][g]} | {sa['verdicts'][g]} |")
        out += [f"| Gate D source | {sb['gate_d_source']} | {sa['gate_d_source']} |", "",
                "| error rule | share of QUALIFIED tasks failed, before | after |", "|---|---|---|"]
        qb, qa = sb["qualified_share_failed_by_error_rule"], sa["qualified_share_failed_by_error_rule"]
        for code in sorted(set(qb) | set(qa), key=lambda c: -(qb.get(c) or 0)):
            fb, fa = qb.get(code), qa.get(code)
            out.append(f"| {code} | {fb or 0:.0%} | {fa or 0:.0%} |")
        out.append("")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
