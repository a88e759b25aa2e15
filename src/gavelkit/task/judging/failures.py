"""What a failed case says: its failing phase, crash message and the root it names.

Shared by the gap metrics, the clusters and the report: pytest-json-report and
gavel's own cases keep the failing phase's text in `call`, `setup` (a fixture or
collection error) or `teardown`.
"""

from __future__ import annotations

import re
from typing import Any

from gavelkit.task.formats.nodeids import base_nodeid

_FRAME = re.compile(r"^([^\s:][^:\n]*\.py):(\d+):(?: in (\w+)| (\w+(?:Error|Exception|Exit)\w*))?",
                    re.M)
_NAME_MISSING = (
    (re.compile(r"cannot import name '(\w+)'"), "missing name {0}"),
    (re.compile(r"No module named '([\w.]+)'"), "missing module {0}"),
    (re.compile(r"No module named ([A-Za-z_][\w.]*\w)"), "missing module {0}"),  # python -m X
    (re.compile(r"has no attribute '(\w+)'"), "missing attribute {0}"),
    (re.compile(r"NameError: name '(\w+)' is not defined"), "undefined name {0}"),
)


def failing_phase(case: dict[str, Any]) -> dict[str, Any]:
    """The phase that failed: `call`, else `setup` (a fixture or collection error: dvc's
    recorded runs put the message in `setup.crash.message`), else `teardown`."""
    for key in ("call", "setup", "teardown"):
        ph = case.get(key)
        if isinstance(ph, dict) and ph.get("outcome") not in ("passed", "skipped") and (
                ph.get("crash") or ph.get("longrepr") or ph.get("outcome")):
            return ph
    return {}


def crash_message(case: dict[str, Any]) -> str:
    crash = failing_phase(case).get("crash")
    return str(crash.get("message") or "") if isinstance(crash, dict) else ""


def root_signature(case: dict[str, Any], package: str | None) -> str:
    """What a failure roots in: a missing name, the candidate frame that raised, or the test."""
    call = failing_phase(case)
    crash = (call.get("crash") or {}).get("message", "") or ""
    text = crash + "\n" + str(call.get("longrepr", ""))
    for rx, fmt in _NAME_MISSING:
        m = rx.search(text)
        if m:
            return fmt.format(m.group(1))
    if case["outcome"] in ("collection_error",):
        return f"collection error in {case.get('file')}"
    if case["outcome"] in ("timeout",):
        return "timeout"
    frames = _FRAME.findall(str(call.get("longrepr", "")))
    pkg = package or ""
    cand = [f for f in frames if pkg and (f"/{pkg}/" in "/" + f[0].replace("\\", "/")
                                          or f[0].replace("\\", "/").endswith(f"/{pkg}.py"))]
    exc = ""
    m = re.search(r"^E\s+(\w+(?:Error|Exception|Warning|Exit))", str(call.get("longrepr", "")),
                  re.M)
    if m:
        exc = m.group(1)
    elif crash:
        exc = crash.split(":", 1)[0].strip()[:60]
    if cand:
        path, line, func, _ = cand[-1]
        short = path.replace("\\", "/").split(f"/{pkg}/")[-1] if f"/{pkg}/" in path else path
        return f"{exc or 'error'} in {pkg}/{short}:{line}" + (f" ({func})" if func else "")
    # no candidate frame: the test's own assertion failed; one root per test function
    return f"{exc or case['outcome']} in {base_nodeid(case['nodeid'])}"


CASCADE_ROOTS = re.compile(r"^(missing (name|module|attribute)|undefined name|collection error)")

_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_WHERE = re.compile(r"where .*? = (?:[\w.]+\.)?(\w+)\(")
_NOT_API = frozenset(dir(__import__("builtins"))) | {
    "assert", "raises", "warns", "deprecated_call", "approx", "parametrize", "fixture", "mark",
    "param", "print", "if", "for", "while", "with", "not", "and", "or", "in", "is", "lambda",
    "return", "yield", "elif", "else", "self", "cls", "super"}
_REGEX_MISS = re.compile(r"Regex pattern did not match|Pattern '.*' does not match|"
                         r"does not match the regex", re.S)
_EXPECTED = re.compile(r"(?:Expected regex|Regex|Pattern):?\s*['\"](.+?)['\"]\s*$", re.M)


def first_call(case: dict[str, Any]) -> str | None:
    """The first public call whose result differs: pytest's `where X = f(...)`, else the
    last call on the failing line of the test, else the nearest call above it in the test."""
    call = failing_phase(case)
    crash = crash_message(case)
    lr = str(call.get("longrepr") or "")
    for text in (crash, lr):
        m = _WHERE.search(text)
        if m and m.group(1) not in _NOT_API:
            return m.group(1)
    lines = lr.splitlines()
    idx = next((i for i, ln in enumerate(lines) if ln.startswith(">")), None)
    if idx is None:
        return None
    stmt = [lines[idx][1:]]
    for ln in lines[idx + 1:]:
        if ln.startswith("E ") or not ln.strip() or re.match(r"^\S+\.py:\d+", ln):
            break
        stmt.append(ln)
    names = [n for n in _CALL.findall(" ".join(stmt)) if n not in _NOT_API]
    if names:
        return names[-1]
    top = max((i for i in range(idx) if lines[i].lstrip().startswith("def ")), default=-1)
    for ln in reversed(lines[top + 1:idx]):
        names = [n for n in _CALL.findall(ln.split("#", 1)[0]) if n not in _NOT_API]
        if names and not ln.lstrip().startswith("@"):
            return names[-1]
    return None


def unpromised_wording(case: dict[str, Any], spec_text: str) -> str | None:
    """A failure that only asserts message wording the spec does not state (seed Gate B:
    exception message wording is not behaviour). None when the spec quotes the text."""
    call = failing_phase(case)
    text = crash_message(case) + "\n" + str(call.get("longrepr") or "")
    if not _REGEX_MISS.search(text):
        return None
    m = _EXPECTED.search(text)
    if m and spec_text:
        literal = max(re.split(r"[\\.*+?^$()\[\]{}|]+", m.group(1)), key=len).strip()
        if len(literal) >= 8 and literal.lower() in spec_text.lower():
            return None  # the spec promises this wording: a behaviour after all
    return "message wording asserted by regex, not stated in the spec"


def behaviour_signature(case: dict[str, Any], package: str | None, section: str) -> str:
    """What a failure roots in: a missing name (cascade) as before, else the failing
    behaviour = the spec section and the first differing call (not the assertion text)."""
    sig = root_signature(case, package)
    if CASCADE_ROOTS.match(sig) or sig == "timeout":
        return sig
    fc = first_call(case)
    if not fc:
        return f"{section}: {sig}" if section else sig
    exc = sig.split(" in ", 1)[0] if " in " in sig and "/" in sig.split(" in ", 1)[1] else ""
    return (f"{section or '(unmapped)'}: {fc}()"
            + (f" raises {exc}" if exc and exc not in ("error", "AssertionError") else ""))
