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
could differ: msgspec missing or not worth its import (`LEAN_AFTER`); any msgspec error
(malformed JSON, a message that is not an object, a value of another type than the
schema's, which admits only text and null where the walk makes an event of a value:
orjson gives an integer past 64 bits as a float, msgspec as an int; too deep); a key
of another format; a document that is not mini-swe-agent's; invalid UTF-8 anywhere
(msgspec does not check the strings it skips); a recursion limit that would let
msgspec nest deeper than orjson's 1024 levels. Such documents (content as a list of
parts, tool arguments as an object, ...) are only slower, never read otherwise.

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
import sys
from typing import Any

# The lean path is used once the process has been asked to decode this many bytes of
# single documents (this one included): msgspec's import with the schema costs 9-11 ms in
# a scan process, the lean path saves 0.4-0.5 ms per MB of decoding and event building
# (0.3-0.8 ms per MB of the whole scan, noisy): it breaks even after 13-35 MB
# (benchmarks/scan/NOTES.md, "Lean mini-swe-agent decoding"). A scan of one small file
# never imports msgspec. -1: never; 0: always when msgspec is importable.
LEAN_AFTER = int(os.environ.get("GAVEL_SCAN_LEAN_AFTER", str(20 << 20)))
ORJSON_DEPTH = 1024         # orjson rejects a document nested deeper than this
_TOO_DEEP = b"[" * (ORJSON_DEPTH + 1) + b"]" * (ORJSON_DEPTH + 1)

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


_WS = b" \t\r\n"


def _completion_log(raw: bytes) -> bool:
    """An OpenHands completion log (`messages` first, `fncall_messages` later): the
    schema would reject it only after decoding its messages, which costs more than this
    search. mini-swe-agent writes `info` first; SWE-agent and inspect logs fail on their
    own keys, which come before any `messages`."""
    head = raw[:64].lstrip(_WS)
    return head[:1] == b"{" and head[1:].lstrip(_WS).startswith(b'"messages"') \
        and b'"fncall_messages"' in raw


def _utf8(raw: bytes) -> bool:
    """Valid UTF-8, as orjson requires of every string (msgspec checks only the strings
    it decodes)."""
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
    mini-swe-agent document (the keys `_doc_format` tests first are absent: `messages`,
    `info` and `trajectory_format` decide as in orjson's dict)."""
    from gavelkit.task.anticheat.trajectory import swe

    if any(v is not unset for v in (doc.trajectory, doc.history, doc.fncall_messages,
                                     doc.eval)):
        return None
    out: dict[str, Any] = {"messages": doc.messages}
    if doc.info is not unset:
        out["info"] = doc.info
    if doc.trajectory_format is not unset:
        out["trajectory_format"] = doc.trajectory_format
    return out if swe.looks_like_mini(out) else None
