"""The pipeline state machine on PIPELINE_STATE.md: guarded, capped, locked transitions.

States, allowed edges, loop counters, caps and guards live in
`data/task_states.toml`; this module applies them. Library API (issue 8's
judge calls these)::

    plan = plan_transition(task_dir, "S5_JUDGE")    # no write; plan.findings says why not
    result = transition(task_dir, "S2_SPEC_DRAFT", "spec gap in Error Semantics")
    result.to_state   # may be RETIRED when a loop counter passed its cap
    init_state(task_dir, task_id)                   # new PIPELINE_STATE.md
    allowed_next("S4_ANALYSIS")

`transition` holds an exclusive lock on the state file for the whole
read-check-write, and writes atomically, so two writers serialise and a kill
mid-write leaves the old or the new file, never a mix. Entering QUALIFIED
records the oracle digests (see oracle.py); QUALIFIED -> QUALIFIED is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.core.textio import atomic_write, locked, read_text
from gavelkit.task.config import load_config, state_table
from gavelkit.task.formats.load import STATE_NAME, find_globs
from gavelkit.task.formats.pipeline_state import (
    HistoryRow,
    PipelineState,
    parse_pipeline_state,
    render_transition,
)
from gavelkit.task.formats.score import read_score
from gavelkit.task.pipeline.clock import today

ITERS = ("spec_iter", "filter_iter", "eval_iter")


@dataclass(slots=True)
class Plan:
    from_state: str
    requested: str
    to_state: str
    counters: dict[str, int] = field(default_factory=dict)  # changed counters, new values
    findings: list[Finding] = field(default_factory=list)
    note_suffix: str = ""

    @property
    def ok(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)


def allowed_next(state: str) -> list[str]:
    st = state_table()["states"].get(state)
    return list(st["next"]) if st else []


def default_todo(state: str, ps: PipelineState | None = None) -> list[str]:
    """The task file's own Catalogue todo for `state` if it has one, else ours."""
    if ps is not None and ps.catalogue.get(state):
        return list(ps.catalogue[state])
    st = state_table()["states"].get(state, {})
    return list(st.get("todo", []))


def _g_exists(guard: dict[str, Any], task_dir: Path, cfg: dict[str, Any]) -> tuple[bool, str]:
    """A path, or a glob (`oracle/test_*.py` of a graduated task)."""
    for rel in guard["any"]:
        hits = sorted(task_dir.glob(rel)) if any(c in rel for c in "*?[") else [task_dir / rel]
        hit = next((h for h in hits if h.is_file()), None)
        if hit is not None:
            return True, str(hit.relative_to(task_dir))
    return False, "none of " + ", ".join(guard["any"]) + " exists"


def _g_reference_full(guard: dict[str, Any], task_dir: Path,
                      cfg: dict[str, Any]) -> tuple[bool, str]:
    refs = find_globs(task_dir, cfg["state"]["reference_score_globs"])
    if not refs:
        return False, "no reference_score.json found"
    sr, fnd = read_score(refs[0])
    if sr is None:
        return False, f"{refs[0]}: {fnd[0].message if fnd else 'unreadable'}"
    rate = sr.pass_rate
    if rate is None:
        return False, f"{refs[0].name} scored nothing (0/0)"
    sk = sr.counts.get("skipped", 0)
    if sr.passed != sr.total - sk or rate < 1.0:
        return False, (f"{refs[0].name}: {sr.passed}/{sr.total} passed"
                       + (f"; {sk} skipped" if sk else "")
                       + f"; {rate:.1%} of {'non-skipped' if sk else 'all'}")
    return True, str(refs[0])


def _g_candidate_score(guard: dict[str, Any], task_dir: Path,
                       cfg: dict[str, Any]) -> tuple[bool, str]:
    for h in find_globs(task_dir, cfg["state"]["candidate_score_globs"]):
        if read_score(h)[0] is not None:
            return True, str(h)
    return False, "no readable score_result.json from a candidate run"


def _g_file(guard: dict[str, Any], task_dir: Path, cfg: dict[str, Any]) -> tuple[bool, str]:
    """first_line (the file starts with `expect`) and newer_than_oracle (lint is fresh)."""
    hit = next((task_dir / rel for rel in guard["any"] if (task_dir / rel).is_file()), None)
    if hit is None:
        return False, "none of " + ", ".join(guard["any"]) + " exists"
    if guard["kind"] == "first_line":
        first = read_text(hit, allow_empty=True).split("\n", 1)[0].strip()
        if first != guard["expect"]:
            return False, f"{hit.name} starts with {first[:60]!r}"
        return True, str(hit)
    from gavelkit.task.formats.load import load_task

    stale = [rel for rel, p in load_task(task_dir).test_files.items()
             if p.stat().st_mtime > hit.stat().st_mtime]
    if stale:
        return False, f"{', '.join(stale)} changed after {hit.name}"
    return True, str(hit)


_GUARDS = {"exists": _g_exists, "reference_full": _g_reference_full,
           "candidate_score": _g_candidate_score, "first_line": _g_file,
           "newer_than_oracle": _g_file,
           "judge_qualified": lambda guard, task_dir, cfg: judge_qualified(task_dir)}


def _g_named_run(run: Path) -> tuple[bool, str]:
    """The candidate run the command names (--run): its own score, not whatever a glob finds."""
    from gavelkit.task.formats.score import find_score_file

    hit = find_score_file(run)
    sr, fnd = read_score(hit) if hit.is_file() else (None, [])
    if sr is None:
        return False, f"{hit}: " + (fnd[0].message if fnd else "not there")
    return True, str(hit)


def _guard_ok(guard: dict[str, Any], task_dir: Path, cfg: dict[str, Any],
              run: Path | None = None) -> tuple[bool, str]:
    if guard["kind"] == "candidate_score" and run is not None:
        return _g_named_run(run)
    check = _GUARDS.get(guard["kind"])
    if check is None:
        raise ValueError(f"unknown guard kind {guard['kind']!r}")
    return check(guard, task_dir, cfg)


def judge_qualified(task_dir: Path) -> tuple[bool, str]:
    """The QUALIFIED guard: the judge's own QUALIFIED checks, re-decided by the one verdict
    function, for the current oracle digest and the very score file it judged."""
    import json

    from gavelkit.task.formats.load import load_task
    from gavelkit.task.judging.verdict import qualified_record_ok
    from gavelkit.task.pipeline.digests import combined, current_digests

    path = task_dir / "judge" / "judge_result.json"
    rec = None
    if path.is_file():
        try:
            rec = json.loads(read_text(path))
        except (InputError, ValueError, RecursionError):
            rec = None
    judged = rec.get("judged_on") if isinstance(rec, dict) else None
    judged = judged if isinstance(judged, dict) else {}
    sha = None
    sf = judged.get("score_file")
    if isinstance(sf, str) and sf:
        from gavelkit.task.formats.paths import resolve

        sp = resolve(sf, task_dir)
        if sp is not None and sp.is_file():
            from gavelkit.core.textio import sha256_file

            sha = sha256_file(sp)
    digest = combined(current_digests(load_task(task_dir)))
    return qualified_record_ok(rec, digest, sha)


def _refusal(ps: PipelineState, to: str, task_dir: Path) -> Finding | None:
    """Why `to` cannot be entered from the current state at all (unknown, forbidden, no edge)."""
    table, cur, path = state_table(), ps.state, ps.path
    line = ps.current_lines.get("state", 0)
    if to not in table["states"]:
        return Finding("TSK-S001", "error", f"unknown state {to!r}; one of: "
                       f"{', '.join(table['states'])}", path, 0, 0)
    if cur not in table["states"]:
        return Finding("TSK-S001", "error", f"current state {cur!r} is not a known state; fix "
                       "the Current block by hand", path, line, 1)
    if cur == "QUALIFIED" and to == "QUALIFIED":
        from gavelkit.task.pipeline.digests import compare_digests

        why = ("the oracle changed since QUALIFIED; run `gavel task check-oracle` to reopen "
               "(REOPENED_S3) and re-run S4 -> S5") if compare_digests(task_dir) \
            else "the task is already QUALIFIED"
        return Finding("TSK-S005", "error", f"QUALIFIED -> QUALIFIED is forbidden: {why}", path,
                       line, 1)
    if to not in table["states"][cur]["next"]:
        nxt = ", ".join(table["states"][cur]["next"]) or "none (terminal)"
        return Finding("TSK-S002", "error", f"{cur} -> {to} is not an allowed transition; from "
                       f"{cur}: {nxt}", path, line, 1)
    return None


def _count_loops(ps: PipelineState, to: str, cfg: dict[str, Any], plan: Plan) -> None:
    """Loop counters the edge increments; past a cap the task retires instead."""
    table = state_table()
    for loop in table.get("loops", []):
        if loop["to"] != to or ps.state not in loop["from"]:
            continue
        name = loop["counter"]
        new = ps.iter_value(name) + 1
        plan.counters[name] = new
        cap = int({**table["caps"], **cfg["state"].get("caps", {})}[name])
        if new > cap:
            plan.to_state = table["retire_state"]
            plan.note_suffix = f"{name} {new} > cap {cap}: RETIRED instead of {to}"
            plan.findings.append(Finding("TSK-S004", "warning", plan.note_suffix, ps.path,
                                         ps.current_lines.get(name, 0), 1))


def _check_guards(ps: PipelineState, to: str, task_dir: Path, cfg: dict[str, Any],
                  plan: Plan, run: Path | None = None) -> None:
    enabled = set(cfg["state"].get("enable_guards", []))
    for guard in state_table().get("guards", []):
        if guard["to"] != to or (guard.get("from") and ps.state not in guard["from"]):
            continue
        if guard.get("optional") and guard.get("name") not in enabled:
            continue
        ok, detail = _guard_ok(guard, task_dir, cfg, run)
        if not ok:
            plan.findings.append(Finding("TSK-S003", "error", f"{guard['why']}: {detail}",
                                         ps.path, 0, 0))


def plan_from(ps: PipelineState, to: str, task_dir: Path, cfg: dict[str, Any] | None = None,
              run: Path | None = None) -> Plan:
    """Decide what a transition to `to` would do, without writing anything; `run` is the
    candidate run the command names (its score is the S5_JUDGE guard's evidence)."""
    cfg = cfg or load_config(task_dir)
    plan = Plan(ps.state, to, to)
    refused = _refusal(ps, to, task_dir)
    if refused is not None:
        plan.findings.append(refused)
        return plan
    _count_loops(ps, to, cfg, plan)
    if plan.to_state == to:  # retiring past a cap: the requested state is not entered
        _check_guards(ps, to, task_dir, cfg, plan, run)
    return plan


def _read_ps(task_dir: Path) -> PipelineState:
    path = task_dir / STATE_NAME
    text = read_text(path)
    ps, fnd = parse_pipeline_state(text, str(path))
    bad = [f for f in fnd if f.severity == "error"]
    if bad:
        raise InputError(str(path), bad[0].message, bad[0].line, bad[0].col, code="TSK-R007")
    return ps


def plan_transition(task_dir: str | Path, to: str, config: Any = None,
                    run: Path | None = None) -> Plan:
    d = Path(task_dir)
    return plan_from(_read_ps(d), to, d, load_config(d, config), run)


@dataclass(slots=True)
class TransitionResult:
    plan: Plan
    written: bool
    row: HistoryRow | None = None

    @property
    def to_state(self) -> str:
        return self.plan.to_state

    @property
    def findings(self) -> list[Finding]:
        return self.plan.findings


def _updates(ps: PipelineState, plan: Plan, day: str, extra: dict[str, str] | None
             ) -> dict[str, str]:
    """The Current values a transition writes: state, stage, counters, date, extras."""
    updates: dict[str, str] = {"state": plan.to_state}
    stage = state_table()["states"][plan.to_state].get("stage")
    if stage is not None and "stage" in ps.current:
        updates["stage"] = str(stage)
    updates.update({k: str(v) for k, v in plan.counters.items()})
    updates["updated"] = day
    return {**updates, **(extra or {})}


def _note(note: str, plan: Plan) -> str:
    text = note.strip()
    if plan.note_suffix:
        return f"{text} ({plan.note_suffix})" if text else plan.note_suffix
    return text


def transition(task_dir: str | Path, to: str, note: str = "", *, date: str | None = None,
               config: Any = None, dry_run: bool = False,
               extra: dict[str, str] | None = None, run: Path | None = None) -> TransitionResult:
    """Apply a transition under the state-file lock; refused transitions write nothing."""
    d = Path(task_dir)
    path = d / STATE_NAME
    if not path.is_file():
        raise InputError(str(path), "no PIPELINE_STATE.md (run `gavel task init` first)")
    cfg = load_config(d, config)
    with locked(path):
        ps = _read_ps(d)
        plan = plan_from(ps, to, d, cfg, run)
        if not plan.ok or dry_run:
            return TransitionResult(plan, False)
        day = date or today()
        num = max([r.num for r in ps.history] + [len(ps.history)]) + 1
        row = HistoryRow(num, day, plan.from_state, plan.to_state, _note(note, plan))
        new_text = render_transition(ps, _updates(ps, plan, day, extra),
                                     default_todo(plan.to_state, ps), row)
        if plan.to_state == "QUALIFIED":
            from gavelkit.task.pipeline.digests import record_digests

            record_digests(d, date=day)
        atomic_write(path, new_text)
    return TransitionResult(plan, True, row)


TEMPLATE = """# Pipeline State — {task_id}

> Edit only `## Current`. On every transition update `state`, append a row to
> `## History` and replace `todo` with the new state's todo. On a loop, also add
> one to the matching `*_iter`. Use `gavel task state` to do this safely.

---

## Current

```
state:       {state}
stage:       {stage}
spec_iter:   0
filter_iter: 0
eval_iter:   0
updated:     {date}
```

todo:
{todo}

---

## History

| # | date | from | to | note |
|---|------|------|----|------|
{history}
---

## Forbidden Transitions

{forbidden}
"""


# The guarded steps of the normal path, in order: adopting a legacy task walks them and
# stops before the first whose guard its records do not meet.
ADOPT_PATH = (("S3_ORACLE_MERGE", "S1_SCREENING"), ("S4_SETUP", "S3_ORACLE_MERGE"),
              ("S5_JUDGE", "S4_EVAL_RUN"))


def adopt_target(task_dir: Path, cfg: dict[str, Any]) -> tuple[str, list[str]]:
    """(state, evidence): how far a task without a state file got, by the same guards a
    transition checks; never past S5_JUDGE (only the judge decides QUALIFIED)."""
    state, notes = state_table()["initial"], []
    for to, before in ADOPT_PATH:
        met = True
        for guard in state_table().get("guards", []):
            if guard["to"] == to and not guard.get("optional"):
                ok, detail = _guard_ok(guard, task_dir, cfg)
                detail = detail.replace(str(task_dir) + "/", "")
                notes.append(f"{to}: {'ok' if ok else 'not met'} ({detail})")
                met = met and ok
        if not met:
            return before, notes
        state = to
    return state, notes


def init_state(task_dir: str | Path, task_id: str | None = None, *, date: str | None = None,
               force: bool = False, adopt: bool = False) -> Path:
    """Write a fresh PIPELINE_STATE.md in S1_SCREENING; refuses to overwrite unless force.

    `adopt`: a legacy or graduated task that never had a state file is entered at the
    state its records support (adopt_target), with one History row naming the evidence.
    """
    d = Path(task_dir)
    if not d.is_dir():
        raise InputError(str(d), "not a task folder (no such directory)")
    path = d / STATE_NAME
    table = state_table()
    init, history = table["initial"], ""
    day = date or today()
    if adopt:
        init, notes = adopt_target(d, load_config(d))
        history = (f"| 1 | {day} | (none) | {init} | adopted by `gavel task init --adopt` "
                   f"from the task's records: {'; '.join(notes).replace('|', '/')} |\n")
    with locked(path):
        if path.exists() and not force:
            raise FileExistsError(str(path))
        text = TEMPLATE.format(
            task_id=task_id or d.resolve().name, state=init,
            stage=table["states"][init]["stage"], date=day, history=history,
            todo="\n".join(f"- [ ] {t}" for t in table["states"][init]["todo"]),
            forbidden="\n".join(f"- `{g['to']}`: {g['why']}" for g in table["guards"]
                                 if not g.get("optional")))
        atomic_write(path, text)
    return path
