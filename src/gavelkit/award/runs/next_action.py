"""The one next action of a run (seed §4), from its status: go on, fix, re-score,
adjudicate, repair the run files, or STOP for a human.

A STOP is lifted only by a human decision recorded in a decision memo (see
`decisions`); any error in the run files turns the action into `repair`, so status
never says "advance" while it exits 1.
"""

from __future__ import annotations

from gavelkit.award.blocks.checks import fmt_num
from gavelkit.award.panel.aggregate import Conflict
from gavelkit.award.runs.decisions import Decision, covering
from gavelkit.award.runs.runstate import Action, LoopInfo, RunStatus
from gavelkit.core.findings import Finding


def _overrun(status: RunStatus) -> Finding | None:
    for f in status.findings:
        if f.code in ("AWD-T006", "AWD-T008", "AWD-T009", "AWD-T010"):
            return f
    return None


MEMO_HINT = ("draft the decision memo with `gavel award status RUN_DIR --write-memo`; a human "
             "records `decision: {choice: rework | accept_risk | change_scope, by, rationale}` "
             "in it, and status lets the run go on")


def next_action(st: RunStatus, caps: dict[str, int]) -> Action:
    act = _next_action(st, caps)
    if act.kind == "STOP":
        waiting = [m["path"] for m in st.memos if m["decision"] is None
                   and not m["adjudications"] and (act.phase is None or m["phase"] == act.phase)]
        if "adjudication" in act.reason:
            pass
        elif waiting:
            act.items.append(f"a human records `decision: {{choice: rework | accept_risk | "
                             f"change_scope, by, rationale}}` in {waiting[-1]}; status then "
                             "lets the run go on")
        else:
            act.items.append(MEMO_HINT)
        return act
    errors = [f for f in st.findings if f.severity == "error"]
    if errors:
        return Action("repair", act.phase, f"{len(errors)} error(s) in the run files; fix them "
                      f"before going on (then: {act.kind}"
                      + (f" phase {act.phase}" if act.phase is not None else "") + ")",
                      [f"{f.code} {f.location()}: {f.message}" for f in errors[:8]])
    return act


def _stalled_items(last: LoopInfo) -> list[str]:
    return [f"{o.id} ({o.severity}, {o.owner}): {o.summary}" for o in last.open]


def _next_action(st: RunStatus, caps: dict[str, int]) -> Action:
    over = _overrun(st)
    if over is not None:
        return Action("STOP", None, f"budget overrun in the run files: {over.message}")
    if not st.phases:
        return Action("advance", 0, "no gate yet: run Phase 0 (intake) and its critic gate")
    cur = max(st.phases)
    info = st.phases[cur]
    last = info.loops[-1]
    failing = last.verdict != "pass" or bool(last.open)
    closed_by: Decision | None = None
    if failing:
        stop = None
        if last.improved is False:
            prev = info.loops[-2]
            stop = (f"phase {cur} loop {last.loop} did not improve: open blocker+high went "
                    f"{prev.count} -> {last.count}")
        elif last.loop >= caps["phase_fix_loops"]:
            stop = (f"phase {cur} used all {caps['phase_fix_loops'] + 1} evaluations and still "
                    "fails")
        elif st.fix_loops_used >= caps["run_fix_loops"]:
            stop = f"the run used all {caps['run_fix_loops']} fix loops"
        if stop is not None:
            dec = covering(st.decisions, cur, last.loop)
            if dec is None:
                return Action("STOP", cur, stop, _stalled_items(last))
            if dec.continues_phase:
                return Action("fix", cur, f"{stop}; run fix loop {last.loop + 1} for phase "
                              f"{cur} under the human decision: {dec.describe()}",
                              [f"{o.id} ({o.severity}) -> {o.owner}: {o.summary}"
                               for o in last.open], decision=dec)
            closed_by = dec
        else:
            items = [f"{o.id} ({o.severity}) -> {o.owner}: {o.summary}" for o in last.open]
            if not items:
                items = ["the gate failed without an open blocker/high issue: ask the critic why"]
            return Action("fix", cur, f"run fix loop {last.loop + 1} for phase {cur} "
                          f"(loop {last.loop} verdict {last.verdict})", items)
    why = (f"phase {cur} closed by the human decision: {closed_by.describe()}" if closed_by
           else f"phase {cur} gate passed at loop {last.loop}")
    if cur < caps["panel_phase"]:
        return Action("advance", cur + 1, why, decision=closed_by)
    if cur >= caps["last_phase"]:
        return Action("advance", None, f"{why}: the run is complete; submit the package",
                      decision=closed_by)
    return _panel_action(st, caps)


def _manifest_problem(st: RunStatus, ph: int, when: str) -> Action | None:
    """A stale manifest blocks the panel and phase 8; a missing one is said."""
    from gavelkit.award.runs.layout import layout
    from gavelkit.award.runs.manifest import check_manifest

    path = st.run / layout()["manifest"]
    if not path.is_file():
        if not any(f.code == "AWD-T019" for f in st.findings):
            st.findings.append(Finding("AWD-T019", "warning", "no package/manifest.md: the blind "
                                       "seats receive it with the PDF; compile it with `gavel "
                                       "award manifest RUN_DIR`", str(path)))
        return None
    stale = check_manifest(st.run)
    if not stale:
        return None
    st.findings.extend(stale)
    return Action("repair", ph, f"package/manifest.md is stale {when}: recompile it "
                  "(`gavel award manifest RUN_DIR`) and make sure the seats judged the current "
                  "package", [f"{f.code}: {f.message}" for f in stale[:8]])


def _panel_action(st: RunStatus, caps: dict[str, int]) -> Action:
    ph = caps["panel_phase"]
    if st.target is None:
        return Action("STOP", ph, "the target tier is unknown: pass --target or fill the "
                      "variant block's target_tier")
    if not st.rounds:
        stale = _manifest_problem(st, ph, "before the panel")
        if stale is not None:
            return stale
        return Action("advance", ph, "Phase 7 critic gate passed: dispatch the three blind "
                      "seats in one message (round 1); `gavel award briefs RUN_DIR` writes "
                      "their briefs")
    r = st.rounds[-1]
    if r.kind == "incomplete" or r.panel is None or not r.panel.evaluated:
        why = "; ".join(r.panel.failed) if r.panel else "cards missing or invalid"
        return Action("STOP", ph, f"panel round {r.round} cannot be evaluated ({why}); fix the "
                      "cards or decide by hand")
    p = r.panel
    if p.passed:
        stale = _manifest_problem(st, ph, "after the panel")
        if stale is not None:
            return stale
        return Action("advance", ph + 1, f"panel round {r.round} passes at {st.target.name} "
                      f"(minimum seat total {fmt_num(r.min_total or 0)})")
    used = r.round
    stop: Action | None = None
    if r.improved is False:
        prev = st.rounds[-2]
        stop = Action("STOP", ph, f"re-score round {r.round} did not raise the minimum seat "
                      f"total ({fmt_num(prev.min_total or 0)} -> {fmt_num(r.min_total or 0)})",
                      list(p.failed))
    open_conf = [c for c in p.conflicts if not c.adjudicated]
    if stop is None and open_conf:
        c = open_conf[0]
        if r.kind == "adjudication" and r.redispatched in {x.outlier for x in open_conf}:
            return Action("STOP", ph, f"the evidence conflict on {c.criterion!r} persisted after "
                          f"re-dispatching seat {r.redispatched}; record the lead's adjudication "
                          "(`adjudications: [{criterion, outcome}]`) in the Phase 7 "
                          "decision_memo", [x.describe() for x in open_conf])
        if used >= caps["panel_rounds"]:
            stop = Action("STOP", ph, f"all {caps['panel_rounds']} panel rounds are used and an "
                          "evidence conflict is open", [x.describe() for x in open_conf])
        elif c.outlier is None:
            return Action("STOP", ph, f"evidence conflict on {c.criterion!r} has no clear "
                          "outlier seat: the lead must decide which seat to re-dispatch",
                          [x.describe() for x in open_conf])
        else:
            return Action("adjudicate", ph, f"re-dispatch only seat {c.outlier} (round "
                          f"{used + 1}) with the evidence question on {c.criterion!r}; it counts "
                          "as a re-score round",
                          [x.describe() for x in open_conf] + [_question(c, used + 1)])
    if stop is None and used >= caps["panel_rounds"]:
        stop = Action("STOP", ph, f"all {caps['panel_rounds']} panel rounds are used and the "
                      f"panel fails at {st.target.name}", list(p.failed))
    if stop is not None:
        dec = covering(st.decisions, ph, r.round, panel=True)
        if dec is None:
            return stop
        if not dec.continues_phase:
            return Action("advance", ph + 1, f"{stop.reason}; phase {ph} closed by the human "
                          f"decision: {dec.describe()}", list(p.failed), decision=dec)
        return Action("rescore", ph, f"{stop.reason}; re-score all three seats (round "
                      f"{used + 1}) under the human decision: {dec.describe()}",
                      list(p.failed), decision=dec)
    fixes = []
    for s, cf in sorted(r.seats.items()):
        thing = cf.block.body.get("fix_one_thing") if cf.block is not None else None
        fixes.append(f"seat {s}: {thing}")
    return Action("rescore", ph, f"panel round {r.round} fails at {st.target.name}; address the "
                  f"seats' fix_one_thing, then re-score all three seats (round {used + 1})",
                  fixes + [f"failed: {m}" for m in p.failed])


def _question(c: Conflict, round_: int) -> str:
    """The outlier's evidence question: about its own cited evidence, never another seat's
    score (seed §6: seats see no other seat's scorecard)."""
    return (f"evidence question for seat {c.outlier} on {c.criterion!r}: which artifact "
            f"evidence (page, section, figure, table or file) supports your {c.criterion!r} "
            "score? Re-check it against the paper and re-score. Write the one-seat brief with "
            f"`gavel award briefs RUN_DIR --round {round_} --question '<your question>'`")
