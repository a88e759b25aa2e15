"""`--self-test` of pdfqa and the contact sheet: build small PDFs, run the real
checks on them, and report each case. Needs only the runtime dependencies
(pypdfium2, Pillow): the PDFs come from gavelkit's own tiny writer.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from collections.abc import Callable

from gavelkit.award.pdf.writer import PageSpec, build_pdf, xmp_packet


def _write(folder: str, name: str, data: bytes) -> str:
    path = os.path.join(folder, name)
    with open(path, "wb") as fh:
        fh.write(data)
    return path


def _fixtures(folder: str) -> dict[str, str]:
    body = ["Summary", "Team Control Number: 2512345", "We model the problem.",
            "Figure 1: Population", "Figure 1.1: Chapter-style caption",
            "Figure 1.2: Chapter-style caption", "Table 1: Parameters"]
    clean = [PageSpec().lines(body).figure().number(1),
             PageSpec().lines(["Results", "As shown in", "Figure 1. The growth is fast.",
                               "Figure 2: Sensitivity"]).figure().number(2),
             PageSpec().lines(["Report on Use of AI", "1. We used a chatbot for grammar."])
             .number(3)]
    dup = [PageSpec().lines(["Summary", "Figure 1: a", "Fig. 1: b"]).figure().number(1)]
    leak = [PageSpec().lines(["Summary", "姓名：张三", "Contact: jane@example.edu"]).figure()]
    blank = [PageSpec().lines(["Summary"]).figure().number(1), PageSpec().number(2)]
    info_ok = {"Producer": "xdvipdfmx (20220710)", "Creator": "WPS 文字"}
    return {
        "clean": _write(folder, "clean.pdf", build_pdf(clean, info_ok)),
        "dup": _write(folder, "dup.pdf", build_pdf(dup)),
        "leak": _write(folder, "leak.pdf", build_pdf(leak, {"Author": "张三"})),
        "xmp": _write(folder, "xmp.pdf", build_pdf(clean[:1], xmp=xmp_packet(creator="Jane Doe"),
                                                  compress_xmp=True)),
        "blank": _write(folder, "blank.pdf", build_pdf(blank)),
        "broken": _write(folder, "broken.pdf", build_pdf(clean)[:300]),
    }


def _gavel(*argv: str) -> tuple[int, str]:
    from gavelkit.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(argv))
    return rc, out.getvalue() + err.getvalue()


def run(kind: str = "pdfqa") -> int:
    """Run the self-test cases; print one line per case; 0 if all pass."""
    with tempfile.TemporaryDirectory(prefix="gavel-selftest-") as tmp:
        fx = _fixtures(tmp)
        cases: list[tuple[str, Callable[[], bool]]]
        if kind == "pdfqa":
            q = ("award", "pdfqa")
            cases = [
                ("clean paper passes, AI-use report not counted (max 2 of 3 pages)",
                 lambda: _gavel(*q, fx["clean"], "--max-pages", "2", "--anonymous")[0] == 0),
                ("page limit enforced on the body (max 1)",
                 lambda: _gavel(*q, fx["clean"], "--max-pages=1")[0] == 1),
                ("duplicate 'Figure 1:' / 'Fig. 1:' fails",
                 lambda: "PDF-C001" in _gavel(*q, fx["dup"])[1]),
                ("chapter-style 1.1 / 1.2 and prose 'Figure 1.' are not duplicates",
                 lambda: "PDF-C001" not in _gavel(*q, fx["clean"])[1]),
                ("page-1 label 姓名 and an email fail with --anonymous",
                 lambda: _gavel(*q, fx["leak"], "--anonymous")[0] == 1),
                ("CJK Author metadata fails",
                 lambda: "PDF-A002" in _gavel(*q, fx["leak"], "--anonymous")[1]),
                ("XMP-only dc:creator fails",
                 lambda: "PDF-A002" in _gavel(*q, fx["xmp"], "--anonymous")[1]),
                ("xdvipdfmx date and WPS 文字 are not identities",
                 lambda: "PDF-A0" not in _gavel(*q, fx["clean"], "--anonymous")[1]),
                ("page with only its number is blank",
                 lambda: "PDF-B001" in _gavel(*q, fx["blank"])[1]),
                ("truncated PDF exits 2",
                 lambda: _gavel(*q, fx["broken"])[0] == 2),
                ("--max-pages 0 / abc exit 2",
                 lambda: _gavel(*q, fx["clean"], "--max-pages", "0")[0] == 2
                 and _gavel(*q, fx["clean"], "--max-pages", "abc")[0] == 2),
                ("two PDFs exit 2", lambda: _gavel(*q, fx["clean"], fx["dup"])[0] == 2),
            ]
        else:
            def sheet() -> bool:
                from PIL import Image

                out = os.path.join(tmp, "out", "sheet.png")
                rc, _ = _gavel("award", "contact-sheet", fx["blank"], "-o", out, "--dpi", "30")
                if rc != 0 or not os.path.getsize(out):
                    return False
                with Image.open(out) as im:
                    return im.size[0] > 0 and im.format == "PNG"
            cases = [
                ("2-page sheet written into a new folder", sheet),
                ("blank page is framed",
                 lambda: '"2": [' in _gavel("award", "contact-sheet", fx["blank"], "-o",
                                            os.path.join(tmp, "s2.png"), "--format", "json")[1]),
                ("unreadable PDF exits 2",
                 lambda: _gavel("award", "contact-sheet", fx["broken"], "-o",
                                os.path.join(tmp, "s3.png"))[0] == 2),
            ]
        failed = 0
        for name, fn in cases:
            try:
                ok = bool(fn())
            except Exception as exc:  # a self-test must report, not crash
                ok = False
                name += f" ({type(exc).__name__}: {exc})"
            failed += not ok
            print(f"  {'PASS' if ok else 'FAIL'} {name}")
        label = "pdf_qa" if kind == "pdfqa" else "make_contact_sheet"
        print(f"{label} self-test: {'PASS' if not failed else 'FAIL'} "
              f"({len(cases) - failed}/{len(cases)})")
        return 0 if not failed else 1
