"""Figure and table captions (English and Chinese): found line by line, then checked for
duplicates, order and gaps per series."""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass
from typing import Any

from gavelkit.award.pdf.document import CJK, PdfDoc, tables
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

