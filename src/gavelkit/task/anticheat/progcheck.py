"""What one program does with its words: the per-program rules of the analyser.

`_argv` strips wrappers (sudo, env, timeout…), applies the command rules (installs,
fetches, git history, probes) and hands the words to the program's handler: xargs
and `find -exec` run other commands, python runs code (its `-c` body, a heredoc, a
script the agent wrote), pip/pytest read files the agent wrote, git/tar/curl have
their own path syntax (`progpaths`); every other program follows the syntax table
(`programs`). A mixin of `analyze.Analyzer`.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable, Sequence
from typing import Any

from gavelkit.task.anticheat import cmdrules, programs
from gavelkit.task.anticheat.cmdrules import Hit, command_hit
from gavelkit.task.anticheat.names import norm
from gavelkit.task.anticheat.sheval import MAX_DEPTH, SimpleCommand, resolve_path
from gavelkit.task.anticheat.shvalues import UNKNOWN
from gavelkit.task.anticheat.written import requirement_names

LISTERS = {"ls", "find", "tree", "du", "stat", "file", "dir", "exa", "eza", "fd", "fdfind",
           "locate", "realpath", "readlink", "test", "[", "[[", "basename", "dirname", "lsattr",
           "ll"}
NOOP = {"cd", "pushd", "popd", "echo", "printf", "true", "false", "export", "set", "unset",
        "which", "type", "exit", "return", "sleep", "wait", "read", "pwd", "clear",
        "source", ".", "local", "declare", "shift", "trap", "kill", "jobs", "hash", "history",
        "eval", "((", "mapfile", "readarray", "typeset", "readonly", "unalias", "ulimit",
        "umask", "disown", "bg", "fg", "getopts", "let", "break", "continue", ":"}
WRAPPERS = {"sudo", "env", "timeout", "nohup", "time", "nice", "exec", "command", "stdbuf",
            "unbuffer", "ionice", "chronic", "caffeinate", "builtin", "doas", "strace", "ltrace",
            "xvfb-run", "catchsegv", "setsid", "taskset", "chroot", "su"}
KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "in",
            "case", "esac", "{", "}", "!", "function", "select", "]]"}
# builtins that name a path without opening it (`source` and `.` read theirs)
SAYS_ONLY = NOOP - {"source", "."}
SHELLS = {"bash", "sh", "zsh", "dash", "ksh", "fish", "ash", "busybox", "rbash"}
WRITERS = {"rm", "touch", "mkdir", "chmod", "chown", "truncate", "tee", "rmdir", "unlink",
           "shred", "mv"}
COPIERS = {"cp", "rsync", "scp", "ln", "install"}
PATTERN_FIRST = {"grep", "egrep", "fgrep", "rg", "ag", "ack", "zgrep", "sed", "awk", "gawk",
                 "jq", "yq", "perl"}
PATH_VARS = ("PYTHONPATH", "GIT_DIR", "GIT_WORK_TREE", "PYTHONHOME", "PYTHONSTARTUP",
             "VIRTUAL_ENV", "PYTHONUSERBASE", "GIT_OBJECT_DIRECTORY")
# interpreters the evaluator does not model: the paths their program text names (inline
# or a file the session wrote) are what they can read, whatever the program does
SCRIPT_LANGS = {"awk", "gawk", "mawk", "nawk", "sed", "gsed", "perl", "ruby", "node", "nodejs",
                "php", "lua", "luajit", "tclsh", "Rscript", "julia", "deno", "bun", "jq"}
_PROGRAM_WORD = re.compile(r"[^\s'\"`<>;|&(){}\[\],#!@]+")
_TIMEOUT = re.compile(r"[\d.]+[smhd]?")
_GLOBCH = re.compile(r"[*?\[]")


def _split_assign(word: str) -> list[str]:
    if "=" in word and not word.startswith("/"):
        return [word.split("=", 1)[1]]
    return [word]


def strip_wrappers(argv: list[str], globs: set[int]) -> tuple[list[str], set[int], dict[str, str]]:
    """Drop shell keywords, wrappers (sudo, env, timeout…) and their options; return the
    `env X=Y` assignments too."""
    env: dict[str, str] = {}
    while argv:
        head = posixpath.basename(argv[0])
        if head in KEYWORDS:
            k = 1
        elif head == "busybox" and len(argv) > 1 and not argv[1].startswith("-") and \
                argv[1] not in SHELLS:
            k = 1                   # `busybox APPLET args` runs the applet
        elif head == "env" and (split := _env_split(argv)) is not None:
            argv = split            # `env -S 'cmd args'`: the string is the command's words
            continue
        elif head in WRAPPERS:
            k = _wrapper_words(head, argv, env)
        else:
            break
        argv, globs = argv[k:], {i - k for i in globs if i >= k}
    return argv, globs, env


def _env_split(argv: list[str]) -> list[str] | None:
    """`env [OPTIONS] -S STRING [ARGS]` as the argv it runs (None: no -S)."""
    for i, a in enumerate(argv[1:], 1):
        found = _split_string(argv, i)
        if found is not None:
            val, rest = found
            try:
                words = shlex.split(val)
            except ValueError:
                words = val.split()
            return [argv[0], *argv[1:i], *words, *rest]
        if not (a.startswith("-") or "=" in a):
            return None             # the command starts: no -S before it
    return None


def _split_string(argv: list[str], i: int) -> tuple[str, list[str]] | None:
    """The -S string at argv[i] (`-S S`, `-SS`, `--split-string[=]S`) and the words after."""
    a = argv[i]
    if a in ("-S", "--split-string"):
        return (argv[i + 1], argv[i + 2:]) if i + 1 < len(argv) else None
    if a.startswith("--split-string="):
        return a.split("=", 1)[1], argv[i + 1:]
    if a.startswith("-S") and len(a) > 2:
        return a[2:], argv[i + 1:]
    return None


def _wrapper_words(head: str, argv: list[str], env: dict[str, str]) -> int:
    """How many words the wrapper `head` takes (itself, options, values, X=Y)."""
    k = 1
    while k < len(argv) and _wrapper_option(head, argv, k):
        if "=" in argv[k] and not argv[k].startswith("-"):
            name, _, val = argv[k].partition("=")
            env[name] = val
        k += 1
    return k


def _wrapper_option(head: str, argv: list[str], k: int) -> bool:
    a = argv[k]
    return (a.startswith("-") or "=" in a or (head == "timeout" and bool(_TIMEOUT.fullmatch(a)))
            or (head in ("nice", "su", "taskset") and argv[k - 1] in ("-n", "-c", "-u")))


def program_name(word: str) -> str:
    """The program a command word names: its base name, `python3.11` as `python`."""
    prog = posixpath.basename(word)
    return re.sub(r"(\d+(\.\d+)*)$", "", prog) if prog.startswith("python") else prog


class ProgramChecks:
    """Per-program rules (needs `_path`, `_shell`, `_python` and `state` of the Analyzer)."""

    ctx: Any
    state: Any
    _path: Callable[..., None]
    _shell: Callable[..., None]
    _python: Callable[..., None]
    _unverifiable: Callable[..., None]

    def _argv(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
              heredoc: str | None, depth: int, stdin_paths: Sequence[str] = (),
              piped_from: SimpleCommand | None = None, sc: SimpleCommand | None = None) -> None:
        if depth > MAX_DEPTH:
            self._unverifiable(hits, f"command nesting deeper than {MAX_DEPTH} levels was not "
                                     "followed")
            return
        argv, globs, env = strip_wrappers(argv, globs)
        if not argv:
            return
        mark = len(hits)
        if sc is not None:
            env = {**sc.env, **env}
        self._env_paths(env, cwd, hits)
        prog = program_name(argv[0])
        if "/" in argv[0] and UNKNOWN not in argv[0]:
            self._path(argv[0], cwd, "read", False, hits, "running a program from")
        cmdrules.check(self.ctx, prog, argv, cwd, hits, piped_from, self._path)
        handler = _HANDLERS.get(prog)
        if handler is not None:
            handler(self, argv, cwd, globs, hits, heredoc, depth, stdin_paths, sc)
        elif prog in SHELLS:
            self._shell_script(argv, cwd, hits)
            self._startup_file(env, cwd, hits, depth)
        elif prog not in NOOP:
            self._generic(prog, argv, cwd, globs, hits)
        if prog in SCRIPT_LANGS:
            self._program_text(prog, argv, cwd, hits)
        if prog not in SAYS_ONLY and prog not in SHELLS and not any(
                h.severity == "error" for h in hits[mark:]):   # a shell's text is evaluated
            self._named_places(prog, argv[1:], cwd, hits, programs.reads_here(prog, argv),
                               "list" if prog in LISTERS else "read")

    def _program_text(self, prog: str, argv: list[str], cwd: str | None,
                      hits: list[Hit]) -> None:
        """The path-like words of the program: its arguments, and the text of each file
        the session wrote that an argument names (`awk -f x.awk`, `perl p.pl`)."""
        texts = list(argv[1:])
        for a in argv[1:]:
            body = self.state.file(a, cwd) if a and not a.startswith("-") else None
            if body:
                texts.append(body)
        for text in texts:
            for word in _PROGRAM_WORD.findall(text):
                if "/" in word and UNKNOWN not in word:
                    self._path(word, cwd, "read", False, hits, f"{prog} program text",
                               strict=False)

    def _env_paths(self, env: dict[str, str], cwd: str | None, hits: list[Hit]) -> None:
        for name in PATH_VARS:
            for part in (env.get(name) or "").split(":"):
                if part:
                    self._path(part, cwd, "read", False, hits, f"{name}=", strict=False)

    def _startup_file(self, env: dict[str, str], cwd: str | None, hits: list[Hit],
                      depth: int) -> None:
        """BASH_ENV (ENV for sh): the file a non-interactive shell runs before its own
        text; a file the session wrote is followed, any other is read."""
        seen = {**(getattr(self, "_env", None) or self.state.env), **env}
        for var in ("BASH_ENV", "ENV"):
            path = seen.get(var)
            if not path or UNKNOWN in path:
                continue
            body = self.state.file(path, cwd)
            if body:
                self._shell(body, cwd, hits, depth + 1)
            else:
                self._path(path, cwd, "read", False, hits, f"{var}=", strict=False)

    def _shell_script(self, argv: list[str], cwd: str | None, hits: list[Hit]) -> None:
        args = argv[1:]
        if any(a.startswith("-") and "c" in a.lstrip("-") and not a.startswith("--")
               for a in args):
            return
        script = next((a for a in args if not a.startswith(("-", "+"))), None)
        if script:
            self._path(script, cwd, "read", False, hits, argv[0])

    def _generic(self, prog: str, argv: list[str], cwd: str | None, globs: set[int],
                 hits: list[Hit]) -> None:
        args = argv[1:]
        access = "list" if prog in LISTERS else "write" if prog in WRITERS else "read"
        syn = programs.syntax(prog)
        if syn is not None:
            self._syntax_paths(prog, args, syn, access, cwd, globs, hits)
            return
        positional = _positional(prog, args)
        if not positional and prog in ("ls", "tree", "du", "exa", "eza", "ll"):
            positional = [(".", -1)]
        if prog in COPIERS and len(positional) >= 2:
            self._copy(prog, positional, cwd, globs, hits)
            return
        # a program the syntax table does not know may not read its words at all: an
        # unknown word there is not a path of a reading program
        for word, i in positional:
            for part in _split_assign(word):
                self._path(part, cwd, access, i + 1 in globs, hits, prog, strict=False)

    def _copy(self, prog: str, positional: list[tuple[str, int]], cwd: str | None,
              globs: set[int], hits: list[Hit]) -> None:
        *srcs, dst = positional
        for word, i in srcs:
            self._path(word, cwd, "read", i + 1 in globs, hits, prog)
        self._path(dst[0], cwd, "write", False, hits, prog)

    def _syntax_paths(self, prog: str, args: list[str], syn: Any, access: str,
                      cwd: str | None, globs: set[int], hits: list[Hit]) -> None:
        found, words = programs.path_words(prog, args, syn)
        if prog == "sed" and any(a == "-i" or a.startswith(("-i", "--in-place")) for a in args):
            found = [(w, i, "write") for w, i, _ in found]
        for word, i, acc in found:
            self._path(word, cwd, acc if access != "list" else "list", i in globs, hits, prog)
        if _searches_here(prog, args, words):
            self._path(".", cwd, "read", False, hits, prog)

    # -- handlers
    def _h_alias(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
                 heredoc: str | None, depth: int, stdin_paths: Sequence[str],
                 sc: SimpleCommand | None) -> None:
        """`alias name='text'`: the text runs wherever the name is used; it is checked
        as it is defined (what it reads does not depend on where it runs)."""
        for a in argv[1:]:
            name, eq, text = a.partition("=")
            if eq and name and text:
                self._shell(text, cwd, hits, depth + 1)

    def _h_xargs(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
                 heredoc: str | None, depth: int, stdin_paths: Sequence[str],
                 sc: SimpleCommand | None) -> None:
        k, replace = _xargs_options(argv)
        rest = argv[k:] or ["echo"]
        items = _xargs_items(stdin_paths, heredoc, sc)
        inner = [[w.replace(replace, it) for w in rest] for it in items[:16]] \
            if replace and items else [rest + items]
        for cmd in inner:
            marks = set(range(len(rest), len(cmd))) | {
                i for i, w in enumerate(cmd) if _GLOBCH.search(w) and w not in rest}
            self._run_argv(cmd, cwd, marks, hits, depth)

    def _run_argv(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
                  depth: int) -> None:
        """An argv run without a shell (xargs, -exec, subprocess lists, Codex arrays)."""
        prog = posixpath.basename(argv[0]) if argv else ""
        if prog in SHELLS or prog in ("eval",):
            self._shell(shlex.join(argv), cwd, hits, depth + 1)
            return
        self._argv(argv, cwd, globs, hits, None, depth + 1)

    def _h_python(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
                  heredoc: str | None, depth: int, stdin_paths: Sequence[str],
                  sc: SimpleCommand | None) -> None:
        args = argv[1:]
        k, flag = _python_options(args)
        if flag is not None:
            self._python_flag(flag, args[k + 1], args[k + 2:], cwd, hits, heredoc, depth, sc)
            return
        rest = args[k:]
        if rest and rest[0] != "-":
            self._python_script(rest, cwd, hits, depth)
        elif heredoc is not None:
            self._python(heredoc, cwd, hits, depth + 1)
        elif sc is not None and sc.stdin_unknown:
            self._unverifiable(hits, f"{argv[0]} runs Python code from its input, which could "
                                     "not be resolved (obfuscated or built at run time)")

    def _python_flag(self, flag: str, value: str, rest: list[str], cwd: str | None,
                     hits: list[Hit], heredoc: str | None, depth: int,
                     sc: SimpleCommand | None) -> None:
        """`python -c CODE` runs CODE; `python -m MOD` runs a written MOD.py or the program."""
        if flag == "-c":
            self._python(value, cwd, hits, depth + 1)
            return
        mod = value.replace(".", "/")
        for cand in (f"{mod}.py", f"{mod}/__main__.py"):
            self._run_written(cand, cwd, hits, depth, f"python -m {value}")
        self._argv([value, *rest], cwd, set(), hits, heredoc, depth + 1, sc=sc)

    def _python_script(self, rest: list[str], cwd: str | None, hits: list[Hit],
                       depth: int) -> None:
        self._path(rest[0], cwd, "read", False, hits, "python")
        self._run_written(rest[0], cwd, hits, depth, "python")
        for b in rest[1:]:
            if not b.startswith("-"):
                self._path(b, cwd, "read", False, hits, "python", strict=False)

    def _run_written(self, path: str, cwd: str | None, hits: list[Hit], depth: int,
                     how: str) -> None:
        body = self.state.file(path, cwd)
        if body is not None:
            self._python(body, cwd, hits, depth + 1, f"{how} {path} (written earlier)")

    def _h_pytest(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
                  heredoc: str | None, depth: int, stdin_paths: Sequence[str],
                  sc: SimpleCommand | None) -> None:
        for a in argv[1:]:
            if not a.startswith("-"):
                target = a.split("::", 1)[0]
                self._path(target, cwd, "read", False, hits, "pytest", strict=False)
                self._run_written(target, cwd, hits, depth, "pytest")

    def _h_pip(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
               heredoc: str | None, depth: int, stdin_paths: Sequence[str],
               sc: SimpleCommand | None) -> None:
        args = argv[1:]
        for i, a in enumerate(args):
            val = None
            if a in ("-r", "--requirement", "-c", "--constraint") and i + 1 < len(args):
                val = args[i + 1]
            elif a.startswith(("--requirement=", "--constraint=")):
                val = a.split("=", 1)[1]
            elif a.startswith("-r") and len(a) > 2:
                val = a[2:]
            if val:
                self._requirements(val, cwd, hits, argv, 0)
        self._generic(posixpath.basename(argv[0]), argv, cwd, globs, hits)

    def _requirements(self, path: str, cwd: str | None, hits: list[Hit], argv: list[str],
                      level: int) -> None:
        full = resolve_path(path, cwd, self.ctx.home)
        body = self.state.files.get(full)
        if body is None or level > 4:
            if full in self.state.files and body is None:
                self._unverifiable(hits, f"{' '.join(argv)[:120]}: the requirements it reads "
                                         f"({path}) were built from text the scan could not "
                                         "resolve")
            return
        how = f"{argv[0]} -r {path}"
        for kind, value in requirement_names(body):
            if kind == "file":
                self._requirements(value, posixpath.dirname(full), hits, argv, level + 1)
            elif kind == "url":
                cmdrules.urls(self.ctx, [value], hits, how, self._path)
            elif kind == "path":
                self._path(value, posixpath.dirname(full), "read", False, hits, how)
            else:
                self._requirement(value, path, argv, hits)

    def _requirement(self, value: str, path: str, argv: list[str], hits: list[Hit]) -> None:
        m = cmdrules.WORD.match(value)
        if m and norm(m.group(0)) in self.ctx.targets:
            command_hit(self.ctx, "install-target", argv, hits,
                        f"{' '.join(argv)[:120]} (the requirements file {path} names "
                        f"{m.group(0)})")

    def _h_runner(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
                  heredoc: str | None, depth: int, stdin_paths: Sequence[str],
                  sc: SimpleCommand | None) -> None:
        args = argv[1:]
        if args[:1] == ["run"]:
            rest = list(args[1:])
            while rest and rest[0].startswith("-"):
                rest = rest[1:]
            self._argv(rest, cwd, set(), hits, heredoc, depth + 1, sc=sc)
            return
        if argv[0].endswith("uv") and args[:1] == ["pip"]:
            self._h_pip(["pip", *args[1:]], cwd, globs, hits, heredoc, depth, stdin_paths, sc)
            return
        self._generic(posixpath.basename(argv[0]), argv, cwd, globs, hits)

    def _h_uvx(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
               heredoc: str | None, depth: int, stdin_paths: Sequence[str],
               sc: SimpleCommand | None) -> None:
        prog = posixpath.basename(argv[0])
        if prog == "pipx" and argv[1:2] != ["run"]:
            return
        rest = argv[2:] if prog == "pipx" else argv[1:]
        words = [a for a in rest if not a.startswith("-")]
        m = cmdrules.WORD.match(words[0]) if words else None
        if m and norm(m.group(0)) in self.ctx.targets:
            command_hit(self.ctx, "install-target", argv, hits)

    def _h_git(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
               heredoc: str | None, depth: int, stdin_paths: Sequence[str],
               sc: SimpleCommand | None) -> None:
        self._git_paths(argv[1:], cwd, hits)  # type: ignore[attr-defined]

    def _h_fetch(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
                 heredoc: str | None, depth: int, stdin_paths: Sequence[str],
                 sc: SimpleCommand | None) -> None:
        self._fetcher(posixpath.basename(argv[0]), argv[1:], cwd, hits)  # type: ignore[attr-defined]

    def _h_find(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
                heredoc: str | None, depth: int, stdin_paths: Sequence[str],
                sc: SimpleCommand | None) -> None:
        self._find(argv[1:], cwd, hits, depth)  # type: ignore[attr-defined]

    def _h_tar(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
               heredoc: str | None, depth: int, stdin_paths: Sequence[str],
               sc: SimpleCommand | None) -> None:
        self._tar(argv[1:], cwd, {i - 1 for i in globs}, hits)  # type: ignore[attr-defined]

    def _h_make(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
                heredoc: str | None, depth: int, stdin_paths: Sequence[str],
                sc: SimpleCommand | None) -> None:
        self._make(argv[1:], cwd, hits, depth)  # type: ignore[attr-defined]

    def _h_patch(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
                 heredoc: str | None, depth: int, stdin_paths: Sequence[str],
                 sc: SimpleCommand | None) -> None:
        text = argv[1] if len(argv) > 1 else heredoc
        if text:
            self._store_patch(text, cwd, hits)  # type: ignore[attr-defined]


_XARGS_VALUE = ("-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a")


def _searches_here(prog: str, args: list[str], words: list[str]) -> bool:
    """A recursive grep (or rg/ag/ack) without a path searches the working folder."""
    if words[1:]:
        return False
    if prog in ("rg", "ag", "ack"):
        return True
    return prog in ("grep", "egrep", "fgrep") and any(
        a.startswith("-") and ("r" in a.lstrip("-")[:3] or a == "--recursive") for a in args)


def _python_options(args: list[str]) -> tuple[int, str | None]:
    """Where python's options end, and the -c/-m there (with its value after it)."""
    k = 0
    while k < len(args):
        a = args[k]
        if a in ("-c", "-m") and k + 1 < len(args):
            return k, a
        if a == "-" or not a.startswith("-"):
            break
        k += 2 if a in ("-W", "-X", "-Q") else 1
    return k, None


def _xargs_items(stdin_paths: Sequence[str], heredoc: str | None,
                 sc: SimpleCommand | None) -> list[str]:
    """What xargs reads: the paths piped to it, its known input, else UNKNOWN."""
    items = list(stdin_paths)
    if heredoc is not None:
        items += [x for x in re.split(r"[\n\0 ]+", heredoc) if x]
    elif sc is not None and sc.stdin_unknown and not items:
        items = [UNKNOWN]
    return items


def _xargs_options(argv: list[str]) -> tuple[int, str | None]:
    """The index of xargs's command and its -I/-i replacement string."""
    k = 1
    replace = None
    while k < len(argv) and argv[k].startswith("-"):
        if argv[k] in ("-I", "-i") and k + 1 < len(argv):
            replace = argv[k + 1]
        k += 2 if argv[k] in _XARGS_VALUE else 1
    return k, replace


def _positional(prog: str, args: list[str]) -> list[tuple[str, int]]:
    """Fallback for programs the syntax table does not list: every non-option word."""
    out: list[tuple[str, int]] = []
    skip_first = prog in PATTERN_FIRST
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            out.extend((b, j) for j, b in enumerate(args[i + 1:], start=i + 1))
            break
        if a.startswith("-") and len(a) > 1:
            if "=" in a:
                out.append((a.split("=", 1)[1], i))
        elif skip_first:
            skip_first = False
        else:
            out.append((a, i))
        i += 1
    return out


_HANDLERS: dict[str, Callable[..., None]] = {
    "xargs": ProgramChecks._h_xargs, "python": ProgramChecks._h_python,
    "pytest": ProgramChecks._h_pytest, "py.test": ProgramChecks._h_pytest,
    "pip": ProgramChecks._h_pip, "pip3": ProgramChecks._h_pip,
    "uv": ProgramChecks._h_runner, "poetry": ProgramChecks._h_runner,
    "pdm": ProgramChecks._h_runner, "hatch": ProgramChecks._h_runner,
    "pipenv": ProgramChecks._h_runner, "rye": ProgramChecks._h_runner,
    "uvx": ProgramChecks._h_uvx, "pipx": ProgramChecks._h_uvx, "git": ProgramChecks._h_git,
    "curl": ProgramChecks._h_fetch, "wget": ProgramChecks._h_fetch,
    "http": ProgramChecks._h_fetch, "https": ProgramChecks._h_fetch,
    "aria2c": ProgramChecks._h_fetch, "find": ProgramChecks._h_find,
    "tar": ProgramChecks._h_tar, "bsdtar": ProgramChecks._h_tar, "gtar": ProgramChecks._h_tar,
    "pypy": ProgramChecks._h_python, "pypy3": ProgramChecks._h_python,
    "ipython": ProgramChecks._h_python,
    "apply_patch": ProgramChecks._h_patch, "applypatch": ProgramChecks._h_patch,
    "alias": ProgramChecks._h_alias, "make": ProgramChecks._h_make,
    "gmake": ProgramChecks._h_make,
}
