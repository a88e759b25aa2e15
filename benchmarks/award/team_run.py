#!/usr/bin/env python3
"""A whole award run driven the way a contest team drives it, through the `gavel` CLI only.

From `gavel award init` to a passing panel: fill the variant, gate phases 0-6 with
handoffs in the phase logs, a phase-4 loop that does not improve (STOP -> drafted memo ->
recorded human decision -> resume), the manifest at Phase 6 close, blind briefs, a round-1
evidence conflict, the one-seat re-dispatch, the lead's adjudication, the report.

Each step records the command, its exit code, what a team expects, and the first lines
of output, so friction shows up as an UNEXPECTED row. Results: team_run.md next to this file.

    python benchmarks/award/team_run.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
EXAMPLE = next((REPO / "examples" / "award-run" / "work").iterdir())
GAVEL = [sys.executable, "-c", "from gavelkit.cli.main import run; run()"]

RUBRIC = {
    "A": {"summary": 0.25, "modeling": 0.25, "results": 0.20, "writing": 0.15, "completeness": 0.15},
    "B": {"summary": 0.15, "modeling": 0.20, "results": 0.15, "innovation": 0.30, "evidence": 0.20},
    "C": {"correctness": 0.35, "reproducibility": 0.25, "summary": 0.10, "modeling": 0.15,
          "results": 0.15},
}
AGENTS = {0: "mathodology-problem-analyst", 1: "mathodology-problem-analyst",
          2: "mathodology-modeler", 3: "mathodology-evidence-researcher",
          4: "mathodology-coder", 5: "mathodology-paper-editor", 6: "mathodology-paper-editor"}
ROLE_KEYS = {
    "mathodology-problem-analyst": {"scope_ledger": [{"id": "MECH-1", "text": "demand",
                                                      "status": "covered"}]},
    "mathodology-modeler": {"innovation_ledger": [{"id": "INN-1", "text": "hybrid model",
                                                   "status": "kept"}]},
    "mathodology-coder": {"collision_gate_result": {"status": "pass",
                                                    "command": "python3 code/run_all.py"}},
    "mathodology-paper-editor": {"ledger_closeout": "all ledger rows closed"},
    "mathodology-evidence-researcher": {
        "search_backend": "none", "queries_run": [],
        "missing_evidence": ["no search backend in this offline rehearsal; coverage: none"],
        "citations_to_verify": []},
}

rows: list[dict[str, object]] = []


def gavel(title: str, expect: int | None, *argv: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([*GAVEL, *argv], capture_output=True, text=True, cwd=ROOT, timeout=300)
    out = (proc.stdout + proc.stderr).strip().splitlines()
    ok = expect is None or proc.returncode == expect
    rows.append({"step": title, "cmd": "gavel " + " ".join(argv), "exit": proc.returncode,
                 "expect": expect, "ok": ok, "out": " / ".join(out[-3:])[:300]})
    return proc


def dump(path: Path, obj: object, fenced: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = yaml.safe_dump(obj, sort_keys=False, allow_unicode=True)
    path.write_text(f"```yaml\n{text}```\n" if fenced else text, encoding="utf-8")
    return path


def handoff(run: Path, phase: int, loop: int = 0) -> None:
    agent = AGENTS[phase]
    art = f"work/{run.name}/evidence/phase{phase}.md"
    (run / "evidence" / f"phase{phase}.md").write_text(f"phase {phase} notes\n")
    body = {"phase": phase, "agent": agent, "loop": loop,
            "status": "complete" if agent != "mathodology-evidence-researcher" else "blocked",
            "artifacts": [{"path": art, "role": "notes"}], "decisions": [], "assumptions": [],
            "evidence": [], "commands": [], "weaknesses": [], "questions": [],
            "critic_focus": [], **ROLE_KEYS[agent]}
    dump(run / "phase-logs" / f"phase{phase}.md", {"handoff": body}, fenced=True)


def gate(run: Path, phase: int, loop: int, issues: list[tuple[str, str]]) -> None:
    its = [{"id": i, "severity": s, "summary": f"{i} open", "artifact": "paper",
            "required_fix": "fix it", "owner": AGENTS.get(phase, "mathodology-lead")}
           for i, s in issues]
    verdict = "fail" if any(s in ("blocker", "high") for _, s in issues) else "pass"
    dump(run / "gates" / f"phase-{phase}-loop-{loop}.yaml",
         {"gate": {"phase": phase, "loop": loop, "verdict": verdict, "issues": its,
                   "evidence_checked": ["re-ran run_all.py"], "missing_evidence": []}})


def card(run: Path, seat: str, rnd: int, **scores: float) -> None:
    sc = {k: 88.0 for k in RUBRIC[seat]}
    sc.update(scores)
    crit = [{"name": k, "weight": w, "score": sc[k]} for k, w in RUBRIC[seat].items()]
    total = round(sum(w * sc[k] for k, w in RUBRIC[seat].items()), 4)
    tier = ("outstanding" if total >= 85 else "finalist" if total >= 80 else
            "meritorious" if total >= 75 else "below")
    dump(run / "scorecards" / f"phase7-seat-{seat}-round-{rnd}.yaml",
         {"scorecard": {"contest": "MCM 2026 Problem C", "seat": seat, "round": rnd,
                        "criteria": crit, "weighted_total": total, "implied_tier": tier,
                        "fix_one_thing": "tighten the hold-out validation", "ranked_gaps": [],
                        "do_not_regress": []}})


def main() -> int:
    global ROOT
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keep", help="run in this folder and keep it")
    args = ap.parse_args()
    ROOT = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="gavel-team-"))
    ROOT.mkdir(parents=True, exist_ok=True)
    run = ROOT / "work" / "mcm26c"
    if run.exists():
        shutil.rmtree(run)
    gavel("init a run", 0, "award", "init", "--run-id", "mcm26c")
    v = run / "phase-logs" / "variant.yaml"
    gavel("lint the unfilled variant (must fail: placeholders)", 1, "award", "lint", "variant",
          str(v))
    gavel("status on the unfilled variant (target unknown, said so)", 0, "award", "status",
          str(run))
    example = (EXAMPLE / "phase-logs" / "phase0.md").read_text(encoding="utf-8")
    block = next(b.split("```", 1)[0] for b in example.split("```yaml\n")[1:]
                 if b.startswith("variant:"))
    v.write_text(block, encoding="utf-8")  # the team pastes its filled variant block
    gavel("lint the filled variant", 0, "award", "lint", "variant", str(v))
    for ph in range(4):
        handoff(run, ph)
        gate(run, ph, 0, [])
        gavel(f"status after phase {ph} gate", 0, "award", "status", str(run), "--format",
              "table")
    handoff(run, 4)
    gate(run, 4, 0, [("G4-1", "high"), ("G4-2", "high")])
    gavel("phase 4 loop 0 fails -> fix", 0, "award", "status", str(run))
    gate(run, 4, 1, [("G4-1", "high"), ("G4-3", "high")])
    gavel("phase 4 loop 1 did not improve -> STOP", 1, "award", "status", str(run))
    gavel("draft the decision memo", 1, "award", "status", str(run), "--write-memo")
    memo = run / "phase-logs" / "phase4-decision-memo.md"
    if memo.is_file():
        text = memo.read_text(encoding="utf-8").replace(
            "decision_memo:\n", "decision_memo:\n  decision: {choice: rework, by: 'team lead', "
            "rationale: 'switch to a state-space model for G4-1'}\n", 1)
        memo.write_text(text, encoding="utf-8")
    gavel("lint the memo with the human decision", 0, "award", "lint", "memo", str(memo))
    gavel("status after the decision -> fix loop 2", 0, "award", "status", str(run))
    gate(run, 4, 2, [])
    gavel("phase 4 loop 2 passes -> advance 5", 0, "award", "status", str(run))
    for ph in (5, 6):
        handoff(run, ph)
        gate(run, ph, 0, [])
    for sub in ("paper/solution.pdf", "outputs/figures/demand_forecast.png",
                "outputs/tables/forecast.csv", "code/run_all.py"):
        (run / sub).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(EXAMPLE / sub, run / sub)
    gavel("compile the manifest at Phase 6 close", 0, "award", "manifest", str(run))
    gavel("manifest --check", 0, "award", "manifest", str(run), "--check")
    gate(run, 7, 0, [])
    gavel("phase 7 critic gate passed -> dispatch", 0, "award", "status", str(run))
    gavel("write the round-1 briefs", 0, "award", "briefs", str(run))
    briefs = sorted((run / "briefs").glob("*.md")) or sorted(run.rglob("seat-*-round-1.md"))
    gavel("check the briefs for leaks", 0, "award", "briefs", "--check", *map(str, briefs))
    card(run, "A", 1, results=88)
    card(run, "B", 1, results=86)
    card(run, "C", 1, results=60)
    gavel("round 1: conflict on results -> adjudicate seat C", 0, "award", "status", str(run))
    gavel("aggregate round 1 (FAIL: conflict)", 1, "award", "aggregate",
          str(run / "scorecards" / "phase7-seat-*-round-1.yaml"), "--target", "finalist")
    gavel("write the one-seat round-2 brief", 0, "award", "briefs", str(run), "--round", "2",
          "--question", "Does Figure 1's band cover the 2024 hold-out months?")
    card(run, "C", 2, results=66)
    gavel("round 2: conflict persisted -> STOP for the adjudication", 1, "award", "status",
          str(run))
    dump(run / "phase-logs" / "phase7-adjudication.md", {"decision_memo": {
        "phase": 7, "budget_spent": {"loops": 1, "cap": 2}, "unresolved": [],
        "adjudications": [{"criterion": "results", "outlier": "C", "round": 2,
                           "outcome": "A's evidence holds: 22 of 24 hold-out months in band"}],
        "options": [{"option": "submit at finalist", "consequence": "keeps the schedule",
                     "recommended": True},
                    {"option": "re-score round 3", "consequence": "little to gain",
                     "recommended": False}]}}, fenced=True)
    gavel("status after the adjudication -> advance 8", 0, "award", "status", str(run))
    sc = run / "scorecards"
    gavel("aggregate the adjudication round with the memo", 0, "award", "aggregate",
          str(sc / "phase7-seat-A-round-1.yaml"), str(sc / "phase7-seat-B-round-1.yaml"),
          str(sc / "phase7-seat-C-round-2.yaml"), "--target", "finalist",
          "--adjudication-round", "--memo", str(run / "phase-logs" / "phase7-adjudication.md"))
    gavel("report", 0, "award", "report", str(run), "-o", str(ROOT / "report.html"),
          "--no-pdfqa")
    bad = [r for r in rows if not r["ok"]]
    lines = ["# A whole award run, driven as a contest team would (`team_run.py`)", "",
             f"{len(rows)} steps, {len(bad)} unexpected.", "",
             "| # | step | exit (expected) | ok | last output |", "|---|---|---|---|---|"]
    for i, r in enumerate(rows, 1):
        out = str(r["out"]).replace("|", "\\|")
        lines.append(f"| {i} | {r['step']} | {r['exit']} ({r['expect']}) | "
                     f"{'ok' if r['ok'] else 'UNEXPECTED'} | {out} |")
    (HERE / "team_run.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0 if not bad else 1


ROOT = Path(".")

if __name__ == "__main__":
    sys.exit(main())
