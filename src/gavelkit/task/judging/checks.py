"""The judge's checks, one `verdict.Check` each, in the seed's order (see judge.py).

Each function reads what the judge gathered on its `JudgeResult` and appends checks
and findings to it; none decides the verdict (verdict.decide does) and none writes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.task.judging import verdict as V

SOLVABLE = 0.95
SMALL_ORACLE = 30
TAMPER_CODES = {"TSK-X002", "TSK-X008", "TSK-X010", "TSK-X012"}
ENTRY_STATES = ("S5_JUDGE", "S4_DONE")
SPOTCHECK = "judge/spotcheck.md"


def score_problem(score: dict[str, Any] | None) -> str | None:
    """Why a score file cannot be used as a measurement (None: it can)."""
    if score is None:
        return "not a JSON object"
    s = score.get("summary")
    if not isinstance(s, dict):
        return "no 'summary' object"
    for k in ("passed", "total"):
        v = s.get(k)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            return f"summary.{k} is missing or not a count"
    if s["total"] == 0:
        return "it scored nothing (total 0)"
    if s["passed"] > s["total"]:
        return "summary.passed exceeds summary.total"
    cases = score.get("cases")
    if not isinstance(cases, list) or not cases:
        return "no 'cases' list: per-test outcomes are needed for layers and Gate B"
    if not isinstance(score.get("pass_rate_excluding_skips"), int | float):
        return "no pass_rate_excluding_skips"
    return None


def task_json_problem(task: Any) -> str | None:
    """Why task.json cannot carry the judge's record (None: it can)."""
    raw = task.dir / "task.json"
    if raw.exists() and not raw.is_file():
        return "task.json is not a regular file (a directory or a special file)"
    if "task_json" not in task.paths:
        return None  # no task.json at all: the record lives in judge/ only
    tj = task.task_json
    if tj is None:
        return "task.json could not be read"
    if not isinstance(tj.data.get("instance_id", tj.data.get("task_id")), str):
        return "task.json has no instance_id (or task_id) string"
    bad = [f.message for f in task.findings if f.severity == "error"
           and str(f.path).endswith("task.json")]
    return "; ".join(bad[:2]) if bad else None


def entry_refusal(task: Any) -> str | None:
    if task.pipeline is None:
        return None
    st = task.state
    if st in ENTRY_STATES:
        return None
    hint = ("; to re-score the candidate and walk back to S5_JUDGE in one command: "
            "gavel task judge TASK --run RUN --rescore") if st in (
        "REOPENED_S3", "S4_SETUP", "S4_EVAL_RUN", "S4_ANALYSIS") else ""
    return (f"the task is in {st}, not S5_JUDGE: the judge's entry state is S5_JUDGE (seed "
            f"State Machine Interface); nothing was judged or written{hint}")


def gate_ac(res: Any, explicit: str | Path | None) -> None:
    """Gate A (or C for generated-only oracles): a verified spot-check table, or PENDING."""
    from gavelkit.task.gates import spotcheck

    task = res.task
    trig, _, _ = spotcheck.gate_c_triggered(task)
    gate = "C" if trig else "A"
    name = "gate-A/C"
    if task.spec is None or task.map is None:
        missing = " and ".join(n for n, v in (("spec.md", task.spec), ("spec_test_map.md",
                                                                      task.map)) if v is None)
        res.check(name, V.UNVERIFIABLE, f"no {missing}: Gate {gate} samples the map's rows "
                  "(node id -> spec section) and quotes the spec; test-filter writes the map",
                  "spec" if task.spec is None else "filter")
        return
    path = Path(explicit) if explicit else task.dir / SPOTCHECK
    res.spotcheck = {"gate": gate, "path": str(path)}
    if not path.is_file():
        if explicit:
            res.check(name, V.UNVERIFIABLE, f"spot-check table {path} not found")
            return
        n = int(task.config["spotcheck"]["gate_c_min_rows"]) if trig else 8
        res.spotcheck_rows = spotcheck.build(task, n, 0, gate)
        res.spotcheck["prefilled"] = True
        msg = (f"Gate A/C pending: Gate {gate} needs the judge's spot-check table; fill the "
               f"verdict column of {SPOTCHECK} (quote the exact heading), then re-run the judge")
        res.add("TSK-J013", "warning", msg)
        res.check(name, V.PENDING, msg)
        return
    from gavelkit.core.textio import read_text

    try:
        text = read_text(path)
    except InputError as exc:
        res.check(name, V.UNVERIFIABLE, f"spot-check table unreadable: {exc}")
        return
    ver = spotcheck.verify(task, text, str(path), gate)
    res.spotcheck.update({"rows": len(ver.rows), "verdicts": ver.verdicts,
                          "findings": [f.to_dict() for f in ver.findings]})
    neg = [f for f in ver.findings if f.code == "TSK-A007"]
    incomplete = [f for f in ver.findings if f.severity == "error" and f.code != "TSK-A007"]
    if neg:
        msg = f"Gate {gate} FAIL: {neg[0].message}"
        res.add("TSK-J014", "error", msg)
        res.check(name, V.FAIL, msg, "filter")
    elif incomplete or not ver.rows:
        what = incomplete[0].message if incomplete else "the table has no rows"
        msg = (f"Gate A/C pending: {path.name} is not a complete, verified table ({what}, line "
               f"{incomplete[0].line if incomplete else 0}); fill it and re-run the judge")
        res.add("TSK-J013", "warning", msg)
        res.check(name, V.PENDING, msg)
    else:
        res.check(name, V.PASS, f"Gate {gate}: {len(ver.rows)} row(s) verified, all derivable")


def gates_def(res: Any) -> None:
    g = res.gates.results if res.gates else {}
    d = g.get("D")
    src = _gate_d_source(d)
    if d is None or d.verdict not in ("FULL", "PARTIAL", "GAP"):
        res.check("gate-D", V.UNVERIFIABLE, f"coverage audit {d.verdict if d else 'not run'}: "
                  "no coverage source (no spec_test_map.md naming spec sections, no "
                  "oracle.mapping_file, no task.json coverage record)", "filter")
    elif d.verdict == "GAP":
        core = [u["spec section"] for u in d.data.get("uncovered", [])
                if "core" in str(u.get("impact", ""))]
        res.coverage_caveat = d.data.get("coverage_gap") if d.data.get("gap_accepted") else None
        if res.coverage_caveat:
            res.check("gate-D", V.PASS, "GAP accepted as a caveat: task.json coverage_gap "
                      f"records {', '.join(res.coverage_caveat['sections'])} "
                      f"({res.coverage_caveat['reason']}){src}")
        else:
            from gavelkit.task.formats.task_json import COVERAGE_GAP_SHAPE

            res.check("gate-D", V.FAIL, "a core spec section has no oracle coverage ("
                      + ", ".join(core) + f"){src}; or record {COVERAGE_GAP_SHAPE} in "
                      "task.json once test-filter has tried", "filter")
    else:
        res.check("gate-D", V.PASS, d.verdict + src)
    e = g.get("E")
    if e is None or e.verdict not in ("PASS", "FAIL"):
        res.check("gate-E", V.UNVERIFIABLE, f"static quality {e.verdict if e else 'not run'}",
                  "filter")
    elif e.verdict == "FAIL":
        res.check("gate-E", V.FAIL, "static quality checks fail: " + "; ".join(
            f.message for f in e.findings if f.severity == "error")[:300],
            "spec" if spec_side(res) else "filter")
    else:
        res.check("gate-E", V.PASS, "static quality checks pass"
                  + (f" (standard {applied_standard(res)})" if applied_standard(res) else ""))
    f = g.get("F")
    if f is not None and f.verdict == "N/A":
        res.check("gate-F", V.NA, str(f.data.get("not_applied", "")) or "phrasing rules not "
                  f"in the task's standard {f.data.get('standard', '?')}")
    elif f is None or f.verdict not in ("PASS", "FAIL"):
        res.check("gate-F", V.UNVERIFIABLE, f"phrasing {f.verdict if f else 'not run'}", "spec")
    elif f.verdict == "FAIL":
        res.check("gate-F", V.FAIL, "spec phrasing hard checks fail: return to spec-writer",
                  "spec")
    else:
        res.check("gate-F", V.PASS, "spec phrasing hard checks pass")


def applied_standard(res: Any) -> str:
    """The spec standard version gates E/F applied ('' when the gates did not say)."""
    std = res.gates.standard if res.gates else {}
    return str(std.get("applied") or "")


def standard_line(res: Any) -> str:
    """One line for the verdict: the standard the gates judged the task under, and why."""
    std = res.gates.standard if res.gates else {}
    if not std.get("applied"):
        return ""
    line = (f"judged under spec standard {std['applied']} ({std.get('applied_title', '')}; "
            f"{std.get('detected_by', '')})")
    if std["applied"] != std.get("current"):
        line += (f"; the task predates the current standard {std.get('current')}, whose "
                 "findings are summarised, not applied")
    return line


def _gate_d_source(d: Any) -> str:
    """Where Gate D's coverage came from, for the check's reason (the task's own record is
    used as recorded, and says so)."""
    if d is None:
        return ""
    src = d.data.get("source")
    if src == "task_record":
        return (" (from the task's record, not recomputed: task.json coverage.verdict = "
                f"{d.data.get('recorded_verdict')!r})")
    if src == "mapping_file":
        return f" (computed from oracle.mapping_file {d.data.get('source_path', '')})"
    return ""


def gate_b_check(res: Any) -> None:
    gb = res.gate_b
    if gb["verdict"] == "FAIL":
        msg = (f"{gb['verifier']} of {gb['failures']} failures are verifier failures "
               f"({gb.get('why', '')}) and {gb['untraced']} are untraced to the spec: return "
               "filter_correction_request.md to test-filter")
        res.add("TSK-J015", "error", f"Gate B FAIL: {msg}")
        res.check("gate-B", V.FAIL, msg, "filter")
    else:
        res.check("gate-B", V.PASS, f"{gb['verifier']} verifier + {gb['untraced']} untraced of "
                  f"{gb['failures']} failures")


def negative_gap(res: Any) -> None:
    neg = res.metrics.negative_gap if res.metrics else {}
    if neg.get("applies") and neg.get("route"):
        res.check("negative-gap", V.FAIL, "negative gap: " + "; ".join(neg.get("diagnosis", [])),
                  "filter")


def small_oracle(res: Any, score: dict[str, Any]) -> None:
    from gavelkit.task.config import is_generated_only

    total = (score.get("summary") or {}).get("total", 0)
    src = res.task.oracle_source()[0] or ""
    if total < SMALL_ORACLE and is_generated_only(src, res.task.config):
        msg = (f"generated-only oracle with {total} < {SMALL_ORACLE} tests: small-oracle/"
               "exploratory, not QUALIFIED")
        res.add("TSK-J008", "error", msg)
        res.check("oracle-size", V.FAIL, msg, "filter")


def reference_failures(ref: dict[str, Any] | None) -> list[str]:
    cases = (ref or {}).get("cases")
    return [c["nodeid"] for c in (cases if isinstance(cases, list) else [])
            if isinstance(c, dict) and isinstance(c.get("nodeid"), str)
            and c.get("counted_as", c.get("outcome")) not in ("passed", "xfail", "xpass",
                                                              "skipped")]


def gate_b(metrics: Any, task: Any | None = None) -> dict[str, Any]:
    """Failure pattern audit: do failures cluster around verifier problems?"""
    from gavelkit.task.judgedata import for_task

    cfg = for_task("gate_b", task.dir if task else None)
    total = sum(len(c.tests) for c in metrics.clusters)
    ver = sum(len(c.tests) for c in metrics.clusters if c.klass == "verifier")
    untraced = sum(len(c.tests) for c in metrics.clusters if not c.traced_to_spec
                   and c.klass == "candidate")
    share = (ver + untraced) / total if total else 0.0
    verdict = "FAIL" if total and share > float(cfg["fail_share"]) else "PASS"
    rules: dict[str, int] = {}
    for c in metrics.clusters:
        if c.klass == "verifier":
            rules[c.rule or "verifier"] = rules.get(c.rule or "verifier", 0) + len(c.tests)
    return {"verdict": verdict, "failures": total, "verifier": ver, "untraced": untraced,
            "share": round(share, 4), "threshold": cfg["fail_share"],
            "why": ", ".join(f"{n} {r}" for r, n in sorted(rules.items(), key=lambda x: -x[1]))}


def spec_side(res: Any) -> bool:
    e = res.gates.results.get("E") if res.gates else None
    return bool(e) and any(f.severity == "error" and f.code in (
        "TSK-E001", "TSK-E002", "TSK-E003", "TSK-E004", "TSK-E013") for f in e.findings)
