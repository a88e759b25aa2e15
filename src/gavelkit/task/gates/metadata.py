"""Gate E's metadata consistency (QUALITY_GATE Gate 4): every record of the scoring set agrees.

task.json (instance_id, stats, oracle.count, taxonomy), taxonomy.jsonl,
kept_nodeids.txt, the map's covered rows and footer, the score files, MANIFEST.json
and the test functions found in the oracle files. Each comparison is one function
that returns its TSK-E009 findings; `check_metadata` runs them in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gavelkit.core.findings import Finding
from gavelkit.task.formats.nodeids import func_key
from gavelkit.task.formats.spec_test_map import MapRow
from gavelkit.task.formats.testsrc import TestModule
from gavelkit.task.gates.layers import layer_counts, layer_index, leaf


@dataclass(frozen=True, slots=True)
class _Ctx:
    task: Any
    tjp: str  # task.json path
    kept: tuple[str, ...] | None


def _e009(msg: str, path: str, sev: str = "error", line: int = 0) -> Finding:
    return Finding("TSK-E009", sev, msg, path, line, 1 if line else 0)  # type: ignore[arg-type]


def _fk(k: str) -> str:
    return func_key(k).split(".", 1)[-1]


def _stats(x: _Ctx) -> list[Finding]:
    """task.json stats: their sum is oracle.count, each layer the scoring set's count."""
    tj = x.task.task_json
    nums = {k: v for k, v in tj.stats.items() if isinstance(v, int) and not isinstance(v, bool)}
    out = []
    total = sum(nums.get(k, 0) for k in ("atomic", "integration", "system_e2e"))
    if tj.oracle_count is not None and total != tj.oracle_count:
        out.append(_e009(f"stats atomic+integration+system_e2e = {total}, oracle.count = "
                         f"{tj.oracle_count}", x.tjp))
    return out + _stats_per_layer(x, nums)


def _stats_per_layer(x: _Ctx, nums: dict[str, int]) -> list[Finding]:
    _, nodes, _ = layer_counts(x.task)
    if not nodes:
        return []
    return [_e009(f"stats.{layer} = {nums[layer]}, but the scoring set has "
                  f"{nodes.get(layer, 0)} {layer} node ids", x.tjp)
            for layer in ("atomic", "integration", "system_e2e")
            if layer in nums and nums[layer] != nodes.get(layer, 0)]


def _json_vs_kept(x: _Ctx) -> list[Finding]:
    """task.json oracle.count and taxonomy against kept_nodeids.txt."""
    tj, out = x.task.task_json, []
    count = tj.oracle_count
    if count is not None and count != len(x.kept):
        out.append(_e009(f"oracle.count = {count}, kept_nodeids.txt has {len(x.kept)} node ids",
                         x.tjp))
    a = {leaf(k) for k in tj.taxonomy if "::" in k}
    b = {leaf(k) for k in x.kept}
    if a and a != b:
        out.append(_e009(f"task.json taxonomy and kept_nodeids.txt differ: {len(b - a)} kept "
                         f"id(s) missing from taxonomy, {len(a - b)} extra"
                         f" (e.g. {sorted(b - a or a - b)[0]})", x.tjp))
    return out


def _task_json(x: _Ctx) -> list[Finding]:
    tj, out = x.task.task_json, []
    if tj is None:
        return out
    folder = x.task.dir.resolve().name
    if tj.instance_id and tj.instance_id != folder:
        out.append(_e009(f"task.json instance_id {tj.instance_id!r} does not match the folder "
                         f"name {folder!r}", x.tjp))
    if tj.stats is not None:
        out += _stats(x)
    if x.kept is not None:
        out += _json_vs_kept(x)
    return out


def _taxonomy_vs_kept(x: _Ctx) -> list[Finding]:
    task = x.task
    if task.taxonomy is None or x.kept is None:
        return []
    tax = {_fk(e.key) for e in task.taxonomy.entries}
    kept = {_fk(k) for k in x.kept}
    path = str(task.paths["taxonomy"])
    out = []
    miss, extra = sorted(kept - tax), sorted(tax - kept)
    if miss:
        out.append(_e009(f"{len(miss)} kept test function(s) have no taxonomy.jsonl entry "
                         f"(e.g. {miss[0]})", path))
    if extra:
        out.append(_e009(f"{len(extra)} taxonomy.jsonl entr(y/ies) are not in kept_nodeids.txt "
                         f"(e.g. {extra[0]})", path, "warning"))
    return out


def _layer_sources(task: Any) -> list[tuple[str, dict[str, set[str]]]]:
    """Per source, function -> the layers it gives (a function has one layer)."""
    out: list[tuple[str, dict[str, set[str]]]] = []
    if task.taxonomy:
        out.append(("taxonomy.jsonl", {_fk(e.key): {e.layer} for e in task.taxonomy.entries}))
    tj = task.task_json
    if tj and tj.taxonomy:
        d: dict[str, set[str]] = {}
        for k, v in tj.taxonomy.items():
            d.setdefault(_fk(k), set()).add(v)
        out.append(("task.json taxonomy", d))
    if task.map:
        d = {}
        for r in task.map.covered_rows():
            if r.layer:
                d.setdefault(_fk(r.nodeid), set()).add(r.layer)
        out.append(("spec_test_map.md", d))
    return out


def _layers_agree(x: _Ctx) -> list[Finding]:
    tj, sources = x.task.task_json, _layer_sources(x.task)
    out = [_e009(f"{len(split)} test function(s) have cases in different layers in {name} "
                 f"(e.g. {split[0]}: {', '.join(sorted(d[split[0]]))}); a function has one "
                 "layer", x.tjp if tj and name.startswith("task.json") else str(x.task.dir))
           for name, d in sources if (split := sorted(k for k, v in d.items() if len(v) > 1))]
    where = x.tjp if tj else str(x.task.dir)
    for i, (na, a) in enumerate(sources):
        for nb, b in sources[i + 1:]:
            out += _layers_differ(na, a, nb, b, where)
    return out


def _layers_differ(na: str, a: dict[str, set[str]], nb: str, b: dict[str, set[str]],
                   where: str) -> list[Finding]:
    """Functions with one layer in each of two sources, and not the same one."""
    bad = sorted(k for k in set(a) & set(b) if a[k] != b[k] and len(a[k]) == len(b[k]) == 1)
    if not bad:
        return []
    return [_e009(f"{len(bad)} test function(s) have a different layer in {na} and {nb} (e.g. "
                  f"{bad[0]}: {next(iter(a[bad[0]]))} vs {next(iter(b[bad[0]]))})", where)]


def _map_vs_kept(x: _Ctx) -> list[Finding]:
    task = x.task
    if task.map is None or x.kept is None:
        return []
    covered = {leaf(r.nodeid) for r in task.map.covered_rows()}
    kl = {leaf(k) for k in x.kept}
    mp, out = str(task.paths["map"]), []
    if kl - covered:
        out.append(_e009(f"{len(kl - covered)} kept node id(s) have no covered row in the map "
                         f"(e.g. {sorted(kl - covered)[0]})", mp))
    if covered - kl:
        out.append(_e009(f"{len(covered - kl)} covered map row(s) are not in kept_nodeids.txt "
                         f"(e.g. {sorted(covered - kl)[0]})", mp))
    return out


def _extra_status_rows(stm: Any) -> list[MapRow]:
    """Rows of tables beside the main one that have a status column (e.g. "Excluded cases")."""
    rows: list[MapRow] = []
    for t in stm.extra_tables:
        if "status" in t.keys():  # noqa: SIM118 - MdTable.keys() is a method, not a dict
            col = t.keys().index("status")
            rows += [MapRow("", "", [], c.cells[col].strip("` ").lower())
                     for c in t.rows if len(c.cells) > col]
    return rows


def _footer(x: _Ctx) -> list[Finding]:
    stm = x.task.map
    if stm is None or not stm.footer:
        return []
    rows = list(stm.rows) + _extra_status_rows(stm)
    kept = sum(r.covered for r in rows)
    actual = {"kept_(covered)": kept, "kept": kept,
              "excluded": sum(r.status == "excluded" for r in rows),
              "source_only": sum(r.status == "source-only" for r in rows),
              "spec_gap": sum(r.status == "spec_gap" for r in rows)}
    return [_e009(f"map footer says {k.replace('_', ' ')}: {v}, the table has {actual[k]}",
                  str(x.task.paths["map"]), "warning", stm.footer_line)
            for k, v in stm.footer.items() if k in actual and actual[k] != v]


def _score_files(x: _Ctx) -> list[Finding]:
    """Score files and the legacy MANIFEST.json against the current oracle."""
    task, out = x.task, []
    idx = layer_index(task)
    for key in ("reference_score", "score_result"):
        sr = getattr(task, key)
        if sr is not None and sr.cases:
            out += _score_file(x, key, sr, idx)
    man = task.manifest.get("oracle") if task.manifest else None
    total = man.get("total") if isinstance(man, dict) else None
    if isinstance(total, int) and x.kept is not None and total != len(x.kept):
        out.append(_e009(f"MANIFEST.json oracle.total = {total}, kept_nodeids.txt has "
                         f"{len(x.kept)}", str(task.paths["manifest"])))
    return out


def _score_file(x: _Ctx, key: str, sr: Any, idx: dict[str, str]) -> list[Finding]:
    """One score file: its layers are the taxonomy's, it has a case per kept node id."""
    task, out = x.task, []
    rel, path = task.rel(task.paths[key]), str(task.paths[key])
    other = [c.nodeid for c in sr.cases
             if c.layer and idx.get(func_key(c.nodeid)) not in (None, c.layer)]
    if other:
        out.append(_e009(f"{rel} scored {len(other)} case(s) under another layer than the "
                         f"taxonomy now gives (e.g. {other[0]}); it was produced with a "
                         "different taxonomy", path, "warning"))
    missing = ({leaf(k) for k in x.kept} - {leaf(c.nodeid) for c in sr.cases}
               if x.kept is not None else set())
    if missing:
        out.append(_e009(f"{rel} has no case for {len(missing)} kept node id(s) (e.g. "
                         f"{sorted(missing)[0]}); it scored an older oracle", path, "warning"))
    return out


def _test_functions(x: _Ctx, mods: dict[str, TestModule]) -> list[Finding]:
    """Kept functions are defined; test_atomic.py / test_integration.py hold their layer."""
    task = x.task
    if not mods or x.kept is None:
        return []
    out = _undefined(x.kept, mods, str(task.paths.get("kept", "")))
    idx = layer_index(task)
    for rel, m in mods.items():
        stem = Path(rel).stem
        if stem in ("test_atomic", "test_integration"):
            out += _misplaced(stem, m, idx, str(task.resolve(rel)))
    return out


def _undefined(kept: tuple[str, ...], mods: dict[str, TestModule], path: str) -> list[Finding]:
    """Kept functions of a present oracle module that it does not define."""
    defined = {f"{Path(rel).stem}.{q}" for rel, m in mods.items() for q in m.tests}
    present = {Path(rel).stem for rel in mods}
    miss = sorted({func_key(k) for k in kept if func_key(k).split(".", 1)[0] in present}
                  - defined)
    if not miss:
        return []
    return [_e009(f"{len(miss)} kept test function(s) are not defined in the oracle test "
                  f"files (e.g. {miss[0]})", path)]


def _misplaced(stem: str, m: TestModule, idx: dict[str, str], path: str) -> list[Finding]:
    """test_atomic.py holds atomic tests only; test_integration.py no atomic test."""
    out: list[Finding] = []
    for q, tf in m.tests.items():
        layer = idx.get(f"{stem}.{q}")
        if stem == "test_atomic" and layer and layer != "atomic":
            out.append(_e009(f"{q} is in test_atomic.py but its taxonomy layer is {layer}",
                             path, line=tf.line))
        if stem == "test_integration" and layer == "atomic":
            out.append(_e009(f"{q} is in test_integration.py but its taxonomy layer is atomic",
                             path, line=tf.line))
    return out


def check_metadata(task: Any, mods: dict[str, TestModule]) -> list[Finding]:
    x = _Ctx(task, str(task.paths.get("task_json", task.dir / "task.json")),
             tuple(task.kept.ids) if task.kept else None)
    out: list[Finding] = []
    for step in (_task_json, _taxonomy_vs_kept, _layers_agree, _map_vs_kept, _footer,
                 _score_files):
        out += step(x)
    return out + _test_functions(x, mods)
