"""`judge_run`: the seed's judging order, enforced, ending in one verdict and true records.

Entry (seed "State Machine Interface"): the task must be at S5_JUDGE (S4_DONE is
entered into S5_JUDGE first). Anywhere else the judge refuses and writes nothing.

Order (seed "Hard Checks", then "Diagnostic Procedure"); no score value is read
before step 1 has produced its literal block:

1. preflight: `python -c "import PKG; print(PKG.__file__)"` in the scoring
   environment, recorded verbatim as the report's "Preflight output" block;
2. anti-cheat: the trajectory scan, plus the runner's own tamper evidence;
3. solvability: the reference run on the same oracle (>= 95 %);
4. fairness: Gate A/C from a verified spot-check table, gates D/E/F (static),
   Gate B from the failure classification (unpromised wording = verifier failure);
5. scores: per-layer rates, gap metrics, clusters, labels, weaknesses -- only when
   `verdict.scores_usable` says a score may be used at all.

Each step yields a `verdict.Check` (PASS / FAIL / UNVERIFIABLE / PENDING);
`verdict.decide` alone turns them into QUALIFIED / BROKEN / CHEAT_DETECTED /
PENDING and the route. Then judge/diagnosis_report.md, judge/judge_result.json
(with the checks and the oracle digest and score hash they were made on: the
state machine's QUALIFIED guard re-decides from it), the request files, task.json
(status and judge.verdict together, only when the state moves) and the state
transition. The judge never writes an oracle file.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.task.formats.load import Task, load_task
from gavelkit.task.judging import verdict as V

SOLVABLE = 0.95
SMALL_ORACLE = 30
TAMPER_CODES = {"TSK-X002", "TSK-X008", "TSK-X010", "TSK-X012"}
ROUTES = V.ROUTES
ENTRY_STATES = ("S5_JUDGE", "S4_DONE")
SPOTCHECK = "judge/spotcheck.md"
STATUS_OF = {"QUALIFIED": "QUALIFIED", "BROKEN": "BROKEN", "CHEAT_DETECTED": "CHEAT_DETECTED"}


@dataclass(slots=True)
class JudgeResult:
    task: Task
    run_dir: Path
    verdict: str = "BROKEN"
    route: str | None = None  # spec | filter | env | rerun | None
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
    spotcheck: dict[str, Any] = field(default_factory=dict)
    coverage_caveat: dict[str, Any] | None = None
    score: dict[str, Any] | None = None
    score_path: Path | None = None
    scores_usable: bool = False
    scores_why: str = ""
    metrics: Any = None
    labels: list[dict[str, str]] = field(default_factory=list)
    weaknesses: list[dict[str, Any]] = field(default_factory=list)
    checks: list[V.Check] = field(default_factory=list)
    decision: V.Decision | None = None
    reasons: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    transition: dict[str, Any] = field(default_factory=dict)
    requests: dict[str, str] = field(default_factory=dict)
    terminal: list[str] = field(default_factory=list)
    oracle_digest: str = ""
    date: str = ""
    steps: list[str] = field(default_factory=list)

    def add(self, code: str, severity: str, message: str, **data: Any) -> None:
        self.findings.append(Finding(code, severity, message,  # type: ignore[arg-type]
                                     str(self.task.dir), 0, 0, data=data or None))

    def check(self, name: str, status: str, reason: str = "", route: str | None = None) -> None:
        self.checks.append(V.Check(name, status, reason, route))


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text("utf-8-sig"))
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _sha(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


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
    return sr.pass_rate if sr is not None else None


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


def task_json_problem(task: Task) -> str | None:
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


def entry_refusal(task: Task) -> str | None:
    if task.pipeline is None:
        return None
    st = task.state
    if st in ENTRY_STATES:
        return None
    return (f"the task is in {st}, not S5_JUDGE: the judge's entry state is S5_JUDGE (seed "
            "State Machine Interface); nothing was judged or written")


def judge_run(task_dir: str | Path, run_dir: str | Path, *, trajectories: list[str] | None = None,
              reference_run: str | Path | None = None, solution: str | Path | None = None,
              forbid: list[str] | None = None, write: bool = True, move_state: bool = True,
              date: str | None = None, spotcheck: str | Path | None = None) -> JudgeResult:
    from gavelkit.task.anticheat import api as anticheat_api
    from gavelkit.task.pipeline.digests import combined, current_digests

    task = load_task(task_dir)
    bad = [f for f in task.findings if f.unusable]
    if bad:
        raise InputError(bad[0].path, bad[0].message)
    run = Path(run_dir)
    res = JudgeResult(task, run, date=date or _dt.date.today().isoformat())
    why = entry_refusal(task)
    if why and write:
        res.verdict, res.reasons = "REFUSED", [why]
        res.add("TSK-J012", "error", why)
        return res
    res.oracle_digest = oracle_before = combined(current_digests(task))
    score_path = run / "score_result.json" if run.is_dir() else run
    res.score_path = score_path
    if not score_path.is_file():
        _no_score(res, score_path, move_state and write)
        raise InputError(str(score_path), "no score_result.json in the run folder: score the "
                         "candidate first (gavel task run); state -> S4_EVAL_RUN when at S5_JUDGE")
    tj_bad = task_json_problem(task)
    res.check("inputs", V.UNVERIFIABLE if tj_bad else V.PASS,
              f"task.json: {tj_bad}" if tj_bad else "task files readable")
    if tj_bad:
        res.add("TSK-J016", "error", f"task.json cannot carry the judge's record: {tj_bad}")
    # ---- 1. preflight: before any score value is read
    meta = _read_meta(score_path)
    package = meta.get("package")
    if not package:
        from gavelkit.task.scoring.target import target_package

        package = target_package(task)
    sol = _solution_dir(task, solution, meta)
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
        res.check("preflight", V.UNVERIFIABLE, f"not run: {res.preflight.reason}", "env")
    elif not res.preflight.passed:
        res.add("TSK-J001", "error", f"import provenance failed: {res.preflight.reason}")
        res.check("preflight", V.FAIL, res.preflight.reason, "env")
    else:
        res.check("preflight", V.PASS, res.preflight.reason)
    # ---- 2. anti-cheat
    res.scan = anticheat_api.scan(trajectories or [], str(task.dir), package, forbid or [])
    res.steps.append("anti-cheat")
    score = _read_json(score_path)
    if score is None:
        raise InputError(str(score_path), "score_result.json is not a JSON object (or not "
                         "readable JSON): nothing to judge")
    res.run_findings = [f for f in (((score or {}).get("gavel") or {}).get("findings") or [])
                        if isinstance(f, dict)]
    tamper = [f for f in res.run_findings if f.get("code") in TAMPER_CODES
              and f.get("severity") == "error"]
    if res.scan.verdict == "CHEAT_DETECTED":
        msg = "trajectory scan: CHEAT_DETECTED (" + "; ".join(
            f.message for f in res.scan.findings[:3]) + ")"
        res.add("TSK-J003", "error", msg)
        res.check("anti-cheat", V.FAIL, msg, "env")
    if tamper:
        msg = "the scoring run caught the candidate tampering: " + "; ".join(
            str(f.get("message")) for f in tamper[:3])
        res.add("TSK-J003", "error", msg)
        res.check("anti-cheat", V.FAIL, msg, "env")
    if res.scan.verdict == "UNVERIFIABLE":
        res.add("TSK-J004", "warning", f"anti-cheat scan unverifiable: {res.scan.reason}")
        res.check("anti-cheat", V.UNVERIFIABLE, f"{res.scan.reason}: pass the agent's "
                  "trajectory with --trajectory")
    elif res.scan.verdict == "CLEAN" and not tamper:
        res.check("anti-cheat", V.PASS, res.scan.reason)
    # ---- the run itself: readable, fresh, a valid measurement
    problem = score_problem(score)
    if problem:
        res.add("TSK-J016", "error", f"{score_path}: not a usable score: {problem}")
        res.check("score", V.UNVERIFIABLE, f"{score_path.name}: {problem}", "rerun")
    else:
        res.check("score", V.PASS, "score file complete")
    scored_on = (((score or {}).get("gavel") or {}).get("integrity") or {}).get(
        "oracle_digest_before")
    if scored_on and scored_on != oracle_before:
        msg = ("the run is stale: the oracle changed after it was scored "
               f"(scored on {str(scored_on)[:12]}, now {oracle_before[:12]}); re-run the candidate")
        res.add("TSK-J011", "error", msg)
        res.check("freshness", V.FAIL, msg, "rerun")
    env_run = [f for f in res.run_findings if f.get("severity") == "error"
               and f.get("code") in ("TSK-X005", "TSK-X009", "TSK-X007")]
    if env_run:
        res.check("run-integrity", V.FAIL, "the candidate run is not a valid measurement: "
                  + "; ".join(str(f.get("message")) for f in env_run[:2]), "env")
    # ---- 3. solvability
    res.reference, res.reference_src = find_reference(task, reference_run)
    res.steps.append("solvability")
    if res.reference is None:
        msg = ("no reference run to establish solvability (run `gavel task solvability` first "
               "or pass --reference-run)")
        res.add("TSK-J005", "error", msg)
        res.check("solvability", V.UNVERIFIABLE, msg, "env")
    else:
        res.reference_rate = _rate(res.reference)
        if res.reference_rate is None or res.reference_rate < SOLVABLE:
            res.reference_diag = reference_diagnosis(res.reference)
            rr = "0/0" if res.reference_rate is None else f"{res.reference_rate:.1%}"
            msg = f"reference pass rate {rr} is below {SOLVABLE:.0%}: " + "; ".join(
                res.reference_diag[:3])
            res.add("TSK-J005", "error", msg)
            diag = " ".join(res.reference_diag)
            env = ("environment" in diag or "infrastructure" in diag or "0/0" in diag)
            res.check("solvability", V.FAIL, msg, "env" if env else "filter")
        else:
            res.check("solvability", V.PASS, f"reference {res.reference_rate:.1%} >= 95 %")
    # ---- 4. fairness gates (static), Gate A/C table
    from gavelkit.task.gates import run_gates

    res.gates = run_gates(task, "DEF")
    res.steps.append("fairness")
    _gate_ac(res, spotcheck)
    _gates_def(res)
    # ---- 5. scores (only now, and only when they may be used)
    res.steps.append("scores")
    usable, res.scores_why = V.scores_usable(res.checks)
    rate = (score or {}).get("pass_rate_excluding_skips")
    if isinstance(rate, int | float) and rate >= SOLVABLE and not res.preflight.passed:
        msg = (f"candidate pass rate {rate:.1%} >= 95 % without a passing import-provenance "
               "preflight: the score is refused")
        res.add("TSK-J006", "error", msg)
        res.check("preflight", V.FAIL, msg, "env")
        usable = False
    res.scores_usable = usable
    if usable and score is not None:
        from gavelkit.task.judging.metrics import compute

        res.score = score
        res.metrics = compute(task, score, res.reference, sol)
        res.gate_b = gate_b(res.metrics, task)
        _gate_b_check(res)
        _negative_gap(res)
        _small_oracle(res, score)
    else:
        res.check("gate-B", V.UNVERIFIABLE, f"failure pattern not audited: {res.scores_why}")
        res.gate_b = {"verdict": "NOT RUN", "why": res.scores_why}
    oracle_after = combined(current_digests(load_task(task.dir)))
    if oracle_after != oracle_before:
        res.add("TSK-J007", "error", "the oracle changed while judging")
        res.check("oracle-unchanged", V.FAIL, "the oracle changed while judging", "rerun")
    decide(res)
    if write:
        write_outputs(res, move_state)
    return res


def _solution_dir(task: Task, explicit: str | Path | None, meta: dict[str, Any]) -> str:
    """The candidate folder: --solution, else the run's record (relative to the task or run)."""
    if explicit:
        return str(Path(explicit).resolve())
    for key in ("import_root", "solution_dir"):
        v = meta.get(key)
        if isinstance(v, str) and v:
            p = Path(v)
            if not p.is_absolute():
                for base in (task.dir, Path(meta.get("_run_dir", "."))):
                    if (base / p).is_dir():
                        return str((base / p).resolve())
            return v
    return ""


def _gate_ac(res: JudgeResult, explicit: str | Path | None) -> None:
    """Gate A (or C for generated-only oracles): a verified spot-check table, or PENDING."""
    from gavelkit.task.gates import spotcheck

    task = res.task
    trig, _, _ = spotcheck.gate_c_triggered(task)
    gate = "C" if trig else "A"
    name = f"gate-A/C"
    if task.spec is None or task.map is None:
        res.check(name, V.UNVERIFIABLE, "no spec.md or spec_test_map.md to spot-check", "filter")
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


def coverage_caveat(task: Task, uncovered: list[str]) -> dict[str, Any] | None:
    """task.json coverage_gap accepting every GAP section with a reason (seed Gate D)."""
    data = task.task_json.data if task.task_json else {}
    cg = data.get("coverage_gap")
    if not isinstance(cg, dict):
        return None
    secs = cg.get("sections")
    reason = cg.get("reason")
    if not isinstance(secs, list) or not isinstance(reason, str) or not reason.strip():
        return None
    named = {str(s).strip().lstrip("#").strip().lower() for s in secs}
    if all(u.strip().lstrip("#").strip().lower() in named for u in uncovered):
        return {"sections": [str(s) for s in secs], "reason": reason.strip()}
    return None


def _gates_def(res: JudgeResult) -> None:
    g = res.gates.results if res.gates else {}
    d = g.get("D")
    if d is None or d.verdict not in ("FULL", "PARTIAL", "GAP"):
        res.check("gate-D", V.UNVERIFIABLE, f"coverage audit {d.verdict if d else 'not run'} "
                  "(no usable spec_test_map.md?)", "filter")
    elif d.verdict == "GAP":
        core = [u["spec section"] for u in d.data.get("uncovered", [])
                if "core" in str(u.get("impact", ""))]
        res.coverage_caveat = coverage_caveat(res.task, core)
        if res.coverage_caveat:
            res.check("gate-D", V.PASS, "GAP accepted as a caveat: task.json coverage_gap "
                      f"records {', '.join(core)} ({res.coverage_caveat['reason']})")
        else:
            res.check("gate-D", V.FAIL, "a core spec section has no oracle coverage ("
                      + ", ".join(core) + "); or record coverage_gap {sections, reason} in "
                      "task.json once test-filter has tried", "filter")
    else:
        res.check("gate-D", V.PASS, d.verdict)
    e = g.get("E")
    if e is None or e.verdict not in ("PASS", "FAIL"):
        res.check("gate-E", V.UNVERIFIABLE, f"static quality {e.verdict if e else 'not run'}",
                  "filter")
    elif e.verdict == "FAIL":
        res.check("gate-E", V.FAIL, "static quality checks fail: " + "; ".join(
            f.message for f in e.findings if f.severity == "error")[:300],
            "spec" if _spec_side(res) else "filter")
    else:
        res.check("gate-E", V.PASS, "static quality checks pass")
    f = g.get("F")
    if f is None or f.verdict not in ("PASS", "FAIL"):
        res.check("gate-F", V.UNVERIFIABLE, f"phrasing {f.verdict if f else 'not run'}", "spec")
    elif f.verdict == "FAIL":
        res.check("gate-F", V.FAIL, "spec phrasing hard checks fail: return to spec-writer",
                  "spec")
    else:
        res.check("gate-F", V.PASS, "spec phrasing hard checks pass")


def _gate_b_check(res: JudgeResult) -> None:
    gb = res.gate_b
    if gb["verdict"] == "FAIL":
        msg = (f"Gate B FAIL: {gb['verifier']} of {gb['failures']} failures are verifier failures "
               f"({gb.get('why', '')}) and {gb['untraced']} are untraced to the spec: return "
               "filter_correction_request.md to test-filter")
        res.add("TSK-J015", "error", msg)
        res.check("gate-B", V.FAIL, msg, "filter")
    else:
        res.check("gate-B", V.PASS, f"{gb['verifier']} verifier + {gb['untraced']} untraced of "
                  f"{gb['failures']} failures")


def _negative_gap(res: JudgeResult) -> None:
    neg = res.metrics.negative_gap if res.metrics else {}
    if neg.get("applies") and neg.get("route"):
        res.check("negative-gap", V.FAIL, "negative gap: " + "; ".join(neg.get("diagnosis", [])),
                  "filter")


def _small_oracle(res: JudgeResult, score: dict[str, Any]) -> None:
    from gavelkit.task.config import is_generated_only

    total = (score.get("summary") or {}).get("total", 0)
    src = res.task.oracle_source()[0] or ""
    if total < SMALL_ORACLE and is_generated_only(src, res.task.config):
        msg = (f"generated-only oracle with {total} < {SMALL_ORACLE} tests: small-oracle/"
               "exploratory, not QUALIFIED")
        res.add("TSK-J008", "error", msg)
        res.check("oracle-size", V.FAIL, msg, "filter")


def _read_meta(score_path: Path) -> dict[str, Any]:
    """Only the run's metadata (package, solution, environment): no score value."""
    side = score_path.parent / "run_meta.json"
    data = _read_json(side) if side.is_file() else None
    if data is None:
        raw = _read_json(score_path) or {}
        g = raw.get("gavel") if isinstance(raw.get("gavel"), dict) else {}
        data = {"package": g.get("package"), "solution_dir": raw.get("solution_dir"),
                "environment": g.get("environment") or {}, "remove_paths": raw.get("remove_paths")}
    data = {k: v for k, v in data.items()}
    if not isinstance(data.get("environment"), dict):
        data["environment"] = {}
    data["_run_dir"] = str(score_path.parent)
    return data


def _no_score(res: JudgeResult, path: Path, move_state: bool) -> None:
    if not move_state or res.task.pipeline is None or res.task.state != "S5_JUDGE":
        return
    from gavelkit.task.pipeline.state import transition

    transition(res.task.dir, "S4_EVAL_RUN", f"judge: {path} missing; re-run the candidate")


def reference_diagnosis(ref: dict[str, Any]) -> list[str]:
    """Environment diagnosis first (seed Solvability step 1), then the oracle."""
    counts: dict[str, dict[str, int]] = {}
    signals: dict[str, str] = {}
    for c in ref.get("cases", []) if isinstance(ref.get("cases"), list) else []:
        if not isinstance(c, dict) or c.get("counted_as", c.get("outcome")) in (
                "passed", "xfail", "xpass", "skipped"):
            continue
        cls = c.get("classification") if isinstance(c.get("classification"), dict) else {}
        k = cls.get("class", "unclassified")
        counts.setdefault(k, {})
        counts[k][cls.get("rule", "?")] = counts[k].get(cls.get("rule", "?"), 0) + 1
        signals.setdefault(f"{k}:{cls.get('rule', '?')}", cls.get("signal", ""))
    out = []
    # the scorer calls a non-environment failure "candidate"; in a reference run it is the
    # reference that fails, so it is named as such
    names = {"candidate": "reference behaviour"}
    for k in ("environment", "infrastructure", "verifier", "candidate", "unclassified"):
        for rule, n in sorted(counts.get(k, {}).items(), key=lambda x: -x[1]):
            what = {"environment": "fix the environment and re-run",
                    "infrastructure": "raise the resource limits / re-run",
                    "verifier": "oracle defect: return to test-filter",
                    "candidate": "the reference itself fails: the oracle expects other behaviour",
                    "unclassified": "inspect"}[k]
            out.append(f"{n} {names.get(k, k)} failure(s) [{rule}: "
                       f"{signals.get(f'{k}:{rule}', '')}] -> {what}")
    if not out:
        out.append("the reference run scored nothing (0/0): environment or node-id drift")
    return out


def reference_failures(ref: dict[str, Any] | None) -> list[str]:
    cases = (ref or {}).get("cases")
    return [c["nodeid"] for c in (cases if isinstance(cases, list) else [])
            if isinstance(c, dict) and isinstance(c.get("nodeid"), str)
            and c.get("counted_as", c.get("outcome")) not in ("passed", "xfail", "xpass",
                                                              "skipped")]


def gate_b(metrics: Any, task: Task | None = None) -> dict[str, Any]:
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


def decide(res: JudgeResult) -> None:
    """The verdict comes from verdict.decide over every check, nothing else."""
    d = V.decide(res.checks)
    res.decision = d
    res.checks = V.complete(res.checks)
    res.verdict, res.route = d.verdict, d.route
    res.reasons = list(d.reasons)
    if res.metrics is not None:
        res.labels = list(res.metrics.labels)
    gd = res.gates.results.get("D") if res.gates else None
    if gd is not None and gd.verdict == "GAP":
        secs = ", ".join(u["spec section"] for u in gd.data.get("uncovered", [])
                         if "core" in str(u.get("impact", "")))
        res.labels.append({"label": "coverage-gap", "evidence": f"Gate D GAP: {secs}"
                           + (" (accepted as a caveat: task.json coverage_gap)"
                              if res.coverage_caveat else "")})
    if d.verdict == "QUALIFIED":
        res.weaknesses = weaknesses(res)


def _spec_side(res: JudgeResult) -> bool:
    e = res.gates.results.get("E") if res.gates else None
    return bool(e) and any(f.severity == "error" and f.code in (
        "TSK-E001", "TSK-E002", "TSK-E003", "TSK-E004", "TSK-E013") for f in e.findings)


def weaknesses(res: JudgeResult) -> list[dict[str, Any]]:
    """One entry per (dimension, layer); each carries only its own clusters' sections."""
    from gavelkit.task.judgedata import for_task

    desc = for_task("dimensions", res.task.dir).get("descriptions", {})
    by: dict[tuple[str, str], dict[str, Any]] = {}
    layer_of = {}
    for c in (res.score or {}).get("cases", []):
        if isinstance(c, dict) and isinstance(c.get("nodeid"), str):
            layer_of[c["nodeid"]] = c.get("layer") or "unknown"
    for c in res.metrics.clusters:
        if c.klass != "candidate":
            continue
        per_layer: dict[str, list[str]] = {}
        for t in c.tests:
            per_layer.setdefault(layer_of.get(t, "unknown"), []).append(t)
        for layer, tests in per_layer.items():
            w = by.setdefault((c.dimension, layer), {
                "dimension": c.dimension, "description": "", "affected_tests": 0,
                "layer": layer, "spec_sections": [], "root_causes": []})
            w["affected_tests"] += len(tests)
            for s in c.sections:
                if s not in w["spec_sections"]:
                    w["spec_sections"].append(s)
            ex = (c.example.strip().splitlines() or [""])[0].strip()[:110]
            gap = c.signature + (f" (e.g. {ex})" if ex and not c.signature.startswith(
                ("missing", "undefined")) else "")
            w["root_causes"].append(f"{gap} ({len(tests)} test{'s' if len(tests) > 1 else ''})")
    out = []
    for w in by.values():
        causes = w.pop("root_causes")
        w["description"] = (f"{desc.get(w['dimension'], w['dimension'])}: "
                            + "; ".join(causes[:4]) + (f"; +{len(causes) - 4} more root causes"
                                                        if len(causes) > 4 else ""))
        out.append(w)
    return sorted(out, key=lambda w: (-w["affected_tests"], w["dimension"], w["layer"]))


# ------------------------------------------------------------------------------- writing

def _rel(task: Task, p: Path) -> str:
    try:
        return str(p.resolve().relative_to(task.dir.resolve()))
    except ValueError:
        return str(p.resolve())


def write_outputs(res: JudgeResult, move_state: bool) -> None:
    from gavelkit.core.textio import atomic_write
    from gavelkit.task.judging.diagnosis import render_report, render_requests

    if res.verdict == "REFUSED":
        return
    jdir = res.task.dir / "judge"
    _clear_stale_locks(res.task.dir)
    if res.spotcheck.get("prefilled") and res.spotcheck_rows:
        from gavelkit.task.gates import spotcheck

        allowed = spotcheck.allowed_verdicts(res.task.config, res.spotcheck["gate"])
        atomic_write(jdir / "spotcheck.md", spotcheck.render(
            res.spotcheck_rows, res.spotcheck["gate"], 0, len(res.spotcheck_rows), allowed))
        res.written.append(SPOTCHECK)
    reqs = render_requests(res)
    for name, text in reqs.items():
        atomic_write(jdir / name, text)
        res.requests[name] = text
        res.written.append(f"judge/{name}")
    # the record the state machine's QUALIFIED guard re-decides from: written first
    atomic_write(jdir / "judge_result.json", json.dumps(record(res), indent=2, default=str) + "\n")
    res.written.append("judge/judge_result.json")
    moved = False
    if move_state and res.task.pipeline is not None:
        moved = _move(res)
    if res.verdict == "QUALIFIED" and (moved or res.task.pipeline is None) and move_state:
        _terminal_todos(res)
    if res.task.pipeline is None and move_state and res.verdict in STATUS_OF:
        _write_task_json(res, STATUS_OF[res.verdict])
    atomic_write(jdir / "diagnosis_report.md", render_report(res))
    res.written.insert(0, "judge/diagnosis_report.md")


def _clear_stale_locks(d: Path) -> None:
    """A `.lock` left by a killed writer: taking and releasing the lock removes it."""
    from gavelkit.core.textio import locked

    for name in ("task.json", "PIPELINE_STATE.md"):
        if (d / f"{name}.lock").is_file():
            with locked(d / name):
                pass


def _write_task_json(res: JudgeResult, status: str) -> None:
    if "task_json" not in res.task.paths or any(c.name == "inputs" and c.blocks
                                                for c in res.checks):
        return
    from gavelkit.task.formats.task_json import update_task_json

    update_task_json(res.task.paths["task_json"], task_json_updates(res, status))
    res.written.append("task.json")


def _move(res: JudgeResult) -> bool:
    """Move the state; task.json's status and judge record are written with it, first."""
    from gavelkit.task.pipeline.state import plan_transition, transition

    d = res.task.dir
    state = res.task.state
    if state == "S4_DONE":
        r = transition(d, "S5_JUDGE", "judge started", date=res.date)
        if not r.written:
            res.transition = {"written": False, "why": [f.message for f in r.findings]}
            res.add("TSK-J009", "warning", "could not enter S5_JUDGE: "
                    + "; ".join(f.message for f in r.findings))
            return False
        state = "S5_JUDGE"
    to = res.decision.next_state if res.decision else None
    if to is None:
        res.transition = {"from": state, "to": state, "written": False,
                          "why": ["PENDING: the task stays in S5_JUDGE until the judge can "
                                  "certify or route it"]}
        return False
    plan = plan_transition(d, to)
    if not plan.ok:
        res.transition = {"from": state, "requested": to, "to": plan.to_state, "written": False,
                          "why": [f.message for f in plan.findings]}
        res.add("TSK-J009", "warning", f"state transition S5_JUDGE -> {to} refused: "
                + "; ".join(f.message for f in plan.findings if f.severity == "error"))
        return False
    status = "RETIRED" if plan.to_state == "RETIRED" else STATUS_OF.get(res.verdict, "BROKEN")
    _write_task_json(res, status)
    r = transition(d, to, f"judge: {res.verdict}; " + "; ".join(res.reasons)[:300], date=res.date)
    res.transition = {"from": "S5_JUDGE", "requested": to, "to": r.to_state,
                      "written": r.written, "why": [f.message for f in r.findings]}
    if not r.written:
        res.add("TSK-J009", "warning", f"state transition S5_JUDGE -> {to} refused: "
                + "; ".join(f.message for f in r.findings))
    return r.written


def _terminal_todos(res: JudgeResult) -> None:
    """QUALIFIED terminal todo: the CANDIDATES.md row; the MANIFEST caveat is the user's."""
    from gavelkit.core.textio import atomic_write, locked
    from gavelkit.task.formats.candidates import read_candidates, render_with_row
    from gavelkit.task.pipeline.digests import ledger_names

    lp = res.task.paths.get("ledger")
    if lp is None:
        res.terminal.append("CANDIDATES.md: no ledger found (task folder or its two parents): "
                            "appending the QUALIFIED row is yours to do")
    else:
        with locked(lp):
            led, _ = read_candidates(lp)
            names = ledger_names(res.task)
            if led is None or not led.columns:
                res.terminal.append(f"{lp}: not a readable ledger: the QUALIFIED row is yours "
                                    "to add")
            elif any(r.status == "QUALIFIED" and r.matches(names)
                     and "superseded_by" not in r.detail for r in led.rows):
                res.terminal.append(f"{lp.name}: a QUALIFIED row for this task exists already")
            else:
                s = res.score or {}
                cells = {"repo": res.task.id, "status": "QUALIFIED",
                         "metric": f"{(s.get('summary') or {}).get('passed')}/"
                                   f"{(s.get('summary') or {}).get('total')}",
                         "detail": f"judge {res.date}; oracle {res.oracle_digest[:12]}"}
                atomic_write(lp, render_with_row(led, cells))
                res.terminal.append(f"{lp.name}: QUALIFIED row appended")
                res.written.append(str(lp.name))
    sat = res.metrics.saturation if res.metrics else {}
    if sat.get("applies"):
        res.terminal.append("MANIFEST caveats: add 'saturated-candidate-score + trivially-solved: "
                            "consistent with recall from training data' -- the MANIFEST is "
                            "written at graduation, by you; the judge does not write it")


def record(res: JudgeResult) -> dict[str, Any]:
    m = res.metrics if res.scores_usable else None
    s = res.score if res.scores_usable else None
    sp = res.score_path
    return {
        "verdict": res.verdict, "route": res.route, "reasons": res.reasons, "date": res.date,
        "order": res.steps,
        "checks": [c.to_dict() for c in res.checks],
        "judged_on": {"oracle_digest": res.oracle_digest,
                      "score_file": _rel(res.task, sp) if sp else None,
                      "score_sha256": _sha(sp) if sp and sp.is_file() else None},
        "preflight": {"available": res.preflight.available, "passed": res.preflight.passed,
                      "reason": res.preflight.reason, "block": res.preflight.block_text}
        if res.preflight else None,
        "anti_cheat": {"verdict": res.scan.verdict, "reason": res.scan.reason,
                       "findings": [f.to_dict() for f in res.scan.findings],
                       "run_tamper": [f for f in res.run_findings
                                      if f.get("code") in TAMPER_CODES]} if res.scan else None,
        "solvability": {"reference": res.reference_src, "pass_rate": res.reference_rate,
                        "diagnosis": res.reference_diag},
        "fairness_gates": fairness(res),
        "spotcheck": res.spotcheck, "coverage_gap": res.coverage_caveat,
        "scores_usable": res.scores_usable, "scores_withheld_because": res.scores_why or None,
        "candidate_score": {"summary": s.get("summary"), "pass_rate": s.get(
            "pass_rate_excluding_skips"), "by_layer": s.get("by_layer")} if s else None,
        "metrics": m.to_dict() if m else None, "labels": res.labels,
        "weaknesses": res.weaknesses, "transition": res.transition,
        "terminal_todos": res.terminal, "findings": [f.to_dict() for f in res.findings],
    }


def fairness(res: JudgeResult) -> dict[str, str]:
    by = {c.name: c.status for c in res.checks}
    out = {"A/C_spotcheck": by.get("gate-A/C", "UNVERIFIABLE"),
           "B_failure_pattern": by.get("gate-B", "UNVERIFIABLE")}
    for g, name in (("D", "D_coverage"), ("E", "E_static_quality"), ("F", "F_phrasing")):
        v = res.gates.verdicts.get(g) if res.gates else None
        out[name] = v or "NOT RUN"
    return out


def task_json_updates(res: JudgeResult, status: str) -> dict[str, Any]:
    """The judge's record in task.json: status with the verdict, labels of this run only."""
    existing = res.task.task_json.data if res.task.task_json else {}
    upd: dict[str, Any] = {
        "status": status,
        "labels": [lab["label"] for lab in res.labels],
        "judge": {"verdict": res.verdict, "date": res.date, "report": "judge/diagnosis_report.md",
                  "route": res.route, "reasons": res.reasons, "state": (
                      res.decision.next_state if res.decision else None),
                  "checks": {c.name: c.status for c in res.checks},
                  "preflight_output": res.preflight.block_text if res.preflight else None,
                  "anti_cheat": res.scan.verdict if res.scan else None,
                  "reference_pass_rate": res.reference_rate,
                  "fairness_gates": fairness(res),
                  "score_result": _rel(res.task, res.score_path) if res.score_path else None},
    }
    if res.coverage_caveat:
        upd["judge"]["coverage_gap_caveat"] = res.coverage_caveat
    m = res.metrics
    if res.scores_usable and m is not None and res.score is not None:
        s = res.score
        upd["judge"]["failure_clusters"] = [c.to_dict() | {"tests": c.tests[:20]}
                                            for c in m.clusters][:30]
        upd["integration_gap"] = dict(m.integration_gap)
        upd["true_gap_events"] = m.true_gap_events
        new = {"run": _rel(res.task, res.run_dir), "judged": res.date,
               "score_sha256": _sha(res.score_path) if res.score_path else None,
               "passed": (s.get("summary") or {}).get("passed"),
               "total": (s.get("summary") or {}).get("total"),
               "pass_rate": s.get("pass_rate_excluding_skips"), "by_layer": s.get("by_layer")}
        prev = existing.get("candidate_score")
        if isinstance(prev, dict) and prev and prev.get("score_sha256") != new["score_sha256"]:
            hist = existing.get("candidate_score_history")
            upd["candidate_score_history"] = [*(hist if isinstance(hist, list) else []), prev]
        upd["candidate_score"] = new
    if res.verdict == "QUALIFIED":
        upd["weaknesses"] = res.weaknesses
    return upd
