"""Is a metadata value a tool, an account, or a person? (Author, Creator, Producer, XMP.)

Real papers carry tool strings in every language Office ships in ("Microsoft® Word
适用于 Microsoft 365", "Microsoft® Word 2010 试用版"), organiser stamps (COMAP) and
default accounts (admin, 微软用户, a phone-number-like 86187). Reading any leftover
word as a name fails honest papers; reading none misses 张三. So the value is first
stripped of everything the tool model knows (vendors and products, versions,
language phrases, editions, platforms, URLs), and what is left is graded:

- nothing left, or only tool words            -> "tool"    (no finding)
- a personal-name shape                       -> "name"    (error)
- anything else (one word, digits, an account) -> "account" (warning: confirm it names no one)

Tables (patterns, surnames, account words) live in `gavelkit/data/pdfqa.toml`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[A-Za-z]+(?:'[A-Za-z]+)*|[{CJK}]+|\d+")   # "pdftk-java": two tool words
_VERSION = re.compile(r"\b[vV]?\d+(?:[._]\d+)+[a-z]?\b|\(\s*\d{4,}\s*\)|\b\d{4}\b")
_URL = re.compile(r"https?://\S+|www\.\S+|\b[\w.-]+\.(?:com|net|org|cn|de|io)\b\S*", re.I)


@dataclass(frozen=True, slots=True)
class Grade:
    kind: str                 # "tool" | "account" | "name"
    rest: tuple[str, ...]     # the words that were not explained by the tool model


@functools.cache
def _model() -> dict[str, Any]:
    from gavelkit.award.pdf.document import tables

    meta = tables()["metadata"]
    tools = [re.compile(p, re.I) for p in meta["tool_patterns"] + meta.get("tool_phrases", [])]
    return {
        "tools": tools,
        "safe": {t.lower() for t in meta["safe_tokens"]},
        "orgs": {o.lower().strip(" .,") for o in meta.get("organisations", [])},
        "accounts": {a.lower() for a in meta.get("account_words", [])},
        "surnames": sorted(meta.get("surnames_zh", []), key=len, reverse=True),
    }


def strip_tools(value: str) -> str:
    """The value with every known tool pattern, phrase, URL and version removed."""
    m = _model()
    out = _URL.sub(" ", value)
    for rx in m["tools"]:
        out = rx.sub(" ", out)
    return _VERSION.sub(" ", out)


def _vowel(tok: str) -> bool:
    return bool(re.search(r"[aeiouyAEIOUY]", tok))


def _zh_name(tokens: list[str], surnames: list[str]) -> bool:
    cjk = [t for t in tokens if re.fullmatch(f"[{CJK}]+", t)]
    if not cjk or len("".join(cjk)) > 5:
        return False
    joined = "".join(cjk)
    if len(cjk) == 1:
        return 2 <= len(joined) <= 4 and joined.startswith(tuple(surnames))
    # "钰锟 张" / "安 琪儿": a surname token and a given-name token, either order
    return (2 <= len(joined) <= 5 and any(t in surnames for t in cjk)
            and all(1 <= len(t) <= 3 for t in cjk))


def grade_name(value: str) -> Grade:
    """Grade a metadata value (see the module docstring)."""
    m = _model()
    low = " ".join(value.lower().split())
    if low.strip(" .,") in m["orgs"]:
        return Grade("tool", ())
    rest = strip_tools(value)
    tokens = _TOKEN.findall(rest)
    if tokens and (" ".join(t.lower() for t in tokens) in m["accounts"]
                   or all(t.lower() in m["accounts"] for t in tokens)):
        return Grade("account", tuple(tokens))       # admin, 微软用户: a default account
    team = any(t.lower() in ("team", "control", "number", "队号", "参赛队号") for t in tokens)
    words = [t for t in tokens if not (t.isascii() and t.lower() in m["safe"])
             and not (team and t.isdigit())]      # "Team 2512345": a control number
    if not words or (rest.split() != value.split()
                     and all(w.isdigit() and len(w) <= 3 for w in words)):
        return Grade("tool", ())                   # "ABBYY FineReader PDF 15": a version
    if _zh_name(words, m["surnames"]):
        return Grade("name", tuple(words))
    latin = [w for w in words if re.fullmatch(r"[A-Za-z][A-Za-z'\-]*", w)]
    if (len(latin) >= 2 and len(latin) == len(words) and len(latin) <= 4
            and all(len(w) >= 2 and _vowel(w) for w in latin)
            and not any(w.lower() in m["accounts"] for w in latin)):
        return Grade("name", tuple(words))
    return Grade("account", tuple(words))
