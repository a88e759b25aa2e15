"""`gavel award figqa rerun FILE...`: re-run the runs' code/run_all.py with every figure gated.

What the pre-commit hook `gavel-figqa` runs when plotting code changes: the files given
(a commit's changed files) name runs (`work/<run-id>/`), and each such run's
`code/run_all.py` is run once, headless, as the critic re-runs it (seed §7), with
`gavel award figqa run`'s gate. Files outside any run, and runs without a run_all.py, are
named and left alone.
"""

from __future__ import annotations

import os

from gavelkit.cli.common import add_format, emit, parser


def scripts_of(files: list[str]) -> tuple[list[str], list[str]]:
    """(each run's code/run_all.py, files that lie in no run that has one)."""
    from gavelkit.award.runs.runpaths import run_id_from_location

    scripts: list[str] = []
    alone: list[str] = []
    for f in files:
        loc = run_id_from_location(f)
        script = os.path.join(str(loc[1]), "code", "run_all.py") if loc else ""
        if script and os.path.isfile(script):
            rel = os.path.relpath(script)
            script = script if rel.startswith(os.pardir) else rel
            if script not in scripts:
                scripts.append(script)
        else:
            alone.append(f)
    return sorted(scripts), alone


def main(argv: list[str], prog: str) -> int:
    p = parser(prog, "Re-run code/run_all.py of every run the given files belong to, "
               "headless, with every figure gated for overlaps and clipping.")
    p.add_argument("files", nargs="+", metavar="FILE", help="files of runs (work/<run-id>/...)")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="seconds each run_all.py may take (default 300)")
    add_format(p, sarif=True)
    args = p.parse_args(argv)
    from gavelkit.cli.award_figures import run_script

    scripts, alone = scripts_of(args.files)
    findings = []
    runs = []
    for script in scripts:
        got, result = run_script(script, [], timeout=args.timeout, quiet=True)
        findings.extend(got)
        figs = result.get("figures", [])
        runs.append({"script": script, "figures": len(figs),
                     "collisions": sum(len(f.get("collisions", [])) for f in figs)})
    lines = [f"figqa: {r['script']}: {r['figures']} figure(s) gated, {r['collisions']} "
             "collision(s)" for r in runs]
    if not scripts:
        lines.append("figqa: none of the files lies in a run with code/run_all.py; nothing run")
    return emit(findings, args.format, "award figqa rerun", {"runs": runs, "not_in_a_run": alone},
                text="\n".join(lines), quiet=args.quiet)
