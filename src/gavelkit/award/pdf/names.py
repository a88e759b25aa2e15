"""Is a metadata value a tool, a placeholder account, or someone? (Author, Creator, XMP.)

Real papers carry tool strings in every language Office ships in ("Microsoft® Word
适用于 Microsoft 365", "Microsoft® Word 2010 试用版"), organiser stamps (COMAP), default
accounts (admin, 微软用户, Windows 用户, a vendor's preinstalled account) and the
accounts of sites that re-distribute papers. Reading any leftover word as a name fails
honest papers; reading none misses 张三, "Jason" or the handle "singying". So the value
is first stripped of everything the tool model knows (vendors and products, versions,
language phrases, editions, platforms, URLs), and what is left is graded:

- nothing left, only tool words, the organiser       -> "tool"        (no finding)
- a known placeholder or re-distributor account      -> "placeholder" (no identity)
- only digits (an account number)                    -> "number"      (no identity)
- a personal-name shape (张年崧, Jane Doe)            -> "name"
- anything else: a given name, a nickname, a handle  -> "handle"

Under --anonymous an author-like field (Author, dc:creator, a note's author) that is a
name or a handle names someone; the known values are data (`gavelkit/data/pdfqa.toml`).
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
IDENTITY_KINDS = ("name", "handle")


@dataclass(frozen=True, slots=True)
class Grade:
    kind: str                 # "tool" | "placeholder" | "number" | "name" | "handle"
    rest: tuple[str, ...]     # the words that were not explained by the tool model

    @property
    def names_someone(self) -> bool:
        return self.kind in IDENTITY_KINDS


def _folded(value: str) -> str:
    return " ".join(value.casefold().split()).strip(" .,")


@functools.cache
def _model() -> dict[str, Any]:
    from gavelkit.award.pdf.document import tables

    meta = tables()["metadata"]
    tools = [re.compile(p, re.I) for p in meta["tool_patterns"] + meta.get("tool_phrases", [])]
    accounts = {_folded(a) for a in meta.get("placeholder_accounts", [])
                + meta.get("redistributor_accounts", [])}
    return {
        "tools": tools,
        "safe": {t.lower() for t in meta["safe_tokens"]},
        "orgs": {_folded(o) for o in meta.get("organisations", [])},
        "accounts": accounts,
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


def _latin_name(words: list[str], accounts: set[str]) -> bool:
    """Two to four name-shaped words (Jane Doe, leilei duan, tan sy)."""
    latin = [w for w in words if re.fullmatch(r"[A-Za-z][A-Za-z'\-]*", w)]
    return (2 <= len(latin) <= 4 and len(latin) == len(words)
            and all(len(w) >= 2 and _vowel(w) for w in latin)
            and not any(w.lower() in accounts for w in latin))


def _leftover(value: str, m: dict[str, Any]) -> tuple[str, list[str], list[str]]:
    """(the value less tools, its tokens, the tokens that are not tool or role words)."""
    rest = strip_tools(value)
    tokens = _TOKEN.findall(rest)
    team = any(t.lower() in ("team", "control", "number", "队号", "参赛队号") for t in tokens)
    words = [t for t in tokens if not (t.isascii() and t.lower() in m["safe"])
             and not (team and t.isdigit())]      # "Team 2512345": a control number
    return rest, tokens, words


def grade_name(value: str) -> Grade:
    """Grade a metadata value (see the module docstring)."""
    m = _model()
    if _folded(value) in m["orgs"]:
        return Grade("tool", ())
    rest, tokens, words = _leftover(value, m)
    if tokens and (_folded(" ".join(tokens)) in m["accounts"] or _folded(value) in m["accounts"]
                   or all(t.lower() in m["accounts"] for t in tokens)):
        return Grade("placeholder", tuple(tokens))   # admin, 微软用户, a re-distributor
    if not words or (rest.split() != value.split()
                     and all(w.isdigit() and len(w) <= 3 for w in words)):
        return Grade("tool", ())                   # "ABBYY FineReader PDF 15": a version
    if all(w.isdigit() for w in words):
        return Grade("number", tuple(words))       # 25416: an account number
    if _zh_name(words, m["surnames"]) or _latin_name(words, m["accounts"]):
        return Grade("name", tuple(words))
    return Grade("handle", tuple(words))
