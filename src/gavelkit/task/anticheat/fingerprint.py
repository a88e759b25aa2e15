"""What the agent saw: fingerprints of the protected material, checked in every tool output.

Why: however a command was spelled, an agent that saw the oracle has the oracle in its
tool outputs. The judge holds the protected material (oracle tests and fixtures, kept
ids, the spec-test map, earlier score files, the reference source when given); each
file is cut into normalised lines (whitespace collapsed, line-number prefixes of
`cat -n`/`nl`/`grep -n`/editor views dropped, short lines ignored), hashed in
k-grams of consecutive lines, and winnowed (the smallest hash of every window of W
k-grams is kept). Any run of W+K-1 consecutive protected lines an output reproduces
therefore shares at least one fingerprint with it. An output that covers
`MIN_LINES` protected lines of one file (or half of a small file) is CHEAT, naming
the file and its lines. Base64 blocks in outputs are decoded and checked too.

The same fingerprints give the copying signal: the share of a candidate solution's
lines that reproduce the reference source.

Cost: an output is only cut into lines when it holds two of the winnowed k-grams'
distinctive tokens, or one of 16+ characters (or a long base64 run): one prefilter
pass, then a word scan of the few outputs it lets through. A reproduction of ten or
more lines always carries two fingerprints, so the prefilter never drops one.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import stat
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from gavelkit.task.anticheat.prefilter import span_search

K = 3                  # lines per k-gram
W = 4                  # k-grams per winnowing window
MIN_LINES = 6          # K + W - 1: the run every fingerprint set is sure to catch
MIN_LEN = 8            # shorter normalised lines carry no evidence
MAX_FILE = 4 << 20
MAX_TOTAL = 64 << 20
MAX_FILES = 5000
_LINENO = re.compile(r"^\s*(?:[\w./-]+[:-])?\d+(?:[:\t|]|\s{2,}|: )\s?|"
                     r"^(?:[\w.-]*/)+[\w.-]+\.\w{1,5}:")   # `grep -r`'s `path/file.py:`
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]{7,}")
_TOKEN_ANY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{4,}")
LONG_TOKEN = 16        # one token this long is specific enough on its own
_IDENT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789")
_DIGITS = frozenset(b"0123456789")
_SHORT_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]{4,}")
# identifiers too common in any Python output to select an output for the line check
COMMON = frozenset(["assert", "isinstance", "pytest", "fixture", "parametrize", "raises", "monkeypatch", "tmp_path", "tmpdir", "expected", "result", "return", "import", "self", "setup", "teardown", "assertequal", "asserttrue", "assertfalse", "assertraises", "assertin", "assertisnone", "unittest", "testcase", "mock", "patch", "magicmock", "capsys", "caplog", "request", "__init__", "__name__", "__main__", "encoding", "filename", "pathlib", "subprocess", "print", "format", "string", "value", "values", "config", "settings", "options", "kwargs", "args", "data", "items", "keys", "append", "extend", "update", "length", "content", "response", "status", "message", "exception", "valueerror", "typeerror", "keyerror", "runtimeerror", "attributeerror", "notimplementederror", "indexerror", "oserror", "filenotfounderror", "importerror", "staticmethod", "classmethod", "property", "super", "object", "dict", "list", "tuple", "float", "bool", "none", "true", "false", "class", "def", "lambda", "yield", "async", "await", "while", "break", "continue", "finally", "except", "with", "open", "read", "write", "close", "exists", "makedirs", "mkdir", "write_text", "read_text", "dumps", "loads", "json", "strip", "split", "join", "replace", "startswith", "endswith", "lower", "upper", "range", "enumerate", "sorted", "reversed", "getattr", "setattr", "hasattr", "callable", "serialize", "deserialize", "output", "input", "name", "names", "path", "paths", "test", "tests", "testing", "check", "checks", "default", "defaults", "returncode", "stdout", "stderr", "exit_code", "traceback", "warning", "warnings", "error", "errors"])
# a base64 block: runs of 40 or more (wrapped or not), or `base64 -w N` narrower than
# that (four or more lines, each nothing but base64 and at least 16 wide). A block starts
# where a run starts (a match inside a run extends to its start): the look-behind keeps
# the search linear (without it every position of a short run was tried again)
_B64 = re.compile(r"(?<![A-Za-z0-9+/])(?:(?:[A-Za-z0-9+/]{40,}={0,2}\s*){2,}|"
                  r"[A-Za-z0-9+/]{64,}={0,2}|"
                  r"(?m:^)(?:[A-Za-z0-9+/]{16,}={0,2}[ \t]*\r?\n){3,}[A-Za-z0-9+/]+={0,2})")
# what every `_B64` block holds (ASCII: the same bytes in UTF-8): a run of 40, or two
# lines of 16; a text without either has no block to decode, so this fast search gates
# the slow exact one. B64_RUN_JSON is the same in a JSON string's escaped form (a JSONL
# line before it is decoded: newline, return and tab are a backslash and a letter there,
# more backslashes when the output is JSON inside JSON, as Codex writes it).
B64_RUN = rb"[A-Za-z0-9+/]{40}|[A-Za-z0-9+/]{16}={0,2}[ \t]*\r?\n[A-Za-z0-9+/]{16}"
B64_RUN_JSON = (rb"[A-Za-z0-9+/]{40}|"
                rb"[A-Za-z0-9+/]{16}={0,2}(?: |\\+t)*(?:\\+r)?\\+n[A-Za-z0-9+/]{16}")
SKIP_NAMES = ("spec.md", "README", "LICENSE", "task.json", "MANIFEST.json", "PIPELINE_STATE")
TEXT_SUFFIXES = (".py", ".txt", ".md", ".json", ".jsonl", ".toml", ".cfg", ".ini", ".yaml",
                 ".yml", ".csv", ".rst", ".sh", ".pyi", ".c", ".h", ".js", ".ts", ".html", "")


def norm_line(line: str) -> str:
    line = _LINENO.sub("", line, count=1) if line[:1].isspace() or line[:1].isdigit() or \
        ":" in line[:200] else line
    return " ".join(line.split())


def _sig_lines(text: str) -> list[tuple[int, str]]:
    out = []
    for no, raw in enumerate(text.splitlines(), start=1):
        n = norm_line(raw)
        if len(n) >= MIN_LEN and any(c.isalnum() for c in n):
            out.append((no, n))
    return out


@dataclass(frozen=True, slots=True)
class Leak:
    """An output that reproduced protected material: the finding's message and file."""

    message: str
    label: str


@dataclass
class Source:
    label: str                 # shown in findings: "oracle/test_atomic.py"
    kind: str                  # protected | reference
    lines: int = 0             # significant lines


@dataclass
class Fingerprints:
    sources: list[Source] = field(default_factory=list)
    prints: dict[int, list[tuple[int, int, int]]] = field(default_factory=dict)
    # each line with a coined identifier on its own: lines shown out of order (`tac`,
    # `sort`, `shuf`, every other line) share no k-gram but still reproduce the file
    line_prints: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    tokens: set[str] = field(default_factory=set)
    unchecked: list[tuple[str, str]] = field(default_factory=list)   # (path, why)
    matcher: object | None = None
    b64: Any = None
    allowed: set[str] = field(default_factory=set)   # lines of what the agent may read (spec)

    # -- building
    def add(self, label: str, text: str, kind: str = "protected") -> None:
        sig = [(no, n) for no, n in _sig_lines(text) if n not in self.allowed]
        if not sig:
            return
        idx = len(self.sources)
        self.sources.append(Source(label, kind, len(sig)))
        if len(sig) < K or kind == "ids":
            self._add_lines(idx, sig)
            return
        self._add_grams(idx, sig, kind)
        if kind == "protected":
            for no, n in sig:
                if self._token(n):
                    self.line_prints.setdefault(_h(n), []).append((idx, no))

    def _add_grams(self, idx: int, sig: list[tuple[int, str]], kind: str) -> None:
        grams = [(_gram(sig, i), sig[i][0], sig[i + 2][0], i) for i in range(len(sig) - K + 1)]
        # the reference source keeps every k-gram: the copying share needs them all
        for i in _winnow(grams, 1 if kind == "reference" else W):
            h, first, last, _ = grams[i]
            # a k-gram without a coined identifier is no evidence in an output, but the
            # copying share of the reference counts every line
            if self._token(" ".join(n for _, n in sig[i:i + K])) or kind == "reference":
                self.prints.setdefault(h, []).append((idx, first, last))

    def _add_lines(self, idx: int, sig: list[tuple[int, str]]) -> None:
        """Short files and id lists: each line on its own."""
        for no, n in sig:
            if self._token(n):
                self.prints.setdefault(_h(n), []).append((idx, no, no))

    def _token(self, text: str) -> bool:
        """Pick the k-gram's prefilter token: its longest uncommon identifier. A k-gram
        without one (punctuation, common words only) carries no evidence: not kept."""
        for rx in (_TOKEN, _SHORT_TOKEN):
            toks = [t for t in rx.findall(text) if t.lower() not in COMMON and _coined(t)]
            if toks:
                self.tokens.add(max(toks, key=len))
                return True
        return False

    def compile(self, engine: str | None = None) -> None:
        from gavelkit.task.anticheat import prefilter

        self.matcher = prefilter.Matcher([t.encode() for t in self.tokens], engine)
        self.b64 = _fast_b64()

    # -- checking
    def might(self, text: str, raw: bytes | None = None, tokens: bool = True,
              blocks: bool = True) -> bool:
        """Could this output reproduce protected lines? (one prefilter pass; `raw`: the
        text's UTF-8 bytes when the caller has them; `tokens`/`blocks` False: the caller
        knows the text holds no token / no base64 run, so that search is skipped)"""
        if not self.prints:
            return False
        if self.matcher is None:
            self.compile()
        if raw is None:
            raw = text.encode("utf-8", "surrogatepass")
        found = tokens and self.matcher.found(raw)  # type: ignore[union-attr]
        if found and self._token_evidence(text, raw):
            return True
        return blocks and self.has_block(text, raw)

    def _token_evidence(self, text: str, raw: bytes) -> bool:
        """A long token, or two distinct ones, as whole identifiers."""
        seen: set[str | bytes] = set()
        for tok in self._whole_tokens(text, raw):
            if tok not in seen:
                if len(tok) >= LONG_TOKEN:
                    return True
                seen.add(tok)
                if len(seen) >= 2:
                    return True
        return False

    def has_block(self, text: str, raw: bytes) -> bool:
        """Does the text hold a base64 block `decoded_blocks` would decode? (exact: the
        fast run search first, the block pattern only where it finds one)"""
        if self.b64 is None:
            self.b64 = _fast_b64()
        if span_search(self.b64)(raw, 0) is None:
            return False
        rx, on_bytes = block_pattern()
        return span_search(rx)(raw if on_bytes else text, 0) is not None

    def _whole_tokens(self, text: str, raw: bytes) -> Iterator[str | bytes]:
        """The identifiers of `text` (as `_TOKEN_ANY` cuts them) that are tokens. With re2
        the tokens' own matches are walked (a match is a whole identifier when nothing of
        an identifier touches it: only digits may come before it, and they must not
        follow an identifier character); else every identifier is looked up."""
        rx = getattr(self.matcher, "_rx", None)
        if rx is None:
            yield from (t for t in (m.group(0) for m in _TOKEN_ANY.finditer(text))
                        if t in self.tokens)
            return
        for start, end in _spans(rx, raw):
            if _whole(raw, start, end):
                yield raw[start:end]

    def covered(self, text: str) -> dict[int, set[int]]:
        """source index -> protected line numbers this text reproduces."""
        sig = _sig_lines(text)
        out: dict[int, set[int]] = {}
        hashes = [_h(n) for _, n in sig]
        grams = [_gram(sig, i) for i in range(len(sig) - 2)]
        for h in (*grams, *hashes):
            for idx, first, last in self.prints.get(h, ()):
                out.setdefault(idx, set()).update(range(first, last + 1))
        for h in hashes:
            for idx, no in self.line_prints.get(h, ()):
                out.setdefault(idx, set()).add(no)
        return out

    def check(self, text: str) -> Leak | None:
        if not self.might(text):
            return None
        texts = [text, *decoded_blocks(text), *_unescaped(text)]
        for t in texts:
            hit = self._judge(t, decoded=t is not text)
            if hit is not None:
                return hit
        return None

    def _judge(self, text: str, decoded: bool) -> Leak | None:
        best: tuple[int, int, list[int]] | None = None
        for idx, lines in self.covered(text).items():
            src = self.sources[idx]
            if src.kind == "reference-only":
                continue
            need = min(MIN_LINES, max(2, (src.lines + 1) // 2))
            if len(lines) >= need and (best is None or len(lines) > best[1]):
                best = (idx, len(lines), sorted(lines))
        if best is None:
            return None
        idx, n, lines = best
        src = self.sources[idx]
        where = _ranges(lines)
        how = " (inside a base64 block it decoded)" if decoded else ""
        return Leak(f"tool output reproduces {n} line(s) of {src.label} (lines {where}){how}: "
                    "the agent saw protected material", src.label)

    def share(self, text: str, kind: str = "reference") -> tuple[int, int]:
        """(lines of text reproducing `kind` sources, significant lines of text)."""
        sig = _sig_lines(text)
        if len(sig) < K:
            return 0, len(sig)
        hit_lines: set[int] = set()
        for i in range(len(sig) - K + 1):
            h = _gram(sig, i)
            if any(self.sources[idx].kind == kind for idx, _, _ in self.prints.get(h, ())):
                hit_lines.update((i, i + 1, i + 2))
        return len(hit_lines), len(sig)


def _whole(raw: bytes, p: int, e: int) -> bool:
    """Is raw[p:e] an identifier as `_TOKEN_ANY` cuts them (see `_whole_tokens`)?"""
    if e < len(raw) and raw[e] in _IDENT:
        return False
    q = p
    while q > 0 and raw[q - 1] in _DIGITS:
        q -= 1
    return not (q > 0 and raw[q - 1] in _IDENT)


def _winnow(grams: list[tuple[int, int, int, int]], width: int) -> list[int]:
    """The k-grams kept: the smallest hash of every window of `width` (the rightmost on
    a tie), in order."""
    chosen: set[int] = set()
    for w in range(max(1, len(grams) - width + 1)):
        chosen.add(min(grams[w:w + width], key=lambda g: (g[0], -g[3]))[3])
    return sorted(chosen)


def _h(line: str) -> int:
    """A stable 64-bit hash: the prints (and so which lines a finding names) must not
    change with the interpreter's per-process string hash seed."""
    raw = line.encode("utf-8", "surrogatepass")
    return zlib.crc32(raw) | (zlib.crc32(raw, 0x9E3779B9) << 32)


def _gram(sig: list[tuple[int, str]], i: int) -> int:
    """The hash of the k-gram of K significant lines starting at sig[i]."""
    return _h("\n".join(n for _, n in sig[i:i + K]))


def _coined(tok: str) -> bool:
    """An identifier someone made up (`render_block`, `UnbalancedMarkError`, `v2`), not an
    English word that any output may hold."""
    return "_" in tok.strip("_") or any(c.isdigit() for c in tok) or any(
        c.isupper() for c in tok[1:])


def _fast_b64() -> Any:
    """B64_RUN, with re2 when importable (a counted repeat inside the token alternation
    would make re2's automaton too big; on its own it is fast)."""
    try:
        import re2
    except ImportError:
        return re.compile(B64_RUN)
    return re2.compile(B64_RUN)


def _spans(rx: Any, raw: bytes) -> Iterator[tuple[int, int]]:
    """The spans `rx.finditer(raw)` gives, through `span_search` (the same steps as
    re2's wrapper: on after each match, one byte on after an empty one)."""
    search, pos = span_search(rx), 0
    while (span := search(raw, pos)) is not None:
        yield span
        if pos == len(raw):
            return
        pos = pos + 1 if span[1] == pos else span[1]


def _unescaped(text: str) -> list[str]:
    """A file shown as one escaped string (`print(repr(...))`, `jq -Rs .`, JSON): its
    lines, when the text holds three or more escaped newlines."""
    if text.count("\\n") < 3:
        return []
    return [text.replace("\\r\\n", "\n").replace("\\n", "\n").replace("\\t", "\t")
            .replace("\\'", "'").replace('\\"', '"').replace("\\\\", "\\")]


def _ranges(lines: list[int]) -> str:
    out: list[str] = []
    start = prev = lines[0]
    for n in lines[1:]:
        if n != prev + 1:
            out.append(f"{start}-{prev}" if prev != start else str(start))
            start = n
        prev = n
    out.append(f"{start}-{prev}" if prev != start else str(start))
    return ", ".join(out[:6]) + (" …" if len(out) > 6 else "")


def decoded_blocks(text: str) -> list[str]:
    rx, on_bytes = block_pattern()
    if on_bytes:
        blocks = [m.group(0).translate(None, _NOT_B64)
                  for m in rx.finditer(text.encode("utf-8", "surrogatepass"))]
    else:
        blocks = [re.sub(r"\s+", "", m.group(0)).encode("ascii") for m in rx.finditer(text)]
    out = []
    for block in blocks:
        if len(block) % 4 == 1:     # cut after a full line: the last character is a part
            block = block[:-1]
        try:
            raw = base64.b64decode(block + b"=" * (-len(block) % 4), validate=False)
        except (binascii.Error, ValueError):
            continue
        # a block cut off (its last short line is not part of the match) ends mid-character
        out.append(raw.decode("utf-8", "replace"))
    return out


# Python's `\s` in a str pattern (tests check the list), for re2 on UTF-8 bytes
_PY_SPACE = (r"[\t\n\x0b\x0c\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}"
             r"\x{202f}\x{205f}\x{3000}]")
_NOT_B64 = bytes(c for c in range(256)
                 if chr(c) not in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


@lru_cache(maxsize=1)
def block_pattern() -> tuple[Any, bool]:
    """`_B64` run by re2 on UTF-8 bytes when importable (linear; True), else `_B64` on
    text. The same blocks: re2 has no look-behind, which changes no match (a match inside
    a run extends to its start, the leftmost), and Python's whitespace is spelled out."""
    try:
        import re2
    except ImportError:
        return _B64, False
    src = _B64.pattern.removeprefix("(?<![A-Za-z0-9+/])").replace("\\s", _PY_SPACE)
    opts = re2.Options()
    opts.max_mem = 64 << 20
    return re2.compile(src.encode(), opts), True


def _text_files(root: Path, skip_top: Iterable[str]) -> Iterable[Path]:
    skip = tuple(skip_top)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and
                             d not in ("__pycache__", "node_modules", ".git"))
        top = Path(dirpath) == root
        for name in sorted(filenames):
            p = Path(dirpath) / name
            if not (top and name.startswith(skip)) and _text_file(p):
                yield p


def _text_file(p: Path) -> bool:
    """A regular text file (a FIFO or device must not hang the scan, or be "read")."""
    if p.name.startswith(".") or p.suffix not in TEXT_SUFFIXES or p.is_symlink():
        return False
    try:
        return stat.S_ISREG(p.stat().st_mode)
    except OSError:
        return False


def build(task_dir: str | None, references: Iterable[str] = (),
          skip: Iterable[str] = ()) -> Fingerprints:
    """Fingerprints of the task folder's protected files and of the reference source."""
    fp = Fingerprints()
    roots: list[tuple[Path, str]] = []
    if task_dir:
        roots.append((Path(task_dir), "protected"))
        fp.allowed.update(_allowed_lines(Path(task_dir)))
    roots.extend((Path(r), "reference") for r in references if r and Path(r).is_dir())
    budget = _Budget()
    for root, kind in roots:
        if not _add_root(fp, root, kind, tuple(skip), budget):
            break
    return fp


def _add_root(fp: Fingerprints, root: Path, kind: str, skip: tuple[str, ...],
              budget: _Budget) -> bool:
    """Fingerprint one root's text files; False once the budget is spent."""
    skip_top = (*SKIP_NAMES, "spec_v", *skip) if kind == "protected" else ()
    for p in _text_files(root, skip_top):
        if not budget.take(fp, p):
            return False
        text = _protected_text(fp, p, budget)
        if text is None:
            continue
        label = str(p.relative_to(root)) if kind == "protected" else \
            f"the reference source {p.relative_to(root)}"
        fp.add(label, text, "ids" if p.name.startswith("kept_") else kind)
    return True


def _allowed_lines(tdir: Path) -> set[str]:
    """The lines of what the agent may read (the spec, READMEs): never evidence."""
    out: set[str] = set()
    for p in sorted(tdir.iterdir()):
        if p.is_file() and not p.is_symlink() and p.name.startswith(("spec", "README")) and \
                p.name != "spec_test_map.md" and p.stat().st_size <= MAX_FILE:
            try:
                out.update(n for _, n in _sig_lines(p.read_text(encoding="utf-8")))
            except (OSError, UnicodeDecodeError):
                continue
    return out


@dataclass
class _Budget:
    """Files and bytes of protected material read so far (MAX_FILES, MAX_TOTAL)."""

    files: int = 0
    total: int = 0

    def take(self, fp: Fingerprints, p: Path) -> bool:
        self.files += 1
        if self.files > MAX_FILES or self.total > MAX_TOTAL:
            fp.unchecked.append((str(p), f"more than {MAX_FILES} files or "
                                 f"{MAX_TOTAL >> 20} MB of protected material: the rest "
                                 "was not fingerprinted"))
            return False
        return True


def _protected_text(fp: Fingerprints, p: Path, budget: _Budget) -> str | None:
    try:
        size = p.stat().st_size
        if size > MAX_FILE:
            fp.unchecked.append((str(p), f"protected file over {MAX_FILE >> 20} MB "
                                 "was not fingerprinted"))
            return None
        text = p.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None                     # binary fixtures carry no line evidence
    budget.total += size
    return text
