"""Gate D: coverage gap audit of every H2/H3 spec section against covered map rows.

Sources, in this order (the result says which it used): spec_test_map.md when
its covered rows name spec sections; else the task's oracle.mapping_file
(source_nodeid_map.json: oracle node id -> spec_section); else the coverage the
authors recorded in task.json (`coverage.verdict`, uncovered sections), which
is reported as "from the task's record, not recomputed". With none of them
the verdict is UNKNOWN (fail closed).

Verdicts (task-judge SKILL:131-133): FULL when no audited section is
uncovered; PARTIAL when secondary sections are uncovered and every core
invariant section is covered; GAP when a core invariant section (configurable
patterns: Cross-View Invariants, Error Semantics, state lifecycle) has zero
coverage. More than partial_max_uncovered secondary sections is a warning, not
GAP: the documents do not define that case. Sections matching
`exempt_patterns` (Non-Goals, Environment, ...) hold no testable behavior and
are listed as exempt; Context/Orientation/Reference sections
(`non_behavior_patterns`: overview, workflows, import surface, API catalog,
CLI entry points) are listed but never counted, since SPEC_STANDARD:350/405
says oracle tests trace to Behavior and Contract sections, not to those. An H2 counts as covered when one
of its H3 subsections is (rollup_children). Sections below the test-filter
per-section minimum are warnings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gavelkit.core.findings import Finding
from gavelkit.task.formats.mapping_file import read_mapping_file
from gavelkit.task.formats.spec import Section, Spec, norm_heading
from gavelkit.task.formats.spec_test_map import MapRow, split_sections
from gavelkit.task.formats.task_json import COVERAGE_GAP_SHAPE
from gavelkit.task.gates import GateResult

SOURCES = {"map": "spec_test_map.md", "mapping_file": "the task's oracle.mapping_file",
           "task_record": "the task's recorded coverage (task.json), not recomputed"}

_QUALIFIERS = (" - ", " — ", " – ", ": ", " (", " > ", " / ", " §")


def match_sections(spec: Spec, cell: str) -> list[Section]:
    """Spec sections a map cell names (exact heading first, then qualified forms).

    Public because the task report draws its coverage heat map with the same matching.
    """
    key = norm_heading(cell)
    hits = [s for s in spec.sections if s.level in (2, 3) and s.key == key]
    return hits or _qualified_match(spec, key)


def _qualified_match(spec: Spec, key: str) -> list[Section]:
    """The longest headings `key` qualifies: "Public API - foo()", "Error Semantics: parse",
    "Workflows (step 2)"."""
    best: list[Section] = []
    best_len = 0
    for s in spec.sections:
        if s.level not in (2, 3) or not s.key or not key.startswith(s.key):
            continue
        if not key[len(s.key):].startswith(_QUALIFIERS) or len(s.key) < best_len:
            continue
        if len(s.key) > best_len:
            best, best_len = [], len(s.key)
        best.append(s)
    return best


def _any(patterns: list[str], text: str) -> bool:
    return any(re.search(p, text, re.I) for p in patterns)


def _minimum(cfg: dict[str, Any], text: str) -> int:
    for entry in cfg["gate_d"]["section_minimums"]:
        if re.search(entry["pattern"], text, re.I):
            return int(entry["min"])
    return 0


def coverage_rows(task: Any) -> tuple[list[MapRow] | None, str, str, list[Finding]]:
    """(covered rows, source, path, findings): the map if it names sections, else mapping_file."""
    stm = task.map
    if stm is not None and stm.has_sections:
        return stm.covered_rows(), "map", str(task.paths.get("map", "spec_test_map.md")), []
    tj = task.task_json
    if tj is None or not tj.mapping_file:
        return None, "", "", []
    return _mapping_file_rows(task, tj.mapping_file)


def _mapping_file_rows(task: Any, name: str) -> tuple[list[MapRow] | None, str, str,
                                                       list[Finding]]:
    p = task.dir / name
    if not p.is_file():
        return None, "", "", [Finding(
            "TSK-R010", "error", f"task.json oracle.mapping_file names {name}, which "
            "does not exist", str(task.paths.get("task_json", task.dir)), 0, 0)]
    rows, findings = read_mapping_file(p)
    if rows and any(r.sections for r in rows):
        return [r for r in rows if r.covered], "mapping_file", str(p), findings
    return None, "", "", findings


@dataclass(slots=True)
class _Matches:
    """Per map cell text: the rows that name no heading, and those named through an alias."""

    unmatched: dict[str, list[MapRow]] = field(default_factory=dict)
    via_alias: dict[str, tuple[Section, list[MapRow]]] = field(default_factory=dict)


def coverage_counts(task: Any, rows: list[MapRow] | None = None,
                    where: str | None = None) -> tuple[dict[int, int], list[Finding]]:
    """Covered-row count per spec section index, and one finding per unmatched cell text."""
    spec = task.spec
    if rows is None:
        rows = task.map.covered_rows() if task.map is not None else []
    map_path = where or str(task.paths.get("map", "spec_test_map.md"))
    counts: dict[int, int] = {}
    index = {id(s): i for i, s in enumerate(spec.sections)}
    seen = _Matches()
    for row in rows:
        for i in _row_sections(spec, row, task.config, index, seen):
            counts[i] = counts.get(i, 0) + 1
    return counts, _match_findings(seen, map_path)


def _row_sections(spec: Spec, row: MapRow, cfg: dict[str, Any], index: dict[int, int],
                  seen: _Matches) -> set[int]:
    """Indexes of the sections one row's cells name (exactly, qualified or by alias)."""
    matched: set[int] = set()
    for cell in row.sections:
        hits = match_sections(spec, cell)
        if not hits:
            alias = _alias_of(spec, cell, cfg)
            if alias is None:
                seen.unmatched.setdefault(cell, []).append(row)
            else:
                hits = [alias]
                seen.via_alias.setdefault(cell, (alias, []))[1].append(row)
        matched |= {index[id(s)] for s in hits}
    return matched


def _match_findings(seen: _Matches, map_path: str) -> list[Finding]:
    findings = [Finding(
        "TSK-D006", "error",
        f"{len(rs)} covered row(s) map to '{cell}', which is not a heading of the spec "
        f"(first: {rs[0].nodeid}); they cannot be traced to a section and Gate A cannot quote it",
        map_path, rs[0].line, 1 if rs[0].line else 0) for cell, rs in seen.unmatched.items()]
    return findings + [Finding(
        "TSK-D006", "warning",
        f"{len(rs)} covered row(s) map to '{cell}', which the spec standard lists as another name "
        f"of the spec's '{sec.raw}' (counted for it); Gate A quotes exact headings, so use "
        f"'{sec.text}'", map_path, rs[0].line, 1 if rs[0].line else 0)
        for cell, (sec, rs) in seen.via_alias.items()]


def _alias_of(spec: Spec, cell: str, cfg: dict[str, Any]) -> Section | None:
    """The spec heading `cell` names through a standard's alias table (Evaluation Notes ->
    Implementation Guidance), or None."""
    from gavelkit.task.gates.standard import standards

    key = norm_heading(cell)
    groups = [e for s in standards() for e in s.required] + list(cfg["spec"]["six_layer"])
    for e in groups:
        names = {norm_heading(n) for n in [e["name"], *e.get("aliases", [])]}
        if key in names:
            for s in spec.sections:
                if s.level in (2, 3) and s.key in names:
                    return s
    return None


def _record_sections(value: Any) -> list[tuple[str, str, str]]:
    """(section, type, impact) from a recorded list of dicts or strings (';'-joined allowed)."""
    out: list[tuple[str, str, str]] = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, dict):
            name = item.get("spec_section", item.get("section", ""))
            kind, impact = str(item.get("type", "")), str(item.get("impact", ""))
        else:
            name, kind, impact = item, "", ""
        if isinstance(name, str):
            out += [(n, kind, impact) for n in split_sections(name)]
    return out


@dataclass(frozen=True, slots=True)
class _CoreGap:
    """An uncovered core section: its name, normalised key, line and heading as written."""

    name: str
    key: str
    line: int
    shown: str


_RECORD_KEYS = ("uncovered_core_sections", "behavioral_sections_uncovered", "uncovered_sections",
                "uncovered_non_behavioral_headings")


def from_record(task: Any, record: dict[str, Any], res: GateResult) -> GateResult:
    """Gate D from task.json `coverage`: the authors' verdict, marked as not recomputed."""
    tjp = str(task.paths.get("task_json", task.dir / "task.json"))
    verdict = str(record.get("verdict", "")).upper()
    res.verdict = next((v for v in ("FULL", "PARTIAL", "GAP") if verdict.startswith(v)), "UNKNOWN")
    res.data["source"] = "task_record"
    res.data["recorded_verdict"] = record.get("verdict")
    core_listed: list[_CoreGap] = []
    for name, kind, impact, core_key in _recorded_uncovered(record):
        if _record_row(task, res, name, kind, impact, core_key):
            core_listed.append(_CoreGap(name, norm_heading(name), 0, name))  # at task.json
            res.verdict = "GAP"
    accepted, problems = _accepted_gaps(task)
    _gap_findings(res, core_listed, accepted, problems, tjp, recorded=True)
    res.data["uncovered"] = [
        {"spec section": c.name, "uncovered behaviors": "(from the task's coverage record)",
         "impact": "core invariant: GAP", "recommendation": "test-filter: generate "
         "spec-derived tests (filter_correction_request.md)"} for c in core_listed]
    res.findings.append(Finding(
        "TSK-D007", "info", f"Gate D verdict {res.verdict} is from the task's record (task.json "
        f"coverage.verdict = {record.get('verdict')!r}), not recomputed: the task has no "
        "spec_test_map.md with spec sections and no oracle.mapping_file", tjp, 0, 0))
    return res


def _recorded_uncovered(record: dict[str, Any]) -> list[tuple[str, str, str, bool]]:
    """(section, type, impact, listed as core) of every uncovered list of the record."""
    listed: list[tuple[str, str, str, bool]] = []
    for key in _RECORD_KEYS:
        non_behavioral = key == "uncovered_non_behavioral_headings"
        listed += [(name, kind or ("non-behavioral" if non_behavioral else ""), impact,
                    key == "uncovered_core_sections")
                   for name, kind, impact in _record_sections(record.get(key))]
    return listed


def _record_row(task: Any, res: GateResult, name: str, kind: str, impact: str,
                core_key: bool) -> bool:
    """The table row of one recorded uncovered section; True when it is a core section."""
    secs = task.spec.find(name) if task.spec is not None else []
    core = bool(core_key or (_any(task.config["gate_d"]["core_patterns"], name)
                             and kind.lower() not in ("narrative", "framing", "non-behavioral")))
    res.table.append({"section": name, "line": secs[0].line if secs else 0, "covered": 0,
                      "covered_with_subsections": 0, "minimum": 0, "core": core,
                      "status": "uncovered (recorded)", "type": kind, "impact": impact})
    return core


def _map_info(stm: Any) -> dict[str, Any]:
    spelled = {r.status_raw: r.status for r in stm.rows
               if r.status_raw and r.status_raw.strip("` ").lower() != r.status}
    spelled.update({r.layer_raw: r.layer or "(no layer)" for r in stm.rows
                    if r.layer_raw and r.layer_raw.strip("` ").lower() != r.layer})
    return {"rows": len(stm.rows), "layout": stm.layout, "columns": stm.columns_used(),
            "unreadable": stm.unreadable, "normalised": spelled}


def _no_source(task: Any, stm: Any, res: GateResult) -> GateResult:
    """No rows to count: the task's own coverage record, else UNKNOWN with the reason."""
    record = task.task_json.coverage if task.task_json is not None else None
    if record:
        return from_record(task, record, res)
    why = ("spec_test_map.md gives no spec sections (" + stm.unreadable + ")"
           if stm is not None and stm.unreadable else
           "spec_test_map.md has no covered row naming a section" if stm is not None
           else "no spec_test_map.md")
    res.findings.append(Finding(
        "TSK-D001", "error", f"Gate D has no coverage source: {why}, no usable "
        "oracle.mapping_file and no coverage record in task.json", str(task.dir), 0, 0))
    return res


def _status(gd: dict[str, Any], s: Section, own: int, via_children: int) -> tuple[str, bool]:
    """(status, core) of one H2/H3 section."""
    core = _any(gd["core_patterns"], s.text)
    key = norm_heading(s.text)
    if not core and _any(gd["exempt_patterns"], key):
        return "exempt", core
    if own:
        return "covered", core
    if via_children:
        return "covered via subsections", core
    if not core and _any(gd.get("non_behavior_patterns", []), key):
        return "uncovered (not a behavior/contract section; not counted)", core
    return "uncovered", core


def _audit_sections(task: Any, res: GateResult, counts: dict[int, int],
                    spec_path: str) -> tuple[list[Section], list[Section]]:
    """The coverage table, per-section minimum warnings; (uncovered core, uncovered other)."""
    cfg, gd = task.config, task.config["gate_d"]
    core_out: list[Section] = []
    other_out: list[Section] = []
    for i, s in enumerate(task.spec.sections):
        if s.level not in (2, 3):
            continue
        own = counts.get(i, 0)
        via = sum(counts.get(c, 0) for c in s.children) if gd["rollup_children"] else 0
        status, core = _status(gd, s, own, via)
        minimum = _minimum(cfg, s.text)
        res.table.append({"section": s.raw, "line": s.line, "covered": own,
                          "covered_with_subsections": own + via, "minimum": minimum,
                          "core": core, "status": status})
        if status == "uncovered":
            (core_out if core else other_out).append(s)
        elif status == "covered" and own < minimum and not s.children:
            res.findings.append(Finding(
                "TSK-D005", "warning",
                f"'{s.raw}' has {own} covered row(s), below the per-section minimum of {minimum}",
                spec_path, s.line, 1))
    return core_out, other_out


def _secondary(res: GateResult, other: list[Section], limit: int, spec_path: str) -> None:
    for s in other:
        res.findings.append(Finding("TSK-D003", "warning",
                                    f"section '{s.raw}' has zero covered rows", spec_path,
                                    s.line, 1))
    if len(other) > limit:
        res.findings.append(Finding(
            "TSK-D004", "warning",
            f"{len(other)} secondary sections are uncovered; task-judge describes "
            f"PARTIAL as 1-{limit} and does not call more a GAP, so review whether they hold "
            "testable behavior: " + ", ".join(s.text for s in other), spec_path, 0, 0))


def check(task: Any) -> GateResult:
    cfg = task.config
    res = GateResult("D", "UNKNOWN")
    stm = task.map
    if stm is not None:
        res.data["map"] = _map_info(stm)
    if task.spec is None:
        res.findings.append(Finding("TSK-D001", "error",
                                    "Gate D needs spec.md; not found or unreadable",
                                    str(task.dir), 0, 0))
        return res
    rows, source, where, fnd = coverage_rows(task)
    res.findings += fnd
    if rows is None:
        return _no_source(task, stm, res)
    _note_source(res, source, where, stm)
    counts, fnd = coverage_counts(task, rows, where)
    res.findings += fnd
    spec_path = str(task.paths["spec"])
    core, other = _audit_sections(task, res, counts, spec_path)
    accepted, problems = _accepted_gaps(task)
    _gap_findings(res, [_CoreGap(s.text, s.key, s.line, s.raw) for s in core], accepted,
                  problems, spec_path)
    _secondary(res, other, int(cfg["gate_d"]["partial_max_uncovered"]), spec_path)
    # GAP stays GAP; gap_accepted is set by _gap_findings when task.json accepts them all
    res.verdict = "GAP" if core else "PARTIAL" if other else "FULL"
    res.data["uncovered"] = [
        {"spec section": s.raw, "uncovered behaviors": _behaviors(task.spec, s),
         "impact": "core invariant: GAP" if s in core else "secondary",
         "recommendation": (f"test-filter: generate >= {_minimum(cfg, s.text)} spec-derived "
                            "tests (filter_correction_request.md)")}
        for s in core + other]
    return res


def _note_source(res: GateResult, source: str, where: str, stm: Any) -> None:
    res.data["source"] = source
    res.data["source_path"] = where
    if source == "map":
        return
    res.findings.append(Finding(
        "TSK-D007", "info", f"Gate D coverage computed from {SOURCES[source]} ({where})"
        + (f": spec_test_map.md gives no spec sections ({stm.unreadable})"
           if stm is not None and stm.unreadable else ""), where, 0, 0))


def _accepted_gaps(task: Any) -> tuple[dict[str, str], list[str]]:
    """{normalised heading: reason} task.json `coverage_gap` accepts, and its problems
    (the same reader as the judge's: formats.task_json.read_coverage_gap)."""
    tj = task.task_json
    if tj is None:
        return {}, []
    entries, problems = tj.coverage_gap_entries()
    return {norm_heading(sec): why for sec, why in entries}, problems


def _gap_findings(res: GateResult, core: list[_CoreGap], accepted: dict[str, str],
                  problems: list[str], path: str, recorded: bool = False) -> None:
    """D002 per uncovered core section: a warning when task.json coverage_gap accepts it
    with a reason, else an error naming the shape it accepts."""
    res.findings += [_accepted_gap(c, accepted[c.key], path, recorded) if c.key in accepted
                     else _open_gap(c, problems, path, recorded) for c in core]
    if core and all(c.key in accepted for c in core):
        res.data["gap_accepted"] = True
        res.data["coverage_gap"] = {
            "sections": [c.name for c in core],
            "reason": "; ".join(dict.fromkeys(accepted[c.key] for c in core))}


def _accepted_gap(c: _CoreGap, why: str, path: str, recorded: bool) -> Finding:
    where = ("is listed as uncovered in the task's coverage record;" if recorded
             else "has zero covered rows;")
    return Finding(
        "TSK-D002", "warning",
        f"core invariant section '{c.shown}' {where} accepted as a caveat in task.json "
        f"coverage_gap ({why}) (task-judge: only after test-filter confirmed "
        "no further spec-derivable tests exist)", path, c.line, 1 if c.line else 0)


def _open_gap(c: _CoreGap, problems: list[str], path: str, recorded: bool) -> Finding:
    fix = ("route filter_correction_request.md to test-filter, or, once test-filter "
           f"confirmed no further spec-derivable tests exist, record {COVERAGE_GAP_SHAPE} "
           "in task.json")
    if problems:
        fix += " (task.json coverage_gap is not usable: " + "; ".join(problems[:-1]) + ")"
    return Finding(
        "TSK-D002", "error",
        (f"the task's coverage record lists core invariant section '{c.shown}' as uncovered"
         if recorded else f"core invariant section '{c.shown}' has zero covered rows")
        + f" (task-judge: GAP): {fix}", path, c.line, 1 if c.line else 0)


def _behaviors(spec: Spec, s: Section) -> str:
    """What the section promises, for the judge: its bold sub-headers or first sentence."""
    bold = [m.group(1).strip(" .:") for _, ln in spec.body(s, own_only=True)
            for m in [re.match(r"^\s*\*\*(.+?)\*\*", ln)] if m]
    if bold:
        return "; ".join(bold[:4])
    for _, ln in spec.body(s, own_only=True):
        t = ln.strip().lstrip("-*0123456789. ")
        if t and not t.startswith(("|", "#", ">")):
            return re.split(r"(?<=[.!?])\s", t, maxsplit=1)[0][:120]
    return "(empty section)"


def source_note(d: GateResult) -> str:
    """Where a Gate D verdict's coverage came from, when it is not the plain recomputation
    from spec_test_map.md ('' then): the one phrase the judge, its records and reports use."""
    src = d.data.get("source")
    if src == "task_record":
        return ("from the task's record, not recomputed: task.json coverage.verdict = "
                f"{d.data.get('recorded_verdict')!r}")
    if src == "mapping_file":
        return f"computed from oracle.mapping_file {d.data.get('source_path', '')}"
    return ""
