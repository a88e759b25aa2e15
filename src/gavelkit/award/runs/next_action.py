"""The one next action of a run (seed §4), from its status: go on, fix, re-score,
adjudicate, repair the run files, or STOP for a human.

A STOP is lifted only by a human decision recorded in a decision memo (see
`decisions`); any error in the run files turns the action into `repair`, so status
never says "advance" while it exits 1. Phase 7 is decided by the panel's own files
(seed §3, §4): round-1 cards are read as soon as phase 6 has passed, whether or not
the critic gated its own Phase-7 audit. After the last panel round no re-score is left,
so a decision there can only accept, change the scope (the target) or stop.
"""

from __future__ import annotations

from gavelkit.award.blocks.checks import fmt_num
from gavelkit.award.panel.aggregate import Conflict
from gavelkit.award.runs.decisions import Decision, covering
from gavelkit.award.runs.runstate import Action, LoopInfo, RoundInfo, RunStatus
from gavelkit.award.tables import Budgets
from gavelkit.core.findings import Finding

ALL_CHOICES = "rework | accept_risk | change_scope | stop"
PANEL_END_CHOICES = "accept_risk | change_scope | stop"


def _overrun(status: RunStatus) -> Finding | None:
    for f in status.findings:
        if f.code in ("AWD-T006", "AWD-T008", "AWD-T009", "AWD-T010"):
            return f
    return None


def _run_arg(st: RunStatus) -> str:
    """The run folder as the user can paste it into the next command."""
    return str(st.run)


def memo_hint(st: RunStatus, choices: str = ALL_CHOICES) -> str:
    return (f"draft the decision memo with `gavel award status {_run_arg(st)} --write-memo`; a "
            f"human records `decision: {{choice: {choices}, by, rationale}}` in it, and status "
            "follows it")


def next_action(st: RunStatus, caps: Budgets) -> Action:
    act = _next_action(st, caps)
    if act.kind == "STOP":
        _point_to_memo(st, act)
        return act
    errors = [f for f in st.findings if f.severity == "error"]
    if errors and act.kind != "repair":
        return Action("repair", act.phase, f"{len(errors)} error(s) in the run files; fix them "
                      f"before going on (then: {act.kind}"
                      + (f" phase {act.phase}" if act.phase is not None else "") + ")",
                      [f"{f.code} {f.location()}: {f.message}" for f in errors[:8]])
    return act


def _point_to_memo(st: RunStatus, act: Action) -> None:
    """Say where the human decision goes (not for a run a human already stopped)."""
    if act.awaits != "decision" or (act.decision and act.decision.choice == "stop"):
        return
    choices = PANEL_END_CHOICES if act.final_round else ALL_CHOICES
    waiting = [m["path"] for m in st.memos if m["decision"] is None
               and not m["adjudications"] and (act.phase is None or m["phase"] == act.phase)]
    if waiting:
        act.items.append(f"a human records `decision: {{choice: {choices}, by, rationale}}` "
                         f"in {waiting[-1]}; status then follows it")
    else:
        act.items.append(memo_hint(st, choices))


def _stalled_items(last: LoopInfo) -> list[str]:
    return [f"{o.id} ({o.severity}, {o.owner}): {o.summary}" for o in last.open]


def _gate_stop(st: RunStatus, caps: Budgets, cur: int) -> str | None:
    """Why the failing gate of phase `cur` stops the run, or None (another fix loop)."""
    info = st.phases[cur]
    last = info.loops[-1]
    if last.improved is False:
        prev = info.loops[-2]
        return (f"phase {cur} loop {last.loop} did not improve: open blocker+high went "
                f"{prev.count} -> {last.count}")
    if last.loop >= caps.phase_fix_loops:
        return f"phase {cur} used all {caps.phase_fix_loops + 1} evaluations and still fails"
    if st.fix_loops_used >= caps.run_fix_loops:
        return f"the run used all {caps.run_fix_loops} fix loops"
    return None


def _failing_gate(st: RunStatus, caps: Budgets, cur: int) -> Action | Decision:
    """The action for a failing gate, or the decision that closed the phase anyway."""
    last = st.phases[cur].loops[-1]
    items = [f"{o.id} ({o.severity}) -> {o.owner}: {o.summary}" for o in last.open]
    stop = _gate_stop(st, caps, cur)
    if stop is None:
        return Action("fix", cur, f"run fix loop {last.loop + 1} for phase {cur} "
                      f"(loop {last.loop} verdict {last.verdict})",
                      items or ["the gate failed without an open blocker/high issue: ask the "
                                "critic why"])
    dec = covering(st.decisions, cur, last.loop)
    if dec is None:
        return Action("STOP", cur, stop, _stalled_items(last))
    if dec.choice == "stop":
        return Action("STOP", cur, f"{stop}; the run was stopped by the human decision: "
                      f"{dec.describe()}", decision=dec)
    if dec.continues_phase:
        return Action("fix", cur, f"{stop}; run fix loop {last.loop + 1} for phase {cur} under "
                      f"the human decision: {dec.describe()}", items, decision=dec)
    return dec


def _next_action(st: RunStatus, caps: Budgets) -> Action:
    over = _overrun(st)
    if over is not None:
        return Action("STOP", None, f"budget overrun in the run files: {over.message}")
    if not st.phases:
        return Action("advance", 0, "no gate yet: run Phase 0 (intake) and its critic gate")
    cur = max(st.phases)
    last = st.phases[cur].loops[-1]
    closed_by: Decision | None = None
    if last.verdict != "pass" or last.open:
        got = _failing_gate(st, caps, cur)
        if isinstance(got, Action):
            return got
        closed_by = got
    why = (f"phase {cur} closed by the human decision: {closed_by.describe()}" if closed_by
           else f"phase {cur} gate passed at loop {last.loop}")
    ph = caps.panel_phase
    if cur < ph - 1:
        return Action("advance", cur + 1, why, decision=closed_by)
    if cur >= caps.last_phase:
        return Action("advance", None, f"{why}: the run is complete; submit the package",
                      decision=closed_by)
    return _panel_action(st, caps, why)


def _manifest_problem(st: RunStatus, ph: int, when: str) -> Action | None:
    """A stale manifest blocks every round's briefs and phase 8; a missing one is said."""
    from gavelkit.award.runs.layout import layout
    from gavelkit.award.runs.manifest import check_manifest

    path = st.run / layout()["manifest"]
    if not path.is_file():
        if not any(f.code == "AWD-T019" for f in st.findings):
            st.findings.append(Finding("AWD-T019", "warning", "no package/manifest.md: the blind "
                                       "seats receive it with the PDF; compile it with `gavel "
                                       f"award manifest {_run_arg(st)}`", str(path)))
        return None
    found = check_manifest(st.run)
    st.findings.extend(found)
    stale = [f for f in found if f.severity == "error"]
    if not stale:
        return None
    return Action("repair", ph, f"package/manifest.md is stale {when}: recompile it "
                  f"(`gavel award manifest {_run_arg(st)}`) and make sure the seats judge the "
                  "current package", [f"{f.code}: {f.message}" for f in stale[:8]])


def _dispatch(st: RunStatus, ph: int, why: str) -> Action:
    stale = _manifest_problem(st, ph, "before round 1's briefs")
    if stale is not None:
        return stale
    note = ("" if st.target is not None else "; set the target tier (variant target_tier or "
            "--target) before the cards are aggregated")
    return Action("advance", ph, f"{why}: Phase 7 — dispatch the three blind seats in one "
                  f"message (round 1); `gavel award briefs {_run_arg(st)}` writes their "
                  f"briefs{note}")


def _unusable_round(st: RunStatus, r: RoundInfo, ph: int) -> Action | None:
    """A round whose cards do not lint is a repair of those cards, never a budget STOP."""
    bad = {s: cf for s, cf in sorted(r.seats.items()) if not cf.valid or cf.card is None}
    if r.kind != "incomplete" and bad:
        names = ", ".join(f"seat {s} ({cf.path})" for s, cf in bad.items())
        errs = [f"{f.code} {f.location()}: {f.message}" for f in st.findings
                if f.severity == "error" and f.path in {cf.path for cf in bad.values()}]
        return Action("repair", ph, f"panel round {r.round} cannot be evaluated until the card "
                      f"of {names} lints clean: have the seat correct that card (an error in a "
                      "card is a repair of the card, not a re-score round)", errs[:8])
    if r.kind == "incomplete" or r.panel is None or not r.panel.evaluated:
        why = "; ".join(r.panel.failed) if r.panel else "cards missing or invalid"
        return Action("STOP", ph, f"panel round {r.round} cannot be evaluated ({why}); fix the "
                      "cards or decide by hand")
    return None


def _panel_action(st: RunStatus, caps: Budgets, why: str) -> Action:
    ph = caps.panel_phase
    if not st.rounds:
        return _dispatch(st, ph, why)
    if st.target is None:
        return Action("STOP", ph, "the target tier is unknown: pass --target or fill the "
                      "variant block's target_tier")
    r = st.rounds[-1]
    bad = _unusable_round(st, r, ph)
    if bad is not None:
        return bad
    if r.panel is not None and r.panel.passed:
        return _manifest_problem(st, ph, "before Phase 8") or Action(
            "advance", ph + 1, f"panel round {r.round} passes at {st.target.name} "
            f"(minimum seat total {fmt_num(r.min_total or 0)})")
    act = _panel_failing(st, r, caps)
    if act.kind == "STOP" and act.awaits == "decision":
        return _under_decision(st, act, r, caps)
    return _before_briefs(st, act, r)


def _before_briefs(st: RunStatus, act: Action, r: RoundInfo) -> Action:
    """A re-score or re-dispatch sends the package again: the manifest must be current."""
    if act.kind in ("rescore", "adjudicate"):
        stale = _manifest_problem(st, act.phase or 0, f"before round {r.round + 1}'s briefs")
        if stale is not None:
            return stale
    return act


def _panel_failing(st: RunStatus, r: RoundInfo, caps: Budgets) -> Action:
    """What a failing round asks for, before any human decision is applied."""
    ph, used, p = caps.panel_phase, r.round, r.panel
    assert p is not None and st.target is not None
    final = used >= caps.panel_rounds
    if r.improved is False:
        prev = st.rounds[-2]
        return Action("STOP", ph, f"re-score round {r.round} did not raise the minimum seat "
                      f"total ({fmt_num(prev.min_total or 0)} -> {fmt_num(r.min_total or 0)})",
                      list(p.failed), final_round=final)
    open_conf = [c for c in p.conflicts if not c.adjudicated]
    if open_conf:
        return _conflict_action(_run_arg(st), r, open_conf, ph, final)
    if final:
        return Action("STOP", ph, f"all {caps.panel_rounds} panel rounds are used and the "
                      f"panel fails at {st.target.name}", list(p.failed), final_round=True)
    fixes = [f"seat {s}: {cf.block.body.get('fix_one_thing') if cf.block else None}"
             for s, cf in sorted(r.seats.items())]
    return Action("rescore", ph, f"panel round {r.round} fails at {st.target.name}; address the "
                  f"seats' fix_one_thing, then re-score all three seats (round {used + 1})",
                  fixes + [f"failed: {m}" for m in p.failed])


def _conflict_action(run: str, r: RoundInfo, open_conf: list[Conflict], ph: int,
                     final: bool) -> Action:
    c = open_conf[0]
    described = [x.describe() for x in open_conf]
    if r.kind == "adjudication" and r.redispatched in {x.outlier for x in open_conf}:
        return Action("STOP", ph, f"the evidence conflict on {c.criterion!r} persisted after "
                      f"re-dispatching seat {r.redispatched}; record the lead's adjudication "
                      "(`adjudications: [{criterion, outcome}]`) in the Phase 7 decision_memo",
                      described, awaits="adjudication")
    if final:
        return Action("STOP", ph, f"all {r.round} panel rounds are used and an evidence "
                      "conflict is open", described, final_round=True)
    if c.outlier is None:
        return Action("STOP", ph, f"evidence conflict on {c.criterion!r} has no clear outlier "
                      "seat: the lead must decide which seat to re-dispatch", described)
    return Action("adjudicate", ph, f"re-dispatch only seat {c.outlier} (round {r.round + 1}) "
                  f"with the evidence question on {c.criterion!r}; it counts as a re-score "
                  "round", [*described, _question(run, c, r.round + 1)])


def _under_decision(st: RunStatus, stop: Action, r: RoundInfo, caps: Budgets) -> Action:
    """Follow the human decision recorded for a panel STOP, never past the round cap."""
    ph = caps.panel_phase
    dec = covering(st.decisions, ph, r.round, panel=True)
    if dec is None:
        return stop
    failed = stop.items
    if dec.choice == "stop":
        return Action("STOP", ph, f"{stop.reason}; the run was stopped by the human decision: "
                      f"{dec.describe()}", failed, decision=dec)
    if dec.choice == "accept_risk":
        return _manifest_problem(st, ph, "before Phase 8") or Action(
            "advance", ph + 1, f"{stop.reason}; phase {ph} closed by the human decision: "
            f"{dec.describe()}", failed, decision=dec)
    if not stop.final_round:
        return _before_briefs(st, Action(
            "rescore", ph, f"{stop.reason}; re-score all three seats (round {r.round + 1}) "
            f"under the human decision: {dec.describe()}", failed, decision=dec), r)
    if dec.choice == "rework":
        why = (f"the human decision asks for rework, which needs a re-score, and all "
               f"{caps.panel_rounds} panel rounds are used (seed §4): record "
               f"accept_risk, change_scope (with the new `target:`) or stop instead")
    else:
        target = st.target.name if st.target else "?"
        why = (f"the change_scope decision leaves the round-{r.round} panel failing at "
               f"{target}, and no re-score is left: name the tier the run now aims at in the "
               "decision (`target: meritorious`), or record accept_risk or stop")
    return Action("STOP", ph, f"{stop.reason}; {why} ({dec.path}:{dec.line})", failed,
                  final_round=True)


def _question(run: str, c: Conflict, round_: int) -> str:
    """The outlier's evidence question: about its own cited evidence, never another seat's
    score (seed §6: seats see no other seat's scorecard)."""
    return (f"evidence question for seat {c.outlier} on {c.criterion!r}: which artifact "
            f"evidence (page, section, figure, table or file) supports your {c.criterion!r} "
            "score? Re-check it against the paper and re-score. Write the one-seat brief with "
            f"`gavel award briefs {run} --round {round_} --question '<your question>'`")
