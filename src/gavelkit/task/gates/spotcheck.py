"""Gates A and C helpers: reproducible spot-check tables and their verification.

`build(task, n, seed, gate)` samples covered map rows (Gate C: generated rows)
with `random.Random(seed)` over the rows sorted by node id, so the same seed
gives the same sample on every machine, and fills three of the four columns:
the node id, an assertion summary read from the test's AST, and the exact
spec heading(s) the row maps to. The judge fills `verdict`.

`verify(task, text, gate)` checks a filled table: four columns, no empty
cell, every quoted heading present verbatim in spec.md, every verdict in the
gate's allowed set (data: spotcheck.gate_a_verdicts / gate_c_verdicts), the
node id a covered row of the map, at least gate_c_min_rows rows for Gate C;
any negative verdict fails the gate.

Gate C triggers when the oracle_source (map header, `filter/` prefix, inline
mention, or task.json oracle.source) is a variant meaning generated-only.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.findings import Finding
from gavelkit.task.config import fold, is_generated_only
from gavelkit.task.formats._md import escape_cell, find_tables, norm_key, strip_ticks
from gavelkit.task.formats.nodeids import base_nodeid, file_of
from gavelkit.task.formats.spec_test_map import MapRow
from gavelkit.task.formats.testsrc import TestModule, read_module, summarize
from gavelkit.task.gates.gate_d import match_sections

COLUMNS = ["nodeid", "assertion summary", "spec_section", "verdict"]


def gate_c_triggered(task: Any) -> tuple[bool, str | None, str]:
    value, where = task.oracle_source()
    return is_generated_only(value, task.config), value, where


def candidates(task: Any, gate: str) -> list[MapRow]:
    rows = task.map.covered_rows() if task.map else []
    if gate == "C" and task.map and task.map.layout == "with-source":
        gen = [r for r in rows if "generated" in fold(r.source)]
        rows = gen
    return sorted(rows, key=lambda r: r.nodeid)


def sample(task: Any, n: int, seed: int, gate: str = "A") -> list[MapRow]:
    rows = candidates(task, gate)
    if n >= len(rows):
        return rows
    picked = random.Random(seed).sample(rows, n)
    return sorted(picked, key=lambda r: r.nodeid)


def _module_for(task: Any, nodeid: str, cache: dict[str, TestModule | None]) -> TestModule | None:
    rel = file_of(nodeid)
    path = task.test_files.get(rel)
    if path is None:
        stem = Path(rel).stem
        path = next((p for r, p in task.test_files.items() if Path(r).stem == stem), None)
        if path is None:
            # graduated tasks split by layer; look for the function in any oracle file
            for p in task.test_files.values():
                mod = _load(p, cache)
                if mod and mod.find(_qual(nodeid)):
                    return mod
            return None
    return _load(path, cache)


def _load(path: Path, cache: dict[str, TestModule | None]) -> TestModule | None:
    key = str(path)
    if key not in cache:
        cache[key] = read_module(path)[0]
    return cache[key]


def _qual(nodeid: str) -> str:
    rest = base_nodeid(nodeid).split("::", 1)[-1]
    return rest.replace("::", ".")


def _summary(mod: TestModule, tf: Any) -> str:
    """The test's own checks, or those of the same-module helpers it calls."""
    if tf.checks:
        return summarize(tf)
    parts = [f"via {name}(): {summarize(mod.helpers[name])}" for name in sorted(tf.calls)
             if name in mod.helpers and mod.helpers[name].checks]
    return "; ".join(parts) if parts else summarize(tf)


def map_digest(task: Any) -> str:
    """sha256 of spec_test_map.md: a table records the map it was sampled from."""
    import hashlib

    p = task.paths.get("map")
    return hashlib.sha256(p.read_bytes()).hexdigest() if p is not None and p.is_file() else ""


class SpotRows(list):  # type: ignore[type-arg]
    """The sampled rows, with the digest of the map they were sampled from."""

    map_digest: str = ""


@dataclass(slots=True)
class SpotRow:
    nodeid: str
    summary: str
    spec_section: str
    verdict: str = ""
    line: int = 0


def build(task: Any, n: int, seed: int, gate: str = "A") -> SpotRows:
    cache: dict[str, TestModule | None] = {}
    out = SpotRows()
    out.map_digest = map_digest(task)
    for r in sample(task, n, seed, gate):
        mod = _module_for(task, r.nodeid, cache)
        tf = mod.find(_qual(r.nodeid)) if mod else None
        summary = _summary(mod, tf) if mod and tf else "(test source not in the task folder)"
        heads = []
        for cell in r.sections:
            hits = match_sections(task.spec, cell) if task.spec else []
            heads += [h.raw for h in hits] or [f"{cell} (NOT A SPEC HEADING)"]
        out.append(SpotRow(r.nodeid, summary, "; ".join(dict.fromkeys(heads))))
    return out


def render(rows: list[SpotRow], gate: str, seed: int, n: int, allowed: list[str]) -> str:
    digest = getattr(rows, "map_digest", "")
    lines = [f"<!-- gavel task spotcheck: Gate {gate}, seed {seed}, sample {n}; "
             f"verdict one of: {', '.join(allowed)}"
             + (f"; map sha256 {digest}" if digest else "") + " -->", "",
             "| " + " | ".join(COLUMNS) + " |", "|---|---|---|---|"]
    for r in rows:
        lines.append("| " + " | ".join(escape_cell(c) for c in
                                       (f"`{r.nodeid}`", r.summary, r.spec_section, r.verdict)) + " |")
    return "\n".join(lines) + "\n"


def allowed_verdicts(cfg: dict[str, Any], gate: str) -> list[str]:
    return list(cfg["spotcheck"]["gate_c_verdicts" if gate == "C" else "gate_a_verdicts"])


def _heading_ok(task: Any, part: str) -> bool:
    spec = task.spec
    for cand in {part.strip(), strip_ticks(part), part.strip().strip("\"'“”")}:
        if cand and spec.exact(cand) is not None:
            return True
    return False


@dataclass(slots=True)
class Verification:
    findings: list[Finding] = field(default_factory=list)
    rows: list[SpotRow] = field(default_factory=list)
    verdicts: dict[str, int] = field(default_factory=dict)


_EMPTY = ("-", "—", "…", "TODO", "?")


def _table(text: str) -> Any:
    return next((t for t in find_tables(text)
                 if [norm_key(h) for h in t.header] == [norm_key(c) for c in COLUMNS]), None)


@dataclass(frozen=True, slots=True)
class _RowRules:
    """What every row of one table is checked against."""

    path: str
    gate: str
    allowed: list[str]
    covered: frozenset[str]  # the map's covered node ids (empty: no map to check against)


def _row_findings(task: Any, cells: list[str], line: int, rules: _RowRules,
                  nodeid: str) -> tuple[list[Finding], str]:
    """A complete row's findings and its verdict as the allowed spelling ('' when none)."""
    path = rules.path
    out = [Finding("TSK-A002", "error", f"empty '{name}' cell: a row counts only when complete",
                   path, line, 1)
           for name, c in zip(COLUMNS, cells, strict=True) if not c.strip() or c.strip() in _EMPTY]
    out += _heading_findings(task, cells[2], line, path)
    allowed_f = {fold(a): a for a in rules.allowed}
    v = fold(cells[3]) if cells[3].strip() else ""
    if v and v not in allowed_f:
        out.append(Finding("TSK-A004", "error", f"verdict {cells[3].strip()!r} is not one of "
                           f"{', '.join(rules.allowed)} (Gate {rules.gate})", path, line, 1))
    if rules.covered and nodeid not in rules.covered:
        out.append(Finding("TSK-A005", "warning",
                           f"{nodeid} is not a covered row of spec_test_map.md", path, line, 1))
    return out, allowed_f.get(v, "")


def _heading_findings(task: Any, cell: str, line: int, path: str) -> list[Finding]:
    """Every heading the spec_section cell quotes is a heading of spec.md, verbatim."""
    if not cell.strip() or task.spec is None:
        return []
    return [Finding("TSK-A003", "error", f"spec_section {part.strip()!r} is not a heading of "
                    "spec.md, verbatim", path, line, 1)
            for part in re.split(r";|\s\+\s", cell) if part.strip() and not _heading_ok(task, part)]


def _negative(res: Verification, gate: str, path: str) -> None:
    """TSK-A007 naming every row whose verdict is not derivable."""
    bad = {k: n for k, n in res.verdicts.items() if fold(k) != "derivable"}
    if not bad:
        return
    what = ", ".join(f"{n} {k}" for k, n in sorted(bad.items()))
    failed = _not_derivable(res.rows)
    named = "; ".join(f"{r.nodeid} ({r.verdict.strip()}, line {r.line})" for r in failed[:10])
    line = failed[0].line if failed else 0
    res.findings.append(Finding(
        "TSK-A007", "error",
        f"Gate {gate} fails: {what}: {named}; return filter_correction_request.md to "
        "test-filter" + (" for regeneration" if gate == "C" else " to correct the map"),
        path, line, 1 if failed else 0, data={"rows": [_failed_row(r) for r in failed]}))


def _not_derivable(rows: list[SpotRow]) -> list[SpotRow]:
    return [r for r in rows if r.verdict.strip() and fold(r.verdict) != "derivable"]


def _failed_row(r: SpotRow) -> dict[str, Any]:
    return {"nodeid": r.nodeid, "verdict": r.verdict.strip(),
            "spec_section": r.spec_section.strip(), "line": r.line}


def verify(task: Any, text: str, path: str, gate: str = "A") -> Verification:
    res = Verification()
    allowed = allowed_verdicts(task.config, gate)
    table = _table(text)
    if table is None:
        res.findings.append(Finding("TSK-A001", "error",
                                    "no table with the columns nodeid | assertion summary | "
                                    "spec_section | verdict", path, 0, 0))
        return res
    res.findings += _stale(task, text, path)
    rules = _RowRules(path, gate, allowed, frozenset(
        r.nodeid for r in task.map.covered_rows()) if task.map else frozenset())
    _verify_rows(task, table, rules, res)
    res.findings += _row_count(task, table, len(res.rows), gate, path)
    _negative(res, gate, path)
    return res


def _verify_rows(task: Any, table: Any, rules: _RowRules, res: Verification) -> None:
    """Each complete, first-listed row with its findings; its verdict counted."""
    path = rules.path
    first_line: dict[str, int] = {}
    for row in table.rows:
        cells = row.cells
        if len(cells) != 4:
            res.findings.append(Finding("TSK-A002", "error",
                                        f"row has {len(cells)} cells, expected 4", path, row.line, 1))
            continue
        sr = SpotRow(strip_ticks(cells[0]), cells[1], cells[2], cells[3], row.line)
        if sr.nodeid in first_line:  # a copied row would count one test twice
            res.findings.append(Finding("TSK-A009", "error", f"{sr.nodeid} is listed again "
                                        f"(first at line {first_line[sr.nodeid]}); each test "
                                        "counts once", path, row.line, 1))
            continue
        first_line[sr.nodeid] = row.line
        res.rows.append(sr)
        found, verdict = _row_findings(task, cells, row.line, rules, sr.nodeid)
        res.findings += found
        if verdict:
            res.verdicts[verdict] = res.verdicts.get(verdict, 0) + 1


def _row_count(task: Any, table: Any, rows: int, gate: str, path: str) -> list[Finding]:
    """An empty table verifies nothing (TSK-A011); Gate C needs its minimum (TSK-A006)."""
    if gate == "C":
        need = int(task.config["spotcheck"]["gate_c_min_rows"])
        return [Finding("TSK-A006", "error", f"Gate C needs at least {need} sampled generated "
                        f"tests; the table has {rows}", path, 0, 0)] if rows < need else []
    if table.rows:
        return []
    return [Finding("TSK-A011", "error", f"the table has no rows: Gate {gate} verifies sampled "
                    "map rows, and an empty table verifies none (sample them with `gavel task "
                    "spotcheck TASK --out FILE`, then fill the verdicts)", path,
                    table.header_line, 1)]


_DIGEST = re.compile(r"map sha256 ([0-9a-f]{64})")


def _stale(task: Any, text: str, path: str) -> list[Finding]:
    """A table sampled from another version of the map is not evidence for this one."""
    m = _DIGEST.search(text)
    now = map_digest(task)
    if m is None or not now or m.group(1) == now:
        return []
    return [Finding("TSK-A010", "error",
                    f"the table was sampled from another spec_test_map.md (sha256 "
                    f"{m.group(1)[:12]}, now {now[:12]}): the map changed since; delete it "
                    "and let the judge (or `gavel task spotcheck`) sample the current map",
                    path, text[:m.start()].count("\n") + 1, 1)]
