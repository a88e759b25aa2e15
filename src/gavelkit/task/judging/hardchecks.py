"""Steps preflight, anti-cheat and run: the seed's hard checks, before any score is used.

- preflight: `python -c "import PKG; print(PKG.__file__)"` in the scoring environment
  (its literal block opens the report), together with the scoring-time provenance of an
  installed solution and the run record's own consistency (TSK-J020);
- anti-cheat: the trajectory scan and the scoring run's tamper evidence;
- run: the score file is a complete measurement, scored on today's oracle, in a valid
  environment.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from gavelkit.task.anticheat.api import Scan
from gavelkit.task.anticheat.preflight import PreflightResult
from gavelkit.task.formats.load import Task
from gavelkit.task.formats.score import ScoreResult
from gavelkit.task.judging.inputs import Loaded
from gavelkit.task.judging.runmeta import RunMeta
from gavelkit.task.judging.step import Notes, StepResult
from gavelkit.task.judging.verdict import FAIL, PASS, UNVERIFIABLE

# the scoring run's own tamper evidence (TSK-X026: results whose integrity check never came)
TAMPER_CODES = frozenset({"TSK-X002", "TSK-X008", "TSK-X010", "TSK-X012", "TSK-X026"})
ENV_RUN_CODES = ("TSK-X005", "TSK-X009", "TSK-X007")


@dataclass(frozen=True, slots=True, kw_only=True)
class Preflight(StepResult):
    result: PreflightResult
    package: str | None
    solution: str  # the candidate folder ('' when unknown)

    @property
    def passed(self) -> bool:
        return self.result.passed


@dataclass(frozen=True, slots=True, kw_only=True)
class AntiCheat(StepResult):
    scan: Scan
    run_findings: tuple[dict[str, object], ...] = ()  # the scoring run's own findings

    @property
    def tamper(self) -> list[dict[str, object]]:
        return [f for f in self.run_findings if f.get("code") in TAMPER_CODES]


@dataclass(frozen=True, slots=True, kw_only=True)
class Run(StepResult):
    """The run's own checks (score, freshness, run-integrity): no facts of its own."""


def preflight(loaded: Loaded, meta: RunMeta, solution: str | Path | None) -> Preflight:
    task = loaded.task
    notes = Notes(str(task.dir))
    package = meta.package or _target_package(task)
    sol = str(Path(solution).resolve()) if solution else (meta.import_root or
                                                          meta.solution_dir or "")
    pre = _probe(package, sol, meta)
    _decide_preflight(notes, pre, meta)
    return Preflight(result=pre, package=package, solution=sol, **notes.frozen())


def _target_package(task: Task) -> str | None:
    from gavelkit.task.scoring.target import target_package

    return target_package(task)


def _probe(package: str | None, sol: str, meta: RunMeta) -> PreflightResult:
    """The literal import in the candidate folder, or in the scoring environment of an
    installed release; a probe that cannot start says why (never a pass)."""
    from gavelkit.task.anticheat import api

    unconfined = _no_sandbox()
    if package and unconfined and (sol or meta.python):
        return api.not_run(package, unconfined)
    if package and sol and Path(sol).is_dir():
        return api.preflight(package, sol, python=meta.python, remove_paths=meta.remove_paths)
    installed = None if sol else _installed_solution(meta, package)
    if package and installed and meta.python:
        # a registry release scored as the solution (`task run --solution-package`): the
        # literal import runs in its scoring environment, without PYTHONPATH, and must load
        # the installed distribution's own files, which scoring-time provenance proved
        pre = api.preflight(package, installed, python=meta.python, pythonpath=False)
        if pre.passed and meta.provenance is not None:
            pre = replace(pre, reason=pre.reason + f" (the installed solution "
                          f"{meta.solution_package}: {meta.provenance.why})")
        return pre
    return api.not_run(package, _why_not_run(package, sol, meta))


def _no_sandbox() -> str:
    """Why the judge will not import the candidate here ('' when it can): the import runs
    the candidate's code, and without the sandbox that code runs with the judge's own
    rights (it could rewrite the score file the judge reads next). Not done, then."""
    from gavelkit.task.scoring.sandbox import bwrap_available

    ok, why = bwrap_available()
    return "" if ok else (f"the judge imports candidate code only inside the sandbox, and "
                          f"{why}; judge where bubblewrap works")


def _why_not_run(package: str | None, sol: str, meta: RunMeta) -> str:
    if not package:
        return "no target package known (set task.json package)"
    if not sol and meta.foreign_paths:
        return (f"the run records its solution folder on another system "
                f"({meta.foreign_paths[0]}): pass --solution")
    return f"solution folder {sol or '(unknown)'} not found (pass --solution)"


def _decide_preflight(notes: Notes, pre: PreflightResult, meta: RunMeta) -> None:
    """One preflight check, from the literal import and the scoring-time provenance."""
    failed = _preflight_failures(notes, pre, meta)
    if failed:
        notes.check("preflight", FAIL, "; ".join(r for r in failed if r), "env")
    elif pre.ran:
        notes.check("preflight", PASS, pre.reason)
    else:
        notes.check("preflight", UNVERIFIABLE, f"not run: {pre.reason}", "env")
    if meta.mismatch:
        notes.add("TSK-J020", "error", f"run record mismatch: {meta.mismatch}")
        notes.check("run-integrity", FAIL, f"run record mismatch: {meta.mismatch}", "env")


def _preflight_failures(notes: Notes, pre: PreflightResult, meta: RunMeta) -> list[str]:
    """Why the preflight failed (the literal import, the scoring-time provenance), each
    reported; a probe that did not run is reported too, but is not a failure."""
    failed = [pre.reason] if pre.ran and not pre.passed else []
    if failed:
        notes.add("TSK-J001", "error", f"import provenance failed: {pre.reason}")
    elif not pre.ran:
        notes.add("TSK-J002", "error", f"preflight not run: {pre.reason}")
    prov = meta.provenance
    if prov is not None and not prov.ok:
        failed.append(f"import provenance of the installed solution failed at scoring time: "
                      f"{prov.why}")
        notes.add("TSK-J001", "error", failed[-1])
    return failed


def _installed_solution(meta: RunMeta, package: str | None) -> str | None:
    """For a solution installed from a spec, the installed package's own folder (or module
    file), when scoring-time provenance proved it belongs to that distribution; else None."""
    prov = meta.provenance
    if meta.install_kind != "spec" or prov is None or not prov.ok or not prov.module_file:
        return None
    if package and prov.package not in (package, package.split(".")[0]):
        return None
    p = Path(prov.module_file)
    if not p.exists():
        return None
    return str(p.parent if p.name == "__init__.py" else p)


def anticheat(loaded: Loaded, package: str | None, forbid: list[str],
              score: ScoreResult, solution: str = "") -> AntiCheat:
    """The trajectory scan (with the solution folder: its copy share of the reference
    source, CHT-C001, feeds the saturation heuristic) and the scoring run's tamper
    findings."""
    from gavelkit.task.anticheat import api

    notes = Notes(str(loaded.task.dir))
    scan = api.scan(list(loaded.trajectories), str(loaded.task.dir), package, forbid,
                    solution=solution)
    run_findings = tuple(f for f in (score.gavel.get("findings") or [])
                         if isinstance(f, dict))
    tamper = [f for f in run_findings if _is_tamper(f)]
    for msg in _cheats(scan, tamper):
        notes.add("TSK-J003", "error", msg)
        notes.check("anti-cheat", FAIL, msg, "env")
    if scan.verdict == "UNVERIFIABLE":
        notes.add("TSK-J004", "warning", f"anti-cheat scan unverifiable: {scan.reason}")
        notes.check("anti-cheat", UNVERIFIABLE, f"{scan.reason}: pass the agent's "
                    "trajectory with --trajectory")
    elif scan.verdict == "CLEAN" and not tamper:
        notes.check("anti-cheat", PASS, scan.reason)
    return AntiCheat(scan=scan, run_findings=run_findings, **notes.frozen())


def _is_tamper(f: dict[str, object]) -> bool:
    return f.get("code") in TAMPER_CODES and f.get("severity") == "error"


def _cheats(scan: Scan, tamper: list[dict[str, object]]) -> list[str]:
    """What the trajectory scan and the scoring run's tamper evidence caught."""
    out = []
    if scan.verdict == "CHEAT_DETECTED":
        out.append("trajectory scan: CHEAT_DETECTED (" + "; ".join(
            f.message for f in scan.findings[:3]) + ")")
    if tamper:
        out.append("the scoring run caught the candidate tampering: " + "; ".join(
            str(f.get("message")) for f in tamper[:3]))
    return out


def run(loaded: Loaded, score: ScoreResult, run_findings: tuple[dict[str, object], ...],
        oracle_digest: str) -> Run:
    """The run itself: readable, fresh, a valid measurement."""
    notes = Notes(str(loaded.task.dir))
    _score_check(loaded.score_path, score, notes)
    stale = _stale(score, oracle_digest)
    if stale:
        notes.add("TSK-J011", "error", stale)
        notes.check("freshness", FAIL, stale, "rerun")
    elif not _scored_on(score):
        # another scorer's file (or one without gavel's run record) cannot show that it was
        # scored on today's oracle: never certified, but not a fault of the task either
        notes.check("freshness", UNVERIFIABLE, "the score file records no oracle digest "
                    f"(read as {score.format}): it cannot show it was scored on today's oracle")
    _isolation(notes, score)
    _preflight_after(notes, score)
    env_run = [f for f in run_findings if f.get("severity") == "error"
               and f.get("code") in ENV_RUN_CODES]
    if env_run:
        notes.check("run-integrity", FAIL, "the candidate run is not a valid measurement: "
                    + "; ".join(str(f.get("message")) for f in env_run[:2]), "env")
    return Run(**notes.frozen())


def _score_check(path: Path, score: ScoreResult, notes: Notes) -> None:
    """The score is a complete measurement; for another scorer's file, what the reader
    derived and everything it could not derive are named."""
    problem = "; ".join(score.gaps) if len(score.gaps) > 1 else score.problem()
    read_as = "" if score.format == "gavel" else f" (read as {score.format}: " + (
        "; ".join(score.notes) or "nothing derived") + ")"
    if problem:
        notes.add("TSK-J016", "error", f"{path}: not a usable score: {problem}{read_as}")
        notes.check("score", UNVERIFIABLE, f"{path.name}: {problem}{read_as}", "rerun")
    else:
        notes.check("score", PASS, f"score file complete{read_as}")


def _scored_on(score: ScoreResult) -> str | None:
    """The oracle digest the run records it was scored on (gavel's run record)."""
    integrity = score.gavel.get("integrity")
    got = integrity.get("oracle_digest_before") if isinstance(integrity, dict) else None
    return got if isinstance(got, str) and got else None


def _stale(score: ScoreResult, oracle_digest: str) -> str:
    """Why the run was not scored on today's oracle ('' when it was, or says nothing)."""
    scored_on = _scored_on(score)
    if not scored_on or scored_on == oracle_digest:
        return ""
    return ("the run is stale: the oracle changed after it was scored "
            f"(scored on {str(scored_on)[:12]}, now {oracle_digest[:12]}); re-run the candidate")


def _isolation(notes: Notes, score: ScoreResult) -> None:
    """A run gavel scored without its sandbox (it records `isolation.active: false`)
    certifies nothing: the candidate could read the oracle, and a process it left behind
    could rewrite the results after gavel wrote them, so its tamper evidence proves
    nothing (anti-cheat UNVERIFIABLE). Never QUALIFIED; re-run where bubblewrap works."""
    iso = score.gavel.get("isolation")
    if isinstance(iso, dict) and iso.get("active") is True:
        return
    if isinstance(iso, dict) and iso.get("active") is False:
        why = f"scored without the sandbox ({iso.get('why_inactive') or 'no sandbox'})"
    else:  # fail closed: a record that does not say the sandbox ran is not one that did
        why = ("the score file records no sandbox (no gavel isolation record"
               + (f", read as {score.format}" if score.format != "gavel" else "") + ")")
    notes.check("anti-cheat", UNVERIFIABLE, f"{why}; re-run the candidate where bubblewrap "
                "works")


def _preflight_after(notes: Notes, score: ScoreResult) -> None:
    """The preflight re-checked after the session: every module of the target package the
    test process loaded lies in the candidate (the scoring run's integrity evidence)."""
    ev = (score.gavel.get("integrity") or {}).get("evidence") if isinstance(
        score.gavel.get("integrity"), dict) else None
    if not isinstance(ev, dict):
        return
    outside = [str(t) for t in ev.get("tamper") or [] if "outside the candidate" in str(t)]
    if outside:
        notes.check("preflight", FAIL, "re-checked after the session: " + "; ".join(
            outside[:2]), "env")


def read_candidate_score(loaded: Loaded) -> ScoreResult:
    """The candidate's score, parsed once (after the preflight: no value is read before),
    in any format the one score reader knows."""
    from gavelkit.core.errors import InputError
    from gavelkit.task.formats.score import load_score

    try:
        return load_score(loaded.score_path)
    except InputError as exc:
        raise InputError(str(loaded.score_path), f"the score file is not a JSON object or a "
                         f"JUnit report ({exc.message}): nothing to judge", exc.line, exc.col,
                         code=exc.code) from None

