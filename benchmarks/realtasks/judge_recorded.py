"""`gavel task judge` on the recorded runs of Bmk-dev `beta`, without their code (issue 26 item 8).

    python3 benchmarks/gates/extract_bmk_dev.py          # once
    python3 benchmarks/realtasks/judge_recorded.py       -> judge-recorded.{md,json}

Each task with a recorded score file is copied to a scratch folder, entered at S5_JUDGE
(`gavel task init --adopt`, as a maintainer would) and judged on that file with no
candidate code and no transcript. What must hold on every one: never QUALIFIED; the
score is never used; where it can be read, its layers, gap, clusters and Gate B evidence
are shown as unverified evidence with each check that could not be made and why.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from compare_recorded import BETA, RECORDED  # noqa: E402

GAVEL = [sys.executable, "-m", "gavelkit"]


def _gavel(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(HERE.parent.parent / "src"), "PATH": "/usr/bin:/bin"}
    return subprocess.run([*GAVEL, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def judge_one(name: str, score: str, scratch: Path) -> dict:
    d = scratch / name
    shutil.copytree(BETA / name, d)
    _gavel("task", "init", str(d), "--adopt", cwd=scratch)
    p = _gavel("task", "judge", str(d), "--run", str(d / score), "--no-state",
               "--format", "json", cwd=scratch)
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError:
        return {"task": name, "rc": p.returncode, "error": (p.stderr or p.stdout)[-400:]}
    rec = doc.get("judge") or {}
    if rec.get("verdict") == "REFUSED" or not rec.get("checks"):
        why = "; ".join(f.get("message", "") for f in doc.get("findings", [])
                        if f.get("code") == "TSK-J012") or str(rec.get("reasons"))
        state = _gavel("task", "state", str(d), cwd=scratch).stdout.split("\n", 1)[0]
        return {"task": name, "rc": p.returncode, "verdict": "REFUSED",
                "withheld": f"entry refused ({state}, adopted from its records): {why[:120]}"}
    ev = rec.get("unverified_evidence")
    report = (d / "judge" / "diagnosis_report.md").read_text(encoding="utf-8")
    return {"task": name, "rc": p.returncode, "verdict": rec.get("verdict"),
            "scores_usable": rec.get("scores_usable"),
            "withheld": rec.get("scores_withheld_because"),
            "evidence": None if ev is None else {
                "score": f"{ev['candidate_score']['summary'].get('passed')}/"
                         f"{ev['candidate_score']['summary'].get('total')}",
                "layers": {k: f"{v.get('passed')}/{v.get('total')}" for k, v in
                           (ev["metrics"].get("layers") or {}).items()},
                "clusters": len(ev["metrics"].get("clusters") or []),
                "gate_b_failures": ev["gate_b"].get("failures"),
                "not_checked": [x["check"] for x in ev["not_checked"]]},
            "report_marks_unverified": "**Unverified: recorded evidence" in report}


def _row(r: dict) -> str:
    ev = r.get("evidence")
    if not ev:
        why = (r.get("withheld") or r.get("error") or "")[:160]
        return f"| {r['task']} | {r.get('verdict', 'error')} | not shown: {why} | | | | |"
    layers = ", ".join(f"{k} {v}" for k, v in ev["layers"].items())
    return (f"| {r['task']} | {r.get('verdict', 'error')} | unverified {ev['score']} | {layers}"
            f" | {ev['clusters']} | {ev['gate_b_failures']} | {', '.join(ev['not_checked'])} |")


def _markdown(rows: list[dict], bad: list[str]) -> list[str]:
    lines = ["# `gavel task judge` on Bmk-dev beta's recorded runs, without their code", "",
             "`python3 benchmarks/realtasks/judge_recorded.py`. Each recorded score file judged"
             " with no candidate code and no transcript (`task init --adopt`, `task judge"
             " --run FILE --no-state`).", "",
             "| task | verdict | recorded score shown as | layers | clusters | Gate B failures"
             " | checks that could not be made |", "|---|---|---|---|---|---|---|"]
    lines += [_row(r) for r in rows]
    lines += ["", f"Never QUALIFIED, score never used: {'yes' if not bad else 'NO: ' + str(bad)}."
              f" Evidence shown on {sum(1 for r in rows if r.get('evidence'))} of {len(rows)};"
              f" report marked unverified on "
              f"{sum(1 for r in rows if r.get('report_marks_unverified'))}.", "",
              "Why some show nothing: a recorded pass rate at the solvability threshold with no"
              " passing preflight is refused outright (TSK-J006: jrnl's 473/473), not shown as"
              " evidence; alembic and vcrpy are adopted at S3_ORACLE_MERGE, not S5_JUDGE, because"
              " beta holds none of their oracle files (the S3 guards need them), so the judge's"
              " entry refuses them. Every BROKEN is Gates E/F on the current standard"
              " (recorded-comparison.md).", ""]
    return lines


def main() -> int:
    if not BETA.is_dir():
        print(f"{BETA} absent: run benchmarks/gates/extract_bmk_dev.py first")
        return 2
    rows = []
    with tempfile.TemporaryDirectory(prefix="gavel-judge-recorded-") as tmp:
        for name, rec in RECORDED.items():
            if rec.get("score"):
                rows.append(judge_one(name, rec["score"], Path(tmp)))
    bad = [r["task"] for r in rows if r.get("verdict") == "QUALIFIED" or r.get("scores_usable")]
    (HERE / "judge-recorded.json").write_text(json.dumps(rows, indent=1) + "\n")
    lines = _markdown(rows, bad)
    (HERE / "judge-recorded.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
