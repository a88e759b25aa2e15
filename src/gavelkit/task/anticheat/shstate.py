"""The state of one shell session the evaluator carries, and the commands it yields.

`ShState` is what persists from one action to the next where the agent format's
shell persists (variables, working folder, folder stack, functions, and the files the
session wrote, which subshells share); `SimpleCommand` is one command as bash would
run it. Kept apart so the evaluator and its builtins share them without a cycle.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field


@dataclass(slots=True)
class SimpleCommand:
    argv: list[str]
    cwd: str | None
    reads: list[str] = field(default_factory=list)      # `< file`
    writes: list[str] = field(default_factory=list)     # `> file`, `>> file`
    heredoc: str | None = None          # stdin text when known (heredoc, here-string, pipe)
    glob_args: set[int] = field(default_factory=set)     # argv indexes that were unquoted globs
    piped_from: SimpleCommand | None = None              # previous stage of a pipeline
    stdin_unknown: bool = False          # stdin comes from something the evaluator cannot know
    env: dict[str, str] = field(default_factory=dict)    # `VAR=value cmd` assignments
    via: str = ""                        # how it was reached: eval, bash -c, $(…), a function
    # the variables it runs with (its shell's, at that point, and its own assignments):
    # the commands are checked after the whole text ran, in a subshell or `bash -c`
    environ: dict[str, str] | None = None


@dataclass
class ShState:
    """A shell session: variables, working folder, folder stack, functions, written files."""

    home: str = "/root"
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    oldpwd: str | None = None
    dirstack: list[str | None] = field(default_factory=list)
    funcs: dict[str, object] = field(default_factory=dict)
    files: dict[str, str | None] = field(default_factory=dict)   # shared by subshells
    positional: list[str] = field(default_factory=list)
    fds: int = 62

    def file(self, path: str, cwd: str | None) -> str | None:
        """The text the session wrote at `path` (None: not known). With no known working
        folder a relative path is the one written file whose path ends with it; a file
        written before the folder was known (OpenHands records it after the first
        action) is the one an absolute path ends with."""
        key = resolve_path(path, cwd, self.home)
        if key in self.files:
            return self.files[key]
        if key.startswith("/"):
            found = [v for k, v in self.files.items()
                     if not k.startswith("/") and key.endswith("/" + k.lstrip("./"))]
        else:
            tail = "/" + key.lstrip("./")
            found = [v for k, v in self.files.items() if k.endswith(tail)]
        return found[0] if len(found) == 1 else None

    def child(self) -> ShState:
        return ShState(self.home, self.cwd, dict(self.env), self.oldpwd, list(self.dirstack),
                       dict(self.funcs), self.files, list(self.positional), self.fds)


_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")     # compiled once: a path is resolved per word
_DRIVE_FWD = re.compile(r"^[A-Za-z]:/")


def resolve_path(word: str, cwd: str | None, home: str = "/root") -> str:
    """Normalise a path word against a working directory (`~`, `..`, Windows drives)."""
    p = word
    if ("\\" in p and "/" not in p) or _DRIVE.match(p):
        p = p.replace("\\", "/")
    if p == "~" or p.startswith("~/"):
        p = home + p[1:]
    if not p.startswith("/") and not _DRIVE_FWD.match(p):
        if not cwd:
            return posixpath.normpath(p) if p else p
        base = cwd.replace("\\", "/") if _DRIVE.match(cwd) else cwd
        p = posixpath.join(base, p)
    p = posixpath.normpath(p)
    return "/" + p.lstrip("/") if p.startswith("//") else p
