"""Render a RunStatus as full text, a compact table for agent context, or JSON."""

from __future__ import annotations

from typing import Any

from gavelkit.award.blocks.checks import fmt_num, fmt_vs
from gavelkit.award.runs.budget import RunStatus, budgets


def _loop_word(improved: bool | None) -> str:
    return "" if improved is None else (" improved" if improved else " NOT improved")


def to_dict(st: RunStatus) -> dict[str, Any]:
    caps = budgets()
    return {
        "run": str(st.run),
        "target": st.target.name if st.target else None,
        "target_source": st.target_source or None,
        "budgets": {"fix_loops": {"used": st.fix_loops_used, "cap": caps.run_fix_loops},
                    "panel_rounds": {"used": len(st.rounds), "cap": caps.panel_rounds},
                    "phase_evaluations_cap": caps.phase_fix_loops + 1},
        "phases": [_phase_dict(ph, info) for ph, info in sorted(st.phases.items())],
        "panel": [_round_dict(r) for r in st.rounds],
        "decisions": [d.to_dict() for d in st.decisions],
        "memos": st.memos,
        "next_action": _action_dict(st.action),
    }


def _phase_dict(ph: int, info: Any) -> dict[str, Any]:
    return {
        "phase": ph,
        "evaluations": len(info.loops),
        "loops": [{"loop": lp.loop, "verdict": lp.verdict, "path": lp.path,
                   "open_blocker_high": [o.to_dict() for o in lp.open],
                   "open_medium_low": [o.to_dict() for o in lp.other],
                   "count": lp.count, "improved": lp.improved} for lp in info.loops],
        "stalled": [{"id": k, "loops": v} for k, v in info.stalled.items()],
    }


def _round_dict(r: Any) -> dict[str, Any]:
    p = r.panel
    return {
        "round": r.round, "kind": r.kind, "redispatched": r.redispatched,
        "seats": {s: cf.path for s, cf in sorted(r.seats.items())},
        "min_total": r.min_total, "min_seat": r.min_seat, "improved": r.improved,
        "result": (("PASS" if p.passed else "FAIL") if p else None),
        "failed": p.failed if p else [],
        "conflicts": [c.to_dict() for c in p.conflicts] if p else [],
    }


def _action_dict(a: Any) -> dict[str, Any]:
    return {"action": a.kind, "phase": a.phase, "reason": a.reason, "items": a.items,
            "may_continue": a.may_continue,
            "under_decision": a.decision.to_dict() if a.decision else None}


def decision_lines(st: RunStatus) -> list[str]:
    """Recorded human decisions, and drafted memos still waiting for one."""
    out = [f"Decision: {d.describe()}" for d in st.decisions]
    for m in st.memos:
        if m["decision"] is None and not m["adjudications"]:
            out.append(f"Memo awaiting a human decision: {m['path']}")
    return out


def _phase_lines(st: RunStatus, caps: Any) -> list[str]:
    out = []
    for ph, info in sorted(st.phases.items()):
        out.append(f"Phase {ph}: {len(info.loops)}/{caps.phase_fix_loops + 1} evaluations")
        for lp in info.loops:
            ids = ", ".join(f"{o.id}({o.severity})" for o in lp.open) or "none open"
            out.append(f"  loop {lp.loop}: {lp.verdict or '?'}; blocker+high {lp.count} "
                       f"[{ids}]{_loop_word(lp.improved)}")
        for sid, loops in info.stalled.items():
            out.append(f"  stalled: {sid} recurred unchanged in loops "
                       f"{', '.join(map(str, loops))}")
    return out


def _round_head(r: Any) -> str:
    kind = f" (adjudication: seat {r.redispatched} re-dispatched)" if r.redispatched else ""
    bar = r.panel.target.threshold if r.panel else None
    mt = (f"min seat total {fmt_vs(r.min_total, bar)} (seat {r.min_seat})"
          if r.min_total is not None else "min total n/a")
    res = ("PASS" if r.panel.passed else "FAIL") if r.panel else "not evaluated"
    return f"Panel round {r.round}{kind}: {mt}{_loop_word(r.improved)}; {res}"


def _redispatch_outcome(st: RunStatus, r: Any) -> list[str]:
    """What became of the conflict the re-dispatched seat was the outlier of."""
    prev = next((p for p in st.rounds if p.round == r.round - 1 and p.panel), None)
    if prev is None:
        return []
    now = {x.criterion for x in (r.panel.conflicts if r.panel else [])}
    return [f"  conflict on {c.criterion!r} from round {prev.round}: "
            + ("persisted" if c.criterion in now else "resolved by the re-dispatch")
            for c in prev.panel.conflicts if c.outlier == r.redispatched]


def _round_lines(st: RunStatus) -> list[str]:
    out = []
    for r in st.rounds:
        out.append(_round_head(r))
        if r.panel:
            for c in r.panel.conflicts:
                state = f"adjudicated: {c.adjudicated}" if c.adjudicated else "OPEN"
                out.append(f"  conflict {c.describe()} [{state}]")
            out.extend(f"  - {m}" for m in r.panel.failed)
        if r.redispatched:
            out.extend(_redispatch_outcome(st, r))
    return out


def render_text(st: RunStatus) -> str:
    caps = budgets()
    out = [f"Run {st.run.name}  target: {st.target.name if st.target else 'unknown'}"
           + (f" (from {st.target_source})" if st.target_source else "")]
    out.append(f"Fix loops used: {st.fix_loops_used}/{caps.run_fix_loops}   Panel rounds: "
               f"{len(st.rounds)}/{caps.panel_rounds}")
    out += _phase_lines(st, caps) + _round_lines(st)
    out.extend(decision_lines(st))
    a = st.action
    where = f" phase {a.phase}" if a.phase is not None else ""
    out.append(f"NEXT: {a.kind}{where}: {a.reason}")
    out.extend(f"  - {it}" for it in a.items)
    return "\n".join(out)


def _round_row(r: Any) -> str:
    res = ("PASS" if r.panel.passed else "FAIL") if r.panel else "-"
    mt = fmt_num(r.min_total) if r.min_total is not None else "-"
    return f"panel r{r.round} {r.kind[:5]} min {mt} {res}"


def render_table(st: RunStatus) -> str:
    """A few fixed-width lines that fit an agent's context."""
    caps = budgets()
    rows = ["phase evals  last  open  stalled"]
    for ph, info in sorted(st.phases.items()):
        lp = info.loops[-1]
        rows.append(f"{ph:>5} {len(info.loops)}/{caps.phase_fix_loops + 1:<4} "
                    f"{(lp.verdict or '?'):<5} {lp.count:>4}  {','.join(info.stalled) or '-'}")
    rows += [_round_row(r) for r in st.rounds]
    rows.extend(f"decision p{d.phase} {'r' if d.panel else 'l'}{d.loop}: {d.choice} by {d.by}"
                for d in st.decisions)
    a = st.action
    rows.append(f"loops {st.fix_loops_used}/{caps.run_fix_loops} rounds "
                f"{len(st.rounds)}/{caps.panel_rounds} target "
                f"{st.target.name if st.target else '?'}")
    rows.append(f"NEXT {a.kind}" + (f" p{a.phase}" if a.phase is not None else "") + f": {a.reason}")
    return "\n".join(rows)
