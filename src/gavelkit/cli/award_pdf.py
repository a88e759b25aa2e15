"""`gavel award pdfqa` and `gavel award contact-sheet`.

pypdfium2 and Pillow are imported only inside these functions, so `gavel`
starts fast for every other command.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from gavelkit.cli.argtypes import positive_int
from gavelkit.cli.common import add_format, emit, parser
from gavelkit.core.errors import InputError, UsageError
from gavelkit.core.findings import Finding


def variant_limits(path: str) -> tuple[int, str]:
    """(limits.pages, contest) of the variant block, selected and checked by the variant
    linter itself."""
    from gavelkit.award.blocks.lint import variant_limits as read_limits

    pages, contest, errors = read_limits(path)
    if pages is None:
        why = errors[0].message if errors else "variant.limits.pages is missing"
        where = errors[0].location() if errors else path
        raise UsageError(f"--variant {where}: {why}; set it, or pass --max-pages N")
    return pages, contest


def _summary_contest(contest: str) -> bool:
    from gavelkit.award.pdf.document import tables

    low = contest.lower()
    return any(k.lower() in low for k in tables()["summary"]["contests"])


def _common(p: argparse.ArgumentParser) -> None:
    lim = p.add_mutually_exclusive_group()
    lim.add_argument("--max-pages", type=positive_int, metavar="N",
                     help="page limit of the solution body (the AI-use report is not counted)")
    lim.add_argument("--variant", metavar="FILE",
                     help="take the limit from limits.pages of the variant: block in FILE")
    p.add_argument("--summary-sheet", action="store_true",
                   help="require page 1 to be the summary sheet (automatic when the variant's "
                        "contest is MCM/ICM-style)")


def _limits(args: argparse.Namespace) -> tuple[int | None, bool]:
    max_pages, summary = args.max_pages, args.summary_sheet
    if args.variant:
        max_pages, contest = variant_limits(args.variant)
        summary = summary or _summary_contest(contest)
    return max_pages, summary


def _unusable(exc: InputError, fmt: str, command: str, prog: str) -> int:
    print(f"{prog}: error: {exc}", file=sys.stderr)
    if fmt != "text":
        emit([exc.to_finding()], fmt, command)
    return 2


def _verdict_text(path: str, res: Any, strict: bool, failed: bool) -> str:
    s = res.summary
    pg = s["pages"]
    lines = [f"pdfqa: {path}"]
    body = f"{pg['total']} total"
    if pg["ai_report"]:
        ai = pg["ai_report"]
        body += f"; body {pg['body']} (AI-use report pages {ai['first']}-{ai['last']} not counted)"
    else:
        body += f"; body {pg['body']}"
    if pg["max_pages"] is not None:
        body += f"; limit {pg['max_pages']}"
    lines.append(f"  pages      {body}")
    caps = ", ".join(f"{v} {k}" for k, v in s["captions"].items()) or "none found"
    lines.append(f"  captions   {caps}")
    lines.append(f"  anonymity  {'checked' if s['anonymous'] else 'not checked (no --anonymous)'}")
    blank = ", ".join(map(str, s["blank_pages"])) or "none"
    lines.append(f"  blank      {blank}")
    if s["summary_sheet"]:
        lines.append("  summary    page 1 checked")
    mode = " (strict: warnings fail)" if strict else ""
    lines.append(f"pdfqa: {'FAIL' if failed else 'PASS'}{mode} ({path})")
    return "\n".join(lines)


def pdfqa_main(argv: list[str], prog: str) -> int:
    p = parser(prog, "QA of the compiled paper: page count (AI-use report excluded), duplicate "
               "captions, anonymity (--anonymous), blank pages, summary sheet.\n"
               "Exit 0 pass (warnings shown), 1 errors (or warnings with --strict), "
               "2 usage error or unreadable/encrypted PDF.")
    p.add_argument("pdf", help="the compiled PDF")
    _common(p)
    p.add_argument("--anonymous", action="store_true",
                   help="check metadata (Info + XMP) and every page for identity leaks")
    p.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")
    p.add_argument("--jobs", type=positive_int, default=None,
                   help="reader processes (default: CPUs, at most 4; 1 below 16 pages)")
    p.add_argument("--self-test", action="store_true", help="run the built-in self-test")
    add_format(p, sarif=True)
    if "--self-test" in argv:
        from gavelkit.cli.award_pdf_selftest import run

        return run("pdfqa")
    args = p.parse_args(argv)
    command = "award pdfqa"
    max_pages, summary = _limits(args)

    from gavelkit.award.pdf import pdfqa
    from gavelkit.core.progress import Progress

    prog_bar = Progress("pdfqa pages", quiet=args.quiet)
    try:
        doc = pdfqa.load(args.pdf, progress=prog_bar.update, jobs=args.jobs)
    except InputError as exc:
        prog_bar.close()
        return _unusable(exc, args.format, command, prog)
    prog_bar.close()
    res = pdfqa.run_checks(doc, max_pages=max_pages, anonymous=args.anonymous,
                           summary_sheet=summary)
    findings = res.findings
    failed = any(f.severity == "error" for f in findings) or (
        args.strict and any(f.severity == "warning" for f in findings))
    extra: dict[str, Any] = {"pdf": args.pdf, "summary": res.summary,
                             "strict": args.strict, "verdict": "FAIL" if failed else "PASS"}
    text = _verdict_text(args.pdf, res, args.strict, failed)
    if args.quiet:
        text = text.splitlines()[-1]
    return emit(findings, args.format, command, extra=extra, text=text, quiet=args.quiet,
                outcome=1 if failed else 0)


def contact_sheet_main(argv: list[str], prog: str) -> int:
    p = parser(prog, "Contact sheet of the compiled PDF: every page as a numbered tile, pages "
               "with QA findings (blank, caption, identity) framed in colour with a legend.\n"
               "Exit 0 when the sheet is written (QA findings are shown, not failed), "
               "2 usage error or unreadable PDF.")
    p.add_argument("pdf", help="the compiled PDF")
    p.add_argument("-o", "--output", required=True, metavar="PNG", help="output PNG")
    p.add_argument("--dpi", type=positive_int, default=60, help="tile resolution (default 60)")
    p.add_argument("--cols", type=positive_int, default=None,
                   help="tiles per row (default: about the square root of the page count)")
    p.add_argument("--jobs", type=positive_int, default=None,
                   help="render processes (default: CPUs, at most 4; 1 for short papers)")
    _common(p)
    p.add_argument("--no-qa", action="store_true", help="do not run QA, frame nothing")
    p.add_argument("--no-anonymous", action="store_true",
                   help="do not frame identity findings")
    p.add_argument("--self-test", action="store_true", help="run the built-in self-test")
    add_format(p)
    if "--self-test" in argv:
        from gavelkit.cli.award_pdf_selftest import run

        return run("contact-sheet")
    args = p.parse_args(argv)
    command = "award contact-sheet"
    if args.dpi > 600:
        raise UsageError("--dpi must be at most 600")
    if os.path.isdir(args.output):
        raise UsageError(f"--output {args.output} is a directory; give a .png file path")
    max_pages, summary = _limits(args)

    from gavelkit.award.pdf.framed import framed_sheet
    from gavelkit.core.progress import Progress

    bar = Progress("contact-sheet pages", quiet=args.quiet)
    try:
        fs = framed_sheet(args.pdf, args.output, dpi=args.dpi, cols=args.cols, jobs=args.jobs,
                          qa=not args.no_qa, anonymous=not args.no_anonymous,
                          max_pages=max_pages, summary_sheet=summary, progress=bar.update)
    except InputError as exc:
        bar.close()
        if exc.code != "GK-IO009":  # the PDF is unusable; GK-IO009: the output path is
            return _unusable(exc, args.format, command, prog)
        f = Finding("PDF-K001", "error", f"cannot write the contact sheet: {exc.message}",
                    args.output, unusable=True)
        print(f"{prog}: error: {args.output}: {f.message}", file=sys.stderr)
        if args.format != "text":
            emit([f], args.format, command)
        return 2
    except OSError as exc:
        bar.close()
        f = Finding("PDF-K001", "error", f"cannot write the contact sheet: "
                    f"{exc.strerror or exc}", args.output, unusable=True)
        print(f"{prog}: error: {args.output}: {f.message}", file=sys.stderr)
        if args.format != "text":
            emit([f], args.format, command)
        return 2
    bar.close()
    out, res = fs.sheet, fs.qa
    qa_findings = res.findings if res else []
    framed = {str(k): sorted(v) for k, v in sorted(fs.flags.items())}
    extra = {"output": out.path, "pages": out.pages, "cols": out.cols, "rows": out.rows,
             "width": out.width, "height": out.height, "dpi": out.dpi, "framed": framed,
             "qa_findings": [f.to_dict() for f in qa_findings]}
    text = (f"contact sheet written: {out.path} ({out.pages} page(s), {out.cols}x{out.rows}, "
            f"{out.width}x{out.height} px at {out.dpi:g} dpi)")
    if framed:
        text += "\n  framed: " + "; ".join(f"p.{k} {', '.join(v)}" for k, v in framed.items())
    elif not args.no_qa:
        text += "\n  no QA findings to frame"
    if args.format == "json":
        return emit([], "json", command, extra=extra)
    if not args.quiet:
        print(text)
    return 0

