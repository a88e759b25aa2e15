"""Turn one executed action (an `Event`) into hits: which places it read, listed, wrote.

Shell text is parsed (`shell.parse`), argv arrays are taken as given, Python
snippets go through `ast`; every path is resolved against the event's working
directory. Which words of a command are paths follows each program's own
syntax (`programs`; tar, find, git and the fetchers in `progpaths`); `bash -c`,
`xargs`, `find -exec`, `python -c` and pipes are followed like the shell would. A
command too long or nested too deep to parse whole is a hit of its own
(unverifiable), never silently cut.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Callable, Sequence

from gavelkit.task.anticheat import cmdrules, programs
from gavelkit.task.anticheat.cmdrules import Hit, command_hit
from gavelkit.task.anticheat.places import Context, match_place, norm
from gavelkit.task.anticheat.progpaths import StructuredPrograms
from gavelkit.task.anticheat.shell import MAX_DEPTH, MAX_LEN, SimpleCommand, parse, resolve_path
from gavelkit.task.anticheat.trajectory.events import Event

LISTERS = {"ls", "find", "tree", "du", "stat", "file", "dir", "exa", "eza", "fd", "fdfind",
           "locate", "realpath", "readlink", "test", "[", "basename", "dirname", "lsattr", "ll"}
NOOP = {"cd", "pushd", "popd", "echo", "printf", "true", "false", "export", "set", "unset",
        "which", "type", "alias", "exit", "return", "sleep", "wait", "read", "pwd", "clear",
        "source", ".", "local", "declare", "shift", "trap", "kill", "jobs", "hash", "history"}
WRAPPERS = {"sudo", "env", "timeout", "nohup", "time", "nice", "exec", "command", "stdbuf",
            "unbuffer", "ionice", "chronic", "caffeinate", "builtin", "doas", "strace", "ltrace"}
KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "in",
            "case", "esac", "{", "}", "!", "function", "select", "[[", "]]"}
SHELLS = {"bash", "sh", "zsh", "dash", "ksh", "fish", "ash", "busybox"}
WRITERS = {"rm", "touch", "mkdir", "chmod", "chown", "truncate", "tee", "rmdir", "unlink",
           "shred", "mv"}
COPIERS = {"cp", "rsync", "scp", "ln", "install"}
PATTERN_FIRST = {"grep", "egrep", "fgrep", "rg", "ag", "ack", "zgrep", "sed", "awk", "gawk",
                 "jq", "yq", "perl"}
_GLOBCH = re.compile(r"[*?\[]")
_SHELL_C = re.compile(r"-[a-z]*c[a-z]*")
_PROBE_PY = re.compile(r"__file__|__path__|getsourcefile|getsource|getfile|find_spec|"
                       r"spec_from|importlib\.metadata|importlib_metadata|distribution\(|"
                       r"pkg_resources|site\.getsitepackages|sysconfig\.get_path")


def _split_assign(word: str) -> list[str]:
    if "=" in word and not word.startswith("/"):
        return [word.split("=", 1)[1]]
    return [word]


def _dedupe(hits: list[Hit]) -> list[Hit]:
    seen: set[tuple[str, str]] = set()
    out = []
    for h in hits:
        key = (h.code, h.target)
        if key not in seen:
            seen.add(key)
            out.append(h)
    return out


class Analyzer(StructuredPrograms):
    """Turns one event into hits; keeps the per-session working directory."""

    def __init__(self, ctx: Context, inferred: Sequence[str] = ()) -> None:
        self.ctx = ctx
        self.workspace = list(inferred)       # inferred from the transcript (generic exempt)
        self.cwd: str | None = None
        self.direct_calls: set[str] = set()
        self.check_outputs = True     # the caller may know a line holds no forbidden name
        self.gate: Callable[[str], bool] | None = None   # quick anchor test for actions
        self._gate_cwd: dict[str, bool] = {}

    # -- paths
    def _path(self, word: str, cwd: str | None, access: str, is_glob: bool, hits: list[Hit],
              how: str) -> None:
        if not word or word.startswith("-"):
            return
        if word.startswith(("$(", "http://", "https://")) or "\n" in word:
            return
        path = resolve_path(word, cwd, self.ctx.home)
        place = match_place(self.ctx, path, (is_glob and bool(_GLOBCH.search(word))) or is_glob,
                            self.workspace)
        if place is None:
            return
        if access == "list":
            hits.append(Hit("CHT-S001", "warning", f"{how} lists {place.what}: {path}", path,
                            "list"))
        elif access == "write":
            hits.append(Hit("CHT-W001", "error", f"{how} writes into {place.what}: {path}",
                            path, "write"))
        else:
            hits.append(Hit(place.code, place.severity, f"{how} reads {place.what}: {path}",
                            path, "read"))

    def _unverifiable(self, hits: list[Hit], why: str) -> None:
        hits.append(Hit("CHT-U006", "error", why, why, "unverifiable"))

    # -- events
    def analyse(self, ev: Event) -> list[Hit]:
        hits: list[Hit] = []
        cwd = ev.cwd or self.cwd
        acts = ev.command or ev.argv or ev.code or ev.url or ev.read or ev.write or ev.listed
        if acts and self.gate is not None and not self._gated(ev, cwd):
            if self.check_outputs and ev.output:
                self._output(ev, hits)
            return hits
        if ev.command:
            self._shell(ev.command, cwd, hits, depth=0, track=ev.cwd is None)
        if ev.argv:
            self._argv(list(ev.argv), cwd, set(), hits, None, 0)
        how = f"the {ev.tool or 'file'} tool"
        for p in ev.read:
            self._path(p, cwd, "read", False, hits, how)
        for p in ev.write:
            self._path(p, cwd, "write", False, hits, how)
        for p in ev.listed:
            self._path(p, cwd, "list", bool(_GLOBCH.search(p)), hits, how)
        if ev.code:
            self._python(ev.code, cwd, hits, 0)
        if ev.url:
            cmdrules.urls(self.ctx, [ev.url], hits, ev.tool or "fetch", self._path)
        if self.check_outputs and ev.output and (ev.tool == "output" or not hits):
            self._output(ev, hits)
        if ev.call_id and any(h.access != "output" and h.severity == "error" for h in hits):
            self.direct_calls.add(ev.call_id)
        return _dedupe(hits)

    def _gated(self, ev: Event, cwd: str | None) -> bool:
        """Could this action matter? (some anchor in it or its directory, or a `cd`)."""
        assert self.gate is not None
        if cwd:
            hit = self._gate_cwd.get(cwd)
            if hit is None:
                hit = self._gate_cwd[cwd] = self.gate(cwd)
            if hit:
                return True
        if ev.command and ev.cwd is None and "cd " in ev.command:
            return True
        if ev.command and not (ev.argv or ev.code or ev.url or ev.read or ev.write
                               or ev.listed):
            text = ev.command
        else:
            parts = [ev.command or "", " ".join(ev.argv or ()), ev.code or "", ev.url or "",
                     *ev.read, *ev.write, *ev.listed]
            text = "\n".join(p for p in parts if p)
        return len(text) > MAX_LEN or self.gate(text)

    def _shell(self, src: str, cwd: str | None, hits: list[Hit], depth: int,
               track: bool = False) -> None:
        if depth > MAX_DEPTH:
            self._unverifiable(hits, f"shell nesting deeper than {MAX_DEPTH} levels was not "
                                     "followed")
            return
        notes: list[str] = []
        cmds = parse(src, cwd=cwd, home=self.ctx.home, _depth=depth, notes=notes)
        for note in dict.fromkeys(notes):
            self._unverifiable(hits, note)
        for cmd in cmds:
            self._simple(cmd, hits, depth)
        if track and cmds:
            last = cmds[-1]
            if last.argv and last.argv[0] in ("cd", "pushd"):
                tgt = next((a for a in last.argv[1:] if not a.startswith("-")), self.ctx.home)
                self.cwd = resolve_path(tgt, last.cwd, self.ctx.home)

    def _simple(self, cmd: SimpleCommand, hits: list[Hit], depth: int) -> None:
        for r in cmd.reads:
            self._path(r, cmd.cwd, "read", False, hits, "input redirection")
        for w in cmd.writes:
            self._path(w, cmd.cwd, "write", False, hits, "output redirection")
        if not cmd.argv:
            return
        stdin_paths: list[str] = []
        src = cmd.piped_from
        if src is not None and src.argv:
            prog = posixpath.basename(src.argv[0])
            if prog in ("find", "ls", "echo", "printf", "fd", "locate"):
                pargs = src.argv[1:]
                stdin_paths = [a for a in pargs if not a.startswith(("-", "(", "!"))]
                if prog in ("find", "ls", "fd"):
                    root = stdin_paths[0] if stdin_paths and prog != "fd" else "."
                    names = [pargs[j + 1] for j in range(len(pargs) - 1)
                             if pargs[j] in ("-name", "-iname", "-path")]
                    stdin_paths = [posixpath.join(root, "**", n) for n in names] or \
                        [posixpath.join(root, "*")]
        self._argv(list(cmd.argv), cmd.cwd, set(cmd.glob_args), hits, cmd.heredoc, depth,
                   stdin_paths, cmd.piped_from)

    def _strip(self, argv: list[str], globs: set[int]) -> tuple[list[str], set[int]]:
        """Drop shell keywords, wrappers (sudo, env, timeout…) and their options."""
        while argv:
            head = posixpath.basename(argv[0])
            if head in KEYWORDS:
                argv, globs = argv[1:], {i - 1 for i in globs if i > 0}
                continue
            if head in WRAPPERS:
                k = 1
                while k < len(argv) and (argv[k].startswith("-") or "=" in argv[k]
                                         or (head == "timeout"
                                             and re.fullmatch(r"[\d.]+[smhd]?", argv[k]))
                                         or (head == "nice" and argv[k - 1] == "-n")):
                    k += 1
                argv, globs = argv[k:], {i - k for i in globs if i >= k}
                continue
            break
        return argv, globs

    def _argv(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
              heredoc: str | None, depth: int, stdin_paths: Sequence[str] = (),
              piped_from: SimpleCommand | None = None) -> None:
        if depth > MAX_DEPTH:
            self._unverifiable(hits, f"command nesting deeper than {MAX_DEPTH} levels was not "
                                     "followed")
            return
        argv, globs = self._strip(argv, globs)
        if not argv:
            return
        prog = posixpath.basename(argv[0])
        prog = re.sub(r"(\d+(\.\d+)*)$", "", prog) if prog.startswith("python") else prog
        args = argv[1:]
        if prog == "xargs":
            k = 1
            while k < len(argv) and argv[k].startswith("-"):
                k += 2 if argv[k] in ("-I", "-n", "-P", "-d", "-L", "-s", "-E") else 1
            rest = argv[k:] or ["echo"]
            self._argv(rest + list(stdin_paths), cwd,
                       set(range(len(rest), len(rest) + len(stdin_paths))), hits, None,
                       depth + 1)
            return
        if prog in SHELLS:
            idx = next((i for i, a in enumerate(args) if _SHELL_C.fullmatch(a)), None)
            if idx is not None:
                if idx + 1 < len(args):
                    self._shell(args[idx + 1], cwd, hits, depth + 1)
                return
            script = next((a for a in args if not a.startswith("-")), None)
            if script:
                self._path(script, cwd, "read", False, hits, prog)
            elif heredoc:
                self._shell(heredoc, cwd, hits, depth + 1)
            return
        if prog == "eval":
            self._shell(" ".join(args), cwd, hits, depth + 1)
            return
        if prog.startswith("python") or prog in ("pypy", "pypy3", "ipython"):
            self._python_cli(args, cwd, hits, heredoc, depth)
            return
        if prog in ("uv", "poetry", "pdm", "hatch", "pipenv", "rye") and args[:1] == ["run"]:
            rest = list(args[1:])
            while rest and rest[0].startswith("-"):
                rest = rest[1:]
            self._argv(rest, cwd, set(), hits, heredoc, depth + 1)
            return
        if prog == "uvx" or (prog == "pipx" and args[:1] == ["run"]):
            rest = args[1:] if prog == "pipx" else args
            words = [a for a in rest if not a.startswith("-")]
            m = cmdrules.WORD.match(words[0]) if words else None
            if m and norm(m.group(0)) in self.ctx.targets:
                command_hit(self.ctx, "install-target", argv, hits)
            return
        cmdrules.check(self.ctx, prog, argv, cwd, hits, piped_from, self._path)
        if prog in NOOP:
            return
        if prog == "git":
            self._git_paths(args, cwd, hits)
            return
        if prog in ("curl", "wget", "http", "https", "aria2c"):
            self._fetcher(prog, args, cwd, hits)
            return
        if prog == "find":
            self._find(args, cwd, hits, depth)
            return
        if prog in ("tar", "bsdtar", "gtar"):
            self._tar(args, cwd, globs, hits)
            return
        access = "list" if prog in LISTERS else "write" if prog in WRITERS else "read"
        syn = programs.syntax(prog)
        if syn is not None:
            found, _words = programs.path_words(prog, args, syn)
            if prog == "sed" and any(a == "-i" or a.startswith(("-i", "--in-place"))
                                     for a in args):
                found = [(w, i, "write") for w, i, _ in found]
            for word, i, acc in found:
                self._path(word, cwd, acc if access != "list" else "list", i in globs, hits,
                           prog)
            if (prog in ("grep", "egrep", "fgrep", "rg", "ag", "ack") and not _words[1:] and any(
                    a.startswith("-") and ("r" in a.lstrip("-")[:3] or a == "--recursive")
                    for a in args)) or (prog in ("rg", "ag", "ack") and not _words[1:]):
                self._path(".", cwd, "read", False, hits, prog)
            return
        positional = self._positional(prog, args)
        if prog in LISTERS and not positional and prog in ("ls", "tree", "du", "exa", "eza", "ll"):
            positional = [(".", -1)]
        if prog in COPIERS and len(positional) >= 2:
            *srcs, dst = positional
            for word, i in srcs:
                self._path(word, cwd, "read", i + 1 in globs, hits, prog)
            self._path(dst[0], cwd, "write", False, hits, prog)
            return
        for word, i in positional:
            for part in _split_assign(word):
                self._path(part, cwd, access, i + 1 in globs, hits, prog)

    def _positional(self, prog: str, args: list[str]) -> list[tuple[str, int]]:
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
                i += 1
                continue
            if skip_first:
                skip_first = False
                i += 1
                continue
            out.append((a, i))
            i += 1
        return out

    def _python_cli(self, args: list[str], cwd: str | None, hits: list[Hit],
                    heredoc: str | None, depth: int) -> None:
        k = 0
        while k < len(args):
            a = args[k]
            if a == "-c" and k + 1 < len(args):
                self._python(args[k + 1], cwd, hits, depth + 1)
                return
            if a == "-m" and k + 1 < len(args):
                self._argv([args[k + 1], *args[k + 2:]], cwd, set(), hits, heredoc, depth + 1)
                return
            if a == "-":
                if heredoc:
                    self._python(heredoc, cwd, hits, depth + 1)
                return
            if not a.startswith("-"):
                self._path(a, cwd, "read", False, hits, "python")
                for b in args[k + 1:]:
                    if not b.startswith("-"):
                        self._path(b, cwd, "read", False, hits, "python")
                return
            k += 2 if a in ("-W", "-X", "-Q") else 1
        if heredoc:
            self._python(heredoc, cwd, hits, depth + 1)

    def _python(self, code: str, cwd: str | None, hits: list[Hit], depth: int) -> None:
        strings: list[str] = []
        imports: set[str] = set()
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            strings = [m[1] for m in re.findall(r"(['\"])(.*?)\1", code)]
            imports = set(re.findall(r"(?:^|[;\s])(?:import|from)\s+([A-Za-z_][\w]*)", code))
            tree = None
        if tree is not None:
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    strings.append(node.value)
                elif isinstance(node, ast.Import):
                    imports.update(a.name.split(".")[0] for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module:
                    imports.add(node.module.split(".")[0])
                elif isinstance(node, ast.Call):
                    self._python_call(node, cwd, hits, depth)
        for s in strings:
            if s and len(s) < 4096 and "\n" not in s and ("/" in s or "." in s or "~" in s):
                self._path(s, cwd, "read", bool(_GLOBCH.search(s)), hits, "python")
        if {norm(i) for i in imports} & self.ctx.targets and _PROBE_PY.search(code):
            command_hit(self.ctx, "probe-installed", ["python", "-c", code], hits,
                        "python code imports the target and asks where it is installed")

    def _python_call(self, node: ast.Call, cwd: str | None, hits: list[Hit],
                     depth: int) -> None:
        fn = node.func
        name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
        if name not in ("system", "popen", "getoutput", "getstatusoutput", "run", "call",
                        "check_call", "check_output", "Popen") or not node.args:
            return
        a0 = node.args[0]
        if isinstance(a0, ast.Constant) and isinstance(a0.value, str):
            self._shell(a0.value, cwd, hits, depth + 1)
        elif isinstance(a0, ast.List | ast.Tuple) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in a0.elts):
            self._argv([e.value for e in a0.elts], cwd, set(), hits, None,  # type: ignore[attr-defined]
                       depth + 1)

    def _output(self, ev: Event, hits: list[Hit]) -> None:
        text = ev.output or ""
        if self.ctx.sig_rx is not None and self.ctx.signatures and "::" in text and any(
                f in text for f in self.ctx.sig_files):
            found = {f"{m.group(1)}::{m.group(2)}" for m in self.ctx.sig_rx.finditer(text)}
            leaked = found & self.ctx.signatures
            if len(leaked) >= 2:
                hits.append(Hit("CHT-O001", "error",
                                f"tool output shows {len(leaked)} oracle test ids "
                                f"(e.g. {sorted(leaked)[0]})", sorted(leaked)[0], "output"))
                return
        if ev.call_id and ev.call_id in self.direct_calls:
            return
        if self.ctx.surface_rx is not None and any(lit in text for lit in self.ctx.surface_lits):
            names = sorted({m.group(0) for m in self.ctx.surface_rx.finditer(text)})
            if names:
                hits.append(Hit("CHT-S002", "warning",
                                f"tool output shows forbidden place(s): {', '.join(names[:5])}",
                                names[0], "output"))
