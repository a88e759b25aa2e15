"""`judge_run`: the seed's judging order, enforced, ending in a verdict and records.

Order (seed "Hard Checks", then "Diagnostic Procedure"); no score value is read
before step 1 has produced its literal block:

1. preflight: `python -c "import PKG; print(PKG.__file__)"` in the scoring
   environment, recorded verbatim as the report's "Preflight output" block;
2. anti-cheat: the trajectory scan, plus the runner's own tamper evidence
   (forged reports, planted interpreter hooks, oracle rewritten);
3. solvability: the reference run on the same oracle (>= 95 %), with an
   environment diagnosis of its failures when below;
4. fairness: gates D/E/F (static), Gate B from the failure classification,
   the Gate A/C spot-check table for the judge to fill;
5. scores: per-layer rates, gap metrics, clusters, labels, weaknesses.

Then the verdict (QUALIFIED / BROKEN / CHEAT_DETECTED), the route back when a
gate fails, judge/diagnosis_report.md, judge/judge_result.json, the request
files, task.json (through the issue-6 writer: atomic, unknown keys kept) and
the state transition (through the issue-6 state machine). The judge never
writes an oracle file: the oracle digest is compared before and after.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.task.formats.load import Task, load_task

SOLVABLE = 0.95
SMALL_ORACLE = 30
TAMPER_CODES = {"TSK-X002", "TSK-X008", "TSK-X010", "TSK-X012"}
ROUTES = {"spec": "S2_SPEC_DRAFT", "filter": "S3_ORACLE_MERGE", "env": "S4_SETUP",
          "rerun": "S4_EVAL_RUN"}


@dataclass(slots=True)
class JudgeResult:
    task: Task
    run_dir: Path
    verdict: str = "BROKEN"
    route: str | None = None  # spec | filter | env | None
    preflight: Any = None
    scan: Any = None
    run_findings: list[dict[str, Any]] = field(default_factory=list)
    reference: dict[str, Any] | None = None
    reference_rate: float | None = None
    reference_src: str = ""
    reference_diag: list[str] = field(default_factory=list)
    gates: Any = None
    gate_b: dict[str, Any] = field(default_factory=dict)
    spotcheck_rows: list[Any] = field(default_factory=list)
    score: dict[str, Any] | None = None
    metrics: Any = None
    weaknesses: list[dict[str, Any]] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    transition: dict[str, Any] = field(default_factory=dict)
    requests: dict[str, str] = field(default_factory=dict)
    date: str = ""
    steps: list[str] = field(default_factory=list)

    def add(self, code: str, severity: str, message: str, **data: Any) -> None:
        self.findings.append(Finding(code, severity, message,  # type: ignore[arg-type]
                                     str(self.task.dir), 0, 0, data=data or None))


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text("utf-8-sig"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def find_reference(task: Task, explicit: str | Path | None) -> tuple[dict[str, Any] | None, str]:
    cands = []
    if explicit:
        p = Path(explicit)
        cands.append(p / "score_result.json" if p.is_dir() else p)
    cands += [task.dir / "judge" / "reference_run" / "score_result.json"]
    cands += [task.paths["reference_score"]] if "reference_score" in task.paths else []
    for c in cands:
        if c.is_file():
            data = _read_json(c)
            if data is not None:
                return data, str(c)
    return None, ""


def _rate(score: dict[str, Any]) -> float | None:
    from gavelkit.task.formats.score import score_from_dict

    sr, _ = score_from_dict(score, "score")
    return sr.pass_rate


def judge_run(task_dir: str | Path, run_dir: str | Path, *, trajectories: list[str] | None = None,
              reference_run: str | Path | None = None, solution: str | Path | None = None,
              forbid: list[str] | None = None, write: bool = True, move_state: bool = True,
              date: str | None = None) -> JudgeResult:
    from gavelkit.task.anticheat import api as anticheat_api
    from gavelkit.task.pipeline.digests import combined, current_digests

    task = load_task(task_dir)
    bad = [f for f in task.findings if f.unusable]
    if bad:
        raise InputError(bad[0].path, bad[0].message)
    run = Path(run_dir)
    res = JudgeResult(task, run, date=date or _dt.date.today().isoformat())
    oracle_before = combined(current_digests(task))
    score_path = run / "score_result.json" if run.is_dir() else run
    if not score_path.is_file():
        _no_score(res, score_path, move_state)
        raise InputError(str(score_path), "no score_result.json in the run folder: score the "
                         "candidate first (gavel task run); state -> S4_EVAL_RUN when at S5_JUDGE")
    # ---- 1. preflight: before any score value is read
    meta = _read_meta(score_path)
    package = meta.get("package")
    if not package:
        from gavelkit.task.scoring.target import target_package

        package = target_package(task)
    sol = str(solution or meta.get("import_root") or meta.get("solution_dir") or "")
    py = (meta.get("environment") or {}).get("python")
    if package and sol and Path(sol).is_dir():
        res.preflight = anticheat_api.preflight(package, sol, python=py,
                                                remove_paths=meta.get("remove_paths") or [])
    else:
        why = ("no target package known (set task.json package or pass --package)" if not package
               else f"solution folder {sol or '(unknown)'} not found (pass --solution)")
        res.preflight = anticheat_api.Preflight(False, False,
                                                anticheat_api._missing_block(package or "PKG", why),
                                                why)
    res.steps.append("preflight")
    if not res.preflight.available:
        res.add("TSK-J002", "error", f"preflight not run: {res.preflight.reason}")
    elif not res.preflight.passed:
        res.add("TSK-J001", "error", f"import provenance failed: {res.preflight.reason}")
    # ---- 2. anti-cheat
    res.scan = anticheat_api.scan(trajectories or [], str(task.dir), package, forbid or [])
    res.steps.append("anti-cheat")
    score = _read_json(score_path)
    if score is None:
        raise InputError(str(score_path), "score_result.json is not a JSON object")
    res.run_findings = list((score.get("gavel") or {}).get("findings") or [])
    scored_on = ((score.get("gavel") or {}).get("integrity") or {}).get("oracle_digest_before")
    if scored_on and scored_on != oracle_before:
        res.add("TSK-J011", "error", "the run is stale: the oracle changed after it was scored "
                f"(scored on {scored_on[:12]}, now {oracle_before[:12]}); re-run the candidate")
    tamper = [f for f in res.run_findings if f.get("code") in TAMPER_CODES
              and f.get("severity") == "error"]
    cheat = res.scan.verdict == "CHEAT_DETECTED" or bool(tamper)
    if res.scan.verdict == "CHEAT_DETECTED":
        res.add("TSK-J003", "error", "trajectory scan: CHEAT_DETECTED ("
                + "; ".join(f.message for f in res.scan.findings[:3]) + ")")
    if tamper:
        res.add("TSK-J003", "error", "the scoring run caught the candidate tampering: "
                + "; ".join(f["message"] for f in tamper[:3]))
    if res.scan.verdict == "UNVERIFIABLE":
        res.add("TSK-J004", "warning", f"anti-cheat scan unverifiable: {res.scan.reason}")
    # ---- 3. solvability
    res.reference, res.reference_src = find_reference(task, reference_run)
    res.steps.append("solvability")
    if res.reference is None:
        res.add("TSK-J005", "error", "no reference run to establish solvability (run `gavel task "
                "solvability` first or pass --reference-run)")
    else:
        res.reference_rate = _rate(res.reference)
        if res.reference_rate is None or res.reference_rate < SOLVABLE:
            res.reference_diag = reference_diagnosis(res.reference)
            rr = "0/0" if res.reference_rate is None else f"{res.reference_rate:.1%}"
            res.add("TSK-J005", "error", f"reference pass rate {rr} is below "
                    f"{SOLVABLE:.0%}: " + "; ".join(res.reference_diag[:3]))
    # ---- 4. fairness gates (static), spot-check table
    from gavelkit.task.gates import run_gates, spotcheck

    res.gates = run_gates(task, "DEF")
    res.steps.append("fairness")
    trig, _, _ = spotcheck.gate_c_triggered(task)
    if task.spec is not None and task.map is not None:
        res.spotcheck_rows = spotcheck.build(task, 8 if not trig else 5, 0, "C" if trig else "A")
    # ---- 5. scores (only now)
    res.score = score
    res.steps.append("scores")
    from gavelkit.task.judging.metrics import compute

    res.metrics = compute(task, score, res.reference, meta.get("solution_dir") or solution)
    res.gate_b = gate_b(res.metrics)
    rate = score.get("pass_rate_excluding_skips")
    if isinstance(rate, int | float) and rate >= SOLVABLE and not res.preflight.passed:
        res.add("TSK-J006", "error", f"candidate pass rate {rate:.1%} >= 95 % without a passing "
                "import-provenance preflight: the score is refused")
    oracle_after = combined(current_digests(load_task(task.dir)))
    if oracle_after != oracle_before:
        res.add("TSK-J007", "error", "the oracle changed while judging")
    decide(res, cheat)
    if write:
        write_outputs(res, move_state)
    return res


def _read_meta(score_path: Path) -> dict[str, Any]:
    """Only the run's metadata (package, solution, environment): no score value."""
    side = score_path.parent / "run_meta.json"
    data = _read_json(side) if side.is_file() else None
    if data is not None:
        return data
    data = _read_json(score_path) or {}
    g = data.get("gavel") if isinstance(data.get("gavel"), dict) else {}
    return {"package": g.get("package"), "solution_dir": data.get("solution_dir"),
            "environment": g.get("environment") or {}, "remove_paths": data.get("remove_paths")}


def _no_score(res: JudgeResult, path: Path, move_state: bool) -> None:
    if not move_state or res.task.pipeline is None or res.task.state != "S5_JUDGE":
        return
    from gavelkit.task.pipeline.state import transition

    transition(res.task.dir, "S4_EVAL_RUN", f"judge: {path} missing; re-run the candidate")


def reference_diagnosis(ref: dict[str, Any]) -> list[str]:
    """Environment diagnosis first (seed Solvability step 1), then the oracle."""
    counts: dict[str, dict[str, int]] = {}
    signals: dict[str, str] = {}
    for c in ref.get("cases", []):
        if not isinstance(c, dict) or c.get("counted_as", c.get("outcome")) in ("passed", "xfail",
                                                                                 "xpass", "skipped"):
            continue
        cls = c.get("classification") or {}
        k = cls.get("class", "unclassified")
        counts.setdefault(k, {})
        counts[k][cls.get("rule", "?")] = counts[k].get(cls.get("rule", "?"), 0) + 1
        signals.setdefault(f"{k}:{cls.get('rule', '?')}", cls.get("signal", ""))
    out = []
    for k in ("environment", "infrastructure", "verifier", "candidate", "unclassified"):
        for rule, n in sorted(counts.get(k, {}).items(), key=lambda x: -x[1]):
            what = {"environment": "fix the environment and re-run",
                    "infrastructure": "raise the resource limits / re-run",
                    "verifier": "oracle defect: return to test-filter",
                    "candidate": "the reference itself fails: oracle expects other behaviour",
                    "unclassified": "inspect"}[k]
            out.append(f"{n} {k} failure(s) [{rule}: {signals.get(f'{k}:{rule}', '')}] -> {what}")
    if not out:
        out.append("the reference run scored nothing (0/0): environment or node-id drift")
    return out


def gate_b(metrics: Any) -> dict[str, Any]:
    """Failure pattern audit: do failures cluster around verifier problems?"""
    total = sum(len(c.tests) for c in metrics.clusters)
    ver = sum(len(c.tests) for c in metrics.clusters if c.klass == "verifier")
    untraced = sum(len(c.tests) for c in metrics.clusters if not c.traced_to_spec
                   and c.klass == "candidate")
    share = (ver + untraced) / total if total else 0.0
    verdict = "FAIL" if total and share > 0.5 else "PASS"
    return {"verdict": verdict, "failures": total, "verifier": ver, "untraced": untraced,
            "share": round(share, 4)}


def decide(res: JudgeResult, cheat: bool) -> None:
    """Verdict and route from the evidence gathered, in the seed's priority order."""
    codes = {f.code for f in res.findings if f.severity == "error"}
    gates = res.gates.verdicts if res.gates else {}
    run_errors = [f for f in res.run_findings if f.get("severity") == "error"]
    if cheat:
        res.verdict, res.route = "CHEAT_DETECTED", "env"
        res.reasons.append("forbidden access or tampering found: the run is invalid, its score "
                           "is discarded")
        return
    res.verdict = "BROKEN"
    if "TSK-J002" in codes or "TSK-J001" in codes or "TSK-J006" in codes:
        res.route = "env"
        res.reasons.append("import provenance is not established: fix the scoring environment "
                           "and re-run (the score cannot be read)")
        return
    if "TSK-J011" in codes:
        res.route = "rerun"
        res.reasons.append("the score was measured against an older oracle")
        return
    env_run = [f for f in run_errors if f.get("code") in ("TSK-X005", "TSK-X009", "TSK-X007")]
    if env_run:
        res.route = "env"
        res.reasons.append("the candidate run is not a valid measurement: "
                           + "; ".join(f["message"] for f in env_run[:2]))
        return
    if "TSK-J005" in codes:
        diag = " ".join(res.reference_diag)
        res.route = "env" if (res.reference is None or "environment" in diag
                              or "infrastructure" in diag or "0/0" in diag) else "filter"
        res.reasons.append("solvability not established (reference below 95 %)")
        return
    if gates.get("F") == "FAIL" or (gates.get("E") == "FAIL" and _spec_side(res)):
        res.route = "spec"
        res.reasons.append("spec phrasing/structure gate failed: return to spec-writer")
        return
    if gates.get("D") == "GAP" or gates.get("E") == "FAIL" or res.gate_b.get("verdict") == "FAIL":
        res.route = "filter"
        if gates.get("D") == "GAP":
            res.reasons.append("Gate D: a core spec section has no oracle coverage")
        if gates.get("E") == "FAIL":
            res.reasons.append("Gate E: static quality checks fail")
        if res.gate_b.get("verdict") == "FAIL":
            res.reasons.append("Gate B: most failures are verifier problems or untraced to the "
                               "spec")
        return
    neg = res.metrics.negative_gap if res.metrics else {}
    if neg.get("applies") and neg.get("route"):
        res.route = "filter"
        res.reasons.append("negative gap: " + "; ".join(neg.get("diagnosis", [])))
        return
    total = (res.score or {}).get("summary", {}).get("total", 0)
    src = res.task.oracle_source()[0] or ""
    from gavelkit.task.config import is_generated_only

    if total < SMALL_ORACLE and is_generated_only(src, res.task.config):
        res.add("TSK-J008", "error", f"generated-only oracle with {total} < {SMALL_ORACLE} tests: "
                "small-oracle/exploratory, not QUALIFIED")
        res.route = "filter"
        res.reasons.append("small generated-only oracle")
        return
    res.verdict, res.route = "QUALIFIED", None
    res.reasons.append("all hard checks pass; the scoring set is valid")
    res.weaknesses = weaknesses(res)


def _spec_side(res: JudgeResult) -> bool:
    e = res.gates.results.get("E") if res.gates else None
    return bool(e) and any(f.severity == "error" and f.code in ("TSK-E001", "TSK-E002", "TSK-E003", "TSK-E004", "TSK-E013")
                           for f in e.findings)


def weaknesses(res: JudgeResult) -> list[dict[str, Any]]:
    from gavelkit.task.judgedata import for_task

    desc = for_task("dimensions", res.task.dir).get("descriptions", {})
    by: dict[tuple[str, str], dict[str, Any]] = {}
    for c in res.metrics.clusters:
        if c.klass != "candidate":
            continue
        layer = max(c.layers, key=lambda k: c.layers[k]) if c.layers else "unknown"
        key = (c.dimension, layer)
        w = by.setdefault(key, {"dimension": c.dimension, "description": "", "affected_tests": 0,
                                "layer": layer, "root_causes": []})
        w["affected_tests"] += len(c.tests)
        # name the behaviour gap (observed vs expected), not only the test
        ex = (c.example.strip().splitlines() or [""])[0].strip()[:110]
        where = c.sections[0] if c.sections else ""
        gap = c.signature if c.signature.startswith(("missing", "undefined")) or not ex else ex
        w["root_causes"].append((f"{where}: " if where else "") + gap
                                + f" ({len(c.tests)} test{'s' if len(c.tests) > 1 else ''})")
    out = []
    for w in by.values():
        causes = w.pop("root_causes")
        secs = sorted({s for c in res.metrics.clusters if c.dimension == w["dimension"]
                       for s in c.sections})
        w["description"] = (f"{desc.get(w['dimension'], w['dimension'])}: "
                            + "; ".join(causes[:4]) + (f"; +{len(causes) - 4} more root causes"
                                                        if len(causes) > 4 else ""))
        w["spec_sections"] = secs
        out.append(w)
    return sorted(out, key=lambda w: -w["affected_tests"])


def write_outputs(res: JudgeResult, move_state: bool) -> None:
    from gavelkit.core.textio import atomic_write
    from gavelkit.task.judging.diagnosis import render_report, render_requests

    jdir = res.task.dir / "judge"
    report = render_report(res)
    atomic_write(jdir / "diagnosis_report.md", report)
    res.written.append("judge/diagnosis_report.md")
    for name, text in render_requests(res).items():
        atomic_write(jdir / name, text)
        res.requests[name] = text
        res.written.append(f"judge/{name}")
    atomic_write(jdir / "judge_result.json", json.dumps(record(res), indent=2, default=str) + "\n")
    res.written.append("judge/judge_result.json")
    if "task_json" in res.task.paths:
        from gavelkit.task.formats.task_json import update_task_json

        update_task_json(res.task.paths["task_json"], task_json_updates(res))
        res.written.append("task.json")
    if move_state and res.task.pipeline is not None:
        _move(res)


def _move(res: JudgeResult) -> None:
    from gavelkit.task.pipeline.state import transition

    d = res.task.dir
    state = res.task.state
    if state == "S4_DONE":
        r = transition(d, "S5_JUDGE", "judge started", date=res.date)
        if not r.written:
            res.transition = {"written": False, "why": [f.message for f in r.findings]}
            res.add("TSK-J009", "warning", "could not enter S5_JUDGE: "
                    + "; ".join(f.message for f in r.findings))
            return
        state = "S5_JUDGE"
    if state != "S5_JUDGE":
        res.transition = {"written": False, "why": [f"task is in {state}, not S5_JUDGE"]}
        res.add("TSK-J009", "warning", f"state not moved: the task is in {state}, not S5_JUDGE")
        return
    to = "QUALIFIED" if res.verdict == "QUALIFIED" else ROUTES.get(res.route or "", "S4_SETUP")
    r = transition(d, to, f"judge: {res.verdict}; " + "; ".join(res.reasons)[:300], date=res.date)
    res.transition = {"from": "S5_JUDGE", "requested": to, "to": r.to_state,
                      "written": r.written, "why": [f.message for f in r.findings]}
    if not r.written:
        res.add("TSK-J009", "warning", f"state transition S5_JUDGE -> {to} refused: "
                + "; ".join(f.message for f in r.findings))


def record(res: JudgeResult) -> dict[str, Any]:
    m = res.metrics
    s = res.score or {}
    return {
        "verdict": res.verdict, "route": res.route, "reasons": res.reasons, "date": res.date,
        "order": res.steps,
        "preflight": {"available": res.preflight.available, "passed": res.preflight.passed,
                      "reason": res.preflight.reason, "block": res.preflight.block_text},
        "anti_cheat": {"verdict": res.scan.verdict, "reason": res.scan.reason,
                       "findings": [f.to_dict() for f in res.scan.findings],
                       "run_tamper": [f for f in res.run_findings
                                      if f.get("code") in TAMPER_CODES]},
        "solvability": {"reference": res.reference_src, "pass_rate": res.reference_rate,
                        "diagnosis": res.reference_diag},
        "fairness_gates": fairness(res),
        "candidate_score": {"summary": s.get("summary"), "pass_rate": s.get(
            "pass_rate_excluding_skips"), "by_layer": s.get("by_layer")},
        "metrics": m.to_dict() if m else None, "weaknesses": res.weaknesses,
        "transition": res.transition, "findings": [f.to_dict() for f in res.findings],
    }


def fairness(res: JudgeResult) -> dict[str, str]:
    out = {f"{g}": v for g, v in (res.gates.verdicts.items() if res.gates else [])}
    out["B"] = res.gate_b.get("verdict", "n/a")
    out["A/C"] = "table prefilled in the report: the judge fills the verdict column and runs " \
                 "`gavel task spotcheck --verify`"
    return {(f"{k}_" + {"A/C": "spotcheck", "B": "failure_pattern", "D": "coverage",
                        "E": "static_quality", "F": "phrasing"}.get(k, "")): v
            for k, v in out.items()}


def task_json_updates(res: JudgeResult) -> dict[str, Any]:
    m = res.metrics
    s = res.score or {}
    existing = res.task.task_json.data if res.task.task_json else {}
    labels = list(existing.get("labels") or []) if isinstance(existing.get("labels"), list) else []
    for lab in (m.labels if m else []):
        if lab["label"] not in labels:
            labels.append(lab["label"])
    upd: dict[str, Any] = {
        "labels": labels,
        "judge": {"verdict": res.verdict, "date": res.date, "report": "judge/diagnosis_report.md",
                  "route": res.route, "reasons": res.reasons,
                  "preflight_output": res.preflight.block_text,
                  "anti_cheat": res.scan.verdict,
                  "reference_pass_rate": res.reference_rate,
                  "failure_clusters": [c.to_dict() | {"tests": c.tests[:20]}
                                       for c in (m.clusters if m else [])][:30],
                  "fairness_gates": fairness(res),
                  "score_result": str(res.run_dir)},
    }
    if res.verdict != "CHEAT_DETECTED" and m is not None:
        upd["integration_gap"] = dict(m.integration_gap)
        upd["true_gap_events"] = m.true_gap_events
        prev = existing.get("candidate_score")
        upd["candidate_score"] = {**(prev if isinstance(prev, dict) else {}),
            "passed": s.get("summary", {}).get("passed"),
            "total": s.get("summary", {}).get("total"),
            "pass_rate": s.get("pass_rate_excluding_skips"), "by_layer": s.get("by_layer")}
    if res.verdict == "QUALIFIED":
        upd["weaknesses"] = res.weaknesses
        upd["status"] = "QUALIFIED"
    return upd
