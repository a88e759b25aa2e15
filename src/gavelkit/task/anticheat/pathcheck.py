"""Is a path (resolved, possibly a glob, possibly partly unknown) a forbidden place?

Why: the evaluator hands over words as bash would see them, with UNKNOWN where it
could not know a piece and RECURSIVE for "names below this folder". A glob is
matched against the places (does some file it can expand to lie in one?), a
partly unknown path is decided by its known tail where that is enough, and a path
of a reading program that stays unknown is UNVERIFIABLE with its location: never
CLEAN, since the unknown piece could be any forbidden place.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from gavelkit.task.anticheat.cmdrules import Hit
from gavelkit.task.anticheat.gate import SQUEEZE
from gavelkit.task.anticheat.placematch import ancestor_place, match_place, task_place
from gavelkit.task.anticheat.sheval import resolve_path
from gavelkit.task.anticheat.shvalues import RECURSIVE, UNKNOWN

_GLOBCH = re.compile(r"[*?\[]")


def shown(text: str) -> str:
    """A word for a message: unknown pieces as `…`, recursive ones as `**`."""
    return text.replace(UNKNOWN, "…").replace(RECURSIVE, "**")[:200]


def _globbed(word: str, path: str, cwd: str | None, is_glob: bool) -> bool:
    """Is the resolved path a glob? A folder entered with `cd` on a glob keeps the glob
    (bash expanded it there)."""
    return (is_glob and bool(_GLOBCH.search(word + path))) or bool(
        cwd and not word.startswith("/") and _GLOBCH.search(cwd))


PATH_MEMO = 8192
# git's stores of history read as files (zlib on .git/objects, the reflog, tags, packed
# refs): `git log --all` without git; a workspace without upstream history has no use
_GIT_STORE = re.compile(r"(?:^|/)\.git/(?:objects(?:/|$)|packed-refs$|logs(?:/|$)|"
                        r"refs/(?:tags|remotes)(?:/|$)|ORIG_HEAD$|FETCH_HEAD$)")
# an absolute path inside a word (after `=`, a quote, a parenthesis, `file:`)
_ABS_IN = re.compile(r"(?:(?<=[=:'\"(,\s])|^)(/[^\s'\"`;,()<>|&{}]+)")
# in a text squeezed like the gate's (quotes, spaces, joins removed): from any slash
_ABS_ANY = re.compile(r"/[^\s'\"`;,()<>|&{}]+")
_VCS_FILE = re.compile(r"^(?:(?:git|hg|svn|bzr)\+)?file:(?://(?:localhost)?)?(?=/)", re.I)


def local_url_path(word: str) -> str:
    """The path a local URL names (`file:///p`, `git+file:///p@rev#egg=x`, `file:/p`);
    "" for a web URL; any other word unchanged. pip, git and curl read a local URL as
    that folder."""
    if word.startswith(("http://", "https://", "ftp://")):
        return ""
    m = _VCS_FILE.match(word)
    if m is None:
        return word
    path = word[m.end():].split("#", 1)[0]
    if m.group(0)[:1].lower() != "f":          # a VCS URL may pin a revision: `@rev`
        head, at, rev = path.rpartition("@")
        path = head if at and "/" not in rev else path
    return path or "/"


class PathChecks:
    """`_path`: one path word against the forbidden places (a mixin of the Analyzer)."""

    ctx: Any
    workspace: list[str]
    _path_memo: dict[tuple[Any, ...], list[Hit]]

    def _path(self, word: str, cwd: str | None, access: str, is_glob: bool, hits: list[Hit],
              how: str, strict: bool = True) -> None:
        """The hits of one path word. They depend on nothing but the arguments, the
        workspace and the scan context (no session state is read or written), so one
        file's analyser reuses them for the same word, folder and workspace (the memo
        lives with the analyser: one transcript, bounded)."""
        key = (word, cwd, access, is_glob, how, strict, tuple(self.workspace))
        known = self._path_memo.get(key)
        if known is not None:
            hits.extend(known)
            return
        mark = len(hits)
        self._path_checked(word, cwd, access, is_glob, hits, how, strict)
        if len(self._path_memo) >= PATH_MEMO:
            self._path_memo.clear()
        self._path_memo[key] = hits[mark:]

    def _path_checked(self, word: str, cwd: str | None, access: str, is_glob: bool,
                      hits: list[Hit], how: str, strict: bool = True) -> None:
        if not word or (word.startswith("-") and len(word) > 1):
            return
        if "\n" in word:
            for line in word.split("\n"):
                self._path(line.strip(), cwd, access, is_glob, hits, how, strict)
            return
        word = local_url_path(word)
        if not word:
            return                  # a web URL: judged by what it points at (cmdrules)
        path = resolve_path(word, cwd, self.ctx.home)
        if RECURSIVE in path:
            path = path.replace(RECURSIVE, "**")
            is_glob = True
        self._judged(path, _globbed(word, path, cwd, is_glob), access, hits, how, strict)

    def _judged(self, path: str, globbed: bool, access: str, hits: list[Hit], how: str,
                strict: bool) -> None:
        """A resolved path: partly unknown, git's stores, or a place."""
        if UNKNOWN in path:
            self._unresolved(path, access, hits, how, strict)
        elif not (access == "read" and self._git_store(path, hits, how)):
            self._resolved(path, globbed, access, hits, how)

    def _git_store(self, path: str, hits: list[Hit], how: str) -> bool:
        """git's history read as files, where the workspace has none of the upstream's."""
        if self.ctx.history == "upstream" or not _GIT_STORE.search(path):
            return False
        hits.append(Hit("CHT-G001", "error", f"{how} reads git's object store or refs "
                        f"directly: {path} (history beyond the agent's own work)", path,
                        "command"))
        return True

    def _resolved(self, path: str, globbed: bool, access: str, hits: list[Hit],
                  how: str) -> None:
        """A known path: in a place, or (read) a folder that holds one."""
        place = match_place(self.ctx, path, globbed, self._inferred(path))
        if place is not None:
            self._place_hit(place, path, access, hits, how)
        elif access == "read" and (held := ancestor_place(self.ctx, path, globbed,
                                                          self.workspace)) is not None:
            self._place_hit(held, path, access, hits, how, " (a folder that holds it: what "
                            "reads it whole reads the place)")

    def _named_places(self, prog: str, words: list[str], cwd: str | None,
                      hits: list[Hit], reads_here: str | None = None,
                      access: str = "read") -> None:
        """Task-specific places named anywhere in a command's words (inside a quoted SQL
        or awk string, as an option's value, through a wrong table entry): read. The
        syntax table decides which words are paths so that ordinary words are not read
        as paths; it can never hide a word that names the task's own places. A program
        that reads its folder (`reads_here`: a server, a test runner, git, `tar`) run
        inside such a place reads it too."""
        for raw, plain in self._path_pieces(words, cwd).items():
            path = resolve_path(raw, None, self.ctx.home)     # absolute already
            place = task_place(self.ctx, path, bool(_GLOBCH.search(path)), self.workspace,
                               holding=access == "read")
            if place is None:
                continue
            if plain:
                self._place_hit(place, path, access, hits, prog, " (named in its arguments)")
            else:
                hits.append(Hit("CHT-U006", "error", f"{prog}: its text names {place.what} "
                                f"once quotes and spaces are joined ({shown(path)}); the "
                                "program is not evaluated, so what it read is unverified",
                                shown(path), "unverifiable"))
            return
        # a server, test runner or archiver reads the tree below it: run in a folder that
        # holds a place, it reads the place; make reads only its makefile, a lister lists
        whole = reads_here == "read" and prog not in ("make", "gmake")
        if reads_here and cwd and task_place(self.ctx, cwd, False, self.workspace,
                                             holding=whole):
            self._path(".", cwd, reads_here, False, hits, f"{prog} (run inside it)")

    def _path_pieces(self, words: list[str], cwd: str | None) -> dict[str, bool]:
        """The paths inside the words: True as written, False only once quotes and
        spaces are joined (the gate's squeeze)."""
        found: dict[str, bool] = {}
        for w in words:
            if UNKNOWN in w or RECURSIVE in w:
                continue
            for m in _ABS_IN.finditer(w):
                found[m.group(1)] = True
            for m in _ABS_ANY.finditer(w.translate(SQUEEZE)):
                found.setdefault(m.group(0), False)
            if cwd and "/" in w and not w.startswith(("/", "-")) and " " not in w:
                found[resolve_path(w, cwd, self.ctx.home)] = True
        return found

    def _inferred(self, path: str) -> list[str]:
        """A relative path where no folder is known is taken to be in the agent's own
        folder: the generic patterns (`pkg/tests`) do not apply there, the task's own
        places and --forbid still do."""
        return self.workspace if path.startswith("/") else [*self.workspace, "/"]

    @staticmethod
    def _place_hit(place: Any, path: str, access: str, hits: list[Hit], how: str,
                   note: str = "") -> None:
        if access == "list":
            hits.append(Hit("CHT-S001", "warning", f"{how} lists {place.what}: {path}{note}",
                            path, "list"))
        elif access == "write":
            hits.append(Hit("CHT-W001", "error", f"{how} writes into {place.what}: {path}{note}",
                            path, "write"))
        else:
            hits.append(Hit(place.code, place.severity, f"{how} reads {place.what}: "
                            f"{path}{note}", path, "read"))

    def _unresolved(self, path: str, access: str, hits: list[Hit], how: str,
                    strict: bool) -> None:
        """A path with a piece the evaluator could not know."""
        if self._known_tail(path, access, hits, how) or self._known_head(path, access, hits,
                                                                           how):
            return
        if access == "read" and strict:
            hits.append(Hit("CHT-U006", "error", f"{how} reads a path that could not be "
                            f"resolved ({shown(path)}): a variable, substitution or input "
                            "the scan cannot know, so what it read is unverified",
                            shown(path), "unverifiable"))

    def _known_tail(self, path: str, access: str, hits: list[Hit], how: str) -> bool:
        """The part after the last unknown piece names a place by itself."""
        tail = path.rsplit(UNKNOWN, 1)[1].lstrip("/")
        if not tail:
            return False
        place = match_place(self.ctx, tail.replace(UNKNOWN, "x"), False, ())
        if place is None or place.prefixes:
            return False
        self._place_hit(place, shown(path), access, hits, how, " (its known part "
                        "names the place)")
        return True

    def _known_head(self, path: str, access: str, hits: list[Hit], how: str) -> bool:
        """The folder before the first unknown piece lies in a place already."""
        head = path.split(UNKNOWN, 1)[0]
        if not (head.startswith("/") and head.count("/") >= 2):
            return False
        base = (posixpath.dirname(head) if not head.endswith("/") else head).rstrip("/")
        place = match_place(self.ctx, base or "/", False, self.workspace)
        if place is None:
            return False
        self._place_hit(match_place(self.ctx, base, False, self.workspace), shown(path),
                        access, hits, how)
        return True
