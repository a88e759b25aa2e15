"""Programs whose path arguments have structure of their own: tar, find, git, curl/wget.

`tar -C DIR` names members relative to DIR (create reads them, extract writes below
DIR); `find` roots are listed, a `-name` that hunts a scoring file's name is an
attempt on it (error), `-exec` runs a command per match; `git -C DIR` moves git's
directory and only some verbs take paths; curl/wget read `file://` URLs and
`@file` data and write `-o` files. A mixin of `analyze.Analyzer`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gavelkit.task.anticheat.cmdrules import Hit
from gavelkit.task.anticheat.placematch import forbidden_name
from gavelkit.task.anticheat.sheval import resolve_path

MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
_FIND_NAME = ("-name", "-iname", "-path", "-ipath", "-wholename", "-regex")


class StructuredPrograms:
    """Path handling of tar, find, git and the fetchers (needs `_path` and `_argv`)."""

    ctx: Any

    def _path(self, word: str, cwd: str | None, access: str, is_glob: bool, hits: list[Hit],
              how: str, strict: bool = True) -> None:
        raise NotImplementedError

    def _argv(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
              heredoc: str | None, depth: int, stdin_paths: Sequence[str] = (),
              piped_from: Any = None, sc: Any = None) -> None:
        raise NotImplementedError

    def _run_argv(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
                  depth: int) -> None:
        raise NotImplementedError

    def _make(self, args: list[str], cwd: str | None, hits: list[Hit], depth: int) -> None:
        """make runs the recipes of its makefile (`-f F`, else the default names in the
        folder, `-C D` first): a makefile the session wrote is run as the shell it is;
        any other is read."""
        folder, files = _make_args(args, cwd, self.ctx.home)
        for name in files or list(MAKEFILES):
            body = self.state.file(name, folder)  # type: ignore[attr-defined]
            if body is None:
                if files:
                    self._path(name, folder, "read", False, hits, "make")
                continue
            for line in body.splitlines():
                if line.startswith("\t"):
                    self._shell(line.lstrip("\t").lstrip("@-+ "), folder, hits,  # type: ignore[attr-defined]
                                depth + 1)

    def _fetcher(self, prog: str, args: list[str], cwd: str | None, hits: list[Hit]) -> None:
        for j, a in enumerate(args):
            if a.startswith("file://"):
                self._path(a, cwd, "read", False, hits, prog)   # `_path` reads the URL's path
            elif a.startswith("@") and j > 0 and args[j - 1] in _FETCH_DATA:
                self._path(a[1:], cwd, "read", False, hits, prog)
            elif j + 1 < len(args):
                access = _fetch_option(prog, a)
                if access:
                    self._path(args[j + 1], cwd, access, False, hits, prog)

    def _tar(self, args: list[str], cwd: str | None, globs: set[int], hits: list[Hit]) -> None:
        """tar: members are named relative to -C; -c reads them, -x writes below -C."""
        first = args[0] if args else ""
        if first and not first.startswith("-") and re.fullmatch(r"[A-Za-z]+", first):
            args = [f"-{first}", *args[1:]]          # old style: `tar czf x.tgz dir`
        t = _TarArgs(tcwd=cwd)
        i = 0
        while i < len(args):
            i = t.take(args, i, self.ctx.home)
        self._tar_paths(t, cwd, globs, hits)

    def _tar_paths(self, t: _TarArgs, cwd: str | None, globs: set[int],
                   hits: list[Hit]) -> None:
        if t.archive and t.archive != "-":
            self._path(t.archive, cwd, "write" if t.mode == "c" else "read", False, hits, "tar")
        if t.mode in ("c", "r", "u"):
            for m, mcwd, idx in t.members:
                self._path(m, mcwd, "read", idx in globs, hits, "tar")
        elif t.mode == "x" and t.tcwd is not None and t.tcwd != cwd:
            self._path(t.tcwd, cwd, "write", False, hits, "tar -C")

    def _find(self, args: list[str], cwd: str | None, hits: list[Hit], depth: int) -> None:
        k = 0
        while k < len(args) and not args[k].startswith(("-", "(", "!")):
            k += 1
        roots = args[:k] or ["."]
        names = [args[j + 1] for j in range(k, len(args) - 1) if args[j] in _FIND_NAME]
        self._find_names(args, names, hits)
        for r in roots:
            self._path(r, cwd, "list", True, hits, "find")
            for n in names:
                self._path(posixpath.join(r, "**", n) if "/" not in n else n, cwd, "list",
                           True, hits, "find")
        self._find_exec(args, k, roots, names, cwd, hits, depth)

    def _find_names(self, args: list[str], names: list[str], hits: list[Hit]) -> None:
        for n in names:
            hunted = forbidden_name(self.ctx, posixpath.basename(n))
            if hunted is not None:
                hits.append(Hit(hunted.code, "error", f"find hunts for {hunted.what} by name: "
                                f"find {' '.join(args)}"[:240], n, "read"))

    def _find_exec(self, args: list[str], k: int, roots: list[str], names: list[str],
                   cwd: str | None, hits: list[Hit], depth: int) -> None:
        """`-exec CMD {} ;` runs CMD once per match: on each root with each name hunted."""
        tails = [posixpath.join("**", posixpath.basename(n)) for n in names] or ["*"]
        for inner in _exec_commands(args, k):
            marks = {i for i, w in enumerate(inner) if "{}" in w}
            for r in roots:
                for tail in tails[:4]:
                    sub = [w.replace("{}", posixpath.join(r, tail)) if "{}" in w else w
                           for w in inner]
                    self._run_argv(sub, cwd, marks, hits, depth)

    def _git_sources(self, verb: str, rest: list[str], cwd: str | None, hits: list[Hit]) -> None:
        """Repositories git reads from: `clone SRC`, `archive --remote=R`, `fetch R`,
        `remote add N R`, `submodule add R`, `pull R`, `worktree add`: a local path
        there is a read of that repository."""
        for s in _git_repos(verb, rest):
            s = s.removeprefix("file://")
            if s.startswith(("/", ".", "~")) or ("/" in s and ":" not in s.split("/")[0]):
                self._path(s, cwd, "read", False, hits, f"git {verb}")

    def _git_paths(self, args: list[str], cwd: str | None, hits: list[Hit]) -> None:
        k, gcwd = self._git_options(args, cwd, hits)
        verb = args[k] if k < len(args) else ""
        rest = args[k + 1:]
        self._git_sources(verb, rest, gcwd, hits)
        if verb in _GIT_NO_PATHS:
            # their words are refs, messages or names; paths only after `--`
            rest = rest[rest.index("--") + 1:] if "--" in rest else []
        for a in rest:
            if a.startswith("-"):
                continue
            if ":" in a and not a.startswith(("http", "git@")):
                a = a.split(":", 1)[1]
            self._path(a, gcwd, "read", False, hits, f"git {verb}")

    def _git_options(self, args: list[str], cwd: str | None,
                     hits: list[Hit]) -> tuple[int, str | None]:
        """git's own options before the verb: `-C DIR` moves it, `--git-dir`/`--work-tree`
        read a repository. Returns the verb's index and git's folder."""
        k, gcwd = 0, cwd
        while k < len(args) and args[k].startswith("-"):
            a = args[k]
            if a in ("-C", "-c", "--git-dir", "--work-tree") and k + 1 < len(args):
                if a == "-C":
                    gcwd = resolve_path(args[k + 1], cwd, self.ctx.home)
                if a != "-c":
                    self._path(args[k + 1], cwd, "read", False, hits,
                               "git -C" if a == "-C" else "git")
                k += 2
                continue
            if a.startswith(("--git-dir=", "--work-tree=")):
                self._path(a.split("=", 1)[1], cwd, "read", False, hits, "git")
            k += 1
        return k, gcwd


_FETCH_OUT = ("-o", "--output", "-O", "--output-document")
_FETCH_IN = ("-K", "--config", "-i", "--input-file", "-T", "--upload-file")
_FETCH_DATA = ("-d", "--data", "-F", "--data-binary")
_GIT_NO_PATHS = frozenset({"commit", "tag", "stash", "config", "remote", "init", "status",
                           "clone", "branch", "checkout", "switch", "reset", "fetch", "pull",
                           "push", "rev-parse", "describe", "merge-base"})
_TAR_MODES = {"--create": "c", "--extract": "x", "--get": "x", "--list": "t",
              "--append": "r", "--update": "u"}


def _exec_commands(args: list[str], k: int) -> list[list[str]]:
    """The commands of find's -exec/-execdir/-ok/-okdir actions (up to `;` or `+`)."""
    out: list[list[str]] = []
    j = k
    while j < len(args):
        if args[j] in ("-exec", "-execdir", "-ok", "-okdir"):
            end = j + 1
            while end < len(args) and args[end] not in (";", "+", "\\;"):
                end += 1
            out.append(args[j + 1:end])
            j = end
        j += 1
    return out


def _fetch_option(prog: str, opt: str) -> str:
    """What a fetcher's option does with the path after it: write, read, or nothing."""
    if opt in _FETCH_OUT and not (prog == "curl" and opt == "-O"):
        return "write"
    return "read" if opt in _FETCH_IN else ""


def _git_repos(verb: str, rest: list[str]) -> list[str]:
    srcs = _git_repo_words(verb, [a for a in rest if not a.startswith("-")])
    srcs.extend(a.split("=", 1)[1] for a in rest if a.startswith("--remote="))
    if verb == "archive" and "--remote" in rest[:-1]:
        srcs.append(rest[rest.index("--remote") + 1])
    return srcs


def _git_repo_words(verb: str, words: list[str]) -> list[str]:
    if verb in ("clone", "fetch", "pull", "submodule") and words:
        return [words[1] if verb == "submodule" and len(words) > 1 else words[0]]
    if verb == "remote" and len(words) >= 3 and words[0] in ("add", "set-url"):
        return [words[2]]
    return []


@dataclass
class _TarArgs:
    """tar's words read left to right: its mode, archive, -C folder and members."""

    tcwd: str | None
    mode: str = ""
    archive: str | None = None
    members: list[tuple[str, str | None, int]] = field(default_factory=list)

    def take(self, args: list[str], i: int, home: str) -> int:
        """Read the word at i (and its value); the index of the next word."""
        a = args[i]
        if a in ("-C", "--directory", "-f", "--file") and i + 1 < len(args):
            if a in ("-C", "--directory"):
                self.tcwd = resolve_path(args[i + 1], self.tcwd, home)
            else:
                self.archive = args[i + 1]
            return i + 2
        if a.startswith("--directory="):
            self.tcwd = resolve_path(a.split("=", 1)[1], self.tcwd, home)
        elif a.startswith("--file="):
            self.archive = a.split("=", 1)[1]
        elif a.startswith("--"):
            self.mode = self.mode or _TAR_MODES.get(a, "")
        elif a.startswith("-") and len(a) > 1:
            return self._flags(args, i)
        else:
            self.members.append((a, self.tcwd, i + 1))
        return i + 1

    def _flags(self, args: list[str], i: int) -> int:
        flags = args[i][1:]
        self.mode = self.mode or next((c for c in flags if c in "cxtru"), "")
        if "f" in flags:
            rest = flags[flags.index("f") + 1:]
            if rest:
                self.archive = rest
            elif i + 1 < len(args):
                self.archive = args[i + 1]
                return i + 2
        return i + 1


def _make_args(args: list[str], cwd: str | None, home: str) -> tuple[str | None, list[str]]:
    """make's folder (`-C D`, in order) and its makefiles (`-f F`, `--file=F`)."""
    folder, files = cwd, []
    i = 0
    while i < len(args):
        a = args[i]
        head, eq, val = a.partition("=") if a.startswith("--") else (a, "", "")
        if not eq and head in _MAKE_OPTS and i + 1 < len(args):
            val, i = args[i + 1], i + 1
        if head in _MAKE_OPTS and val:
            if head in ("-C", "--directory"):
                folder = resolve_path(val, folder, home)
            else:
                files.append(val)
        i += 1
    return folder, files


_MAKE_OPTS = ("-C", "--directory", "-f", "--file", "--makefile")
