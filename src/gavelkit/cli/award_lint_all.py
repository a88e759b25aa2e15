"""`gavel award lint-all [PATH...]`: every run block under work/*/, each by its own kind.

What the pre-commit hook `gavel-award-lint` runs on the staged files of a contest repository
(.pre-commit-hooks.yaml), and what a person runs on a whole run: no kind to name, no
--agent or --run-dir to remember (award/blocks/by_kind.py says how the kind is found).
"""

from __future__ import annotations

import os

from gavelkit.cli.common import add_format, emit, parser
from gavelkit.core.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gavelkit.award.blocks.by_kind import Linted


def _paths(given: list[str]) -> list[str]:
    from gavelkit.award.blocks.by_kind import run_files
    from gavelkit.cli.award_blocks import expand

    if not given:
        if not os.path.isdir("work"):
            raise UsageError(f"no work/ folder in {os.getcwd()}; give run folders or files "
                             "(e.g. gavel award lint-all work/RUN_ID)")
        given = ["work"]
    files, folders = [], []
    for p in expand(given):
        (folders if os.path.isdir(p) else files).append(p)
    return files + run_files(folders)


def main(argv: list[str], prog: str) -> int:
    p = parser(prog, "Lint every run block in the given files or run folders (default: "
               "work/), each by its kind: gates/ and scorecards/ by folder, other files by "
               "their block keys, handoffs under their own agent and run folder; briefs/ "
               "are checked for leaks.")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (default: work/)")
    p.add_argument("--config", help="project config (default: gavel.toml found upward)")
    add_format(p, sarif=True)
    args = p.parse_args(argv)
    from gavelkit.award.blocks.by_kind import lint_by_kind
    from gavelkit.award.tables import load_tables

    res = lint_by_kind(_paths(args.paths), load_tables(args.config))
    return emit(res.findings, args.format, "award lint-all", _extra(res), text=_verdict(res),
                quiet=args.quiet)


def _verdict(res: Linted) -> str:
    kinds: dict[str, int] = {}
    for r in res.files:
        for b in r.blocks:
            kinds[b.block.kind] = kinds.get(b.block.kind, 0) + 1
    bad = sum(1 for r in res.files for b in r.blocks if not b.ok)
    failed = any(f.severity == "error" for f in res.findings)
    what = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "no blocks"
    return (f"lint-all: {len(res.files)} file(s) ({what}), {len(res.briefs)} brief(s), "
            f"{bad} failing block(s) -> {'FAIL' if failed else 'PASS'}")


def _extra(res: Linted) -> dict[str, Any]:
    return {"files": [{"path": r.path, "blocks": [{"kind": b.block.kind, "line": b.block.line,
                                                    "ok": b.ok} for b in r.blocks]}
                      for r in res.files],
            "briefs": res.briefs, "skipped": res.skipped}
