"""Checks of a specialist's `handoff:` block (seed §1), with role keys from roles.yaml."""

from __future__ import annotations

from gavelkit.award.blocks.checks import (
    Ctx,
    describe,
    enum_hint,
    int_field,
    ipos,
    kpos,
    lists,
    nonblank,
    require,
    vpos,
)
from gavelkit.award.blocks.researcher import check_researcher
from gavelkit.award.runs import runpaths
from gavelkit.award.tables import Tables
from gavelkit.core.errors import UsageError
from gavelkit.core.yamlload import PosDict

TYPE_CHECKING = False  # typing costs start-up time that agents pay on every call
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

K = "handoff"


class UnknownAgentError(UsageError):
    """--agent names no known role: a typo must never silently skip the role's checks."""


def known_agent(tables: Tables, agent: str) -> dict[str, Any]:
    if agent not in tables.agents:
        raise UnknownAgentError(
            f"unknown agent {agent!r} (known: {', '.join(sorted(tables.agents))})")
    return tables.agents[agent]


def check_handoff(ctx: Ctx, body: PosDict, tables: Tables, agent: str | None = None,
                  run_dir: Path | None = None, run_id: str | None = None) -> None:
    """Validate one handoff body. `run_dir`, when given, is the run's folder on disk."""
    spec = tables.blocks["handoff"]
    role = known_agent(tables, agent) if agent is not None else None
    require(ctx, body, spec["required"], "AWD-H001", K)
    lists(ctx, body, spec["lists"], "AWD-H002", K)
    lim = tables.limits
    int_field(ctx, body, "phase", "AWD-H002", K, lim["phase_min"], lim["phase_max"], "AWD-H003")
    int_field(ctx, body, "loop", "AWD-H002", K, 0, None, "AWD-H004")
    declared = body.get("agent")
    if "agent" in body and not nonblank(declared):
        ctx.error("AWD-H002", f"handoff: 'agent' must be a non-empty string, got {describe(declared)}",
                  vpos(body, "agent"))
    elif nonblank(declared):
        if agent is not None and declared.strip() != agent:
            ctx.error("AWD-H014", f"handoff agent {declared!r} does not match --agent {agent!r}",
                      vpos(body, "agent"))
        elif declared.strip() not in tables.agents:
            ctx.warn("AWD-H018", f"handoff agent {declared!r} is not a known role",
                     vpos(body, "agent"), hint="known: " + ", ".join(sorted(tables.agents)))
    status = body.get("status")
    if "status" in body and status not in spec["status"]:
        ctx.error("AWD-H005", f"status must be complete|partial|blocked, got {describe(status)}",
                  vpos(body, "status"), hint=enum_hint(status, spec["status"]))
    _artifacts(ctx, body, run_dir, run_id)
    _assumptions(ctx, body, spec["assumption_keys"])
    if role is not None:
        _role_keys(ctx, body, agent or "", role)
        if role.get("contract") == "evidence_researcher":
            check_researcher(ctx, body, role)


def _artifacts(ctx: Ctx, body: PosDict, run_dir: Path | None, run_id: str | None) -> None:
    arts = body.get("artifacts")
    if not isinstance(arts, list):
        return
    expected = run_dir.name if run_dir is not None else run_id
    first_seen: tuple[str, int] | None = None
    for i, art in enumerate(arts):
        where = ipos(arts, i)
        if not isinstance(art, dict):
            ctx.error("AWD-H006", f"artifacts[{i}] must be a mapping with path and role, "
                      f"got {describe(art)}", where)
            continue
        raw = art.get("path")
        if not nonblank(raw):
            ctx.error("AWD-H006", f"artifacts[{i}] has no 'path' (a non-empty string)", where)
            continue
        ppos = vpos(art, "path")
        if "role" not in art:
            ctx.warn("AWD-H011", f"artifacts[{i}] has no 'role'", where)
        v = runpaths.judge_path(raw)
        if not v.ok:
            ctx.error("AWD-H007", f"artifacts[{i}] path {raw!r} {v.problem}; every artifact must "
                      "resolve inside work/<run-id>/", ppos, hint=v.hint)
            continue
        if v.normalized:
            ctx.warn("AWD-H019", f"artifacts[{i}] path {raw!r} is not in normal form",
                     ppos, hint=f"write {v.normalized!r}")
        if expected is not None and v.run_id != expected:
            ctx.error("AWD-H008", f"artifacts[{i}] path {raw!r} belongs to run {v.run_id!r}, "
                      f"not this run {expected!r}", ppos)
            continue
        if expected is None:
            if first_seen is None:
                first_seen = (v.run_id or "", i)
            elif v.run_id != first_seen[0]:
                ctx.error("AWD-H008", f"artifacts[{i}] names run {v.run_id!r} but artifacts"
                          f"[{first_seen[1]}] names run {first_seen[0]!r}; one handoff belongs "
                          "to one run", ppos)
                continue
        if run_dir is not None:
            problem = runpaths.on_disk(run_dir, v.rest)
            if problem == "missing":
                ctx.error("AWD-H009", f"artifacts[{i}] {raw!r} does not exist in {run_dir}", ppos)
            elif problem:
                ctx.error("AWD-H010", f"artifacts[{i}] {raw!r} is a symlink that leaves the run "
                          f"tree (to {problem.split(':', 1)[1]})", ppos)


def _assumptions(ctx: Ctx, body: PosDict, keys: list[str]) -> None:
    items = body.get("assumptions")
    if not isinstance(items, list):
        return
    seen: dict[str, int] = {}
    for i, a in enumerate(items):
        where = ipos(items, i)
        if not isinstance(a, dict):
            ctx.error("AWD-H012", f"assumptions[{i}] must be a mapping "
                      "{id, text, evidence, sensitivity_plan}, got " + describe(a), where)
            continue
        for k in keys:
            if k == "evidence":
                continue
            if not nonblank(a.get(k)):
                ctx.error("AWD-H012", f"assumptions[{i}] needs a non-empty '{k}'", kpos(a, k) if k in a else where)
        ev = a.get("evidence")
        if not _evidence_ok(ev):
            ctx.error("AWD-H013", f"assumptions[{i}] evidence must name a source or say 'assumed', "
                      f"got {describe(ev)}", kpos(a, "evidence") if "evidence" in a else where)
        aid = a.get("id")
        if isinstance(aid, str) and aid.strip():
            if aid in seen:
                ctx.error("AWD-H012", f"assumptions[{i}] repeats id {aid!r} of assumptions"
                          f"[{seen[aid]}]", vpos(a, "id"))
            else:
                seen[aid] = i


def _evidence_ok(ev: Any) -> bool:
    if isinstance(ev, str):
        return bool(ev.strip())
    if isinstance(ev, list):
        return bool(ev) and all(_evidence_ok(x) for x in ev)
    if isinstance(ev, dict):
        return any(_evidence_ok(x) for x in ev.values())
    return False


def _role_keys(ctx: Ctx, body: PosDict, agent: str, role: dict[str, Any]) -> None:
    for key, rule in role.get("keys", {}).items():
        if key not in body:
            ctx.error("AWD-H015", f"missing role-specific key for {agent}: '{key}'", body.pos)
            continue
        value = body[key]
        kind = rule.get("kind")
        where = vpos(body, key)
        if kind == "gate_result":
            _gate_result(ctx, body, key, value, where)
        elif kind == "ledger":
            _ledger(ctx, key, value, rule["id_pattern"], where)
        elif kind == "nonempty" and (value is None or value == "" or value == [] or value == {}):
            ctx.error("AWD-H016", f"'{key}' must not be empty", where)


def _gate_result(ctx: Ctx, body: PosDict, key: str, value: Any, where: tuple[int, int]) -> None:
    if not isinstance(value, dict):
        ctx.error("AWD-H016", f"'{key}' must be {{status: pass|fail, command: ...}}, got "
                  f"{describe(value)}", where)
        return
    st = value.get("status")
    if st not in ("pass", "fail"):
        ctx.error("AWD-H016", f"'{key}.status' must be pass|fail, got {describe(st)}",
                  vpos(value, "status") if "status" in value else where)
    if not nonblank(value.get("command")):
        ctx.error("AWD-H016", f"'{key}.command' must be the exact command that ran the gate",
                  vpos(value, "command") if "command" in value else where,
                  hint="e.g. command: python3 code/run_all.py")
    if st == "fail" and body.get("status") == "complete":
        ctx.error("AWD-H017", f"'{key}' reports status: fail but the handoff says status: "
                  "complete; a failing collision gate cannot be handed off as complete",
                  vpos(value, "status"))


def _ledger(ctx: Ctx, key: str, value: Any, pattern: str, where: tuple[int, int]) -> None:
    import re

    if not isinstance(value, list) or not value:
        ctx.error("AWD-H016", f"'{key}' must be a non-empty list of entries with ids "
                  f"matching {pattern}, got {describe(value)}", where)
        return
    rx = re.compile(pattern)
    seen: set[str] = set()
    for i, item in enumerate(value):
        ip = ipos(value, i)
        iid = item.get("id") if isinstance(item, dict) else None
        if not isinstance(iid, str) or not rx.match(iid):
            ctx.error("AWD-H016", f"'{key}[{i}]' needs an id matching {pattern}, got "
                      f"{describe(iid)}", ip)
        elif iid in seen:
            ctx.error("AWD-H016", f"'{key}[{i}]' repeats id {iid!r}", ip)
        else:
            seen.add(iid)
