"""Step records: the report, the requests, judge_result.json, task.json and the state move.

judge_result.json is written first: it holds the checks and the oracle digest and score
hash they were made on, which the state machine's QUALIFIED guard re-decides from.
task.json's `status` and `judge` record are written only together with a state move
(or when the task has no PIPELINE_STATE.md), so status and verdict never disagree.
The diagnosis report is written last (`write_report`), from the result with this step's
outcome in it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gavelkit.task.judging.fairness import SPOTCHECK
from gavelkit.task.judging.result import JudgeResult, Records, Transition
from gavelkit.task.judging.step import Notes
from gavelkit.task.judging.verdict import Verdict

STATUS_OF = {Verdict.QUALIFIED: "QUALIFIED", Verdict.BROKEN: "BROKEN",
             Verdict.CHEAT_DETECTED: "CHEAT_DETECTED"}
REPORT = "judge/diagnosis_report.md"


def sha(path: Path) -> str | None:
    from gavelkit.core.textio import sha256_file

    return sha256_file(path)


def rel(task: Any, p: Path) -> str:
    try:
        return str(p.resolve().relative_to(task.dir.resolve()))
    except ValueError:
        return str(p.resolve())


def write_outputs(res: JudgeResult, move_state: bool) -> Records:
    from gavelkit.core.textio import atomic_write
    from gavelkit.task.judging.diagnosis import render_requests

    task = res.task
    jdir = task.dir / "judge"
    notes = Notes(str(task.dir))
    written: list[str] = [REPORT]  # written last, by write_report
    clear_stale_locks(task.dir)
    sc = res.fairness.spotcheck if res.fairness else None
    if sc is not None and sc.prefilled:
        from gavelkit.task.gates import spotcheck

        allowed = spotcheck.allowed_verdicts(task.config, sc.gate)
        atomic_write(jdir / "spotcheck.md", spotcheck.render(
            list(sc.prefilled), sc.gate, 0, len(sc.prefilled), allowed))
        written.append(SPOTCHECK)
    gb = res.scores.gate_b if res.scores else None
    if gb is not None and gb.prefilled and not (jdir / "gate_b.md").exists():
        atomic_write(jdir / "gate_b.md", gb.prefilled)  # the judge's Gate B table, to fill
        written.append("judge/gate_b.md")
    reqs = render_requests(res)
    for name, text in reqs.items():
        atomic_write(jdir / name, text)
        written.append(f"judge/{name}")
    # the record the state machine's QUALIFIED guard re-decides from: written first
    atomic_write(jdir / "judge_result.json", json.dumps(record(res), indent=2, default=str) + "\n")
    written.append("judge/judge_result.json")
    moved, transition = False, None
    if move_state and task.pipeline is not None:
        moved, transition = move(res, notes, written)
    terminal: list[str] = []
    if res.verdict == Verdict.QUALIFIED and (moved or task.pipeline is None) and move_state:
        terminal = terminal_todos(res, written)
    if task.pipeline is None and move_state and res.verdict in STATUS_OF:
        write_task_json(res, STATUS_OF[res.verdict], written)
    return Records(written=tuple(written), transition=transition, terminal=tuple(terminal),
                   requests=tuple(reqs.items()), **notes.frozen())


def write_report(res: JudgeResult) -> None:
    from gavelkit.core.textio import atomic_write
    from gavelkit.task.judging.diagnosis import render_report

    atomic_write(res.task.dir / REPORT, render_report(res))


def clear_stale_locks(d: Path) -> None:
    """A `.lock` left by a killed writer: taking and releasing the lock removes it."""
    from gavelkit.core.textio import locked

    for name in ("task.json", "PIPELINE_STATE.md"):
        if (d / f"{name}.lock").is_file():
            with locked(d / name):
                pass


def write_task_json(res: JudgeResult, status: str, written: list[str]) -> None:
    if "task_json" not in res.task.paths or any(c.name == "inputs" and c.blocks
                                                for c in res.checks):
        return
    from gavelkit.task.formats.task_json import update_task_json

    update_task_json(res.task.paths["task_json"], task_json_updates(res, status))
    written.append("task.json")


def move(res: JudgeResult, notes: Notes, written: list[str]) -> tuple[bool, Transition]:
    """Move the state; task.json's status and judge record are written with it, first."""
    from gavelkit.task.pipeline.state import plan_transition, transition

    d = res.task.dir
    state = res.task.state
    if state == "S4_DONE":
        r = transition(d, "S5_JUDGE", "judge started", date=res.date, run=res.score_path,
                       config=res.loaded.config)
        if not r.written:
            why = tuple(f.message for f in r.findings)
            notes.add("TSK-J009", "warning", "could not enter S5_JUDGE: " + "; ".join(why))
            return False, Transition(False, why)
        state = "S5_JUDGE"
    to = res.decision.next_state if res.decision else None
    if to is None:
        return False, Transition(False, ("PENDING: the task stays in S5_JUDGE until the judge "
                                         "can certify or route it",), state, None, state)
    plan = plan_transition(d, to, res.loaded.config, run=res.score_path)
    if not plan.ok:
        notes.add("TSK-J009", "warning", f"state transition S5_JUDGE -> {to} refused: "
                  + "; ".join(f.message for f in plan.findings if f.severity == "error"))
        return False, Transition(False, tuple(f.message for f in plan.findings), state, to,
                                 plan.to_state)
    status = "RETIRED" if plan.to_state == "RETIRED" else STATUS_OF.get(res.verdict, "BROKEN")
    write_task_json(res, status, written)
    r = transition(d, to, f"judge: {res.verdict}; " + "; ".join(res.reasons)[:300], date=res.date,
                   run=res.score_path, config=res.loaded.config)
    if not r.written:
        notes.add("TSK-J009", "warning", f"state transition S5_JUDGE -> {to} refused: "
                  + "; ".join(f.message for f in r.findings))
    return r.written, Transition(r.written, tuple(f.message for f in r.findings), "S5_JUDGE",
                                 to, r.to_state)


def terminal_todos(res: JudgeResult, written: list[str]) -> list[str]:
    """QUALIFIED terminal todo: the CANDIDATES.md row; the MANIFEST caveat is the user's."""
    from gavelkit.core.textio import atomic_write, locked
    from gavelkit.task.formats.candidates import read_candidates, render_with_row
    from gavelkit.task.pipeline.digests import ledger_names

    out: list[str] = []
    lp = res.task.paths.get("ledger")
    if lp is None:
        out.append("CANDIDATES.md: no ledger found (task folder or its two parents): "
                   "appending the QUALIFIED row is yours to do")
    else:
        with locked(lp):
            led, _ = read_candidates(lp)
            names = ledger_names(res.task)
            if led is None or not led.columns:
                out.append(f"{lp}: not a readable ledger: the QUALIFIED row is yours to add")
            elif any(r.status == "QUALIFIED" and r.matches(names)
                     and "superseded_by" not in r.detail for r in led.rows):
                out.append(f"{lp.name}: a QUALIFIED row for this task exists already")
            else:
                s = res.score.summary if res.score else {}
                cells = {"repo": res.task.id, "status": "QUALIFIED",
                         "metric": f"{s.get('passed')}/{s.get('total')}",
                         "detail": f"judge {res.date}; oracle {res.oracle_digest[:12]}"}
                atomic_write(lp, render_with_row(led, cells))
                out.append(f"{lp.name}: QUALIFIED row appended")
                written.append(str(lp.name))
    sat = res.metrics.saturation if res.metrics else {}
    if sat.get("applies"):
        out.append("MANIFEST caveats: add 'saturated-candidate-score + trivially-solved: "
                   "consistent with recall from training data' -- the MANIFEST is "
                   "written at graduation, by you; the judge does not write it")
    return out


def record(res: JudgeResult) -> dict[str, Any]:
    m = res.metrics if res.scores_usable else None
    s = res.score if res.scores_usable else None
    sp = res.score_path
    pre = res.preflight
    scan = res.scan
    solv = res.solvability
    sc = res.fairness.spotcheck if res.fairness else None
    from gavelkit.task.judging.schema import SCHEMA_VERSION

    return {
        "schema_version": SCHEMA_VERSION,
        "verdict": res.verdict, "route": res.route, "reasons": res.reasons, "date": res.date,
        "order": res.steps,
        "checks": [c.to_dict() for c in res.checks],
        "judged_on": {"oracle_digest": res.oracle_digest,
                      "score_file": rel(res.task, sp) if sp else None,
                      "score_sha256": sha(sp) if sp and sp.is_file() else None},
        "preflight": {"available": pre.ran, "passed": pre.passed,
                      "reason": pre.reason, "block": pre.block_text} if pre else None,
        "anti_cheat": {"verdict": scan.verdict, "reason": scan.reason,
                       "findings": [f.to_dict() for f in scan.findings],
                       "run_tamper": res.anticheat.tamper} if scan and res.anticheat else None,
        "solvability": {"reference": solv.source if solv else "",
                        "pass_rate": res.reference_rate,
                        "diagnosis": solv.diagnosis_text if solv else []},
        "fairness_gates": fairness(res), "fairness_notes": fairness_notes(res),
        "standard": res.gates.standard if res.gates else None,
        "spotcheck": sc.to_dict() if sc else {}, "coverage_gap": res.coverage_caveat,
        "scores_usable": res.scores_usable, "scores_withheld_because": res.scores_why or None,
        "candidate_score": {"summary": s.summary, "pass_rate": s.pass_rate,
                            "by_layer": s.raw.get("by_layer")} if s else None,
        "metrics": m.to_dict() if m else None, "labels": res.labels,
        "weaknesses": [w.to_dict() for w in res.weaknesses], "transition": res.transition,
        "terminal_todos": res.terminal, "findings": [f.to_dict() for f in res.findings],
    }


def fairness(res: JudgeResult) -> dict[str, str]:
    """Each gate's verdict under its check's name (gate-A/C and gate-B: the check's status;
    gate-D/E/F: the static gate's own verdict, e.g. FULL / GAP, PASS, N/A)."""
    by = {c.name: str(c.status) for c in res.checks}
    out = {name: by.get(name, "UNVERIFIABLE") for name in ("gate-A/C", "gate-B")}
    for g in "DEF":
        r = res.fairness.result(g) if res.fairness else None
        out[f"gate-{g}"] = r.verdict if r is not None else "NOT RUN"
    return out


def fairness_notes(res: JudgeResult) -> dict[str, str]:
    """What a gate verdict rests on, when it is not the plain recomputed result."""
    from gavelkit.task.judging.fairness import gate_note

    notes = {}
    for g in "DEF":
        r = res.fairness.result(g) if res.fairness else None
        if r is not None and gate_note(r):
            notes[f"gate-{g}"] = gate_note(r)
    return notes


def task_json_updates(res: JudgeResult, status: str) -> dict[str, Any]:
    """The judge's record in task.json: status with the verdict, labels of this run only."""
    existing = res.task.task_json.data if res.task.task_json else {}
    upd: dict[str, Any] = {
        "status": status,
        "labels": [lab["label"] for lab in res.labels],
        "judge": {"verdict": res.verdict, "date": res.date, "report": REPORT,
                  "route": res.route, "reasons": res.reasons, "state": (
                      res.decision.next_state if res.decision else None),
                  "checks": {c.name: c.status for c in res.checks},
                  "preflight_output": res.preflight.block_text if res.preflight else None,
                  "anti_cheat": res.scan.verdict if res.scan else None,
                  "reference_pass_rate": res.reference_rate,
                  "fairness_gates": fairness(res), "fairness_notes": fairness_notes(res),
                  "standard": (res.gates.standard or {}).get("applied") if res.gates else None,
                  "score_result": rel(res.task, res.score_path) if res.score_path else None},
    }
    if res.coverage_caveat:
        upd["judge"]["coverage_gap_caveat"] = res.coverage_caveat
    m, s = res.metrics, res.score
    if res.scores_usable and m is not None and s is not None:
        upd["judge"]["failure_clusters"] = [c.to_dict() | {"tests": c.tests[:20]}
                                            for c in m.clusters][:30]
        upd["integration_gap"] = dict(m.integration_gap)
        upd["true_gap_events"] = m.true_gap_events
        new = {"run": rel(res.task, res.run_dir), "judged": res.date,
               "score_sha256": sha(res.score_path) if res.score_path else None,
               "passed": s.summary.get("passed"), "total": s.summary.get("total"),
               "pass_rate": s.pass_rate, "by_layer": s.raw.get("by_layer")}
        prev = existing.get("candidate_score")
        if isinstance(prev, dict) and prev and prev.get("score_sha256") != new["score_sha256"]:
            hist = existing.get("candidate_score_history")
            upd["candidate_score_history"] = [*(hist if isinstance(hist, list) else []), prev]
        upd["candidate_score"] = new
    if res.verdict == Verdict.QUALIFIED:
        upd["weaknesses"] = [w.to_dict() for w in res.weaknesses]
    return upd
