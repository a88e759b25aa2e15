"""What the judge writes: report, requests, judge_result.json, task.json, the state move.

judge_result.json is written first: it holds the checks and the oracle digest and score
hash they were made on, which the state machine's QUALIFIED guard re-decides from.
task.json's `status` and `judge` record are written only together with a state move
(or when the task has no PIPELINE_STATE.md), so status and verdict never disagree.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from gavelkit.task.judging.checks import SPOTCHECK, TAMPER_CODES

STATUS_OF = {"QUALIFIED": "QUALIFIED", "BROKEN": "BROKEN", "CHEAT_DETECTED": "CHEAT_DETECTED"}


def sha(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def rel(task: Any, p: Path) -> str:
    try:
        return str(p.resolve().relative_to(task.dir.resolve()))
    except ValueError:
        return str(p.resolve())


def write_outputs(res: Any, move_state: bool) -> None:
    from gavelkit.core.textio import atomic_write
    from gavelkit.task.judging.diagnosis import render_report, render_requests

    if res.verdict == "REFUSED":
        return
    jdir = res.task.dir / "judge"
    clear_stale_locks(res.task.dir)
    if res.spotcheck.get("prefilled") and res.spotcheck_rows:
        from gavelkit.task.gates import spotcheck

        allowed = spotcheck.allowed_verdicts(res.task.config, res.spotcheck["gate"])
        atomic_write(jdir / "spotcheck.md", spotcheck.render(
            res.spotcheck_rows, res.spotcheck["gate"], 0, len(res.spotcheck_rows), allowed))
        res.written.append(SPOTCHECK)
    reqs = render_requests(res)
    for name, text in reqs.items():
        atomic_write(jdir / name, text)
        res.requests[name] = text
        res.written.append(f"judge/{name}")
    # the record the state machine's QUALIFIED guard re-decides from: written first
    atomic_write(jdir / "judge_result.json", json.dumps(record(res), indent=2, default=str) + "\n")
    res.written.append("judge/judge_result.json")
    moved = False
    if move_state and res.task.pipeline is not None:
        moved = move(res)
    if res.verdict == "QUALIFIED" and (moved or res.task.pipeline is None) and move_state:
        terminal_todos(res)
    if res.task.pipeline is None and move_state and res.verdict in STATUS_OF:
        write_task_json(res, STATUS_OF[res.verdict])
    atomic_write(jdir / "diagnosis_report.md", render_report(res))
    res.written.insert(0, "judge/diagnosis_report.md")


def clear_stale_locks(d: Path) -> None:
    """A `.lock` left by a killed writer: taking and releasing the lock removes it."""
    from gavelkit.core.textio import locked

    for name in ("task.json", "PIPELINE_STATE.md"):
        if (d / f"{name}.lock").is_file():
            with locked(d / name):
                pass


def write_task_json(res: Any, status: str) -> None:
    if "task_json" not in res.task.paths or any(c.name == "inputs" and c.blocks
                                                for c in res.checks):
        return
    from gavelkit.task.formats.task_json import update_task_json

    update_task_json(res.task.paths["task_json"], task_json_updates(res, status))
    res.written.append("task.json")


def move(res: Any) -> bool:
    """Move the state; task.json's status and judge record are written with it, first."""
    from gavelkit.task.pipeline.state import plan_transition, transition

    d = res.task.dir
    state = res.task.state
    if state == "S4_DONE":
        r = transition(d, "S5_JUDGE", "judge started", date=res.date)
        if not r.written:
            res.transition = {"written": False, "why": [f.message for f in r.findings]}
            res.add("TSK-J009", "warning", "could not enter S5_JUDGE: "
                    + "; ".join(f.message for f in r.findings))
            return False
        state = "S5_JUDGE"
    to = res.decision.next_state if res.decision else None
    if to is None:
        res.transition = {"from": state, "to": state, "written": False,
                          "why": ["PENDING: the task stays in S5_JUDGE until the judge can "
                                  "certify or route it"]}
        return False
    plan = plan_transition(d, to)
    if not plan.ok:
        res.transition = {"from": state, "requested": to, "to": plan.to_state, "written": False,
                          "why": [f.message for f in plan.findings]}
        res.add("TSK-J009", "warning", f"state transition S5_JUDGE -> {to} refused: "
                + "; ".join(f.message for f in plan.findings if f.severity == "error"))
        return False
    status = "RETIRED" if plan.to_state == "RETIRED" else STATUS_OF.get(res.verdict, "BROKEN")
    write_task_json(res, status)
    r = transition(d, to, f"judge: {res.verdict}; " + "; ".join(res.reasons)[:300], date=res.date)
    res.transition = {"from": "S5_JUDGE", "requested": to, "to": r.to_state,
                      "written": r.written, "why": [f.message for f in r.findings]}
    if not r.written:
        res.add("TSK-J009", "warning", f"state transition S5_JUDGE -> {to} refused: "
                + "; ".join(f.message for f in r.findings))
    return r.written


def terminal_todos(res: Any) -> None:
    """QUALIFIED terminal todo: the CANDIDATES.md row; the MANIFEST caveat is the user's."""
    from gavelkit.core.textio import atomic_write, locked
    from gavelkit.task.formats.candidates import read_candidates, render_with_row
    from gavelkit.task.pipeline.digests import ledger_names

    lp = res.task.paths.get("ledger")
    if lp is None:
        res.terminal.append("CANDIDATES.md: no ledger found (task folder or its two parents): "
                            "appending the QUALIFIED row is yours to do")
    else:
        with locked(lp):
            led, _ = read_candidates(lp)
            names = ledger_names(res.task)
            if led is None or not led.columns:
                res.terminal.append(f"{lp}: not a readable ledger: the QUALIFIED row is yours "
                                    "to add")
            elif any(r.status == "QUALIFIED" and r.matches(names)
                     and "superseded_by" not in r.detail for r in led.rows):
                res.terminal.append(f"{lp.name}: a QUALIFIED row for this task exists already")
            else:
                s = res.score or {}
                cells = {"repo": res.task.id, "status": "QUALIFIED",
                         "metric": f"{(s.get('summary') or {}).get('passed')}/"
                                   f"{(s.get('summary') or {}).get('total')}",
                         "detail": f"judge {res.date}; oracle {res.oracle_digest[:12]}"}
                atomic_write(lp, render_with_row(led, cells))
                res.terminal.append(f"{lp.name}: QUALIFIED row appended")
                res.written.append(str(lp.name))
    sat = res.metrics.saturation if res.metrics else {}
    if sat.get("applies"):
        res.terminal.append("MANIFEST caveats: add 'saturated-candidate-score + trivially-solved: "
                            "consistent with recall from training data' -- the MANIFEST is "
                            "written at graduation, by you; the judge does not write it")


def record(res: Any) -> dict[str, Any]:
    m = res.metrics if res.scores_usable else None
    s = res.score if res.scores_usable else None
    sp = res.score_path
    return {
        "verdict": res.verdict, "route": res.route, "reasons": res.reasons, "date": res.date,
        "order": res.steps,
        "checks": [c.to_dict() for c in res.checks],
        "judged_on": {"oracle_digest": res.oracle_digest,
                      "score_file": rel(res.task, sp) if sp else None,
                      "score_sha256": sha(sp) if sp and sp.is_file() else None},
        "preflight": {"available": res.preflight.available, "passed": res.preflight.passed,
                      "reason": res.preflight.reason, "block": res.preflight.block_text}
        if res.preflight else None,
        "anti_cheat": {"verdict": res.scan.verdict, "reason": res.scan.reason,
                       "findings": [f.to_dict() for f in res.scan.findings],
                       "run_tamper": [f for f in res.run_findings
                                      if f.get("code") in TAMPER_CODES]} if res.scan else None,
        "solvability": {"reference": res.reference_src, "pass_rate": res.reference_rate,
                        "diagnosis": res.reference_diag},
        "fairness_gates": fairness(res),
        "standard": res.gates.standard if res.gates else None,
        "spotcheck": res.spotcheck, "coverage_gap": res.coverage_caveat,
        "scores_usable": res.scores_usable, "scores_withheld_because": res.scores_why or None,
        "candidate_score": {"summary": s.get("summary"), "pass_rate": s.get(
            "pass_rate_excluding_skips"), "by_layer": s.get("by_layer")} if s else None,
        "metrics": m.to_dict() if m else None, "labels": res.labels,
        "weaknesses": res.weaknesses, "transition": res.transition,
        "terminal_todos": res.terminal, "findings": [f.to_dict() for f in res.findings],
    }


def fairness(res: Any) -> dict[str, str]:
    by = {c.name: c.status for c in res.checks}
    out = {"A/C_spotcheck": by.get("gate-A/C", "UNVERIFIABLE"),
           "B_failure_pattern": by.get("gate-B", "UNVERIFIABLE")}
    for g, name in (("D", "D_coverage"), ("E", "E_static_quality"), ("F", "F_phrasing")):
        v = res.gates.verdicts.get(g) if res.gates else None
        out[name] = v or "NOT RUN"
    d = res.gates.results.get("D") if res.gates else None
    if d is not None and d.data.get("gap_accepted"):
        out["D_gap_accepted"] = "accepted caveat: task.json coverage_gap"
    if d is not None and d.data.get("source") == "task_record":
        out["D_source"] = "from the task's record, not recomputed"
    f = res.gates.results.get("F") if res.gates else None
    if f is not None and f.verdict == "N/A":
        out["F_not_applied"] = str(f.data.get("not_applied", ""))
    return out


def task_json_updates(res: Any, status: str) -> dict[str, Any]:
    """The judge's record in task.json: status with the verdict, labels of this run only."""
    existing = res.task.task_json.data if res.task.task_json else {}
    upd: dict[str, Any] = {
        "status": status,
        "labels": [lab["label"] for lab in res.labels],
        "judge": {"verdict": res.verdict, "date": res.date, "report": "judge/diagnosis_report.md",
                  "route": res.route, "reasons": res.reasons, "state": (
                      res.decision.next_state if res.decision else None),
                  "checks": {c.name: c.status for c in res.checks},
                  "preflight_output": res.preflight.block_text if res.preflight else None,
                  "anti_cheat": res.scan.verdict if res.scan else None,
                  "reference_pass_rate": res.reference_rate,
                  "fairness_gates": fairness(res),
                  "standard": (res.gates.standard or {}).get("applied") if res.gates else None,
                  "score_result": rel(res.task, res.score_path) if res.score_path else None},
    }
    if res.coverage_caveat:
        upd["judge"]["coverage_gap_caveat"] = res.coverage_caveat
    m = res.metrics
    if res.scores_usable and m is not None and res.score is not None:
        s = res.score
        upd["judge"]["failure_clusters"] = [c.to_dict() | {"tests": c.tests[:20]}
                                            for c in m.clusters][:30]
        upd["integration_gap"] = dict(m.integration_gap)
        upd["true_gap_events"] = m.true_gap_events
        new = {"run": rel(res.task, res.run_dir), "judged": res.date,
               "score_sha256": sha(res.score_path) if res.score_path else None,
               "passed": (s.get("summary") or {}).get("passed"),
               "total": (s.get("summary") or {}).get("total"),
               "pass_rate": s.get("pass_rate_excluding_skips"), "by_layer": s.get("by_layer")}
        prev = existing.get("candidate_score")
        if isinstance(prev, dict) and prev and prev.get("score_sha256") != new["score_sha256"]:
            hist = existing.get("candidate_score_history")
            upd["candidate_score_history"] = [*(hist if isinstance(hist, list) else []), prev]
        upd["candidate_score"] = new
    if res.verdict == "QUALIFIED":
        upd["weaknesses"] = res.weaknesses
    return upd
