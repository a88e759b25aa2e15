"""Shell words: where a word ends, its parts (quoting, expansions), brace expansion.

Why: a word is not its text. `"/x/repo"-pool`, `/x/{repo,y}-pool`, `$'\\x72'epo` and
`r\\epo` all name `repo-pool` once the shell has removed quotes, expanded braces and
decoded escapes. `word_end` finds a word's extent the way bash does (quotes, `$(…)`,
`${…}`, backquotes nest); `parts` turns its raw text into `Part`s the evaluator
expands; `braces` does brace expansion on the raw text first, as bash does.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

META = frozenset(" \t\r\n;&|()<>")
MAX_BRACE = 64
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]|[@*#?$!-]")
_BRACE_OP = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?]+)(.*)$", re.S)
_SEQ = re.compile(r"^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$")
_ESC = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
        "e": "\x1b", "E": "\x1b", "\\": "\\", "'": "'", '"': '"', "?": "?"}


@dataclass(slots=True, frozen=True)
class Part:
    """One piece of a word. kind: lit | var | cmd | arith | proc | tilde."""

    kind: str
    text: str            # literal text, variable name, or the source of a substitution
    quoted: bool = False
    op: str = ""         # ${name<op>…}: the operator and its word, e.g. ":-/tmp"; proc: < or >


def _skip_quote(s: str, i: int) -> int:
    j = s.find("'", i)
    return len(s) if j < 0 else j + 1


def skip_group(s: str, i: int, opener: str, closer: str) -> int:
    """s[i] is `opener`; the index after its matching `closer` (quotes respected)."""
    depth, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" and opener != "`":
            i = _skip_quote(s, i + 1)
            continue
        if c == '"':
            i = skip_dquote(s, i + 1)
            continue
        if c == "`" and opener != "`":
            i = skip_backquote(s, i + 1)
            continue
        if c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def skip_backquote(s: str, i: int) -> int:
    n = len(s)
    while i < n:
        if s[i] == "\\":
            i += 2
            continue
        if s[i] == "`":
            return i + 1
        i += 1
    return n


def skip_dquote(s: str, i: int) -> int:
    """From just after an opening `"`: the index after its closing quote."""
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        elif c == "`":
            i = skip_backquote(s, i + 1)
        elif c == "$" and i + 1 < n and s[i + 1] in "({":
            i = skip_group(s, i + 1, s[i + 1], ")" if s[i + 1] == "(" else "}")
        else:
            i += 1
    return n


def _skip_ansi(s: str, i: int) -> int:
    n = len(s)
    while i < n and s[i] != "'":
        i += 2 if s[i] == "\\" else 1
    return min(i + 1, n)


def word_end(s: str, i: int) -> int:
    """The end of the word that starts at s[i] (an unquoted metacharacter ends it)."""
    n = len(s)
    while i < n:
        c = s[i]
        if c in META:
            if c in "<>" and i + 1 < n and s[i + 1] == "(":
                i = skip_group(s, i + 1, "(", ")")
                continue
            break
        if c == "\\":
            i += 2
        elif c == "'":
            i = _skip_quote(s, i + 1)
        elif c == '"':
            i = skip_dquote(s, i + 1)
        elif c == "`":
            i = skip_backquote(s, i + 1)
        elif c == "$" and i + 1 < n and s[i + 1] in "({'":
            d = s[i + 1]
            i = _skip_ansi(s, i + 2) if d == "'" else skip_group(
                s, i + 1, d, ")" if d == "(" else "}")
        else:
            i += 1
    return min(i, n)


def ansi_c(raw: str) -> str:
    """Decode the body of a `$'…'` string (also `echo -e` / printf escapes)."""
    out: list[str] = []
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        d = raw[i + 1]
        if d in _ESC:
            out.append(_ESC[d])
            i += 2
        elif d in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[d]
            m = re.match(rf"[0-9A-Fa-f]{{1,{width}}}", raw[i + 2:])
            if m:
                out.append(chr(int(m.group(0), 16)) if int(m.group(0), 16) < 0x110000 else "")
                i += 2 + len(m.group(0))
            else:
                out.append("\\" + d)
                i += 2
        elif d in "01234567":
            m = re.match(r"[0-7]{1,3}", raw[i + 1:])
            assert m is not None
            out.append(chr(int(m.group(0), 8)))
            i += 1 + len(m.group(0))
        elif d == "c" and i + 2 < n:
            out.append(chr(ord(raw[i + 2]) & 0x1F))
            i += 3
        else:
            out.append("\\" + d)
            i += 2
    return "".join(out)


class _PartReader:
    """Turns the raw text of one word into parts (quote removal happens here)."""

    def __init__(self, raw: str) -> None:
        self.s = raw
        self.i = 0
        self.out: list[Part] = []
        self.buf: list[str] = []
        self.quoted = False

    def flush(self) -> None:
        if self.buf:
            self.out.append(Part("lit", "".join(self.buf), self.quoted))
            self.buf = []

    def lit(self, text: str, quoted: bool) -> None:
        if quoted != self.quoted:
            self.flush()
            self.quoted = quoted
        self.buf.append(text)

    def add(self, part: Part) -> None:
        self.flush()
        self.out.append(part)

    def run(self) -> list[Part]:
        s, n = self.s, len(self.s)
        if s.startswith("~"):
            m = re.match(r"~([+-]|[A-Za-z0-9_.-]*)(?=/|$)", s)
            if m:
                self.add(Part("tilde", m.group(1)))
                self.i = m.end()
        while self.i < n:
            c = s[self.i]
            if c == "\\":
                if self.i + 1 < n and s[self.i + 1] != "\n":
                    self.lit(s[self.i + 1], True)
                self.i += 2
            elif c == "'":
                j = _skip_quote(s, self.i + 1)
                self.lit(s[self.i + 1:j - 1] if s[j - 1:j] == "'" else s[self.i + 1:j], True)
                self.i = j
            elif c == '"':
                self.dquoted()
            elif c in "<>" and s.startswith("(", self.i + 1):
                j = skip_group(s, self.i + 1, "(", ")")
                self.add(Part("proc", s[self.i + 2:j - 1], False, c))
                self.i = j
            elif c in "$`":
                self.expansion(False)
            else:
                m = _PLAIN.match(s, self.i)
                j = m.end() if m else self.i + 1
                self.lit(s[self.i:j], False)
                self.i = j
        self.flush()
        return self.out

    def dquoted(self) -> None:
        s, n = self.s, len(self.s)
        self.i += 1
        if s.startswith('"', self.i):
            self.lit("", True)
        while self.i < n:
            c = s[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\" and self.i + 1 < n and s[self.i + 1] in '"\\$`\n':
                if s[self.i + 1] != "\n":
                    self.lit(s[self.i + 1], True)
                self.i += 2
            elif c in "$`":
                self.expansion(True)
            else:
                m = _DQ_PLAIN.match(s, self.i)
                j = m.end() if m else self.i + 1
                self.lit(s[self.i:j], True)
                self.i = j

    def expansion(self, quoted: bool) -> None:
        s, i = self.s, self.i
        if s[i] == "`":
            j = skip_backquote(s, i + 1)
            src = s[i + 1:j - 1] if s[j - 1:j] == "`" else s[i + 1:j]
            self.add(Part("cmd", re.sub(r"\\([\\`$])", r"\1", src), quoted))
            self.i = j
            return
        nxt = s[i + 1:i + 2]
        if s.startswith("$((", i):
            j = skip_group(s, i + 1, "(", ")")
            self.add(Part("arith", s[i + 3:j - 2], quoted))
            self.i = j
        elif nxt == "(":
            j = skip_group(s, i + 1, "(", ")")
            self.add(Part("cmd", s[i + 2:j - 1], quoted))
            self.i = j
        elif nxt == "{":
            j = skip_group(s, i + 1, "{", "}")
            self._brace_var(s[i + 2:j - 1], quoted)
            self.i = j
        elif nxt == "'" and not quoted:
            j = _skip_ansi(s, i + 2)
            self.lit(ansi_c(s[i + 2:j - 1]), True)
            self.i = j
        elif nxt == '"' and not quoted:
            self.i += 1              # $"…" (locale translation) is a plain double quote
        else:
            m = _NAME.match(s, i + 1)
            if m:
                self.add(Part("var", m.group(0), quoted))
                self.i = m.end()
            else:
                self.lit("$", quoted)
                self.i += 1

    def _brace_var(self, body: str, quoted: bool) -> None:
        if body.startswith("#") and len(body) > 1:
            self.add(Part("var", body[1:], quoted, "#len"))
            return
        if body.startswith("!"):
            self.add(Part("var", body[1:], quoted, "!ind"))
            return
        m = _BRACE_OP.match(body)
        if not m:
            self.add(Part("var", body, quoted, "?bad"))
            return
        name, rest = m.groups()
        if rest.startswith("["):           # ${arr[0]}: arrays are read as the variable
            close = rest.find("]")
            rest = rest[close + 1:] if close >= 0 else ""
        self.add(Part("var", name, quoted, rest))


_SPECIAL = re.compile(r"[\\'\"$`<>~]")
_PLAIN = re.compile(r"[^\\'\"$`<>]+")
_DQ_PLAIN = re.compile(r'[^"\\$`]+')


def parts(raw: str) -> list[Part]:
    if _SPECIAL.search(raw) is None:     # most words: nothing to remove or expand
        return [Part("lit", raw, False)]
    return _PartReader(raw).run()


def heredoc_parts(body: str) -> list[Part]:
    """An unquoted here-document body: `$…` and backquotes expand, `\\` escapes only
    `$`, backquote, backslash and newline; quotes are ordinary characters."""
    r = _PartReader(body)
    n = len(body)
    while r.i < n:
        c = body[r.i]
        if c == "\\" and r.i + 1 < n and body[r.i + 1] in "$`\\\n":
            if body[r.i + 1] != "\n":
                r.lit(body[r.i + 1], True)
            r.i += 2
        elif c in "$`":
            r.expansion(True)
        else:
            r.lit(c, True)
            r.i += 1
    r.flush()
    return r.out


def _brace_at(s: str) -> tuple[int, int, list[str]] | None:
    """The first expandable `{a,b}` / `{1..3}` in s: (start, end, alternatives)."""
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            i = _skip_quote(s, i + 1)
            continue
        if c == '"':
            i = skip_dquote(s, i + 1)
            continue
        if c == "$" and i + 1 < n and s[i + 1] in "({":
            i = skip_group(s, i + 1, s[i + 1], ")" if s[i + 1] == "(" else "}")
            continue
        if c == "{":
            alts = _alternatives(s, i)
            if alts is not None:
                return alts
        i += 1
    return None


def _alternatives(s: str, start: int) -> tuple[int, int, list[str]] | None:
    depth, i, n = 0, start, len(s)
    commas: list[int] = []
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            i = _skip_quote(s, i + 1)
            continue
        if c == '"':
            i = skip_dquote(s, i + 1)
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                break
        elif c == "," and depth == 1:
            commas.append(i)
        i += 1
    if i >= n:
        return None
    body = s[start + 1:i]
    if commas:
        cuts = [start, *commas, i]
        return start, i + 1, [s[a + 1:b] for a, b in itertools.pairwise(cuts)]
    m = _SEQ.match(body)
    if not m:
        return None
    return start, i + 1, _sequence(*m.groups())


def _sequence(a: str, b: str, step: str | None) -> list[str]:
    inc = abs(int(step)) if step and int(step) else 1
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
        lo, hi = int(a), int(b)
        rng = range(lo, hi + 1, inc) if lo <= hi else range(lo, hi - 1, -inc)
        return [str(x) for x in rng][:MAX_BRACE]
    if len(a) == 1 and len(b) == 1 and not a.isdigit() and not b.isdigit():
        lo, hi = ord(a), ord(b)
        rng = range(lo, hi + 1, inc) if lo <= hi else range(lo, hi - 1, -inc)
        return [chr(x) for x in rng][:MAX_BRACE]
    return [f"{a}..{b}"]


def braces(raw: str) -> list[str]:
    """Brace expansion of one raw word (before any other expansion, as bash does)."""
    if "{" not in raw:
        return [raw]
    out: list[str] = []
    todo = [raw]
    while todo and len(out) + len(todo) <= MAX_BRACE:
        w = todo.pop(0)
        found = _brace_at(w)
        if found is None:
            out.append(w)
            continue
        a, b, alts = found
        todo[:0] = [w[:a] + alt + w[b:] for alt in alts]
    return out + todo
