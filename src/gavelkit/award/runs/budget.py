"""Budgets, stall detection and the next action of a run (seed §4), from its files alone.

The lead used to count loops from memory. Here every count comes from the gate and
scorecard files: evaluations per phase (at most 3), fix loops across the run (at most
8, panel re-scores excluded), panel rounds (at most 3), whether each loop improved
(open blocker+high strictly fewer, matched by stable id) and whether each re-score
improved (minimum recomputed seat total strictly higher). A file beyond a budget is
an error: the run never continues silently.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.award.blocks.checks import fmt_num
from gavelkit.award.panel.aggregate import Conflict, PanelResult, Seat, evaluate
from gavelkit.award.runs.runfiles import CardFile, GateFile, RunFiles, read_run
from gavelkit.award.tables import Tables, Tier, load_tables
from gavelkit.core.errors import UsageError
from gavelkit.core.findings import Finding

EPS = 1e-9


@functools.cache
def budgets() -> dict[str, int]:
    import yaml

    from gavelkit.data import path

    return yaml.safe_load(path("award", "budgets.yaml").read_text(encoding="utf-8"))


@dataclass
class OpenIssue:
    id: str
    severity: str
    summary: str
    owner: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "severity": self.severity, "summary": self.summary,
                "owner": self.owner}


@dataclass
class LoopInfo:
    loop: int
    path: str
    verdict: str | None
    open: list[OpenIssue]
    improved: bool | None = None
    other: list[OpenIssue] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.open)


@dataclass
class PhaseInfo:
    phase: int
    loops: list[LoopInfo] = field(default_factory=list)
    stalled: dict[str, list[int]] = field(default_factory=dict)

    @property
    def fix_loops(self) -> int:
        return max((lp.loop for lp in self.loops), default=0)


@dataclass
class RoundInfo:
    round: int
    kind: str  # full | adjudication | incomplete
    seats: dict[str, CardFile]
    panel: PanelResult | None = None
    min_total: float | None = None
    min_seat: str | None = None
    improved: bool | None = None
    redispatched: str | None = None


@dataclass
class Action:
    kind: str  # advance | fix | rescore | adjudicate | STOP
    phase: int | None
    reason: str
    items: list[str] = field(default_factory=list)
    memo: dict[str, Any] | None = None

    @property
    def may_continue(self) -> bool:
        return self.kind != "STOP"


@dataclass
class RunStatus:
    run: Path
    target: Tier | None
    target_source: str
    phases: dict[int, PhaseInfo]
    rounds: list[RoundInfo]
    fix_loops_used: int
    findings: list[Finding]
    action: Action


def _issues(gf: GateFile) -> tuple[list[OpenIssue], list[OpenIssue]]:
    blocking, other = [], []
    issues = gf.block.body.get("issues") if gf.block is not None else None
    for i, it in enumerate(issues if isinstance(issues, list) else []):
        if not isinstance(it, dict):
            continue
        oi = OpenIssue(str(it.get("id") or f"issues[{i}]"), str(it.get("severity")),
                       str(it.get("summary") or ""), str(it.get("owner") or "?"))
        (blocking if it.get("severity") in ("blocker", "high") else other).append(oi)
    return blocking, other


def _phases(rf: RunFiles, caps: dict[str, int], findings: list[Finding]) -> dict[int, PhaseInfo]:
    phases: dict[int, PhaseInfo] = {}
    by_key: dict[tuple[int, int], GateFile] = {}
    for gf in rf.gates:
        key = (gf.phase, gf.loop)
        if key in by_key:
            findings.append(Finding("AWD-T003", "error", f"two files for phase {gf.phase} loop "
                                    f"{gf.loop}: {by_key[key].path} and {gf.path}", gf.path))
            continue
        by_key[key] = gf
    for (ph, lp), gf in sorted(by_key.items()):
        info = phases.setdefault(ph, PhaseInfo(ph))
        blocking, other = _issues(gf)
        verdict = gf.block.body.get("verdict") if gf.block is not None else None
        info.loops.append(LoopInfo(lp, gf.path, verdict if isinstance(verdict, str) else None,
                                   blocking, other=other))
        if lp > caps["phase_fix_loops"]:
            findings.append(Finding("AWD-T008", "error", f"phase {ph} has a loop-{lp} gate: "
                                    f"beyond {caps['phase_fix_loops'] + 1} evaluations "
                                    "(loop 0 plus two fix loops); the run went past its budget",
                                    gf.path))
    for info in phases.values():
        loops = [lp.loop for lp in info.loops]
        missing = sorted(set(range(max(loops) + 1)) - set(loops))
        if missing:
            findings.append(Finding("AWD-T011", "warning", f"phase {info.phase} has no gate for "
                                    f"loop(s) {', '.join(map(str, missing))}",
                                    info.loops[-1].path))
        prev: LoopInfo | None = None
        for cur in info.loops:
            if prev is not None and cur.loop == prev.loop + 1:
                cur.improved = cur.count < prev.count
                if prev.improved is False:
                    findings.append(Finding("AWD-T010", "error", f"phase {info.phase} loop "
                                            f"{cur.loop} ran after loop {prev.loop} failed to "
                                            "improve; the seed says stop for a human instead",
                                            cur.path))
                for oi in cur.open:
                    if any(p.id == oi.id for p in prev.open):
                        seen = info.stalled.setdefault(oi.id, [prev.loop])
                        if prev.loop not in seen:
                            seen.append(prev.loop)
                        seen.append(cur.loop)
            prev = cur
        last = info.loops[-1]
        for sid, where in info.stalled.items():
            if any(o.id == sid for o in last.open):
                findings.append(Finding("AWD-T012", "warning", f"{sid} recurs unchanged in phase "
                                        f"{info.phase} loops {', '.join(map(str, where))} and is "
                                        "still open: the fix is stalled", last.path))
    return phases


def _rounds(rf: RunFiles, tables: Tables, target: Tier | None, adjudicated: dict[str, str],
            caps: dict[str, int], findings: list[Finding]) -> list[RoundInfo]:
    by_round: dict[int, dict[str, CardFile]] = {}
    for cf in rf.cards:
        seats = by_round.setdefault(cf.round, {})
        if cf.seat in seats:
            findings.append(Finding("AWD-T003", "error", f"two cards for seat {cf.seat} round "
                                    f"{cf.round}", cf.path))
            continue
        seats[cf.seat] = cf
    rounds: list[RoundInfo] = []
    effective: dict[str, CardFile] | None = None
    prev_panel: PanelResult | None = None
    for r in sorted(by_round):
        seats = by_round[r]
        if r > caps["panel_rounds"]:
            findings.append(Finding("AWD-T006", "error", f"panel round {r} exists: beyond "
                                    f"{caps['panel_rounds']} rounds (round 1 plus two re-scores)",
                                    next(iter(seats.values())).path))
        if set(seats) == {"A", "B", "C"}:
            info = RoundInfo(r, "full", dict(seats))
        elif len(seats) == 1 and effective is not None and r == rounds[-1].round + 1:
            seat = next(iter(seats))
            info = RoundInfo(r, "adjudication", {**effective, **seats}, redispatched=seat)
            outliers = {c.outlier for c in (prev_panel.conflicts if prev_panel else [])}
            if seat not in outliers:
                findings.append(Finding("AWD-T007", "warning", f"round {r} re-scores only seat "
                                        f"{seat}, which was not the outlier of an open evidence "
                                        "conflict in the round before", seats[seat].path))
        else:
            findings.append(Finding("AWD-T005", "error", f"round {r} has seat(s) "
                                    f"{', '.join(sorted(seats))}: a round is all three seats, or "
                                    "one re-dispatched outlier seat after a full round",
                                    next(iter(seats.values())).path))
            rounds.append(RoundInfo(r, "incomplete", dict(seats)))
            continue
        effective = info.seats
        if all(cf.valid and cf.card is not None for cf in info.seats.values()):
            totals = [(cf.card.computed_total or 0.0, s) for s, cf in info.seats.items()
                      if cf.card is not None]
            info.min_total, info.min_seat = min(totals)
            if target is not None:
                res = PanelResult(target)
                res.seats = [Seat(s, cf.path, cf.block.line if cf.block else 0, cf.card)
                             for s, cf in sorted(info.seats.items()) if cf.card is not None]
                last = r == max(by_round)
                evaluate(res, tables, adjudication_round=info.kind == "adjudication",
                         adjudicated=adjudicated if last else None)
                info.panel = res
                prev_panel = res
        if rounds and rounds[-1].min_total is not None and info.min_total is not None:
            info.improved = info.min_total > rounds[-1].min_total + EPS
            if rounds[-1].improved is False:
                findings.append(Finding("AWD-T010", "error", f"panel round {r} ran after round "
                                        f"{rounds[-1].round} failed to raise the minimum seat "
                                        "total; the seed says stop for a human instead",
                                        next(iter(seats.values())).path))
        rounds.append(info)
    return rounds


def target_from_variant(rf: RunFiles, tables: Tables) -> tuple[Tier | None, str]:
    import re

    for b in rf.variants:
        label = b.body.get("target_tier")
        if not isinstance(label, str):
            continue
        for part in re.split(r"[/,|;()（）、]+", label):
            try:
                return tables.target(part), f"variant target_tier {label!r} ({b.path})"
            except UsageError:
                continue
    return None, ""


def run_status(run: str | Path, target: str | None = None,
               tables: Tables | None = None) -> RunStatus:
    """Everything `gavel award status` reports. Raises UsageError for an unknown --target
    or a run folder that does not exist."""
    tables = tables or load_tables()
    run = Path(run)
    if not run.is_dir():
        raise UsageError(f"run folder {str(run)!r} does not exist")
    caps = budgets()
    tier = tables.target(target) if target else None
    rf = read_run(run, tables)
    findings = list(rf.findings)
    source = "--target" if tier else ""
    if tier is None:
        tier, source = target_from_variant(rf, tables)
    phases = _phases(rf, caps, findings)
    fix_used = sum(info.fix_loops for ph, info in phases.items())
    if fix_used > caps["run_fix_loops"]:
        findings.append(Finding("AWD-T009", "error", f"{fix_used} fix loops across the run: "
                                f"beyond the whole-run cap of {caps['run_fix_loops']}",
                                str(run / "gates")))
    from gavelkit.award.blocks.memo import adjudications

    rounds = _rounds(rf, tables, tier, adjudications(rf.memos), caps, findings)
    if rounds and not any(ph >= caps["panel_phase"] for ph in phases):
        findings.append(Finding("AWD-T014", "warning", "scorecards exist but there is no Phase 7 "
                                "critic gate: the panel ran before the critic's audit",
                                rounds[0].seats[next(iter(rounds[0].seats))].path))
    status = RunStatus(run, tier, source, phases, rounds, fix_used, findings,
                       Action("advance", 0, ""))
    status.action = next_action(status, caps)
    return status


def _overrun(status: RunStatus) -> Finding | None:
    for f in status.findings:
        if f.code in ("AWD-T006", "AWD-T008", "AWD-T009", "AWD-T010"):
            return f
    return None


def next_action(st: RunStatus, caps: dict[str, int]) -> Action:
    over = _overrun(st)
    if over is not None:
        return Action("STOP", None, f"budget overrun in the run files: {over.message}")
    if not st.phases:
        return Action("advance", 0, "no gate yet: run Phase 0 (intake) and its critic gate")
    cur = max(st.phases)
    info = st.phases[cur]
    last = info.loops[-1]
    failing = last.verdict != "pass" or bool(last.open)
    if failing:
        if last.improved is False:
            prev = info.loops[-2]
            return Action("STOP", cur, f"phase {cur} loop {last.loop} did not improve: open "
                          f"blocker+high went {prev.count} -> {last.count}",
                          [f"{o.id} ({o.severity}, {o.owner}): {o.summary}" for o in last.open])
        if last.loop >= caps["phase_fix_loops"]:
            return Action("STOP", cur, f"phase {cur} used all {caps['phase_fix_loops'] + 1} "
                          "evaluations and still fails",
                          [f"{o.id} ({o.severity}, {o.owner}): {o.summary}" for o in last.open])
        if st.fix_loops_used >= caps["run_fix_loops"]:
            return Action("STOP", cur, f"the run used all {caps['run_fix_loops']} fix loops",
                          [f"{o.id} ({o.severity}, {o.owner}): {o.summary}" for o in last.open])
        items = [f"{o.id} ({o.severity}) -> {o.owner}: {o.summary}" for o in last.open]
        if not items:
            items = ["the gate failed without an open blocker/high issue: ask the critic why"]
        return Action("fix", cur, f"run fix loop {last.loop + 1} for phase {cur} "
                      f"(loop {last.loop} verdict {last.verdict})", items)
    if cur < caps["panel_phase"]:
        return Action("advance", cur + 1, f"phase {cur} gate passed at loop {last.loop}")
    if cur >= caps["last_phase"]:
        return Action("advance", None, f"phase {cur} gate passed: the run is complete; submit "
                      "the package")
    return _panel_action(st, caps)


def _panel_action(st: RunStatus, caps: dict[str, int]) -> Action:
    ph = caps["panel_phase"]
    if st.target is None:
        return Action("STOP", ph, "the target tier is unknown: pass --target or fill the "
                      "variant block's target_tier")
    if not st.rounds:
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
        return Action("advance", ph + 1, f"panel round {r.round} passes at {st.target.name} "
                      f"(minimum seat total {fmt_num(r.min_total or 0)})")
    used = r.round
    if r.improved is False:
        prev = st.rounds[-2]
        return Action("STOP", ph, f"re-score round {r.round} did not raise the minimum seat total "
                      f"({fmt_num(prev.min_total or 0)} -> {fmt_num(r.min_total or 0)})", p.failed)
    open_conf = [c for c in p.conflicts if not c.adjudicated]
    if open_conf:
        c = open_conf[0]
        if r.kind == "adjudication" and r.redispatched in {x.outlier for x in open_conf}:
            return Action("STOP", ph, f"the evidence conflict on {c.criterion!r} persisted after "
                          f"re-dispatching seat {r.redispatched}; record the lead's adjudication "
                          "in a decision_memo", [x.describe() for x in open_conf])
        if used >= caps["panel_rounds"]:
            return Action("STOP", ph, f"all {caps['panel_rounds']} panel rounds are used and an "
                          "evidence conflict is open", [x.describe() for x in open_conf])
        if c.outlier is None:
            return Action("STOP", ph, f"evidence conflict on {c.criterion!r} has no clear outlier "
                          "seat: the lead must decide which seat to re-dispatch",
                          [x.describe() for x in open_conf])
        return Action("adjudicate", ph, f"re-dispatch only seat {c.outlier} (round {used + 1}) "
                      f"with the evidence question on {c.criterion!r}; it counts as a re-score "
                      "round", [x.describe() for x in open_conf] + [_question(c)])
    if used >= caps["panel_rounds"]:
        return Action("STOP", ph, f"all {caps['panel_rounds']} panel rounds are used and the "
                      f"panel fails at {st.target.name}", p.failed)
    fixes = []
    for s, cf in sorted(r.seats.items()):
        thing = cf.block.body.get("fix_one_thing") if cf.block is not None else None
        fixes.append(f"seat {s}: {thing}")
    return Action("rescore", ph, f"panel round {r.round} fails at {st.target.name}; address the "
                  f"seats' fix_one_thing, then re-score all three seats (round {used + 1})",
                  fixes + [f"failed: {m}" for m in p.failed])


def _question(c: Conflict) -> str:
    other = c.high_seat if c.outlier == c.low_seat else c.low_seat
    return (f"evidence question for seat {c.outlier}: seat {other} scored {c.criterion!r} "
            f"{fmt_num(c.high if other == c.high_seat else c.low)}; which artifact evidence "
            "supports your score?")
