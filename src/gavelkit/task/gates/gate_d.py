"""Gate D: coverage gap audit of every H2/H3 spec section against covered map rows.

Verdicts (seed "Gate D"): FULL when no audited section is uncovered; PARTIAL
when 1..partial_max_uncovered secondary sections are uncovered and every core
invariant section is covered; GAP when a core invariant section (configurable
patterns: Cross-View Invariants, Error Semantics, state lifecycle) has zero
coverage, or when more secondary sections are uncovered than PARTIAL allows.
Sections matching `exempt_patterns` (Non-Goals, Environment, ...) hold no
testable behavior and are listed as exempt. An H2 counts as covered when one
of its H3 subsections is (rollup_children). Sections below the test-filter
per-section minimum are warnings.
"""

from __future__ import annotations

import re
from typing import Any

from gavelkit.core.findings import Finding
from gavelkit.task.formats.spec import Section, Spec, norm_heading
from gavelkit.task.gates import GateResult

_QUALIFIERS = (" - ", " — ", " – ", ": ", " (", " > ", " / ", " §")


def match_sections(spec: Spec, cell: str) -> list[Section]:
    """Spec sections a map cell names (exact heading first, then qualified forms).

    Public because the task report draws its coverage heat map with the same matching.
    """
    key = norm_heading(cell)
    hits = [s for s in spec.sections if s.level in (2, 3) and s.key == key]
    if hits:
        return hits
    best: list[Section] = []
    best_len = 0
    for s in spec.sections:
        if s.level not in (2, 3) or not s.key:
            continue
        # "Public API - foo()", "Error Semantics: parse", "Workflows (step 2)"
        if key.startswith(s.key) and key[len(s.key):].startswith(_QUALIFIERS):
            if len(s.key) > best_len:
                best, best_len = [s], len(s.key)
            elif len(s.key) == best_len:
                best.append(s)
    return best


def _any(patterns: list[str], text: str) -> bool:
    return any(re.search(p, text, re.I) for p in patterns)


def _minimum(cfg: dict[str, Any], text: str) -> int:
    for entry in cfg["gate_d"]["section_minimums"]:
        if re.search(entry["pattern"], text, re.I):
            return int(entry["min"])
    return 0


def coverage_counts(task: Any) -> tuple[dict[int, int], list[Finding]]:
    """Covered-row count per spec section index, and findings for unmatched cells."""
    spec, stm = task.spec, task.map
    counts: dict[int, int] = {}
    findings: list[Finding] = []
    index = {id(s): i for i, s in enumerate(spec.sections)}
    map_path = str(task.paths.get("map", "spec_test_map.md"))
    for row in stm.covered_rows():
        matched: set[int] = set()
        for cell in row.sections:
            hits = match_sections(spec, cell)
            if not hits:
                findings.append(Finding(
                    "TSK-D006", "error",
                    f"covered row {row.nodeid} maps to '{cell}', which is not a heading of the "
                    "spec (Gate A cannot quote it)", map_path, row.line, 1))
            matched |= {index[id(s)] for s in hits}
        for i in matched:
            counts[i] = counts.get(i, 0) + 1
    return counts, findings


def check(task: Any) -> GateResult:
    cfg = task.config
    gd = cfg["gate_d"]
    res = GateResult("D", "UNKNOWN")
    if task.spec is None or task.map is None:
        missing = [n for n, v in (("spec.md", task.spec), ("spec_test_map.md", task.map)) if v is None]
        res.findings.append(Finding("TSK-D001", "error",
                                    f"Gate D needs {' and '.join(missing)}; not found or unreadable",
                                    str(task.dir), 0, 0))
        return res
    spec = task.spec
    counts, res.findings = coverage_counts(task)
    spec_path = str(task.paths["spec"])
    uncovered_core: list[Section] = []
    uncovered_other: list[Section] = []
    for i, s in enumerate(spec.sections):
        if s.level not in (2, 3):
            continue
        own = counts.get(i, 0)
        via_children = sum(counts.get(c, 0) for c in s.children) if gd["rollup_children"] else 0
        core = _any(gd["core_patterns"], s.text)
        exempt = (not core) and _any(gd["exempt_patterns"], norm_heading(s.text))
        total = own + via_children
        minimum = _minimum(cfg, s.text)
        if exempt:
            status = "exempt"
        elif own:
            status = "covered"
        elif via_children:
            status = "covered via subsections"
        else:
            status = "uncovered"
        res.table.append({"section": s.raw, "line": s.line, "covered": own,
                          "covered_with_subsections": total, "minimum": minimum,
                          "core": core, "status": status})
        if status == "uncovered":
            (uncovered_core if core else uncovered_other).append(s)
        elif status == "covered" and own < minimum and not s.children:
            res.findings.append(Finding(
                "TSK-D005", "warning",
                f"'{s.raw}' has {own} covered row(s), below the per-section minimum of {minimum}",
                spec_path, s.line, 1))
    for s in uncovered_core:
        res.findings.append(Finding(
            "TSK-D002", "error",
            f"core invariant section '{s.raw}' has zero covered rows: Gate D GAP (route "
            "filter_correction_request.md to test-filter, or record coverage_gap with the "
            "reason in task.json)", spec_path, s.line, 1))
    limit = int(gd["partial_max_uncovered"])
    for s in uncovered_other:
        res.findings.append(Finding("TSK-D003", "warning",
                                    f"section '{s.raw}' has zero covered rows", spec_path,
                                    s.line, 1))
    if len(uncovered_other) > limit:
        res.findings.append(Finding(
            "TSK-D004", "error",
            f"{len(uncovered_other)} secondary sections are uncovered; PARTIAL allows at most "
            f"{limit}: " + ", ".join(s.text for s in uncovered_other), spec_path, 0, 0))
    if uncovered_core or len(uncovered_other) > limit:
        res.verdict = "GAP"
    elif uncovered_other:
        res.verdict = "PARTIAL"
    else:
        res.verdict = "FULL"
    res.data["uncovered"] = [
        {"spec section": s.raw, "uncovered behaviors": _behaviors(spec, s),
         "impact": "core invariant: GAP" if s in uncovered_core else "secondary",
         "recommendation": (f"test-filter: generate >= {_minimum(cfg, s.text)} spec-derived "
                            "tests (filter_correction_request.md)")}
        for s in uncovered_core + uncovered_other]
    return res


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
