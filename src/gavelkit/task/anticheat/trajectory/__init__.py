"""Agent trajectories in five families of formats, normalised into one `Event` stream.

Formats (detected from content, not file names): `claude-code` session JSONL
(with sub-agent files and sidechains), `codex` CLI rollouts, `openhands` event
streams / `output.jsonl` / V1 event folders, `swe-agent` `.traj`,
`mini-swe-agent` `trajectory.json`, `inspect-eval` `.eval` archives and
`inspect-json` logs. `detect(path)` names the format; JSONL formats expose a
`Normaliser` with `feed(obj, line) -> [Event]` so the scanner can stream them
and parse only the lines that matter; document formats go through
`document_events(fmt, doc)`. `expand(paths)` turns folders into files and adds
a Claude Code session's sub-agent files.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gavelkit.task.anticheat.trajectory import claude, codex, openhands, swe
from gavelkit.task.anticheat.trajectory.events import Event, loads

JSONL_FORMATS = ("claude-code", "codex", "openhands")
DOC_FORMATS = ("swe-agent", "mini-swe-agent", "inspect-json", "openhands-json",
               "openhands-completions")
ALL_FORMATS = (*JSONL_FORMATS, *DOC_FORMATS, "inspect-eval")
SUFFIXES = (".jsonl", ".json", ".traj", ".eval", ".ndjson", ".log")
PEEK = 1 << 20

__all__ = ["ALL_FORMATS", "Event", "detect", "document_events", "expand", "normaliser"]


def normaliser(fmt: str) -> Any:
    if fmt == "claude-code":
        return claude.Normaliser()
    if fmt == "codex":
        return codex.Normaliser()
    if fmt == "openhands":
        return openhands.Normaliser()
    raise ValueError(fmt)


def _jsonl_format(obj: Any) -> str | None:
    if claude.looks_like(obj):
        return "claude-code"
    if codex.looks_like(obj):
        return "codex"
    if openhands.looks_like_event(obj) or openhands.looks_like_instance(obj):
        return "openhands"
    return None


def _doc_format(doc: Any) -> str | None:
    from gavelkit.task.anticheat.trajectory import inspectlog

    if swe.looks_like_swe(doc):
        return "swe-agent"
    if isinstance(doc, dict) and isinstance(doc.get("fncall_messages"), list) and \
            isinstance(doc.get("messages"), list):
        return "openhands-completions"      # an OpenHands LLM completion log
    if swe.looks_like_mini(doc):
        return "mini-swe-agent"
    if inspectlog.looks_like_log(doc):
        return "inspect-json"
    if _openhands_records(doc) or openhands.looks_like_instance(doc) or \
            openhands.looks_like_event(doc):
        return "openhands-json"
    return None


def _openhands_records(doc: Any) -> bool:
    """OpenHands records wrapped in a JSON array."""
    return isinstance(doc, list) and bool(doc) and all(isinstance(x, dict) for x in doc[:5]) \
        and any(openhands.looks_like_event(x) or openhands.looks_like_instance(x)
                for x in doc[:20])


def detect(path: str | os.PathLike[str]) -> str | None:
    """Name the format of a trajectory file from its content, or None."""
    with open(path, "rb") as fh:
        head = fh.read(PEEK)
        if b"\n" not in head and len(head) == PEEK:
            # a first line longer than the peek (an embedded image): read that line whole
            head += fh.readline(64 * PEEK)
    return detect_head(head)


def detect_bytes(raw: bytes) -> str | None:
    """`detect` for a file already read whole (one read instead of two)."""
    head = raw[:PEEK]
    if b"\n" not in head and len(raw) > PEEK:
        nl = raw.find(b"\n", PEEK, 65 * PEEK)
        head = raw[:nl + 1 if nl != -1 else 65 * PEEK]
    return detect_head(head)


def detect_head(head: bytes) -> str | None:
    if head.startswith(b"PK\x03\x04"):
        return "inspect-eval"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not text:
        return None
    nl = text.find(b"\n")
    first = (text if nl == -1 else text[:nl]).strip()   # split's first piece, no copy of the rest
    if first in (b"{", b"[", b"[{"):
        return "json-document"          # a pretty-printed document, not JSONL
    found = _probe_lines(text, whole=len(head) < PEEK or head.endswith(b"\n"))
    if found is not None:
        return found or None
    return "json-document" if text[:1] in (b"{", b"[") else None


def _probe_lines(text: bytes, whole: bool) -> str | None:
    """`_lines_format` of the first lines (the last one only if the head ends there)."""
    lines = [ln for ln in text.split(b"\n")[:20] if ln.strip()]
    complete = lines if whole else lines[:-1]
    if len(lines) > 1 or (complete and complete[0].rstrip().endswith(b"}")):
        return _lines_format(complete or lines, single=len(lines) == 1)
    return None


def _lines_format(lines: list[bytes], single: bool) -> str | None:
    """The JSONL format of the first parseable line that names one; "" when a single
    complete line is a document of no known format; None when no line decides."""
    for ln in lines:
        try:
            obj = loads(ln)
        except ValueError:
            continue
        fmt = _jsonl_format(obj)
        if fmt:
            return fmt
        if single:          # a single complete line could also be a one-line document
            return _doc_format(obj) or ""
    return None


def document_events(fmt: str, doc: Any) -> Iterator[Event]:
    """Events of a single-document transcript (every action and every output)."""
    from gavelkit.task.anticheat.trajectory import inspectlog

    if fmt == "swe-agent":
        yield from swe.swe_events(doc)
    elif fmt == "mini-swe-agent":
        yield from swe.mini_events(doc)
    elif fmt == "inspect-json":
        yield from inspectlog.log_events(doc)
    elif fmt == "openhands-json":
        yield from openhands.events_from_document(doc)
    elif fmt == "openhands-completions":
        # the whole conversation as OpenAI function-calling messages: tool calls, then
        # tool results (role "tool")
        yield from swe.mini_events({"messages": doc["fncall_messages"]})


def document_format(doc: Any) -> str | None:
    return _doc_format(doc)


def expand(paths: list[str]) -> list[str]:
    """Files to scan: folders are walked; a Claude session brings its sub-agent files."""
    out: list[str] = []
    seen: set[str] = set()

    def add(p: str) -> None:
        key = os.path.realpath(p)
        if key not in seen:
            seen.add(key)
            out.append(p)

    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for sub in sorted(p.rglob("*")):
                if sub.is_file() and sub.suffix in SUFFIXES and not sub.name.startswith("."):
                    add(str(sub))
            continue
        add(raw)
        if p.suffix == ".jsonl" and p.is_file():
            for sub in _session_files(p):
                add(str(sub))
    return out


def _session_files(p: Path) -> list[Path]:
    """A Claude Code session's sub-agent files (its folder, or agent-* siblings)."""
    out: list[Path] = []
    subdir = p.parent / p.stem / "subagents"
    if subdir.is_dir():
        out.extend(sorted(subdir.glob("*.jsonl")))
    out.extend(sib for sib in sorted(p.parent.glob("agent-*.jsonl"))
               if sib.is_file() and _same_session(sib, p.stem))
    return out


def _same_session(path: Path, session: str) -> bool:
    try:
        with open(path, "rb") as fh:
            head = fh.read(65536)
    except OSError:
        return False
    return session.encode() in head
