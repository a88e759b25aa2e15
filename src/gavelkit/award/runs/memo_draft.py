"""Draft the decision_memo a STOP calls for, so the human gets a complete, lint-clean memo.

The draft states the phase, the budget spent, every unresolved issue with its
severity, and 2-3 options with consequences and exactly one recommendation. It offers
only options that can be carried out: after the last panel round no re-score is left
(seed §4), so the options there are to accept, to change the scope (the target) or to
stop. It never recommends advancing past an open blocker or high (seed §2). Phase 7
counts re-scores, as the seed's example does. The human's choice goes into `decision:`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gavelkit.award.runs.budget import RoundInfo, RunStatus, budgets
from gavelkit.award.tables import Budgets, Tables, load_tables

REWORK = {"option": "rework: route the phase back to its owner with a different approach "
                    "(not another pass of the same fix)",
          "consequence": "costs time against the deadline; only worthwhile if the new approach "
                         "addresses the stalled ids"}
CHANGE_SCOPE = {"option": "change_scope: narrow what the phase must deliver (or the target) and "
                          "re-gate it",
                "consequence": "changes the contest plan; record what is dropped and why"}


def _accept(open_ids: list[str], panel: bool) -> dict[str, Any]:
    what = ("submit at the level the panel supports" if panel
            else "advance, recording it in the paper's weaknesses")
    named = f"; leaves open: {', '.join(open_ids)}" if open_ids else ""
    return {"option": f"accept_risk: accept the residual risk and {what}",
            "consequence": "keeps the schedule; the open issues may cost award level" + named}


def _serious(unresolved: list[dict[str, Any]]) -> list[str]:
    from gavelkit.award.tables import open_blocking

    return [str(u.get("id")) for u in unresolved if u.get("severity") in open_blocking()]


def _gate_part(st: RunStatus, phase: int, caps: Budgets) -> dict[str, Any]:
    info = st.phases.get(phase)
    act = st.action
    if "fix loops" in act.reason and "run" in act.reason:
        loops, cap = min(st.fix_loops_used, caps.run_fix_loops), caps.run_fix_loops
    else:
        loops, cap = (info.fix_loops if info else 0), caps.phase_fix_loops
    unresolved = []
    if info:
        unresolved = [o.to_dict() for o in info.loops[-1].open + info.loops[-1].other]
    serious = _serious(unresolved)
    options = [dict(REWORK, recommended=bool(serious)),
               dict(_accept(serious, False), recommended=not serious),
               dict(CHANGE_SCOPE, recommended=False)]
    return {"budget_spent": {"loops": min(loops, cap), "cap": cap},
            "stopped_at": {"phase": phase, "loop": info.loops[-1].loop if info else 0},
            "unresolved": unresolved, "options": options}


def _lower_pass(st: RunStatus, r: RoundInfo, tables: Tables) -> str | None:
    """The highest tier below the target at which round `r` would pass, if any."""
    from gavelkit.award.panel.aggregate import PanelResult, evaluate

    if r.panel is None or st.target is None or any(not c.adjudicated for c in r.panel.conflicts):
        return None
    for tier in sorted(tables.tiers.values(), key=lambda t: -t.rank):
        if tier.threshold is None or tier.rank >= st.target.rank:
            continue
        res = PanelResult(tier)
        res.seats = list(r.panel.seats)
        done = {c.criterion: c.adjudicated for c in r.panel.conflicts if c.adjudicated}
        evaluate(res, tables, adjudication_round=r.kind == "adjudication", adjudicated=done)
        if res.passed:
            return tier.name
    return None


def _panel_part(st: RunStatus, phase: int, caps: Budgets, tables: Tables) -> dict[str, Any]:
    r = st.rounds[-1]
    unresolved: list[dict[str, Any]] = [
        {"id": f"panel-{r.round}-{i}", "severity": "high", "summary": msg}
        for i, msg in enumerate(r.panel.failed if r.panel else [], 1)]
    last = st.phases.get(phase)
    if last:
        unresolved += [o.to_dict() for o in last.loops[-1].open]
    serious = _serious(unresolved)
    final = r.round >= caps.panel_rounds
    lower = _lower_pass(st, r, tables)
    options: list[dict[str, Any]] = []
    if not final:
        options.append(dict(REWORK, option="rework: revise the paper where the seats' "
                            f"fix_one_thing points, then re-score all three seats (round "
                            f"{r.round + 1})", recommended=bool(serious)))
    options.append(dict(_accept(serious, True), recommended=not serious))
    if lower is not None:
        scope = {"option": f"change_scope: aim at {lower} instead (record `target: {lower}` in "
                           f"the decision); the round-{r.round} panel clears it",
                 "consequence": f"the run is judged against {lower}; nothing is re-scored"}
    else:
        scope = {"option": "change_scope: narrow the claims or the target (record the new "
                           "`target:` in the decision)",
                 "consequence": "the last round is judged against the new target; nothing is "
                                "re-scored" if final else "the next round is judged against it"}
    options.append(dict(scope, recommended=bool(serious) and final and lower is not None))
    if final:
        options.append({"option": "stop: end the run here; the team decides by hand whether "
                                  "and what to hand in",
                        "consequence": "nothing more is gated or re-scored",
                        "recommended": bool(serious) and lower is None})
    # seed §1/§4 example: Phase 7 counts re-scores (round 1 is not one) against a cap of 2
    return {"budget_spent": {"loops": min(r.round - 1, caps.panel_rounds - 1),
                             "cap": caps.panel_rounds - 1},
            "stopped_at": {"phase": phase, "round": r.round},
            "unresolved": unresolved, "options": options}


def draft(st: RunStatus, tables: Tables | None = None) -> dict[str, Any]:
    caps = budgets()
    act = st.action
    phase = act.phase if act.phase is not None else max(st.phases, default=0)
    if phase == caps.panel_phase and st.rounds:
        part = _panel_part(st, phase, caps, tables or load_tables())
    else:
        part = _gate_part(st, phase, caps)
    return {"decision_memo": {"phase": phase, "budget_spent": part["budget_spent"],
                              "stopped_at": part["stopped_at"], "reason": act.reason,
                              "unresolved": part["unresolved"], "options": part["options"]}}


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
    choices = " | ".join(o["option"].split(":", 1)[0] for o in doc["decision_memo"]["options"])
    body = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
    text = (f"# Decision memo (draft) — phase {phase}\n\n{st.action.reason}\n\n"
            "The run stays at STOP until a human decides. Edit the options if needed, then "
            "record the decision in the block:\n\n"
            f"    decision: {{choice: {choices}, by: <who>, rationale: <why>}}\n\n"
            f"`gavel award lint memo {dest.name}` checks the block; `gavel award status` then "
            f"follows the decision.\n\n```yaml\n{body}```\n")
    atomic_write(dest, text)
    return dest
