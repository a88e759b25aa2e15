"""The rule catalog: every finding code with its severity, title, why, and two examples.

The catalog is data (`gavelkit/data/rules/*.toml`, one file per pack) so that
SARIF output, `gavel rules` and the tests all read the same table. A rule is
readable in one place: its table holds the code, severity, title and doc, and
two runnable examples, a `fires` input that produces the code and a `near` miss
that does not (yamllint's PASS/FAIL snippets side by side). An example is a
`gavel` command line and the files it runs on (inline text, or a named fixture
from `data/rules/fixtures/` with small edits); the near miss states only what it
changes in the firing input. The catalog is only parsed when someone needs
titles, docs or examples, never on the lint hot path.
"""

from __future__ import annotations

import functools
import re
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from gavelkit.core.findings import Severity

RULE_KEYS = frozenset({"severity", "title", "doc", "severity_varies", "fires", "near"})
CASE_KEYS = frozenset({"run", "files", "base", "env", "note", "needs"})
FILE_KEYS = frozenset({"text", "base", "edit", "drop", "link", "fifo", "hex", "pdf", "dir"})
TREE_SUFFIX = ".tree.toml"


class CatalogError(ValueError):
    """A rule table of ours is malformed: a bug in the shipped data, named by rule."""


@dataclass(frozen=True, slots=True)
class FileSpec:
    """One path of an example's tree: its content, or how to make it.

    Exactly one source: `text` (inline), `base` (a fixture file, or a fixture tree
    written under this path), `link` (a symbolic link to this target), `fifo`, `dir`
    (an empty folder), `hex` (bytes), `pdf` (a spec for the test-PDF writer), `drop`
    (remove what the tree's base put here), or only `edit` (change the file the
    tree's base put here; `edit = []` keeps it as the base has it, undoing a firing
    case's edit). `edit` pairs replace text that occurs exactly once.
    """

    text: str | None = None
    base: str | None = None
    edit: tuple[tuple[str, str], ...] = ()
    drop: bool = False
    link: str | None = None
    fifo: bool = False
    hex: str | None = None
    pdf: Mapping[str, Any] | None = None
    dir: bool = False

    @property
    def source(self) -> str:
        for name in ("text", "base", "link", "hex", "pdf"):
            if getattr(self, name) is not None:
                return name
        for name in ("drop", "fifo", "dir"):
            if getattr(self, name):
                return name
        return "edit"


@dataclass(frozen=True, slots=True)
class Case:
    """One runnable example: `gavel <run>` in a folder holding `files` (over `base`)."""

    run: tuple[str, ...]
    files: Mapping[str, FileSpec] = field(default_factory=lambda: MappingProxyType({}))
    base: str | None = None          # fixture folder copied as the example's root first
    env: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    note: str = ""
    needs: tuple[str, ...] = ()  # programs on PATH (bwrap), or "user-site": else skipped

    @property
    def command(self) -> str:
        return "gavel " + shlex.join(self.run)

    def missing(self) -> list[str]:
        """What the example needs and this machine lacks: a program not on PATH, or
        `user-site` when this Python loads no user site-packages (a virtualenv: a .pth
        placed under PYTHONUSERBASE is never read there, so the example cannot fire)."""
        import os
        import shutil
        import site

        def lacks(n: str) -> bool:
            if n == "user-site":
                return not site.ENABLE_USER_SITE
            if n == "bwrap" and os.environ.get("GAVEL_NO_BWRAP", "") not in ("", "0"):
                return True  # switched off: scored as on a machine without it
            return shutil.which(n) is None

        return [n for n in self.needs if lacks(n)]


@dataclass(frozen=True, slots=True)
class Examples:
    fires: Case   # produces the rule's code
    near: Case    # the firing case with the near miss's changes: does not produce it
    near_changes: Case  # what the near miss itself states (for display)


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    severity: Severity
    title: str
    doc: str
    pack: str
    varies: bool = False  # severity depends on context (the default is the usual one)
    examples: Examples | None = None


def _fail(code: str, msg: str) -> CatalogError:
    return CatalogError(f"rule {code}: {msg}")


def _edits(code: str, raw: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(raw, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(s, str) for s in p)
            for p in raw):
        raise _fail(code, "edit must be a list of [old, new] string pairs")
    return tuple((a, b) for a, b in raw)


def _table(code: str, what: str, raw: Any, keys: frozenset[str]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise _fail(code, f"{what} must be a table")
    unknown = set(raw) - keys
    if unknown:
        raise _fail(code, f"{what}: unknown keys {sorted(unknown)}")
    return raw


def _file_spec(code: str, path: str, raw: Any) -> FileSpec:
    if isinstance(raw, str):
        return FileSpec(text=raw)
    raw = _table(code, f"file {path!r}", raw, FILE_KEYS)
    spec = FileSpec(text=raw.get("text"), base=raw.get("base"),
                    edit=_edits(code, raw.get("edit", [])), drop=bool(raw.get("drop", False)),
                    link=raw.get("link"), fifo=bool(raw.get("fifo", False)), hex=raw.get("hex"),
                    pdf=raw.get("pdf"), dir=bool(raw.get("dir", False)))
    sources = [n for n in ("text", "base", "link", "hex", "pdf", "drop", "fifo", "dir")
               if raw.get(n) not in (None, False)]
    if len(sources) > 1 or (spec.edit and spec.source not in ("text", "base", "edit")):
        raise _fail(code, f"file {path!r}: one source only, edits only on text ({sources})")
    if not sources and "edit" not in raw:  # `edit = []`: the tree base's file as it is
        raise _fail(code, f"file {path!r}: says nothing (give text, base, edit, ...)")
    return spec


def _run_words(code: str, name: str, raw: dict[str, Any], need_run: bool) -> tuple[str, ...]:
    if "run" not in raw:
        if need_run:
            raise _fail(code, f"{name} needs run = \"gavel ...\"")
        return ()
    words = shlex.split(raw["run"])
    if not words or words[0] != "gavel":
        raise _fail(code, f"{name}.run must start with 'gavel': {raw['run']!r}")
    return tuple(words[1:])


def _case(code: str, name: str, raw: Any, need_run: bool) -> Case:
    raw = _table(code, name, raw, CASE_KEYS)
    run = _run_words(code, name, raw, need_run)
    files = raw.get("files", {})
    if not isinstance(files, dict):
        raise _fail(code, f"{name}.files must be a table of path = content")
    specs = {p: _file_spec(code, p, v) for p, v in files.items()}
    env = raw.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise _fail(code, f"{name}.env must map names to strings")
    needs = raw.get("needs", [])
    if not isinstance(needs, list) or not all(isinstance(n, str) for n in needs):
        raise _fail(code, f"{name}.needs must be a list of program names")
    return Case(run, MappingProxyType(specs), raw.get("base"), MappingProxyType(dict(env)),
                str(raw.get("note", "")), tuple(needs))


def _merge(fires: Case, near: Case, raw: dict[str, Any]) -> Case:
    """The near miss is the firing case with the near table's own changes on top."""
    return replace(fires, run=near.run or fires.run,
                   base=near.base if "base" in raw else fires.base,
                   files=MappingProxyType({**fires.files, **near.files}),
                   env=MappingProxyType({**fires.env, **near.env}), note=near.note,
                   needs=tuple(dict.fromkeys((*fires.needs, *near.needs))))


def _examples(code: str, spec: dict[str, Any]) -> Examples | None:
    if "fires" not in spec and "near" not in spec:
        return None
    if "fires" not in spec or "near" not in spec:
        raise _fail(code, "give both a fires and a near example")
    fires = _case(code, "fires", spec["fires"], True)
    own = _case(code, "near", spec["near"], False)
    return Examples(fires, _merge(fires, own, spec["near"]), own)


def _rule(code: str, spec: Any, pack: str) -> Rule:
    spec = _table(code, "the rule", spec, RULE_KEYS)
    if not {"severity", "title", "doc"} <= set(spec):
        raise _fail(code, "needs severity, title and doc")
    return Rule(code, spec["severity"], spec["title"], spec["doc"].strip(), pack,
                bool(spec.get("severity_varies", False)), _examples(code, spec))


# A rule's own table header, or one of its example tables ([CODE.fires], [CODE.near]).
HEADER = re.compile(r"^\[([A-Z]{2,4}-[A-Z]{0,3}\d{3})(\.[A-Za-z_.]+)?\]\s*$", re.M)


def _without_examples(text: str) -> str:
    """The file with its example tables cut out: most of its bytes, none of a rule's
    code, severity, title or doc (what SARIF and lookups read)."""
    heads = list(HEADER.finditer(text))
    if not heads:
        return text
    keep = [text[: heads[0].start()]]
    for i, m in enumerate(heads):
        if m.group(2) is None:
            keep.append(text[m.start(): heads[i + 1].start() if i + 1 < len(heads) else None])
    return "".join(keep)


def _load(examples: bool) -> dict[str, Rule]:
    out: dict[str, Rule] = {}
    from gavelkit.data import path

    folder = path("rules")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".toml"):
            continue
        text = entry.read_text(encoding="utf-8")
        table = tomllib.loads(text if examples else _without_examples(text))
        pack = entry.name[: -len(".toml")]
        for code, spec in table.items():
            if code in out:
                raise ValueError(f"rule {code} defined twice ({out[code].pack}, {pack})")
            out[code] = _rule(code, spec, pack)
    return out


@functools.cache
def catalog() -> dict[str, Rule]:
    """Every rule with its examples (gavel rules, the tests)."""
    return _load(examples=True)


@functools.cache
def headlines() -> dict[str, Rule]:
    """Every rule without its examples, parsed from a fifth of the text (SARIF, lookups)."""
    return _load(examples=False)


def get(code: str) -> Rule | None:
    return headlines().get(code)


def fixture_path(name: str) -> str:
    """The file a `base = NAME` names in data/rules/fixtures/: NAME itself (a file to
    start from) or NAME.tree.toml (a tree: a `[files]` table written as examples are)."""
    import os

    from gavelkit.data import file

    root = file("rules", "fixtures")
    for cand in (name, name + TREE_SUFFIX):
        full = os.path.normpath(os.path.join(root, cand))
        if full.startswith(root + os.sep) and os.path.isfile(full):
            return full
    raise CatalogError(f"no fixture {name!r} in data/rules/fixtures/")


def is_tree(name: str) -> bool:
    return fixture_path(name).endswith(TREE_SUFFIX)


@functools.cache
def fixture_tree(name: str) -> Mapping[str, FileSpec]:
    """The files of a tree fixture (a nested `base` inside it is resolved when written)."""
    path = fixture_path(name)
    if not path.endswith(TREE_SUFFIX):
        raise CatalogError(f"fixture {name!r} is a file, not a tree")
    with open(path, "rb") as fh:
        table = tomllib.load(fh)
    files = table.get("files")
    if set(table) - {"files", "about"} or not isinstance(files, dict):
        raise CatalogError(f"fixture {name!r}: a tree holds [files] (and an about string)")
    return MappingProxyType({p: _file_spec(f"fixture {name}", p, v) for p, v in files.items()})
