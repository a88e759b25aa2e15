"""`gavel task init|state|check-oracle|gates|spotcheck`: thin CLI over the task modules."""

from __future__ import annotations

import argparse
from typing import Any

from gavelkit.cli import argtypes as at
from gavelkit.cli.common import add_format, emit, parser
from gavelkit.core.errors import UsageError
from gavelkit.core.findings import Finding


def _common(p: argparse.ArgumentParser, sarif: bool = False) -> None:
    p.add_argument("task", help="task folder (tasks/{id} or wip/{id})")
    p.add_argument("--config", help="TOML file overriding the task tables "
                                    "(default: <task>/gavel-task.toml if present)")
    add_format(p, sarif=sarif)


def init_main(argv: list[str], prog: str) -> int:
    from gavelkit.task.pipeline.state import init_state

    p = parser(prog, "Create PIPELINE_STATE.md for a task in S1_SCREENING (or, with --adopt, "
                     "where its records put it).")
    p.add_argument("task")
    p.add_argument("--id", help="task id for the title (default: folder name)")
    p.add_argument("--date", type=at.iso_date, help="date to record (default: today)")
    p.add_argument("--force", action="store_true", help="overwrite an existing state file")
    p.add_argument("--adopt", action="store_true",
                   help="a task that never had a state file (legacy or graduated): enter it at "
                        "the state its records support, by the transition guards (at most "
                        "S5_JUDGE), with a History row naming the evidence")
    add_format(p)
    a = p.parse_args(argv)
    try:
        path = init_state(a.task, a.id, date=a.date, force=a.force, adopt=a.adopt)
    except FileExistsError as exc:
        f = Finding("TSK-S006", "error", "PIPELINE_STATE.md already exists; refusing to "
                    "overwrite (use --force)", str(exc), 0, 0)
        return emit([f], a.format, "task init", quiet=a.quiet)
    return emit([], a.format, "task init", extra={"path": str(path)},
                text=f"created {path}", quiet=a.quiet)


def state_main(argv: list[str], prog: str) -> int:
    from pathlib import Path

    from gavelkit.core.errors import InputError
    from gavelkit.core.textio import read_text
    from gavelkit.task.formats.load import STATE_NAME
    from gavelkit.task.formats.pipeline_state import parse_pipeline_state
    from gavelkit.task.pipeline import state as st

    a = _state_parser(prog).parse_args(argv)
    path = Path(a.task) / STATE_NAME
    if not Path(a.task).is_dir():
        raise InputError(a.task, "not a task folder (no such directory)")
    if not path.is_file():
        raise InputError(str(path), "no PIPELINE_STATE.md (run `gavel task init` first)")
    if a.to:
        res = st.transition(a.task, a.to.strip().upper(), a.note, date=a.date, config=a.config,
                            dry_run=a.dry_run, run=Path(a.run) if a.run else None)
        extra = {"from": res.plan.from_state, "requested": res.plan.requested,
                 "to": res.to_state, "written": res.written, "counters": res.plan.counters}
        return emit(res.findings, a.format, "task state", extra=extra,
                    text=_transition_text(res), quiet=a.quiet)
    ps, fnd = parse_pipeline_state(read_text(path), str(path))
    info = _state_info(ps)
    return emit(fnd, a.format, "task state", extra=info, text=_state_text(ps, info),
                quiet=a.quiet)


def _state_parser(prog: str) -> argparse.ArgumentParser:
    p = parser(prog, "Show the pipeline state, or move it with --to (guarded, capped, locked).")
    _common(p)
    p.add_argument("--to", metavar="STATE", help="target state")
    p.add_argument("--note", default="", help="History note for the transition")
    p.add_argument("--date", type=at.iso_date, help="date to record (default: today)")
    p.add_argument("--dry-run", action="store_true", help="check the transition, write nothing")
    p.add_argument("--run", type=at.abs_path, metavar="RUN",
                   help="the candidate run folder (or score file) S5_JUDGE's guard checks "
                        "(default: the first readable score of state.candidate_score_globs)")
    return p


def _transition_text(res: Any) -> str:
    plan = res.plan
    if res.written:
        text = f"{plan.from_state} -> {res.to_state}"
        return text + (f" (requested {plan.requested})" if res.to_state != plan.requested else "")
    if plan.ok:
        return f"would move {plan.from_state} -> {res.to_state} (dry run)"
    return f"refused: {plan.from_state} -> {plan.requested}; nothing written"


def _state_info(ps: Any) -> dict[str, Any]:
    from gavelkit.task.pipeline import state as st

    return {"state": ps.state, "counters": {k: ps.iter_value(k) for k in st.ITERS},
            "caps": dict(st.state_table()["caps"]), "next": st.allowed_next(ps.state),
            "todo": [{"text": t.text, "done": t.done} for t in ps.todo],
            "history": [{"num": h.num, "date": h.date, "from": h.from_state, "to": h.to_state,
                         "note": h.note} for h in ps.history]}


def _state_text(ps: Any, info: dict[str, Any]) -> str:
    lines = [f"state: {ps.state}",
             "counters: " + ", ".join(f"{k} {v}/{info['caps'][k]}"
                                      for k, v in info["counters"].items()),
             "next: " + (", ".join(info["next"]) or "none (terminal)")]
    open_todo = [t for t in ps.todo if not t.done]
    if open_todo:
        lines.append(f"todo ({len(open_todo)} open):")
        lines += [f"  - [ ] {t.text}" for t in open_todo]
    if ps.history:
        h = ps.history[-1]
        lines.append(f"last: #{h.num} {h.date} {h.from_state} -> {h.to_state} {h.note}".rstrip())
    return "\n".join(lines)


def check_oracle_main(argv: list[str], prog: str) -> int:
    from gavelkit.task.pipeline.oracle import check_oracle

    p = parser(prog, "Detect a changed oracle after QUALIFIED and carry out REOPENED_S3.")
    _common(p)
    p.add_argument("--ledger", help="CANDIDATES.md (default: task folder or its two parents)")
    p.add_argument("--date", type=at.iso_date, help="date for renames and History (default: today)")
    p.add_argument("--dry-run", action="store_true", help="report what would be done")
    p.add_argument("--record", action="store_true",
                   help="no digests yet: record the current oracle as the baseline")
    a = p.parse_args(argv)
    res = check_oracle(a.task, ledger=a.ledger, date=a.date, dry_run=a.dry_run,
                       record=a.record, config=a.config)
    if res.changes is None:
        text = "\n".join(res.actions) or "no oracle digests recorded"
    elif not res.changes:
        text = f"oracle unchanged (version {res.old_version})"
    else:
        prefix = "would: " if a.dry_run else ""
        text = "\n".join(prefix + x for x in res.actions) or "oracle changed"
    extra = {"changes": [list(c) for c in res.changes] if res.changes is not None else None,
             "actions": res.actions, "old_version": res.old_version,
             "new_version": res.new_version, "dry_run": a.dry_run}
    return emit(res.findings, a.format, "task check-oracle", extra=extra, text=text,
                quiet=a.quiet)


def gates_main(argv: list[str], prog: str) -> int:
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.gates import run_gates

    p = parser(prog, "Run static gates D (coverage), E (quality), F (phrasing) on a task.")
    _common(p, sarif=True)
    p.add_argument("--gate", default="DEF", help="which gates, e.g. D or DEF (default: DEF)")
    p.add_argument("--ledger", help="CANDIDATES.md (default: task folder or its two parents)")
    a = p.parse_args(argv)
    bad = set(a.gate.upper()) - set("DEF")
    if bad or not a.gate:
        raise UsageError(f"--gate takes letters from D, E, F (got {a.gate!r})")
    task = load_task(a.task, a.config, a.ledger)
    report = run_gates(task, a.gate)
    verdicts = "verdicts: " + ", ".join(f"Gate {g} {v}" for g, v in report.verdicts.items())
    if a.quiet:  # errors and the verdict line only (the linters' -q)
        text_lines = [verdicts]
    else:
        d = report.results.get("D")
        text_lines = [*(_gate_d_text(d) if d is not None else []),
                      *_causes_text(report.findings), *_standard_text(report.standard),
                      "\n" + verdicts]
    extra = {"task": task.id, "verdicts": report.verdicts, "passed": report.passed,
             "standard": report.standard,
             "gates": {g: {"verdict": r.verdict, "table": r.table, "data": r.data}
                       for g, r in report.results.items()}}
    return emit(report.findings, a.format, "task gates", extra=extra, text="\n".join(text_lines),
                quiet=a.quiet, outcome=0 if report.passed else 1)


def _gate_d_text(d: Any) -> list[str]:
    """Where Gate D's coverage came from, its table and its uncovered sections."""
    from gavelkit.task.gates.gate_d import source_note

    src = d.data.get("source")
    cols = d.data.get("map", {}).get("columns") if src == "map" else None
    lines = ["\nGate D source: " + {
        "map": "spec_test_map.md", "mapping_file": f"oracle.mapping_file ({d.data.get('source_path')})",
        "task_record": f"task.json coverage record ({source_note(d)})",
    }.get(str(src), "none (no map with sections, mapping file or coverage record)")
        + (" - columns: " + "; ".join(f"{k} = {v}" for k, v in cols.items()) if cols else "")]
    if not d.table:
        return lines
    lines += ["\nGate D coverage:", "| spec section | covered | with subsections | min | core | status |",
              "|---|---:|---:|---:|---|---|"]
    lines += [f"| {r['section']} | {r['covered']} | {r['covered_with_subsections']} "
              f"| {r['minimum']} | {'yes' if r['core'] else ''} | {r['status']} |" for r in d.table]
    if d.data.get("uncovered"):
        lines += ["\nUncovered sections:",
                  "| spec section | uncovered behaviors | impact | recommendation |",
                  "|---|---|---|---|"]
        lines += ["| " + " | ".join(str(u[k]).replace("|", "\\|") for k in
                                    ("spec section", "uncovered behaviors", "impact",
                                     "recommendation")) + " |" for u in d.data["uncovered"]]
    return lines


def _causes_text(findings: list[Finding]) -> list[str]:
    by_code: dict[str, int] = {}
    for f in findings:
        if f.severity in ("error", "warning"):
            by_code[f"{f.code} {f.severity}"] = by_code.get(f"{f.code} {f.severity}", 0) + 1
    if not by_code:
        return []
    return ["\nby cause: " + ", ".join(
        f"{k} x{n}" for k, n in sorted(by_code.items(), key=lambda kv: (-kv[1], kv[0])))]


def _standard_text(std: dict[str, Any]) -> list[str]:
    if not std:
        return []
    lines = [f"\nstandard applied: {std['applied']} ({std['applied_title']}; "
             f"{std['detected_by']}); current: {std['current']}"]
    return lines + ([f"note: {std['hint']}"] if std.get("hint") else [])


def spotcheck_main(argv: list[str], prog: str) -> int:
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.gates import spotcheck as sc

    a = _spotcheck_parser(prog).parse_args(argv)
    if a.sample < 1:
        raise UsageError("--sample must be at least 1")
    task = load_task(a.task, a.config)
    trig, value, where = sc.gate_c_triggered(task)
    gate = a.gate if a.gate != "auto" else ("C" if trig else "A")
    findings: list[Finding] = [f for f in task.findings if f.unusable]
    if trig:
        findings.append(Finding("TSK-A008", "info",
                                f"Gate C applies: oracle_source {value!r} means generated-only "
                                f"({where})", str(task.paths.get("map", task.dir)), 0, 0))
    if task.spec is None or task.map is None:
        return emit([*findings, _spotcheck_needs(task)], a.format, "task spotcheck",
                    quiet=a.quiet)
    if a.verify:
        return _spotcheck_verify(a, task, gate, findings)
    return _spotcheck_table(a, task, gate, findings)


def _spotcheck_needs(task: Any) -> Finding:
    missing = " and ".join(n for n, v in (("spec.md", task.spec), ("spec_test_map.md", task.map))
                           if v is None)
    return Finding("TSK-A001", "error", f"spot-check needs {missing}", str(task.dir), 0, 0)


def _spotcheck_parser(prog: str) -> argparse.ArgumentParser:
    p = parser(prog, "Gates A/C: write a reproducible spot-check table, or --verify a filled one.")
    _common(p)
    p.add_argument("--sample", type=at.positive_int, default=10, help="rows to sample (default 10)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--gate", choices=["A", "C", "auto"], default="auto",
                   help="A (map spot-check), C (generated-only oracle), auto: C when "
                        "oracle_source means generated-only, else A")
    p.add_argument("--out", help="write the table to this file (atomic) instead of stdout")
    p.add_argument("--verify", metavar="FILE", help="check a filled table")
    return p


def _spotcheck_verify(a: argparse.Namespace, task: Any, gate: str,
                      findings: list[Finding]) -> int:
    from gavelkit.core.textio import read_text
    from gavelkit.task.gates import spotcheck as sc

    v = sc.verify(task, read_text(a.verify), a.verify, gate)
    findings += v.findings
    extra = {"gate": gate, "rows": len(v.rows), "verdicts": v.verdicts}
    summary = (f"Gate {gate}: {len(v.rows)} row(s); verdicts: "
               + (", ".join(f"{k} {n}" for k, n in v.verdicts.items()) or "none"))
    return emit(findings, a.format, "task spotcheck", extra=extra, text=summary, quiet=a.quiet)


def _spotcheck_table(a: argparse.Namespace, task: Any, gate: str,
                     findings: list[Finding]) -> int:
    """Sample and render the table: to --out, to stdout (text), or inside the JSON."""
    from pathlib import Path

    from gavelkit.core.textio import atomic_write
    from gavelkit.task.gates import spotcheck as sc

    need = int(task.config["spotcheck"]["gate_c_min_rows"])
    n = max(a.sample, need) if gate == "C" else a.sample
    rows = sc.build(task, n, a.seed, gate)
    if gate == "C" and len(rows) < need:
        findings.append(Finding("TSK-A006", "error",
                                f"only {len(rows)} generated covered row(s) to sample; Gate C "
                                f"needs at least {need}", str(task.paths["map"]), 0, 0))
    allowed = sc.allowed_verdicts(task.config, gate)
    table = sc.render(rows, gate, a.seed, n, allowed)
    extra = {"gate": gate, "seed": a.seed, "sample": n, "allowed_verdicts": allowed,
             "rows": [{"nodeid": r.nodeid, "assertion summary": r.summary,
                       "spec_section": r.spec_section, "verdict": r.verdict} for r in rows]}
    if a.out:
        atomic_write(Path(a.out), table)
        text = f"wrote {len(rows)} row(s) to {a.out} (Gate {gate}, seed {a.seed})"
    elif a.format == "text":
        return _table_to_stdout(table, findings)
    else:
        text = table
    return emit(findings, a.format, "task spotcheck", extra=extra, text=text, quiet=a.quiet)


def _table_to_stdout(table: str, findings: list[Finding]) -> int:
    """The table is the output (pipe it to a file); findings go to stderr."""
    import sys

    from gavelkit.core.findings import exit_code
    from gavelkit.core.render import render_text

    if findings:
        print(render_text(findings, summary=False), file=sys.stderr)
    sys.stdout.write(table)
    return exit_code(findings)
