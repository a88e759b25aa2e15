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
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.task.formats.load import Task, load_task
from gavelkit.task.judging import checks as C
from gavelkit.task.judging import records as R
from gavelkit.task.judging import verdict as V
from gavelkit.task.judging.blame import reference_diagnosis
from gavelkit.task.judging.checks import SOLVABLE, TAMPER_CODES


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
    from gavelkit.core.safeio import json_object_or_none

    return json_object_or_none(path)


def _sha(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
def _load_score(path: Path) -> dict[str, Any]:
    """The candidate's score, or InputError: a score the judge cannot read is never judged."""
    from gavelkit.task.formats.score import read_score

    sr, found = read_score(path)
    errors = [f for f in found if f.severity == "error"]
    if sr is None or errors:
        f = (errors or found)[0]
        raise InputError(str(path), f"score cannot be judged: {f.message}", f.line, f.col,
                         code=f.code)
    if not isinstance(sr.raw.get("summary"), dict):
        raise InputError(str(path), "score cannot be judged: no 'summary' object (score the "
                         "candidate with `gavel task run`)", code="TSK-R006")
    return sr.raw


def check_trajectories(paths: list[str]) -> None:
    """Every trajectory given must be readable and hold something to scan (else exit 2):
    a missing, empty, looping or endless file is not "nothing suspicious was seen"."""
    from gavelkit.core.safeio import check_input
    from gavelkit.task.anticheat.trajectory import expand

    for raw in paths:
        st = check_input(raw, want="dir") if Path(raw).is_dir() else None
        if st is not None:
            if not expand([raw]):
                raise InputError(raw, "folder holds no trajectory file (.jsonl, .json, .eval, "
                                 "...); nothing could be scanned", code="GK-IO001")
            continue
        if check_input(raw).st_size == 0:
            raise InputError(raw, "trajectory file is empty; nothing could be scanned",
                             code="GK-IO002")


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


def judge_run(task_dir: str | Path, run_dir: str | Path, *, trajectories: list[str] | None = None,
              reference_run: str | Path | None = None, solution: str | Path | None = None,
              forbid: list[str] | None = None, write: bool = True, move_state: bool = True,
              date: str | None = None, spotcheck: str | Path | None = None) -> JudgeResult:
    from gavelkit.task.anticheat import api as anticheat_api
    from gavelkit.task.pipeline.digests import combined, current_digests

    task = load_task(task_dir)
    bad = [f for f in task.findings if f.unusable]
    if bad:
        raise InputError(bad[0].path, bad[0].message, bad[0].line, bad[0].col)
    check_trajectories(trajectories or [])
    run = Path(run_dir)
    res = JudgeResult(task, run, date=date or _dt.date.today().isoformat())
    why = C.entry_refusal(task)
    if why and write:
        res.verdict, res.reasons = "REFUSED", [why]
        res.add("TSK-J012", "error", why)
        # nothing is written, but a killed judge's temp files are still removed: a kill
        # after the state move makes every later run a refusal
        from gavelkit.core.safeio import clean_stale_temps

        for folder in (task.dir / "judge", task.dir):
            clean_stale_temps(folder / "-")
        return res
    res.oracle_digest = oracle_before = combined(current_digests(task))
    score_path = run / "score_result.json" if run.is_dir() else run
    res.score_path = score_path
    if not os.path.lexists(score_path):
        _no_score(res, score_path, move_state and write)
        raise InputError(str(score_path), "no score_result.json in the run folder: score the "
                         "candidate first (gavel task run); state -> S4_EVAL_RUN when at S5_JUDGE")
    tj_bad = C.task_json_problem(task)
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
    installed = _installed_solution(meta, package) if not sol else None
    if package and sol and Path(sol).is_dir():
        res.preflight = anticheat_api.preflight(package, sol, python=py,
                                                remove_paths=meta.get("remove_paths") or [])
    elif package and installed and py:
        # a registry release scored as the solution (`task run --solution-package`): the
        # literal import runs in its scoring environment, without PYTHONPATH, and must load
        # the installed distribution's own files, which scoring-time provenance proved
        res.preflight = anticheat_api.preflight(package, installed, python=py, pythonpath=False)
        if res.preflight.passed:
            res.preflight.reason += (f" (the installed solution {meta.get('solution_package')}: "
                                     f"{(meta.get('install') or {}).get('provenance', {}).get('why')})")
    else:
        why = ("no target package known (set task.json package or pass --package)" if not package
               else f"solution folder {sol or '(unknown)'} not found (pass --solution)")
        res.preflight = anticheat_api.Preflight(False, False,
                                                anticheat_api._missing_block(package or "PKG", why),
                                                why)
    res.steps.append("preflight")
    prov = (meta.get("install") or {}).get("provenance") or {}
    prov_why = ("import provenance of the installed solution failed at scoring time: "
                f"{prov.get('why')}") if prov and not prov.get("ok") else ""
    failed = res.preflight.available and not res.preflight.passed
    if not res.preflight.available:
        res.add("TSK-J002", "error", f"preflight not run: {res.preflight.reason}")
    elif failed:
        res.add("TSK-J001", "error", f"import provenance failed: {res.preflight.reason}")
    if prov_why:
        res.add("TSK-J001", "error", prov_why)
    # one preflight check, from the literal import and the scoring-time provenance together
    if failed or prov_why:
        res.check("preflight", V.FAIL, "; ".join(
            r for r in (res.preflight.reason if failed else "", prov_why) if r), "env")
    elif not res.preflight.available:
        res.check("preflight", V.UNVERIFIABLE, f"not run: {res.preflight.reason}", "env")
    else:
        res.check("preflight", V.PASS, res.preflight.reason)
    if meta.get("mismatch"):
        res.add("TSK-J020", "error", f"run record mismatch: {meta['mismatch']}")
        res.check("run-integrity", V.FAIL, f"run record mismatch: {meta['mismatch']}", "env")
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
    problem = C.score_problem(score)
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
    C.gate_ac(res, spotcheck)
    C.gates_def(res)
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
        res.gate_b = C.gate_b(res.metrics, task)
        C.gate_b_check(res)
        C.negative_gap(res)
        C.small_oracle(res, score)
    else:
        res.check("gate-B", V.UNVERIFIABLE, f"failure pattern not audited: {res.scores_why}")
        res.gate_b = {"verdict": "NOT RUN", "why": res.scores_why}
    oracle_after = combined(current_digests(load_task(task.dir)))
    if oracle_after != oracle_before:
        res.add("TSK-J007", "error", "the oracle changed while judging")
        res.check("oracle-unchanged", V.FAIL, "the oracle changed while judging", "rerun")
    decide(res)
    if write:
        R.write_outputs(res, move_state)
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


def _installed_solution(meta: dict[str, Any], package: str | None) -> str | None:
    """For a solution installed from a spec, the installed package's own folder (or module
    file), when scoring-time provenance proved it belongs to that distribution; else None."""
    inst = meta.get("install") or {}
    prov = inst.get("provenance") or {}
    mf = prov.get("module_file")
    if inst.get("kind") != "spec" or not prov.get("ok") or not isinstance(mf, str) or (
            package and prov.get("package") not in (package, package.split(".")[0])):
        return None
    p = Path(mf)
    return str(p.parent if p.name == "__init__.py" else p) if p.exists() else None


def _read_meta(score_path: Path) -> dict[str, Any]:
    """Only the run's metadata (package, solution, environment): no score value."""
    from gavelkit.task.judging.runmeta import read_run_meta

    data = read_run_meta(score_path)
    if not isinstance(data.get("environment"), dict):
        data["environment"] = {}
    data["_run_dir"] = str(score_path.parent)
    return data


def _no_score(res: JudgeResult, path: Path, move_state: bool) -> None:
    if not move_state or res.task.pipeline is None or res.task.state != "S5_JUDGE":
        return
    from gavelkit.task.pipeline.state import transition

    transition(res.task.dir, "S4_EVAL_RUN", f"judge: {path} missing; re-run the candidate")


def decide(res: JudgeResult) -> None:
    """The verdict comes from verdict.decide over every check, nothing else.

    Fail closed by construction: an error-level finding beside checks that would all pass
    (a new error code added without its check) becomes a failing check of its own, so it
    can never sit beside a QUALIFIED verdict."""
    errs = [f for f in res.findings if f.severity == "error"]
    if errs and V.decide(res.checks).verdict == "QUALIFIED":
        res.check("other-errors", V.FAIL, "; ".join(f"{f.code}: {f.message}"
                                                   for f in errs[:3]), "env")
    d = V.decide(res.checks)
    res.decision = d
    res.checks = V.complete(res.checks)
    res.verdict, res.route = d.verdict, d.route
    res.reasons = list(d.reasons)
    std = C.standard_line(res)
    if std:
        res.reasons.append(std)
    if res.metrics is not None:
        res.labels = list(res.metrics.labels)
    gd = res.gates.results.get("D") if res.gates else None
    if gd is not None and gd.verdict == "GAP":
        secs = ", ".join(u["spec section"] for u in gd.data.get("uncovered", [])
                         if "core" in str(u.get("impact", "")))
        res.labels.append({"label": "coverage-gap", "evidence": f"Gate D GAP: {secs}"
                           + (" (accepted as a caveat: task.json coverage_gap)"
                              if res.coverage_caveat else "")})
    if d.verdict == "QUALIFIED" and res.metrics is not None:
        res.weaknesses = weaknesses(res)


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



