"""What a failure roots in, as a maintainer would name it (issue 26 item 10).

A cluster is keyed by what failed, not by where the assertion happened to stop:

- the public entry point first reached: a CLI subcommand (`tox list`, from the
  helper call that produced the `CompletedProcess`, else its argv), else the first
  name of the target package the failing statement calls, else the first call that
  is not plumbing (str/Path/dict methods, `CompletedProcess`, the test's own helpers);
- the exception type and its trigger (an assertion of the test, or an exception the
  candidate raised);
- the spec section the test maps to, which describes the cluster but does not split
  it: one missing entry point failing tests of three sections is one root cause.

The behaviour is described from the spec section and the assertion ("`tox list`
(Configuration Files): assert 'ini_env -> from ini' in result.stdout fails"), not
from pytest's exception repr.
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, Literal

Trigger = Literal["assertion", "raised", "collection", "timeout", "missing"]

_PLUMBING = frozenset(dir(str) + dir(dict) + dir(list) + dir(PurePath) + dir(builtins)) | {
    "CompletedProcess", "read_text", "write_text", "read_bytes", "exists", "is_file", "is_dir",
    "loads", "dumps", "load", "dump", "raises", "warns", "approx", "fixture", "mark", "param",
    "parametrize", "mktemp", "getvalue", "assert", "if", "for", "while", "with", "not", "and",
    "or", "in", "is", "lambda", "return", "yield", "self", "cls", "super", "call", "check_call",
    "check_output", "Popen", "communicate", "decode", "encode", "strip", "splitlines", "json"}
_ARGS = re.compile(r"CompletedProcess\(args=\[([^\]]*)")  # pytest may cut the repr short
# a test helper that runs the program: run_tox(...), invoke_cli(...), dvc_main(...)
_RUNNER = re.compile(r"^(?:run|invoke|call|exec|execute)_?(\w+)$|^(\w+?)_?(?:cli|main|run|cmd)$")
_QUOTED = re.compile(r"""(['"])((?:\\.|(?!\1).)*)\1""")
_ASSIGN = re.compile(r"^\s*(\w+)\s*=\s*([\w.]+)\((.*)$")
_CALL = re.compile(r"(?<![\w.])((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\s*\(")
_EXC = re.compile(r"^E\s+([\w.]*?(\w+(?:Error|Exception|Warning|Exit|Interrupt)))\b", re.M)


@dataclass(frozen=True, slots=True)
class Root:
    entry: str  # "tox list" | "copier.run_copy" | "parse" | ""
    exception: str  # "AssertionError", "JSONDecodeError", ...
    trigger: Trigger
    statement: str  # the failing line of the test, as pytest printed it

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.entry, self.exception, self.trigger)


def _body(longrepr: str) -> tuple[list[str], int | None]:
    """The test source lines pytest printed and the index of the failing `>` line."""
    lines = longrepr.splitlines()
    idx = next((i for i, ln in enumerate(lines) if ln.startswith(">")), None)
    return lines, idx


def _statement(lines: list[str], idx: int | None) -> str:
    if idx is None:
        return ""
    stmt = [lines[idx][1:].strip()]
    for ln in lines[idx + 1:]:
        if ln.startswith("E ") or not ln.strip() or re.match(r"^\S+\.py:\d+", ln):
            break
        if not re.fullmatch(r"[\s^~]+", ln):  # pytest's caret markers are no source
            stmt.append(ln.strip())
    return " ".join(stmt)


def _literals(args: str) -> list[str]:
    return [m.group(2) for m in _QUOTED.finditer(args)]


def _subcommand(tokens: list[str]) -> str:
    """The first positional word of a CLI argv (an option's value is not one)."""
    prev_opt = False
    for t in tokens:
        if t.startswith("-"):
            prev_opt = "=" not in t
            continue
        if not prev_opt:
            return t
        prev_opt = False
    return next((t for t in tokens if t.startswith("-")), "")


def _program(argv: list[str], fallback: str) -> tuple[str, list[str]]:
    if "-m" in argv[:-1]:
        i = argv.index("-m")
        return argv[i + 1], argv[i + 2:]
    if argv:
        name = re.split(r"[\\/]", argv[0])[-1].removesuffix(".exe")
        if not name.startswith("python"):
            return name, argv[1:]
    return fallback, argv[1:]


def _args_at(text: str, start: int) -> str:
    """The argument text of the call whose `(` is at `start` (balanced, or to the end)."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1:i]
    return text[start + 1:]


def _runner_call(text: str, package: str) -> str:
    """`prog sub` of a helper call with literal arguments in one line (nested calls too:
    `json_config(run_tox(tmp, "config"))`), else ""."""
    for m in _CALL.finditer(text):
        name = m.group(1).rsplit(".", 1)[-1]
        r = _RUNNER.match(name)
        prog = ((r.group(1) or r.group(2)) if r else name) or ""
        prog = package if prog in ("", "cli", "command", "main") and package else prog
        if not (r or name == package) or (package and prog != package):
            continue
        lits = [x for x in _literals(_args_at(text, m.end() - 1)) if "..." not in x]
        if lits:
            return f"{prog} {_subcommand(lits)}".strip()
    return ""


def cli_entry(text: str, lines: list[str], idx: int | None, package: str) -> str:
    """`prog subcommand` of the CLI call the failing statement checks, else ""."""
    stmt = _statement(lines, idx)
    scan = [stmt]
    var = re.search(r"\b(\w+)\.(?:returncode|stdout|stderr|output|exit_code)\b", stmt)
    if idx is not None:
        assigned = [ln for ln in reversed(lines[:idx]) if var and (a := _ASSIGN.match(ln))
                    and a.group(1) == var.group(1)]
        top = max((i for i in range(idx) if lines[i].lstrip().startswith(("def ", "async def "))),
                  default=-1)
        scan += assigned[:1] + list(reversed(lines[top + 1:idx]))
    for ln in scan:
        hit = _runner_call(ln, package)
        if hit:
            return hit
    m = _ARGS.search(text)
    if m is None:
        return ""
    argv = [x for x in _literals(m.group(1)) if "..." not in x]
    prog, rest = _program(argv, package or "cli")
    return f"{prog} {_subcommand(rest)}".strip()


def _calls(text: str) -> list[str]:
    return [m.group(1) for m in _CALL.finditer(text.split("#", 1)[0])]


def api_entry(lines: list[str], idx: int | None, package: str, public: frozenset[str],
              helpers: frozenset[str]) -> str:
    """The first package name the failing statement calls, else the first non-plumbing call
    (the failing line, then the nearest line above it in the test)."""
    if idx is None:
        return ""
    top = max((i for i in range(idx) if lines[i].lstrip().startswith(("def ", "async def "))),
              default=-1)
    scan = [_statement(lines, idx), *reversed(lines[top + 1:idx])]
    for text in scan:
        names = _calls(text)
        for n in names:
            head, _, last = n.rpartition(".")
            if (package and n.split(".")[0] == package) or last in public:
                return n if head == package or not head else last
    for text in scan:
        for n in _calls(text):
            last = n.rsplit(".", 1)[-1]
            if last not in _PLUMBING and last not in helpers and not last.startswith("assert"):
                return last
    return ""


def exception_of(text: str, crash: str) -> str:
    m = _EXC.search(text)
    if m:
        return m.group(2)
    head = crash.split(":", 1)[0].strip()
    return head.rsplit(".", 1)[-1][:60] if re.fullmatch(r"[\w.]+", head or "-") else ""


def root_of(case: dict[str, Any], phase: dict[str, Any], crash: str, package: str | None,
            public: frozenset[str] = frozenset(), helpers: frozenset[str] = frozenset()) -> Root:
    lr = str(phase.get("longrepr") or "")
    text = crash + "\n" + lr
    lines, idx = _body(lr)
    exc = exception_of(text, crash) or ("AssertionError" if "assert" in crash else "")
    trigger: Trigger = ("timeout" if case.get("outcome") == "timeout" else
                        "collection" if case.get("outcome") == "collection_error" else
                        "assertion" if exc == "AssertionError" else "raised")
    pkg = package or ""
    entry = cli_entry(text, lines, idx, pkg) or api_entry(lines, idx, pkg, public, helpers)
    return Root(entry, exc, trigger, _statement(lines, idx))


def describe(root: Root, section: str) -> str:
    """The behaviour that failed: entry point, spec section, then the assertion or raise."""
    where = f" ({section})" if section else ""
    name = f"`{root.entry}`" if root.entry else "the test"
    if root.trigger == "assertion" and root.statement:
        return f"{name}{where}: {root.statement[:140]} fails"
    if root.trigger == "timeout":
        return f"{name}{where}: does not finish (timeout)"
    return f"{name}{where}: raises {root.exception or 'an error'}"


_IMPORT = re.compile(r"^\s*from\s+([\w.]+)\s+import\s+\(?([^)#\n]+)", re.M)
_DEF = re.compile(r"^(?:async\s+)?def\s+(\w+)", re.M)


def module_names(sources: list[str], package: str | None) -> tuple[frozenset[str], frozenset[str]]:
    """(names imported from the target package, module-level helper functions) of the
    oracle test files: what counts as the public surface a test reaches."""
    public: set[str] = set()
    helpers: set[str] = set()
    for src in sources:
        for mod, names in _IMPORT.findall(src):
            if package and mod.split(".")[0] == package:
                public |= {n.split(" as ")[-1].strip() for n in names.split(",") if n.strip()}
        helpers |= {n for n in _DEF.findall(src) if not n.startswith("test")}
    return frozenset(public), frozenset(helpers)


def test_calls(task: Any, nodeids: list[str], public: frozenset[str]) -> dict[str, frozenset[str]]:
    """nodeid -> the package's public names the test calls (directly or through one
    same-module helper): what an integration test depends on (issue 26: dependencies
    from what the test calls, not only from spec-section overlap)."""
    from gavelkit.task.formats.nodeids import base_nodeid, file_of
    from gavelkit.task.formats.testsrc import read_module

    if not public:
        return {}
    files = getattr(task, "test_files", {})
    by_stem = {PurePath(rel).stem: p for rel, p in files.items()}
    mods: dict[str, Any] = {}
    out: dict[str, frozenset[str]] = {}
    for nid in nodeids:
        rel = file_of(nid)
        path = files.get(rel) or by_stem.get(PurePath(rel).stem)
        if path is None:
            continue
        if rel not in mods:
            mods[rel] = read_module(path)[0]
        mod = mods[rel]
        tf = mod.find(base_nodeid(nid).split("::", 1)[-1].replace("::", ".")) if mod else None
        if tf is None:
            continue
        names = set(tf.calls)
        for h in list(tf.calls):
            if h in mod.helpers:
                names |= mod.helpers[h].calls
        out[nid] = frozenset(names & public)
    return out
