"""`gavel task preflight` and `gavel task scan`: the anti-cheat hard check from the CLI.

preflight exits 0 when the import resolves inside the candidate, 1 when it does
not, 2 on bad arguments. scan exits 0 CLEAN, 1 CHEAT_DETECTED, 2 UNVERIFIABLE
(a missing, empty or unreadable transcript is never a pass).
"""

from __future__ import annotations

import os
import sys

from gavelkit.cli import argtypes as at
from gavelkit.cli.common import add_format, emit, parser


def preflight_main(argv: list[str], prog: str) -> int:
    p = parser(prog, "Import-provenance preflight: run `python -c \"import PKG; "
                     "print(PKG.__file__)\"` in a fresh subprocess of the scoring interpreter "
                     "and check that it resolves inside the candidate folder. Prints the "
                     "literal 'Preflight output' block for the diagnosis report.")
    p.add_argument("--package", required=True, help="import name of the target package")
    p.add_argument("--candidate", required=True, type=at.abs_path, help="the candidate solution folder")
    p.add_argument("--python", help="scoring interpreter (default: this Python)")
    p.add_argument("--cwd", type=at.abs_path, help="run from this folder (the scorer's working directory) "
                                 "instead of an empty temporary one")
    p.add_argument("--remove-path", action="append", default=[], metavar="P",
                   help="entry of --cwd the scorer deletes before running (repeatable)")
    p.add_argument("--no-pythonpath", action="store_true",
                   help="do not put the candidate on PYTHONPATH (it must be importable as is)")
    p.add_argument("--timeout", type=at.positive_float, default=60.0)
    add_format(p)
    args = p.parse_args(argv)
    from gavelkit.task.anticheat.preflight import run_preflight

    res = run_preflight(args.package, args.candidate, python=args.python, cwd=args.cwd,
                        remove_paths=args.remove_path, pythonpath=not args.no_pythonpath,
                        timeout=args.timeout)
    findings = res.findings()
    outcome = 0 if res.passed else 1
    if args.format == "json":
        return emit(findings, "json", "task preflight", extra={"preflight": res.to_dict()},
                    outcome=outcome)
    print(res.block_text.rstrip("\n"))
    return emit(findings if not args.quiet else [], "text", "task preflight", outcome=outcome)


def scan_main(argv: list[str], prog: str) -> int:
    p = parser(prog, "Scan agent trajectories (Claude Code, Codex, OpenHands, SWE-agent, "
                     "mini-swe-agent, inspect_ai) for access to forbidden places and "
                     "forbidden commands. Verdict CLEAN (exit 0), CHEAT_DETECTED (exit 1) or "
                     "UNVERIFIABLE (exit 2).")
    p.add_argument("trajectories", nargs="*", metavar="TRAJECTORY",
                   help="transcript files or folders of them")
    p.add_argument("--task", help="the task folder (its entries but the spec are forbidden, "
                                  "and the paths task.json records under a forbidden key; see "
                                  "data/anticheat_task_paths.toml; its anticheat_rules.toml "
                                  "extends the rules)")
    p.add_argument("--package", help="import name of the target package")
    p.add_argument("--alias", action="append", default=[],
                   help="another name of the target (its PyPI distribution name)")
    p.add_argument("--upstream", help="upstream repository owner/name (default: task.json repo)")
    p.add_argument("--forbid", action="append", default=[], metavar="PATH",
                   help="another forbidden path (repeatable)")
    p.add_argument("--workspace", action="append", default=[], metavar="DIR",
                   help="the agent's own workspace: nothing inside it is forbidden except "
                        "copies of the oracle's maps (default: the first working directory "
                        "seen, which exempts it from the generic patterns only)")
    p.add_argument("--rules", action="append", default=[], metavar="FILE",
                   help="extra rules TOML (same id replaces a built-in rule)")
    p.add_argument("--home", help="home directory of the agent's machine (for ~ and $HOME)")
    p.add_argument("--reference", action="append", default=[], metavar="DIR",
                   help="the reference source (repeatable): tool outputs that reproduce it "
                        "are CHEAT (CHT-O002); with --solution, the share of the candidate's "
                        "code that reproduces it (CHT-C001). task.json reference_source / "
                        "source_repo folders that exist are used too")
    p.add_argument("--solution", type=at.abs_path,
                   help="the candidate's final solution folder, for the copy signal")
    p.add_argument("--workspace-history", choices=["none", "upstream"],
                   help="does the agent's workspace hold the upstream's git history? "
                        "none (default; also task.json workspace_history): reading history "
                        "is CHT-G001; upstream (SWE-bench style): the workspace is the "
                        "upstream checkout, so its history and the target's installed copy "
                        "(CHT-R008) are the agent's input; refs past the base commit are "
                        "CHT-G002 warnings")
    p.add_argument("--thorough", action="store_true",
                   help="parse every line instead of only lines with a rule anchor")
    p.add_argument("--engine", choices=["re2", "find"], help="prefilter engine (default: re2 "
                                                             "when installed)")
    add_format(p, sarif=True)
    args = p.parse_args(argv)
    if not args.task and not args.package and not args.forbid:
        p.error("give --task, --package or --forbid: without them nothing is forbidden")
    if args.engine == "re2":
        from gavelkit.task.anticheat.prefilter import available_engines

        if "re2" not in available_engines():
            p.error("engine re2 needs the google-re2 package (pip install google-re2)")
    from gavelkit.task.anticheat.scan import (
        CHEAT,
        CLEAN,
        build_context,
        places_summary,
        scan_trajectories,
    )

    ctx = build_context(args.task, args.package, args.forbid, args.workspace, args.rules,
                        args.upstream, args.home, aliases=args.alias,
                        references=args.reference, history=args.workspace_history)
    from gavelkit.core.progress import Progress

    with Progress("scan MB", quiet=args.quiet) as bar:
        res = scan_trajectories(args.trajectories, thorough=args.thorough, engine=args.engine,
                                ctx=ctx, progress=lambda d, t: bar.update(d >> 20, t >> 20),
                                solution=args.solution)
    code = 0 if res.verdict == CLEAN else 1 if res.verdict == CHEAT else 2
    big = sum(f.get("bytes", 0) for f in res.files) > 100_000_000
    if res.engine == "find" and big and not args.quiet:
        print(f"{prog}: note: scanned with the pure-Python engine (~5-15 MB/s); "
              "pip install google-re2 (or gavelkit[scan]) for ~20x the speed", file=sys.stderr)
    summary, anchor = None, None
    if args.format == "sarif":  # "no transcript given" still needs a place in SARIF
        task_json = os.path.join(args.task, "task.json") if args.task else ""
        anchor = task_json if os.path.isfile(task_json) else next(iter(args.trajectories), None)
    if args.format == "text":
        summary = (f"verdict: {res.verdict} ({len(res.files)} file(s), "
                   f"{sum(f.get('events', 0) for f in res.files)} event(s) checked, engine {res.engine})")
        if not args.quiet:
            summary += "\n" + "\n".join(places_summary(res.places))
    return emit(res.findings, args.format, "task scan",
                extra=res.to_dict() if args.format == "json" else None, text=summary,
                quiet=args.quiet, anchor=anchor, outcome=code)

