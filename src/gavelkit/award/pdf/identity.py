"""Anonymity: names, schools, e-mails and team numbers on the pages and in the
document's metadata (Info, XMP)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from gavelkit.award.pdf.document import CJK, EMAIL_RE, PdfDoc, normalise, tables
from gavelkit.core.findings import Finding


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


def _scan_line(s: str, page: int, first: bool, hits: dict[tuple[str, str], _Hit],
               where: str = "") -> None:
    """Identity shapes in one line of text (a body line, a bookmark, a note, a field)."""
    r = _id_res()
    pre = f"{where}: " if where else ""
    m = r["en"].match(s) or r["attrib"].match(s)
    if m:
        value = m.group("value").strip()
        # "Contact: a@b.c" is reported as an email; "Authors: Team 2512345" is fine
        if not EMAIL_RE.fullmatch(value) and _residual(value):
            _add(hits, "PDF-A005", "error", f"{pre}author or identity line", s[:80], page)
    # "[8].数学建模 作者：沈继红 …": a reference entry names the cited book's authors
    bibliographic = bool(re.match(r"\s*\[\d{1,3}\]", s))
    for lm in [] if bibliographic else r["zh"].finditer(s):
        label = lm.group("label")
        value = (lm.group("value") or "").strip()
        colon = lm.group("colon") or ""
        before = s[lm.start() - 1] if lm.start() > 0 else ""
        is_soft = label in r["soft"]
        in_word = bool(before) and bool(re.match(f"[{CJK}]", before))
        if is_soft and in_word:
            continue                 # "商学院": an institution, handled below
        has_value = bool(value) and bool(colon) and not any(
            value.startswith(x) for x in r["labels_all"])
        name_like = bool(re.fullmatch(f"[{CJK}]{{2,4}}", value))
        if has_value and (":" in colon or first or (name_like and not is_soft)):
            _add(hits, "PDF-A005", "error", f"{pre}identity label '{label}' with a value",
                 s[lm.start():lm.end()][:60], page)
        elif len(s) > 12 and (in_word or re.match(f"[{CJK}]{{4,}}", s[lm.end("label"):])):
            continue                 # "排队长度", "队员站位方案,…": part of a sentence
        elif not is_soft and first and not where:
            _add(hits, "PDF-A005", "error",
                 f"identity label '{label}' on the summary page (an identity block?)",
                 label, page)
        elif first or (not is_soft and len(s) <= 12):
            # bare label: on page 1, or a short form-like line on a later page
            _add(hits, "PDF-A006", "warning",
                 f"{pre}mentions '{label}' -- confirm it is problem content, not an "
                 "identity block", label, page)
    if first or r["ack"].search(s):
        at = "" if first else " in an acknowledgement"
        for rx in r["inst"]:
            for im in rx.finditer(s):
                _add(hits, "PDF-A006", "warning",
                     f"{pre}institution-shaped phrase{at} -- confirm it is problem "
                     "content, not an affiliation", im.group(0), page)
    if r["ack"].search(s):
        for rx in r["titles"]:
            for tm in rx.finditer(s):
                _add(hits, "PDF-A006", "warning",
                     f"{pre}acknowledgement names a person -- anonymise it", tm.group(0), page)


def _emails(text: str, page: int, hits: dict[tuple[str, str], _Hit], where: str = "") -> None:
    r = _id_res()
    for m in EMAIL_RE.finditer(text):
        if m.group(0).rsplit(".", 1)[-1].lower() in r["not_tlds"]:
            continue                     # "\\ver@amsmath.sty": a macro, not an address
        what = f"{where}: email address" if where else "email address in the body text"
        _add(hits, "PDF-A004", "error", what, m.group(0), page)


def _hit_findings(path: str, hits: dict[tuple[str, str], _Hit]) -> list[Finding]:
    out = []
    for h in hits.values():
        pages = sorted(h.pages)
        where = f"page {pages[0]}" if len(pages) == 1 else (
            f"pages {', '.join(map(str, pages[:8]))}{' ...' if len(pages) > 8 else ''}")
        if pages == [0]:
            where = "document"
        out.append(Finding(h.code, h.severity,  # type: ignore[arg-type]
                           f"{where}: {h.what}: {h.match!r}", path,
                           data={"page": pages[0], "pages": pages, "match": h.match}))
    return out


def check_body_identity(doc: PdfDoc) -> list[Finding]:
    """Identity leaks in the text of every page; page 1 (the summary sheet) strictest."""
    hits: dict[tuple[str, str], _Hit] = {}
    for pg in doc.pages:
        _emails(pg.text, pg.number, hits)
        for ln in pg.lines:
            s = ln.strip()
            if s:
                _scan_line(s, pg.number, pg.number == 1, hits)
    return _hit_findings(doc.path, hits)


def check_extras(doc: PdfDoc) -> list[Finding]:
    """Identity in bookmarks, annotations, form fields and attachment names.

    A viewer shows all of these next to the paper (the bookmark pane, a sticky
    note's author, a filled-in field, the attachments list), so a name there
    unblinds the paper as surely as one on page 1.
    """
    from gavelkit.award.pdf.names import grade_name

    hits: dict[tuple[str, str], _Hit] = {}
    out: list[Finding] = []
    for ex in doc.extras:
        text = normalise(ex.text).strip()
        if not text:
            continue
        if ex.role == "author":
            g = grade_name(text)
            if EMAIL_RE.search(text):
                _emails(text, ex.page, hits, ex.where)
            elif g.kind == "name":
                out.append(_meta_finding(doc.path, "PDF-A002", "error", ex.where,
                                         f"names a person ({' '.join(g.rest[:4])})", text))
            elif g.kind == "account":
                out.append(_meta_finding(doc.path, "PDF-A003", "warning", ex.where,
                                         f"is an account-like value ({' '.join(g.rest[:4])}) "
                                         "-- confirm it names no one", text))
            continue
        if ex.role == "name":        # "report_by_jane@uni.edu.txt": look at the stem
            text = re.sub(r"\.[A-Za-z0-9]{1,5}$", "", text)
        _emails(text, ex.page, hits, ex.where)
        for ln in text.split("\n"):
            if ln.strip():
                _scan_line(ln.strip(), ex.page, False, hits, ex.where)
        if ex.role == "name":        # an attachment's file name: a person's name in it
            for part in re.split(r"[_\-\s.()]+", text):
                if re.fullmatch(f"[{CJK}]{{2,4}}", part) and grade_name(part).kind == "name":
                    _add(hits, "PDF-A005", "error", f"{ex.where}: file name carries a personal "
                         "name", text, ex.page)
    return out + _hit_findings(doc.path, hits)


_TOKEN = re.compile(rf"[A-Za-z]+|[{CJK}]+")
_VERSION = re.compile(r"\d+(?:[._]\d+)+|\(?\b\d{4,}\b\)?|\d+")


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


def _meta_finding(path: str, code: str, sev: str, src: str, msg: str, value: str) -> Finding:
    if src.startswith("annotation"):
        hint = "delete the note, or clear its author (the commenter's name) and re-export"
    elif "of an embedded" in src:
        hint = ("strip the image's own metadata (e.g. exiftool -all= figure.png, or export it "
                "again without metadata) and rebuild the PDF")
    else:
        hint = ("clear it (e.g. \\hypersetup{pdfauthor={}}, or the document properties of "
                "your editor) and re-export")
    return Finding(code, sev, f"{src} {msg}: {value[:120]!r}",  # type: ignore[arg-type]
                   path, hint=hint, data={"page": 0, "field": src, "match": value[:200]})


def check_metadata(doc: PdfDoc) -> list[Finding]:
    """Identity in the Info dictionary and in XMP (Author/Creator/Producer/Title/...).

    Author, Creator and Producer values are graded by the tool-name model
    (names.grade_name): a personal name fails, an account-like value warns, a tool
    passes. XMP packets of embedded images are reported as theirs, not the document's.
    """
    from gavelkit.award.pdf.names import grade_name

    r = _id_res()
    items: list[tuple[str, str, str]] = [(f"Info {k} metadata", k, v) for k, v in doc.info.items()
                                         if k in ("Title", "Author", "Subject", "Keywords",
                                                  "Creator", "Producer") and v]
    for owner, p, f, v in doc.xmp:
        src = f"XMP ({owner}) {p} metadata of an embedded {owner.split()[0]}" if owner and \
            owner.split()[0] in ("image", "form") else (
                f"XMP ({owner}) {p} metadata" if owner else f"XMP {p} metadata")
        items.append((src, f, v))
    out: list[Finding] = []
    seen: set[tuple[str, str]] = set()

    def add(code: str, sev: str, src: str, msg: str, value: str) -> None:
        if (code, src + value) in seen:
            return
        seen.add((code, src + value))
        f = _meta_finding(doc.path, code, sev, src, msg, value)
        f.data["field"] = src.replace(" metadata", "").split(" of an embedded")[0]
        out.append(f)

    for src, fld, original in items:
        value = normalise(original)
        if EMAIL_RE.search(value):
            add("PDF-A001", "error", src, "contains an email address", original)
            continue
        if fld in ("Author", "Creator", "Producer"):
            g = grade_name(value)
            if g.kind == "name":
                what = "names a person" if fld == "Author" else "contains a personal name"
                add("PDF-A002", "error", src, f"{what} ({' '.join(g.rest[:4])})", original)
            elif g.kind == "account":
                what = ("is an account-like value" if fld == "Author"
                        else "has text that is not a known tool")
                add("PDF-A003", "warning", src, f"{what} ({' '.join(g.rest[:4])}) -- confirm it "
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
