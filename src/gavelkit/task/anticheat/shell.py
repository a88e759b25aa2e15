"""A small static shell parser for agent commands: enough to see what a command touches.

Anti-cheat must parse commands, not grep them: `cat "/x/repo-pool/a b.py"`,
`cd /tasks/t && cat oracle/test_atomic.py`, `bash -lc '…'`, `cat $(echo …)` and
heredocs all hide a path from a naive regex. `parse(src)` returns a flat list of
`SimpleCommand`s (argv after quote removal and static expansion, redirections,
heredoc bodies, and the working directory each one runs in). Nothing is executed.

Static expansion rules: `~`/`$HOME` expand to the given home; `VAR=value`
assignments earlier in the same script are remembered; `$(echo X)`,
`$(printf X)`, `$(ls X)`, `$(find X …)`, `$(realpath X)` become X (their output
is a path under X); any other substitution is parsed as a command of its own
and its value is unknown. `cd`/`pushd` inside the script move the working
directory of the commands after them (subshells `( … )` keep their own).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

_OPS = ("&&", "||", ";;", "|&", ";", "|", "&", "\n", "(", ")")
_REDIR = re.compile(r"(\d*|&)(>>|>\||>&|<&|<<<|<<-|<<|<>|>|<)")
_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}|([A-Za-z_][A-Za-z0-9_]*))")
_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.S)
_ASSIGN_SCAN = re.compile(r"(?:^|[;&|\s(])(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)="
                          r"(\"[^\"$`]*\"|'[^']*'|[^\s;&|()$`'\"]+)")
MAX_DEPTH = 8
MAX_LEN = 200_000


@dataclass(slots=True)
class SimpleCommand:
    argv: list[str]
    cwd: str | None
    reads: list[str] = field(default_factory=list)      # `< file`
    writes: list[str] = field(default_factory=list)     # `> file`, `>> file`
    heredoc: str | None = None                           # stdin body (heredoc / here-string)
    glob_args: set[int] = field(default_factory=set)     # argv indexes that were unquoted globs
    piped_from: SimpleCommand | None = None              # previous stage of a pipeline


@dataclass(slots=True)
class _Tok:
    kind: str          # "word" | "op" | "redir"
    text: str
    glob: bool = False
    heredoc: str | None = None


class _Lexer:
    def __init__(self, src: str, env: dict[str, str], home: str, cwd: str | None,
                 subs: list[SimpleCommand], depth: int) -> None:
        self.s = src
        self.i = 0
        self.env = env
        self.home = home
        self.cwd = cwd
        self.subs = subs
        self.depth = depth
        self.pending_heredocs: list[tuple[_Tok, str, bool]] = []
        self.notes: list[str] | None = None

    def tokens(self) -> list[_Tok]:
        out: list[_Tok] = []
        s = self.s
        n = len(s)
        while self.i < n:
            c = s[self.i]
            if c == "\n":
                out.append(_Tok("op", "\n"))
                self.i += 1
                self._read_heredocs()
                continue
            if c in " \t\r":
                self.i += 1
                continue
            if c == "\\" and self.i + 1 < n and s[self.i + 1] == "\n":
                self.i += 2
                continue
            if c == "#":
                while self.i < n and s[self.i] != "\n":
                    self.i += 1
                continue
            m = _REDIR.match(s, self.i)
            if m and (m.group(1) == "" or m.group(1) == "&" or m.group(1).isdigit()):
                op = m.group(2)
                self.i = m.end()
                if op in ("<<", "<<-"):
                    self._skip_ws()
                    delim, _, _quoted = self._word()
                    tok = _Tok("redir", op)
                    out.append(tok)
                    self.pending_heredocs.append((tok, delim, op == "<<-"))
                    continue
                out.append(_Tok("redir", op))
                continue
            op = next((o for o in _OPS if s.startswith(o, self.i)), None)
            if op:
                out.append(_Tok("op", op))
                self.i += len(op)
                continue
            before = self.i
            text, glob, _ = self._word()
            if self.i == before:  # a character no rule consumes: skip it
                self.i += 1
                continue
            out.append(_Tok("word", text, glob))
        return out

    def _skip_ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t":
            self.i += 1

    def _read_heredocs(self) -> None:
        for tok, delim, strip_tabs in self.pending_heredocs:
            lines = []
            while self.i < len(self.s):
                end = self.s.find("\n", self.i)
                line = self.s[self.i:] if end == -1 else self.s[self.i:end]
                self.i = len(self.s) if end == -1 else end + 1
                check = line.lstrip("\t") if strip_tabs else line
                if check == delim:
                    break
                lines.append(line)
            tok.heredoc = "\n".join(lines)
        self.pending_heredocs = []

    def _word(self) -> tuple[str, bool, bool]:
        """Read one word; return (value, has unquoted glob chars, was quoted)."""
        s = self.s
        n = len(s)
        buf: list[str] = []
        glob = False
        quoted = False
        start = self.i
        while self.i < n:
            c = s[self.i]
            if c in " \t\r\n;&|()<>":
                break
            if c == "\\":
                if self.i + 1 < n:
                    buf.append(s[self.i + 1])
                self.i += 2
                quoted = True
                continue
            if c == "'":
                end = s.find("'", self.i + 1)
                end = n if end == -1 else end
                buf.append(s[self.i + 1:end])
                self.i = end + 1
                quoted = True
                continue
            if c == "$" and s.startswith("$'", self.i):
                end = self.i + 2
                while end < n and s[end] != "'":
                    end += 2 if s[end] == "\\" else 1
                raw = s[self.i + 2:min(end, n)]
                try:
                    buf.append(raw.encode("latin-1", "backslashreplace").decode("unicode_escape"))
                except (UnicodeDecodeError, ValueError):
                    buf.append(raw)
                self.i = end + 1
                quoted = True
                continue
            if c == '"':
                self.i += 1
                buf.append(self._dquoted())
                quoted = True
                continue
            if c == "$" or c == "`":
                buf.append(self._expansion())
                continue
            if c == "~" and self.i == start:
                nxt = s[self.i + 1] if self.i + 1 < n else ""
                if nxt in ("", "/") or nxt in " \t\n;&|)":
                    buf.append(self.home)
                    self.i += 1
                    continue
            if c in "*?[":
                glob = True
            buf.append(c)
            self.i += 1
        return "".join(buf), glob, quoted

    def _dquoted(self) -> str:
        s = self.s
        n = len(s)
        buf: list[str] = []
        while self.i < n:
            c = s[self.i]
            if c == '"':
                self.i += 1
                break
            if c == "\\" and self.i + 1 < n and s[self.i + 1] in '"\\$`\n':
                if s[self.i + 1] != "\n":
                    buf.append(s[self.i + 1])
                self.i += 2
                continue
            if c in "$`":
                buf.append(self._expansion())
                continue
            buf.append(c)
            self.i += 1
        return "".join(buf)

    def _matching(self, open_at: int, opener: str, closer: str) -> int:
        """Index of the closer that matches the opener at open_at (quotes respected)."""
        s = self.s
        depth = 0
        i = open_at
        n = len(s)
        while i < n:
            c = s[i]
            if c == "\\":
                i += 2
                continue
            if c == "'" and opener != "`":
                end = s.find("'", i + 1)
                i = n if end == -1 else end + 1
                continue
            if c == opener:
                depth += 1
            elif c == closer:
                depth -= 1
                if depth == 0:
                    return i
            i += 1
        return n

    def _expansion(self) -> str:
        s = self.s
        if s.startswith("$((", self.i):
            end = self._matching(self.i + 1, "(", ")")
            self.i = end + 1
            return "0"
        if s.startswith("$(", self.i) or s[self.i] == "`":
            if s[self.i] == "`":
                end = s.find("`", self.i + 1)
                end = len(s) if end == -1 else end
                inner = s[self.i + 1:end]
            else:
                end = self._matching(self.i + 1, "(", ")")
                inner = s[self.i + 2:end]
            self.i = end + 1
            return self._substitute(inner)
        m = _VAR.match(s, self.i)
        if m:
            name = m.group(1) or m.group(2)
            self.i = m.end()
            if name == "HOME":
                return self.home
            if name == "PWD" and self.cwd:
                return self.cwd
            return self.env.get(name, m.group(0))
        self.i += 1
        return "$"

    def _substitute(self, inner: str) -> str:
        cmds = parse(inner, cwd=self.cwd, home=self.home, env=dict(self.env),
                     _depth=self.depth + 1, notes=self.notes)
        self.subs.extend(cmds)
        if len(cmds) >= 1:
            first = cmds[0]
            prog = posixpath.basename(first.argv[0]) if first.argv else ""
            args = [a for a in first.argv[1:] if not a.startswith("-")]
            if prog in ("echo", "printf", "realpath", "readlink", "dirname", "basename",
                        "ls", "find", "cat") and args:
                if prog in ("ls", "find"):
                    return posixpath.join(args[0], "*")
                if prog == "cat":
                    return "$(cat)"
                return args[0]
        return "$(…)"


def parse(src: str, cwd: str | None = None, home: str = "/root",
          env: dict[str, str] | None = None, _depth: int = 0,
          notes: list[str] | None = None) -> list[SimpleCommand]:
    """Parse a shell script into simple commands (nested ones included, in order).

    What the parser does not follow (substitutions nested deeper than MAX_DEPTH, text
    past MAX_LEN) is appended to `notes`, so the caller can report it: never a silent cut.
    """
    if not src:
        return []
    if _depth > MAX_DEPTH:
        if notes is not None:
            notes.append(f"command substitutions nested deeper than {MAX_DEPTH} levels were "
                         "not followed")
        return []
    if len(src) > MAX_LEN and notes is not None:
        notes.append(f"a shell command of {len(src):,} characters is over the "
                     f"{MAX_LEN:,}-character parse limit; the part after it was not checked")
    src = src[:MAX_LEN]
    env = {} if env is None else env
    for m in _ASSIGN_SCAN.finditer(src):
        env.setdefault(m.group(1), m.group(2).strip("'\""))
    subs: list[SimpleCommand] = []
    lexer = _Lexer(src, env, home, cwd, subs, _depth)
    lexer.notes = notes
    toks = lexer.tokens()
    lexer._read_heredocs()
    out: list[SimpleCommand] = []
    cwd_stack: list[str | None] = []
    cur_cwd = cwd
    cur: SimpleCommand | None = None
    prev_in_pipe: SimpleCommand | None = None
    pending_redir: _Tok | None = None

    def finish() -> None:
        nonlocal cur, cur_cwd
        if cur is None:
            return
        # leading VAR=value words are assignments
        while cur.argv and _ASSIGN.match(cur.argv[0]):
            name, value = _ASSIGN.match(cur.argv[0]).groups()  # type: ignore[union-attr]
            env[name] = value
            cur.argv.pop(0)
            cur.glob_args = {i - 1 for i in cur.glob_args if i > 0}
        if cur.argv or cur.reads or cur.writes or cur.heredoc is not None:
            out.extend(subs)
            subs.clear()
            out.append(cur)
            if cur.argv and cur.argv[0] in ("cd", "pushd"):
                target = next((a for a in cur.argv[1:] if not a.startswith("-")), None)
                cur_cwd = resolve_path(target or home, cur_cwd, home) if (target or home) else cur_cwd
        cur = None

    for tok in toks:
        if pending_redir is not None:
            if tok.kind == "word":
                assert cur is not None
                op = pending_redir.text
                if op in ("<", "<>"):
                    cur.reads.append(tok.text)
                elif op == "<<<":
                    cur.heredoc = tok.text
                elif op in (">&", "<&") and (tok.text.isdigit() or tok.text == "-"):
                    pass
                else:
                    cur.writes.append(tok.text)
                pending_redir = None
                continue
            pending_redir = None
        if tok.kind == "word":
            if cur is None:
                cur = SimpleCommand([], cur_cwd, piped_from=prev_in_pipe)
                prev_in_pipe = None
            if tok.glob:
                cur.glob_args.add(len(cur.argv))
            cur.argv.append(tok.text)
        elif tok.kind == "redir":
            if cur is None:
                cur = SimpleCommand([], cur_cwd, piped_from=prev_in_pipe)
                prev_in_pipe = None
            if tok.text in ("<<", "<<-"):
                cur.heredoc = tok.heredoc or ""
            else:
                pending_redir = tok
        else:  # operator
            op = tok.text
            last = cur
            finish()
            if op in ("|", "|&"):
                prev_in_pipe = last
            else:
                prev_in_pipe = None
            if op == "(":
                cwd_stack.append(cur_cwd)
            elif op == ")" and cwd_stack:
                cur_cwd = cwd_stack.pop()
    finish()
    out.extend(subs)
    return out


_WIN = re.compile(r"^[A-Za-z]:[\\/]")


def resolve_path(word: str, cwd: str | None, home: str = "/root") -> str:
    """Normalise a path word against a working directory (`~`, `..`, Windows drives)."""
    p = word
    if _WIN.match(p) or ("\\" in p and "/" not in p):
        p = p.replace("\\", "/")
    if p == "~" or p.startswith("~/"):
        p = home + p[1:]
    if not p.startswith("/") and not _WIN.match(p):
        if cwd:
            base = cwd.replace("\\", "/") if _WIN.match(cwd) else cwd
            p = posixpath.join(base, p)
        else:
            return posixpath.normpath(p) if p else p
    p = posixpath.normpath(p)
    return "/" + p.lstrip("/") if p.startswith("//") else p
