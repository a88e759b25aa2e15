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

import re
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

__all__ = ["PASSING", "assemble", "expected_ids", "node_outcome", "usage_error"]
_USAGE = re.compile(r"unrecognized arguments: (.+)|file or directory not found: (\S+)|"
                    r"error: argument ([^:]+):|ERROR: usage:")
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


def _combined(d: dict[str, str]) -> str:
    from gavelkit.task.pipeline.digests import combined

    return combined(d)


def usage_error(fr: Any, oracle_args: list[str]) -> str | None:
    """When pytest rejected its command line: whose option it was ("gavel" or "oracle")."""
    text = fr.stderr or ""
    if fr.returncode != 4 and "ERROR: usage:" not in text:
        return None
    m = _USAGE.search(text)
    if m is None:
        return None
    bad = " ".join(g for g in m.groups() if g).split()
    if bad and any(tok in oracle_args or any(a.startswith(tok) for a in oracle_args)
                   for tok in bad):
        return "oracle"
    return "gavel"


def _missing(fr: Any, fm: FileMessages, f: str, shared: bool,
             oracle_args: list[str]) -> Any:
    """The outcome of a node the process said nothing about, from why it did not."""
    collect_err = collect_error_for(fm, f, shared)

    def decide(nid: str) -> tuple[str, dict[str, Any]]:
        if usage_error(fr, oracle_args) == "gavel":
            return "error", {"phase": "process", "longrepr": "[gavel command line rejected by "
                             "pytest] gavel built a command line pytest refused (a gavel defect, "
                             "not the environment, the oracle or the solution): "
                             + fr.stderr.strip()[-1200:]}
        if fr.killed:
            return "timeout", {"phase": "file", "longrepr": "test process killed after "
                               f"{fr.seconds:.0f} s (wall limit)"}
        if collect_err is not None:
            return "collection_error", {"phase": "collect",
                                        "longrepr": collect_err.get("longrepr", "")}
        if fm.ended is None:
            return "not_collected", {"phase": "process", "longrepr": "the test process ended "
                                     f"without a result for this node (exit {fr.returncode}): "
                                     + (fr.stderr.strip()[-1500:] or fr.stdout.strip()[-1500:])}
        return "not_collected", {"phase": "collect", "longrepr": "node id not collected" + (
            f"; the file collected {len(fm.collected)} other id(s)" if fm.collected else "")}
    return decide


def _oracle_missing(nid: str, why: str) -> Outcome:
    return Outcome(nid, "not_collected", {"phase": "oracle", "longrepr": why,
                                          "returncode": 0, "stderr_tail": ""})


def _round(rnd: dict[str, Any], expected: list[str], oracle_args: list[str],
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
        res[f] = file_outcomes(exp, fr, fm, _missing(fr, fm, f, shared, oracle_args))
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
        channel.tamper += [{"file": f, **m} for m in fm.tamper]
    expanded = {o.nodeid for o in outs if o.expanded_from}
    for nid in fm.order:
        if nid in exp_set or nid in expanded:
            continue
        if file_of(nid) == f or (first and file_of(nid) not in expected_files):
            channel.extra_ids.append(nid)
    channel.forged_reports += [o.nodeid for o in outs if o.forged]
    # ids the file does not have are not failures pytest would count
    any_fail = any(o.outcome not in (*PASSING, "skipped", "not_collected") for o in outs)
    if fm.ended is None and not fr.killed and first:
        channel.no_end_message.append(f)
    if fr.returncode == 0 and any_fail:
        channel.exit_status_mismatch.append(f)
    if fm.ended is not None and int(fm.ended.get("exitstatus", -1)) != fr.returncode \
            and fr.returncode >= 0 and first:
        channel.exit_status_mismatch.append(f)


def _reference_outcomes(reference: dict[str, Any] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    if reference and isinstance(reference.get("cases"), list):
        for c in reference["cases"]:
            if isinstance(c, dict) and isinstance(c.get("nodeid"), str):
                out[c["nodeid"]] = str(c.get("outcome", ""))
    return out


def _counted(o: Outcome, role: str, ref_out: dict[str, str]) -> tuple[str, str]:
    """(counted as, note): what an outcome counts as in the score."""
    if o.outcome in PASSING:
        return "passed", ""
    if o.outcome == "skipped" and role == "candidate" and ref_out.get(o.nodeid) != "skipped":
        return "failed", ("skip caused by the candidate (the reference does not skip it) "
                          "counts as a failure")
    return o.outcome, ""


def _case(o: Outcome, counted: str, note: str, layer: Any, flaky: bool, ctx: Any) -> dict[str, Any]:
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
    for key in ("crash", "longrepr"):
        if d.get(key):
            call[key] = d[key]
    case["call"] = call
    if counted not in ("passed", "skipped"):
        case["classification"] = classify_case(case, d, ctx)
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


def _channel_findings(task: Task, channel: Channel, flaky: set[str], n_rounds: int,
                      cases: list[dict[str, Any]], expected: list[str]) -> list[Finding]:
    where = str(task.dir)
    out: list[Finding] = []
    if expected and not any(c["outcome"] not in ("collection_error", "not_collected")
                            for c in cases):
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
             missing_files: dict[str, str] | None = None) -> dict[str, Any]:
    """Reconcile the plugin messages of every file (and round) against the expected ids."""
    from gavelkit.task.scoring.classify import context_for

    ref_out = _reference_outcomes(reference)
    ctx = ctx or context_for(task, opts)
    channel = Channel()
    missing = missing_files or {}
    per_round = [_round(rnd, expected, oracle_args or [], channel if i == 0 else None, missing)
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
    cases = [_case(o, *_counted(o, opts.role, ref_out), layer, o.nodeid in flaky, ctx)
             for o in base]
    summary, detail_counts, by_layer = _tally(cases)
    denom = summary["total"] - summary["skipped"]
    findings += _channel_findings(task, channel, flaky, len(rounds), cases, expected)
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
        },
    }
