"""QA of the compiled contest paper: page count, captions, anonymity, blank pages.

This module runs the checks; document.py reads the PDF, captions.py and identity.py
hold the caption and anonymity checks.

Everything is read with pypdfium2 (pip-installable, no poppler): text of every
page, the Info dictionary, XMP packets (see xmp.py) and a low-dpi grayscale
render for ink-based blank detection. Checks return Findings; each one names
the page and the matched text in `data` and in its message. Tables (caption
labels, identity labels, producer allow-list, AI-use headings) live in
`gavelkit/data/pdfqa.toml`.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gavelkit.award.pdf.captions import check_captions, find_captions
from gavelkit.award.pdf.document import FURNITURE_RE, Page, PdfDoc, ink_of, tables
from gavelkit.award.pdf.document import (  # the loading API, re-exported for callers of pdfqa
    load as load,
)
from gavelkit.award.pdf.document import (
    open_pdf as open_pdf,
)
from gavelkit.award.pdf.document import (
    page_errors as page_errors,
)
from gavelkit.award.pdf.document import (
    read_meta as read_meta,
)
from gavelkit.award.pdf.document import (
    read_pdf_bytes as read_pdf_bytes,
)
from gavelkit.award.pdf.identity import check_body_identity, check_extras, check_metadata
from gavelkit.core.findings import Finding


def _heading_re(headings: Iterable[str], patterns: Iterable[str] = ()) -> re.Pattern[str]:
    alts = sorted({re.escape(h).replace("\\ ", r"\s*") for h in headings}, key=len, reverse=True)
    alts += list(patterns)
    # the prefix is case-sensitive ("C: ", "B. ", "附录A"), so "We report on …" is no prefix
    prefix = (r"(?:(?:appendix|附录)\s*[A-Z0-9]*\s*[:.\-]?\s*|(?-i:[A-Z0-9]{1,3})[.):]?\s+"
              r"|第.{1,3}[章节部分]\s*)?")
    return re.compile(rf"^\s*{prefix}(?:{'|'.join(alts)})\s*[:.]?\s*$", re.I)


@functools.cache
def _ai_re() -> re.Pattern[str]:
    cfg = tables()["ai_report"]
    return _heading_re(cfg["headings"], cfg.get("heading_patterns", []))


def find_ai_report(doc: PdfDoc) -> tuple[int, bool] | None:
    """(first page of the AI-use report, starts at page top?) or None.

    A heading line among the first lines of a page starts the report on that page;
    a heading lower on a page means that page is shared with the body, so the
    report is counted from the next page. Headings are a family, not a list: any
    short line shaped like "Report on (the) Use of AI/Artificial Intelligence (Tools)",
    "AI (Use) Report", "Declaration of AI Use" or 人工智能(工具)使用(情况)报告 counts.
    """
    cfg = tables()["ai_report"]
    rx = _ai_re()
    for pg in doc.pages[1:]:
        lines = [ln for ln in pg.lines if ln.strip()]
        for k, ln in enumerate(lines):
            if len(ln) <= 120 and rx.match(ln):
                return pg.number, k < cfg["top_lines"]
    return None


def check_pages(doc: PdfDoc, max_pages: int | None) -> tuple[list[Finding], dict[str, Any]]:
    out: list[Finding] = []
    total = doc.count
    ai = find_ai_report(doc)
    body = total
    report: dict[str, Any] | None = None
    if ai is not None:
        first = ai[0] if ai[1] else ai[0] + 1
        body = first - 1
        if first <= total:
            report = {"first": first, "last": total, "heading_page": ai[0]}
            out.append(Finding(
                "PDF-P002", "info",
                f"AI-use report found (heading on page {ai[0]}); pages {first}-{total} "
                f"not counted: body {body} of {total} pages", doc.path,
                data={"page": ai[0], "match": "AI-use report", "first": first, "last": total}))
    if max_pages is not None and body > max_pages:
        extra = (f" (AI-use report, pages {report['first']}-{report['last']}, not counted)"
                 if report else "")
        out.append(Finding(
            "PDF-P001", "error",
            f"solution body has {body} pages, over the limit of {max_pages}{extra}",
            doc.path, hint="cut content or move material to the supporting files",
            data={"page": max_pages + 1, "match": "", "body_pages": body,
                  "total_pages": total, "max_pages": max_pages}))
    summary = {"total": total, "body": body, "ai_report": report, "max_pages": max_pages}
    return out, summary


# --------------------------------------------------------------------------- captions

def check_blank(doc: PdfDoc) -> list[Finding]:
    out = []
    marked = _watermark_only(doc)
    for pg in doc.pages:
        if not (pg.blank or pg.number in marked):
            continue
        if pg.number in marked:
            out.append(Finding(
                "PDF-B001", "error",
                f"page {pg.number}: blank page: only running text or a watermark, no content "
                f"(ink {100 * marked[pg.number]:.3f}% of the body area without text)", doc.path,
                hint="remove the page, or restore its content (an appendix cut out of an "
                     "exported copy leaves pages like this)",
                data={"page": pg.number, "match": "", "ink": round(marked[pg.number], 6)}))
            continue
        chars = len(re.sub(r"\s+", "", pg.text))
        note = (f"; its {chars} character(s) of text leave no ink in the body (white, hidden "
                "or header/footer text)") if chars else ""
        out.append(Finding(
            "PDF-B001", "error",
            f"page {pg.number}: blank page (ink {100 * (pg.ink or 0):.3f}% of the body "
            f"area){note}", doc.path,
            hint="remove the page (a stray \\newpage/\\clearpage or an empty float page)",
            data={"page": pg.number, "match": "", "ink": round(pg.ink or 0.0, 6)}))
    return out


def _watermark_only(doc: PdfDoc) -> dict[int, float]:
    """page -> ink without text, for inked pages whose only text repeats on many pages.

    A diagonal watermark or a stamp inks every page, so an otherwise empty page is
    not blank to the ink check. Candidates are pages whose text, once lines that
    repeat on at least a third of the pages (the watermark, running heads), page
    numbers and a stray reference label ("[16]") are set aside, is empty; they are
    rendered again with their text objects removed (also text-only Form XObjects,
    which is how stamps are drawn), and blank ink there means no content.
    """
    n = len(doc.pages)
    if n < 3 or all(pg.ink is None for pg in doc.pages):
        return {}
    cands, textless = _textless_pages(doc, _repeated_lines(doc, n))
    if not (cands or textless) or not os.path.isfile(doc.path):
        return {}
    try:
        return _rendered_without_text(doc.path, n, cands, textless)
    except Exception:  # could not re-render: leave the ink verdict as it was
        return {}


def _rendered_without_text(path: str, n: int, cands: list[int],
                           textless: list[int]) -> dict[int, float]:
    """The candidates' ink without text; the textless pages too when images repeat."""
    stamps = _repeated_images(path, n) if textless else set()
    if stamps:
        cands = sorted(set(cands) | set(textless))
    return _ink_without_text(path, cands, stamps) if cands else {}


def _repeated_lines(doc: PdfDoc, n: int) -> set[str]:
    """Lines on at least a third of the pages (3 at least): a watermark, running heads."""
    counts: dict[str, int] = {}
    for pg in doc.pages:
        for key in {ln.strip() for ln in pg.lines if ln.strip()}:
            counts[key] = counts.get(key, 0) + 1
    return {k for k, c in counts.items() if c >= max(3, n / 3)}


def _own_line(line: str, common: set[str]) -> bool:
    """A line that is the page's own text: not repeated, not a page number or "[16]"."""
    return bool(line) and line not in common and not FURNITURE_RE.fullmatch(line) \
        and not re.fullmatch(r"\[\d{1,3}\]|\(\d{1,3}\)", line)


def _textless_pages(doc: PdfDoc, common: set[str]) -> tuple[list[int], list[int]]:
    """(inked pages whose only text repeats, inked pages with no text at all)."""
    cands, textless = [], []
    for pg in doc.pages:
        if pg.blank or pg.ink is None:
            continue
        if any(_own_line(ln.strip(), common) for ln in pg.lines):
            continue
        if any(ln.strip() in common for ln in pg.lines):
            cands.append(pg.number)
        else:
            textless.append(pg.number)  # inked but no text: a figure page, or an image stamp
    return cands, textless


def _image_key(obj: Any) -> tuple[Any, ...]:
    """Same bytes at the same size: one stamp drawn again (a scan differs page to page)."""
    import hashlib

    data = bytes(obj.get_data(decode_simple=False))
    return (tuple(obj.get_px_size()), hashlib.sha256(data).hexdigest())


def _repeated_images(path: str, n: int) -> set[tuple[Any, ...]]:
    """Images whose exact bytes appear on at least a third of the pages (3 at least): a
    watermark or logo stamped on every page, which makes an empty page look inked."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    seen: dict[tuple[Any, ...], set[int]] = {}
    doc = pdfium.PdfDocument(path)
    try:
        for i in range(len(doc)):
            page = doc[i]
            for obj in page.get_objects(filter=(raw.FPDF_PAGEOBJ_IMAGE,), max_depth=8):
                seen.setdefault(_image_key(obj), set()).add(i)
            page.close()
    finally:
        doc.close()
    return {k for k, pages in seen.items() if len(pages) >= max(3, n / 3)}


def _ink_without_text(path: str, pages: list[int],
                      stamps: set[tuple[Any, ...]] = frozenset()) -> dict[int, float]:
    """page -> ink of those pages rendered without their text (and without the images in
    `stamps`), for the pages where nothing is left."""
    import pypdfium2 as pdfium

    scale = tables()["blank"]["dpi"] / 72.0
    out: dict[int, float] = {}
    doc = pdfium.PdfDocument(path)
    try:
        for p in pages:
            page = doc[p - 1]
            for obj in _text_objects(page, stamps):
                page.remove_obj(obj)
            bitmap = page.render(scale=scale, grayscale=True)
            ink, blank = ink_of(bitmap.to_pil())
            bitmap.close()
            page.close()
            if blank:
                out[p] = ink
    finally:
        doc.close()
    return out


def _text_objects(page: Any, stamps: set[tuple[Any, ...]]) -> list[Any]:
    """The page's top-level objects that are text, a stamp image, or a Form XObject drawn
    only of those (how stamps are drawn)."""
    import pypdfium2.raw as raw

    text_like = (raw.FPDF_PAGEOBJ_TEXT, raw.FPDF_PAGEOBJ_FORM)

    def stamp(o: Any) -> bool:
        return bool(stamps) and o.type == raw.FPDF_PAGEOBJ_IMAGE and _image_key(o) in stamps
    return [obj for obj, kids in _top_level(page)
            if obj.type == raw.FPDF_PAGEOBJ_TEXT or stamp(obj) or (
                obj.type == raw.FPDF_PAGEOBJ_FORM and kids
                and all(k.type in text_like or stamp(k) for k in kids))]


def _top_level(page: Any) -> list[tuple[Any, list[Any]]]:
    """The page's top-level objects, each with the objects nested in it."""
    tops: list[tuple[Any, list[Any]]] = []
    for obj in page.get_objects(max_depth=8):
        if obj.level == 0:
            tops.append((obj, []))
        elif tops:
            tops[-1][1].append(obj)
    return tops


def check_summary(doc: PdfDoc) -> list[Finding]:
    heads = {re.sub(r"\s+", "", h).lower() for h in tables()["summary"]["headings"]}

    def has(pg: Page) -> bool:
        for ln in pg.lines:
            t = re.sub(r"[\s:.]+", "", ln).lower()
            if t in heads or any(t.startswith(h) and len(t) <= len(h) + 2 for h in heads):
                return True
        return False

    if has(doc.pages[0]):
        return []
    where = next((pg.number for pg in doc.pages[1:4] if has(pg)), None)
    extra = f"; the summary heading is on page {where}" if where else \
        "; no Summary/摘要 heading found on pages 1-4"
    return [Finding("PDF-S001", "error", f"page 1: is not the summary sheet{extra}", doc.path,
                    hint="the summary sheet must be the first page of the PDF",
                    data={"page": 1, "match": doc.pages[0].lines[0][:80] if doc.pages[0].text
                          else "", "found_on": where})]


def check_text_layer(doc: PdfDoc) -> list[Finding]:
    if any(pg.text.strip() for pg in doc.pages):
        return []
    return [Finding("PDF-F004", "warning",
                    "no extractable text on any page (scanned, or fonts converted to outlines): "
                    "caption, identity and AI-report checks could not run", doc.path,
                    data={"page": 0, "match": ""})]


# --------------------------------------------------------------------------- whole run

@dataclass(slots=True)
class Result:
    findings: list[Finding]
    summary: dict[str, Any]


def run_checks(doc: PdfDoc, max_pages: int | None = None, anonymous: bool = False,
               summary_sheet: bool = False) -> Result:
    findings = list(doc.findings)
    findings += check_text_layer(doc)
    f, pages = check_pages(doc, max_pages)
    findings += f
    caps = find_captions(doc)
    f, capsum = check_captions(doc, caps)
    findings += f
    if anonymous:
        findings += check_metadata(doc)
        findings += check_body_identity(doc)
        findings += check_extras(doc)
    findings += check_blank(doc)
    if summary_sheet:
        findings += check_summary(doc)
    summary = {
        "pages": pages,
        **capsum,
        "blank_pages": [pg.number for pg in doc.pages if pg.blank],
        "anonymous": anonymous,
        "summary_sheet": summary_sheet,
    }
    return Result(findings, summary)


def page_flags(findings: Iterable[Finding]) -> dict[int, set[str]]:
    """page -> kinds of finding on it (blank, caption, identity, limit), for the contact sheet."""
    kinds = {"PDF-B001": "blank", "PDF-C001": "caption", "PDF-A004": "identity",
             "PDF-A005": "identity", "PDF-A006": "identity?", "PDF-S001": "summary",
             "PDF-C003": "caption", "PDF-C002": "caption", "PDF-C004": "caption",
             "PDF-A002": "identity", "PDF-A003": "identity?"}
    out: dict[int, set[str]] = {}
    for f in findings:
        kind = kinds.get(f.code)
        if kind is None:
            continue
        pages = f.data.get("pages") or [f.data.get("page", 0)]
        for p in pages:
            if p:
                out.setdefault(int(p), set()).add(kind)
    return out
