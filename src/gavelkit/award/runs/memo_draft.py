"""Draft the decision_memo a STOP calls for, so the human gets a complete, lint-clean memo.

The draft states the phase, the budget spent, every unresolved issue with its
severity, and 2-3 options with consequences and exactly one recommendation. The
recommendation rule is deliberately plain: with an open blocker, rework; otherwise
accept the residual risk and advance.
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
    if phase == caps["panel_phase"] and st.rounds:
        r = st.rounds[-1]
        loops, cap = r.round, caps["panel_rounds"]
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
            loops, cap = min(st.fix_loops_used, caps["run_fix_loops"]), caps["run_fix_loops"]
        else:
            loops = info.fix_loops if info else 0
            cap = caps["phase_fix_loops"]
        if info:
            unresolved = [o.to_dict() for o in info.loops[-1].open]
            unresolved += [o.to_dict() for o in info.loops[-1].other]
    loops = min(loops, cap)
    blocker = any(u.get("severity") == "blocker" for u in unresolved)
    options = [
        {"option": "accept the residual risk and advance, recording it in the paper's "
                   "weaknesses", "consequence": "keeps the schedule; the open issues may cost "
                   "award level", "recommended": not blocker},
        {"option": "rework: route the phase back to its owner with a different approach "
                   "(not another pass of the same fix)", "consequence": "costs time against the "
                   "deadline; only worthwhile if the new approach addresses the stalled ids",
         "recommended": blocker},
        {"option": "grant one extra loop as a human override of the budget",
         "consequence": "breaks the seed's budget; justify it in this memo", "recommended": False},
    ]
    return {"decision_memo": {"phase": phase, "budget_spent": {"loops": loops, "cap": cap},
                              "reason": act.reason, "unresolved": unresolved,
                              "options": options}}


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
            f"Edit the options before a human decides; `gavel award lint memo {dest.name}` "
            f"checks the block.\n\n```yaml\n{body}```\n")
    atomic_write(dest, text)
    return dest
