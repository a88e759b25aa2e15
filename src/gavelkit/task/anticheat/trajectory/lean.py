"""A lean decoder for mini-swe-agent documents: only what the scanner reads is built.

`swe.mini_events` reads the top-level `messages` (each one's `role`, `content`,
`tool_calls`) and `info.config.agent.action_regex` / `info.config.environment.cwd`;
`document_format` reads which top-level keys exist. The rest (about 41 % of the bytes
of real runs: each message's `extra` with the provider's response, `info`'s stats and
templates) orjson builds into Python objects only to free them. msgspec, given the
schema of `leanschema`, skips those parts while validating them.

`decode(raw)` gives a dict that `document_format` classifies as "mini-swe-agent" and
`mini_events` walks into exactly the events of `orjson.loads(raw)`, or None: then the
caller uses orjson, which decides as before. None is the answer whenever the lean path
could differ: msgspec missing or not worth its import (`LEAN_AFTER`), any msgspec error
(malformed JSON, a message that is not an object, a value of another type than the
schema's, too deep), a key of another format, a document that is not mini-swe-agent's,
a float or an integer past 64 bits inside a message's `content` or `tool_calls`
(orjson gives such an integer as a float, msgspec as an int), invalid UTF-8 anywhere (msgspec does not check skipped strings), a
recursion limit that would let msgspec nest deeper than orjson's 1024 levels.

One difference is kept on purpose: a number too big for a double (`1e309`, a
310-digit integer) in a part the scanner never reads. orjson rejects the whole
document, the lean path skips the number (`json.loads`, gavelkit's decoder without
orjson, reads it as inf). Such a document is valid JSON (RFC 8259 sets no range) and
everything the scan reads is decoded exactly, so scanning it is right; the orjson
verdict (CHT-U002, unverifiable) is a limit of that parser, not of the transcript.
Finding such a number among the skipped bytes would cost a pass as slow as the
decoding the lean path saves.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

# The lean path pays for msgspec's import (~8 ms with the schema) once the process has
# been asked to decode this many bytes of single documents (this one included): it
# saves ~0.75 ms per MB decoded (benchmarks/scan/NOTES.md, "Lean mini-swe-agent
# decoding"). -1: never; 0: always when msgspec is importable.
LEAN_AFTER = int(os.environ.get("GAVEL_SCAN_LEAN_AFTER", str(12 << 20)))
ORJSON_DEPTH = 1024         # orjson rejects a document nested deeper than this
_TOO_DEEP = b"[" * (ORJSON_DEPTH + 1) + b"]" * (ORJSON_DEPTH + 1)
_INT_RANGE = range(-(1 << 63), 1 << 64)     # the integers orjson gives as int

_seen = 0                   # bytes of single documents this process was asked to decode
_schema: Any = None         # the leanschema module once imported; False: not importable


def decode(raw: bytes) -> dict[str, Any] | None:
    """The mini-swe-agent document in `raw` with only what the scan reads, or None
    (then decode it with orjson). `raw` has no BOM (the caller strips it)."""
    global _seen
    _seen += len(raw)
    schema = _loaded()
    if schema is None or _completion_log(raw) or (not raw.isascii() and not _utf8(raw)):
        return None
    if not _depth_capped(schema):
        return None
    try:
        doc = schema.DECODER.decode(raw)
    except schema.ERRORS:
        return None
    return _walkable(doc, schema.UNSET)


def _loaded() -> Any:
    """leanschema, when it is imported already or now pays for its import; else None."""
    global _schema
    if LEAN_AFTER < 0:
        return None
    if _schema is None and _seen >= LEAN_AFTER:
        try:
            from gavelkit.task.anticheat.trajectory import leanschema
        except ImportError:
            _schema = False
        else:
            _schema = leanschema
    return _schema or None


_FIRST_KEY = re.compile(rb'\s*\{\s*"([^"\\]{1,32})"')


def _completion_log(raw: bytes) -> bool:
    """An OpenHands completion log (`messages` first, `fncall_messages` later): the
    schema would reject it only after decoding its messages, which costs more than this
    search. mini-swe-agent writes `info` first; SWE-agent and inspect logs fail on their
    own keys, which come before any `messages`."""
    m = _FIRST_KEY.match(raw, 0, 256)
    return m is not None and m.group(1) == b"messages" and b'"fncall_messages"' in raw


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _depth_capped(schema: Any) -> bool:
    """Does msgspec stop before orjson's depth limit here? It nests as deep as the
    interpreter's recursion check lets it: on 3.11 at most the recursion limit, later
    versions count C calls against another limit, so there it is tried (a document of
    1025 levels must fail; called from `decode` itself, at the depth of the decoding)."""
    if sys.version_info < (3, 12):
        return sys.getrecursionlimit() <= ORJSON_DEPTH
    try:
        schema.UNTYPED.decode(_TOO_DEEP)
    except RecursionError:
        return True
    return False


def _walkable(doc: Any, unset: Any) -> dict[str, Any] | None:
    """The dict `document_format` and `mini_events` see, or None when it is not a
    mini-swe-agent document or a message holds a number orjson could read otherwise."""
    from gavelkit.task.anticheat.trajectory import swe

    if any(v is not unset for v in (doc.trajectory, doc.history, doc.fncall_messages,
                                     doc.eval)):
        return None
    out: dict[str, Any] = {"messages": doc.messages}
    if doc.info is not unset:
        out["info"] = doc.info
    if doc.trajectory_format is not unset:
        out["trajectory_format"] = doc.trajectory_format
    if not swe.looks_like_mini(out):
        return None
    try:
        exact = all((isinstance(m.content, str) or _no_number(m.content))
                    and _no_number(m.tool_calls) for m in doc.messages)
    except RecursionError:      # a value nested nearly as deep as msgspec allows
        return None
    return out if exact else None


def _no_number(value: Any) -> bool:
    """No float (parsers may round differently) and no integer orjson would give as a
    float in `value`, at any depth."""
    if isinstance(value, str) or value is None or isinstance(value, bool):
        return True
    if isinstance(value, int):
        return value in _INT_RANGE
    if isinstance(value, list):
        return all(_no_number(v) for v in value)
    if isinstance(value, dict):
        return all(_no_number(v) for v in value.values())
    return False
