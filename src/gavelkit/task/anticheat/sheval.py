"""Evaluate a parsed shell script statically: the simple commands it runs, as bash would.

Why: what a command reads is decided by the shell's state, not its spelling.
Assignments apply in order; `cd`/`pushd`/`popd`, subshells and `$(pwd)` move the
working folder; command substitution, brace expansion, quoting and escapes are
evaluated; `eval`, `bash -c`, `sh <<EOF`, `… | sh`, `source FILE` and functions are
followed; files written with `>`/`tee` keep their text for a later `bash FILE` or
`pip install -r FILE`. State (`ShState`) lives across a session's actions where
the agent format's shell persists (see `scan.PERSISTENT`).

Text the evaluator cannot know (an unset variable, the output of an unknown
program, `read`) becomes UNKNOWN inside the word; the analyser decides what an
unknown piece in a path means. Nothing is executed.
"""

from __future__ import annotations

import posixpath
import re

from gavelkit.task.anticheat import shparse as sp
from gavelkit.task.anticheat.shbuiltins import BUILTINS, arith, var_op
from gavelkit.task.anticheat.shstate import ShState, SimpleCommand, resolve_path
from gavelkit.task.anticheat.shvalues import MAX_VALUE, RECURSIVE, UNKNOWN, stdout
from gavelkit.task.anticheat.shwords import MAX_BRACE, Part, braces, heredoc_parts, parts

MAX_DEPTH = 8
MAX_LEN = 200_000
MAX_LOOP = 16
_GLOB = re.compile(r"[*?\[]")
_SPECIAL_ZERO = {"?", "$", "!", "#", "-", "LINENO", "RANDOM", "SECONDS"}
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "ash", "busybox", "rbash"})
_DECLARE = frozenset({"export", "declare", "typeset", "local", "readonly"})


class Shell:
    """Evaluates scripts in one `ShState`, appending every simple command to `out`."""

    def __init__(self, state: ShState, out: list[SimpleCommand], notes: list[str],
                 depth: int = 0, via: str = "") -> None:
        self.st = state
        self.out = out
        self.notes = notes
        self.depth = depth
        self.via = via
        self.capture: list[str | None] | None = None

    # -- entry points
    def run(self, src: str) -> None:
        if self.depth > MAX_DEPTH:
            self.note(f"shell text nested deeper than {MAX_DEPTH} levels (command "
                      "substitutions, eval, bash -c) was not followed")
            return
        if len(src) > MAX_LEN:
            self.note(f"a shell command of {len(src):,} characters is over the "
                      f"{MAX_LEN:,}-character parse limit; the part after it was not checked")
            src = src[:MAX_LEN]
        try:
            tree = sp.parse(src)
        except (sp.ParseError, RecursionError) as exc:
            self.note(f"shell text could not be parsed ({exc}); it was not checked")
            return
        self.seq(tree)

    def nested(self, src: str, via: str, state: ShState | None = None) -> Shell:
        sh = Shell(state or self.st.child(), self.out, self.notes, self.depth + 1, via)
        sh.run(src)
        return sh

    def substitute(self, src: str) -> str:
        """$(…): run in a subshell and return what it prints (UNKNOWN where unknown)."""
        sh = Shell(self.st.child(), self.out, self.notes, self.depth + 1, "$(…)")
        sh.capture = []
        sh.run(src)
        if any(v is None for v in sh.capture):
            known = "".join(v for v in sh.capture if v is not None).strip()
            return (known + UNKNOWN) if known else UNKNOWN
        return "".join(v for v in sh.capture if v is not None).rstrip("\n")

    def note(self, why: str) -> None:
        self.notes.append(why)

    # -- tree walk
    def seq(self, node: sp.Seq) -> None:
        for item in node.items:
            self.node(item)

    def node(self, item: object) -> None:
        if isinstance(item, sp.Pipeline):
            self.pipeline(item)
        elif isinstance(item, sp.Sub):
            self.sub(item)
        elif isinstance(item, sp.Branches):
            self.branches(item)
        elif isinstance(item, sp.For):
            self.loop(item)
        elif isinstance(item, sp.Func):
            self.st.funcs[item.name] = item.body
        elif isinstance(item, sp.Simple):
            self.simple(item, None, None, last=True)

    def sub(self, item: sp.Sub) -> None:
        if item.subshell:
            sh = Shell(self.st.child(), self.out, self.notes, self.depth, self.via)
            sh.capture = self.capture
            sh.seq(item.body)
        else:
            self.seq(item.body)

    def branches(self, item: sp.Branches) -> None:
        if item.subject is not None:
            self.words(item.subject)
        for part in item.parts:
            self.seq(part)

    def loop(self, item: sp.For) -> None:
        values: list[str] = []
        if item.words is None:
            values = list(self.st.positional) or [UNKNOWN]
        else:
            for raw in item.words:
                values.extend(f for f, _ in self.words(raw))
        if not values:
            return
        if len(values) > MAX_LOOP:
            self.note(f"a for loop over {len(values)} values: the body was checked for the "
                      f"first {MAX_LOOP}")
        for v in values[:MAX_LOOP]:
            if item.var:
                self.st.env[item.var] = v
            self.seq(item.body)

    def pipeline(self, item: sp.Pipeline) -> None:
        prev: SimpleCommand | None = None
        data: str | None = None
        piped = False
        for i, cmd in enumerate(item.cmds):
            last = i == len(item.cmds) - 1
            if isinstance(cmd, sp.Simple):
                prev, data = self.simple(cmd, prev if piped else None, data if piped else None,
                                         last=last, piped=piped)
            else:
                self.node(cmd)
                prev, data = None, None
            piped = True

    # -- simple commands
    def simple(self, cmd: sp.Simple, prev: SimpleCommand | None, data: str | None,
               last: bool, piped: bool = False) -> tuple[SimpleCommand | None, str | None]:
        argv, globs = self.argv(cmd.words)
        env = self.assignments(cmd.assigns, persist=not argv)
        sc = SimpleCommand(argv, self.st.cwd, glob_args=globs, piped_from=prev, env=env,
                           via=self.via, environ={**self.st.env, **env} if argv else None)
        sc.heredoc, sc.stdin_unknown = (data, data is None) if piped else (None, False)
        to_stdout = self.redirections(cmd.redirs, sc)
        if not argv:
            if sc.reads or sc.writes or sc.heredoc is not None:
                self.out.append(sc)
            return None, None
        text = self.execute(sc)
        for w in sc.writes:
            self.st.files[resolve_path(w, sc.cwd, self.st.home)] = text
        if last and to_stdout and self.capture is not None:
            self.capture.append(text)
        return sc, text

    def assignments(self, assigns: list[tuple[str, str, bool]], persist: bool) -> dict[str, str]:
        env: dict[str, str] = {}
        for name, raw, append in assigns:
            val = self.scalar(raw)
            if append:
                val = self.st.env.get(name, "") + val
            env[name] = val
            if persist:
                self.st.env[name] = val
        return env

    def redirections(self, redirs: list[sp.Redir], sc: SimpleCommand) -> bool:
        """Apply redirections to sc; True if its stdout still goes to the caller."""
        to_stdout = True
        for r in redirs:
            if r.op in ("<<", "<<-"):
                sc.heredoc = r.target if r.quoted else self.scalar_text(r.target)
                sc.stdin_unknown = False
                continue
            target = self.scalar(r.target)
            if r.op == "<<<":
                sc.heredoc, sc.stdin_unknown = target + "\n", False
            elif r.op in ("<", "<>"):
                sc.reads.append(target)
                known = self.st.file(target, sc.cwd)
                sc.heredoc, sc.stdin_unknown = known, known is None
            elif r.op in (">&", "<&") and (target.isdigit() or target == "-"):
                to_stdout = to_stdout and not (r.fd in ("", "1") and target == "2")
            elif r.fd in ("", "1", "&"):
                sc.writes.append(target)
                to_stdout = False
            elif target not in ("/dev/null", "&1", "1"):
                sc.writes.append(target)
        return to_stdout

    def execute(self, sc: SimpleCommand) -> str | None:
        """Follow what the shell itself does with sc; record it; return its output."""
        argv = sc.argv
        prog = posixpath.basename(argv[0])
        if prog in ("exec", "command", "builtin", "nohup", "time") and len(argv) > 1:
            sc.argv = argv = argv[1:]
            prog = posixpath.basename(argv[0])
        self.out.append(sc)
        if argv[0] in self.st.funcs:
            return self.call_function(argv)
        handler = BUILTINS.get(prog)
        if handler is not None:
            return handler(self, sc)
        if prog in SHELLS:
            return self.shell_program(sc)
        if argv[0].startswith(("./", "/")) or "/" in argv[0]:
            body = self.st.file(argv[0], sc.cwd)
            if body is not None and not body.startswith("#!/usr/bin/env python") and \
                    "python" not in body.split("\n", 1)[0]:
                self.nested(body, f"the script {argv[0]}")
        return self.printed(sc, prog)

    def printed(self, sc: SimpleCommand, prog: str) -> str | None:
        if prog == "cat":
            files = [a for a in sc.argv[1:] if not a.startswith("-")]
            if files:
                vals = [self.st.file(f, sc.cwd) for f in files]
                return None if any(v is None for v in vals) else "".join(
                    v for v in vals if v is not None)
        if prog == "base64" and any(not a.startswith("-") for a in sc.argv[1:]):
            f = next(a for a in sc.argv[1:] if not a.startswith("-"))
            content = self.st.file(f, sc.cwd)
            return stdout(prog, [a for a in sc.argv[1:] if a.startswith("-")], content, sc.cwd)
        return stdout(prog, sc.argv[1:], sc.heredoc, sc.cwd)

    def call_function(self, argv: list[str]) -> str | None:
        if self.depth >= MAX_DEPTH:
            self.note(f"function {argv[0]} calls nested deeper than {MAX_DEPTH} levels")
            return None
        saved = self.st.positional
        self.st.positional = argv[1:]
        sh = Shell(self.st, self.out, self.notes, self.depth + 1, f"function {argv[0]}")
        sh.capture = [] if self.capture is not None else None
        sh.node(self.st.funcs[argv[0]])
        self.st.positional = saved
        if sh.capture is None or any(v is None for v in sh.capture):
            return None
        return "".join(v for v in sh.capture if v is not None)

    def shell_program(self, sc: SimpleCommand) -> str | None:
        args = sc.argv[1:]
        if posixpath.basename(sc.argv[0]) == "busybox" and args[:1] and args[0] in SHELLS:
            args = args[1:]             # `busybox sh FILE`: the applet is the shell
        for i, a in enumerate(args):
            if a.startswith("-") and "c" in a.lstrip("-") and not a.startswith("--"):
                if i + 1 < len(args):
                    self.script(args[i + 1], f"{sc.argv[0]} -c", args[i + 2:])
                return None
            if not a.startswith(("-", "+")):
                body = self.st.file(a, sc.cwd)
                if body is not None:
                    self.script(body, f"{sc.argv[0]} {a}", args[i + 1:])
                return None
        if sc.heredoc is not None:
            self.script(sc.heredoc, f"{sc.argv[0]} reading its input", [])
        elif sc.stdin_unknown:
            self.note(f"{sc.argv[0]} runs shell text from its input, which could not be "
                      "resolved (obfuscated or built at run time)")
        return None

    def script(self, text: str, via: str, positional: list[str]) -> None:
        if UNKNOWN in text:
            self.note(f"{via} runs text that could not be fully resolved: "
                      f"{text.replace(UNKNOWN, '…')[:120]!r}")
        child = self.st.child()
        child.positional = positional
        self.nested(text.replace(UNKNOWN, "UNRESOLVED"), via, child)

    # -- words
    def argv(self, raws: list[str]) -> tuple[list[str], set[int]]:
        argv: list[str] = []
        globs: set[int] = set()
        for raw in raws:
            for text, glob in self.words(raw):
                if glob:
                    globs.add(len(argv))
                argv.append(text)
        return argv, globs

    def scalar(self, raw: str) -> str:
        """A word expanded without splitting (assignment values, redirection targets)."""
        fields = self.words(raw, split=False)
        return " ".join(f for f, _ in fields)

    def scalar_text(self, body: str) -> str:
        """An unquoted here-document body: $-expansions and backquotes only."""
        if "$" not in body and "`" not in body:
            return body
        return "".join(self.part_value(p) if p.kind != "lit" else p.text
                       for p in heredoc_parts(body))

    def words(self, raw: str, split: bool = True) -> list[tuple[str, bool]]:
        out: list[tuple[str, bool]] = []
        alts = braces(raw)
        if len(alts) >= MAX_BRACE and any("{" in a for a in alts):
            self.note(f"brace expansion of {raw[:80]!r} has more than {MAX_BRACE} words")
        for alt in alts:
            out.extend(self.fields(parts(alt), split))
        return out

    def fields(self, ps: list[Part], split: bool) -> list[tuple[str, bool]]:
        out: list[tuple[str, bool]] = []
        cur: list[str] = []
        glob = False
        nonempty = False
        for p in ps:
            if p.kind == "lit":
                cur.append(p.text)
                nonempty = True
                glob = glob or (not p.quoted and bool(_GLOB.search(p.text)))
                continue
            val = self.part_value(p)
            if p.quoted or not split or not re.search(r"[ \t\n]", val):
                cur.append(val)
                nonempty = nonempty or p.quoted or bool(val)
                glob = glob or (not p.quoted and bool(_GLOB.search(val)))
                continue
            pieces = re.split(r"[ \t\n]+", val)
            cur.append(pieces[0])
            for piece in pieces[1:]:
                if cur and "".join(cur):
                    out.append(("".join(cur), glob))
                cur, glob = [piece], bool(_GLOB.search(piece))
            nonempty = True
        if nonempty:
            out.append(("".join(cur), glob))
        return out

    def part_value(self, p: Part) -> str:
        if p.kind == "tilde":     # ~ is $HOME as the session set it; ~+ $PWD, ~- $OLDPWD
            named = {"": "HOME", "+": "PWD", "-": "OLDPWD"}.get(p.text)
            return self.lookup(named) if named else f"/home/{p.text}"
        if p.kind == "cmd":
            return self.substitute(p.text)
        if p.kind == "arith":
            return arith(p.text, self.st.env)
        if p.kind == "proc":
            return self.procsub(p)
        return self.variable(p)

    def procsub(self, p: Part) -> str:
        self.st.fds += 1
        path = f"/dev/fd/{self.st.fds}"
        if p.op == "<":
            val = self.substitute(p.text)
            self.st.files[path] = None if UNKNOWN in val else val + "\n"
        else:
            self.nested(p.text, "a process substitution")
        return path

    def variable(self, p: Part) -> str:
        name, op = p.text, p.op
        val = self.lookup(name)
        if op == "#len":
            return str(len(val)) if UNKNOWN not in val else UNKNOWN
        if op == "!ind":
            return self.lookup(val) if UNKNOWN not in val else UNKNOWN
        if not op:
            return val
        return var_op(self, val, name, op)

    def lookup(self, name: str) -> str:
        env = self.st.env
        if name in env:
            return env[name]
        if name == "HOME":
            return self.st.home
        if name == "PWD":
            return self.st.cwd or UNKNOWN
        if name == "OLDPWD":
            return self.st.oldpwd or UNKNOWN
        if name.isdigit():
            k = int(name)
            return self.st.positional[k - 1] if 0 < k <= len(self.st.positional) else (
                "bash" if k == 0 else "")
        if name in ("@", "*"):
            return " ".join(self.st.positional)
        if name in _SPECIAL_ZERO:
            return "0"
        return UNKNOWN


def run(src: str, state: ShState, notes: list[str]) -> list[SimpleCommand]:
    """Evaluate `src` in `state` (changed in place) and return the commands it runs."""
    out: list[SimpleCommand] = []
    Shell(state, out, notes).run(src)
    return out


__all__ = ["MAX_DEPTH", "MAX_LEN", "MAX_VALUE", "RECURSIVE", "UNKNOWN", "ShState", "Shell",
           "SimpleCommand", "resolve_path", "run"]
