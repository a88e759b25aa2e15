"""The fast path: skip an action only when evaluating it cannot produce a forbidden name.

Why: a prefilter that looks for forbidden names in the raw text is beaten by every way
of building a name at run time (`repo-p*`, `repo\\-pool`, `$X`, `{a,b}`, base64), and
then the fast scan and `--thorough` disagree. So the question is not "is a forbidden
name here" but "could evaluation make one". The shell evaluator makes text that is
not literally in the action only through these constructs, and each is a trigger:

* expansions: `$…` (variables, `$(…)`, `$'…'`, arithmetic) and backquotes;
* globs (`*`, `?`, `[…]` in a word) and brace expansion (`{a,b}`, `{1..3}`);
* a process substitution `<(…)`, an append `>>` or `tee` (files built in pieces);
* state for later actions: assignments at a command's start, `cd`/`pushd`/`popd`,
  function definitions, `read`/`mapfile`, `export`/`declare`;
* running text: `eval`, `source`/`.`, `xargs`, a shell fed by a pipe or here-document,
  `-c` of a shell, a file the session wrote earlier (by name);
* quote and escape removal only joins adjacent pieces: the anchors are also looked for
  in the text with quotes, backslashes, commas, `+`, brackets and spaces squeezed out.

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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from gavelkit.task.anticheat.sheval import MAX_LEN
from gavelkit.task.anticheat.shvalues import RECURSIVE, UNKNOWN
from gavelkit.task.anticheat.trajectory.events import Event

SHELL_DYNAMIC = re.compile(
    r"[$`]|[^\s'\"=]*[*?][^\s'\"]*|\[[^\]\s]+\][^\s]*|\{[^\s{}]*(?:,|\.\.)[^\s{}]*\}|"
    r"<\(|>>|\btee\b|"
    r"(?:^|[;&|]\s*|\n\s*|\bdo\s+|\bthen\s+)(?:export\s+|local\s+|declare\s+|readonly\s+)?"
    r"[A-Za-z_]\w*\+?=|"
    r"(?:^|[;&|{\n]\s*)(?:function\s+)?[A-Za-z_][\w-]*\s*\(\s*\)\s*\{|"
    r"\b(?:eval|source|xargs|cd|pushd|popd|read|mapfile|readarray|declare|export|typeset|"
    r"alias|exec|perl|ruby|node|php)\b|(?:^|[;&|(]\s*|\n\s*)\.\s|"
    r"\|\s*(?:sudo\s+)?(?:ba|z|da|k|)sh\b|\b(?:ba|z|da|k|)sh\s+(?:-\w*c|<|$)|"
    r"\b(?:ba|z|da|k|)sh\s+-s\b", re.M)
PY_WORD = re.compile(r"\b(?:python\d*(?:\.\d+)?|pypy\d*|ipython|pytest)\b")
PY_DYNAMIC_SRC = (
    r"\bchr\b|b64|b32|b85|a85|decodebytes|unhexlify|fromhex|codecs|rot_?13|"
    r"decode\(\s*['\"](?:rot|hex|base|bz2|zlib|uu)|\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|"
    r"\\[0-7]{3}|\bexec\b|\beval\b|\bcompile\s*\(|getattr|__import__|import_module|"
    r"importlib|runpy|\[\s*[-\w]*\s*:\s*[-\w]*\s*:|reversed|translate|maketrans|"
    r"\bglob\b|rglob|expanduser|expandvars|getsource|find_spec|pkg_resources|urlopen|"
    r"marshal|pickle|zlib|distribution\(|metadata")
PY_DYNAMIC = re.compile(PY_DYNAMIC_SRC)
_ENV_USE = re.compile(r"environ|getenv")
URL_ANCHORS = frozenset({b"http", b"git@", b"ssh://"})
# a file runs only through one of these (or as a command word given with a folder)
RUNNER = re.compile(r"\b(?:python\d*(?:\.\d+)?|pypy\d*|ipython|pytest|py\.test|bash|sh|zsh|dash|"
                    r"ksh|source|exec|pip\d*|uv|uvx|make|tox|nox|perl|ruby|node|xargs|find|"
                    r"env|nohup|timeout|sudo)\b|(?:^|[\s;&|(])\.{0,2}/|(?:^|[;&|]\s*)\.\s")
_MODULE = re.compile(r"-m\s+([A-Za-z_][\w.]*)")
_LITERAL = re.compile(r"""(['"])((?:\\.|(?!\1)[^\\\n])*)\1""")
SQUEEZE = str.maketrans("", "", "'\"\\ \t\n,+()[]")
SQUEEZE_BYTES = b"'\"\\ \t\n,+()[]"     # bytes.translate deletes at C speed
_GLOB = re.compile(r"[*?\[]")
_HEREDOC_WRITE = re.compile(
    r"(?:^|[;&|]\s*|\n)\s*(?:cat|tee)\s+(?:(?:-a\s+)?>?>?\s*(?P<p1>[^\s<>;&|'\"$`]+)\s*<<-?\s*"
    r"(?P<q1>['\"]?)(?P<d1>\w+)(?P=q1)|<<-?\s*(?P<q2>['\"]?)(?P<d2>\w+)(?P=q2)\s*>>?\s*"
    r"(?P<p2>[^\s<>;&|'\"$`]+))[ \t]*\n")


_SQ = re.compile(r"'[^']*'")
_DQ = re.compile(r'"((?:\\.|[^"\\])*)"')


def unquoted(text: str) -> str:
    """The shell text with quoted parts emptied: quoted glob characters, braces and
    words are literal; only `$` and backquotes keep working inside double quotes."""
    if "'" not in text and '"' not in text:
        return text
    text = _DQ.sub(lambda m: '"' + "".join(c for c in m.group(1) if c in "$`") + '"', text)
    return _SQ.sub("''", text)


def literals_joined(code: str) -> str:
    """Every string literal of `code`, in order and in reverse, run together."""
    lits = [body for _q, body in _LITERAL.findall(code)]
    return "".join(lits) + "\n" + "/".join(lits) + "\n" + "".join(reversed(lits))


class Gate:
    """Decides per action whether the analyser must see it (see the module docstring)."""

    def __init__(self, ctx: Any, found: Callable[[str], bool], engine: str | None = None) -> None:
        from gavelkit.task.anticheat import prefilter

        self.ctx = ctx
        self.found = found
        # squeezing deletes characters, so an anchor in the text is a squeezed anchor in
        # the squeezed text: one search covers both; anchors too short once squeezed are
        # looked for in the raw text. Compiled once per scan context.
        key = f"gate:{engine}"
        if key not in ctx.matchers:
            # URLs are judged by what they point at (below), not by "http" being there
            texts = [a.decode("utf-8", "replace") for a in ctx.anchors
                     if a not in URL_ANCHORS]
            squeezed = {t.translate(SQUEEZE) for t in texts}
            short = [t for t in texts if len(t.translate(SQUEEZE)) < 4]
            ctx.matchers[key] = (
                re.compile("|".join(re.escape(t) for t in sorted(short, key=len, reverse=True)))
                if short else None,
                prefilter.Matcher([s.encode() for s in squeezed if len(s) >= 4], engine))
        self._short, self._squeezed = ctx.matchers[key]
        self._names: dict[str, set[str]] = {}     # written file name -> its paths
        self._cwd: dict[str, bool] = {}
        self.written: set[str] = set()
        self._scripts: dict[tuple[int, int, bool], bool] = {}
        self._py = _fast(PY_DYNAMIC_SRC)
        self._sh = _fast(SHELL_DYNAMIC.pattern, multiline=True)

    def learn(self, paths: Iterable[str]) -> None:
        """Files written in this session: a later action naming one is analysed."""
        for p in paths:
            name = p.rsplit("/", 1)[-1] if p else ""
            if len(name) >= 2 and UNKNOWN not in name:
                self.written.add(name)
                self._names.setdefault(name, set()).add(p)

    def _written_matters(self, name: str, state: Any, as_python: bool) -> bool:
        """A written file named in the action: does any text written under that name
        hold something the evaluator could act on? (unknown text always does)"""
        if state is None:
            return True
        keys = [k for k in self._names.get(name, ()) if k in state.files] or [
            k for k in state.files if k.rsplit("/", 1)[-1] == name]
        for key in keys:
            body = state.files[key]
            if body is None:
                return True
            memo = (hash(body), len(body), as_python)
            hit = self._scripts.get(memo)
            if hit is None:
                if len(self._scripts) >= 4096:
                    self._scripts.clear()
                hit = self._scripts[memo] = self.script_matters(body, as_python)
            if hit:
                return True
        return False

    def cwd_matters(self, cwd: str | None) -> bool:
        """Could a relative path resolved in `cwd` land in a forbidden place?"""
        if not cwd:
            return False
        hit = self._cwd.get(cwd)
        if hit is None:
            hit = UNKNOWN in cwd or RECURSIVE in cwd or bool(_GLOB.search(cwd)) or \
                self.found(cwd) or any(pre.startswith(cwd.rstrip("/") + "/") or pre == cwd
                                       for place in self.ctx.places for pre in place.prefixes)
            self._cwd[cwd] = hit
        return hit

    def anchored(self, text: str) -> bool:
        raw = text.encode("utf-8", "surrogatepass").translate(None, SQUEEZE_BYTES)
        if self._squeezed.found(raw):
            return True
        if self._short is not None and self._short.search(text) is not None:
            return True
        if "://" in text or "git@" in text:
            from gavelkit.task.anticheat.cmdrules import URL, upstream_url

            return any(upstream_url(self.ctx, u) or u.startswith("file:")
                       for u in URL.findall(text))
        return False

    def python_matters(self, code: str, state: Any = None) -> bool:
        if self._py.search(code) is not None or self.anchored(code) or self.anchored(
                literals_joined(code)):
            return True
        # values from the environment: only the ones this session set can be forbidden
        return state is not None and _ENV_USE.search(code) is not None and any(
            UNKNOWN in v or self.anchored(v) for v in state.env.values())

    def text_matters(self, text: str, state: Any = None) -> bool:
        if len(text) > MAX_LEN or ("<<" not in text and self.anchored(text)):
            return True
        shell = text
        if "<<" in text:
            shell = self._strip_heredoc_writes(text, state)
            if shell is not text and self.anchored(shell):
                return True
        as_python = bool(PY_WORD.search(shell))
        if self.written and RUNNER.search(shell):
            named = shell + "".join(
                f" {m.group(1).rsplit('.', 1)[-1]}.py {m.group(1)}/__main__.py"
                for m in _MODULE.finditer(shell)) if as_python else shell
            if any(n in named and self._written_matters(n, state, as_python)
                   for n in self.written):
                return True
        shell = unquoted(shell)
        if self._sh.search(shell) is not None or "<<" in shell:
            return True
        return bool(PY_WORD.search(text)) and self.python_matters(text, state)

    def _strip_heredoc_writes(self, text: str, state: Any) -> str:
        """`cat > f <<'EOF' … EOF`: the body is data, kept for a later run; the command
        around it is what the gate looks at. A shape it does not know stays a trigger."""
        out, pos = [], 0
        for m in _HEREDOC_WRITE.finditer(text):
            delim = m.group("d1") or m.group("d2")
            end = re.compile(rf"^\t*{re.escape(delim)}[ \t]*$", re.M).search(text, m.end())
            if end is None:
                return text
            body = text[m.end():end.start()]
            quoted = bool(m.group("q1") or m.group("q2"))
            if not quoted and ("$" in body or "`" in body):
                return text
            path = m.group("p1") or m.group("p2")
            if state is not None and path:
                from gavelkit.task.anticheat.sheval import resolve_path

                key = resolve_path(path, state.cwd, state.home)
                state.files[key] = body
                self.learn([key])
            out.append(text[pos:m.start()] + "\ncat > WRITTEN\n")
            pos = end.end()
        out.append(text[pos:])
        return "".join(out)

    def needs(self, ev: Event, cwd: str | None, state: Any) -> bool:
        if self.cwd_matters(cwd):
            return True
        if ev.code is not None:
            return self.python_matters(ev.code) or self.anchored(ev.code)
        parts = [ev.command or "", " ".join(ev.argv or ()), ev.url or "",
                 *ev.read, *ev.write, *ev.listed]
        return self.text_matters("\n".join(p for p in parts if p), state)

    def script_matters(self, body: str, as_python: bool = False) -> bool:
        """A file the agent wrote, now run (by python, or else by a shell): is it worth
        evaluating?"""
        return len(body) > MAX_LEN or self.python_matters(body) or (
            not as_python and self._sh.search(unquoted(body)) is not None)


def _fast(pattern: str, multiline: bool = False) -> Any:
    """The pattern compiled with re2 when it is importable (these run on every action)."""
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
