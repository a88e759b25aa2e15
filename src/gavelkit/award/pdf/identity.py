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

