"""Draft the decision_memo a STOP calls for, so the human gets a complete, lint-clean memo.

The draft states the phase, the budget spent, every unresolved issue with its
severity, and 2-3 options with consequences and exactly one recommendation. The
recommendation follows the severity ladder (seed §2): with an open blocker or high,
rework; with only medium or low left, accept the residual risk and advance. Phase 7
counts re-scores, as the seed's example does. The human's choice goes into `decision:`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gavelkit.award.runs.budget import RunStatus, budgets


def draft(st: RunStatus) -> dict[str, Any]:
    caps = budgets()
    act = st.action
    phase = act.phase if act.phase is not None else max(st.phases, default=0)
    unresolved: list[dict[str, Any]] = []
    panel = phase == caps.panel_phase and bool(st.rounds)
    if panel:
        r = st.rounds[-1]
        # seed §4/§1 example: Phase 7 counts re-scores (round 1 is not one) against a cap of 2
        loops, cap = r.round - 1, caps.panel_rounds - 1
        stopped = {"phase": phase, "round": r.round}
        if r.panel is not None:
            for i, msg in enumerate(r.panel.failed, 1):
                unresolved.append({"id": f"panel-{r.round}-{i}", "severity": "high",
                                   "summary": msg})
        last = st.phases.get(phase)
        if last:
            unresolved += [o.to_dict() for o in last.loops[-1].open]
    else:
        info = st.phases.get(phase)
        if "fix loops" in act.reason and "run" in act.reason:
            loops, cap = min(st.fix_loops_used, caps.run_fix_loops), caps.run_fix_loops
        else:
            loops = info.fix_loops if info else 0
            cap = caps.phase_fix_loops
        stopped = {"phase": phase, "loop": info.loops[-1].loop if info else 0}
        if info:
            unresolved = [o.to_dict() for o in info.loops[-1].open]
            unresolved += [o.to_dict() for o in info.loops[-1].other]
    loops = min(loops, cap)
    # seed §2: no blocker or high may remain before advancing, so accepting the risk is
    # recommended only when what is left is medium or low
    serious = any(u.get("severity") in ("blocker", "high") for u in unresolved)
    options = [
        {"option": "rework: route the phase back to its owner with a different approach "
                   "(not another pass of the same fix)", "consequence": "costs time against the "
                   "deadline; only worthwhile if the new approach addresses the stalled ids",
         "recommended": serious},
        {"option": "accept_risk: accept the residual risk and advance, recording it in the "
                   "paper's weaknesses", "consequence": "keeps the schedule; the open issues "
                   "may cost award level" + ("; not allowed while a blocker or high is open "
                                             "(seed §2) unless a human overrides it"
                                             if serious else ""),
         "recommended": not serious},
        {"option": "change_scope: narrow what the phase must deliver (or the target) and "
                   "re-gate it", "consequence": "changes the contest plan; record what is "
                   "dropped and why", "recommended": False},
    ]
    return {"decision_memo": {"phase": phase, "budget_spent": {"loops": loops, "cap": cap},
                              "stopped_at": stopped, "reason": act.reason,
                              "unresolved": unresolved, "options": options}}


def write_draft(st: RunStatus, dest: Path | None = None) -> Path:
    """Write the draft under phase-logs/ without overwriting an earlier memo."""
    import yaml

    from gavelkit.core.textio import atomic_write

    doc = draft(st)
    phase = doc["decision_memo"]["phase"]
    if dest is None:
        base = st.run / "phase-logs" / f"phase{phase}-decision-memo"
        dest = base.with_suffix(".md")
        n = 2
        while dest.exists():
            dest = base.parent / f"{base.name}-{n}.md"
            n += 1
    body = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
    text = (f"# Decision memo (draft) — phase {phase}\n\n{st.action.reason}\n\n"
            "The run stays at STOP until a human decides. Edit the options if needed, then "
            "record the decision in the block:\n\n"
            "    decision: {choice: rework | accept_risk | change_scope, by: <who>, "
            "rationale: <why>}\n\n"
            f"`gavel award lint memo {dest.name}` checks the block; `gavel award status` then "
            f"lets the run go on.\n\n```yaml\n{body}```\n")
    atomic_write(dest, text)
    return dest
