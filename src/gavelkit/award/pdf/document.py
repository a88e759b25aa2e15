"""A compiled paper read once with pypdfium2 (no poppler): text and ink of every page,
the Info dictionary and XMP packets; unusable PDFs raise InputError (exit 2).

Tables (caption labels, identity labels, producer allow-list, AI-use headings) live in
`gavelkit/data/pdfqa.toml`."""

from __future__ import annotations

import contextlib
import functools
import os
import re
import tomllib
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding

DEFAULT_MAX_PDF_BYTES = 512 * 1024 * 1024
CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
EMAIL_RE = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
# A line that is only page furniture: a page number, "Page 3 of 25", "第 3 页".
FURNITURE_RE = re.compile(r"\s*(?:page\s*)?\d{1,4}\s*(?:(?:of|/)\s*\d{1,4})?\s*"
                          r"|\s*[-–—]\s*\d{1,4}\s*[-–—]\s*|\s*第\s*\d+\s*页.{0,12}", re.I)


@functools.cache
def tables() -> dict[str, Any]:
    text = resources.files("gavelkit.data").joinpath("pdfqa.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


# --------------------------------------------------------------------------- loading

@dataclass(slots=True)
class Page:
    number: int
    text: str
    width: float = 0.0
    height: float = 0.0
    ink: float | None = None          # ink ratio in the body band, None if not rendered
    blank: bool | None = None
    error: str | None = None
    notes: list[tuple[str, str, str]] = field(default_factory=list)  # (where, role, text)

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")


@dataclass(slots=True)
class Extra:
    """Text a viewer shows beside the pages: a bookmark, a note, a field, an attachment."""
    where: str           # "bookmark", "annotation on page 3", "form field 'x' on page 2", ...
    text: str
    page: int = 0
    role: str = "text"   # text | author (a note's author: graded like Author) | name (file)


@dataclass(slots=True)
class PdfDoc:
    path: str
    pages: list[Page]
    info: dict[str, str]
    xmp: list[tuple[str, str, str, str]]      # (owner, property, info field, value)
    findings: list[Finding] = field(default_factory=list)
    extras: list[Extra] = field(default_factory=list)
    embedded: list[Any] = field(default_factory=list)  # embedded.Embedded author values

    @property
    def count(self) -> int:
        return len(self.pages)


def max_pdf_bytes() -> int:
    raw = os.environ.get("GAVEL_MAX_PDF_BYTES")
    return int(raw) if raw and raw.isdigit() else DEFAULT_MAX_PDF_BYTES


def normalise(text: str) -> str:
    """pdfium text -> NFKC, '\\n' line ends, no soft-hyphen markers."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\x02", "").replace("\ufffe", "").replace("\u00ad", "")
    return unicodedata.normalize("NFKC", text)


def read_pdf_bytes(path: str) -> bytes:
    from gavelkit.core.textio import read_bytes

    data = read_bytes(path, limit=max_pdf_bytes())
    if b"%PDF-" not in data[:1024]:
        raise InputError(path, "not a PDF file (no %PDF- header in the first 1 KiB)",
                         code="PDF-F001")
    return data


def open_pdf(path: str, data: bytes | None = None) -> Any:
    """Open with pypdfium2; unreadable, encrypted or page-less files raise InputError."""
    import pypdfium2 as pdfium

    if data is None:
        data = read_pdf_bytes(path)
    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        msg = str(exc)
        if "password" in msg.lower():
            raise InputError(path, "PDF is encrypted with a user password and cannot be "
                             "opened; check the file you will submit, unencrypted",
                             code="PDF-F002") from None
        if "Success" in msg and re.search(rb"/Count\s+0\b", data):
            # PDFium refuses an empty page tree without an error code: the file is fine
            raise InputError(path, "PDF has no pages (its page tree is empty)",
                             code="PDF-F001") from None
        raise InputError(path, f"corrupt or truncated PDF: PDFium cannot open it ({msg})",
                         code="PDF-F001") from None
    if len(doc) == 0:
        doc.close()
        raise InputError(path, "PDF has no pages", code="PDF-F001")
    return doc


def ink_of(img: Any) -> tuple[float, bool]:
    """(ink ratio in the body band, blank?) of a rendered page (PIL image, any mode).

    The background is the most common grey; ink is what differs from it by more
    than `delta`. Top and bottom bands (running head, page number) are ignored,
    thin isolated full-width rules (header/footer lines) are dropped, and ink
    confined to a tiny box (a stray page label) does not count as content.
    """
    cfg = tables()["blank"]
    gray = img if img.mode == "L" else img.convert("L")
    w, h = gray.size
    if w == 0 or h == 0:
        return 0.0, True
    top, bottom = int(h * cfg["band"]), h - int(h * cfg["band"])
    band = gray.crop((0, top, w, max(bottom, top + 1)))
    hist = gray.histogram()
    bg = max(range(256), key=hist.__getitem__)
    delta = int(cfg["delta"])
    mask = band.point([255 if abs(v - bg) > delta else 0 for v in range(256)])
    bh = mask.size[1]
    rows = mask.resize((1, bh), resample=_box()).tobytes()
    for y, v in enumerate(rows):
        if v > 128:
            above = rows[y - 2] if y >= 2 else 0
            below = rows[y + 2] if y + 2 < bh else 0
            if above < 13 and below < 13:
                mask.paste(0, (0, y, w, y + 1))
    inked = mask.histogram()[255]
    ratio = inked / float(w * bh)
    box = mask.getbbox()
    if box is None or ratio < cfg["ink_ratio"]:
        return ratio, True
    small = (box[2] - box[0]) < cfg["small_w"] * w and (box[3] - box[1]) < cfg["small_h"] * h
    return ratio, small


def _box() -> Any:
    from PIL import Image

    return Image.Resampling.BOX


def read_meta(doc: Any, data: bytes, path: str) -> tuple[
        dict[str, str], list[tuple[str, str, str, str]], list[Finding]]:
    """Info dictionary, XMP properties, and a warning when the file has no %%EOF."""
    from gavelkit.award.pdf.xmp import read_xmp

    info = {k: v.strip() for k, v in doc.get_metadata_dict(skip_empty=True).items()
            if isinstance(v, str)}
    try:
        xmp = read_xmp(data)
    except Exception:  # a hostile packet must not stop the QA
        xmp = []
    findings = []
    if b"%%EOF" not in data[-2048:]:
        findings.append(Finding(
            "PDF-F003", "warning", "no %%EOF marker at the end of the file: it may be "
            "truncated (PDFium repaired it); re-export the PDF", path,
            data={"page": 0, "match": ""}))
    return info, xmp, findings


def _embedded(data: bytes) -> list[Any]:
    from gavelkit.award.pdf.embedded import read_embedded

    try:
        return read_embedded(data)
    except Exception:  # a hostile file must not stop the QA
        return []


def page_errors(path: str, pages: list[Page]) -> list[Finding]:
    return [Finding("PDF-F003", "warning", f"page {pg.number}: could not be read completely "
                    f"({pg.error}); the file may be damaged", path,
                    data={"page": pg.number, "match": ""}) for pg in pages if pg.error]


def default_jobs(n: int) -> int:
    """Worker processes for n pages: none for short papers (a fork costs more than it saves)."""
    if n < 16:
        return 1
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cpus, 4, n // 8))


def _read_pages(path: str, indices: list[int], scale: float | None) -> list[Page]:
    """Worker: open the PDF in this process (PDFium is not thread-safe) and read pages."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(path)
    try:
        return [_read_page(doc, i, scale) for i in indices]
    finally:
        doc.close()


def load(path: str, render: bool = True, progress: Callable[[int, int], None] | None = None,
         dpi: int | None = None, jobs: int | None = None) -> PdfDoc:
    """Read text, metadata, XMP and (optionally) the ink of every page.

    Long documents are read by several processes, each opening the file itself.
    """
    data = read_pdf_bytes(path)
    doc = open_pdf(path, data)
    scale = (dpi or tables()["blank"]["dpi"]) / 72.0 if render else None
    n = len(doc)
    jobs = default_jobs(n) if jobs is None else jobs
    try:
        info, xmp, findings = read_meta(doc, data, path)
        extras = read_extras(doc)
        embedded = _embedded(data)
        pages: list[Page] = []
        if jobs <= 1:
            for i in range(n):
                pages.append(_read_page(doc, i, scale))
                if progress:
                    progress(i + 1, n)
    finally:
        doc.close()
    if jobs > 1:
        del data
        pages = _read_parallel(path, n, scale, jobs, progress)
    findings += page_errors(path, pages)
    extras += page_extras(pages)
    return PdfDoc(path, pages, info, xmp, findings, extras, embedded)


def page_extras(pages: list[Page]) -> list[Extra]:
    """The pages' annotation notes as Extras, each (where, text) once: a note and its
    reply often repeat the author."""
    seen: set[tuple[str, str]] = set()
    out: list[Extra] = []
    for pg in pages:
        for w, role, t in pg.notes:
            if (w, t) not in seen:
                seen.add((w, t))
                out.append(Extra(w, t, pg.number, role))
    return out


def read_extras(doc: Any) -> list[Extra]:
    """Bookmark titles and attachment names (page notes are read with each page)."""
    out: list[Extra] = []
    try:
        for item in doc.get_toc(max_depth=8):
            dest = item.get_dest()
            page = (dest.get_index() or 0) + 1 if dest is not None and dest.get_index() \
                is not None else 0
            out.append(Extra("bookmark", item.get_title() or "", page))
    except Exception:  # a broken outline must not stop the QA
        pass
    try:
        for i in range(doc.count_attachments()):
            out.append(Extra("attachment", doc.get_attachment(i).get_name() or "", 0, "name"))
    except Exception:
        pass
    return out


def annot_notes(page: Any, number: int) -> list[tuple[str, str, str]]:
    """(where, role, text) of the page's annotations: note authors and texts, field values."""
    import ctypes

    import pypdfium2.raw as raw

    def value(annot: Any, key: bytes) -> str:
        n = raw.FPDFAnnot_GetStringValue(annot, key, None, 0)
        if n <= 2:
            return ""
        buf = ctypes.create_string_buffer(n)
        raw.FPDFAnnot_GetStringValue(annot, key, ctypes.cast(buf, ctypes.POINTER(raw.FPDF_WCHAR)), n)
        return buf.raw[:n - 2].decode("utf-16-le", "replace")

    out: list[tuple[str, str, str]] = []
    skip = {raw.FPDF_ANNOT_LINK, raw.FPDF_ANNOT_POPUP}
    for i in range(raw.FPDFPage_GetAnnotCount(page.raw)):
        annot = raw.FPDFPage_GetAnnot(page.raw, i)
        if not annot:
            continue
        try:
            kind = raw.FPDFAnnot_GetSubtype(annot)
            if kind in skip:
                continue
            if kind == raw.FPDF_ANNOT_WIDGET:
                name = value(annot, b"T")
                out.append((f"form field '{name[:40]}' on page {number}", "text", value(annot, b"V")))
                continue
            where = f"annotation on page {number}"
            out.append((f"{where} (author)", "author", value(annot, b"T")))
            out.append((where, "text", value(annot, b"Contents")))
        finally:
            raw.FPDFPage_CloseAnnot(annot)
    return [x for x in out if x[2].strip()]


def _read_parallel(path: str, n: int, scale: float | None, jobs: int,
                   progress: Callable[[int, int], None] | None) -> list[Page]:
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed

    size = max(1, min(16, -(-n // (jobs * 3))))
    chunks = [list(range(i, min(n, i + size))) for i in range(0, n, size)]
    method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
    got: dict[int, Page] = {}
    with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context(method)) as ex:
        futures = [ex.submit(_read_pages, path, chunk, scale) for chunk in chunks]
        for fut in as_completed(futures):
            for pg in fut.result():
                got[pg.number] = pg
            if progress:
                progress(len(got), n)
    return [got[k] for k in range(1, n + 1)]


def _read_page(doc: Any, i: int, scale: float | None) -> Page:
    pg = Page(i + 1, "")
    try:
        page = doc[i]
    except Exception as exc:
        pg.error = str(exc) or type(exc).__name__
        return pg
    try:
        pg.width, pg.height = page.get_size()
        with contextlib.suppress(Exception):  # a broken annotation must not stop the page
            pg.notes = annot_notes(page, i + 1)
        try:
            tp = page.get_textpage()
            pg.text = normalise(tp.get_text_range())
            tp.close()
        except Exception as exc:
            pg.error = f"text: {exc}"
        if scale is not None:
            try:
                bitmap = page.render(scale=scale, grayscale=True)
                pg.ink, pg.blank = ink_of(bitmap.to_pil())
                bitmap.close()
            except Exception as exc:
                pg.error = f"render: {exc}"
    finally:
        page.close()
    return pg


# --------------------------------------------------------------------------- page count

