"""Make a rule example's files and run its `gavel` command in this process.

`materialize` writes a `Case` (core.rules) into a folder and returns a listing, one
line per line of every file, that `difference` compares: a near miss "differs in one
respect" when the listings of the firing and the near-miss input differ in one hunk
of at most `ONE_RESPECT_LINES` lines. `run_case` calls the command's function the way
`gavel` does, with `--format json`, in the example's folder and environment, and
returns the findings it printed; an `InputError` (unusable input, exit 2) is a finding
too, since that is what the user sees for a GK-IO code.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gavelkit.core.findings import Finding
from gavelkit.core.rules import Case, CatalogError, FileSpec, fixture_path, fixture_tree, is_tree

ONE_RESPECT_LINES = 4

Listing = list[str]


@dataclass
class Outcome:
    """What one example's command did: its findings, exit status and any refusal."""

    findings: list[Finding]
    exit: int
    stdout: str = ""
    stderr: str = ""
    refused: str = ""  # a usage error or argparse refusal: the example itself is wrong
    listing: Listing = field(default_factory=list)

    def codes(self) -> set[str]:
        return {f.code for f in self.findings}


def expand(text: str, root: Path | None = None) -> str:
    """`{py}`: this interpreter's X.Y (site-packages folders are named for it); `{root}`:
    the example's folder (for environment values a child process reads elsewhere)."""
    import sys

    text = text.replace("{py}", f"{sys.version_info[0]}.{sys.version_info[1]}")
    return text.replace("{root}", str(root)) if root is not None else text


def _inside(root: Path, rel: str) -> Path:
    rel = expand(rel)
    if not rel or rel.startswith("/") or ".." in Path(rel).parts:
        raise CatalogError(f"example path {rel!r} must stay inside the example folder")
    return root / rel


def _edited(text: str, edits: tuple[tuple[str, str], ...], where: str) -> str:
    for old, new in edits:
        n = text.count(old)
        if n != 1:
            raise CatalogError(f"{where}: edit {old!r} occurs {n} times (must be once)")
        text = text.replace(old, new)
    return text


def _remove(p: Path) -> None:
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p)
    else:
        p.unlink()


def _text_of(p: Path, spec: FileSpec, rel: str) -> str:
    if spec.text is not None:
        return spec.text
    if spec.base is not None:
        return Path(fixture_path(spec.base)).read_text(encoding="utf-8")
    if p.is_file() and not p.is_symlink():
        return p.read_text(encoding="utf-8")
    raise CatalogError(f"{rel}: edit of a file the example does not have")


def _pdf(p: Path, spec: FileSpec) -> None:
    from gavelkit.cli.example_pdf import build

    p.write_bytes(build(spec.pdf or {}))


MAKERS: dict[str, Callable[[Path, FileSpec], object]] = {
    "dir": lambda p, s: p.mkdir(exist_ok=True),
    "link": lambda p, s: os.symlink(str(s.link), p),
    "fifo": lambda p, s: os.mkfifo(p),
    "hex": lambda p, s: p.write_bytes(bytes.fromhex(s.hex or "")),
    "pdf": _pdf,
}


def _replaces(p: Path, spec: FileSpec) -> bool:
    """What the tree's base put here goes first: a new kind of path, or a link (which a
    text write would follow). An edit changes the file in place."""
    return spec.source != "edit" and (spec.source in MAKERS or p.is_symlink())


def _write(root: Path, rel: str, spec: FileSpec, pdfs: dict[str, object]) -> None:
    p = _inside(root, rel)
    there = p.exists() or p.is_symlink()
    if spec.drop:  # a near miss may drop what its firing case added, or what a base holds
        if there:
            _remove(p)
        return
    p.parent.mkdir(parents=True, exist_ok=True)
    if there and _replaces(p, spec):
        _remove(p)
    if spec.base is not None and is_tree(spec.base):
        _write_tree(p, fixture_tree(spec.base), pdfs, rel + "/")
    elif spec.source in MAKERS:
        MAKERS[spec.source](p, spec)
        if spec.pdf is not None:
            pdfs[expand(rel)] = spec.pdf
    else:
        text = _edited(_text_of(p, spec, rel), spec.edit, rel)
        p.write_text(text, encoding="utf-8", newline="")


def _order(item: tuple[str, FileSpec]) -> tuple[int, str]:
    """Trees first, so a file given beside a tree lands in it (and may edit it)."""
    rel, spec = item
    return (0 if spec.base is not None and is_tree(spec.base) else 1, rel)


def _write_tree(root: Path, files: Mapping[str, FileSpec], pdfs: dict[str, object],
                prefix: str = "") -> None:
    root.mkdir(parents=True, exist_ok=True)
    inner: dict[str, object] = {}
    for rel, spec in sorted(files.items(), key=_order):
        _write(root, rel, spec, inner)
    pdfs.update({prefix + k: v for k, v in inner.items()})


def materialize(case: Case, root: Path) -> Listing:
    """Write the case's files under `root` (made if needed); return its listing."""
    pdfs: dict[str, object] = {}
    if case.base is not None:
        _write_tree(root, fixture_tree(case.base), pdfs)
    _write_tree(root, case.files, pdfs)
    return listing(case, root, pdfs)


def _content_lines(rel: str, data: bytes) -> Listing:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = ""
    if "\0" in text or (data and not text):
        import hashlib

        return [f"{rel}: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()[:16]}"]
    return [f"{rel}: {ln}" for ln in text.splitlines()] or [f"{rel}: (empty)"]


def _file_lines(root: Path, p: Path, pdfs: Mapping[str, object]) -> Listing:
    rel = p.relative_to(root).as_posix()
    if p.is_symlink():
        return [f"{rel} -> {os.readlink(p)}"]
    if p.is_dir():
        return [] if any(p.iterdir()) else [f"{rel}/"]
    if not p.is_file():
        return [f"{rel}: special file"]
    if rel in pdfs:
        from gavelkit.cli.example_pdf import describe

        return [f"{rel}: {x}" for x in describe(pdfs[rel])]  # type: ignore[arg-type]
    return _content_lines(rel, p.read_bytes())


def listing(case: Case, root: Path, pdfs: Mapping[str, object] | None = None) -> Listing:
    """The command, environment and every file's lines: what two examples are compared by."""
    out = [f"$ {case.command}"] + [f"env {k}={v}" for k, v in sorted(case.env.items())]
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        here = Path(dirpath)
        for name in sorted([*filenames, *(d for d in dirnames if (here / d).is_symlink()),
                            *(d for d in dirnames if not any((here / d).iterdir()))]):
            out += _file_lines(root, here / name, pdfs or {})
    return out


def difference(a: Listing, b: Listing) -> tuple[int, int]:
    """(hunks, lines) by which two listings differ: (0, 0) when they are the same."""
    import difflib

    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
           if op[0] != "equal"]
    return len(ops), max((max(i2 - i1, j2 - j1) for _, i1, i2, j1, j2 in ops), default=0)


def one_respect(a: Listing, b: Listing) -> bool:
    hunks, lines = difference(a, b)
    return hunks == 1 and lines <= ONE_RESPECT_LINES


# Caches that hold what a process read from its working folder or environment (the
# project config): a fresh `gavel` process starts without them, so each example does.
PER_PROCESS = ("gavelkit.core.config:load_config", "gavelkit.award.tables:load_tables")


def _fresh() -> None:
    import sys

    for name in PER_PROCESS:
        module, attr = name.split(":")
        if module in sys.modules:
            getattr(sys.modules[module], attr).cache_clear()


@contextlib.contextmanager
def _where(root: Path, env: Mapping[str, str]) -> Iterator[None]:
    old_cwd, saved = os.getcwd(), {k: os.environ.get(k) for k in env}
    os.environ.update({k: expand(v, root) for k, v in env.items()})
    os.chdir(root)
    _fresh()
    try:
        yield
    finally:
        os.chdir(old_cwd)
        _fresh()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _argv(run: tuple[str, ...]) -> tuple[tuple[str, ...], str, list[str]]:
    from gavelkit.cli.main import resolve

    hit = resolve(run)
    if hit is None:
        raise CatalogError(f"example command {' '.join(run)!r} is no gavel command")
    words, target = hit
    rest = list(run[len(words):])
    if "--format" not in rest:
        rest = ["--format", "json", *rest]
    return words, target, rest


def findings_of(stdout: str) -> list[Finding]:
    """The findings a command printed as JSON (`findings`, and pdfqa's `qa_findings`)."""
    try:
        doc = json.loads(stdout)
    except ValueError:
        return []
    out = []
    for d in [*doc.get("findings", []), *doc.get("qa_findings", [])] if isinstance(doc, dict) else []:
        out.append(Finding(d["code"], d["severity"], d["message"], d.get("path", ""),
                           d.get("line", 0), d.get("col", 0), d.get("hint"),
                           d.get("unusable", False), d.get("data", {})))
    return out


Command = Callable[[list[str], str], int]


def run_case(case: Case, root: Path, command: Command | None = None) -> Outcome:
    """Materialize `case` in `root` and run its command there, in this process."""
    return run_in(case, root, materialize(case, root), command)


def run_in(case: Case, root: Path, lines: Listing, command: Command | None = None) -> Outcome:
    """Run the case's command in `root`, where `materialize` wrote it (`lines`)."""
    from importlib import import_module

    from gavelkit.core.errors import InputError, UsageError

    words, target, rest = _argv(case.run)
    module, func = target.split(":")
    call = command or getattr(import_module(module), func)
    out, err = io.StringIO(), io.StringIO()
    found: list[Finding] = []
    refused = ""
    with _where(root, case.env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = int(call(rest, "gavel " + " ".join(words)) or 0)
        except InputError as exc:
            rc, found = 2, [exc.to_finding()]
        except UsageError as exc:
            rc, refused = 2, str(exc)
        except SystemExit as exc:  # argparse
            rc = exc.code if isinstance(exc.code, int) else 2
            refused = err.getvalue().strip() or f"exit {exc.code}"
    stdout = out.getvalue()
    return Outcome(found + findings_of(stdout), rc, stdout, err.getvalue(), refused, lines)
