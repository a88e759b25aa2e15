"""`gavel rules [CODE]`: the rule catalog, so every code in a finding can be looked up.

One rule shows its doc and its two examples: the input that fires it and the near
miss that does not, each with the command that runs it. `--write DIR` writes both
inputs (DIR/fires, DIR/near) so they can be run by hand; `--run` runs them here and
shows what each produced.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from gavelkit.cli.common import parser

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from gavelkit.cli.rule_examples import Outcome
    from gavelkit.core.rules import Case, FileSpec, Rule

SHOWN_LINES = 40  # longer inline files are cut in the text view (--write has them whole)


def _text_lines(path: str, text: str) -> list[str]:
    body = text.splitlines() or ["(empty)"]
    cut = body[:SHOWN_LINES] + ([f"... ({len(body) - SHOWN_LINES} more lines)"]
                                if len(body) > SHOWN_LINES else [])
    return [f"  {path}:"] + [f"    | {ln}" for ln in cut]


def _spec_text(path: str, spec: FileSpec) -> list[str]:
    how = {"link": f"a link to {spec.link}", "fifo": "a named pipe (FIFO)",
           "dir": "an empty folder", "drop": "removed", "hex": f"bytes {spec.hex}",
           "pdf": "a PDF from this spec: " + json.dumps(spec.pdf, ensure_ascii=False)}
    if spec.source in how:
        return [f"  {path}: {how[spec.source]}"]
    if spec.source == "text":
        return _text_lines(path, spec.text or "")
    head = f"  {path}: " + (f"fixture {spec.base}" if spec.base else "as the tree's base holds it")
    edits = [f"    with {old!r} -> {new!r}" for old, new in spec.edit]
    return [head + (", edited" if edits else ""), *edits]


def _case_text(case: Case, only: Case | None = None) -> list[str]:
    """The case as a reader sees it; with `only`, just what the near miss changes."""
    shown = only or case
    lines = [f"  $ {case.command}"] if only is None or shown.run else []
    if shown.env:
        lines.append("  env " + " ".join(f"{k}={v}" for k, v in shown.env.items()))
    if shown.base:
        lines.append(f"  in fixture tree {shown.base}")
    for path, spec in shown.files.items():
        lines += _spec_text(path, spec)
    if shown.note:
        lines.append(f"  ({shown.note})")
    return lines


def _diff(rule: Rule) -> list[str]:
    """The near miss against the firing input, line by line (both made in a temp folder)."""
    import difflib
    import tempfile
    from pathlib import Path

    from gavelkit.cli.rule_examples import materialize

    assert rule.examples is not None
    with tempfile.TemporaryDirectory(prefix="gavel-rule-") as tmp:
        a = materialize(rule.examples.fires, Path(tmp) / "fires")
        b = materialize(rule.examples.near, Path(tmp) / "near")
    diff = [ln for ln in difflib.unified_diff(a, b, lineterm="", n=0)
            if not ln.startswith(("---", "+++", "@@"))]
    return [f"  {ln}" for ln in diff[:SHOWN_LINES]]


def render_rule(rule: Rule) -> str:
    out = [f"{rule.code} ({rule.severity}) {rule.title}", "", rule.doc]
    ex = rule.examples
    if ex is None:
        return "\n".join([*out, "", "(no examples yet)"])
    out += ["", "Fires:", *_case_text(ex.fires), "",
            "Near miss (does not fire), the input above except:",
            *_case_text(ex.near, ex.near_changes), "",
            "Difference (- fires, + near miss):", *_diff(rule), "",
            f"(gavel rules {rule.code} --write DIR writes both inputs whole; --run runs them)"]
    return "\n".join(out)


def _case_json(case: Case) -> dict[str, Any]:
    def spec(s: FileSpec) -> dict[str, Any]:
        d = {k: getattr(s, k) for k in ("text", "base", "link", "hex", "pdf")
             if getattr(s, k) is not None}
        d.update({k: True for k in ("drop", "fifo", "dir") if getattr(s, k)})
        if s.edit:
            d["edit"] = [list(e) for e in s.edit]
        return d

    return {"command": case.command, "base": case.base, "env": dict(case.env),
            "files": {p: spec(s) for p, s in case.files.items()}, "note": case.note}


def rule_json(rule: Rule) -> dict[str, Any]:
    doc: dict[str, Any] = {"code": rule.code, "severity": rule.severity, "title": rule.title,
                           "doc": rule.doc, "pack": rule.pack}
    if rule.examples:
        doc["examples"] = {"fires": _case_json(rule.examples.fires),
                           "near": _case_json(rule.examples.near)}
    return doc


def _outcome_text(name: str, code: str, out: Outcome) -> list[str]:
    hit = [f for f in out.findings if f.code == code]
    head = f"{name}: {code} {'fires' if hit else 'does not fire'} (exit {out.exit})"
    lines = [head] + [f"  {f.code} {f.severity}: {f.message}" for f in out.findings]
    if out.refused:
        lines.append(f"  refused: {out.refused}")
    return lines


def _run(rule: Rule, where: Path | None, fmt: str) -> int:
    """--run / --write: make both inputs (and run them); exit 1 when an example is wrong."""
    import tempfile
    from pathlib import Path

    from gavelkit.cli.rule_examples import materialize, run_case

    ex = rule.examples
    if ex is None:
        print(f"gavel rules: error: {rule.code} has no examples yet", file=sys.stderr)
        return 2
    if where is not None:
        for name, case in (("fires", ex.fires), ("near", ex.near)):
            materialize(case, where / name)
            print(f"wrote {where / name}: run `{case.command}` in it")
        return 0
    lacking = ex.fires.missing()
    if lacking:  # the example cannot show anything here: say so, never a pass or a fail
        print(f"gavel rules: {rule.code}'s examples need {', '.join(lacking)}, which this "
              "machine lacks (a program on PATH, or a Python that loads user site-packages)",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="gavel-rule-") as tmp:
        fires = run_case(ex.fires, Path(tmp) / "fires")
        near = run_case(ex.near, Path(tmp) / "near")
    ok = rule.code in fires.codes() and rule.code not in near.codes()
    if fmt == "json":
        print(json.dumps({"code": rule.code, "ok": ok,
                          "fires": [f.to_dict() for f in fires.findings],
                          "near": [f.to_dict() for f in near.findings]}, indent=2))
    else:
        print("\n".join(_outcome_text("fires", rule.code, fires)
                        + _outcome_text("near miss", rule.code, near)))
    return 0 if ok else 1


def _select(code: str | None) -> list[Rule]:
    """The rule CODE names exactly, else those it is a prefix of (every rule without one)."""
    from gavelkit.core.rules import catalog

    rules = list(catalog().values())
    if not code:
        return rules
    exact = [r for r in rules if r.code == code.upper()]
    return exact or [r for r in rules if r.code.startswith(code.upper())]


def _parser(prog: str):  # type: ignore[no-untyped-def]
    p = parser(prog, "List rule codes, or print one rule's doc and examples.")
    p.add_argument("code", nargs="?", help="a rule code such as AWD-S009 (prefix filters)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--run", action="store_true",
                   help="run the rule's two examples and show what they produce")
    p.add_argument("--write", metavar="DIR",
                   help="write the rule's two example inputs to DIR/fires and DIR/near")
    return p


def _examples_action(args: Any, rule: Rule | None, prog: str) -> int:
    if rule is None:
        print(f"{prog}: error: --run and --write take one rule code", file=sys.stderr)
        return 2
    from gavelkit.core.safeio import resolve_arg

    return _run(rule, resolve_arg(args.write) if args.write else None, args.format)


def main(argv: list[str], prog: str) -> int:
    args = _parser(prog).parse_args(argv)
    rules = _select(args.code)
    if not rules:
        print(f"{prog}: error: no rule {args.code!r}", file=sys.stderr)
        return 2
    one = len(rules) == 1 and bool(args.code)
    if args.run or args.write:
        return _examples_action(args, rules[0] if one else None, prog)
    if args.format == "json":
        print(json.dumps([rule_json(r) for r in rules], ensure_ascii=False, indent=2))
    elif one:
        print(render_rule(rules[0]))
    else:
        print("\n".join(f"{r.code:<10} {r.severity:<8} {r.title}" for r in rules))
    return 0
