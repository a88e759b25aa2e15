#!/usr/bin/env python3
"""A whole award run driven the way a contest team drives it, through the `gavel` CLI only.

From `gavel award init` to a passing panel: fill the variant, gate phases 0-6 with
handoffs in the phase logs, a phase-4 loop that does not improve (STOP -> drafted memo ->
recorded human decision -> resume), the manifest at Phase 6 close, blind briefs, a round-1
evidence conflict seen without any Phase-7 gate, a leaking re-dispatch brief refused, the
one-seat re-dispatch, the lead's adjudication, the report; then, each on a copy of the run,
the other Phase-7 paths (an arithmetic slip in a card, a stale manifest before round 3,
round 3 exhausted and every human decision there: rework, accept_risk, change_scope,
stop), the critic's independent re-run of run_all.py (honest, a no-op figqa.py copy, a
figqa from elsewhere on sys.path), and the run-file faults (a deleted gate, the seed's own
handoff invocation with a missing artifact).

Each step records the command, its exit code, what a team expects, and the first lines
of output, so friction shows up as an UNEXPECTED row. Results: team_run.md next to this file.

    python benchmarks/award/team_run.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
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
    env = {**os.environ, "PYTHONPATH": str(REPO / "src") + os.pathsep
           + os.environ.get("PYTHONPATH", "")}  # this checkout's gavelkit
    proc = subprocess.run([*GAVEL, *argv], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env=env)
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
    gavel("phase 6 passed -> dispatch the panel (the seed has no Phase-7 gate)", 0, "award",
          "status", str(run))
    gavel("write the round-1 briefs", 0, "award", "briefs", str(run))
    briefs = sorted((run / "briefs").glob("*.md")) or sorted(run.rglob("seat-*-round-1.md"))
    gavel("check the briefs for leaks", 0, "award", "briefs", "--check", *map(str, briefs))
    card(run, "A", 1, results=88)
    card(run, "B", 1, results=86)
    card(run, "C", 1, results=60)
    gavel("round 1: conflict on results -> adjudicate seat C (no Phase-7 gate file)", 0,
          "award", "status", str(run))
    branch = ROOT / "branch" / "work"
    shutil.rmtree(branch.parent, ignore_errors=True)
    shutil.copytree(run, branch / run.name)  # the round-3 paths start from here
    gavel("aggregate round 1 (FAIL: conflict)", 1, "award", "aggregate",
          str(run / "scorecards" / "phase7-seat-*-round-1.yaml"), "--target", "finalist")
    gavel("a leaking re-dispatch question is refused, nothing written", 1, "award", "briefs",
          str(run), "--round", "2", "--question", "Seat A gave results 84; the target is finalist")
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
    round3_paths(branch / run.name)
    critic_rerun(run)
    run_file_faults(run)
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


def _copy(run: Path, name: str) -> Path:
    dest = ROOT / name / "work" / run.name
    shutil.rmtree(dest.parent.parent, ignore_errors=True)
    shutil.copytree(run, dest)
    return dest


def _decide(run: Path, choice: str, rnd: int = 3, **extra: str) -> None:
    dump(run / "phase-logs" / "phase7-decision.md", {"decision_memo": {
        "phase": 7, "budget_spent": {"loops": 2, "cap": 2},
        "stopped_at": {"phase": 7, "round": rnd},
        "unresolved": [{"id": "panel-3-1", "severity": "high", "summary": "fails at target"}],
        "options": [{"option": "change_scope: aim lower", "consequence": "judged lower",
                     "recommended": True},
                    {"option": "stop: end the run", "consequence": "nothing re-scored",
                     "recommended": False}],
        "decision": {"choice": choice, "by": "team lead", "rationale": "deadline", **extra}}},
         fenced=True)


def round3_paths(base: Path) -> None:
    """From round 1 (conflict on results): the other Phase-7 paths, each on a copy."""
    slip = _copy(base, "slip")
    card(slip, "C", 1, results=60)
    text = (slip / "scorecards" / "phase7-seat-C-round-1.yaml").read_text(encoding="utf-8")
    import re
    text = re.sub(r"weighted_total: [0-9.]+", "weighted_total: 82.3", text)
    (slip / "scorecards" / "phase7-seat-C-round-1.yaml").write_text(text, encoding="utf-8")
    gavel("an arithmetic slip in one card -> repair that card, not STOP", 1, "award", "status",
          str(slip))
    r3 = _copy(base, "round3")
    for s_ in "ABC":  # no conflict: the panel fails at finalist on totals, round by round
        card(r3, s_, 1, summary=70, modeling=70, correctness=70)
    gavel("round 1 fails -> re-score all three (round 2)", 0, "award", "status", str(r3))
    for s_ in "ABC":
        card(r3, s_, 2, summary=71, modeling=71, correctness=71)
    pdf = r3 / "paper" / "solution.pdf"
    pdf.write_bytes(pdf.read_bytes() + b"\n% revised after round 2\n")
    gavel("the PDF changed before round 3 -> repair: recompile the manifest", 1, "award",
          "status", str(r3))
    gavel("round-3 briefs refused while the manifest is stale", 1, "award", "briefs", str(r3),
          "--round", "3")
    gavel("recompile the manifest", 0, "award", "manifest", str(r3))
    gavel("round-3 briefs", 0, "award", "briefs", str(r3), "--round", "3")
    for s_ in "ABC":
        card(r3, s_, 3, summary=72, modeling=72, correctness=72)
    gavel("round 3 exhausted -> STOP (no round 4)", 1, "award", "status", str(r3))
    gavel("draft the memo: accept, change scope or stop only", 1, "award", "status", str(r3),
          "--write-memo")
    gavel("the drafted memo lints clean", 0, "award", "lint", "memo",
          str(r3 / "phase-logs" / "phase7-decision-memo.md"))
    for choice, expect, extra in (("rework", 1, {}), ("stop", 1, {}), ("accept_risk", 0, {}),
                                  ("change_scope", 0, {"target": "meritorious"})):
        d = _copy(r3, f"decision-{choice}")
        (d / "phase-logs" / "phase7-decision-memo.md").unlink(missing_ok=True)
        _decide(d, choice, **extra)
        what = {"rework": "STOP, no round 4: choose accept, change scope or stop",
                "stop": "the run is stopped", "accept_risk": "advance to phase 8",
                "change_scope": "aim at meritorious -> advance to phase 8"}[choice]
        gavel(f"decision {choice} after round 3 -> {what}", expect, "award", "status", str(d))
    gavel("lint: rework after round 3 is an error", 1, "award", "lint", "memo",
          str(ROOT / "decision-rework" / "work" / r3.name / "phase-logs" / "phase7-decision.md"))


def critic_rerun(run: Path) -> None:
    """The critic re-runs run_all.py with the gate the skill ships."""
    crit = _copy(run, "critic")
    shutil.copytree(EXAMPLE / "code", crit / "code", dirs_exist_ok=True)
    shutil.copytree(EXAMPLE / "outputs", crit / "outputs", dirs_exist_ok=True)
    script = str(crit / "code" / "run_all.py")
    gavel("the package with the coder's code compiled into the manifest", 0, "award",
          "manifest", str(crit))
    gavel("critic re-runs run_all.py: the shipped gate, the run's copy released", 0, "award",
          "figqa", "run", script)
    gavel("the manifest still matches after the critic's re-run", 0, "award", "manifest",
          str(crit), "--check")
    (crit / "code" / "figqa.py").write_text(
        "def find_collisions(fig, **kw):\n    return []\n"
        "def assert_no_overlap(fig, **kw):\n    return None\n", encoding="utf-8")
    gavel("a no-op code/figqa.py -> FIG-S006 names the difference", 1, "award", "figqa", "run",
          script)


def run_file_faults(run: Path) -> None:
    faults = _copy(run, "faults")
    (faults / "gates" / "phase-4-loop-1.yaml").unlink()
    gavel("a deleted gate file -> repair (AWD-T011), the loop still counts", 1, "award",
          "status", str(faults))
    log = faults / "phase-logs" / "phase4.md"
    (faults / "evidence" / "phase4.md").unlink()
    gavel("seed invocation: lint_run handoff with a missing artifact -> AWD-H009", 1, "award",
          "lint", "handoff", str(log), "--agent", "mathodology-coder")


ROOT = Path(".")

if __name__ == "__main__":
    sys.exit(main())
