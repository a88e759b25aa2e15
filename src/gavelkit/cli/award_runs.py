"""`gavel award init|status|briefs|manifest`: the lead's run bookkeeping as commands."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gavelkit.cli.common import add_format, emit, parser
from gavelkit.core.errors import UsageError


def _run_dir(raw: str) -> Path:
    run = Path(raw)
    if not run.is_dir():
        raise UsageError(f"run folder {raw!r} does not exist")
    return run


def init_main(argv: list[str], prog: str) -> int:
    p = parser(prog, "Create work/<run-id>/ with the seed's layout and a variant template.")
    p.add_argument("--run-id", help="run id (default: minted, sortable: YYYYMMDD-HHMMSS-xxxx)")
    p.add_argument("--variant", help="a file holding the filled variant: block to use")
    p.add_argument("--root", default=".", help="project root that holds work/ (default: .)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    args = p.parse_args(argv)
    from gavelkit.award.runs.layout import init_run

    variant_text = None
    if args.variant:
        from gavelkit.award.blocks.lint import lint_paths

        res = lint_paths([args.variant], "variant")[0]
        if res.source.unusable:
            f = res.source.findings[0]
            from gavelkit.core.errors import InputError

            raise InputError(f.path, f.message, f.line, f.col, f.code)
        if not res.blocks:
            raise UsageError(f"{args.variant}: no variant: block found")
        from gavelkit.core.textio import read_text

        variant_text = read_text(args.variant)
    run, created, existed = init_run(Path(args.root), args.run_id, variant_text)
    if args.format == "json":
        print(json.dumps({"run": str(run), "run_id": run.name, "existed": existed,
                          "created": created}, indent=2))
    elif existed:
        print(f"{run} already exists; nothing changed")
    else:
        print(f"created run {run.name} in {run}")
        for c in created:
            print(f"  + {c}")
        print(f"next: fill {run / 'phase-logs' / 'variant.yaml'} and check it with "
              f"`gavel award lint variant {run / 'phase-logs' / 'variant.yaml'}`")
    return 0


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
        from gavelkit.award.runs.memo_draft import write_draft

        memo_path = write_draft(st, Path(args.write_memo) if args.write_memo else None)
    fmt = "text" if args.format == "table" else args.format
    text = status_render.render_table(st) if args.format == "table" else status_render.render_text(st)
    if memo_path:
        text += f"\ndecision memo draft written to {memo_path}"
    extra = {"status": status_render.to_dict(st),
             "memo": str(memo_path) if memo_path else None}
    findings = st.findings if args.format != "table" else [
        f for f in st.findings if f.severity == "error"]
    code = emit(findings, fmt, "award status", extra, text=text, quiet=args.quiet)
    # An unreadable file inside a readable run is an error finding (1); only a run
    # folder that cannot be read at all exits 2 (raised before this point).
    return 0 if st.action.may_continue and code == 0 else 1


def briefs_main(argv: list[str], prog: str) -> int:
    p = parser(prog, "Write the three blind seat briefs, or --check briefs for leaks.")
    p.add_argument("paths", nargs="+", metavar="RUN_DIR|FILE")
    p.add_argument("--check", action="store_true", help="check the given brief files for leaks")
    p.add_argument("--round", type=int, default=1)
    p.add_argument("--contest", help="contest name (default: the variant block's contest)")
    p.add_argument("--out", help="folder for the briefs (default: RUN_DIR/phase-logs/briefs)")
    add_format(p, sarif=True)
    args = p.parse_args(argv)
    from gavelkit.award.runs import briefs

    if args.check:
        findings = []
        from gavelkit.core.errors import InputError

        for f in args.paths:
            try:
                findings += briefs.check_brief(f)
            except InputError as exc:
                findings.append(exc.to_finding())
        return emit(findings, args.format, "award briefs --check",
                    text=f"{len(args.paths)} brief(s) checked -> "
                    + ("UNREADABLE" if any(f.unusable for f in findings) else
                       "LEAK" if any(f.severity == "error" for f in findings) else "clean"),
                    quiet=args.quiet)
    if len(args.paths) != 1:
        raise UsageError("give one RUN_DIR (or --check FILE...)")
    run = _run_dir(args.paths[0])
    contest = args.contest
    if not contest:
        from gavelkit.award.blocks.variant import is_placeholder
        from gavelkit.award.runs.runfiles import read_run
        from gavelkit.award.tables import load_tables

        rf = read_run(run, load_tables())
        contest = next((b.body["contest"] for b in rf.variants
                        if isinstance(b.body.get("contest"), str)
                        and not is_placeholder(b.body["contest"])), None)
        if not contest:
            raise UsageError("no contest name: pass --contest or fill the variant block")
    written = briefs.write_briefs(run, contest, args.round, Path(args.out) if args.out else None)
    findings = [f for w in written for f in briefs.check_brief(w)]
    return emit(findings, args.format, "award briefs", {"written": [str(w) for w in written]},
                text="\n".join(f"wrote {w}" for w in written), quiet=args.quiet)


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
    pdf_missing = not (run / "paper" / "solution.pdf").is_file()
    if pdf_missing:
        print(f"{prog}: warning: no rendered PDF at paper/solution.pdf yet", file=sys.stderr)
    return emit([], args.format, "award manifest", {"manifest": str(dest), "files": n},
                text=f"wrote {dest} ({n} files)")
