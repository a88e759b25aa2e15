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
from gavelkit.task.formats.spec_test_map import MapRow
from gavelkit.task.formats.testsrc import TestModule, read_module
from gavelkit.task.gates import GateResult
from gavelkit.task.gates.spec_rules import (
    check_environment,
    check_structure,
    check_terms,
)
from gavelkit.task.gates.standard import detect

_INLINE_CODE = re.compile(r"`+[^`]*`+")


def leaf(nodeid: str) -> str:
    """Node id without its file part (`f.py::C::t[p]` -> `C::t[p]`), stable across graduation."""
    return nodeid.split("::", 1)[1] if "::" in nodeid else nodeid


# ---------------------------------------------------------------- layers
def layer_index(task: Any) -> dict[str, str]:
    """func_key -> layer from taxonomy.jsonl, task.json taxonomy, the map, file names."""
    out: dict[str, str] = {}
    if task.map:
        for r in task.map.rows:
            if r.layer:
                out.setdefault(func_key(r.nodeid), r.layer)
    if task.task_json:
        for k, v in task.task_json.taxonomy.items():
            out[func_key(k)] = v
    if task.taxonomy:
        for e in task.taxonomy.entries:
            out[func_key(e.key)] = e.layer
    return out


def _file_layer(nodeid: str) -> str:
    stem = func_key(nodeid).split(".", 1)[0]
    return "atomic" if stem == "test_atomic" else ""


def scoring_set(task: Any) -> list[str]:
    if task.kept is not None:
        return list(task.kept.ids)
    if task.map is not None:
        return [r.nodeid for r in task.map.covered_rows()]
    if task.task_json is not None and task.task_json.taxonomy:
        return list(task.task_json.taxonomy)
    return []


def layer_counts(task: Any) -> tuple[dict[str, int], dict[str, int], list[str]]:
    """(functions per layer, node ids per layer, node ids with no known layer)."""
    idx = layer_index(task)
    funcs: dict[str, set[str]] = {}
    nodes: Counter[str] = Counter()
    unknown: list[str] = []
    for nid in scoring_set(task):
        fk = func_key(nid)
        layer = idx.get(fk) or _file_layer(nid)
        if not layer:
            unknown.append(nid)
            continue
        funcs.setdefault(layer, set()).add(fk)
        nodes[layer] += 1
    return {k: len(v) for k, v in funcs.items()}, dict(nodes), unknown


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


# ---------------------------------------------------------------- metadata
def check_metadata(task: Any, mods: dict[str, TestModule]) -> list[Finding]:
    out: list[Finding] = []
    tj = task.task_json
    tjp = str(task.paths.get("task_json", task.dir / "task.json"))
    kept = task.kept.ids if task.kept else None
    kept_path = str(task.paths.get("kept", ""))

    def err(msg: str, path: str = tjp, sev: str = "error", line: int = 0) -> None:
        out.append(Finding("TSK-E009", sev, msg, path, line, 1 if line else 0))  # type: ignore[arg-type]

    if tj is not None:
        folder = task.dir.resolve().name
        if tj.instance_id and tj.instance_id != folder:
            err(f"task.json instance_id {tj.instance_id!r} does not match the folder name {folder!r}")
        stats = tj.stats
        count = tj.oracle_count
        if stats is not None:
            nums = {k: v for k, v in stats.items() if isinstance(v, int) and not isinstance(v, bool)}
            s = sum(nums.get(k, 0) for k in ("atomic", "integration", "system_e2e"))
            if count is not None and s != count:
                err(f"stats atomic+integration+system_e2e = {s}, oracle.count = {count}")
            _, nodes, _ = layer_counts(task)
            for layer in ("atomic", "integration", "system_e2e"):
                if layer in nums and nodes and nums[layer] != nodes.get(layer, 0):
                    err(f"stats.{layer} = {nums[layer]}, but the scoring set has "
                        f"{nodes.get(layer, 0)} {layer} node ids")
        if count is not None and kept is not None and count != len(kept):
            err(f"oracle.count = {count}, kept_nodeids.txt has {len(kept)} node ids")
        if tj.taxonomy and kept is not None:
            a = {leaf(k) if "::" in k else None for k in tj.taxonomy} - {None}
            if a:
                b = {leaf(k) for k in kept}
                if a != b:
                    err(f"task.json taxonomy and kept_nodeids.txt differ: {len(b - a)} kept id(s) "
                        f"missing from taxonomy, {len(a - b)} extra"
                        + (f" (e.g. {sorted(b - a or a - b)[0]})" if a ^ b else ""))
    if task.taxonomy is not None and kept is not None:
        tax_keys = {func_key(e.key).split(".", 1)[-1] for e in task.taxonomy.entries}
        kept_keys = {func_key(k).split(".", 1)[-1] for k in kept}
        miss = sorted(kept_keys - tax_keys)
        if miss:
            err(f"{len(miss)} kept test function(s) have no taxonomy.jsonl entry (e.g. {miss[0]})",
                str(task.paths["taxonomy"]))
        extra = sorted(tax_keys - kept_keys)
        if extra:
            err(f"{len(extra)} taxonomy.jsonl entr(y/ies) are not in kept_nodeids.txt "
                f"(e.g. {extra[0]})", str(task.paths["taxonomy"]), "warning")
    # layer agreement between sources (a function has one layer; the map may list several)
    sources: list[tuple[str, dict[str, set[str]]]] = []

    def fk(k: str) -> str:
        return func_key(k).split(".", 1)[-1]

    if task.taxonomy:
        sources.append(("taxonomy.jsonl", {fk(e.key): {e.layer} for e in task.taxonomy.entries}))
    if tj and tj.taxonomy:
        d: dict[str, set[str]] = {}
        for k, v in tj.taxonomy.items():
            d.setdefault(fk(k), set()).add(v)
        sources.append(("task.json taxonomy", d))
    if task.map:
        d = {}
        for r in task.map.covered_rows():
            if r.layer:
                d.setdefault(fk(r.nodeid), set()).add(r.layer)
        sources.append(("spec_test_map.md", d))
    for name, d in sources:
        split = sorted(k for k, v in d.items() if len(v) > 1)
        if split:
            err(f"{len(split)} test function(s) have cases in different layers in {name} "
                f"(e.g. {split[0]}: {', '.join(sorted(d[split[0]]))}); a function has one layer",
                tjp if tj and name.startswith("task.json") else str(task.dir))
    for i in range(len(sources)):
        for j in range(i + 1, len(sources)):
            (na, a), (nb, b) = sources[i], sources[j]
            bad = sorted(k for k in set(a) & set(b) if a[k] != b[k] and len(a[k]) == len(b[k]) == 1)
            if bad:
                err(f"{len(bad)} test function(s) have a different layer in {na} and {nb} "
                    f"(e.g. {bad[0]}: {next(iter(a[bad[0]]))} vs {next(iter(b[bad[0]]))})",
                    tjp if tj else str(task.dir))
    # map covered rows vs kept
    if task.map is not None and kept is not None:
        covered = {leaf(r.nodeid) for r in task.map.covered_rows()}
        kl = {leaf(k) for k in kept}
        mp = str(task.paths["map"])
        if kl - covered:
            x = sorted(kl - covered)
            err(f"{len(x)} kept node id(s) have no covered row in the map (e.g. {x[0]})", mp)
        if covered - kl:
            x = sorted(covered - kl)
            err(f"{len(x)} covered map row(s) are not in kept_nodeids.txt (e.g. {x[0]})", mp)
    if task.map is not None and task.map.footer:
        f = task.map.footer
        rows = list(task.map.rows)
        for t in task.map.extra_tables:  # e.g. a separate "Excluded cases" table
            if "status" in t.keys():  # noqa: SIM118 - MdTable.keys() is a method, not a dict
                col = t.keys().index("status")
                rows += [MapRow("", "", [], c.cells[col].strip("` ").lower())
                         for c in t.rows if len(c.cells) > col]
        actual = {"total": None,
                  "kept_(covered)": sum(r.covered for r in rows),
                  "kept": sum(r.covered for r in rows),
                  "excluded": sum(r.status == "excluded" for r in rows),
                  "source_only": sum(r.status == "source-only" for r in rows),
                  "spec_gap": sum(r.status == "spec_gap" for r in rows)}
        for k, v in f.items():
            if actual.get(k) is not None and actual[k] != v:
                err(f"map footer says {k.replace('_', ' ')}: {v}, the table has {actual[k]}",
                    str(task.paths["map"]), "warning", task.map.footer_line)
    # score files and the legacy MANIFEST.json against the current oracle
    idx_all = layer_index(task)
    for key in ("reference_score", "score_result"):
        sr = getattr(task, key)
        if sr is None or not sr.cases:
            continue
        diff_layer = [c.nodeid for c in sr.cases
                      if c.layer and idx_all.get(func_key(c.nodeid)) not in (None, c.layer)]
        if diff_layer:
            err(f"{task.rel(task.paths[key])} scored {len(diff_layer)} case(s) under another "
                f"layer than the taxonomy now gives (e.g. {diff_layer[0]}); it was produced with "
                "a different taxonomy", str(task.paths[key]), "warning")
        if kept is not None:
            scored = {leaf(c.nodeid) for c in sr.cases}
            missing = {leaf(k) for k in kept} - scored
            if missing:
                err(f"{task.rel(task.paths[key])} has no case for {len(missing)} kept node id(s) "
                    f"(e.g. {sorted(missing)[0]}); it scored an older oracle",
                    str(task.paths[key]), "warning")
    man = task.manifest.get("oracle") if task.manifest else None
    if isinstance(man, dict) and kept is not None:
        total = man.get("total")
        if isinstance(total, int) and total != len(kept):
            err(f"MANIFEST.json oracle.total = {total}, kept_nodeids.txt has {len(kept)}",
                str(task.paths["manifest"]))
    # physical test functions
    if mods and kept is not None:
        defined = {f"{Path(rel).stem}.{q}" for rel, m in mods.items() for q in m.tests}
        present_files = {Path(rel).stem for rel in mods}
        need = {func_key(k) for k in kept if func_key(k).split(".", 1)[0] in present_files}
        miss = sorted(need - defined)
        if miss:
            err(f"{len(miss)} kept test function(s) are not defined in the oracle test files "
                f"(e.g. {miss[0]})", kept_path)
        idx = layer_index(task)
        for rel, m in mods.items():
            stem = Path(rel).stem
            for q, tf in m.tests.items():
                layer = idx.get(f"{stem}.{q}")
                if stem == "test_atomic" and layer and layer != "atomic":
                    err(f"{q} is in test_atomic.py but its taxonomy layer is {layer}",
                        str(task.resolve(rel)), line=tf.line)
                if stem == "test_integration" and layer == "atomic":
                    err(f"{q} is in test_integration.py but its taxonomy layer is atomic",
                        str(task.resolve(rel)), line=tf.line)
    return out


# ---------------------------------------------------------------- ledger
def check_ledger(task: Any, cfg: dict[str, Any]) -> list[Finding]:
    led = task.ledger
    if led is None:
        return []
    out: list[Finding] = []
    lp = str(task.paths["ledger"])
    allowed = set(cfg["gate_e"]["ledger_statuses"])
    for r in led.rows:
        if r.status not in allowed:
            out.append(Finding("TSK-E011", "error",
                               f"ledger status {r.status!r} is not one of {', '.join(sorted(allowed))}",
                               lp, r.line, 1))
    from gavelkit.task.pipeline.digests import ledger_names

    names = ledger_names(task)
    mine = [r for r in led.rows if r.matches(names)]
    live_q = [r for r in mine if r.status == "QUALIFIED" and "superseded_by" not in r.detail]
    state = task.state
    if state == "QUALIFIED" and not live_q:
        out.append(Finding("TSK-E011", "error",
                           f"task {task.id} is QUALIFIED but CANDIDATES.md has no live QUALIFIED "
                           "row for it", lp, 0, 0))
    if state and state not in ("QUALIFIED",) and live_q:
        out.append(Finding("TSK-E011", "error",
                           f"CANDIDATES.md line {live_q[-1].line} says QUALIFIED but the task "
                           f"state is {state}", lp, live_q[-1].line, 1))
    by_repo: dict[str, set[str]] = {}
    for r in led.rows:
        if "superseded_by" in r.detail:
            continue
        by_repo.setdefault(r.repo.strip("` ").lower(), set()).add(r.status)
    for repo, sts in by_repo.items():
        if "QUALIFIED" in sts and "RETIRED" in sts:
            out.append(Finding("TSK-E011", "warning",
                               f"{repo} is both QUALIFIED and RETIRED in the ledger", lp, 0, 0))
    return out


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
    res.findings += check_metadata(task, mods)
    res.findings += check_ledger(task, cfg)
    if any(f.severity == "error" for f in res.findings):
        res.verdict = "FAIL"
    return res


__all__ = ["base_nodeid", "check", "leaf"]
