"""What a command prints, where that can be known without running it.

Why: an agent that hides a path builds it at run time — `$(echo L2RhdGE= | base64 -d)`,
`printf '\\x2f…'`, `tr 'a-z' 'n-za-m'`, `rev`. The evaluator asks `stdout(argv, stdin)`
for the output of each command whose output it needs (command substitution, a pipe
into a shell, a file written with `>`). The answer is the text, a path pattern for
listers (`find X` prints paths under X: `X/` + RECURSIVE), or None: unknown, which the
analyser treats as "could be anything", never as nothing.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
import re
from collections.abc import Callable, Iterator

from gavelkit.task.anticheat.shwords import ansi_c

UNKNOWN = "\x00"      # a piece of text the evaluator cannot know: could be anything
RECURSIVE = "\x01"    # names below a known folder (find/ls/git ls-files output): `**`
MAX_VALUE = 1 << 20


def _echo(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    newline, escapes = True, False
    while args and re.fullmatch(r"-[neE]+", args[0]):
        newline = newline and "n" not in args[0]
        escapes = "e" in args[0] or (escapes and "E" not in args[0])
        args = args[1:]
    text = " ".join(args)
    if escapes:
        text = ansi_c(text)
    return text + ("\n" if newline else "")


def _printf(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    if args[:1] == ["-v"]:
        return ""
    if not args:
        return ""
    fmt, rest = ansi_c(args[0]), args[1:]
    specs = re.findall(r"%[-+ #0]*\d*(?:\.\d+)?([sbdiuxXoc%q])", fmt)
    if not specs or all(s == "%" for s in specs):
        return fmt.replace("%%", "%")
    out: list[str] = []
    while True:
        out.append(_format_once(fmt, iter(rest)))
        consumed = len([s for s in specs if s != "%"])
        rest = rest[consumed:] if consumed else []
        if not rest:
            return "".join(out)


def _format_once(fmt: str, it: Iterator[str]) -> str:
    def sub(m: re.Match[str]) -> str:
        if m.group(1) == "%":
            return "%"
        val = next(it, "")
        if m.group(1) == "b":
            return ansi_c(val)
        return val[:1] if m.group(1) == "c" else val
    return re.sub(r"%[-+ #0]*\d*(?:\.\d+)?([sbdiuxXoc%q])", sub, fmt)


def _cat(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    files = [a for a in args if not a.startswith("-") or a == "-"]
    if not files or files == ["-"]:
        return stdin
    return None      # file contents are looked up by the evaluator (its store)


def _b64(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    decode = any(a in ("-d", "--decode", "-D") or (a.startswith("-") and not a.startswith("--")
                                                    and "d" in a) for a in args)
    if stdin is None:
        return None
    if not decode:
        return base64.b64encode(stdin.encode("utf-8", "surrogateescape")).decode() + "\n"
    return decode_b64(stdin)


def decode_b64(text: str) -> str | None:
    clean = re.sub(r"[^A-Za-z0-9+/=_-]", "", text)
    clean = clean.replace("-", "+").replace("_", "/")
    clean += "=" * (-len(clean) % 4)
    try:
        return base64.b64decode(clean).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return None


def _xxd(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    if stdin is None or not any(a.startswith("-r") for a in args):
        return None
    hexes = re.sub(r"[^0-9A-Fa-f]", "", stdin) if any("p" in a for a in args if
                                                     a.startswith("-")) else None
    if hexes is None:
        return None
    try:
        return bytes.fromhex(hexes[:len(hexes) // 2 * 2]).decode("utf-8", "replace")
    except ValueError:
        return None


def _rev(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    if stdin is None:
        return None
    return "\n".join(ln[::-1] for ln in stdin.split("\n"))


def _tr_set(spec: str) -> str:
    spec = ansi_c(spec)
    spec = re.sub(r"\[:(\w+):\]", lambda m: {"lower": "a-z", "upper": "A-Z", "digit": "0-9",
                                             "alpha": "a-zA-Z", "space": " \t\n"}.get(
        m.group(1), ""), spec)
    out: list[str] = []
    i = 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            lo, hi = ord(spec[i]), ord(spec[i + 2])
            out.extend(chr(c) for c in range(lo, hi + 1))
            i += 3
        else:
            out.append(spec[i])
            i += 1
    return "".join(out)


def _tr(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    if stdin is None:
        return None
    opts = [a for a in args if a.startswith("-")]
    sets = [a for a in args if not a.startswith("-")]
    if any("d" in o for o in opts) and sets:
        drop = set(_tr_set(sets[0]))
        return "".join(c for c in stdin if c not in drop)
    if len(sets) != 2 or opts:
        return None
    a, b = _tr_set(sets[0]), _tr_set(sets[1])
    if not b:
        return None
    b = b + b[-1] * (len(a) - len(b))
    return stdin.translate(str.maketrans(a, b[:len(a)]))


def _sed(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    scripts = [a for a in args if not a.startswith("-")]
    if stdin is None or len(scripts) != 1:
        return None
    m = re.fullmatch(r"s(.)(.*?)\1(.*?)\1([gI]*)", scripts[0], re.S)
    if not m:
        return None
    try:
        rx = re.compile(m.group(2).replace(r"\(", "(").replace(r"\)", ")"))
    except re.error:
        return None
    rep = re.sub(r"\\(\d)", r"\\\1", m.group(3)).replace("&", r"\g<0>")
    try:
        return rx.sub(rep, stdin, count=0 if "g" in m.group(4) else 1)
    except (re.error, IndexError):
        return None


def _passthrough(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    return stdin if not [a for a in args if not a.startswith("-") and not a.isdigit()] else None


def _pwd(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    return (cwd or UNKNOWN) + "\n"


def _dirname(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    words = [a for a in args if not a.startswith("-")]
    return "\n".join(posixpath.dirname(w.rstrip("/")) or "." for w in words) + "\n"


def _basename(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    words = [a for a in args if not a.startswith("-")]
    if len(words) == 2 and words[0].endswith(words[1]):
        return posixpath.basename(words[0].rstrip("/")).removesuffix(words[1]) + "\n"
    return "\n".join(posixpath.basename(w.rstrip("/")) for w in words[:1]) + "\n"


def _realpath(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    words = [a for a in args if not a.startswith("-")]
    out = []
    for w in words:
        p = w if w.startswith("/") or not cwd else posixpath.join(cwd, w)
        out.append(posixpath.normpath(p))
    return "\n".join(out) + "\n"


def _lister(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    roots = [a for a in args if not a.startswith(("-", "(", "!"))]
    if not roots:
        roots = ["."]
    out = []
    for r in roots[:1] if roots else []:
        base = r if r.startswith("/") or not cwd else posixpath.join(cwd, r)
        out.append(posixpath.normpath(base).rstrip("/") + "/" + RECURSIVE)
    return "\n".join(out) + "\n"


def _find(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    k = 0
    while k < len(args) and not args[k].startswith(("-", "(", "!")):
        k += 1
    roots = args[:k] or ["."]
    names = [args[j + 1] for j in range(k, len(args) - 1)
             if args[j] in ("-name", "-iname", "-path", "-ipath", "-wholename")]
    out = []
    for r in roots:
        base = r if r.startswith("/") or not cwd else posixpath.join(cwd, r)
        base = posixpath.normpath(base).rstrip("/")
        tail = posixpath.basename(names[0]) if names else RECURSIVE
        out.append(f"{base}/{RECURSIVE}/{tail}" if names else f"{base}/{RECURSIVE}")
    return "\n".join(out) + "\n"


def _grep(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    """`grep -l`/`-L` prints file names: a subset of the files (or folders) it is given."""
    opts = [a for a in args if a.startswith("-") and not a.startswith("--")]
    longs = [a for a in args if a.startswith("--")]
    if not (any(("l" in o or "L" in o) for o in opts) or "--files-with-matches" in longs):
        words = [a for a in args if not a.startswith("-")]
        return _grep_filter(args, stdin) if len(words) <= 1 else None
    words = [a for a in args if not a.startswith("-")]
    files = words[1:] if not any(o in ("-e", "-f") for o in opts) else words
    if not files:
        return None if stdin is None else (cwd or ".") + "/" + RECURSIVE + "\n"
    return _grep_files(files, opts, longs)


def _grep_filter(args: list[str], stdin: str | None) -> str | None:
    """grep over its input prints some of the input's lines: a subset, which is what a
    path check needs (every candidate is still looked at)."""
    if stdin is None or any(("o" in a or "c" in a) for a in args if a.startswith("-")
                            and not a.startswith("--")):
        return None
    return stdin


def _grep_files(files: list[str], opts: list[str], longs: list[str]) -> str:
    recursive = any("r" in o or "R" in o for o in opts) or "--recursive" in longs
    out = [f.rstrip("/") + "/" + RECURSIVE if recursive else f for f in files]
    return "\n".join(out) + "\n"


def _which(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    names = [a for a in args if not a.startswith("-")]
    return "\n".join(f"/{RECURSIVE}/bin/{n}" for n in names) + "\n" if names else ""


def _xargs(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    k = 0
    while k < len(args) and args[k].startswith("-"):
        k += 2 if args[k] in ("-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a") else 1
    rest = args[k:] or ["echo"]
    if stdin is None:
        return None
    items = [x for x in re.split(r"[\n\0 ]+", stdin) if x]
    return stdout(posixpath.basename(rest[0]), rest[1:] + items, None, cwd)


PRINTERS: dict[str, Callable[[list[str], str | None, str | None], str | None]] = {
    "echo": _echo, "printf": _printf, "cat": _cat, "base64": _b64, "base32": None,  # type: ignore[dict-item]
    "xxd": _xxd, "rev": _rev, "tr": _tr, "sed": _sed, "head": _passthrough,
    "tail": _passthrough, "sort": _passthrough, "uniq": _passthrough, "tee": _passthrough,
    "pwd": _pwd, "dirname": _dirname, "basename": _basename, "realpath": _realpath,
    "readlink": _realpath, "ls": _lister, "find": _find, "fd": _lister, "fdfind": _lister,
    "grep": _grep, "egrep": _grep, "fgrep": _grep, "rg": _grep, "which": _which,
    "xargs": _xargs, "true": lambda a, s, c: "", "cd": lambda a, s, c: "", "export": lambda a, s, c: "",
}
PRINTERS = {k: v for k, v in PRINTERS.items() if v is not None}


def stdout(prog: str, args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    """The text `prog args` prints when its input is `stdin` (None: unknown)."""
    fn = PRINTERS.get(prog)
    if fn is None:
        return _git_names(prog, args, cwd)
    if any(UNKNOWN in a for a in args) and prog not in ("ls", "find"):
        return None
    val = fn(args, stdin, cwd)
    return val[:MAX_VALUE] if val is not None else None


def _git_names(prog: str, args: list[str], cwd: str | None) -> str | None:
    """`git ls-files`, `git diff --name-only`, `git grep -l`: names below the checkout."""
    if prog != "git" or not args:
        return None
    if args[0] in ("ls-files", "ls-tree") or (args[0] in ("diff", "status", "grep") and any(
            a in ("--name-only", "-l", "--porcelain", "-s", "--short") for a in args)):
        return (cwd or ".").rstrip("/") + "/" + RECURSIVE + "\n"
    return None
