"""Per-node outcomes from one test process's authenticated messages.

A process reports phase results per node id; `FileMessages` sorts them by node, and
`file_outcomes` gives every expected node of one file exactly one outcome. An expected id
without a parametrisation suffix that pytest collected only as parametrised instances
(`f.py::t` -> `f.py::t[a]`, `f.py::t[b]`: Bmk-dev keeps base ids on purpose, so that pytest
expands them) becomes one case per instance, each recording the id it was expanded from.
An expected node with no report at all gets its outcome from why not (see `_missing`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gavelkit.task.formats.nodeids import base_nodeid, file_of

PASSING = ("passed", "xfail", "xpass")


@dataclass(slots=True)
class FileMessages:
    """What one process said about one file (or about all, when the process ran several)."""
    reports: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # node ids in the order first reported
    collect_errors: list[dict[str, Any]] = field(default_factory=list)
    ended: dict[str, Any] | None = None
    collected: list[str] = field(default_factory=list)
    tamper: list[dict[str, Any]] = field(default_factory=list)
    other: list[dict[str, Any]] = field(default_factory=list)
    loaded: bool = False  # gavel's plugin started (before any conftest or candidate code)
    conftests: bool = False  # the oracle's conftest.py files (and what they import) began
    usage: list[str] = field(default_factory=list)  # gavel's own options pytest rejects
    markers: dict[str, list[str]] = field(default_factory=dict)  # skip/xfail marks seen
    collect_origins: dict[str, dict[str, Any]] = field(default_factory=dict)
    integrity: dict[str, Any] | None = None


@dataclass(slots=True)
class Outcome:
    """One scored case of a round."""
    nodeid: str
    outcome: str
    detail: dict[str, Any]
    forged: bool = False
    expanded_from: str | None = None


def parse_messages(messages: list[dict[str, Any]]) -> FileMessages:
    """Sort a process's messages by kind and node."""
    fm = FileMessages()
    for m in messages:
        t = m.get("t")
        if t == "report":
            _report(fm, m)
        elif t == "collect_error":
            fm.collect_errors.append(m)
        elif t == "end":
            fm.ended = m
        elif t == "collected":
            fm.collected = [str(x) for x in m.get("ids", [])]
        elif t == "tamper":
            fm.tamper.append(m)
        else:
            _other(fm, t, m)
    return fm


def _report(fm: FileMessages, m: dict[str, Any]) -> None:
    nid = str(m.get("nodeid", ""))
    if nid not in fm.reports:
        fm.reports[nid] = []
        fm.order.append(nid)
    fm.reports[nid].append(m)
    marks = (m.get("raw") or {}).get("marks")
    if marks:
        fm.markers[nid] = sorted(set(fm.markers.get(nid, [])) | set(marks))


def _other(fm: FileMessages, t: Any, m: dict[str, Any]) -> None:
    if t == "loaded":
        fm.loaded = True
    elif t == "conftests":
        fm.conftests = True
    elif t == "usage":
        fm.usage += [str(u) for u in m.get("unknown", [])]
    elif t == "markers" and isinstance(m.get("by"), dict):
        fm.markers.update(m["by"])
    elif t == "collect_origin":
        fm.collect_origins[str(m.get("nodeid", ""))] = m.get("origin") or {}
    elif t == "integrity":
        fm.integrity = m
    else:
        fm.other.append(m)


def collect_error_for(fm: FileMessages, f: str, shared: bool) -> dict[str, Any] | None:
    """The collection error about file `f` (a process that ran several files reports each
    file's own; one that ran only `f` has no other)."""
    for m in fm.collect_errors:
        where = str(m.get("nodeid", ""))
        if not shared or where in ("", f) or f.startswith(where + "/") \
                or where.startswith(f + "::"):
            return m
    return None


def instances(nodeid: str, fm: FileMessages, expected: set[str]) -> list[str]:
    """The parametrised instances pytest reported for a base id (none for an exact hit)."""
    if nodeid in fm.reports or nodeid.endswith("]"):
        return []
    return [n for n in fm.order if n not in expected and n != nodeid
            and base_nodeid(n) == nodeid]


def node_outcome(reports: list[dict[str, Any]]) -> tuple[str, dict[str, Any], bool]:
    """(outcome, the deciding phase report, forged?) from a node's phase reports."""
    by = {r["when"]: r for r in reports}
    forged = any(r["outcome"] == "passed" and (r.get("raw") or {}).get("kind") in (
        "exception", "timeout") and not r.get("wasxfail") for r in reports)
    if any(r.get("timeout") for r in reports):
        return "timeout", next(r for r in reports if r.get("timeout")), forged
    setup = by.get("setup")
    if setup and setup["outcome"] in ("failed", "skipped"):
        return _setup_outcome(setup), setup, forged
    call = by.get("call")
    if call is None:
        return "error", setup or reports[-1], forged
    out = _call_outcome(call, forged)
    if (call.get("raw") or {}).get("kind") == "exception" and out == "passed":
        out, forged = "failed", True
    td = by.get("teardown")
    if td and td["outcome"] == "failed" and out in PASSING:
        return "error", td, forged
    return out, call, forged


def _setup_outcome(setup: dict[str, Any]) -> str:
    if setup["outcome"] == "failed":
        return "error"
    return "xfail" if setup.get("wasxfail") else "skipped"


def _call_outcome(call: dict[str, Any], forged: bool) -> str:
    if forged or call["outcome"] == "failed":
        return "failed"
    if call["outcome"] == "skipped":
        return "xfail" if call.get("wasxfail") else "skipped"
    return "xpass" if call.get("wasxfail") else "passed"


def _reported(nodeid: str, reps: list[dict[str, Any]], expanded_from: str | None) -> Outcome:
    out, dec, forged = node_outcome(reps)
    detail = {"phase": dec.get("when"), "crash": dec.get("crash"),
              "longrepr": dec.get("longrepr", ""),
              "duration": sum(r.get("duration", 0) for r in reps)}
    for key in ("exc", "origin"):
        if (dec.get("raw") or {}).get(key):
            detail[key] = dec["raw"][key]
    return Outcome(nodeid, out, detail, forged, expanded_from)


def file_outcomes(exp: list[str], fr: Any, fm: FileMessages, missing: Any) -> list[Outcome]:
    """One Outcome per expected node of a file (expanded base ids: one per instance);
    `missing(nodeid)` decides for a node the process said nothing about."""
    exp_set = set(exp)
    out: list[Outcome] = []
    for nid in exp:
        reps = fm.reports.get(nid)
        if reps and fr.killed and not any(r.get("when") == "teardown" for r in reps):
            out.append(Outcome(nid, "timeout", {  # the test the process was killed in
                "phase": "call", "longrepr": fr.watchdog or "test process killed after "
                f"{fr.seconds:.0f} s (wall limit)", "returncode": fr.returncode}))
            continue
        if reps:
            out.append(_reported(nid, reps, None))
            continue
        inst = instances(nid, fm, exp_set)
        if inst:
            out += [_reported(i, fm.reports[i], nid) for i in inst]
            continue
        o, detail = missing(nid)
        detail["returncode"] = fr.returncode
        detail["stderr_tail"] = fr.stderr.strip()[-800:]
        out.append(Outcome(nid, o, detail))
    return out


def done_ids(fm: FileMessages) -> set[str]:
    """Node ids whose teardown was reported (ran to the end), with the base id of each
    parametrised instance."""
    done = {n for n, reps in fm.reports.items() if any(r.get("when") == "teardown"
                                                       for r in reps)}
    return done | {base_nodeid(n) for n in done}


def incomplete(fr: Any, files: list[str], expected: list[str]) -> list[str]:
    """Files whose expected nodes a crashed or killed process left without a full result."""
    if not fr.killed and any(m.get("t") == "end" for m in fr.messages):
        return []
    done = done_ids(parse_messages(fr.messages))
    return [f for f in files if any(n not in done for n in expected if file_of(n) == f)]
