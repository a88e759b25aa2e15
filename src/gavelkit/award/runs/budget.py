"""Budgets, stall detection and the next action of a run (seed §4), from its files alone.

The lead used to count loops from memory. Here every count comes from the gate and
scorecard files: evaluations per phase (at most 3), fix loops across the run (at most
8, panel re-scores excluded), panel rounds (at most 3), whether each loop improved
(open blocker+high strictly fewer, matched by stable id) and whether each re-score
improved (minimum recomputed seat total strictly higher). A file beyond a budget is
an error: the run never continues silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gavelkit.award.panel.aggregate import PanelResult, Seat, evaluate
from gavelkit.award.runs.decisions import Decision, covering, recorded
from gavelkit.award.runs.next_action import next_action
from gavelkit.award.runs.runfiles import CardFile, GateFile, RunFiles, read_run
from gavelkit.award.runs.runstate import (  # re-exported: status_render, report, memo_draft
    Action,
    LoopInfo,
    OpenIssue,
    PhaseInfo,
    RoundInfo,
    RunStatus,
)
from gavelkit.award.tables import Budgets, Tables, Tier, budgets, load_tables, open_blocking
from gavelkit.core.errors import UsageError
from gavelkit.core.findings import Finding

EPS = 1e-9


def _issues(gf: GateFile) -> tuple[list[OpenIssue], list[OpenIssue]]:
    blocking, other = [], []
    issues = gf.block.body.get("issues") if gf.block is not None else None
    for i, it in enumerate(issues if isinstance(issues, list) else []):
        if not isinstance(it, dict):
            continue
        oi = OpenIssue(str(it.get("id") or f"issues[{i}]"), str(it.get("severity")),
                       str(it.get("summary") or ""), str(it.get("owner") or "?"),
                       _acceptance(it))
        (blocking if it.get("severity") in open_blocking() else other).append(oi)
    return blocking, other


def _acceptance(issue: dict[str, Any]) -> str | None:
    """The rationale of a risk acceptance on a medium or low issue (gate lint checks it)."""
    for key in ("risk_acceptance", "accepted_risk", "acceptance"):
        acc = issue.get(key)
        text = acc.get("rationale") if isinstance(acc, dict) else acc
        if isinstance(text, str) and text.strip():
            return text.strip()
    return None


def _under(findings: list[Finding], dec: Decision | None, code: str, message: str,
           path: str) -> None:
    """An overrun finding, or (when a human decision covers the stop) the info that it did."""
    if dec is None:
        findings.append(Finding(code, "error", message, path))
    else:
        findings.append(Finding("AWD-T015", "info", f"{message.split(';')[0]} — under the "
                                f"human decision {dec.describe()}", path))


def _run_cap(phases: dict[int, PhaseInfo], caps: Budgets, decisions: list[Decision],
             findings: list[Finding]) -> None:
    """Each fix loop beyond the whole-run cap (in run order: phase, then loop) is an
    overrun, unless a human decision answered the STOP before it (the one status showed
    at the loop before: rework or change_scope), as for the per-phase cap. A loop whose
    gate is missing still counts (AWD-T011 says so)."""
    cap = caps.run_fix_loops
    n = 0
    for ph in sorted(phases):
        info = phases[ph]
        paths = {lp.loop: lp.path for lp in info.loops}
        for loop in range(1, info.fix_loops + 1):
            n += 1
            if n > cap:
                dec = covering(decisions, ph, loop - 1)
                _under(findings, dec if dec and dec.continues_phase else None, "AWD-T009",
                       f"fix loop {n} of the run (phase {ph} loop {loop}): beyond the "
                       f"whole-run cap of {cap}; record the decision in a decision_memo",
                       paths.get(loop, info.loops[-1].path))


def _by_key(rf: RunFiles, findings: list[Finding]) -> dict[tuple[int, int], GateFile]:
    by_key: dict[tuple[int, int], GateFile] = {}
    for gf in rf.gates:
        key = (gf.phase, gf.loop)
        if key in by_key:
            findings.append(Finding("AWD-T003", "error", f"two files for phase {gf.phase} loop "
                                    f"{gf.loop}: {by_key[key].path} and {gf.path}", gf.path))
            continue
        by_key[key] = gf
    return by_key


def _handoff_loops(rf: RunFiles) -> dict[int, dict[int, str]]:
    """phase -> loop -> path of the handoff blocks in the phase logs."""
    out: dict[int, dict[int, str]] = {}
    for b in rf.handoffs:
        ph, lp = b.body.get("phase"), b.body.get("loop")
        if isinstance(ph, int) and isinstance(lp, int) and not isinstance(ph | lp, bool):
            out.setdefault(ph, {})[lp] = f"{b.path}:{b.line}"
    return out


def _missing(info: PhaseInfo, handed: dict[int, str], closed: bool,
             findings: list[Finding]) -> None:
    """Loops of a phase without a gate: a gap in the numbers, or a handed-off loop of a
    closed phase (or below its last gate) that was never gated. Each one counts."""
    loops = {lp.loop for lp in info.loops}
    top = max(loops)
    gaps = set(range(top)) - loops
    ungated = {lp for lp in handed if lp not in loops and (closed or lp < top)}
    info.missing = sorted(gaps | ungated)
    if info.missing:
        why = [f"loop {lp}" + (f" (handed off at {handed[lp]})" if lp in handed else "")
               for lp in info.missing]
        findings.append(Finding("AWD-T011", "error", f"phase {info.phase} has no gate for "
                                f"{', '.join(why)}: a missing gate still counts as a fix loop; "
                                "restore the gate file", info.loops[-1].path))


def _stalled_ids(info: PhaseInfo, prev: LoopInfo, cur: LoopInfo) -> None:
    """Ids open in both consecutive loops: recorded with every loop they recurred in."""
    before = {p.id for p in prev.open}
    for oi in cur.open:
        if oi.id in before:
            seen = info.stalled.setdefault(oi.id, [prev.loop])
            if prev.loop not in seen:
                seen.append(prev.loop)
            seen.append(cur.loop)


def _loop_after_stall(info: PhaseInfo, prev: LoopInfo, cur: LoopInfo,
                      decisions: list[Decision], findings: list[Finding]) -> None:
    if prev.improved is False and not (prev.verdict == "pass" and not prev.open):
        dec = covering(decisions, info.phase, prev.loop)
        _under(findings, dec if dec and dec.continues_phase else None, "AWD-T010",
               f"phase {info.phase} loop {cur.loop} ran after loop {prev.loop} "
               "failed to improve; the seed says stop for a human instead "
               "(record the decision in a decision_memo)", cur.path)


def _improvement(info: PhaseInfo, decisions: list[Decision], findings: list[Finding]) -> None:
    """Whether each loop improved on the one before, and the ids that stalled."""
    for prev, cur in zip(info.loops, info.loops[1:], strict=False):
        if cur.loop != prev.loop + 1:
            continue
        cur.improved = cur.count < prev.count
        _loop_after_stall(info, prev, cur, decisions, findings)
        _stalled_ids(info, prev, cur)
    last = info.loops[-1]
    still = {o.id for o in last.open}
    for sid, where in info.stalled.items():
        if sid in still:
            findings.append(Finding("AWD-T012", "warning", f"{sid} recurs unchanged in phase "
                                    f"{info.phase} loops {', '.join(map(str, where))} and is "
                                    "still open: the fix is stalled", last.path))


def _unhanded(info: PhaseInfo, handed: dict[int, str], caps: Budgets,
              findings: list[Finding]) -> None:
    """A gate audits a handoff; one with no handoff of its loop is said (Phase 7 audits
    the panel's package, not a specialist's handoff)."""
    if info.phase == caps.panel_phase:
        return
    for lp in info.loops:
        if lp.loop not in handed:
            findings.append(Finding("AWD-T020", "warning", f"the gate of phase {info.phase} loop "
                                    f"{lp.loop} has no handoff with `phase: {info.phase}` and "
                                    f"`loop: {lp.loop}` in phase-logs/: the critic gated work "
                                    "that was never handed off (or its handoff was overwritten)",
                                    lp.path))


def _phases(rf: RunFiles, caps: Budgets, findings: list[Finding],
            decisions: list[Decision] = ()) -> dict[int, PhaseInfo]:
    phases: dict[int, PhaseInfo] = {}
    for (ph, lp), gf in sorted(_by_key(rf, findings).items()):
        info = phases.setdefault(ph, PhaseInfo(ph))
        blocking, other = _issues(gf)
        verdict = gf.block.body.get("verdict") if gf.block is not None else None
        info.loops.append(LoopInfo(lp, gf.path, verdict if isinstance(verdict, str) else None,
                                   blocking, other=other))
        if lp > caps.phase_fix_loops:
            dec = covering(decisions, ph, lp - 1)
            _under(findings, dec if dec and dec.continues_phase else None, "AWD-T008",
                   f"phase {ph} has a loop-{lp} gate: beyond {caps.phase_fix_loops + 1} "
                   "evaluations (loop 0 plus two fix loops); the run went past its budget",
                   gf.path)
    handed = _handoff_loops(rf)
    cur = max(phases, default=0)
    for info in phases.values():
        _missing(info, handed.get(info.phase, {}), info.phase < cur, findings)
        _improvement(info, decisions, findings)
        _unhanded(info, handed.get(info.phase, {}), caps, findings)
    return phases


def _cards_by_round(rf: RunFiles, findings: list[Finding]) -> dict[int, dict[str, CardFile]]:
    by_round: dict[int, dict[str, CardFile]] = {}
    for cf in rf.cards:
        seats = by_round.setdefault(cf.round, {})
        if cf.seat in seats:
            findings.append(Finding("AWD-T003", "error", f"two cards for seat {cf.seat} round "
                                    f"{cf.round}", cf.path))
            continue
        seats[cf.seat] = cf
    return by_round


def _round_info(r: int, seats: dict[str, CardFile], rounds: list[RoundInfo],
                effective: dict[str, CardFile] | None, prev_panel: PanelResult | None,
                findings: list[Finding]) -> RoundInfo:
    """A full round, a one-seat adjudication round after it, or an incomplete round."""
    if set(seats) == {"A", "B", "C"}:
        return RoundInfo(r, "full", dict(seats))
    if len(seats) == 1 and effective is not None and r == rounds[-1].round + 1:
        seat = next(iter(seats))
        outliers = {c.outlier for c in (prev_panel.conflicts if prev_panel else [])}
        if seat not in outliers:
            findings.append(Finding("AWD-T007", "error", f"round {r} re-scores only seat "
                                    f"{seat}, which was not the outlier of an open evidence "
                                    "conflict in the round before; only the outlier is "
                                    "re-dispatched (seed §3)", seats[seat].path))
        return RoundInfo(r, "adjudication", {**effective, **seats}, redispatched=seat)
    findings.append(Finding("AWD-T005", "error", f"round {r} has seat(s) "
                            f"{', '.join(sorted(seats))}: a round is all three seats, or "
                            "one re-dispatched outlier seat after a full round",
                            next(iter(seats.values())).path))
    return RoundInfo(r, "incomplete", dict(seats))


def _evaluate_round(info: RoundInfo, tables: Tables, target: Tier | None,
                    adjudicated: dict[str, str] | None, findings: list[Finding]) -> None:
    """The round's minimum seat total and, with a target, its panel result."""
    cards = _valid_cards(info)
    if cards is None:
        return
    info.min_total, info.min_seat = min((c.computed_total or 0.0, s) for s, c in cards.items())
    if target is None:
        return
    res = PanelResult(target)
    res.seats = [Seat(s, info.seats[s].path, _line(info.seats[s]), cards[s]) for s in sorted(cards)]
    evaluate(res, tables, adjudication_round=info.kind == "adjudication",
             adjudicated=adjudicated)
    findings.extend(f for f in res.findings if f.code == "AWD-P011")
    info.panel = res


def _valid_cards(info: RoundInfo) -> dict[str, Any] | None:
    """Every seat's card, or None when any card of the round does not lint clean."""
    cards = {s: cf.card for s, cf in info.seats.items() if cf.valid and cf.card is not None}
    return cards if len(cards) == len(info.seats) else None


def _line(cf: CardFile) -> int:
    return cf.block.line if cf.block else 0


def _round_improved(info: RoundInfo, before: RoundInfo, caps: Budgets,
                    decisions: Sequence[Decision], findings: list[Finding]) -> None:
    if before.min_total is None or info.min_total is None:
        return
    info.improved = info.min_total > before.min_total + EPS
    if before.improved is False:
        dec = covering(decisions, caps.panel_phase, before.round, panel=True)
        _under(findings, dec if dec and dec.continues_phase else None, "AWD-T010",
               f"panel round {info.round} ran after round {before.round} failed to raise the "
               "minimum seat total; the seed says stop for a human instead",
               next(iter(info.seats.values())).path)


def _rounds(rf: RunFiles, tables: Tables, target: Tier | None, adjudicated: dict[str, str],
            caps: Budgets, findings: list[Finding],
            decisions: Sequence[Decision] = ()) -> list[RoundInfo]:
    by_round = _cards_by_round(rf, findings)
    rounds: list[RoundInfo] = []
    effective: dict[str, CardFile] | None = None
    prev_panel: PanelResult | None = None
    for r in sorted(by_round):
        seats = by_round[r]
        if r > caps.panel_rounds:
            dec = covering(decisions, caps.panel_phase, r - 1, panel=True)
            _under(findings, dec if dec and dec.continues_phase else None, "AWD-T006",
                   f"panel round {r} exists: beyond {caps.panel_rounds} rounds (round 1 plus "
                   "two re-scores)", next(iter(seats.values())).path)
        info = _round_info(r, seats, rounds, effective, prev_panel, findings)
        if info.kind == "incomplete":
            rounds.append(info)
            continue
        effective = info.seats
        _evaluate_round(info, tables, target, adjudicated if r == max(by_round) else None,
                        findings)
        prev_panel = info.panel or prev_panel
        if rounds:
            _round_improved(info, rounds[-1], caps, decisions, findings)
        rounds.append(info)
    return rounds


def target_from_variant(rf: RunFiles, tables: Tables,
                        findings: list[Finding] | None = None) -> tuple[Tier | None, str]:
    """The target named by the variant; template text is never read as a target."""
    from gavelkit.award.blocks.variant import is_placeholder, target_of

    why = []
    for b in rf.variants:
        label = b.body.get("target_tier")
        if not isinstance(label, str):
            continue
        if is_placeholder(label):
            why.append((f"the variant's target_tier is still the template placeholder "
                        f"{label!r}: fill it in (or pass --target)", b))
            continue
        tier = target_of(label, tables)
        if tier is not None:
            return tier, f"variant target_tier {label!r} ({b.path})"
        why.append((f"the variant's target_tier {label!r} names no known tier (e.g. "
                    "Outstanding / O-Prize, Finalist, 国一, 国二): no target", b))
    if findings is not None:
        if not rf.variants:
            findings.append(Finding("AWD-T017", "warning", "no variant: block in phase-logs/: "
                                    "the target tier is unknown (pass --target)",
                                    str(rf.run / "phase-logs")))
        for msg, b in why:
            findings.append(Finding("AWD-T017", "warning", msg, b.path, b.line, b.col))
    return None, ""


def _decided_target(decisions: list[Decision], caps: Budgets,
                    tables: Tables) -> tuple[Tier | None, str]:
    """The tier named by the latest Phase-7 change_scope decision (`target:`), if any."""
    from gavelkit.award.blocks.variant import target_of

    for d in reversed(decisions):
        if d.phase == caps.panel_phase and d.choice == "change_scope" and d.target:
            tier = target_of(d.target, tables)
            if tier is not None:
                return tier, f"the change_scope decision ({d.path}:{d.line})"
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
    findings.extend(_handoffs(rf, tables))
    source = "--target" if tier else ""
    decisions = recorded(rf.memos, caps.panel_phase, bool(rf.cards))
    if tier is None:
        tier, source = _decided_target(decisions, caps, tables)
    if tier is None:
        tier, source = target_from_variant(rf, tables, findings)
    phases = _phases(rf, caps, findings, decisions)
    _gaps(run, phases, decisions, findings)
    fix_used = sum(info.fix_loops for ph, info in phases.items())
    _run_cap(phases, caps, decisions, findings)
    from gavelkit.award.blocks.memo import adjudications, foreign_adjudications

    for b in foreign_adjudications(rf.memos, caps.panel_phase):
        findings.append(Finding("AWD-P012", "error", f"adjudications recorded in a phase-"
                                f"{b.body.get('phase')} decision_memo are not read: evidence "
                                f"conflicts are adjudicated in the Phase {caps.panel_phase} "
                                "memo", b.path, b.line, b.col))
    rounds = _rounds(rf, tables, tier, adjudications(rf.memos, caps.panel_phase), caps,
                     findings, decisions)
    if rounds and not any(ph >= caps.panel_phase - 1 for ph in phases):
        findings.append(Finding("AWD-T014", "warning", "scorecards exist but phase "
                                f"{caps.panel_phase - 1} (the paper) has no critic gate: the "
                                "panel scored a paper that was never gated",
                                rounds[0].seats[next(iter(rounds[0].seats))].path))
    status = RunStatus(run, tier, source, phases, rounds, fix_used, findings,
                       Action("advance", 0, ""), decisions, _memo_list(rf))
    status.action = next_action(status, caps)
    return status


def _handoffs(rf: RunFiles, tables: Tables) -> list[Finding]:
    """Lint every handoff block of the phase logs under its own role, inside this run, and
    every decision memo."""
    from gavelkit.award.blocks.lint import check_block

    out: list[Finding] = []
    for b in rf.handoffs:
        agent = b.body.get("agent")
        role = agent if isinstance(agent, str) and agent in tables.agents else None
        out.extend(check_block(b, tables, role, rf.run).findings)
    for b in rf.memos:  # a malformed decision lifts nothing: say why
        out.extend(check_block(b, tables).findings)
    return out


def _gaps(run: Path, phases: dict[int, PhaseInfo], decisions: list[Decision],
          findings: list[Finding]) -> None:
    """Skipped phases, and earlier phases left with a failing gate: never silent."""
    if not phases:
        return
    cur = max(phases)
    missing = [p for p in range(cur) if p not in phases]
    if missing:
        findings.append(Finding("AWD-T016", "error", f"phase(s) {', '.join(map(str, missing))} "
                                f"have no critic gate although phase {cur} has one: a skipped "
                                "phase was never audited", str(run / "gates")))
    for ph, info in sorted(phases.items()):
        last = info.loops[-1]
        if ph == cur or (last.verdict == "pass" and not last.open):
            continue
        dec = covering(decisions, ph, last.loop)
        if dec is None or dec.choice != "accept_risk":
            findings.append(Finding("AWD-T018", "error", f"phase {ph} was left with its loop-"
                                    f"{last.loop} gate failing ({last.count} open blocker/high) "
                                    "and no recorded decision to accept the risk, yet later "
                                    "phases ran", last.path))


def _count(items: Any) -> int:
    return len(items) if isinstance(items, list) else 1 if isinstance(items, dict) else 0


def _memo_list(rf: RunFiles) -> list[dict[str, Any]]:
    out = []
    for b in rf.memos:
        dec = b.body.get("decision")
        stop = b.body.get("stopped_at")
        out.append({"path": b.path, "line": b.line, "phase": b.body.get("phase"),
                    "stopped_at": (", ".join(f"{k} {v}" for k, v in stop.items())
                                   if isinstance(stop, dict) else None),
                    "decision": dict(dec) if isinstance(dec, dict) else None,
                    "adjudications": _count(b.body.get("adjudications")
                                            or b.body.get("adjudication"))})
    return out
