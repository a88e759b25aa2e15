"""Figure and table captions (English and Chinese): found line by line, then checked for
duplicates, order and gaps per series."""

from __future__ import annotations

import functools
import itertools
import os
import re
from dataclasses import dataclass
from typing import Any

from gavelkit.award.pdf.document import CJK, FURNITURE_RE, PdfDoc, normalise, tables
from gavelkit.core.findings import Finding


@dataclass(slots=True)
class Caption:
    series: str          # en_figure | en_table | zh_figure | zh_table
    label: str           # as printed: "Fig.", "Table", "图"
    number: str          # normalised: "4", "1.2", "A.3"
    key: tuple[int, ...]
    page: int
    line: str
    idx: int = 0         # line index on the page
    title: str = ""      # the text after the label and number
    doubled: bool = False  # "Figure 1: Figure 1: ..." -- a typed prefix on a generated one


# "表 1 表 2 整合.xlsx", "图3.png": a file name in an appendix listing, not a caption
# (a line that ends in a file name and has no caption colon)
_FILE = re.compile(r"^[^:：]*\.(?:xlsx?|csv|txt|docx?|m|mat|py|ipynb|json|png|jpe?g|tiff?|pdf|zip|rar)"
                   r"\s*$", re.I)
NUM = r"(?P<num>(?:[A-Z]\.?)?\d+(?:(?:\.|\s?[\-–—]\s?)\d+)*)"   # "Fig.7- 1" too


@dataclass(slots=True)
class _Ctx:
    en: re.Pattern[str]
    zh: re.Pattern[str]
    en_any: re.Pattern[str]
    zh_any: re.Pattern[str]
    label_re: re.Pattern[str]
    labels: dict[str, str]
    cont_words: set[str]
    zh_prose: tuple[str, ...]
    zh_cont: tuple[str, ...]
    zhong_next: tuple[str, ...]
    prose_first: set[str]
    prose_verbs: set[str]


@functools.cache
def _caption_res() -> tuple[re.Pattern[str], re.Pattern[str], dict[str, str], Any]:
    cfg = tables()["captions"]
    labels: dict[str, str] = {}
    for series in ("en_figure", "en_table"):
        for lab in cfg[series]:
            labels[lab.lower()] = series
    en_alts = sorted((re.escape(x) for x in labels), key=len, reverse=True)
    en = re.compile(rf"^\s*(?P<label>{'|'.join(en_alts)})\.?\s*{NUM}(?P<rest>.*)$", re.I)
    zh_labels = {lab: s for s in ("zh_figure", "zh_table") for lab in cfg[s]}
    zh = re.compile(rf"^\s*(?P<label>{'|'.join(map(re.escape, zh_labels))})\s*{NUM}(?P<rest>.*)$")
    labels.update(zh_labels)
    return en, zh, labels, cfg


@functools.cache
def _ctx() -> _Ctx:
    en, zh, labels, cfg = _caption_res()
    en_alts = sorted((re.escape(x) for x in labels if x.isascii()), key=len, reverse=True)
    zh_alts = [re.escape(x) for x in labels if not x.isascii()]
    return _Ctx(
        en, zh,
        re.compile(rf"(?<![A-Za-z])(?P<label>{'|'.join(en_alts)})\.?\s*{NUM}(?P<rest>.*)$", re.I),
        re.compile(rf"(?P<label>{'|'.join(zh_alts)})\s*{NUM}(?P<rest>.*)$"),
        re.compile("|".join(en_alts + zh_alts), re.I),
        labels, {w.lower() for w in cfg["continuation_words"]},
        tuple(x for x in cfg.get("zh_prose_after", []) if not x.startswith("中")),
        tuple(cfg.get("zh_continuation", [])), tuple(cfg.get("zh_zhong_prose_next", [])),
        {w.lower() for w in cfg.get("en_prose_words", [])},
        {w.lower() for w in cfg.get("en_prose_verbs", [])})


def _number_key(num: str) -> tuple[str, tuple[int, ...]]:
    num = re.sub(r"[\-–—]", ".", re.sub(r"\s+", "", num))
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


def _furniture(doc: PdfDoc) -> set[str]:
    """Lines repeated on many pages (running heads and feet), digits masked."""
    n = len(doc.pages)
    if n < 3:
        return set()
    counts: dict[str, int] = {}
    for pg in doc.pages:
        for key in {re.sub(r"\d+", "#", ln.strip()) for ln in pg.lines if ln.strip()}:
            counts[key] = counts.get(key, 0) + 1
    return {k for k, c in counts.items() if c >= max(3, 0.3 * n)}


def find_captions(doc: PdfDoc) -> list[Caption]:
    """Every caption in reading order.

    A caption starts a line, or follows another caption on the same line (two
    figures side by side), or starts a sentence in the middle of a line (PDF text
    may join a caption to the paragraph above). The line before, carried across a
    page break (running heads and page numbers skipped), tells a sentence that
    continues ("…is shown in / figure 4.") from a caption.
    """
    c = _ctx()
    cfg = _caption_res()[3]
    markers = [m.lower() for m in cfg["continued_markers"]]
    list_heads = {re.sub(r"\s+", "", h).lower() for h in cfg["list_headings"]}
    leader = re.compile(r"(?:\.\s?){4,}\s*\d+\s*$|…{2,}\s*\d+\s*$|·{4,}\s*\d+\s*$")
    furniture = _furniture(doc)
    out: list[Caption] = []
    prev = ""
    for pg in doc.pages:
        lines = pg.lines
        top = [re.sub(r"\s+", "", ln).lower() for ln in lines if ln.strip()][:4]
        if any(t in list_heads for t in top):
            prev = ""
            continue
        for idx, ln in enumerate(lines):
            s = ln.strip()
            if not s:
                continue
            found = [] if leader.search(ln) or _FILE.search(ln) else _line_captions(ln, prev, c)
            if not (FURNITURE_RE.fullmatch(s) or re.sub(r"\d+", "#", s) in furniture):
                prev = "" if found else ln     # a caption ends no sentence into the next line
            for series, label, num, text, title, doubled in found:
                if any(m in text.lower() for m in markers):
                    continue
                norm, key = _number_key(num)
                out.append(Caption(series, label, norm, key, pg.number, text.strip()[:120], idx,
                                   title.strip(), doubled))
    return out


_Found = tuple[str, str, str, str, str, bool]   # series, label, number, text, title, doubled


def _line_captions(ln: str, prev: str, c: _Ctx) -> list[_Found]:
    """Captions on one line: at its start, then side by side or after a sentence."""
    first = _match_caption(ln, prev, c)
    found: list[tuple[int, int, str, str, str, bool]] = []   # pos, title start, s, l, n, doubled
    skip_to = 0
    if first is not None:
        m = c.zh.match(ln) or c.en.match(ln)
        assert m is not None
        dbl = _doubled(m.group("rest"), first[0], first[2], c)
        skip_to = m.start("rest") + (dbl or 0)
        found.append((m.start("label"), skip_to, *first, dbl is not None))
    for rx in (c.en_any, c.zh_any):
        for pos in (k.start() for k in c.label_re.finditer(ln)):
            m = rx.match(ln, pos)
            if m is None or pos <= skip_to or not ln[:pos].strip():
                continue
            got = _mid_caption(ln, m, first is not None, c)
            if got is not None:
                found.append((m.start(), m.start("rest"), *got, False))
    found.sort()
    out: list[_Found] = []
    for k, (pos, tstart, series, label, num, dbl) in enumerate(found):
        end = found[k + 1][0] if k + 1 < len(found) else len(ln)
        out.append((series, label, num, ln[pos:end], ln[tstart:end], dbl))
    return out


def _doubled(rest: str, series: str, num: str, c: _Ctx) -> int | None:
    """Length of a typed "label number" right after the generated one: "Figure 1: Figure
    1:", "Figure 5: Figure 6: …" (a number typed into the caption text) or "Figure 5: 图 5:"
    (the other language's label). It is a typed prefix to delete, never a second caption."""
    m = re.match(r"[\s:：.、\-–—]*", rest)
    k = m.end() if m else 0
    again = (c.zh.match(rest[k:]) or c.en.match(rest[k:]))
    if again is None:
        return None
    other = c.labels.get(again.group("label").lower(), c.labels.get(again.group("label")))
    if other is None or other.split("_")[1] != series.split("_")[1]:
        return None                          # "Figure 3: Table 2 …" is no typed prefix
    if not re.match(r"\s*[:：.、\-–—]", again.group("rest")) and again.group("num") != num:
        return None                          # "Figure 5: Figure 6 shows …": a sentence
    return k + again.start("rest")


def _mid_caption(ln: str, m: re.Match[str], line_is_caption: bool,
                 c: _Ctx) -> tuple[str, str, str] | None:
    pre = ln[:m.start()]
    label = m.group("label")
    rest = m.group("rest")
    if label.isascii():
        if label[0].islower() or _prev_word(pre) in c.cont_words:
            return None                              # "as shown in Figure 2:"
        after_sentence = bool(re.search(r"[.!?。;；]\s+$", pre))
        if not (after_sentence or (line_is_caption and re.search(r"\s$", pre))):
            return None
        if not (re.match(r"\s*[:：|]\s*\S|\s+[A-Z(]", rest) or
                (line_is_caption and re.match(r"\s*\.\s+[A-Z]", rest))):
            return None                              # "… Table 1 compared with …"
        return c.labels[label.lower()], label, m.group("num")
    # 图/表 in the middle of a line: after a gap that follows a caption or a title
    if not re.search(r"\s$", pre):
        return None                                  # "如图 3 所示": no gap before 图
    if pre.rstrip().endswith(c.zh_cont):
        return None                                  # "…如 图 3 所示"
    return _match_zh(label, m.group("num"), rest, "", c)


def _match_zh(label: str, num: str, rest: str, prev: str, c: _Ctx) -> tuple[str, str, str] | None:
    series = c.labels[label]
    if rest and not re.match(r"[\s:：.、]|[A-Za-z]{3,}", rest):
        return None                          # "表1给出了", "图1中"; "图 4-3lingo 结果" is one
    if re.match(r"\s*、\s*(?:\d|[图表])", rest):
        return None                          # "表 1、2、3 的格式填入表格": a list of tables
    if re.match(r"\s*[:：、]|\.(?!\d)", rest):
        return series, label, num            # "表 4-2: ..."
    body = rest.strip()
    if body.startswith("中"):
        if len(body) == 1 or body[1:2] in c.zhong_next or re.match(r"中\s*[A-Za-z0-9(（]", body):
            return None                      # "图 1 中的", "表 2 中可以看出"
    elif body.startswith(c.zh_prose):
        return None                          # "图 1 所示"
    p = prev.rstrip()
    if p and p.endswith(c.zh_cont):
        return None                          # "...如 / 图 1 所示"
    return series, label, num


# "Figure 2 varies the amplitude …": a word followed by one of these is a verb, not a title
_DETERMINERS = {"the", "a", "an", "this", "that", "these", "those", "our", "its", "their",
                "each", "all", "how", "what", "whether", "to", "his", "her", "some", "both"}


def _match_caption(ln: str, prev: str, c: _Ctx) -> tuple[str, str, str] | None:
    m = c.zh.match(ln)
    if m:
        return _match_zh(m.group("label"), m.group("num"), m.group("rest"), prev, c)
    m = c.en.match(ln)
    if not m:
        return None
    label = m.group("label")
    if not _en_caption(m.group("rest"), label[0].islower(), _prev_word(prev) in c.cont_words, c):
        return None
    return c.labels[label.lower()], label, m.group("num")


def _en_caption(rest: str, lower: bool, strong_prev: bool, c: _Ctx) -> bool:
    """Is "Figure N" followed by `rest` a caption (lower: "figure"; strong_prev: the line
    before ends in a word that a figure reference continues, "shown in")?"""
    if re.match(r"\s*[:：|]", rest) or re.match(r"\s*(?:[—–]|-\s)", rest):
        after = re.sub(r"^\s*[:：|—–-]\s*", "", rest)
        # "…shown in / Figure 14:" continues a sentence
        return not (strong_prev and (lower or not after.strip()))
    if lower or _refers_to_panel(rest, c):
        return False                         # "figure 4." continuing a sentence
    if re.match(r"\s*\.(?!\d)", rest) or not rest.strip() or \
            re.match(rf"\s+[A-Z{CJK}(“\"']", rest):
        return not strong_prev               # "Figure 8 . The …"
    return not strong_prev and _untitled_words(rest, c)


def _refers_to_panel(rest: str, c: _Ctx) -> bool:
    """ "Figure 8.a shows …", "Figure 4 (a) shows the truncation …": a panel referred to."""
    if re.match(r"\.?[a-z]\s+[a-z]", rest) and not re.match(r"\.?[a-z]\s+of\b", rest):
        return True
    panel = re.match(r"\s*\(\s*[a-z]\s*\)\s*(?:and\s*\(\s*[a-z]\s*\)\s*)?([A-Za-z']+)", rest)
    return bool(panel and (panel.group(1).lower() in c.prose_verbs or
                           panel.group(1).lower() in c.prose_first))


def _untitled_words(rest: str, c: _Ctx) -> bool:
    """ "Figure 4 residual plot of the model" (a caption), not "Figure 3 shows …"."""
    words = re.findall(r"[A-Za-z']+", rest)[:3]
    return bool(re.match(r"\s+(?:[a-z]|\d+-?[A-Za-z]|\d{4}\b)", rest) and words
                and words[0].lower() not in c.prose_first
                and not any(w.lower() in c.prose_verbs for w in words)
                and not (len(words) > 1 and words[1].lower() in _DETERMINERS))


SERIES_NAME = {"en_figure": "Figure", "en_table": "Table", "zh_figure": "图", "zh_table": "表"}


def check_captions(doc: PdfDoc, caps: list[Caption] | None = None) -> tuple[list[Finding], dict[str, Any]]:
    caps = find_captions(doc) if caps is None else caps
    caps = _drop_plot_titles(doc, caps)
    out = [_typed_twice(doc.path, c) for c in caps if c.doubled]
    out += _duplicates(doc.path, _distinct_captions(caps))
    out += _sequence(doc.path, caps)
    counts: dict[str, int] = {}
    for c in caps:
        counts[SERIES_NAME[c.series]] = counts.get(SERIES_NAME[c.series], 0) + 1
    return out, {"captions": counts}


def _typed_twice(path: str, c: Caption) -> Finding:
    return Finding(
        "PDF-C004", "error",
        f"page {c.page}: caption prefix typed twice: {c.line!r}", path,
        hint="the caption command already prints the label and number; delete the "
             "typed prefix (\\caption{Figure 6: ...}, a hand-typed 图 5 in Word), do not "
             "renumber",
        data={"page": c.page, "match": c.line, "series": c.series, "number": c.number})


def _same_caption(last: Caption, c: Caption) -> bool:
    """Is `c` part of the caption `last` with the same number, not a second caption?"""
    if last.line == c.line and 0 <= c.page - last.page <= 1:
        return True     # the same caption on the next page (a continued long table) or twice
        #                 on one page (a flowchart's own title above its caption): one caption
    if last.page != c.page:
        return False
    if 0 < c.idx - last.idx <= 2 and _has_cjk_title(last.line) != _has_cjk_title(c.line):
        return True     # "表 5: 中文标题" then "表 5: English Title": one bilingual caption
    if 0 <= c.idx - last.idx <= 3 and _subpanels(last.title, c.title):
        return True     # "Figure 4: (a) …" then "Figure 4: (b) …": one figure's panels
    # "图 1 两条路径" then "图 1 中路线 I 是…": the text about figure 1
    return c.title.startswith("中") and bool(re.search(r"[，,。是为可与]", c.title))


def _distinct_captions(caps: list[Caption]) -> dict[tuple[str, str], list[Caption]]:
    """(series, number) -> its captions, each caption once (see _same_caption)."""
    by_key: dict[tuple[str, str], list[Caption]] = {}
    last_seen: dict[tuple[str, str], Caption] = {}
    for c in caps:
        key = (c.series, c.number)
        last = last_seen.get(key)
        last_seen[key] = c
        if last is None or not _same_caption(last, c):
            by_key.setdefault(key, []).append(c)
    return by_key


def _duplicates(path: str, by_key: dict[tuple[str, str], list[Caption]]) -> list[Finding]:
    out = []
    for (series, num), group in by_key.items():
        if len(group) < 2:
            continue
        name = f"{SERIES_NAME[series]} {num}"
        pages = [c.page for c in group]
        shown = " | ".join(f"p.{c.page}: {c.line!r}" for c in group[:4])
        out.append(Finding(
            "PDF-C001", "error",
            f"page {group[1].page}: duplicate caption {name} ({len(group)} captions, pages "
            f"{', '.join(map(str, pages))}): {shown}", path,
            hint="renumber the captions (check a hand-set counter or a copied environment)",
            data={"page": group[1].page, "pages": pages, "match": group[1].line,
                  "series": series, "number": num}))
    return out


def _sequence(path: str, caps: list[Caption]) -> list[Finding]:
    """Numbering gaps (PDF-C002) and captions out of order (PDF-C003), series by series."""
    out: list[Finding] = []
    for series in SERIES_NAME:
        seq = [c for c in caps if c.series == series]
        if not seq:
            continue
        out += _gaps(path, series, seq)
        for a, b in itertools.pairwise(seq):
            if b.key < a.key:
                out.append(Finding(
                    "PDF-C003", "warning",
                    f"page {b.page}: {SERIES_NAME[series]} {b.number} comes after "
                    f"{SERIES_NAME[series]} {a.number} (page {a.page})", path,
                    data={"page": b.page, "match": b.line, "after": a.number}))
    return out


def _subpanels(a: str, b: str) -> bool:
    pa = re.match(r"\W*\(([a-z])\)", a)
    pb = re.match(r"\W*\(([a-z])\)", b)
    return bool(pa and pb and pa.group(1) != pb.group(1))


def _drop_plot_titles(doc: PdfDoc, caps: list[Caption]) -> list[Caption]:
    """Drop caption-like lines that are text inside an embedded vector figure.

    A plot included as PDF keeps its own title ("Figure 3: Simulated output") as
    text; PDFium extracts it with the page, so it looks like a second caption. Only
    pages holding a repeated number are opened again (a Form XObject's text is read
    from the page objects), so clean papers pay nothing.
    """
    seen: dict[tuple[str, str], int] = {}
    for c in caps:
        seen[(c.series, c.number)] = seen.get((c.series, c.number), 0) + 1
    pages = sorted({c.page for c in caps if seen[(c.series, c.number)] > 1})
    if not pages or not os.path.isfile(doc.path):
        return caps
    try:
        inside = _form_texts(doc.path, pages)
    except Exception:  # could not re-read: keep every caption (fail closed)
        return caps
    squash = functools.partial(re.sub, r"\s+", "")
    return [c for c in caps if not (inside.get(c.page) and squash(c.line) in inside[c.page])]


def _form_texts(path: str, pages: list[int]) -> dict[int, str]:
    """page -> the text of every Form XObject on it, whitespace removed, joined."""
    import ctypes

    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    out: dict[int, str] = {}
    doc = pdfium.PdfDocument(path)
    try:
        for p in pages:
            page = doc[p - 1]
            tp = page.get_textpage()
            parts = []
            for obj in page.get_objects(max_depth=8):
                if obj.level == 0 or obj.type != raw.FPDF_PAGEOBJ_TEXT:
                    continue
                n = raw.FPDFTextObj_GetText(obj.raw, tp.raw, None, 0)
                if n <= 2:
                    continue
                buf = ctypes.create_string_buffer(n)
                raw.FPDFTextObj_GetText(obj.raw, tp.raw,
                                        ctypes.cast(buf, ctypes.POINTER(raw.FPDF_WCHAR)), n)
                parts.append(buf.raw[:n - 2].decode("utf-16-le", "replace"))
            tp.close()
            page.close()
            out[p] = re.sub(r"\s+", "", normalise("".join(parts)))
    finally:
        doc.close()
    return out


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
