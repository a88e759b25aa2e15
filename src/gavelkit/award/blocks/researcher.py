"""The evidence-researcher contract: search backend, queries, citations (reference §1.6).

A researcher must say which search backends actually answered; degrading to a single
backend or to none must be explained, and "none" means the handoff is blocked. The
backends are data (roles.yaml), shared with `gavel award schema handoff`.
"""

from __future__ import annotations

from gavelkit.award.blocks.checks import Ctx, describe, ipos, nonblank, vpos
from gavelkit.core.yamlload import PosDict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def check_researcher(ctx: Ctx, body: PosDict, role: dict[str, Any]) -> None:
    backends, query_backends = tuple(role["backends"]), tuple(role["query_backends"])
    sb = body.get("search_backend")
    if "search_backend" in body and sb not in backends:
        ctx.error("AWD-R001", f"search_backend must be {'|'.join(backends)}, got "
                  f"{describe(sb)}", vpos(body, "search_backend"))
        sb = None
    for key in ("queries_run", "missing_evidence", "citations_to_verify"):
        if key in body and not isinstance(body[key], list):
            ctx.error("AWD-R002", f"'{key}' must be a list, got {describe(body[key])}",
                      vpos(body, key))
    queries = body.get("queries_run")
    used = _queries(ctx, queries, query_backends) if isinstance(queries, list) else set()
    _citations(ctx, body.get("citations_to_verify"))
    missing = body.get("missing_evidence")
    reason = isinstance(missing, list) and any(nonblank(m) for m in missing)
    n_queries = len(queries) if isinstance(queries, list) else 0
    _backend_agrees(ctx, body, sb, used, query_backends, reason, n_queries)


def _queries(ctx: Ctx, queries: list[Any], query_backends: tuple[str, ...]) -> set[str]:
    """Check each {query, backend, accepted, rejected}; the backends that answered."""
    used: set[str] = set()
    for i, q in enumerate(queries):
        where = ipos(queries, i)
        if not isinstance(q, dict):
            ctx.error("AWD-R002", f"queries_run[{i}] must be a mapping {{query, backend, "
                      "accepted: [], rejected: []}", where)
            continue
        if not nonblank(q.get("query")):
            ctx.error("AWD-R002", f"queries_run[{i}] query must be a non-empty string", where)
        for k in ("accepted", "rejected"):
            if not isinstance(q.get(k), list):
                ctx.error("AWD-R002", f"queries_run[{i}] '{k}' must be a list", where)
        b = q.get("backend")
        if b in query_backends:
            used.add(b)
        else:
            ctx.error("AWD-R002", f"queries_run[{i}] backend must be {'|'.join(query_backends)},"
                      f" got {describe(b)}", where)
    return used


def _citations(ctx: Ctx, cites: Any) -> None:
    if not isinstance(cites, list):
        return
    for i, c in enumerate(cites):
        where = ipos(cites, i)
        if not isinstance(c, dict):
            ctx.error("AWD-R003", f"citations_to_verify[{i}] must be a mapping", where)
            continue
        for k in ("id", "claim", "source", "url"):
            if not nonblank(c.get(k)):
                ctx.error("AWD-R003", f"citations_to_verify[{i}] {k} must be a non-empty "
                          "string", where)
        if not isinstance(c.get("verified"), bool):
            ctx.error("AWD-R003", f"citations_to_verify[{i}] verified must be true or false, "
                      f"got {describe(c.get('verified'))}", where)


def _backend_agrees(ctx: Ctx, body: PosDict, sb: Any, used: set[str],
                    query_backends: tuple[str, ...], reason: bool, n_queries: int) -> None:
    """The declared backend matches the queries that ran; degradations are explained."""
    where = vpos(body, "search_backend")
    if sb == "combined" and used != set(query_backends):
        ctx.error("AWD-R004", f"combined search_backend needs queries from {' and '.join(query_backends)}"
                  f" (got {', '.join(sorted(used)) or 'none'})", where)
    elif sb in query_backends:
        if used != {sb}:
            ctx.error("AWD-R004", f"{sb} search_backend needs only {sb} queries, at least one "
                      f"(got {', '.join(sorted(used)) or 'none'})", where)
        if not reason:
            ctx.error("AWD-R005", f"{sb} search_backend is a degradation: missing_evidence must "
                      "give a non-empty reason", where)
    elif sb == "none":
        if body.get("status") != "blocked":
            ctx.error("AWD-R006", "search_backend none means no search ran: status must be "
                      f"blocked, got {describe(body.get('status'))}", where)
        if n_queries:
            ctx.error("AWD-R006", f"search_backend none but queries_run lists {n_queries} "
                      "quer(y/ies)", where)
        if not reason:
            ctx.error("AWD-R005", "search_backend none needs a non-empty missing_evidence reason",
                      where)
