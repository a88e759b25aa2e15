"""Gate E: the static quality checks the seed assigns to validate_ledger.py.

Spec section completeness (QUALITY_GATE Gate 1 list or the SPEC_STANDARD six
layers) and forbidden terms; oracle layer minimums; atomic assertion
composition from the test files' AST; metadata consistency between task.json,
taxonomy.jsonl, kept_nodeids.txt, the map and the test functions found; fixture
completeness; ledger consistency with CANDIDATES.md. Verdict PASS or FAIL
(FAIL on any error-level finding; warnings are acceptable, as in the seed).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from gavelkit.core.findings import Finding
from gavelkit.task.formats.nodeids import base_nodeid, func_key
from gavelkit.task.formats.testsrc import TestModule, read_module
from gavelkit.task.gates import GateResult
from gavelkit.task.gates.layers import (  # noqa: F401 - re-exported (scoring, tests)
    _file_layer,
    layer_counts,
    layer_index,
    leaf,
    scoring_set,
)
from gavelkit.task.gates.spec_rules import (
    check_environment,
    check_structure,
    check_terms,
)
from gavelkit.task.gates.standard import detect

_INLINE_CODE = re.compile(r"`+[^`]*`+")


def check_minimums(task: Any, cfg: dict[str, Any]) -> tuple[list[Finding], dict[str, Any]]:
    ge = cfg["gate_e"]
    funcs, nodes, unknown = layer_counts(task)
    where = str(task.paths.get("kept") or task.paths.get("map") or task.dir)
    out: list[Finding] = []
    atomic = funcs.get("atomic", 0)
    integ = funcs.get("integration", 0) + funcs.get("system_e2e", 0)
    total = atomic + integ
    n_atomic = nodes.get("atomic", 0)
    n_integ = nodes.get("integration", 0) + nodes.get("system_e2e", 0)
    for label, have, n_have, need in (
            ("atomic layer", atomic, n_atomic, ge["min_atomic"]),
            ("integration + system_e2e layers", integ, n_integ, ge["min_integration"]),
            ("oracle in total", total, n_atomic + n_integ, ge["min_total"])):
        if have < int(need):
            # QUALITY_GATE 3a counts test functions, test-filter:163 counts "tests": when only
            # the node ids reach the floor the documents disagree, so it is a review warning.
            sev = "warning" if n_have >= int(need) else "error"
            extra = (f"; the {n_have} node ids reach it, and test-filter counts tests, not "
                     "functions: review" if sev == "warning" else "")
            out.append(Finding("TSK-E008", sev,
                               f"{label}: {have} test functions ({n_have} node ids, "
                               f"parametrized cases counted once); minimum is {need}{extra}",
                               where, 0, 0))
    if unknown:
        out.append(Finding("TSK-E009", "error",
                           f"{len(unknown)} scoring node id(s) have no layer in taxonomy.jsonl, "
                           f"task.json or the map (first: {unknown[0]})", where, 0, 0))
    return out, {"functions": funcs, "nodeids": nodes}


# ---------------------------------------------------------------- test files
def load_modules(task: Any, cfg: dict[str, Any]) -> tuple[dict[str, TestModule], list[Finding]]:
    mods: dict[str, TestModule] = {}
    out: list[Finding] = []
    suffixes = tuple(cfg["gate_e"]["fixture_suffixes"])
    for rel, p in task.test_files.items():
        mod, fnd = read_module(p, suffixes)
        out.extend(fnd)
        if mod is not None:
            mods[rel] = mod
    return mods, out


def check_composition(task: Any, mods: dict[str, TestModule], cfg: dict[str, Any]) -> tuple[list[Finding], dict[str, Any]]:
    out: list[Finding] = []
    idx = layer_index(task)
    kinds: Counter[str] = Counter()
    for rel, mod in mods.items():
        for q, tf in mod.tests.items():
            layer = idx.get(func_key(f"{rel}::{q.replace('.', '::')}")) or _file_layer(rel + "::x")
            if tf.kind == "no_check":
                out.append(Finding("TSK-E006", "error",
                                   f"{q} has no assertion-like check (no_check is forbidden in "
                                   "every layer)", str(task.resolve(rel)), tf.line, 1))
            if layer == "atomic":
                kinds[tf.kind] += 1
    n = sum(kinds.values())
    info: dict[str, Any] = {"atomic_kinds": dict(kinds)}
    if n:
        share = kinds["positive"] / n
        info["atomic_positive_share"] = round(share, 4)
        need = float(cfg["gate_e"]["min_positive_share"])
        if share < need:
            out.append(Finding("TSK-E005", "error",
                               f"atomic layer: {kinds['positive']}/{n} tests are positive "
                               f"({share:.0%}); at least {need:.0%} must assert a produced value "
                               f"(failure_path {kinds['failure_path']}, shape {kinds['shape']}, "
                               f"no_check {kinds['no_check']})", str(task.dir), 0, 0))
    return out, info


def check_scoring_files(task: Any) -> list[Finding]:
    """Every scoring id names a file that exists (after the scorer's own resolution)."""
    from gavelkit.task.formats.scoring_ids import missing_files

    listed = set(task.missing_test_files)
    out = []
    for rel, ids in sorted(missing_files(task).items()):
        if rel in listed:
            continue  # already reported above
        out.append(Finding("TSK-E010", "error",
                           f"oracle file missing: {len(ids)} scoring id(s) name {rel}, which is "
                           f"not in the task folder (e.g. {ids[0]})",
                           str(task.paths.get("kept") or task.paths.get("map")
                               or task.paths.get("task_json") or task.dir), 0, 0))
    return out


def check_fixtures(task: Any, mods: dict[str, TestModule]) -> list[Finding]:
    out: list[Finding] = []
    for rel in task.missing_test_files:
        out.append(Finding("TSK-E010", "error",
                           f"oracle test file {rel} is listed (task.json / kept_nodeids.txt) but "
                           "not in the task folder", str(task.dir), 0, 0))
    out += check_scoring_files(task)
    if task.task_json:
        req = task.task_json.oracle.get("requirements")
        if isinstance(req, str) and req and not task.resolve(req).is_file():
            out.append(Finding("TSK-E010", "error",
                               f"task.json oracle.requirements names {req}, which does not exist",
                               str(task.paths["task_json"]), 0, 0))
    for rel, mod in mods.items():
        base = task.resolve(rel).parent
        for ref, line in mod.fixture_refs:
            target = Path(base, ref)
            if not target.exists():
                out.append(Finding("TSK-E010", "error",
                                   f"fixture file '{ref}' referenced by the test is missing "
                                   f"(looked for {target})", str(task.resolve(rel)), line, 1))
    return out


# ---------------------------------------------------------------- ledger
def check_ledger(task: Any, cfg: dict[str, Any]) -> list[Finding]:
    led = task.ledger
    if led is None:
        return []
    lp = str(task.paths["ledger"])
    allowed = set(cfg["gate_e"]["ledger_statuses"])
    out = [Finding("TSK-E011", "error", f"ledger status {r.status!r} is not one of "
                   f"{', '.join(sorted(allowed))}", lp, r.line, 1)
           for r in led.rows if r.status not in allowed]
    return out + _ledger_state(task, led, lp) + _qualified_and_retired(led, lp)


def _ledger_state(task: Any, led: Any, lp: str) -> list[Finding]:
    """The task's live QUALIFIED row exists exactly when its state is QUALIFIED."""
    from gavelkit.task.pipeline.digests import ledger_names

    names = ledger_names(task)
    live_q = [r for r in led.rows if r.matches(names) and r.status == "QUALIFIED"
              and "superseded_by" not in r.detail]
    state = task.state
    if state == "QUALIFIED" and not live_q:
        return [Finding("TSK-E011", "error", f"task {task.id} is QUALIFIED but CANDIDATES.md "
                        "has no live QUALIFIED row for it", lp, 0, 0)]
    if state and state != "QUALIFIED" and live_q:
        return [Finding("TSK-E011", "error", f"CANDIDATES.md line {live_q[-1].line} says "
                        f"QUALIFIED but the task state is {state}", lp, live_q[-1].line, 1)]
    return []


def _qualified_and_retired(led: Any, lp: str) -> list[Finding]:
    by_repo: dict[str, set[str]] = {}
    for r in led.rows:
        if "superseded_by" not in r.detail:
            by_repo.setdefault(r.repo.strip("` ").lower(), set()).add(r.status)
    return [Finding("TSK-E011", "warning", f"{repo} is both QUALIFIED and RETIRED in the ledger",
                    lp, 0, 0)
            for repo, sts in by_repo.items() if "QUALIFIED" in sts and "RETIRED" in sts]


def check(task: Any) -> GateResult:
    cfg = task.config
    res = GateResult("E", "PASS")
    if task.spec is not None:
        std, why = detect(task.spec, cfg, task)
        fnd, info = check_structure(task.spec, cfg, str(task.paths["spec"]), std)
        info["detected_by"] = why
        res.findings += fnd
        res.data["structure"] = info
        res.findings += check_terms(task.spec, cfg, str(task.paths["spec"]))
        res.findings += check_environment(task, cfg, std)
    else:
        res.findings.append(Finding("TSK-E001", "error", "no readable spec.md in the task folder",
                                    str(task.dir), 0, 0))
    fnd, info = check_minimums(task, cfg)
    res.findings += fnd
    res.data["layers"] = info
    mods, fnd = load_modules(task, cfg)
    res.findings += fnd
    if not mods:
        res.findings.append(Finding("TSK-E012", "warning",
                                    "no oracle test file found in the task folder: assertion "
                                    "composition and fixture references were not checked",
                                    str(task.dir), 0, 0))
    else:
        fnd, info = check_composition(task, mods, cfg)
        res.findings += fnd
        res.data["composition"] = info
    res.findings += check_fixtures(task, mods)
    from gavelkit.task.gates.metadata import check_metadata

    res.findings += check_metadata(task, mods)
    res.findings += check_ledger(task, cfg)
    if any(f.severity == "error" for f in res.findings):
        res.verdict = "FAIL"
    return res


__all__ = ["base_nodeid", "check", "leaf"]
