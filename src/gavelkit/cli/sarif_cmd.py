"""`gavel sarif merge FILE... [-o OUT]`: one SARIF log, one run per tool, for code scanning.

A CI job that runs `gavel task scan --format sarif` once per task gets one log per task;
GitHub code scanning takes one run per tool and category, so the job merges them first
(docs/ci.md). The SARIF goes to OUT (or stdout); with -o the command reports what it merged.
"""

from __future__ import annotations

import json
import sys

from gavelkit.cli.common import parser
from gavelkit.core.errors import UsageError


def main(argv: list[str], prog: str) -> int:
    p = parser(prog, "Merge SARIF 2.1.0 logs into one log with one run per tool "
               "(results joined, rules united).")
    p.add_argument("files", nargs="+", metavar="FILE", help="SARIF logs (globs allowed)")
    p.add_argument("-o", "--output", help="write the merged log here (default: stdout)")
    p.add_argument("--format", choices=["text", "json"], default="text",
                   help="with -o: how to report what was merged (default: text)")
    args = p.parse_args(argv)
    from gavelkit.cli.award_blocks import expand
    from gavelkit.core.safeio import load_json
    from gavelkit.core.sarif_merge import merge

    files = expand(args.files)
    if args.output and args.output in files:
        raise UsageError(f"-o {args.output} is also an input; write the merged log elsewhere")
    merged = merge([(f, load_json(f, what="SARIF log")) for f in files])
    text = json.dumps(merged, ensure_ascii=False, indent=2) + "\n"
    if not args.output:
        sys.stdout.write(text)
        return 0
    from gavelkit.core.textio import atomic_write

    atomic_write(args.output, text)
    counts = {"files": len(files), "runs": len(merged["runs"]),
              "results": sum(len(r["results"]) for r in merged["runs"]),
              "output": args.output}
    if args.format == "json":
        print(json.dumps(counts, indent=2))
    else:
        print(f"merged {counts['files']} log(s) into {counts['runs']} run(s), "
              f"{counts['results']} result(s): {args.output}")
    return 0
