"""Step gates: Gate A/C from a verified spot-check table, gates D/E/F from the static gates.

Gate A (Gate C for generated-only oracles) needs the judge's own table: without one the
judge prefills it (records writes it) and the gate is PENDING. Gates D/E/F are run here
under the spec standard the task was written to; Gate F is N/A for a standard without
phrasing rules. Gate B needs the failures, so it is the scores step's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.task.formats.load import Task
from gavelkit.task.gates import GateReport, GateResult
from gavelkit.task.gates.spotcheck import SpotRow, Verification
from gavelkit.task.judging.step import Notes, StepResult
from gavelkit.task.judging.verdict import FAIL, NA, PASS, PENDING, UNVERIFIABLE

SPOTCHECK = "judge/spotcheck.md"
AC = "gate-A/C"
# Gate E findings that say the spec itself is at fault (the route goes to spec-writer)
SPEC_SIDE_CODES = ("TSK-E001", "TSK-E002", "TSK-E003", "TSK-E004", "TSK-E013")


@dataclass(frozen=True, slots=True)
class Spotcheck:
    """The Gate A/C table: where it is, and either the prefilled rows or what verified."""

    gate: Literal["A", "C"]
    path: str
    prefilled: tuple[SpotRow, ...] = ()
    rows: int | None = None  # rows of a verified table
    verdicts: dict[str, int] = field(default_factory=dict)
    findings: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"gate": self.gate, "path": self.path}
        if self.prefilled:
            out["prefilled"] = True
        if self.rows is not None:
            out |= {"rows": self.rows, "verdicts": dict(self.verdicts),
                    "findings": list(self.findings)}
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Fairness(StepResult):
    gates: GateReport | None = None
    spotcheck: Spotcheck | None = None
    coverage_caveat: dict[str, Any] | None = None  # task.json coverage_gap, when accepted

    def result(self, gate: str) -> GateResult | None:
        return self.gates.results.get(gate) if self.gates else None

    @property
    def standard(self) -> dict[str, Any]:
        return self.gates.standard if self.gates else {}

    @property
    def spec_side(self) -> bool:
        e = self.result("E")
        return bool(e) and any(f.severity == "error" and f.code in SPEC_SIDE_CODES
                               for f in e.findings)

    def standard_line(self) -> str:
        """One line for the verdict: the standard the gates judged the task under, and why."""
        std = self.standard
        if not std.get("applied"):
            return ""
        line = (f"judged under spec standard {std['applied']} ({std.get('applied_title', '')}; "
                f"{std.get('detected_by', '')})")
        if std["applied"] != std.get("current"):
            line += (f"; the task predates the current standard {std.get('current')}, whose "
                     "findings are summarised, not applied")
        return line


def fairness(task: Task, spotcheck: str | Path | None) -> Fairness:
    from gavelkit.task.gates import run_gates

    notes = Notes(str(task.dir))
    gates = run_gates(task, "DEF")
    table = gate_ac(task, spotcheck, notes)
    caveat = gates_def(gates, notes)
    return Fairness(gates=gates, spotcheck=table, coverage_caveat=caveat, **notes.frozen())


def gate_ac(task: Task, explicit: str | Path | None, notes: Notes) -> Spotcheck | None:
    """Gate A (or C for generated-only oracles): a verified spot-check table, or PENDING."""
    from gavelkit.task.gates import spotcheck

    trig = spotcheck.gate_c_triggered(task)[0]
    gate: Literal["A", "C"] = "C" if trig else "A"
    if task.spec is None or task.map is None:
        missing = " and ".join(n for n, v in (("spec.md", task.spec), ("spec_test_map.md",
                                                                      task.map)) if v is None)
        notes.check(AC, UNVERIFIABLE, f"no {missing}: Gate {gate} samples the map's rows "
                    "(node id -> spec section) and quotes the spec; test-filter writes the map",
                    "spec" if task.spec is None else "filter")
        return None
    path = Path(explicit) if explicit else task.dir / SPOTCHECK
    if path.is_file():
        return _verified(task, path, gate, notes)
    if explicit:
        notes.check(AC, UNVERIFIABLE, f"spot-check table {path} not found")
        return Spotcheck(gate, str(path))
    return _prefilled(task, path, gate, notes)


def _prefilled(task: Task, path: Path, gate: Literal["A", "C"], notes: Notes) -> Spotcheck:
    """No table yet: the judge prefills one (records writes it) and the gate waits."""
    from gavelkit.task.gates import spotcheck

    n = int(task.config["spotcheck"]["gate_c_min_rows"] if gate == "C"
            else task.config["judge"]["spotcheck_rows"])
    msg = (f"Gate A/C pending: Gate {gate} needs the judge's spot-check table; fill the "
           f"verdict column of {SPOTCHECK} (quote the exact heading), then re-run the judge")
    notes.add("TSK-J013", "warning", msg)
    notes.check(AC, PENDING, msg)
    return Spotcheck(gate, str(path), prefilled=tuple(spotcheck.build(task, n, 0, gate)))


def _verified(task: Task, path: Path, gate: Literal["A", "C"], notes: Notes) -> Spotcheck:
    """A filled table, verified like `gavel task spotcheck --verify`."""
    from gavelkit.core.textio import read_text
    from gavelkit.task.gates import spotcheck

    try:
        text = read_text(path)
    except InputError as exc:
        notes.check(AC, UNVERIFIABLE, f"spot-check table unreadable: {exc}")
        return Spotcheck(gate, str(path))
    ver = spotcheck.verify(task, text, str(path), gate)
    _table_check(ver, path.name, gate, notes)
    return Spotcheck(gate, str(path), rows=len(ver.rows), verdicts=dict(ver.verdicts),
                     findings=tuple(f.to_dict() for f in ver.findings))


def _table_check(ver: Verification, name: str, gate: str, notes: Notes) -> None:
    """A derivable table passes; a negative verdict fails (a map row to correct); anything
    short of a complete verified table waits for the judge."""
    neg = [f for f in ver.findings if f.code == "TSK-A007"]
    incomplete = [f for f in ver.findings if f.severity == "error" and f.code != "TSK-A007"]
    if neg:
        msg = f"Gate {gate} FAIL: {neg[0].message}"
        notes.add("TSK-J014", "error", msg)
        notes.check(AC, FAIL, msg, "filter")
        return
    if incomplete or not ver.rows:
        what = (f"{incomplete[0].message}, line {incomplete[0].line}" if incomplete
                else "the table has no rows, line 0")
        msg = (f"Gate A/C pending: {name} is not a complete, verified table ({what}); fill it "
               "and re-run the judge")
        notes.add("TSK-J013", "warning", msg)
        notes.check(AC, PENDING, msg)
        return
    notes.check(AC, PASS, f"Gate {gate}: {len(ver.rows)} row(s) verified, all derivable")


def gates_def(gates: GateReport, notes: Notes) -> dict[str, Any] | None:
    """The D/E/F checks; returns the accepted coverage_gap caveat, if any."""
    caveat = _gate_d(gates.results.get("D"), notes)
    _gate_e(gates, notes)
    _gate_f(gates.results.get("F"), notes)
    return caveat


def _gate_d(d: GateResult | None, notes: Notes) -> dict[str, Any] | None:
    if d is None or d.verdict not in ("FULL", "PARTIAL", "GAP"):
        notes.check("gate-D", UNVERIFIABLE, f"coverage audit {d.verdict if d else 'not run'}: "
                    "no coverage source (no spec_test_map.md naming spec sections, no "
                    "oracle.mapping_file, no task.json coverage record)", "filter")
        return None
    from gavelkit.task.gates.gate_d import source_note

    note = source_note(d)
    src = f" ({note})" if note else ""
    caveat = d.data.get("coverage_gap") if d.data.get("gap_accepted") else None
    if d.verdict != "GAP":
        notes.check("gate-D", PASS, d.verdict + src)
    elif caveat:
        notes.check("gate-D", PASS, "GAP accepted as a caveat: task.json coverage_gap "
                    f"records {', '.join(caveat['sections'])} ({caveat['reason']}){src}")
    else:
        _gate_d_gap(d, src, notes)
    return caveat if d.verdict == "GAP" else None


def _gate_d_gap(d: GateResult, src: str, notes: Notes) -> None:
    from gavelkit.task.formats.task_json import COVERAGE_GAP_SHAPE

    core = [u["spec section"] for u in d.data.get("uncovered", [])
            if "core" in str(u.get("impact", ""))]
    notes.check("gate-D", FAIL, "a core spec section has no oracle coverage ("
                + ", ".join(core) + f"){src}; or record {COVERAGE_GAP_SHAPE} in "
                "task.json once test-filter has tried", "filter")


def _gate_e(gates: GateReport, notes: Notes) -> None:
    e = gates.results.get("E")
    if e is None or e.verdict not in ("PASS", "FAIL"):
        notes.check("gate-E", UNVERIFIABLE, f"static quality {e.verdict if e else 'not run'}",
                    "filter")
        return
    if e.verdict == "FAIL":
        _gate_e_fail([f for f in e.findings if f.severity == "error"], notes)
        return
    applied = str(gates.standard.get("applied") or "")
    notes.check("gate-E", PASS, "static quality checks pass"
                + (f" (standard {applied})" if applied else ""))


def _gate_e_fail(errors: list[Finding], notes: Notes) -> None:
    """Gate E fails: to spec-writer when the spec itself is at fault, else test-filter."""
    spec_side = any(f.code in SPEC_SIDE_CODES for f in errors)
    notes.check("gate-E", FAIL, "static quality checks fail: " + "; ".join(
        f.message for f in errors)[:300], "spec" if spec_side else "filter")


def _gate_f(f: GateResult | None, notes: Notes) -> None:
    if f is not None and f.verdict == "N/A":
        notes.check("gate-F", NA, str(f.data.get("not_applied", "")) or "phrasing rules not "
                    f"in the task's standard {f.data.get('standard', '?')}")
    elif f is None or f.verdict not in ("PASS", "FAIL"):
        notes.check("gate-F", UNVERIFIABLE, f"phrasing {f.verdict if f else 'not run'}", "spec")
    elif f.verdict == "FAIL":
        notes.check("gate-F", FAIL, "spec phrasing hard checks fail: return to spec-writer",
                    "spec")
    else:
        notes.check("gate-F", PASS, "spec phrasing hard checks pass")


def gate_note(r: GateResult) -> str:
    """What a gate verdict rests on, when it is not the plain recomputed result ('' then):
    Gate D's coverage source and an accepted GAP, Gate F not applying."""
    from gavelkit.task.gates.gate_d import source_note

    notes = []
    if r.gate == "D":
        notes += [n for n in (source_note(r),) if n]
        if r.data.get("gap_accepted"):
            notes.append("accepted as a caveat: task.json coverage_gap")
    if r.gate == "F" and r.verdict == "N/A":
        notes.append("not applicable, not a failure: " + str(r.data.get("not_applied", "")))
    return "; ".join(notes)
