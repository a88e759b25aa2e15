"""From one event to hits: shell and Python parsed, every path resolved against the
session's working directory and matched against the forbidden places."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

# --------------------------------------------------------------------------- analysis
from gavelkit.task.anticheat.places import Context, _norm, match_place
from gavelkit.task.anticheat.programs import CommandRules, ProgramPaths
from gavelkit.task.anticheat.rules import (
    _GLOBCH,
    _WORD,
    COPIERS,
    KEYWORDS,
    LISTERS,
    NOOP,
    SHELLS,
    WRAPPERS,
    WRITERS,
    Hit,
)
from gavelkit.task.anticheat.shell import SimpleCommand, parse, resolve_path
from gavelkit.task.anticheat.trajectory.events import Event


class Analyzer(ProgramPaths, CommandRules):
    """Turns one event into hits; keeps the per-session working directory."""

    def __init__(self, ctx: Context, workspace: Sequence[str] = ()) -> None:
        self.ctx = ctx
        self.workspace = list(workspace) or list(ctx.workspaces)
        self.cwd: str | None = None
        self.direct_calls: set[str] = set()
        self.check_outputs = True     # the caller may know a line holds no forbidden name

    # -- paths
    def _path(self, word: str, cwd: str | None, access: str, is_glob: bool, hits: list[Hit],
              how: str) -> None:
        if not word or (word.startswith("-") and access != "read-forced"):
            return
        if word.startswith(("$(", "http://", "https://")) or "\n" in word:
            return
        path = resolve_path(word, cwd, self.ctx.home)
        place = match_place(self.ctx, path, is_glob or (bool(_GLOBCH.search(word)) and is_glob),
                            self.workspace)
        if place is None:
            return
        if access == "list":
            hits.append(Hit("CHT-S001", "warning", f"{how} lists {place.what}: {path}", path, "list"))
        elif access == "write":
            hits.append(Hit("CHT-W001", "error", f"{how} writes into {place.what}: {path}",
                            path, "write"))
        else:
            hits.append(Hit(place.code, place.severity, f"{how} reads {place.what}: {path}",
                            path, "read"))

    # -- events
    def analyse(self, ev: Event) -> list[Hit]:
        hits: list[Hit] = []
        cwd = ev.cwd or self.cwd
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
            self._urls([ev.url], hits, ev.tool or "fetch")
        if self.check_outputs and ev.output and (ev.tool == "output" or not hits):
            self._output(ev, hits)
        if ev.call_id and any(h.access != "output" and h.severity == "error" for h in hits):
            self.direct_calls.add(ev.call_id)
        return _dedupe(hits)

    def _shell(self, src: str, cwd: str | None, hits: list[Hit], depth: int,
               track: bool = False) -> None:
        cmds = parse(src, cwd=cwd, home=self.ctx.home, _depth=depth)
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
        if cmd.argv:
            stdin_paths: list[str] = []
            if cmd.piped_from is not None and cmd.piped_from.argv:
                prog = posixpath.basename(cmd.piped_from.argv[0])
                if prog in ("find", "ls", "echo", "printf", "fd", "locate"):
                    pargs = cmd.piped_from.argv[1:]
                    stdin_paths = [a for a in pargs if not a.startswith(("-", "(", "!"))]
                    if prog in ("find", "ls", "fd"):
                        root = stdin_paths[0] if stdin_paths and prog != "fd" else "."
                        names = [pargs[j + 1] for j in range(len(pargs) - 1)
                                 if pargs[j] in ("-name", "-iname", "-path")]
                        stdin_paths = [posixpath.join(root, "**", n) for n in names] or \
                            [posixpath.join(root, "*")]
            self._argv(list(cmd.argv), cmd.cwd, set(cmd.glob_args), hits, cmd.heredoc, depth,
                       stdin_paths, cmd.piped_from)

    def _argv(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
              heredoc: str | None, depth: int, stdin_paths: Sequence[str] = (),
              piped_from: SimpleCommand | None = None) -> None:
        if depth > 8:
            return
        # strip keywords, wrappers and their options
        while argv:
            head = posixpath.basename(argv[0])
            if head in KEYWORDS:
                argv, globs = argv[1:], {i - 1 for i in globs if i > 0}
                continue
            if head in WRAPPERS:
                k = 1
                while k < len(argv) and (argv[k].startswith("-") or "=" in argv[k]
                                         or (head == "timeout" and re.fullmatch(r"[\d.]+[smhd]?", argv[k]))
                                         or (head == "nice" and argv[k - 1] == "-n")):
                    k += 1
                argv, globs = argv[k:], {i - k for i in globs if i >= k}
                continue
            break
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
                       set(range(len(rest), len(rest) + len(stdin_paths))), hits, None, depth + 1)
            return
        if prog in SHELLS:
            if "-c" in args or any(re.fullmatch(r"-[a-z]*c[a-z]*", a) for a in args):
                idx = next(i for i, a in enumerate(args) if re.fullmatch(r"-[a-z]*c[a-z]*", a))
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
            rest = [a for a in args[1:]]
            while rest and rest[0].startswith("-"):
                rest = rest[1:]
            self._argv(rest, cwd, set(), hits, heredoc, depth + 1)
            return
        if prog in ("uvx",) or (prog == "pipx" and args[:1] == ["run"]):
            rest = args[1:] if prog == "pipx" else args
            words = [a for a in rest if not a.startswith("-")]
            if words and _norm(_WORD.match(words[0]).group(0) if _WORD.match(words[0]) else "") in self.ctx.targets:
                self._command_hit("install-target", argv, hits)
            return
        self._command_rules(prog, argv, cwd, hits, piped_from)
        if prog in NOOP:
            return
        if prog == "git":
            self._git_paths(args, cwd, hits)
            return
        if prog in ("curl", "wget", "http", "https", "aria2c"):
            for a in args:
                if a.startswith("file://"):
                    self._path(a[7:], cwd, "read", False, hits, prog)
            return
        if prog == "find":
            self._find(args, cwd, globs, hits, depth)
            return
        access = "list" if prog in LISTERS else "write" if prog in WRITERS else "read"
        positional = self._positional(prog, args)
        if prog in LISTERS and not positional and prog in ("ls", "tree", "du", "exa", "eza", "ll"):
            positional = [(".", -1)]
        if prog in ("grep", "egrep", "fgrep", "rg", "ag", "ack") and not positional and any(
                a.startswith("-") and ("r" in a.lstrip("-")[:3] or a in ("--recursive",))
                for a in args):
            positional = [(".", -1)]
        if prog in COPIERS and len(positional) >= 2:
            *srcs, dst = positional
            for word, i in srcs:
                self._path(word, cwd, "read", i + 1 in globs, hits, prog)
            self._path(dst[0], cwd, "write", False, hits, prog)
            return
        if prog == "sed" and any(a == "-i" or a.startswith("-i") for a in args):
            access = "write"
        for word, i in positional:
            for part in _split_assign(word):
                self._path(part, cwd, access, i + 1 in globs, hits, prog)

    def _output(self, ev: Event, hits: list[Hit]) -> None:
        text = ev.output or ""
        if len(text) > 4_000_000:
            text = text[:4_000_000]
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

    # -- command rules



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


