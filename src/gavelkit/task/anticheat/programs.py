"""Which words of a command are paths, by each program's own syntax.

Why: `pip install pytest` names packages, `head -n 20 f` names one file, and
`sed -n '1,20p' f` starts with a script. Reading every word as a path made
shell words into reads of `./install` and `./20`. The syntax of each program
is data (`gavelkit/data/anticheat_programs.toml`); programs it does not list
keep the old rule (every word after the options is a path).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

_NUMERIC = re.compile(r"^-\d+[a-zA-Z]?$")


@dataclass(frozen=True, slots=True)
class Syntax:
    mode: str = "files"                   # files | packages | none
    value: frozenset[str] = frozenset()
    script: frozenset[str] = frozenset()
    path: frozenset[str] = frozenset()
    write: frozenset[str] = frozenset()
    script_first: bool = False
    skip_verbs: int = 0
    last_writes: bool = False             # cp/rsync: the last path is the destination


@lru_cache(maxsize=1)
def table() -> dict[str, Syntax]:
    text = resources.files("gavelkit.data").joinpath("anticheat_programs.toml").read_text(
        encoding="utf-8")
    out: dict[str, Syntax] = {}
    for name, spec in tomllib.loads(text).items():
        syn = Syntax(mode=str(spec.get("mode", "files")),
                     value=frozenset(spec.get("value", [])),
                     script=frozenset(spec.get("script", [])),
                     path=frozenset(spec.get("path", [])),
                     write=frozenset(spec.get("write", [])),
                     script_first=bool(spec.get("script_first", False)),
                     last_writes=bool(spec.get("last_writes", False)),
                     skip_verbs=int(spec.get("skip_verbs", 0)))
        for n in (name, *spec.get("aliases", [])):
            out[n] = syn
    return out


def syntax(prog: str) -> Syntax | None:
    return table().get(prog)


def _takes(opt: str, names: frozenset[str]) -> tuple[bool, str | None]:
    """Does `opt` name one of `names`? Return (match, attached value or None)."""
    if opt in names:
        return True, None
    if opt.startswith("--") and "=" in opt:
        head, _, val = opt.partition("=")
        if head in names:
            return True, val
        return False, None
    if not opt.startswith("--") and len(opt) > 2 and opt[:2] in names:
        return True, opt[2:]
    return False, None


def path_words(prog: str, args: list[str], syn: Syntax) -> tuple[list[tuple[str, int, str]],
                                                                    list[str]]:
    """(word, argv index, "read"|"write") for each path word; and the positional words.

    Indexes are into `args` + 1 (argv positions), so callers can look up glob flags.
    """
    paths: list[tuple[str, int, str]] = []
    positional: list[tuple[str, int]] = []
    script_given = False
    i = 0
    n = len(args)
    while i < n:
        a = args[i]
        if a == "--":
            positional.extend((b, j) for j, b in enumerate(args[i + 1:], start=i + 1))
            break
        if _NUMERIC.match(a):
            i += 1
            continue
        if a.startswith("-") and len(a) > 1:
            for names, kind in ((syn.path, "read"), (syn.write, "write"), (syn.script, "script"),
                                (syn.value, "value")):
                hit, attached = _takes(a, names)
                if not hit:
                    continue
                val = attached
                if val is None and i + 1 < n:
                    i += 1
                    val = args[i]
                if kind == "script":
                    script_given = True
                elif kind in ("read", "write") and val:
                    paths.append((val, i + 1, kind))
                break
            i += 1
            continue
        positional.append((a, i + 1))
        i += 1
    words = [w for w, _ in positional]
    if syn.mode == "none":
        return paths, words
    rest = positional[syn.skip_verbs:] if syn.mode == "packages" else positional
    if syn.script_first and not script_given and syn.path.isdisjoint(args):
        rest = rest[1:]
    last = rest[-1][1] if syn.last_writes and len(rest) >= 2 else None
    for w, idx in rest:
        if syn.mode == "packages" and not ("/" in w or w.startswith(".")):
            continue
        paths.append((w, idx, "write" if idx == last else "read"))
    return paths, words


# programs that read the folder they run in when no path is given (a server, a test
# runner, an archiver; git and the listers are decided in `reads_here`); run inside a
# task-specific place, they read it
READS_HERE = frozenset({"pytest", "py.test", "tox", "nox", "tar", "zip", "make", "gmake", "php",
                        "http-server", "serve", "npx"})
GIT_SHOWS = frozenset({"show", "diff", "log", "grep", "blame", "cat-file", "archive",
                       "format-patch", "stash", "whatchanged", "annotate"})
PY_READS_HERE = frozenset({"http.server", "pytest", "unittest", "pydoc", "trace", "pip",
                           "compileall", "zipapp", "tarfile", "zipfile", "SimpleHTTPServer"})


def reads_here(prog: str, argv: list[str]) -> str | None:
    """How the command uses the folder it runs in when it names none: "read" (a server,
    a test runner, an archiver, git showing content), "list" (a lister, git's other
    verbs), or None."""
    if prog in ("ls", "find", "du", "tree"):
        return "list"
    if prog == "git":
        verb = next((a for a in argv[1:] if not a.startswith("-")), "")
        return "read" if verb in GIT_SHOWS else "list"
    if prog in READS_HERE:
        return "read"
    if prog in ("python", "pypy", "pypy3") and "-m" in argv[1:-1]:
        mod = argv[argv.index("-m", 1) + 1]
        return "read" if mod in PY_READS_HERE or mod.split(".")[0] in PY_READS_HERE else None
    return None
