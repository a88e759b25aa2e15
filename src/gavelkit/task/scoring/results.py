"""Reading a run's results: per-node outcomes reconciled against the expected node ids.

Every expected node gets exactly one outcome (a base id pytest expands into parametrised
instances: one per instance, see `reconcile`), decided from the authenticated reports of
the process that ran its file (raw call result and final report, cross-checked), or, when
it has none, from why not: the process was killed (timeout), the file did not collect
(collection_error), the oracle file is missing, the process died first (not_collected with
its exit status and stderr), the environment could not be built, or pytest rejected the
command line (then whose option it was decides the blame: gavel's own is infrastructure,
never the environment). Extra ids, forged reports, exit-status disagreements and tampering
become TSK-X findings; failing nodes are classified (`classify`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from gavelkit.core.findings import Finding
from gavelkit.task.formats.load import Task
from gavelkit.task.formats.nodeids import base_nodeid, file_of
from gavelkit.task.scoring.reconcile import (
    PASSING,
    FileMessages,
    Outcome,
    collect_error_for,
    file_outcomes,
    node_outcome,
    parse_messages,
)
from gavelkit.task.scoring.worktree import expected_ids

__all__ = ["PASSING", "assemble", "expected_ids", "node_outcome"]
SUMMARY_KEYS = ("passed", "failed", "error", "skipped", "timeout", "collection_error",
                "not_collected")


@dataclass(slots=True)
class Channel:
    """What the result channel itself showed: forged or unauthenticated lines, ids nobody
    asked for, exit statuses that disagree with the outcomes, processes that never ended."""
    forged_reports: list[str] = field(default_factory=list)
    extra_ids: list[str] = field(default_factory=list)
    bad_macs: int = 0
    tamper: list[dict[str, Any]] = field(default_factory=list)
    exit_status_mismatch: list[str] = field(default_factory=list)
    no_end_message: list[str] = field(default_factory=list)
    markers: dict[str, list[str]] = field(default_factory=dict)  # skip/xfail marks per node


def _combined(d: dict[str, str]) -> str:
    from gavelkit.task.pipeline.digests import combined

    return combined(d)


def _missing(fr: Any, fm: FileMessages, f: str, shared: bool, role: str) -> Any:
    """The outcome of a node the process said nothing about, from why it did not; who is
    to blame comes from gavel's own evidence (its plugin's authenticated messages, the
    parent's kill), never from text the process printed."""
    collect_err = collect_error_for(fm, f, shared)

    def decide(nid: str) -> tuple[str, dict[str, Any]]:
        if fm.usage:
            return "error", {"phase": "usage", "longrepr": "[gavel command line rejected by "
                             "pytest] gavel built a command line pytest refused (a gavel defect, "
                             "not the environment, the oracle or the solution): unknown "
                             + " ".join(fm.usage)}
        if fr.killed:
            return "timeout", {"phase": "file", "longrepr": fr.watchdog or "test process "
                               f"killed after {fr.seconds:.0f} s (wall limit)"}
        if collect_err is not None:
            d = {"phase": "collect", "longrepr": collect_err.get("longrepr", "")}
            origin = fm.collect_origins.get(str(collect_err.get("nodeid", "")))
            return "collection_error", {**d, "origin": origin} if origin else d
        if fm.ended is None:
            return "not_collected", _died(fr, fm, role)
        return "not_collected", {"phase": "collect", "longrepr": "node id not collected" + (
            f"; the file collected {len(fm.collected)} other id(s)" if fm.collected else "")}
    return decide


def _died(fr: Any, fm: FileMessages, role: str) -> dict[str, Any]:
    """Why a process that ended without pytest's end left this node without a result."""
    tail = fr.stderr.strip()[-1500:] or fr.stdout.strip()[-1500:]
    if fr.launch_error:
        return {"phase": "launch", "longrepr": fr.launch_error}
    if not fm.loaded:
        return {"phase": "gavel", "longrepr": "gavel's result plugin never started (the test "
                f"process ended first, exit {fr.returncode}): {tail}"}
    if fm.conftests and role == "candidate":
        return {"phase": "crash", "longrepr": "the test process ended (exit "
                f"{fr.returncode}) after the oracle's conftest.py files began importing the "
                f"code under test, before pytest finished: {tail}"}
    return {"phase": "process", "longrepr": "the test process ended without a result for "
            f"this node (exit {fr.returncode}): {tail}"}


def _oracle_missing(nid: str, why: str) -> Outcome:
    return Outcome(nid, "not_collected", {"phase": "oracle", "longrepr": why,
                                          "returncode": 0, "stderr_tail": ""})


def _round(rnd: dict[str, Any], expected: list[str], role: str,
           channel: Channel | None, missing_files: dict[str, str]) -> list[Outcome]:
    """Every expected node's outcome in one round, in the expected order."""
    by_file: dict[str, list[str]] = {}
    for n in expected:
        by_file.setdefault(file_of(n), []).append(n)
    parsed: dict[int, FileMessages] = {}
    res: dict[str, list[Outcome]] = {}
    exp_set = set(expected)
    for f, fr in rnd.items():
        shared = sum(1 for x in rnd.values() if x is fr) > 1
        first = id(fr) not in parsed
        fm = parsed[id(fr)] = parsed.get(id(fr)) or parse_messages(fr.messages)
        exp = by_file.get(f, [])
        res[f] = file_outcomes(exp, fr, fm, _missing(fr, fm, f, shared, role))
        if channel is not None:
            _watch(channel, fr, fm, f, exp, first, exp_set, set(by_file), res[f])
    out: list[Outcome] = []
    for f, ids in by_file.items():
        if f in missing_files:
            out += [_oracle_missing(n, missing_files[f]) for n in ids]
        else:
            out += res.get(f) or [Outcome(n, "not_collected", {"phase": "none",
                                                               "longrepr": "not run"})
                                  for n in ids]
    return out


def _watch(channel: Channel, fr: Any, fm: FileMessages, f: str, exp: list[str], first: bool,
           exp_set: set[str], expected_files: set[str], outs: list[Outcome]) -> None:
    """The channel evidence of one file of one process."""
    if first:
        channel.bad_macs += fr.bad_macs
        channel.tamper += [{"file": f, **m} for m in fm.tamper if m.get("where") != "test-code"]
        channel.markers.update(fm.markers)
    expanded = {o.nodeid for o in outs if o.expanded_from}
    channel.extra_ids += [nid for nid in fm.order if nid not in exp_set and nid not in expanded
                          and (file_of(nid) == f or (first and file_of(nid) not in
                                                     expected_files))]
    channel.forged_reports += [o.nodeid for o in outs if o.forged]
    if fm.ended is None and not fr.killed and first:
        channel.no_end_message.append(f)
    if _status_disagrees(fr, fm, outs, first):
        channel.exit_status_mismatch.append(f)


def _status_disagrees(fr: Any, fm: FileMessages, outs: list[Outcome], first: bool) -> bool:
    """pytest's exit status says all passed while a test failed, or differs from the
    status the plugin saw (ids the file does not have are not failures pytest counts)."""
    any_fail = any(o.outcome not in (*PASSING, "skipped", "not_collected") for o in outs)
    if fr.returncode == 0 and any_fail:
        return True
    return fm.ended is not None and first and fr.returncode >= 0 and \
        int(fm.ended.get("exitstatus", -1)) != fr.returncode


def _reference_cases(reference: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    if reference and isinstance(reference.get("cases"), list):
        for c in reference["cases"]:
            if isinstance(c, dict) and isinstance(c.get("nodeid"), str):
                out[c["nodeid"]] = c
    return out


def _counted(o: Outcome, role: str, ref: dict[str, dict[str, Any]],
             declared: Any) -> tuple[str, str]:
    """(counted as, note). A candidate's xfail, xpass or skip counts as the oracle meant
    it only where the reference run had the same outcome (or, without a reference run,
    where the oracle's own files declare it); otherwise it is a failure: the candidate
    can mark, skip or xfail tests at run time."""
    if role != "candidate" or o.outcome not in ("xfail", "xpass", "skipped"):
        return ("passed" if o.outcome in PASSING else o.outcome), ""
    want = ("skipped",) if o.outcome == "skipped" else ("xfail", "xpass")
    r = ref.get(o.nodeid)
    if r is not None:
        ok = str(r.get("outcome")) in want
    else:
        from gavelkit.task.formats.nodeids import func_key

        ok = declared is not None and declared.allows(func_key(o.nodeid), o.outcome)
    if ok:
        return ("skipped" if o.outcome == "skipped" else "passed"), ""
    what = {"skipped": "skip", "xfail": "expected failure", "xpass": "unexpected pass"}[
        o.outcome]
    return "failed", (f"{what} that neither the reference run nor the oracle declares (the "
                      "candidate's doing) counts as a failure")


def _blame(case: dict[str, Any], cls: dict[str, str], ref: dict[str, dict[str, Any]],
           role: str) -> dict[str, str]:
    """A candidate's failure is put elsewhere only where the reference run failed the same
    test: the reference is gavel's control, the failure's own text never decides."""
    if role != "candidate" or not ref:
        return cls
    r = ref.get(case["nodeid"])
    if r is None:
        return cls
    if r.get("counted_as") in ("passed", "skipped"):
        if cls.get("class") == "candidate":
            return cls
        return {"class": "candidate", "rule": "reference-passes",
                "signal": "the reference run passes this test: its failure here is the "
                "candidate's (the failure's text said " + cls.get("rule", "?") + ")",
                "evidence": cls.get("evidence", "")}
    rc = r.get("classification")
    if isinstance(rc, dict) and rc.get("class") and rc.get("class") != "candidate":
        return {**rc, "signal": f"{rc.get('signal', '')} (as in the reference run)"}
    return cls


def _case(o: Outcome, counted: str, note: str, layer: Any, flaky: bool, ctx: Any,
          ref: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    from gavelkit.task.scoring.classify import classify_case

    d = o.detail
    case: dict[str, Any] = {"nodeid": o.nodeid, "base_nodeid": base_nodeid(o.nodeid),
                            "layer": layer(o.nodeid), "file": file_of(o.nodeid),
                            "outcome": o.outcome, "counted_as": counted}
    if o.expanded_from:
        case["expanded_from"] = o.expanded_from
    if note:
        case["note"] = note
    if flaky:
        case["flaky"] = True
    call: dict[str, Any] = {"outcome": o.outcome, "phase": d.get("phase"),
                            "duration": round(float(d.get("duration") or 0), 6)}
    for key in ("crash", "longrepr", "origin"):
        if d.get(key):
            call[key] = d[key]
    case["call"] = call
    if counted not in ("passed", "skipped"):
        case["classification"] = _blame(case, classify_case(case, d, ctx), ref or {},
                                        ctx.role)
    return case


def _tally(cases: list[dict[str, Any]]) -> tuple[dict[str, int], dict[str, int],
                                                 dict[str, dict[str, int]]]:
    summary = dict.fromkeys(SUMMARY_KEYS, 0)
    detail_counts: dict[str, int] = {}
    by_layer: dict[str, dict[str, int]] = {}
    for c in cases:
        counted = c["counted_as"]
        summary[counted if counted in summary else "failed"] += 1
        detail_counts[c["outcome"]] = detail_counts.get(c["outcome"], 0) + 1
        bl = by_layer.setdefault(c["layer"], {"total": 0})
        bl[counted] = bl.get(counted, 0) + 1
        bl["total"] += 1
    summary["total"] = len(cases)
    return summary, detail_counts, by_layer


def _flaky(rounds: list[list[Outcome]]) -> set[str]:
    """Nodes passing in some rounds and not in others (absent from a round: not passing)."""
    ids = {o.nodeid for r in rounds for o in r}
    passing = [{o.nodeid for o in r if o.outcome in PASSING} for r in rounds]
    return {n for n in ids if len({n in p for p in passing}) > 1}


def foreign_markers(markers: dict[str, list[str]], reference: dict[str, Any] | None,
                    declared: Any, role: str) -> dict[str, list[str]]:
    """Skip and xfail marks a candidate's tests carried that the oracle does not put there:
    not the reference run's (when it recorded its marks), not in the oracle's files."""
    if role != "candidate":
        return {}
    from gavelkit.task.formats.nodeids import func_key

    ref = ((reference or {}).get("gavel") or {}).get("markers")

    def extra(nid: str, names: list[str]) -> list[str]:
        if isinstance(ref, dict):
            return sorted(set(names) - set(ref.get(nid) or []))
        return [n for n in names if declared is None or not declared.allows(func_key(nid), n)]
    return {nid: got for nid, names in markers.items() if (got := extra(nid, names))}


def _channel_findings(task: Task, channel: Channel, flaky: set[str], n_rounds: int,
                      cases: list[dict[str, Any]], expected: list[str],
                      foreign: dict[str, list[str]]) -> list[Finding]:
    where = str(task.dir)
    out: list[Finding] = []
    if foreign:
        first = next(iter(foreign))
        out.append(Finding("TSK-X010", "error", f"{len(foreign)} test(s) carried skip/xfail "
                           "marks the oracle does not declare (added at run time), e.g. "
                           f"{first}: {', '.join(foreign[first])}", where, 0, 0,
                           data={"markers": dict(list(foreign.items())[:50])}))
    ran = any(c["outcome"] not in ("collection_error", "not_collected") for c in cases)
    # the candidate's own doing (a crash after its code began to run, a test the reference
    # passes) is a measured 0 %, not an invalid run
    theirs = any((c.get("classification") or {}).get("rule") in (
        "reference-passes", "candidate-crash") for c in cases)
    if expected and not ran and not theirs:
        out.append(Finding("TSK-X009", "error", f"0 of {len(expected)} expected node ids "
                           "ran: the run measured nothing (an invalid run, not 0 %)",
                           where, 0, 0))
    if channel.forged_reports:
        out.append(Finding("TSK-X010", "error", f"{len(channel.forged_reports)} test report(s) "
                           "said passed while the test raised (reports forged in the test "
                           "process); counted as failed", where, 0, 0,
                           data={"nodeids": channel.forged_reports[:50]}))
    if channel.tamper:
        what = sorted({c for t in channel.tamper for c in t.get("changed", [])})
        out.append(Finding("TSK-X010", "error", "pytest's reporting machinery was replaced at "
                           f"run time: {', '.join(what)}", where, 0, 0))
    if channel.bad_macs:
        out.append(Finding("TSK-X010", "error", f"{channel.bad_macs} result line(s) failed "
                           "authentication (written by someone else than gavel's plugin) and "
                           "were ignored", where, 0, 0))
    if channel.extra_ids:
        out.append(Finding("TSK-X011", "warning", f"{len(channel.extra_ids)} reported node "
                           "id(s) are not in the expected set and were ignored: "
                           + ", ".join(channel.extra_ids[:5]), where, 0, 0))
    if channel.exit_status_mismatch:
        out.append(Finding("TSK-X012", "error", "pytest's exit status disagrees with the "
                           "per-test outcomes in " + ", ".join(sorted(set(
                               channel.exit_status_mismatch))) + " (exit status reset or "
                           "results suppressed)", where, 0, 0))
    if channel.no_end_message:
        out.append(Finding("TSK-X013", "warning", "the test process ended before pytest "
                           "finished in " + ", ".join(channel.no_end_message) + " (crash, "
                           "os._exit or a resource limit); missing nodes count as failed",
                           where, 0, 0))
    if flaky:
        out.append(Finding("TSK-X014", "warning", f"{len(flaky)} node(s) changed outcome "
                           f"across {n_rounds} runs (flaky): " + ", ".join(sorted(flaky)[:5]),
                           where, 0, 0, data={"flaky": sorted(flaky)}))
    return out


def assemble(task: Task, expected: list[str], expected_src: str, rounds: list[dict[str, Any]],
             layer: Any, reference: dict[str, Any] | None, opts: Any,
             findings: list[Finding], env_error: str = "",
             oracle_args: list[str] | None = None, ctx: Any = None,
             missing_files: dict[str, str] | None = None,
             declared: Any = None) -> dict[str, Any]:
    """Reconcile the plugin messages of every file (and round) against the expected ids."""
    from gavelkit.task.scoring.classify import context_for

    ref = _reference_cases(reference)
    ctx = ctx or context_for(task, opts)
    channel = Channel()
    missing = missing_files or {}
    per_round = [_round(rnd, expected, opts.role, channel if i == 0 else None, missing)
                 for i, rnd in enumerate(rounds)]
    base = per_round[0] if per_round else []
    if env_error:  # nothing ran: each node says why, and it is the environment's failure
        base = [Outcome(nid, "error", {"phase": "environment", "longrepr": "scoring "
                                       f"environment could not be built: {env_error}"})
                for nid in expected]
    elif not rounds:
        base = [_oracle_missing(n, missing[file_of(n)]) if file_of(n) in missing else
                Outcome(n, "not_collected", {"phase": "none", "longrepr": "not run"})
                for n in expected]
    flaky = _flaky(per_round) if len(per_round) > 1 else set()
    cases = [_case(o, *_counted(o, opts.role, ref, declared), layer, o.nodeid in flaky, ctx,
                   ref) for o in base]
    summary, detail_counts, by_layer = _tally(cases)
    denom = summary["total"] - summary["skipped"]
    foreign = foreign_markers(channel.markers, reference, declared, opts.role)
    findings += _channel_findings(task, channel, flaky, len(rounds), cases, expected, foreign)
    classes: dict[str, int] = {}
    for c in cases:
        if "classification" in c:
            k = c["classification"]["class"]
            classes[k] = classes.get(k, 0) + 1
    return {
        "summary": summary,
        "pass_rate_excluding_skips": summary["passed"] / denom if denom > 0 else None,
        "by_layer": by_layer,
        "cases": cases,
        "gavel": {
            "schema": 1, "expected_from": expected_src, "outcomes": detail_counts,
            "rounds": len(rounds), "flaky": sorted(flaky), "classification": classes,
            "channels": asdict(channel),
            "collected_ok": any(c["outcome"] not in ("collection_error", "not_collected")
                                for c in cases),
            "expanded_ids": sum(1 for c in cases if c.get("expanded_from")),
            "markers": channel.markers,
        },
    }
