"""The contact sheet with QA: render every page once, run the PDF checks on the
rendered text and ink, and frame the pages that have findings.

One function serves both `gavel award contact-sheet` and the run report, so the
report shows exactly what the command would.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gavelkit.award.pdf import contact_sheet, pdfqa
from gavelkit.award.pdf.document import page_extras, read_extras


@dataclass(slots=True)
class FramedSheet:
    sheet: Any  # contact_sheet.Sheet
    qa: Any | None  # pdfqa result, None with qa=False
    flags: dict[int, set[str]] = field(default_factory=dict)


def framed_sheet(pdf: str, output: str, *, dpi: float = 60, cols: int | None = None,
                 jobs: int | None = None, qa: bool = True, anonymous: bool = True,
                 max_pages: int | None = None, summary_sheet: bool = False,
                 progress: Callable[[int, int], None] | None = None) -> FramedSheet:
    """Write the sheet to `output`; raises InputError for an unusable PDF, OSError on write."""
    data = pdfqa.read_pdf_bytes(pdf)
    doc0 = pdfqa.open_pdf(pdf, data)
    try:
        sizes = [doc0.get_page_size(i) for i in range(len(doc0))]
        meta = pdfqa.read_meta(doc0, data, pdf)
        extras = read_extras(doc0)
    finally:
        doc0.close()
    del data
    holder: dict[str, Any] = {}

    def run_qa(tiles: dict[int, contact_sheet.Tile]) -> dict[int, set[str]]:
        info, xmp, pre = meta
        pages = [pdfqa.Page(k, t.text or "", ink=t.ink, blank=t.blank, error=t.error,
                            notes=t.notes or [])
                 for k, t in sorted(tiles.items())]
        doc = pdfqa.PdfDoc(pdf, pages, info, xmp, pre + pdfqa.page_errors(pdf, pages),
                           extras + page_extras(pages))
        res = pdfqa.run_checks(doc, max_pages=max_pages, anonymous=anonymous,
                               summary_sheet=summary_sheet)
        holder["res"] = res
        flags = pdfqa.page_flags(res.findings)
        pg = res.summary["pages"]
        if pg["ai_report"]:
            for k in range(pg["ai_report"]["first"], pg["ai_report"]["last"] + 1):
                flags.setdefault(k, set()).add("AI report")
        if max_pages is not None:
            for k in range(max_pages + 1, pg["body"] + 1):
                flags.setdefault(k, set()).add("over limit")
        holder["flags"] = flags
        return flags

    sheet = contact_sheet.build(pdf, output, sizes, dpi=dpi, cols=cols, jobs=jobs,
                                qa=run_qa if qa else None, progress=progress)
    return FramedSheet(sheet, holder.get("res"), holder.get("flags", {}))
