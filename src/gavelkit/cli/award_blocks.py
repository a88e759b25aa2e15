"""`gavel award lint|aggregate|schema|self-test`: argument parsing and output only."""

from __future__ import annotations

import os

from gavelkit.cli.common import emit
from gavelkit.core.errors import UsageError
from gavelkit.core.findings import Finding

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing stays off the lint start-up path
    from typing import Any

# the command words: `memo` is the seed's word for the decision_memo block ("Lint with
# lint_run.py memo"); the block has that one name everywhere else
KINDS = ("handoff", "gate", "scorecard", "memo", "decision_memo", "variant")
BLOCK_OF = {"memo": "decision_memo"}


def expand(paths: list[str]) -> list[str]:
    """Expand quoted globs (agents often pass them unexpanded); keep plain paths as given."""
    out: list[str] = []
    for p in paths:
        if not os.path.exists(p) and any(ch in p for ch in "*?["):
            import glob

            hits = sorted(glob.glob(p))
            if not hits:
                raise UsageError(f"no file matches {p!r}")
            out.extend(hits)
        else:
            out.append(p)
    return out


def lint_parser(prog: str):  # type: ignore[no-untyped-def]
    from gavelkit.cli.common import add_format, parser

    p = parser(prog, "Lint run blocks (seed §1) in bare YAML files or fenced in Markdown.")
    p.add_argument("kind", choices=KINDS)
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--agent", help="handoff only: also enforce this role's keys")
    p.add_argument("--run-dir", help="handoff only: the run folder work/<run-id>; artifacts must "
                   "exist there and no symlink may leave it")
    p.add_argument("--config", help="project config (default: gavel.toml found upward)")
    add_format(p, sarif=True)
    return p


def _lint_spec():  # type: ignore[no-untyped-def]
    from gavelkit.cli.fastargs import Spec

    value = "value"
    return Spec([("kind", KINDS, "1"), ("files", None, "+")],
                {"--agent": ("agent", value, None), "--run-dir": ("run_dir", value, None),
                 "--config": ("config", value, None),
                 "--format": ("format", value, ("text", "json", "sarif")),
                 "-q": ("quiet", "flag", None), "--quiet": ("quiet", "flag", None)},
                {"format": "text"})


def lint_main(argv: list[str], prog: str) -> int:
    from gavelkit.cli.fastargs import parse

    args = parse(argv, _lint_spec()) or lint_parser(prog).parse_args(argv)
    if args.agent is not None and args.kind != "handoff":
        raise UsageError("--agent applies to handoff blocks only")
    if args.run_dir is not None:
        if args.kind != "handoff":
            raise UsageError("--run-dir applies to handoff blocks only")
        if not os.path.isdir(args.run_dir):
            raise UsageError(f"--run-dir {args.run_dir!r} is not a folder")
    from gavelkit.award.blocks.lint import lint_paths
    from gavelkit.award.tables import load_tables

    results = lint_paths(expand(args.files), BLOCK_OF.get(args.kind, args.kind), args.agent,
                         args.run_dir,
                         load_tables(args.config))
    findings = [f for r in results for f in r.all_findings()]
    files = [{"path": r.path, "blocks": [{"kind": b.block.kind, "line": b.block.line,
                                          "index": b.block.index, "ok": b.ok,
                                          "inferred": b.block.inferred} for b in r.blocks]}
             for r in results]
    nblocks = sum(len(r.blocks) for r in results)
    bad = sum(1 for r in results for b in r.blocks if not b.ok)
    verdict = (f"{args.kind}: {len(results)} file(s), {nblocks} block(s), "
               f"{bad} failing -> {'FAIL' if any(f.severity == 'error' for f in findings) else 'PASS'}")
    return emit(findings, args.format, f"award lint {args.kind}", {"files": files},
                text=verdict, quiet=args.quiet)


def _adjudications(memo_path: str | None) -> tuple[dict[str, str], list[Finding]]:
    if not memo_path:
        return {}, []
    from gavelkit.award.blocks.load import select
    from gavelkit.core.errors import InputError
    from gavelkit.core.sources import load_source

    src = load_source(memo_path)
    if src.unusable:
        f = src.findings[0]
        raise InputError(f.path, f.message, f.line, f.col, f.code)
    from gavelkit.award.blocks.memo import adjudications, foreign_adjudications

    blocks, _ = select(src, "decision_memo")
    out = adjudications(blocks)
    findings = [Finding("AWD-P012", "error", f"the adjudications are recorded in a phase-"
                        f"{b.body.get('phase')} decision_memo; evidence conflicts are adjudicated "
                        "in the Phase 7 memo, so they are not read", b.path, b.line, b.col)
                for b in foreign_adjudications(blocks)]
    if not out and not findings:
        raise UsageError(f"{memo_path}: no decision_memo with adjudications "
                         "[{criterion, outcome}] found")
    return out, findings


# Findings the panel text already lists under RESULT: FAIL (text output shows them once).
PANEL_CONDITION_CODES = frozenset({"AWD-P005", "AWD-P006", "AWD-P008", "AWD-P009",
                                   "AWD-P010", "AWD-P011", "AWD-P013"})


def aggregate_main(argv: list[str], prog: str) -> int:
    from gavelkit.cli.common import add_format, parser

    p = parser(prog, "Apply the judge-panel rule (seed §3) to one round of seat scorecards.")
    p.add_argument("files", nargs="+", metavar="FILE", help="scorecard files (globs allowed)")
    p.add_argument("--target", required=True, help="outstanding|finalist|meritorious or an alias "
                   "(国一, 国一边缘, 国二, 一等奖, 二等奖, ...)")
    p.add_argument("--adjudication-round", action="store_true",
                   help="the outlier seat was re-dispatched: one card is from the next round")
    p.add_argument("--memo", help="the Phase 7 decision_memo recording adjudication outcomes "
                   "(adjudications: [{criterion, outcome}]); read only with --adjudication-round, "
                   "after the outlier was re-dispatched")
    p.add_argument("--previous", metavar="FILE", help="--adjudication-round: the re-dispatched "
                   "seat's card of the round before (default: its phase7-seat-<S>-round-<r-1> "
                   "file next to the new card)")
    p.add_argument("--config", help="project config (default: gavel.toml found upward)")
    add_format(p, sarif=True)
    args = p.parse_args(argv)
    from gavelkit.award.panel.aggregate import aggregate, render_panel
    from gavelkit.award.tables import load_tables

    tables = load_tables(args.config)
    tables.target(args.target)  # usage error before any reading
    if args.previous and not args.adjudication_round:
        raise UsageError("--previous applies to --adjudication-round only")
    adjudicated, memo_findings = _adjudications(args.memo)
    res = aggregate(expand(args.files), args.target, tables, args.adjudication_round,
                    adjudicated, args.previous)
    res.findings.extend(memo_findings)
    if memo_findings:
        res.failed.append("the memo's adjudications are not in a Phase 7 memo (AWD-P012)")
    shown = res.findings if args.format != "text" else [
        f for f in res.findings if f.code not in PANEL_CONDITION_CODES]
    from gavelkit.core.findings import exit_code

    rc = 2 if exit_code(shown) == 2 else (0 if res.passed else 1)
    return emit_keeping_code(shown, args.format, "award aggregate", {"panel": res.to_dict()},
                             text=render_panel(res), quiet=args.quiet, code=rc)


def emit_keeping_code(findings: list[Finding], fmt: str, command: str,
                      extra: dict[str, Any] | None = None, text: str | None = None,
                      quiet: bool = False, code: int | None = None) -> int:
    """`emit`, but a reader that stops early (`| head -1`) does not change the exit code."""
    from gavelkit.core.findings import exit_code

    try:
        return emit(findings, fmt, command, extra, text=text, quiet=quiet, code=code)
    except BrokenPipeError:
        from gavelkit.cli.main import _silence_stdout

        _silence_stdout()
        return exit_code(findings) if code is None else code


def schema_main(argv: list[str], prog: str) -> int:
    from gavelkit.cli.common import parser

    p = parser(prog, "Print the JSON Schema of a run block, for editors that validate YAML.")
    p.add_argument("kind", choices=KINDS)
    p.add_argument("--format", choices=["json", "text"], default="json",
                   help="json (default, for editors) or text (the same schema as YAML)")
    args = p.parse_args(argv)
    from gavelkit.award.blocks.schema import build, schema_text

    if args.format == "text":
        import yaml

        print(yaml.safe_dump(build(BLOCK_OF.get(args.kind, args.kind)), sort_keys=False,
                             allow_unicode=True), end="")
    else:
        print(schema_text(BLOCK_OF.get(args.kind, args.kind)))
    return 0


def selftest_main(argv: list[str], prog: str) -> int:
    from gavelkit.cli.common import parser

    p = parser(prog, "Run the block linter's built-in self-test.")
    p.add_argument("-q", "--quiet", action="store_true")
    p.add_argument("--format", choices=["text", "json"], default="text")
    args = p.parse_args(argv)
    from gavelkit.cli.award_selftest import run_selftest

    return run_selftest(quiet=args.quiet, fmt=args.format)
