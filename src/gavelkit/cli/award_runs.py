"""`gavel award init|status|briefs|manifest`: the lead's run bookkeeping as commands."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from gavelkit.cli import argtypes as at
from gavelkit.cli.common import add_format, emit, parser
from gavelkit.core.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gavelkit.core.findings import Finding


def _run_dir(raw: str) -> Path:
    from gavelkit.core.errors import InputError
    from gavelkit.core.safeio import check_input

    run = Path(raw)
    try:
        check_input(run, want="dir")
    except InputError as exc:
        if not os.path.lexists(run):
            raise UsageError(f"run folder {raw!r} does not exist") from None
        raise UsageError(f"run folder {raw!r}: {exc.message}") from None
    return run


def init_main(argv: list[str], prog: str) -> int:
    p = parser(prog, "Create work/<run-id>/ with the seed's layout and a variant template.")
    p.add_argument("--run-id", help="run id (default: minted, sortable: YYYYMMDD-HHMMSS-xxxx)")
    p.add_argument("--variant", help="a file holding the filled variant: block to use")
    p.add_argument("--root", default=".", help="project root that holds work/ (default: .)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    args = p.parse_args(argv)
    from gavelkit.award.runs.layout import init_run

    variant_text = _variant_file(args.variant) if args.variant else None
    run, created, existed = init_run(Path(args.root), args.run_id, variant_text)
    if args.format == "json":
        print(json.dumps({"run": str(run), "run_id": run.name, "existed": existed,
                          "created": created}, indent=2))
    else:
        print(_init_text(run, created, existed, args.variant))
    return 0


def _variant_file(path: str) -> str:
    """The text of a file that holds a variant: block (lint reads it first)."""
    from gavelkit.award.blocks.lint import lint_paths
    from gavelkit.core.errors import InputError
    from gavelkit.core.textio import read_text

    res = lint_paths([path], "variant")[0]
    if res.source.unusable:
        f = res.source.findings[0]
        raise InputError(f.path, f.message, f.line, f.col, f.code)
    if not res.blocks:
        raise UsageError(f"{path}: no variant: block found")
    return read_text(path)


def _init_text(run: Path, created: list[str], existed: bool, variant: str | None) -> str:
    if existed and created:
        return "\n".join([f"{run} already existed but was incomplete; completed it:"]
                         + [f"  + {c}" for c in created])
    if existed:
        return f"{run} already exists; nothing changed"
    out = [f"created run {run.name} in {run}"] + [f"  + {c}" for c in created]
    vpath = run / "phase-logs" / "variant.yaml"
    if variant:
        out.append(f"variant.yaml holds the variant block of {variant}; next: run Phase 0 "
                   f"(intake) and its critic gate, then `gavel award status {run}`")
    else:
        out.append(f"next: fill {vpath} and check it with `gavel award lint variant {vpath}`")
    return "\n".join(out)


def _status_findings(findings: list[Finding], fmt: str) -> list[Finding]:
    """The table format fits an agent's context: errors only."""
    return findings if fmt != "table" else [f for f in findings if f.severity == "error"]


def _write_memo(st: Any, args: argparse.Namespace) -> tuple[Any, Path]:
    """Draft the decision memo of a STOP; the status read again names it."""
    from gavelkit.award.runs.budget import run_status
    from gavelkit.award.runs.memo_draft import write_draft
    from gavelkit.award.tables import load_tables

    memo_path = write_draft(st, Path(args.write_memo) if args.write_memo else None)
    if memo_path.is_relative_to(st.run):  # read again: the STOP now names the memo
        st = run_status(st.run, args.target, load_tables(args.config))
    return st, memo_path


def status_main(argv: list[str], prog: str) -> int:
    p = parser(prog, "Budgets, stalls, the panel and the one next action of a run.\n\n"
               "exit 0: the run may go on (advance, fix, rescore, adjudicate); 1: STOP, or an "
               "error in the run files; 2: the run folder cannot be read.")
    p.add_argument("run", metavar="RUN_DIR")
    p.add_argument("--target", help="target tier (default: the variant block's target_tier)")
    p.add_argument("--write-memo", nargs="?", const="", metavar="PATH",
                   help="on STOP, write a decision_memo draft (default: phase-logs/)")
    p.add_argument("--format", choices=["text", "json", "table"], default="text")
    p.add_argument("-q", "--quiet", action="store_true")
    p.add_argument("--config")
    args = p.parse_args(argv)
    from gavelkit.award.runs import status_render
    from gavelkit.award.runs.budget import run_status
    from gavelkit.award.tables import load_tables

    st = run_status(_run_dir(args.run), args.target, load_tables(args.config))
    memo_path = None
    if args.write_memo is not None and st.action.kind == "STOP":
        st, memo_path = _write_memo(st, args)
    fmt = "text" if args.format == "table" else args.format
    text = status_render.render_table(st) if args.format == "table" else status_render.render_text(st)
    if memo_path:
        text += f"\ndecision memo draft written to {memo_path}"
    extra = {"status": status_render.to_dict(st),
             "memo": str(memo_path) if memo_path else None}
    findings = _status_findings(st.findings, args.format)
    from gavelkit.cli.award_blocks import emit_keeping_code
    from gavelkit.core.findings import exit_code

    # The exit code is decided by the run, never by where the output goes (`| head -1`).
    # An unreadable file inside a readable run is an error finding (1); only a run
    # folder that cannot be read at all exits 2 (raised before this point).
    rc = 0 if st.action.may_continue and exit_code(findings) == 0 else 1
    return emit_keeping_code(findings, fmt, "award status", extra, text=text, quiet=args.quiet,
                             code=rc)


def briefs_main(argv: list[str], prog: str) -> int:
    p = parser(prog, "Write the blind seat briefs, or --check briefs for leaks.\n\n"
               "Round 1 and a full re-score: all three seats. An adjudication round (status "
               "says `adjudicate`): only the outlier seat, with the evidence question and "
               "nothing of the other seats.")
    p.add_argument("paths", nargs="+", metavar="RUN_DIR|FILE")
    p.add_argument("--check", action="store_true", help="check the given brief files for leaks")
    p.add_argument("--round", type=at.positive_int, default=1)
    p.add_argument("--seat", choices=["A", "B", "C"],
                   help="adjudication round: the re-dispatched seat (must be the outlier)")
    p.add_argument("--question", help="adjudication round: the evidence question for the "
                   "outlier seat (about its own cited evidence; never another seat's score)")
    p.add_argument("--contest", help="contest name (default: the variant block's contest)")
    p.add_argument("--out", help="folder for the briefs (default: RUN_DIR/briefs)")
    add_format(p, sarif=True)
    args = p.parse_args(argv)
    from gavelkit.award.runs import briefs

    if args.check:
        return _check_briefs(args)
    if len(args.paths) != 1:
        raise UsageError("give one RUN_DIR (or --check FILE...)")
    run = _run_dir(args.paths[0])
    contest = args.contest or _variant_contest(run)
    stale = _stale_manifest(run)
    if stale:
        return emit(stale, args.format, "award briefs", {"written": []},
                    text=f"no brief written: package/manifest.md is stale; recompile it with "
                    f"`gavel award manifest {run}` so the seats judge the current package",
                    quiet=args.quiet)
    seats, question, criterion = _round_seats(run, args)
    try:
        written = briefs.write_briefs(run, contest, args.round,
                                      Path(args.out) if args.out else None, seats=seats,
                                      question=question, criterion=criterion)
    except briefs.LeakingBrief as exc:
        return emit(exc.findings, args.format, "award briefs", {"written": []},
                    text="no brief written: the brief would leak (see above); rephrase the "
                    "question without scores, thresholds or the target", quiet=args.quiet)
    return emit([], args.format, "award briefs", {"written": [str(w) for w in written]},
                text="\n".join(f"wrote {w}" for w in written), quiet=args.quiet)


def _check_briefs(args: argparse.Namespace) -> int:
    from gavelkit.award.runs import briefs
    from gavelkit.core.errors import InputError

    findings = []
    for f in args.paths:
        try:
            findings += briefs.check_brief(f)
        except InputError as exc:
            findings.append(exc.to_finding())
    verdict = ("UNREADABLE" if any(f.unusable for f in findings) else
               "LEAK" if any(f.severity == "error" for f in findings) else "clean")
    return emit(findings, args.format, "award briefs --check",
                text=f"{len(args.paths)} brief(s) checked -> {verdict}", quiet=args.quiet)


def _variant_contest(run: Path) -> str:
    """The contest the variant block names; a file that could not be read is said."""
    from gavelkit.award.blocks.variant import is_placeholder
    from gavelkit.award.runs.runfiles import read_run
    from gavelkit.award.tables import load_tables
    from gavelkit.core.errors import InputError

    rf = read_run(run, load_tables())
    contest = next((b.body["contest"] for b in rf.variants
                    if isinstance(b.body.get("contest"), str)
                    and not is_placeholder(b.body["contest"])), None)
    if contest:
        return contest
    unread = [f for f in rf.findings if f.unusable]
    if unread:  # the variant may sit in the file we could not read
        f = unread[0]
        raise InputError(f.path, f"{f.message} (no readable variant block gives the "
                         "contest name; fix the file or pass --contest)", f.line, f.col,
                         code=f.code)
    raise UsageError("no contest name: pass --contest or fill the variant block")


def _stale_manifest(run: Path) -> list[Finding]:
    """Errors of an existing manifest (a missing one is status's warning, not a refusal)."""
    from gavelkit.award.runs.layout import layout
    from gavelkit.award.runs.manifest import check_manifest

    if not (run / layout()["manifest"]).is_file():
        return []
    return [f for f in check_manifest(run) if f.severity == "error"]


def _round_seats(run: Path, args: argparse.Namespace) -> tuple[list[str] | None, str | None,
                                                              str | None]:
    """Which seats a round's briefs go to: all three, or the outlier alone (seed §3)."""
    adjudication = bool(args.seat or args.question)
    if args.round == 1 and not adjudication:
        return None, None, None
    from gavelkit.award.runs.budget import run_status

    st = run_status(run)
    a = st.action
    last = st.rounds[-1].round if st.rounds else 0
    if a.kind == "adjudicate" and args.round == last + 1:
        return _outlier_seat(st, args)
    if adjudication:
        raise UsageError(f"--seat/--question belong to an adjudication round; status says "
                         f"{a.kind}: {a.reason}")
    if a.kind == "rescore" and args.round == last + 1:
        return None, None, None
    raise UsageError(f"round {args.round} is neither the next re-score nor an adjudication of "
                     f"this run; status says {a.kind}: {a.reason}")


def _open_conflict(panel: Any) -> Any:
    return next((c for c in panel.conflicts if not c.adjudicated), None) if panel else None


def _outlier_seat(st: Any, args: argparse.Namespace) -> tuple[list[str] | None, str | None,
                                                             str | None]:
    """The adjudication round's one seat (the outlier of the open conflict) and question."""
    conf = _open_conflict(st.rounds[-1].panel)
    outlier, crit = (conf.outlier, conf.criterion) if conf else (None, None)
    if args.seat and args.seat != outlier:
        raise UsageError(f"seat {args.seat} is not the outlier: round {args.round} "
                         f"re-dispatches only seat {outlier} (the outlier on "
                         f"{crit if conf else '?'!r})")
    q = args.question or (f"Which page, section, figure or table supports your "
                          f"{crit!r} score? Re-check it against the paper.")
    return [outlier] if outlier else None, q, crit


def manifest_main(argv: list[str], prog: str) -> int:
    p = parser(prog, "Compile package/manifest.md from the run tree, or --check it.")
    p.add_argument("run", metavar="RUN_DIR")
    p.add_argument("--check", action="store_true", help="compare the manifest with the tree")
    add_format(p, sarif=True)
    args = p.parse_args(argv)
    from gavelkit.award.runs import manifest

    run = _run_dir(args.run)
    if args.check:
        findings = manifest.check_manifest(run)
        verdict = "manifest matches the tree" if not findings else "manifest is stale"
        return emit(findings, args.format, "award manifest --check", text=verdict,
                    quiet=args.quiet)
    dest = manifest.write_manifest(run)
    n = len(manifest.inventory(run))
    refused = manifest.refused(run)
    pdf_missing = not (run / "paper" / "solution.pdf").is_file()
    if pdf_missing:
        print(f"{prog}: warning: no rendered PDF at paper/solution.pdf yet", file=sys.stderr)
    return emit(refused, args.format, "award manifest", {"manifest": str(dest), "files": n},
                text=f"wrote {dest} ({n} files" + (f", {len(refused)} refused" if refused
                                                   else "") + ")")
