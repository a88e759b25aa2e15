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
from gavelkit.task.judging.scores import score_record
from gavelkit.task.judging.step import Notes
from gavelkit.task.judging.verdict import TASK_STATUSES, Verdict

STATUS_OF = {v: str(v) for v in TASK_STATUSES}  # task.json status written with the verdict
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
    from gavelkit.task.judging.diagnosis import render_requests

    task = res.task
    notes = Notes(str(task.dir))
    written: list[str] = [REPORT]  # written last, by write_report
    clear_stale_locks(task.dir)
    _write_spotcheck(res, written)
    _write_gate_b_table(res, written)
    reqs = render_requests(res)
    for name, text in reqs.items():
        _write(task.dir / "judge" / name, text, written)
    # the record the state machine's QUALIFIED guard re-decides from: written first
    _write(task.dir / "judge" / "judge_result.json",
           json.dumps(record(res), indent=2, default=str) + "\n", written)
    transition, terminal = _state_and_record(res, move_state, notes, written)
    return Records(written=tuple(written), transition=transition, terminal=tuple(terminal),
                   requests=tuple(reqs.items()), **notes.frozen())


def _state_and_record(res: JudgeResult, move_state: bool, notes: Notes,
                      written: list[str]) -> tuple[Transition | None, list[str]]:
    """The state move with task.json (or task.json alone, for a task without a state
    file), and on QUALIFIED the terminal todos."""
    if not move_state:
        return None, []
    untracked = res.task.pipeline is None
    moved, transition = (False, None) if untracked else move(res, notes, written)
    terminal = terminal_todos(res, written) if res.verdict == Verdict.QUALIFIED and (
        moved or untracked) else []
    if untracked and res.verdict in STATUS_OF:
        write_task_json(res, STATUS_OF[res.verdict], written)
    return transition, terminal


def _write(path: Path, text: str, written: list[str]) -> None:
    from gavelkit.core.textio import atomic_write

    atomic_write(path, text)
    written.append(f"judge/{path.name}")


def _write_gate_b_table(res: JudgeResult, written: list[str]) -> None:
    """The judge's Gate B table to fill (judge/gate_b.md), once: a filled one is kept."""
    gb = res.scores.gate_b if res.scores else None
    if gb is not None and gb.prefilled and not (res.task.dir / "judge" / "gate_b.md").exists():
        _write(res.task.dir / "judge" / "gate_b.md", gb.prefilled, written)


def _write_spotcheck(res: JudgeResult, written: list[str]) -> None:
    """The prefilled Gate A/C table, when the judge made one."""
    sc = res.fairness.spotcheck if res.fairness else None
    if sc is None or not sc.prefilled:
        return
    from gavelkit.task.gates import spotcheck

    allowed = spotcheck.allowed_verdicts(res.task.config, sc.gate)
    _write(res.task.dir / SPOTCHECK, spotcheck.render(list(sc.prefilled), sc.gate, 0,
                                                      len(sc.prefilled), allowed), written)


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

    d, cfg = res.task.dir, res.loaded.config
    state = res.task.state
    if state == "S4_DONE":
        r = transition(d, "S5_JUDGE", "judge started", date=res.date, run=res.score_path,
                       config=cfg)
        if not r.written:
            why = tuple(f.message for f in r.findings)
            notes.add("TSK-J009", "warning", "could not enter S5_JUDGE: " + "; ".join(why))
            return False, Transition(False, why)
        state = "S5_JUDGE"
    to = res.ruling.next_state if res.ruling else None
    if to is None:
        return False, Transition(False, ("PENDING: the task stays in S5_JUDGE until the judge "
                                         "can certify or route it",), state, None, state)
    plan = plan_transition(d, to, cfg, run=res.score_path)
    if not plan.ok:
        notes.add("TSK-J009", "warning", f"state transition S5_JUDGE -> {to} refused: "
                  + "; ".join(f.message for f in plan.findings if f.severity == "error"))
        return False, Transition(False, tuple(f.message for f in plan.findings), state, to,
                                 plan.to_state)
    return _moved(res, notes, written, to, plan.to_state)


def _moved(res: JudgeResult, notes: Notes, written: list[str], to: str,
           planned: str) -> tuple[bool, Transition]:
    """The move the plan allows: task.json first, then the state file."""
    from gavelkit.task.pipeline.state import transition

    status = "RETIRED" if planned == "RETIRED" else STATUS_OF.get(res.verdict, "BROKEN")
    write_task_json(res, status, written)
    r = transition(res.task.dir, to, f"judge: {res.verdict}; " + "; ".join(res.reasons)[:300],
                   date=res.date, run=res.score_path, config=res.loaded.config)
    if not r.written:
        notes.add("TSK-J009", "warning", f"state transition S5_JUDGE -> {to} refused: "
                  + "; ".join(f.message for f in r.findings))
    return r.written, Transition(r.written, tuple(f.message for f in r.findings), "S5_JUDGE",
                                 to, r.to_state)


def terminal_todos(res: JudgeResult, written: list[str]) -> list[str]:
    """QUALIFIED terminal todo: the CANDIDATES.md row; the MANIFEST caveat is the user's."""
    lp = res.task.paths.get("ledger")
    out = [_ledger_row(res, lp, written) if lp is not None else
           "CANDIDATES.md: no ledger found (task folder or its two parents): appending the "
           "QUALIFIED row is yours to do"]
    sat = res.metrics.saturation if res.metrics else {}
    if sat.get("applies"):
        out.append("MANIFEST caveats: add 'saturated-candidate-score + trivially-solved: "
                   "consistent with recall from training data' -- the MANIFEST is "
                   "written at graduation, by you; the judge does not write it")
    return out


def _ledger_row(res: JudgeResult, lp: Path, written: list[str]) -> str:
    """Append the QUALIFIED row to CANDIDATES.md, under its lock, unless one is there."""
    from gavelkit.core.textio import atomic_write, locked
    from gavelkit.task.formats.candidates import read_candidates, render_with_row
    from gavelkit.task.pipeline.digests import ledger_names

    with locked(lp):
        led, _ = read_candidates(lp)
        names = ledger_names(res.task)
        if led is None or not led.columns:
            return f"{lp}: not a readable ledger: the QUALIFIED row is yours to add"
        if any(r.status == "QUALIFIED" and r.matches(names) and "superseded_by" not in r.detail
               for r in led.rows):
            return f"{lp.name}: a QUALIFIED row for this task exists already"
        s = res.score.summary if res.score else {}
        atomic_write(lp, render_with_row(led, {
            "repo": res.task.id, "status": "QUALIFIED",
            "metric": f"{s.get('passed')}/{s.get('total')}",
            "detail": f"judge {res.date}; oracle {res.oracle_digest[:12]}"}))
    written.append(str(lp.name))
    return f"{lp.name}: QUALIFIED row appended"


def record(res: JudgeResult) -> dict[str, Any]:
    """judge/judge_result.json (judging/schema.py: its versioned JSON Schema)."""
    from gavelkit.task.judging.schema import SCHEMA_VERSION

    sc = res.fairness.spotcheck if res.fairness else None
    return {
        "schema_version": SCHEMA_VERSION,
        "verdict": res.verdict, "route": res.route, "reasons": res.reasons, "date": res.date,
        "order": res.steps,
        "checks": [c.to_dict() for c in res.checks],
        "judged_on": {"oracle_digest": res.oracle_digest,
                      "score_file": rel(res.task, res.score_path),
                      "score_sha256": sha(res.score_path)},
        "preflight": _preflight_record(res), "anti_cheat": _anticheat_record(res),
        "solvability": _solvability_record(res),
        "fairness_gates": fairness(res), "fairness_notes": fairness_notes(res),
        "standard": res.gates.standard if res.gates else None,
        "spotcheck": sc.to_dict() if sc else {}, "coverage_gap": res.coverage_caveat,
        **_scores_record(res), "labels": res.labels,
        "weaknesses": [w.to_dict() for w in res.weaknesses], "transition": res.transition,
        "terminal_todos": res.terminal, "findings": [f.to_dict() for f in res.findings],
    }


def _preflight_record(res: JudgeResult) -> dict[str, Any] | None:
    pre = res.preflight
    if pre is None:
        return None
    return {"available": pre.ran, "passed": pre.passed, "reason": pre.reason,
            "block": pre.block_text}


def _anticheat_record(res: JudgeResult) -> dict[str, Any] | None:
    ac = res.anticheat
    if ac is None:
        return None
    return {"verdict": ac.scan.verdict, "reason": ac.scan.reason,
            "findings": [f.to_dict() for f in ac.scan.findings], "run_tamper": ac.tamper}


def _solvability_record(res: JudgeResult) -> dict[str, Any]:
    solv = res.solvability
    return {"reference": solv.source if solv else "", "pass_rate": res.reference_rate,
            "diagnosis": solv.diagnosis_text if solv else []}


def _scores_record(res: JudgeResult) -> dict[str, Any]:
    """Score values only when they may be used (`scores_usable`)."""
    s, m = res.score, res.metrics
    usable = res.scores_usable and s is not None
    return {"scores_usable": res.scores_usable,
            "scores_withheld_because": res.scores_why or None,
            "candidate_score": score_record(s) if usable and s else None,
            "metrics": m.to_dict() if usable and m else None,
            "unverified_evidence": res.unverified.to_dict()
            if res.unverified and not res.scores_usable else None}


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

    results = [res.fairness.result(g) for g in "DEF"] if res.fairness else []
    return {f"gate-{r.gate}": gate_note(r) for r in results if r is not None and gate_note(r)}


def task_json_updates(res: JudgeResult, status: str) -> dict[str, Any]:
    """The judge's record in task.json: status with the verdict, labels of this run only."""
    upd: dict[str, Any] = {"status": status, "labels": [lab["label"] for lab in res.labels],
                           "judge": _judge_block(res)}
    if res.scores_usable and res.metrics is not None and res.score is not None:
        existing = res.task.task_json.data if res.task.task_json else {}
        upd["judge"]["failure_clusters"] = [c.to_dict() | {"tests": c.tests[:20]}
                                            for c in res.metrics.clusters][:30]
        upd |= _score_updates(res, existing)
    if res.verdict == Verdict.QUALIFIED:
        upd["weaknesses"] = [w.to_dict() for w in res.weaknesses]
    return upd


def _judge_block(res: JudgeResult) -> dict[str, Any]:
    out = {"verdict": res.verdict, "date": res.date, "report": REPORT,
           "route": res.route, "reasons": res.reasons,
           "state": res.ruling.next_state if res.ruling else None,
           "checks": {c.name: c.status for c in res.checks},
           "preflight_output": res.preflight.block_text if res.preflight else None,
           "anti_cheat": res.scan.verdict if res.scan else None,
           "reference_pass_rate": res.reference_rate,
           "fairness_gates": fairness(res), "fairness_notes": fairness_notes(res),
           "standard": res.fairness.standard.get("applied") if res.fairness else None,
           "score_result": rel(res.task, res.score_path)}
    if res.coverage_caveat:
        out["coverage_gap_caveat"] = res.coverage_caveat
    return out


def _score_updates(res: JudgeResult, existing: dict[str, Any]) -> dict[str, Any]:
    """task.json's candidate_score (the previous one moves to candidate_score_history) and
    the gap metrics, from a usable score."""
    s, m = res.score, res.metrics
    assert s is not None and m is not None  # the caller checked scores_usable
    new = {"run": rel(res.task, res.run_dir), "judged": res.date,
           "score_sha256": sha(res.score_path),
           "passed": s.summary.get("passed"), "total": s.summary.get("total"),
           "pass_rate": s.pass_rate, "by_layer": s.raw.get("by_layer")}
    out: dict[str, Any] = {"integration_gap": dict(m.integration_gap),
                           "true_gap_events": m.true_gap_events}
    prev = existing.get("candidate_score")
    if isinstance(prev, dict) and prev and prev.get("score_sha256") != new["score_sha256"]:
        hist = existing.get("candidate_score_history")
        out["candidate_score_history"] = [*(hist if isinstance(hist, list) else []), prev]
    return out | {"candidate_score": new}
