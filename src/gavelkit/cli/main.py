"""`gavel` entry point: a table of commands, each imported only when called.

Agents run the linters many times per run, so start-up must stay close to
"import yaml": no heavy import happens before we know which command runs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

# (words, "module:function", one-line help). Longest word prefix wins.
COMMANDS: list[tuple[tuple[str, ...], str, str]] = [
    (("award", "lint"), "gavelkit.cli.award_blocks:lint_main",
     "lint handoff|gate|scorecard|memo|variant blocks in YAML or Markdown files"),
    (("award", "lint-all"), "gavelkit.cli.award_lint_all:main",
     "lint every run block under work/*/ (or the given files), each by its own kind"),
    (("award", "aggregate"), "gavelkit.cli.award_blocks:aggregate_main",
     "apply the judge-panel rule to one round of three seat scorecards"),
    (("award", "schema"), "gavelkit.cli.award_blocks:schema_main",
     "print the JSON Schema of a run block"),
    (("award", "self-test"), "gavelkit.cli.award_blocks:selftest_main",
     "run the linter's built-in self-test"),
    (("award", "init"), "gavelkit.cli.award_runs:init_main",
     "create work/<run-id>/ with the seed's layout and a variant template"),
    (("award", "status"), "gavelkit.cli.award_runs:status_main",
     "budgets, stalled findings, the panel and the one next action of a run"),
    (("award", "briefs"), "gavelkit.cli.award_runs:briefs_main",
     "write the three blind seat briefs, or --check briefs for leaks"),
    (("award", "manifest"), "gavelkit.cli.award_runs:manifest_main",
     "compile package/manifest.md, or --check it against the tree"),
    (("award", "report"), "gavelkit.cli.report_cmd:award_main",
     "write the lead's self-contained HTML report of a run (-o report.html)"),
    (("task", "init"), "gavelkit.cli.task_pipeline:init_main",
     "create PIPELINE_STATE.md for a task (S1_SCREENING)"),
    (("task", "state"), "gavelkit.cli.task_pipeline:state_main",
     "show the pipeline state or move it (--to STATE --note TEXT): guarded, capped, locked"),
    (("task", "check-oracle"), "gavelkit.cli.task_pipeline:check_oracle_main",
     "detect an oracle change after QUALIFIED and carry out REOPENED_S3"),
    (("task", "gates"), "gavelkit.cli.task_pipeline:gates_main",
     "static gates D (coverage), E (quality), F (phrasing) on a task folder"),
    (("task", "gates-all"), "gavelkit.cli.task_gates_all:main",
     "gates D/E/F on every task of a folder: verdict per task, most common causes"),
    (("task", "spotcheck"), "gavelkit.cli.task_pipeline:spotcheck_main",
     "Gates A/C: reproducible spot-check table, or --verify a filled one"),
    (("task", "run"), "gavelkit.cli.task_judging:run_main",
     "score a solution against the task's oracle in an isolated runner"),
    (("task", "solvability"), "gavelkit.cli.task_judging:solvability_main",
     "run the reference on the oracle (>= 95 %) with an environment diagnosis"),
    (("task", "schema"), "gavelkit.cli.task_judging:schema_main",
     "print the JSON Schema of a judge record (judge-result)"),
    (("task", "judge"), "gavelkit.cli.task_judging:judge_main",
     "judge a scored run: preflight, anti-cheat, solvability, gates, scores -> verdict"),
    (("task", "judge-all"), "gavelkit.cli.task_judging:judge_all_main",
     "score and judge every task of a folder (--jobs N, --executor dask)"),
    (("task", "report"), "gavelkit.cli.report_cmd:task_main",
     "write one task's self-contained HTML report (-o report.html)"),
    (("task", "report-all"), "gavelkit.cli.report_cmd:fleet_main",
     "write a sortable, filterable HTML table over every task in a folder (-o fleet.html)"),
    (("award", "pdfqa"), "gavelkit.cli.award_pdf:pdfqa_main",
     "QA of the compiled PDF: page count, captions, anonymity, blank pages"),
    (("award", "contact-sheet"), "gavelkit.cli.award_pdf:contact_sheet_main",
     "contact sheet PNG of the compiled PDF with QA findings framed"),
    (("task", "preflight"), "gavelkit.cli.task_anticheat:preflight_main",
     "import-provenance preflight: does `import PKG` load the candidate's code?"),
    (("task", "scan"), "gavelkit.cli.task_anticheat:scan_main",
     "scan agent trajectories for forbidden access (CLEAN / CHEAT_DETECTED / UNVERIFIABLE)"),
    (("award", "figqa", "run"), "gavelkit.cli.award_figures:run_main",
     "run a plotting script headless and gate every figure for overlaps and clipping"),
    (("award", "figqa", "rerun"), "gavelkit.cli.award_figqa_rerun:main",
     "re-run code/run_all.py of the runs the given files belong to, every figure gated"),
    (("award", "figqa", "self-test"), "gavelkit.cli.award_figures:selftest_main",
     "prove the figure overlap gate works on built-in figures"),
    (("rules",), "gavelkit.cli.rules_cmd:main",
     "list rule codes, or explain one (gavel rules CODE)"),
    (("sarif", "merge"), "gavelkit.cli.sarif_cmd:main",
     "merge SARIF logs into one run per tool (one upload to code scanning)"),
    (("skills",), "gavelkit.cli.skills_cmd:main",
     "install the skill folders: gavel skills install [--dest .claude/skills]"),
    (("demo",), "gavelkit.cli.demo:main",
     "run the bundled examples end to end"),
]


def _usage() -> str:
    lines = ["usage: gavel COMMAND [ARGS...]   (gavel COMMAND --help for details)", "",
             "commands:"]
    width = max(len(" ".join(w)) for w, _, _ in COMMANDS)
    groups = {"award": 0, "task": 1}
    ordered = sorted(enumerate(COMMANDS), key=lambda e: (groups.get(e[1][0][0], 2), e[0]))
    for _, (words, _, help_) in ordered:
        lines.append(f"  {' '.join(words):<{width}}  {help_}")
    lines += ["", "exit codes: 0 clean, 1 findings at error level or failed gate, "
              "2 usage error or unreadable input"]
    return "\n".join(lines)


def _group_help(args: list[str]) -> int | None:
    """`gavel award --help`, `gavel award figqa -h`: list that group's commands (exit 0)."""
    words = []
    for a in args:
        if a in ("-h", "--help", "help"):
            break
        words.append(a)
    else:
        return None
    sub = [(w, h) for w, _, h in COMMANDS if tuple(w[: len(words)]) == tuple(words)]
    if not words or not sub:
        return None
    width = max(len(" ".join(w)) for w, _ in sub)
    print(f"usage: gavel {' '.join(words)} COMMAND [ARGS...]   "
          f"(gavel {' '.join(words)} COMMAND --help for details)\n\ncommands:")
    for w, h in sub:
        print(f"  {' '.join(w):<{width}}  {h}")
    return 0


def resolve(argv: Sequence[str]) -> tuple[tuple[str, ...], str] | None:
    best: tuple[tuple[str, ...], str] | None = None
    for words, target, _ in COMMANDS:
        if tuple(argv[: len(words)]) == words and (best is None or len(words) > len(best[0])):
            best = (words, target)
    return best


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0 if args else 2
    if args[0] == "--version":
        from gavelkit import __version__

        print(f"gavel {__version__}")
        return 0
    hit = resolve(args)
    if hit is None:
        group = _group_help(args)
        if group is not None:
            return group
        groups = sorted({w[0] for w, _, _ in COMMANDS})
        if args[0] in groups:
            sub = [" ".join(w) for w, _, _ in COMMANDS if w[0] == args[0]]
            print(f"gavel: unknown {args[0]} command {' '.join(args[1:2])!r}; "
                  f"one of: {', '.join(sub)}", file=sys.stderr)
        else:
            print(f"gavel: unknown command {args[0]!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    words, target = hit
    _RAN[:] = words
    module_name, func_name = target.split(":")
    early = _early(words, args[len(words):])
    from importlib import import_module

    try:
        func = getattr(import_module(module_name), func_name)
        return guarded(func, args[len(words):], "gavel " + " ".join(words))
    finally:
        if early is not None:  # ended whether or not the command used it
            early.close()


# Work a command wants started before its own modules and argparse load: "module:function"
# called with (words, argv), returning None or an object with close().
EARLY = {("task", "run"): "gavelkit.cli.task_early:early",
         ("task", "solvability"): "gavelkit.cli.task_early:early"}


def _early(words: tuple[str, ...], argv: list[str]):  # type: ignore[no-untyped-def]
    target = EARLY.get(words)
    if target is None:
        return None
    from importlib import import_module

    module_name, func_name = target.split(":")
    try:
        return getattr(import_module(module_name), func_name)(words, argv)
    except Exception:  # the command starts its own way; its parser reports bad arguments
        return None


def guarded(func, argv: list[str], prog: str) -> int:  # type: ignore[no-untyped-def]
    """Run a command so bad input never shows a traceback."""
    from gavelkit.core.errors import InputError, UsageError

    try:
        return int(func(argv, prog) or 0)
    except InputError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except UsageError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # argparse
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 2)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except OSError as exc:  # the file system refused: a path the user gave us, not a bug
        if os.environ.get("GAVEL_DEBUG"):
            raise
        from gavelkit.core.safeio import os_reason

        where = exc.filename or "(file system)"
        print(f"{prog}: error: {where}: {os_reason(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug of ours, not the user's input
        if os.environ.get("GAVEL_DEBUG"):
            raise
        print(f"{prog}: internal error: {type(exc).__name__}: {exc} "
              "(set GAVEL_DEBUG=1 for a traceback; please report it)", file=sys.stderr)
        return 3


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


# Commands that may skip the interpreter's finalisation (freeing ~180 modules: ~15 ms,
# 3 % of scoring a one-second suite) once their output is flushed: they write every file
# through atomic_write and end their processes and threads themselves.
FAST_EXIT = {("task", "run"), ("task", "solvability")}
_RAN: list[str] = []


def _may_exit_fast() -> bool:
    """Nothing left that finalisation would do: no atexit hook, no other thread."""
    import atexit

    if tuple(_RAN) not in FAST_EXIT or atexit._ncallbacks():
        return False
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


def run() -> None:
    code = 0
    try:
        code = main()
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        # the reader stopped early (`| head`); the exit code stays what the command decided
        _silence_stdout()
    if _may_exit_fast():
        os._exit(code)
    sys.exit(code)
