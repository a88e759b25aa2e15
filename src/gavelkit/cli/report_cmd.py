"""`gavel award report`, `gavel task report`, `gavel task report-all`: static HTML reports.

Each writes one self-contained HTML file (charts inline, no network) and prints where
it went. A report never certifies what it could not read: an input file inside the
folder that cannot be read or used (unreadable, corrupt, a FIFO, a folder for a file)
is named with its reason, shown as "could not read" at the top of the page, and the
command exits 2 (the page is still written so the rest can be read). A readable file
that breaks a rule gives its findings and exit 1. What the report shows (gates,
verdicts) is not a verdict of this command. Exit 2 also for a folder that cannot be
read or an output that cannot be written.
matplotlib and Jinja2 are imported only inside the commands.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from gavelkit.cli.common import emit, parser
from gavelkit.core.errors import InputError


def _out_path(raw: str) -> Path:
    p = Path(raw)
    if p.is_dir():
        raise InputError(raw, "output is a directory; give an .html file path", code="RPT-O001")
    parent = p.parent if str(p.parent) else Path(".")
    if parent.exists() and not parent.is_dir():
        raise InputError(raw, f"{parent} is not a directory", code="RPT-O001")
    return p


def _write(path: Path, html: str) -> None:
    from gavelkit.core.htmlreport import write

    try:
        write(str(path), html)
    except OSError as exc:
        raise InputError(str(path), f"cannot write the report: {exc.strerror or exc}",
                         code="RPT-O001") from None


def _quiet(findings: list[Any]) -> int:
    """--quiet prints only the errors (the inputs it could not read among them)."""
    import sys

    from gavelkit.core.findings import exit_code

    for f in findings:
        if f.severity == "error":
            where = f.path + (f":{f.line}" if f.line else "")
            print(f"{where}: {f.code}: {f.message}", file=sys.stderr)
    return exit_code(findings)


def _common(p: Any, default_out: str) -> None:
    p.add_argument("-o", "--output", default=default_out, metavar="HTML",
                   help=f"where to write the report (default: {default_out})")
    p.add_argument("--format", choices=["text", "json"], default="text",
                   help="what to print after writing (default: text)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print nothing but errors; no progress display")


def award_main(argv: list[str], prog: str) -> int:
    p = parser(prog, "Write the lead's HTML report of an award run: phase timeline, open "
               "issues, budgets, the panel against the target's threshold and floor, "
               "conflicts, PDF QA with the contact sheet, and the next action.\n\n"
               "exit 0: report written from readable inputs; 1: an input breaks a rule "
               "(findings); 2: an input could not be read (the report is written and says "
               "so), the run folder cannot be read or the output cannot be written.")
    p.add_argument("run", metavar="RUN_DIR")
    p.add_argument("--target", help="target tier (default: the variant block's target_tier)")
    p.add_argument("--no-pdfqa", action="store_true",
                   help="skip PDF QA and the contact sheet of paper/solution.pdf")
    p.add_argument("--config", help="gavel.toml with award table overrides")
    _common(p, "report.html")
    args = p.parse_args(argv)
    out = _out_path(args.output)
    if not Path(args.run).is_dir():
        raise InputError(args.run, "run folder does not exist")
    from gavelkit.award.runs.report import build
    from gavelkit.core.progress import Progress

    with Progress("award report", quiet=args.quiet) as bar:
        rep = build(args.run, args.target, pdfqa=not args.no_pdfqa, config=args.config,
                    progress=bar.update)
    _write(out, rep.html)
    a = rep.data["next_action"]
    data = dict(rep.data)
    data["pdfqa"] = {k: v for k, v in data["pdfqa"].items() if k != "sheet"}
    text = (f"wrote {out} ({os.path.getsize(out) // 1024} KB): NEXT {a['action']}"
            + (f" phase {a['phase']}" if a["phase"] is not None else "") + f": {a['reason']}")
    findings = [f for f in rep.findings if f.severity != "info"]
    if args.quiet:
        return _quiet(findings)
    return emit(findings, args.format, "award report", {"output": str(out), "report": data},
                text=text)


def task_main(argv: list[str], prog: str) -> int:
    p = parser(prog, "Write the HTML report of one task: layer pass rates and the rate gap, "
               "spec-section coverage heat map, failure clusters with root causes, gate "
               "results and the verdict history.\n\n"
               "exit 0: report written from readable inputs; 1: an input breaks a rule "
               "(findings); 2: an input could not be read (the report is written and says "
               "so), the task folder cannot be read or the output cannot be written.")
    p.add_argument("task", help="task folder (tasks/{id} or wip/{id})")
    p.add_argument("--config", help="TOML file overriding the task tables")
    _common(p, "report.html")
    args = p.parse_args(argv)
    out = _out_path(args.output)
    from gavelkit.core.progress import Progress
    from gavelkit.task.judging.report import build_task

    with Progress("task report", quiet=args.quiet) as bar:
        rep = build_task(args.task, args.config, progress=bar.update)
    _write(out, rep.html)
    findings = [f for f in rep.findings if f.severity != "info"]
    if args.quiet:
        return _quiet(findings)
    d = rep.data
    text = (f"wrote {out} ({os.path.getsize(out) // 1024} KB): {d['id']} state "
            f"{d['state'] or '?'}, verdict {d['verdict'] or '?'}, gap "
            + (f"{d['gap']['rate_gap']:+.3f}" if d["gap"]["rate_gap"] is not None else "n/a"))
    if d["unread"]:
        text += f"; could not read {len(d['unread'])} input(s), nothing taken from them"
    return emit(findings, args.format, "task report", {"output": str(out), "report": d},
                text=text)


def fleet_main(argv: list[str], prog: str) -> int:
    p = parser(prog, "Write one HTML page over every task folder under TASKS_DIR: a table "
               "that sorts and filters by state, verdict and gap, with each task's layer "
               "rates, coverage and gates.\n\n"
               "exit 0: report written (unreadable task folders are listed as warnings); "
               "2: TASKS_DIR cannot be read or the output cannot be written.")
    p.add_argument("tasks", metavar="TASKS_DIR")
    p.add_argument("--config", help="TOML file overriding the task tables")
    p.add_argument("--reports", metavar="DIR",
                   help="also write one report per task into DIR, linked from the table")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="build the tasks in N worker processes (default 1; helps with "
                        "--reports)")
    _common(p, "fleet.html")
    args = p.parse_args(argv)
    out = _out_path(args.output)
    from gavelkit.core.progress import track
    from gavelkit.task.judging.report import build_fleet, find_tasks

    root = Path(args.tasks)
    if not root.is_dir():
        raise InputError(args.tasks, "not a folder of tasks (no such directory)")
    try:
        folders = find_tasks(root)
    except OSError as exc:
        raise InputError(args.tasks, f"cannot list the folder: {exc.strerror or exc}") from None
    if args.jobs < 1:
        from gavelkit.core.errors import UsageError

        raise UsageError("--jobs must be at least 1")
    rep = build_fleet(folders, args.config, Path(args.reports) if args.reports else None, out,
                      jobs=args.jobs,
                      wrap=lambda results, n: track(results, "report-all", total=n,
                                                    quiet=args.quiet, what=lambda r: r[0]))
    _write(out, rep.html)
    if args.quiet:
        return 0
    text = f"wrote {out}: {len(rep.data['tasks'])} task(s)"
    if rep.findings:
        text += f", {len(rep.findings)} folder(s) left out"
    code = emit(rep.findings, args.format, "task report-all",
                {"output": str(out), "report": rep.data}, text=text)
    return code
