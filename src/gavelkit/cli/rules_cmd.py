"""`gavel rules [CODE]`: the rule catalog, so every code in a finding can be looked up."""

from __future__ import annotations

import json
import sys

from gavelkit.cli.common import parser


def main(argv: list[str], prog: str) -> int:
    p = parser(prog, "List rule codes, or print the doc of one rule.")
    p.add_argument("code", nargs="?", help="a rule code such as AWD-S009 (prefix filters)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    args = p.parse_args(argv)
    from gavelkit.core.rules import catalog

    rules = list(catalog().values())
    if args.code:
        exact = [r for r in rules if r.code == args.code.upper()]
        rules = exact or [r for r in rules if r.code.startswith(args.code.upper())]
        if not rules:
            print(f"{prog}: error: no rule {args.code!r}", file=sys.stderr)
            return 2
    if args.format == "json":
        print(json.dumps([{"code": r.code, "severity": r.severity, "title": r.title,
                           "doc": r.doc, "pack": r.pack} for r in rules],
                         ensure_ascii=False, indent=2))
        return 0
    if len(rules) == 1 and args.code:
        r = rules[0]
        print(f"{r.code} ({r.severity}) {r.title}\n\n{r.doc}")
        return 0
    for r in rules:
        print(f"{r.code:<10} {r.severity:<8} {r.title}")
    return 0
