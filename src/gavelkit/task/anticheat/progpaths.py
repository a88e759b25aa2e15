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
from typing import Any

from gavelkit.task.anticheat.cmdrules import Hit
from gavelkit.task.anticheat.places import forbidden_name
from gavelkit.task.anticheat.sheval import resolve_path

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

    def _fetcher(self, prog: str, args: list[str], cwd: str | None, hits: list[Hit]) -> None:
        for j, a in enumerate(args):
            if a.startswith("file://"):
                self._path(a[7:], cwd, "read", False, hits, prog)
            elif a in ("-o", "--output", "-O", "--output-document") and j + 1 < len(args) and \
                    not (prog == "curl" and a == "-O"):
                self._path(args[j + 1], cwd, "write", False, hits, prog)
            elif a in ("-K", "--config", "-i", "--input-file", "-T", "--upload-file") and \
                    j + 1 < len(args):
                self._path(args[j + 1], cwd, "read", False, hits, prog)
            elif a.startswith("@") and j > 0 and args[j - 1] in ("-d", "--data", "-F",
                                                                 "--data-binary"):
                self._path(a[1:], cwd, "read", False, hits, prog)

    def _tar(self, args: list[str], cwd: str | None, globs: set[int], hits: list[Hit]) -> None:
        """tar: members are named relative to -C; -c reads them, -x writes below -C."""
        mode = ""
        archive: str | None = None
        tcwd = cwd
        members: list[tuple[str, str | None, int]] = []
        i = 0
        first = args[0] if args else ""
        if first and not first.startswith("-") and re.fullmatch(r"[A-Za-z]+", first):
            args = [f"-{first}", *args[1:]]          # old style: `tar czf x.tgz dir`
        while i < len(args):
            a = args[i]
            if a in ("-C", "--directory") and i + 1 < len(args):
                tcwd = resolve_path(args[i + 1], tcwd, self.ctx.home)
                i += 2
                continue
            if a.startswith("--directory="):
                tcwd = resolve_path(a.split("=", 1)[1], tcwd, self.ctx.home)
            elif a.startswith("--file="):
                archive = a.split("=", 1)[1]
            elif a in ("-f", "--file") and i + 1 < len(args):
                archive = args[i + 1]
                i += 2
                continue
            elif a.startswith("--"):
                mode = mode or {"--create": "c", "--extract": "x", "--get": "x", "--list": "t",
                                "--append": "r", "--update": "u"}.get(a, "")
            elif a.startswith("-") and len(a) > 1:
                flags = a[1:]
                mode = mode or next((c for c in flags if c in "cxtru"), "")
                if "f" in flags:
                    rest = flags[flags.index("f") + 1:]
                    if rest:
                        archive = rest
                    elif i + 1 < len(args):
                        archive = args[i + 1]
                        i += 1
            else:
                members.append((a, tcwd, i + 1))
            i += 1
        if archive and archive != "-":
            self._path(archive, cwd, "write" if mode == "c" else "read", False, hits, "tar")
        if mode in ("c", "r", "u"):
            for m, mcwd, idx in members:
                self._path(m, mcwd, "read", idx in globs, hits, "tar")
        elif mode == "x" and tcwd is not None and tcwd != cwd:
            self._path(tcwd, cwd, "write", False, hits, "tar -C")

    def _find(self, args: list[str], cwd: str | None, hits: list[Hit], depth: int) -> None:
        roots: list[str] = []
        k = 0
        while k < len(args) and not args[k].startswith(("-", "(", "!")):
            roots.append(args[k])
            k += 1
        roots = roots or ["."]
        names = [args[j + 1] for j in range(k, len(args) - 1) if args[j] in _FIND_NAME]
        for n in names:
            hunted = forbidden_name(self.ctx, posixpath.basename(n))
            if hunted is not None:
                hits.append(Hit(hunted.code, "error", f"find hunts for {hunted.what} by name: "
                                f"find {' '.join(args)}"[:240], n, "read"))
        for r in roots:
            self._path(r, cwd, "list", True, hits, "find")
            for n in names:
                self._path(posixpath.join(r, "**", n) if "/" not in n else n, cwd, "list",
                           True, hits, "find")
        j = k
        while j < len(args):
            if args[j] in ("-exec", "-execdir", "-ok", "-okdir"):
                end = j + 1
                while end < len(args) and args[end] not in (";", "+", "\\;"):
                    end += 1
                inner = args[j + 1:end]
                for r in roots:
                    tails = [posixpath.join("**", posixpath.basename(n)) for n in names] or ["*"]
                    for tail in tails[:4]:
                        sub = [w.replace("{}", posixpath.join(r, tail)) if "{}" in w else w
                               for w in inner]
                        self._run_argv(sub, cwd, {i for i, w in enumerate(inner) if "{}" in w},
                                       hits, depth)
                j = end
            j += 1

    def _git_sources(self, verb: str, rest: list[str], cwd: str | None, hits: list[Hit]) -> None:
        """Repositories git reads from: `clone SRC`, `archive --remote=R`, `fetch R`,
        `remote add N R`, `submodule add R`, `pull R`, `worktree add`: a local path
        there is a read of that repository."""
        words = [a for a in rest if not a.startswith("-")]
        srcs: list[str] = []
        if verb in ("clone", "fetch", "pull", "submodule") and words:
            srcs.append(words[1] if verb == "submodule" and len(words) > 1 else words[0])
        elif verb == "remote" and len(words) >= 3 and words[0] in ("add", "set-url"):
            srcs.append(words[2])
        for a in rest:
            if a.startswith("--remote="):
                srcs.append(a.split("=", 1)[1])
        if verb == "archive" and "--remote" in rest:
            i = rest.index("--remote")
            if i + 1 < len(rest):
                srcs.append(rest[i + 1])
        for s in srcs:
            s = s.removeprefix("file://")
            if s.startswith(("/", ".", "~")) or ("/" in s and ":" not in s.split("/")[0]):
                self._path(s, cwd, "read", False, hits, f"git {verb}")

    def _git_paths(self, args: list[str], cwd: str | None, hits: list[Hit]) -> None:
        k = 0
        gcwd = cwd
        while k < len(args) and args[k].startswith("-"):
            if args[k] == "-C" and k + 1 < len(args):
                gcwd = resolve_path(args[k + 1], cwd, self.ctx.home)
                self._path(args[k + 1], cwd, "read", False, hits, "git -C")
                k += 2
                continue
            if args[k] in ("-c", "--git-dir", "--work-tree") and k + 1 < len(args):
                if args[k] != "-c":
                    self._path(args[k + 1], cwd, "read", False, hits, "git")
                k += 2
                continue
            if args[k].startswith(("--git-dir=", "--work-tree=")):
                self._path(args[k].split("=", 1)[1], cwd, "read", False, hits, "git")
            k += 1
        verb = args[k] if k < len(args) else ""
        rest = args[k + 1:]
        self._git_sources(verb, rest, gcwd, hits)
        if verb in ("commit", "tag", "stash", "config", "remote", "init", "status", "clone",
                    "branch", "checkout", "switch", "reset", "fetch", "pull", "push",
                    "rev-parse", "describe", "merge-base"):
            # their words are refs, messages or names; paths only after `--`
            rest = rest[rest.index("--") + 1:] if "--" in rest else []
        for a in rest:
            if a.startswith("-"):
                continue
            if ":" in a and not a.startswith(("http", "git@")):
                a = a.split(":", 1)[1]
            self._path(a, gcwd, "read", False, hits, f"git {verb}")
