"""From per-test reports to score_result.json: the outcome of a node id, the expected ids (the task's, never the candidate's), and the assembled score."""

from __future__ import annotations

from typing import Any

from gavelkit.core.findings import Finding
from gavelkit.task.formats.load import Task
from gavelkit.task.formats.nodeids import base_nodeid, file_of
from gavelkit.task.scoring.options import RunOptions

PASSING = ("passed", "xfail", "xpass")
def node_outcome(reports: list[dict[str, Any]]) -> tuple[str, dict[str, Any], bool]:
    """(outcome, the deciding phase report, forged?) from a node's phase reports."""
    by = {r["when"]: r for r in reports}
    forged = False
    for r in reports:
        raw = r.get("raw") or {}
        if r["outcome"] == "passed" and raw.get("kind") in ("exception", "timeout") \
                and not r.get("wasxfail"):
            forged = True
    if any(r.get("timeout") for r in reports):
        dec = next(r for r in reports if r.get("timeout"))
        return "timeout", dec, forged
    setup = by.get("setup")
    if setup and setup["outcome"] == "failed":
        return "error", setup, forged
    if setup and setup["outcome"] == "skipped":
        return ("xfail" if setup.get("wasxfail") else "skipped"), setup, forged
    call = by.get("call")
    if call is None:
        return "error", setup or reports[-1], forged
    raw = call.get("raw") or {}
    if forged or call["outcome"] == "failed":
        out = "failed"
    elif call["outcome"] == "skipped":
        out = "xfail" if call.get("wasxfail") else "skipped"
    elif call.get("wasxfail"):
        out = "xpass"
    else:
        out = "passed"
    if raw.get("kind") == "exception" and out == "passed":
        out, forged = "failed", True
    td = by.get("teardown")
    if td and td["outcome"] == "failed" and out in PASSING:
        return "error", td, forged
    return out, call, forged


def expected_ids(task: Task, reference: dict[str, Any] | None) -> tuple[list[str], str]:
    if task.kept is not None and task.kept.ids:
        return list(task.kept.ids), task.rel(task.paths["kept"])
    if reference and isinstance(reference.get("cases"), list):
        ids = [c["nodeid"] for c in reference["cases"] if isinstance(c, dict) and "nodeid" in c]
        if ids:
            return ids, "reference run"
    from gavelkit.task.gates.gate_e import scoring_set

    ids = scoring_set(task)
    return ids, "spec_test_map.md / task.json taxonomy" if ids else "none"


def _combined(d: dict[str, str]) -> str:
    from gavelkit.task.pipeline.digests import combined

    return combined(d)


def assemble(task: Task, expected: list[str], expected_src: str, rounds: list[dict[str, Any]],
             layer: Any, reference: dict[str, Any] | None, opts: RunOptions,
             findings: list[Finding]) -> dict[str, Any]:
    """Reconcile the plugin messages of every file (and round) against the expected ids."""
    from gavelkit.task.scoring.classify import classify_case, context_for

    ref_out: dict[str, str] = {}
    if reference and isinstance(reference.get("cases"), list):
        for c in reference["cases"]:
            if isinstance(c, dict) and isinstance(c.get("nodeid"), str):
                ref_out[c["nodeid"]] = str(c.get("outcome", ""))
    ctx = context_for(task, opts)
    outcomes_by_round: list[dict[str, tuple[str, dict[str, Any]]]] = []
    channel = {"forged_reports": [], "extra_ids": [], "bad_macs": 0, "tamper": [],
               "exit_status_mismatch": [], "no_end_message": []}
    expected_files = {file_of(n) for n in expected}
    for rnd in rounds:
        res: dict[str, tuple[str, dict[str, Any]]] = {}
        seen_runs: set[int] = set()
        for f, fr in rnd.items():
            shared = sum(1 for x in rnd.values() if x is fr) > 1
            first = id(fr) not in seen_runs
            seen_runs.add(id(fr))
            reports: dict[str, list[dict[str, Any]]] = {}
            collect_err = None
            ended = None
            collected: list[str] = []
            if first:
                channel["bad_macs"] += fr.bad_macs
            for m in fr.messages:
                t = m.get("t")
                if t == "report":
                    reports.setdefault(m["nodeid"], []).append(m)
                elif t == "collect_error":
                    where = str(m.get("nodeid", ""))
                    mine = (not shared or where in ("", f) or f.startswith(where + "/")
                            or where.startswith(f + "::"))
                    if mine:
                        collect_err = collect_err or m
                elif t == "end":
                    ended = m
                elif t == "collected":
                    collected = list(m.get("ids", []))
                elif t == "tamper" and first:
                    channel["tamper"].append({"file": f, **m})
            exp = [n for n in expected if file_of(n) == f]
            exp_set = set(exp)
            for nid in reports:
                if nid not in exp_set and (file_of(nid) == f or (
                        first and file_of(nid) not in expected_files)):
                    channel["extra_ids"].append(nid)
            any_fail = False
            for nid in exp:
                reps = reports.get(nid)
                if reps:
                    out, dec, forged = node_outcome(reps)
                    if forged:
                        channel["forged_reports"].append(nid)
                    detail = {"phase": dec.get("when"), "crash": dec.get("crash"),
                              "longrepr": dec.get("longrepr", ""), "duration": sum(
                                  r.get("duration", 0) for r in reps)}
                elif fr.killed:
                    out, detail = "timeout", {"phase": "file", "longrepr":
                                              f"test file killed after {opts.file_timeout:g} s"}
                elif collect_err is not None:
                    out, detail = "collection_error", {"phase": "collect",
                                                      "longrepr": collect_err.get("longrepr", "")}
                elif ended is None:
                    out, detail = "not_collected", {
                        "phase": "process", "longrepr": "the test process ended without a "
                        f"result for this node (exit {fr.returncode}): "
                        + (fr.stderr.strip()[-1500:] or fr.stdout.strip()[-1500:])}
                else:
                    out, detail = "not_collected", {
                        "phase": "collect", "longrepr": "node id not collected"
                        + (f"; the file collected {len(collected)} other id(s)" if collected
                           else "")}
                detail["returncode"] = fr.returncode
                detail["stderr_tail"] = fr.stderr.strip()[-800:]
                res[nid] = (out, detail)
                any_fail = any_fail or out not in (*PASSING, "skipped")
            if ended is None and not fr.killed and first:
                channel["no_end_message"].append(f)
            if fr.returncode == 0 and any_fail:
                channel["exit_status_mismatch"].append(f)
            if ended is not None and int(ended.get("exitstatus", -1)) != fr.returncode \
                    and fr.returncode >= 0 and first:
                channel["exit_status_mismatch"].append(f)
        outcomes_by_round.append(res)
    base = outcomes_by_round[0] if outcomes_by_round else {}
    flaky = set()
    for nid in expected:
        seen = {r.get(nid, ("missing", {}))[0] in PASSING for r in outcomes_by_round}
        if len(seen) > 1:
            flaky.add(nid)
    cases = []
    summary = {k: 0 for k in ("passed", "failed", "error", "skipped", "timeout",
                              "collection_error", "not_collected")}
    detail_counts: dict[str, int] = {}
    by_layer: dict[str, dict[str, int]] = {}
    for nid in expected:
        out, d = base.get(nid, ("not_collected", {"phase": "none", "longrepr": "not run"}))
        counted = "passed" if out in PASSING else out
        if out == "skipped" and opts.role == "candidate" and ref_out.get(nid) != "skipped":
            counted = "failed"
        lay = layer(nid)
        case: dict[str, Any] = {"nodeid": nid, "base_nodeid": base_nodeid(nid), "layer": lay,
                                "file": file_of(nid), "outcome": out, "counted_as": counted}
        if out == "skipped" and counted == "failed":
            case["note"] = ("skip caused by the candidate (the reference does not skip it) "
                            "counts as a failure")
        if nid in flaky:
            case["flaky"] = True
        call: dict[str, Any] = {"outcome": out, "phase": d.get("phase"),
                                "duration": round(float(d.get("duration") or 0), 6)}
        if d.get("crash"):
            call["crash"] = d["crash"]
        if d.get("longrepr"):
            call["longrepr"] = d["longrepr"]
        case["call"] = call
        if counted not in ("passed", "skipped"):
            cls = classify_case(case, d, ctx)
            case["classification"] = cls
        cases.append(case)
        summary[counted if counted in summary else "failed"] += 1
        detail_counts[out] = detail_counts.get(out, 0) + 1
        bl = by_layer.setdefault(lay, {"total": 0})
        bl[counted] = bl.get(counted, 0) + 1
        bl["total"] += 1
    summary["total"] = len(expected)
    denom = summary["total"] - summary["skipped"]
    rate = summary["passed"] / denom if denom > 0 else None
    collected_any = any(c["outcome"] not in ("collection_error", "not_collected")
                        for c in cases)
    if expected and not collected_any:
        findings.append(Finding("TSK-X009", "error", f"0 of {len(expected)} expected node ids "
                                "ran: the run measured nothing (an invalid run, not 0 %)",
                                str(task.dir), 0, 0))
    if channel["forged_reports"]:
        findings.append(Finding("TSK-X010", "error", f"{len(channel['forged_reports'])} test "
                                "report(s) said passed while the test raised (reports forged "
                                "in the test process); counted as failed",
                                str(task.dir), 0, 0, data={"nodeids": channel["forged_reports"][:50]}))
    if channel["tamper"]:
        what = sorted({c for t in channel["tamper"] for c in t.get("changed", [])})
        findings.append(Finding("TSK-X010", "error", "pytest's reporting machinery was replaced "
                                f"at run time: {', '.join(what)}", str(task.dir), 0, 0))
    if channel["bad_macs"]:
        findings.append(Finding("TSK-X010", "error", f"{channel['bad_macs']} result line(s) "
                                "failed authentication (written by someone else than gavel's "
                                "plugin) and were ignored", str(task.dir), 0, 0))
    if channel["extra_ids"]:
        findings.append(Finding("TSK-X011", "warning", f"{len(channel['extra_ids'])} reported "
                                "node id(s) are not in the expected set and were ignored: "
                                + ", ".join(channel["extra_ids"][:5]), str(task.dir), 0, 0))
    if channel["exit_status_mismatch"]:
        findings.append(Finding("TSK-X012", "error", "pytest's exit status disagrees with the "
                                "per-test outcomes in " + ", ".join(sorted(set(
                                    channel["exit_status_mismatch"]))) + " (exit status "
                                "reset or results suppressed)", str(task.dir), 0, 0))
    if channel["no_end_message"]:
        findings.append(Finding("TSK-X013", "warning", "the test process ended before pytest "
                                "finished in " + ", ".join(channel["no_end_message"])
                                + " (crash, os._exit or a resource limit); missing nodes "
                                "count as failed", str(task.dir), 0, 0))
    if flaky:
        findings.append(Finding("TSK-X014", "warning", f"{len(flaky)} node(s) changed outcome "
                                f"across {len(rounds)} runs (flaky): "
                                + ", ".join(sorted(flaky)[:5]), str(task.dir), 0, 0,
                                data={"flaky": sorted(flaky)}))
    classes: dict[str, int] = {}
    for c in cases:
        if "classification" in c:
            k = c["classification"]["class"]
            classes[k] = classes.get(k, 0) + 1
    return {
        "summary": summary,
        "pass_rate_excluding_skips": rate,
        "by_layer": by_layer,
        "cases": cases,
        "gavel": {
            "schema": 1, "expected_from": expected_src, "outcomes": detail_counts,
            "rounds": len(rounds), "flaky": sorted(flaky), "classification": classes,
            "channels": channel,
            "collected_ok": collected_any,
        },
    }
