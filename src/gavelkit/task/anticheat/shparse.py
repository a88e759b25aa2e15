"""A bash parser for agent commands: text -> a small syntax tree the evaluator walks.

Why a parser and not a pattern: what a command touches depends on its structure
(which words are a `for` list, which text is a heredoc body, what runs in a
subshell). Covered: lists (`;`, `&&`, `||`, `&`, newlines), pipelines, subshells,
brace groups, `if`/`while`/`until`/`for`/`case`/`select`, functions, `[[ … ]]`,
`(( … ))`, redirections with here-documents and here-strings, assignments.
Nothing is executed. tree-sitter-bash (MIT) was considered: it needs a compiled
wheel on every judge machine, and its tree would still need this evaluator's word
model; this parser has no dependency and fails closed (text it cannot parse is
reported, never dropped).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gavelkit.task.anticheat.shwords import skip_group, word_end

_OPS = re.compile(r"&&|\|\||;;&|;;|;&|\|&|&>>|&>|[;|&()]")
_REDIR = re.compile(r"(\d{0,2})(>>|>\||>&|<&|<<<|<<-|<<|<>|>|<)")
_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?(\+?=)", re.S)
RESERVED = frozenset({"if", "then", "elif", "else", "fi", "for", "in", "do", "done", "while",
                      "until", "case", "esac", "{", "}", "!", "function", "select", "time"})
MAX_NODES = 20_000


@dataclass(slots=True)
class Tok:
    kind: str                 # word | op | nl | redir
    text: str
    fd: str = ""
    body: str | None = None   # here-document body
    quoted: bool = False      # here-document delimiter was quoted (no expansion)
    pos: int = 0


@dataclass(slots=True)
class Redir:
    op: str
    target: str                # raw word (or here-document body)
    fd: str = ""
    quoted: bool = False


@dataclass(slots=True)
class Simple:
    assigns: list[tuple[str, str, bool]] = field(default_factory=list)  # name, raw, +=
    words: list[str] = field(default_factory=list)                      # raw words
    redirs: list[Redir] = field(default_factory=list)
    pos: int = 0


@dataclass(slots=True)
class Pipeline:
    cmds: list[object]


@dataclass(slots=True)
class Seq:
    items: list[object]         # pipelines and compound nodes, in order


@dataclass(slots=True)
class Sub:
    body: Seq
    subshell: bool              # ( … ) vs { … }
    redirs: list[Redir] = field(default_factory=list)


@dataclass(slots=True)
class Branches:
    """if/elif/else, case, while/until: every branch may run (conditions are unknown)."""

    parts: list[Seq]
    loop: bool = False
    subject: str | None = None    # case WORD
    redirs: list[Redir] = field(default_factory=list)


@dataclass(slots=True)
class For:
    var: str
    words: list[str] | None     # None: "$@"
    body: Seq
    redirs: list[Redir] = field(default_factory=list)


@dataclass(slots=True)
class Func:
    name: str
    body: object


class ParseError(Exception):
    pass


class _Lexer:
    def __init__(self, src: str) -> None:
        self.s = src
        self.i = 0
        self.toks: list[Tok] = []
        self.pending: list[tuple[Tok, str, bool]] = []

    def run(self) -> list[Tok]:
        s, n = self.s, len(self.s)
        while self.i < n:
            c = s[self.i]
            if c in " \t\r":
                self.i += 1
            elif c == "\\" and s.startswith("\n", self.i + 1):
                self.i += 2
            elif c == "\n":
                self.toks.append(Tok("nl", "\n", pos=self.i))
                self.i += 1
                self._heredocs()
            elif c == "#" and (not self.toks or self.i == 0 or s[self.i - 1] in " \t\n;&|()"):
                nl = s.find("\n", self.i)
                self.i = n if nl < 0 else nl
            else:
                self._token()
        self._heredocs()
        return self.toks

    def _token(self) -> None:
        s, i = self.s, self.i
        if s[i] in "<>" and s.startswith("(", i + 1):
            self._word()
            return
        m = _REDIR.match(s, i)
        if m and (m.group(1) == "" or not (i > 0 and (s[i - 1].isalnum()))):
            self.i = m.end()
            self._redir(m.group(2), m.group(1))
            return
        if s.startswith("((", i) and (not self.toks or self.toks[-1].kind != "word"):
            j = skip_group(s, i, "(", ")")
            self.toks.append(Tok("word", "((", pos=i))
            self.toks.append(Tok("word", s[i + 2:max(i + 2, j - 2)], pos=i))
            self.toks.append(Tok("word", "))", pos=i))
            self.i = j
            return
        mo = _OPS.match(s, i)
        op = mo.group(0) if mo else None
        if op in ("&>", "&>>"):
            self.i = i + len(op)
            self._redir(">>" if op == "&>>" else ">", "&")
            return
        if op:
            self.toks.append(Tok("op", op, pos=i))
            self.i = i + len(op)
            return
        self._word()

    def _word(self) -> None:
        j = word_end(self.s, self.i)
        if j == self.i:
            j = self.i + 1
        self.toks.append(Tok("word", self.s[self.i:j], pos=self.i))
        self.i = j

    def _redir(self, op: str, fd: str) -> None:
        tok = Tok("redir", op, fd=fd, pos=self.i)
        self.toks.append(tok)
        if op not in ("<<", "<<-"):
            return
        while self.i < len(self.s) and self.s[self.i] in " \t":
            self.i += 1
        j = word_end(self.s, self.i)
        raw = self.s[self.i:j]
        self.i = j
        delim = re.sub(r"""['"\\]""", "", raw)
        tok.quoted = delim != raw
        self.pending.append((tok, delim, op == "<<-"))

    def _heredocs(self) -> None:
        for tok, delim, strip in self.pending:
            lead = "\t*" if strip else ""
            rx = re.compile("^" + lead + re.escape(delim) + "\r?$", re.M)
            m = rx.search(self.s, self.i)
            body = self.s[self.i:m.start()] if m else self.s[self.i:]
            self.i = len(self.s) if m is None else min(len(self.s), m.end() + 1)
            if strip:
                body = "\n".join(ln.lstrip("\t") for ln in body.split("\n"))
            tok.body = body if not body or body.endswith("\n") else body + "\n"
        self.pending = []


class _Parser:
    def __init__(self, toks: list[Tok]) -> None:
        self.t = toks
        self.k = 0
        self.nodes = 0

    def peek(self) -> Tok | None:
        return self.t[self.k] if self.k < len(self.t) else None

    def at_word(self, *words: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == "word" and tok.text in words

    def at_op(self, *ops: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == "op" and tok.text in ops

    def skip_nl(self) -> None:
        while self.k < len(self.t) and (self.t[self.k].kind == "nl" or (
                self.t[self.k].kind == "op" and self.t[self.k].text in (";", "&"))):
            self.k += 1

    def expect(self, word: str) -> None:
        self.skip_nl()
        if self.at_word(word):
            self.k += 1

    def seq(self, stop: tuple[str, ...] = (), stop_ops: tuple[str, ...] = ()) -> Seq:
        items: list[object] = []
        while self.k < len(self.t):
            self.skip_nl()
            if self.k >= len(self.t) or self.at_word(*stop) or self.at_op(*stop_ops):
                break
            before = self.k
            items.append(self.pipeline())
            if self.at_op("&&", "||"):
                self.k += 1
            if self.k == before:        # a token no rule takes: step over it
                self.k += 1
        return Seq(items)

    def pipeline(self) -> Pipeline:
        if self.at_word("!", "time"):
            self.k += 1
        cmds = [self.command()]
        while self.at_op("|", "|&"):
            self.k += 1
            self.skip_only_nl()
            cmds.append(self.command())
        return Pipeline(cmds)

    def skip_only_nl(self) -> None:
        while self.k < len(self.t) and self.t[self.k].kind == "nl":
            self.k += 1

    def command(self) -> object:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise ParseError(f"more than {MAX_NODES} commands")
        tok = self.peek()
        if tok is None:
            return Simple()
        if tok.kind == "op" and tok.text == "(":
            self.k += 1
            body = self.seq(stop_ops=(")",))
            self.k += 1
            return Sub(body, True, self.redirs())
        if tok.kind == "word":
            compound = _COMPOUND.get(tok.text)
            if compound is not None:
                self.k += 1
                return compound(self)
            if self._is_funcdef():
                return self.funcdef(tok.text)
        return self.simple()

    def _is_funcdef(self) -> bool:
        nxt = self.t[self.k + 1:self.k + 3]
        return len(nxt) == 2 and nxt[0].text == "(" and nxt[1].text == ")" and \
            nxt[0].kind == "op"

    def funcdef(self, name: str) -> Func:
        self.k += 1
        if self._is_funcdef_parens():
            self.k += 2
        self.skip_only_nl()
        return Func(name.removesuffix("()"), self.command())

    def _is_funcdef_parens(self) -> bool:
        return self.at_op("(") and self.k + 1 < len(self.t) and self.t[self.k + 1].text == ")"

    def redirs(self) -> list[Redir]:
        out: list[Redir] = []
        while (tok := self.peek()) is not None and tok.kind == "redir":
            self.k += 1
            out.append(self._redir(tok))
        return out

    def _redir(self, tok: Tok) -> Redir:
        if tok.body is not None or tok.text in ("<<", "<<-"):
            return Redir(tok.text, tok.body or "", tok.fd, tok.quoted)
        nxt = self.peek()
        if nxt is not None and nxt.kind == "word":
            self.k += 1
            return Redir(tok.text, nxt.text, tok.fd)
        return Redir(tok.text, "", tok.fd)

    def simple(self) -> Simple:
        cmd = Simple(pos=self.t[self.k].pos if self.k < len(self.t) else 0)
        while (tok := self.peek()) is not None:
            if tok.kind == "redir":
                self.k += 1
                cmd.redirs.append(self._redir(tok))
                continue
            if tok.kind != "word":
                break
            m = _ASSIGN.match(tok.text) if not cmd.words else None
            if m:
                cmd.assigns.append((m.group(1), tok.text[m.end():], m.group(3) == "+="))
            elif tok.text == "}" and not cmd.words:
                break
            else:
                cmd.words.append(tok.text)
            self.k += 1
        return cmd


def _p_group(p: _Parser) -> Sub:
    body = p.seq(stop=("}",))
    p.expect("}")
    return Sub(body, False, p.redirs())


def _p_if(p: _Parser) -> Branches:
    parts = [p.seq(stop=("then",))]
    p.expect("then")
    while True:
        parts.append(p.seq(stop=("elif", "else", "fi")))
        if p.at_word("elif"):
            p.k += 1
            parts.append(p.seq(stop=("then",)))
            p.expect("then")
            continue
        if p.at_word("else"):
            p.k += 1
            parts.append(p.seq(stop=("fi",)))
        p.expect("fi")
        return Branches(parts, redirs=p.redirs())


def _p_loop(p: _Parser) -> Branches:
    cond = p.seq(stop=("do",))
    p.expect("do")
    body = p.seq(stop=("done",))
    p.expect("done")
    return Branches([cond, body], loop=True, redirs=p.redirs())


def _p_for(p: _Parser) -> object:
    tok = p.peek()
    if tok is not None and tok.text == "((":     # for (( i=0; … )): an arithmetic loop
        p.k += 3
        var, words = "", []
    else:
        var = tok.text if tok is not None else ""
        p.k += 1
        words = None
        p.skip_only_nl()
        if p.at_word("in"):
            p.k += 1
            words = []
            while (t := p.peek()) is not None and t.kind == "word":
                words.append(t.text)
                p.k += 1
    p.expect("do")
    if p.at_word("{"):
        p.k += 1
        body = p.seq(stop=("}",))
        p.expect("}")
    else:
        body = p.seq(stop=("done",))
        p.expect("done")
    return For(var, words, body, p.redirs())


def _p_case(p: _Parser) -> Branches:
    tok = p.peek()
    subject = tok.text if tok is not None else ""
    p.k += 1
    p.expect("in")
    parts: list[Seq] = []
    while p.k < len(p.t):
        p.skip_only_nl()
        if p.at_word("esac"):
            p.k += 1
            break
        while (t := p.peek()) is not None and not (t.kind == "op" and t.text == ")"):
            p.k += 1                                   # the pattern list
        p.k += 1
        parts.append(p.seq(stop=("esac",), stop_ops=(";;", ";&", ";;&")))
        if p.at_op(";;", ";&", ";;&"):
            p.k += 1
    return Branches(parts, subject=subject, redirs=p.redirs())


def _p_function(p: _Parser) -> Func:
    tok = p.peek()
    name = tok.text if tok is not None else ""
    p.k += 1
    if p._is_funcdef_parens():
        p.k += 2
    p.skip_only_nl()
    return Func(name.removesuffix("()"), p.command())


def _p_dbracket(p: _Parser) -> Simple:
    words = ["[["]
    while (t := p.peek()) is not None and not (t.kind == "word" and t.text == "]]"):
        if t.kind in ("word", "op") and t.text not in ("&&", "||", "(", ")", "!"):
            words.append(t.text)
        p.k += 1
    p.k += 1
    return Simple(words=words)


def _p_arith(p: _Parser) -> Simple:
    p.k += 2
    return Simple(words=["(("])


_COMPOUND = {"{": _p_group, "if": _p_if, "while": _p_loop, "until": _p_loop, "for": _p_for,
             "select": _p_for, "case": _p_case, "function": _p_function, "[[": _p_dbracket,
             "((": _p_arith}


def parse(src: str) -> Seq:
    """The syntax tree of a script. Raises ParseError past MAX_NODES commands."""
    return _Parser(_Lexer(src).run()).seq()
