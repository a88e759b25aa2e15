"""The fast path: skip an action only when evaluating it cannot produce a forbidden name.

Why: a prefilter that looks for forbidden names in the raw text is beaten by every way
of building a name at run time (`repo-p*`, `repo\\-pool`, `$X`, `{a,b}`, base64), and
then the fast scan and `--thorough` disagree. So the question is not "is a forbidden
name here" but "could evaluation make one". The shell evaluator makes text that is
not literally in the action only through these constructs, and each is a trigger:

* expansions: `$…` (variables, `$(…)`, `$'…'`, arithmetic), backquotes and a word's
  leading `~` (the session may have set HOME; `~-` is the previous folder);
* globs (`*`, `?`, `[…]` in a word) and brace expansion (`{a,b}`, `{1..3}`);
* a process substitution `<(…)`, an append `>>` or `tee` (files built in pieces);
* state for later actions: assignments at a command's start, `cd`/`pushd`/`popd`,
  function definitions, `read`/`mapfile`, `export`/`declare`;
* running text: `eval`, `source`/`.`, `xargs`, a shell fed by a pipe or here-document,
  `-c` of a shell, a file the session wrote earlier (by name);
* quote and escape removal only joins adjacent pieces: the anchors are also looked for
  in the text with quotes, backslashes, commas, `+`, brackets and spaces squeezed out;
* a path the resolver normalises (`//`, `/./`, `/../`, quoted or not): a folder that
  holds a place may anchor on parent/name (anchors._holding_anchor).

Outputs of decoders (`base64 -d`, `xxd -r`, `tr`, `rev`, `printf`) matter only when an
interpreter or substitution consumes them, which is a trigger of its own. A working
folder that could make a relative path forbidden analyses every action run there.

Python is evaluated when its text (inline `-c`, a here-document fed to python, a script
the agent wrote and then runs) holds an anchor, squeezed or in the concatenation of
its string literals (forward and backward), or one of the constructs that make text
from other text or hand it to the system (decoders, `chr`, `exec`/`eval`, `getattr`,
`__import__`, slicing with a step, environment, glob/walk/listdir, subprocess, ...).
What that leaves out: code that splits a forbidden name over literals reassembled in
a third order through plain `+`/`join`/`format`. `--thorough` evaluates all of it,
and whatever such code shows the agent is still matched by the fingerprints.

Cost: a single-document transcript is gated as a whole (`prepare`): the action texts
are joined and each pattern runs once over the document, its matches mapped back to
the actions (a match marks every action it overlaps, so the marks are a superset of
what one search per action finds). Only what depends on the session (files it wrote,
here-documents, the working folder) is decided per action, and the marks only that
decision reads (RUNNER, SHRUN: could the text run a written file) are found per text
when it names one. An action whose text holds
no construct of the list above, no redirection and no name of a written file is
*pure*: its hits depend only on its text, folder and workspace, so the analyser may
reuse them (`Need.PURE`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from enum import IntEnum
from functools import lru_cache
from typing import Any

from gavelkit.task.anticheat.gatemarks import (
    Joined,
    Literals,
    mark,
    mark_texts,
    starts_of,
    text_found,
)
from gavelkit.task.anticheat.sheval import MAX_LEN, resolve_path
from gavelkit.task.anticheat.shvalues import RECURSIVE, UNKNOWN
from gavelkit.task.anticheat.trajectory.events import Event

SHELL_DYNAMIC = re.compile(
    r"[$`]|[^\s'\"=]*[*?][^\s'\"]*|\[[^\]\s]+\][^\s]*|\{[^\s{}]*(?:,|\.\.)[^\s{}]*\}|"
    r"<\(|>>|\btee\b|(?:^|[\s=:])~|"
    r"(?:^|[;&|]\s*|\n\s*|\bdo\s+|\bthen\s+)(?:export\s+|local\s+|declare\s+|readonly\s+)?"
    r"[A-Za-z_]\w*\+?=|"
    r"(?:^|[;&|{\n]\s*)(?:function\s+)?[A-Za-z_][\w-]*\s*\(\s*\)\s*\{|"
    r"\b(?:eval|source|xargs|cd|pushd|popd|read|mapfile|readarray|declare|export|typeset|"
    r"alias|exec|perl|ruby|node|php)\b|(?:^|[;&|(]\s*|\n\s*)\.\s|"
    r"\|\s*(?:sudo\s+)?(?:ba|z|da|k|)sh\b|\b(?:ba|z|da|k|)sh\s+(?:-\w*c|<|$)|"
    r"\b(?:ba|z|da|k|)sh\s+-s\b", re.M)
# a path the resolver normalises (`//data///ow`, `/data/./ow`, `/x/../data/ow`), quoted or
# not: it may name a folder whose anchor (parent/name) is not literally in the text
NORMALISED = re.compile(r"(?:^|[^:/])//|/\.\.?/")
PY_WORD = re.compile(r"\b(?:python\d*(?:\.\d+)?|pypy\d*|ipython|pytest)\b")
# what makes text from other text or hands it to the system, and every construct the
# install probe (analyze._PROBE_PY) looks for: code holding one is always evaluated
PY_DYNAMIC_SRC = (
    r"\bchr\b|b64|b32|b85|a85|decodebytes|unhexlify|fromhex|codecs|rot_?13|"
    r"decode\(\s*['\"](?:rot|hex|base|bz2|zlib|uu)|\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|"
    r"\\[0-7]{3}|\bexec\b|\beval\b|\bcompile\s*\(|getattr|__import__|import_module|"
    r"importlib|runpy|\[\s*[-\w]*\s*:\s*[-\w]*\s*:|reversed|translate|maketrans|"
    r"\bglob\b|rglob|expanduser|expandvars|getsource|find_spec|pkg_resources|urlopen|"
    r"marshal|pickle|zlib|distribution\(|metadata|__file__|__path__|getfile|spec_from|"
    r"getsitepackages|sysconfig")
PY_DYNAMIC = re.compile(PY_DYNAMIC_SRC)
_ENV_USE = re.compile(r"environ|getenv|\bhome\s*\(")   # Path.home() reads $HOME
URL_ANCHORS = frozenset({b"http", b"git@", b"ssh://"})
_MODULE = re.compile(r"-m\s+([A-Za-z_][\w.]*)")
# a quoted literal without a newline (backslash escapes kept): one alternative per quote,
# each body an unrolled loop of plain runs and escapes, what `(['"])((?:\\.|(?!\1)[^\\\n])*)\1`
# found (same spans; no lookahead and back-reference per character, ~3x faster)
_LITERAL = re.compile(r"'([^'\\\n]*(?:\\.[^'\\\n]*)*)'|" + r'"([^"\\\n]*(?:\\.[^"\\\n]*)*)"')
SQUEEZE = str.maketrans("", "", "'\"\\ \t\n,+()[]")
SQUEEZE_BYTES = b"'\"\\ \t\n,+()[]"     # bytes.translate deletes at C speed
_GLOB = re.compile(r"[*?\[]")
_HEREDOC_WRITE = re.compile(
    r"(?:^|[;&|]\s*|\n)\s*(?:cat|tee)\s+(?:(?:-a\s+)?>?>?\s*(?P<p1>[^\s<>;&|'\"$`]+)\s*<<-?\s*"
    r"(?P<q1>['\"]?)(?P<d1>\w+)(?P=q1)|<<-?\s*(?P<q2>['\"]?)(?P<d2>\w+)(?P=q2)\s*>>?\s*"
    r"(?P<p2>[^\s<>;&|'\"$`]+))[ \t]*\n")
# builtins and compounds that change the session's state without a trigger above (loop
# variables, positional parameters, `printf -v`, `unset`, patches): never pure
STATEFUL = re.compile(r"\b(?:for|select|set|shift|unset|printf|getopts|let|apply_?patch|"
                      r"applypatch|hash|trap|ulimit|umask|function|while|until)\b")
_SQ = re.compile(r"'[^']*'")
_DQ = re.compile(r'"((?:\\.|[^"\\])*)"')

# a file the session wrote is run (or read as code or requirements) only through one of
# these programs, as a command word with a folder (`./x`, `tools/x`, `"/tmp/x"`), or as
# standard input from a file (REDIR)
_PY_RUNNERS = r"python\d*(?:\.\d+)?|pypy\d*|ipython|pytest|py\.test"
SH_RUNS_SRC = (
    r"\b(?:bash|sh|zsh|dash|ksh|ash|busybox|rbash|source|exec|pip\d*|uv|uvx|make|tox|nox|"
    r"perl|ruby|node|xargs|find|env|nohup|timeout|sudo|command|builtin|time|"
    r"g?awk|mawk|nawk|g?sed|nodejs|php|lua|luajit|tclsh|Rscript|julia|deno|bun|jq)\b|"
    r"(?:^|[;&|(){}!`]|\b(?:then|do|else|elif)\b)[ \t]*[^\s;&|()<>]*/|(?:^|[;&|]\s*)\.\s")
SH_RUNS = re.compile(SH_RUNS_SRC, re.M)
RUNS = re.compile(rf"\b(?:{_PY_RUNNERS})\b|{SH_RUNS_SRC}", re.M)
# what the document-level passes found in one action's text (bits of an int)
ANCHORED, DYNAMIC, PYWORD, PYDYN, REDIR, STATE, RUNNER, SHRUN = 1, 2, 4, 8, 16, 32, 64, 128
# RUNNER and SHRUN not computed yet: `_runs_written` reads them only for a text that names
# a written file (or in a session with a startup file), so they are found per text then,
# with re2 on the UTF-8 bytes (LAZY_RE2, as the document passes did) or `re` (LAZY_RE)
LAZY_RE2, LAZY_RE = 256, 512
LAZY = LAZY_RE2 | LAZY_RE


class Need(IntEnum):
    """The gate's answer for one action."""

    SKIP = 0          # evaluation cannot produce a forbidden name
    EVALUATE = 1
    PURE = 2          # evaluate; the hits depend only on the text, folder and workspace


def unquoted(text: str) -> str:
    """The shell text with quoted parts emptied: quoted glob characters, braces and
    words are literal; only `$` and backquotes keep working inside double quotes."""
    if "'" not in text and '"' not in text:
        return text
    text = _DQ.sub(_dq_kept, text)
    return _SQ.sub("''", text)


def _dq_kept(m: re.Match[str]) -> str:
    """A double-quoted part with only its `$` and backquotes (in their order) kept."""
    body = m.group(1)
    if "$" not in body and "`" not in body:
        return '""'
    return '"' + "".join(c for c in body if c in "$`") + '"'


def literals_joined(code: str) -> str:
    """Every string literal of `code`, in order and in reverse, run together."""
    lits = [sq or dq for sq, dq in _LITERAL.findall(code)]
    return "".join(lits) + "\n" + "/".join(lits) + "\n" + "".join(reversed(lits))


def action_text(ev: Event) -> str:
    """The text of an action the gate looks at (shell text, argv, URL and tool paths)."""
    if ev.argv or ev.url or ev.read or ev.write or ev.listed:
        return _parts_text(ev)
    return ev.command or ""       # what the join of the one part there is gives


def _parts_text(ev: Event) -> str:
    parts = [ev.command or "", " ".join(ev.argv or ()), ev.url or "",
             *ev.read, *ev.write, *ev.listed]
    return "\n".join(p for p in parts if p)


def redirects(shell: str) -> bool:
    """Does unquoted shell text redirect (a write, or stdin from a file)?"""
    return "<" in shell or ">" in shell.replace("2>&1", "")


def stateful(shell: str) -> int:
    """REDIR and STATE marks of unquoted shell text (what keeps an action from being pure)."""
    return (REDIR if ("<" in shell or ">" in shell) and redirects(shell) else 0) | (
        STATE if STATEFUL.search(shell) else 0)


def _compiled(ctx: Any, engine: str | None) -> tuple[Any, Any]:
    """The gate's anchor matchers, compiled once per scan context. Squeezing deletes
    characters, so an anchor in the text is a squeezed anchor in the squeezed text: one
    search covers both; anchors too short once squeezed are looked for in the raw text.
    URLs are judged by what they point at, not by "http" being there."""
    from gavelkit.task.anticheat import prefilter

    key = f"gate:{engine}"
    if key not in ctx.matchers:
        texts = [a.decode("utf-8", "replace") for a in ctx.anchors if a not in URL_ANCHORS]
        squeezed = {t.translate(SQUEEZE) for t in texts}
        ctx.matchers[key] = (_short_anchors(texts, engine), prefilter.Matcher(
            [s.encode() for s in squeezed if len(s) >= 4], engine))
    return ctx.matchers[key]


def _short_anchors(texts: list[str], engine: str | None) -> Literals | None:
    short = [t.encode() for t in texts if len(t.translate(SQUEEZE)) < 4]
    return Literals(short, engine) if short else None


class Gate:
    """Decides per action whether the analyser must see it (see the module docstring)."""

    def __init__(self, ctx: Any, found: Callable[[str], bool], engine: str | None = None) -> None:
        self.ctx = ctx
        self.found = found
        self._short, self._squeezed = _compiled(ctx, engine)
        self._names: dict[str, set[str]] = {}     # written file name -> its paths
        self._cwd: dict[str, bool] = {}
        self.written: set[str] = set()
        self._scripts: dict[tuple[int, int, bool], bool] = ctx.matchers.setdefault(
            "gate:scripts", {})          # shared by the files of one scan
        self._py = _fast(PY_DYNAMIC_SRC)
        self._sh = _fast(SHELL_DYNAMIC.pattern, multiline=True)
        self._py_in, self._sh_in = text_found(self._py), text_found(self._sh)
        self._pre: dict[int, tuple[int, str]] = {}   # id(event) -> flags, text (`prepare`)

    # -- the session's written files
    def learn(self, paths: Iterable[str]) -> None:
        """Files written in this session: a later action naming one is analysed (a
        one-letter name too: `bash x` runs it; such a name is in many texts, which are
        then analysed, the price of a session that writes one)."""
        for p in paths:
            name = p.rsplit("/", 1)[-1] if p else ""
            if name and name not in (".", "..") and UNKNOWN not in name:
                self.written.add(name)
                self._names.setdefault(name, set()).add(p)

    def _bodies(self, name: str, state: Any) -> list[str | None]:
        keys = [k for k in self._names.get(name, ()) if k in state.files] or [
            k for k in state.files if k.rsplit("/", 1)[-1] == name]
        return [state.files[k] for k in keys]

    def _written_matters(self, name: str, state: Any, as_python: bool) -> bool:
        """A written file named in the action: does any text written under that name
        hold something the evaluator could act on? (unknown text always does)"""
        if state is None:
            return True
        for body in self._bodies(name, state):
            if body is None:
                return True
            memo = (hash(body), len(body), as_python)
            hit = self._scripts.get(memo)
            if hit is None:
                if len(self._scripts) >= 4096:
                    self._scripts.clear()
                hit = self._scripts[memo] = self.script_matters(body, as_python)
            if hit or self.env_matters(body, state):
                return True
        return False

    def names_written(self, shell: str, as_python: bool) -> list[str]:
        """The written files' names the action's text mentions (`-m mod` names mod.py)."""
        if not self.written:
            return []
        named = shell + "".join(
            f" {m.group(1).rsplit('.', 1)[-1]}.py {m.group(1)}/__main__.py"
            for m in _MODULE.finditer(shell)) if as_python else shell
        if "make" in shell:          # `make` runs a makefile it does not name
            named += " GNUmakefile makefile Makefile"
        return [n for n in self.written if n in named]

    def cwd_matters(self, cwd: str | None) -> bool:
        """Could a relative path resolved in `cwd` land in a forbidden place?"""
        if not cwd:
            return False
        hit = self._cwd.get(cwd)
        if hit is None:
            hit = UNKNOWN in cwd or RECURSIVE in cwd or bool(_GLOB.search(cwd)) or \
                self.found(cwd) or any(pre.startswith(cwd.rstrip("/") + "/") or pre == cwd
                                       for place in self.ctx.places for pre in place.prefixes) \
                or self._beside(cwd)
            self._cwd[cwd] = hit
        return hit

    def _beside(self, cwd: str) -> bool:
        """Is a folder that holds a place a sibling subtree of `cwd` (`../tasks` from
        `/srv/evalbench/work`, where `tasks` anchors as `evalbench/tasks`)? Only below a
        parent two or more components deep, as holding folders are."""
        parent = cwd.rstrip("/").rsplit("/", 1)[0]
        if parent.count("/") < 2:
            return False
        return any(a.startswith(parent + "/") for a in getattr(self.ctx, "ancestors", ()))

    # -- one text
    def anchored(self, text: str) -> bool:
        enc = text.encode("utf-8", "surrogatepass")
        if self._squeezed.found(enc.translate(None, SQUEEZE_BYTES)):
            return True
        if self._short is not None and self._short.found(enc):
            return True
        return self._url_matters(text)

    def _url_matters(self, text: str) -> bool:
        if "://" in text or "git@" in text:
            from gavelkit.task.anticheat.cmdrules import URL, upstream_url

            return any(upstream_url(self.ctx, u) or u.startswith("file:")
                       for u in URL.findall(text))
        return False

    def python_matters(self, code: str, state: Any = None) -> bool:
        if self._py_in(code) or self.anchored(code):
            return True
        return self._python_rest(code, state)

    def _python_rest(self, code: str, state: Any) -> bool:
        """python_matters past the text's own anchors and constructs: its literals joined,
        and the environment (only the values this session set can be forbidden)."""
        return self.anchored(literals_joined(code)) or self.env_matters(code, state)

    def env_matters(self, code: str, state: Any) -> bool:
        """Code reading the environment: only the values this session set can be forbidden."""
        return state is not None and bool(state.env) and _ENV_USE.search(code) is not None \
            and any(UNKNOWN in v or self.anchored(v) for v in state.env.values())

    def flags_of(self, text: str) -> int:
        """The document-level marks of one text, computed for it alone."""
        shell = unquoted(text)
        return ((ANCHORED if self.anchored(text) else 0)
                | (DYNAMIC if self._sh_in(shell) or NORMALISED.search(text) else 0)
                | (PYWORD if PY_WORD.search(text) else 0)
                | (PYDYN if self._py_in(text) else 0)
                | LAZY_RE | stateful(shell))

    def text_matters(self, text: str, state: Any = None) -> bool:
        return self.decide(text, state) != Need.SKIP

    def decide(self, text: str, state: Any = None, flags: int | None = None) -> Need:
        if len(text) > MAX_LEN:
            return Need.EVALUATE
        if "<<" in text:
            return Need.EVALUATE if self._heredoc_matters(text, state) else Need.SKIP
        if flags is None:
            flags = self.flags_of(text)
        if flags & (ANCHORED | DYNAMIC):
            return self._evaluated(text, flags)
        if self._runs_written(text, flags, state):
            return Need.EVALUATE
        if flags & PYWORD and (flags & PYDYN or self._python_rest(text, state)):
            return Need.EVALUATE
        return Need.SKIP

    def _evaluated(self, text: str, flags: int) -> Need:
        """An anchored or dynamic action: pure unless it depends on the session."""
        if flags & (DYNAMIC | PYWORD | REDIR | STATE) or self.names_written(text, False):
            return Need.EVALUATE
        return Need.PURE

    def _runs_written(self, text: str, flags: int, state: Any) -> bool:
        """Could the action run a file the session wrote, whose text could matter? It is
        only run as Python when nothing in the text could run it as shell (a shell,
        source, a command word with a folder, standard input). Both answers that can be
        True need a written name in the text or a startup file in the session, so
        without either the RUNNER and SHRUN marks are never looked at (LAZY)."""
        startup = _startup_file(state)
        names = self.names_written(text, bool(flags & PYWORD)) \
            if flags & (RUNNER | REDIR | LAZY) else []
        if not names and not startup:
            return False
        flags = _completed(text, flags)
        if not flags & (RUNNER | REDIR):
            return False
        if flags & SHRUN and startup:
            return True             # a shell first runs the session's BASH_ENV / ENV
        only_python = bool(flags & PYWORD) and not flags & (SHRUN | REDIR)
        return any(self._written_matters(n, state, only_python) for n in names)

    def _heredoc_matters(self, text: str, state: Any) -> bool:
        shell = self._strip_heredoc_writes(text, state)
        if shell is not text and self.anchored(shell):
            return True
        if self._runs_written(shell, _run_flags(shell), state):
            return True
        unq = unquoted(shell)
        if self._sh_in(unq) or "<<" in unq or NORMALISED.search(shell):
            return True
        # a body written with `cat > f <<EOF` is data: it matters when f is run, which the
        # written-file check above follows (with the session's environment)
        code = shell if shell is not text else text
        return bool(PY_WORD.search(code)) and self.python_matters(code, state)

    def _strip_heredoc_writes(self, text: str, state: Any) -> str:
        """`cat > f <<'EOF' … EOF`: the body is data, kept for a later run; the command
        around it is what the gate looks at. A shape it does not know stays a trigger."""
        out, pos = [], 0
        # the search goes on after each body: a body is data, not commands to strip
        while (m := _HEREDOC_WRITE.search(text, pos)) is not None:
            end = delimiter_line(text, m.group("d1") or m.group("d2"), m.end())
            if end is None:
                return text
            body = text[m.end():end[0]]
            if not (m.group("q1") or m.group("q2")) and ("$" in body or "`" in body):
                return text
            self._keep_heredoc(m.group("p1") or m.group("p2"), body, state)
            out.append(text[pos:m.start()] + "\ncat > WRITTEN\n")
            pos = end[1]
        out.append(text[pos:])
        return "".join(out)

    def _keep_heredoc(self, path: str | None, body: str, state: Any) -> None:
        if state is not None and path:
            key = resolve_path(path, state.cwd, state.home)
            state.files[key] = body
            self.learn([key])

    # -- a whole document
    def prepare(self, events: Sequence[Event]) -> None:
        """Mark every action of a document in one pass per pattern (see the module
        docstring); actions with a here-document, code or an overlong text are left to
        `needs` alone."""
        evs, texts = [], []
        for ev in events:
            text = action_text(ev) if ev.code is None else ""
            if text and "<<" not in text and len(text) <= MAX_LEN:
                evs.append(ev)
                texts.append(text)
        if not texts:
            return
        self._pre = {id(ev): (f, t) for ev, f, t in zip(evs, self._marks(texts), texts,
                                                         strict=True)}

    def _marks(self, texts: list[str]) -> list[int]:
        flags = [0] * len(texts)
        raws = [t.encode("utf-8", "surrogatepass") for t in texts]
        squeezed = [r.translate(None, SQUEEZE_BYTES) for r in raws]
        mark(self._squeezed.span, b"\n".join(squeezed), starts_of(map(len, squeezed)), flags,
             ANCHORED)
        on = Joined(texts, raws)
        if self._short is not None:
            mark(self._short.span, *on.raw(), flags, ANCHORED)
        for rx, bit in ((_fast(PY_WORD.pattern), PYWORD), (self._py, PYDYN),
                        (_fast(NORMALISED.pattern), DYNAMIC)):
            mark_texts(rx, on, flags, bit)
        self._mark_shells(texts, raws, flags)
        for k, t in enumerate(texts):
            if not flags[k] & ANCHORED and self._url_matters(t):
                flags[k] |= ANCHORED
            flags[k] |= LAZY_RE2
        return flags

    def _mark_shells(self, texts: list[str], raws: list[bytes], flags: list[int]) -> None:
        """The marks of the unquoted texts: constructs, state changes, redirections."""
        shells = [unquoted(t) for t in texts]
        sh_raws = [r if sh is t else sh.encode("utf-8", "surrogatepass")
                   for r, sh, t in zip(raws, shells, texts, strict=True)]
        on = Joined(shells, sh_raws)
        mark_texts(self._sh, on, flags, DYNAMIC)
        mark_texts(_fast(STATEFUL.pattern), on, flags, STATE)
        for k, sh in enumerate(shells):
            if ("<" in sh or ">" in sh) and redirects(sh):
                flags[k] |= REDIR

    def needs(self, ev: Event, cwd: str | None, state: Any) -> Need:
        flags, text = self._pre.pop(id(ev), (None, None))
        if self.cwd_matters(cwd):
            return Need.EVALUATE
        if ev.code is not None:
            return Need.EVALUATE if self.python_matters(ev.code) else Need.SKIP
        if flags is not None and not flags & (ANCHORED | DYNAMIC | PYWORD):
            # `decide` for a prepared text (short, no here-document) with none of these
            # marks: only a written file it could run can make it matter
            return Need.EVALUATE if self._runs_written(text, flags, state) else Need.SKIP
        need = self.decide(text if text is not None else action_text(ev), state, flags)
        if need == Need.PURE and not _pure_event(ev, state):
            return Need.EVALUATE
        return need

    def script_matters(self, body: str, as_python: bool = False) -> bool:
        """A file the agent wrote, now run (by python, or else by a shell): is it worth
        evaluating?"""
        return len(body) > MAX_LEN or self.python_matters(body) or (
            not as_python and self._sh_in(unquoted(body)))


def delimiter_line(text: str, word: str, start: int) -> tuple[int, int] | None:
    """(start, end) of the first line at or after `start` that ends a here-document
    opened with `word`: tabs, the word, then only blanks (`<<-` allows the tabs). The
    same span as `re.search(rf"^\\t*{word}[ \\t]*$", text[start:], re.M)` found: a line
    holds at most one occurrence that follows only tabs, and the occurrences come in
    the lines' order, so the first occurrence that passes is on the first such line."""
    i = text.find(word, start)
    while i != -1:
        line = text.rfind("\n", 0, i) + 1
        eol = text.find("\n", i)
        eol = len(text) if eol == -1 else eol
        if line >= start and text[line:i].strip("\t") == "" and \
                text[i + len(word):eol].strip(" \t") == "":
            return line, eol
        i = text.find(word, i + 1)
    return None


def _run_flags(shell: str) -> int:
    """The marks `_runs_written` reads, for one text (RUNNER and SHRUN when it asks)."""
    return (PYWORD if PY_WORD.search(shell) else 0) | (REDIR if "<" in shell else 0) | LAZY_RE


def _startup_file(state: Any) -> bool:
    """Does the session set a file a non-interactive shell runs first (BASH_ENV, ENV)?"""
    return state is not None and ("BASH_ENV" in state.env or "ENV" in state.env)


def _completed(text: str, flags: int) -> int:
    """The flags with RUNNER and SHRUN found, where they were left LAZY."""
    if not flags & LAZY:
        return flags
    return (flags & ~LAZY) | _run_bits(text, bool(flags & LAZY_RE2))


def _run_bits(text: str, fast: bool) -> int:
    """RUNNER and SHRUN of one text: with re2 on its UTF-8 bytes where the document
    passes ran them (`fast`), else with `re`."""
    if fast:
        return (RUNNER if text_found(_fast(RUNS.pattern, True))(text) else 0) | (
            SHRUN if text_found(_fast(SH_RUNS_SRC, True))(text) else 0)
    return (RUNNER if RUNS.search(text) else 0) | (SHRUN if SH_RUNS.search(text) else 0)


def _pure_event(ev: Event, state: Any) -> bool:
    """Only a shell command alone (no tool paths, no content) in a session without
    functions can be pure: a function's body may run under any word."""
    return bool(ev.command) and ev.content is None and not (
        ev.argv or ev.url or ev.read or ev.write or ev.listed or getattr(state, "funcs", None))


@lru_cache(maxsize=8)
def _fast(pattern: str, multiline: bool = False) -> Any:
    """The pattern compiled with re2 when it is importable (once per process)."""
    try:
        import re2
    except ImportError:
        return re.compile(pattern, re.M if multiline else 0)
    opts = re2.Options()
    opts.max_mem = 64 << 20
    opts.never_nl = False
    try:
        return re2.compile(("(?m)" if multiline else "") + pattern, opts)
    except Exception:
        return re.compile(pattern, re.M if multiline else 0)
