"""QA of the compiled contest paper: page count, captions, anonymity, blank pages.

Everything is read with pypdfium2 (pip-installable, no poppler): text of every
page, the Info dictionary, XMP packets (see pdfxmp) and a low-dpi grayscale
render for ink-based blank detection. Checks return Findings; each one names
the page and the matched text in `data` and in its message. Tables (caption
labels, identity labels, producer allow-list, AI-use headings) live in
`gavelkit/data/pdfqa.toml`.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import tomllib
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding

DEFAULT_MAX_PDF_BYTES = 512 * 1024 * 1024
CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
EMAIL_RE = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")


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

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")


@dataclass(slots=True)
class PdfDoc:
    path: str
    pages: list[Page]
    info: dict[str, str]
    xmp: list[tuple[str, str, str]]
    findings: list[Finding] = field(default_factory=list)

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


def read_meta(doc: Any, data: bytes, path: str) -> tuple[dict[str, str], list[tuple[str, str, str]],
                                                      list[Finding]]:
    """Info dictionary, XMP properties, and a warning when the file has no %%EOF."""
    from gavelkit.award.pdfxmp import read_xmp

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
    return PdfDoc(path, pages, info, xmp, findings)


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

def _heading_re(headings: Iterable[str]) -> re.Pattern[str]:
    alts = sorted({re.escape(h).replace("\\ ", r"\s*") for h in headings}, key=len, reverse=True)
    prefix = r"(?:(?:appendix|附录)\s*[A-Z0-9]*\s*[:.\-]?\s*|[A-Z0-9]{1,3}[.)]?\s+|第.{1,3}[章节部分]\s*)?"
    return re.compile(rf"^\s*{prefix}(?:{'|'.join(alts)})\s*[:.]?\s*$", re.I)


def find_ai_report(doc: PdfDoc) -> tuple[int, bool] | None:
    """(first page of the AI-use report, starts at page top?) or None.

    A heading line among the first lines of a page starts the report on that page;
    a heading lower on a page means that page is shared with the body, so the
    report is counted from the next page.
    """
    cfg = tables()["ai_report"]
    rx = _heading_re(cfg["headings"])
    for pg in doc.pages[1:]:
        lines = [ln for ln in pg.lines if ln.strip()]
        for k, ln in enumerate(lines):
            if rx.match(ln):
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

@dataclass(slots=True)
class Caption:
    series: str          # en_figure | en_table | zh_figure | zh_table
    label: str           # as printed: "Fig.", "Table", "图"
    number: str          # normalised: "4", "1.2", "A.3"
    key: tuple[int, ...]
    page: int
    line: str
    idx: int = 0         # line index on the page


NUM = r"(?P<num>(?:[A-Z]\.?)?\d+(?:[.\-–—]\d+)*)"


@functools.cache
def _caption_res() -> tuple[re.Pattern[str], re.Pattern[str], dict[str, str], Any]:
    cfg = tables()["captions"]
    labels: dict[str, str] = {}
    for series in ("en_figure", "en_table"):
        for lab in cfg[series]:
            labels[lab.lower()] = series
    en_alts = sorted((re.escape(x) for x in labels), key=len, reverse=True)
    en = re.compile(rf"^\s*(?P<label>{'|'.join(en_alts)})\s*{NUM}(?P<rest>.*)$", re.I)
    zh_labels = {lab: s for s in ("zh_figure", "zh_table") for lab in cfg[s]}
    zh = re.compile(rf"^\s*(?P<label>{'|'.join(map(re.escape, zh_labels))})\s*{NUM}(?P<rest>.*)$")
    labels.update(zh_labels)
    return en, zh, labels, cfg


def _number_key(num: str) -> tuple[str, tuple[int, ...]]:
    num = re.sub(r"[\-–—]", ".", num)
    letter = ""
    if num[:1].isalpha():
        letter = num[0].upper()
        num = num[1:].lstrip(".")
    parts = tuple(int(p) for p in num.split(".") if p.isdigit())
    norm = (f"{letter}." if letter and len(parts) > 1 else letter) + ".".join(map(str, parts))
    return norm, ((ord(letter) - 64) if letter else 0, *parts)


def _prev_word(prev: str) -> str:
    m = re.search(r"([A-Za-z.']+)\s*$", prev)
    return m.group(1).lower() if m else ""


def find_captions(doc: PdfDoc) -> list[Caption]:
    en, zh, labels, cfg = _caption_res()
    cont_words = {w.lower() for w in cfg["continuation_words"]}
    zh_prose = tuple(cfg.get("zh_prose_after", []))
    zh_cont = tuple(cfg.get("zh_continuation", []))
    markers = [m.lower() for m in cfg["continued_markers"]]
    list_heads = {re.sub(r"\s+", "", h).lower() for h in cfg["list_headings"]}
    leader = re.compile(r"(?:\.\s?){4,}\s*\d+\s*$|…{2,}\s*\d+\s*$|·{4,}\s*\d+\s*$")
    out: list[Caption] = []
    for pg in doc.pages:
        lines = pg.lines
        top = [re.sub(r"\s+", "", ln).lower() for ln in lines if ln.strip()][:4]
        if any(t in list_heads for t in top):
            continue
        prev = ""
        for idx, ln in enumerate(lines):
            if not ln.strip():
                continue
            cap = _match_caption(ln, prev, en, zh, labels, cont_words, zh_prose, zh_cont)
            prev = ln
            if cap is None or leader.search(ln):
                continue
            series, label, num = cap
            rest_low = ln.lower()
            if any(m in rest_low for m in markers):
                continue
            norm, key = _number_key(num)
            out.append(Caption(series, label, norm, key, pg.number, ln.strip()[:120], idx))
    return out


def _match_caption(ln: str, prev: str, en: re.Pattern[str], zh: re.Pattern[str],
                   labels: dict[str, str], cont_words: set[str], zh_prose: tuple[str, ...],
                   zh_cont: tuple[str, ...]) -> tuple[str, str, str] | None:
    m = zh.match(ln)
    if m:
        rest = m.group("rest")
        if rest and not re.match(r"[\s:.、]", rest):
            return None                      # "表1给出了", "图1中"
        if re.match(r"\s*[:、]|\.(?!\d)", rest):
            return labels[m.group("label")], m.group("label"), m.group("num")   # "表 4-2: ..."
        if rest.strip().startswith(zh_prose):
            return None                      # "图 1 所示"
        p = prev.rstrip()
        if p and p.endswith(zh_cont):
            return None                      # "...如 / 图 1 所示"
        return labels[m.group("label")], m.group("label"), m.group("num")
    m = en.match(ln)
    if not m:
        return None
    rest = m.group("rest")
    label = m.group("label")
    series = labels[label.lower()]
    if re.match(r"\s*[:|]", rest) or re.match(r"\s*(?:[—–]|-\s)", rest):
        return series, label, m.group("num")
    strong_prev = _prev_word(prev) in cont_words
    if re.match(r"\.(?!\d)", rest) or not rest.strip() or re.match(rf"\s+[A-Z{CJK}(]", rest):
        return None if strong_prev else (series, label, m.group("num"))
    return None                              # "Figure 3 shows ..."


SERIES_NAME = {"en_figure": "Figure", "en_table": "Table", "zh_figure": "图", "zh_table": "表"}


def check_captions(doc: PdfDoc, caps: list[Caption] | None = None) -> tuple[list[Finding], dict[str, Any]]:
    caps = find_captions(doc) if caps is None else caps
    out: list[Finding] = []
    by_key: dict[tuple[str, str], list[Caption]] = {}
    last_seen: dict[tuple[str, str], Caption] = {}
    for c in caps:
        key = (c.series, c.number)
        last = last_seen.get(key)
        last_seen[key] = c
        if last is not None and last.line == c.line and 0 < c.page - last.page <= 1:
            continue    # the same caption repeated on the next page: a continued long table
        if (last is not None and last.page == c.page and 0 < c.idx - last.idx <= 2
                and _has_cjk_title(last.line) != _has_cjk_title(c.line)):
            continue    # "表 5: 中文标题" then "表 5: English Title": one bilingual caption
        by_key.setdefault(key, []).append(c)
    for (series, num), group in by_key.items():
        if len(group) < 2:
            continue
        name = f"{SERIES_NAME[series]} {num}"
        pages = [c.page for c in group]
        shown = " | ".join(f"p.{c.page}: {c.line!r}" for c in group[:4])
        out.append(Finding(
            "PDF-C001", "error",
            f"page {group[1].page}: duplicate caption {name} ({len(group)} captions, pages "
            f"{', '.join(map(str, pages))}): {shown}", doc.path,
            hint="renumber the captions (check a hand-set counter or a copied environment)",
            data={"page": group[1].page, "pages": pages, "match": group[1].line,
                  "series": series, "number": num}))
    for series in SERIES_NAME:
        seq = [c for c in caps if c.series == series]
        if not seq:
            continue
        out += _gaps(doc.path, series, seq)
        for a, b in itertools.pairwise(seq):
            if b.key < a.key:
                out.append(Finding(
                    "PDF-C003", "warning",
                    f"page {b.page}: {SERIES_NAME[series]} {b.number} comes after "
                    f"{SERIES_NAME[series]} {a.number} (page {a.page})", doc.path,
                    data={"page": b.page, "match": b.line, "after": a.number}))
    counts: dict[str, int] = {}
    for c in caps:
        counts[SERIES_NAME[c.series]] = counts.get(SERIES_NAME[c.series], 0) + 1
    return out, {"captions": counts}


def _has_cjk_title(line: str) -> bool:
    """Does the caption text after its label and number contain CJK?"""
    return bool(re.search(f"[{CJK}]", re.sub(rf"^\s*[{CJK}]?\s*", "", line)))


def _gaps(path: str, series: str, seq: list[Caption]) -> list[Finding]:
    groups: dict[tuple[int, ...], dict[int, Caption]] = {}
    for c in seq:
        if len(c.key) < 2:
            continue
        groups.setdefault(c.key[:-1], {}).setdefault(c.key[-1], c)
    out = []
    for prefix, nums in groups.items():
        have = sorted(nums)
        missing = [k for k in range(1, have[-1]) if k not in nums]
        if not missing:
            continue
        after = next(nums[k] for k in have if k > missing[0])
        head = ".".join(map(str, prefix[1:]))
        letter = chr(prefix[0] + 64) if prefix[0] else ""
        stem = (f"{letter}." if letter and head else letter) + (f"{head}." if head else "")
        label = SERIES_NAME[series]
        miss = ", ".join(f"{stem}{k}" for k in missing[:6]) + (" ..." if len(missing) > 6 else "")
        out.append(Finding(
            "PDF-C002", "warning",
            f"page {after.page}: {label} numbering has a gap: {label} {miss} missing "
            f"(found {', '.join(stem + str(k) for k in have[:12])})", path,
            data={"page": after.page, "match": after.line,
                  "missing": [f"{stem}{k}" for k in missing]}))
    return out


# --------------------------------------------------------------------------- anonymity

@functools.cache
def _id_res() -> dict[str, Any]:
    cfg = tables()["identity"]
    meta = tables()["metadata"]
    hard = sorted(cfg["hard_labels_zh"], key=len, reverse=True)
    soft = sorted(cfg["soft_labels_zh"], key=len, reverse=True)
    zh_label = re.compile(
        rf"(?P<label>{'|'.join(map(re.escape, hard + soft))})"
        r"(?P<colon>\s*[:]\s*|\s+)?(?P<value>[^\s:]{1,40})?")
    en_words = sorted({w for x in cfg["labels_en"] for w in (x, x.upper())}, key=len, reverse=True)
    en_label = re.compile(
        rf"^\s*(?P<label>{'|'.join(map(re.escape, en_words))})\s*:\s*(?P<value>\S.{{0,60}})$")
    attrib = re.compile(
        rf"^\s*(?:{'|'.join(map(re.escape, cfg['attribution_en']))})\s+(?P<value>[A-Z].{{0,60}})$")
    inst = [re.compile(p) for p in cfg["institution_patterns_en"] + cfg["institution_patterns_zh"]]
    titles = [re.compile(p) for p in cfg["title_name_patterns"]]
    ack = re.compile("|".join(map(re.escape, cfg["acknowledgement_words"])), re.I)
    tools = re.compile("|".join(meta["tool_patterns"]), re.I)
    return {"zh": zh_label, "en": en_label, "attrib": attrib, "inst": inst, "titles": titles,
            "ack": ack, "hard": set(hard), "soft": set(soft), "tools": tools,
            "safe": {t.lower() for t in meta["safe_tokens"]},
            "labels_all": set(hard + soft),
            "not_tlds": {t.lower() for t in meta.get("not_email_tlds", [])}}


@dataclass(slots=True)
class _Hit:
    code: str
    severity: str
    what: str            # message stem without the page
    match: str
    pages: list[int]


def _add(hits: dict[tuple[str, str], _Hit], code: str, severity: str, what: str,
         match: str, page: int) -> None:
    key = (code, match)
    hit = hits.get(key)
    if hit is None:
        hits[key] = _Hit(code, severity, what, match, [page])
    else:
        if page not in hit.pages:
            hit.pages.append(page)
        if severity == "error":
            hit.severity = "error"


def check_body_identity(doc: PdfDoc) -> list[Finding]:
    """Identity leaks in the text of every page; page 1 (the summary sheet) strictest."""
    r = _id_res()
    hits: dict[tuple[str, str], _Hit] = {}
    for pg in doc.pages:
        first = pg.number == 1
        for m in EMAIL_RE.finditer(pg.text):
            if m.group(0).rsplit(".", 1)[-1].lower() in r["not_tlds"]:
                continue                     # "\\ver@amsmath.sty": a macro, not an address
            _add(hits, "PDF-A004", "error", "email address in the body text", m.group(0), pg.number)
        for ln in pg.lines:
            s = ln.strip()
            if not s:
                continue
            m = r["en"].match(s) or r["attrib"].match(s)
            if m:
                value = m.group("value").strip()
                # "Contact: a@b.c" is reported as an email; "Authors: Team 2512345" is fine
                if not EMAIL_RE.fullmatch(value) and _residual(value):
                    _add(hits, "PDF-A005", "error", "author or identity line", s[:80], pg.number)
            for lm in r["zh"].finditer(s):
                label = lm.group("label")
                value = (lm.group("value") or "").strip()
                colon = lm.group("colon") or ""
                before = s[lm.start() - 1] if lm.start() > 0 else ""
                is_soft = label in r["soft"]
                if is_soft and before and re.match(f"[{CJK}]", before):
                    continue                 # "商学院": an institution, handled below
                has_value = bool(value) and bool(colon) and not any(
                    value.startswith(x) for x in r["labels_all"])
                name_like = bool(re.fullmatch(f"[{CJK}]{{2,4}}", value))
                if has_value and (":" in colon or first or (name_like and not is_soft)):
                    _add(hits, "PDF-A005", "error", f"identity label '{label}' with a value",
                         s[lm.start():lm.end()][:60], pg.number)
                elif not is_soft and first:
                    _add(hits, "PDF-A005", "error",
                         f"identity label '{label}' on the summary page (an identity block?)",
                         label, pg.number)
                elif first or (not is_soft and len(s) <= 12):
                    # bare label: on page 1, or a short form-like line on a later page
                    _add(hits, "PDF-A006", "warning",
                         f"mentions '{label}' -- confirm it is problem content, not an "
                         "identity block", label, pg.number)
            if first or r["ack"].search(s):
                where = "" if first else " in an acknowledgement"
                for rx in r["inst"]:
                    for im in rx.finditer(s):
                        _add(hits, "PDF-A006", "warning",
                             f"institution-shaped phrase{where} -- confirm it is problem "
                             "content, not an affiliation", im.group(0), pg.number)
            if r["ack"].search(s):
                for rx in r["titles"]:
                    for tm in rx.finditer(s):
                        _add(hits, "PDF-A006", "warning",
                             "acknowledgement names a person -- anonymise it",
                             tm.group(0), pg.number)
    out = []
    for h in hits.values():
        pages = sorted(h.pages)
        where = f"page {pages[0]}" if len(pages) == 1 else (
            f"pages {', '.join(map(str, pages[:8]))}{' ...' if len(pages) > 8 else ''}")
        out.append(Finding(h.code, h.severity,  # type: ignore[arg-type]
                           f"{where}: {h.what}: {h.match!r}", doc.path,
                           data={"page": pages[0], "pages": pages, "match": h.match}))
    return out


_TOKEN = re.compile(rf"[A-Za-z]+|[{CJK}]+")
_VERSION = re.compile(r"\d+(?:[._]\d+)+|\(?\b\d{4,}\b\)?|\d+")
_BIGRAM = re.compile(r"\b([A-Z][a-z]+)\s+([A-Z][a-z]+)\b")


def _residual(value: str) -> list[str]:
    r = _id_res()
    value = r["tools"].sub(" ", value)
    value = re.sub(r"https?://\S+|www\.\S+", " ", value)
    value = _VERSION.sub(" ", value)
    out = []
    for t in _TOKEN.findall(value):
        if re.match(f"[{CJK}]", t) or (len(t) >= 2 and t.lower() not in r["safe"]):
            out.append(t)
    return out


def check_metadata(doc: PdfDoc) -> list[Finding]:
    """Identity in the Info dictionary and in XMP (Author/Creator/Producer/Title/...)."""
    r = _id_res()
    items: list[tuple[str, str, str]] = [(f"Info {k}", k, v) for k, v in doc.info.items()
                                         if k in ("Title", "Author", "Subject", "Keywords",
                                                  "Creator", "Producer") and v]
    items += [(f"XMP {p}", f, v) for p, f, v in doc.xmp]
    out: list[Finding] = []
    seen: set[tuple[str, str]] = set()

    def add(code: str, sev: str, src: str, msg: str, value: str) -> None:
        if (code, src + value) in seen:
            return
        seen.add((code, src + value))
        out.append(Finding(code, sev, f"{src} metadata {msg}: {value[:120]!r}",  # type: ignore[arg-type]
                           doc.path, hint="clear it (e.g. \\hypersetup{pdfauthor={}}, or the "
                           "document properties of your editor) and re-export",
                           data={"page": 0, "field": src, "match": value[:200]}))

    for src, fld, original in items:
        value = normalise(original)
        if EMAIL_RE.search(value):
            add("PDF-A001", "error", src, "contains an email address", original)
            continue
        if fld == "Author":
            res = _residual(value)
            if res:
                add("PDF-A002", "error", src, f"names a person or team ({' '.join(res[:4])})",
                    original)
        elif fld in ("Creator", "Producer"):
            res = _residual(value)
            stripped = r["tools"].sub(" ", value)
            names = [f"{a} {b}" for a, b in _BIGRAM.findall(stripped)
                     if a.lower() not in r["safe"] and b.lower() not in r["safe"]]
            cjk = [t for t in res if re.match(f"[{CJK}]", t)]
            if names or any(2 <= len(t) <= 4 for t in cjk):
                add("PDF-A002", "error", src,
                    f"contains a personal name? ({', '.join((names + cjk)[:3])})", original)
            elif res:
                add("PDF-A003", "warning", src,
                    f"has text that is not a known tool ({' '.join(res[:4])}) -- confirm it "
                    "names no one", original)
        else:
            for lm in r["zh"].finditer(value):
                if lm.group("label") in r["hard"] and lm.group("value"):
                    add("PDF-A002", "error", src, f"carries identity label '{lm.group('label')}'",
                        original)
                    break
            else:
                if any(rx.search(value) for rx in r["inst"]):
                    add("PDF-A003", "warning", src,
                        "names an institution -- confirm it is problem content", original)
    return out


# --------------------------------------------------------------------------- blank / summary

def check_blank(doc: PdfDoc) -> list[Finding]:
    out = []
    for pg in doc.pages:
        if not pg.blank:
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
             "PDF-C003": "caption", "PDF-C002": "caption"}
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
