"""inspect_ai logs: `.eval` zip archives and `.json` logs.

An `.eval` archive holds `header.json`, `_journal/…`, `summaries.json` and one
`samples/<id>_epoch_<n>.json` per sample; recent inspect_ai versions compress
members with zstd (zip method 93), which Python 3.11's zipfile cannot read, so
we read those members' raw bytes ourselves and inflate them with the optional
`zstandard` package. A `.json` log is one EvalLog document with `samples[]`.

Per sample we use `events[]` when present (`tool` events: function, arguments,
result; `sandbox` events: exec/read_file/write_file — these also catch
harness-level reads), else `messages[]` (assistant `tool_calls`, then `tool`
messages). Tool arguments and results may be `attachment://<hash>` references
resolved from the sample's `attachments`. The bash tool's argument is `cmd` in
older versions and `command` in newer ones; both are read.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Iterator
from typing import Any

from gavelkit.task.anticheat.trajectory.events import Event, loads, text_of, tool_call_event

ZSTD_METHOD = 93
ATTACH = "attachment://"


class ArchiveError(Exception):
    """An .eval member cannot be read (corrupt zip, or zstd without `zstandard`)."""


def looks_like_log(doc: Any) -> bool:
    return isinstance(doc, dict) and "eval" in doc and ("samples" in doc or "status" in doc)


def _resolve(value: Any, attachments: dict[str, Any]) -> Any:
    if isinstance(value, str) and value.startswith(ATTACH):
        return attachments.get(value[len(ATTACH):], value)
    if isinstance(value, dict):
        return {k: _resolve(v, attachments) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, attachments) for v in value]
    return value


def sample_events(sample: dict[str, Any], start: int = 0) -> Iterator[Event]:
    att = sample.get("attachments") if isinstance(sample.get("attachments"), dict) else {}
    where = f"sample {sample.get('id')} epoch {sample.get('epoch', 1)}"
    events = sample.get("events") if isinstance(sample.get("events"), list) else []
    tool_events = [e for e in events if isinstance(e, dict) and e.get("event") in ("tool", "sandbox")]
    if tool_events:
        for index, e in enumerate(tool_events, start=start):
            e = _resolve(e, att)
            yield _tool_event(index, e, where) if e.get("event") == "tool" else \
                _sandbox_event(index, e, where)
        return
    yield from _message_events(sample, att, where, start)


def _tool_event(index: int, e: dict[str, Any], where: str) -> Event:
    ev = tool_call_event(index, str(e.get("function", "")), e.get("arguments"),
                         time=e.get("timestamp"), call_id=e.get("id"), where=where)
    res = e.get("result")
    ev.output = text_of(res) if res is not None else None
    if e.get("error"):
        ev.output = (ev.output or "") + "\n" + text_of(e.get("error"))
    return ev


def _sandbox_event(index: int, e: dict[str, Any], where: str) -> Event:
    """A harness-level sandbox call: exec (a command), read_file, write_file."""
    action = e.get("action")
    ev = Event(index, time=e.get("timestamp"), actor="harness", tool=f"sandbox.{action}",
               where=where, output=text_of(e.get("output")) or None)
    if action == "exec":
        _sandbox_exec(ev, e)
    elif action == "read_file" and e.get("file"):
        ev.read.append(str(e["file"]))
    elif action == "write_file" and e.get("file"):
        ev.write.append(str(e["file"]))
        ev.content = e["contents"] if isinstance(e.get("contents"), str) else None
        ev.whole = True
    return ev


def _sandbox_exec(ev: Event, e: dict[str, Any]) -> None:
    cmd = e.get("cmd")
    if isinstance(cmd, list):
        ev.argv = [str(x) for x in cmd]
    elif isinstance(cmd, str):
        ev.command = cmd
    opts = e.get("options") if isinstance(e.get("options"), dict) else {}
    if isinstance(opts.get("cwd"), str):
        ev.cwd = opts["cwd"]


def _message_events(sample: dict[str, Any], att: dict[str, Any], where: str,
                    index: int) -> Iterator[Event]:
    """Samples without events: assistant tool calls, then tool messages."""
    for msg in sample.get("messages") or []:
        if not isinstance(msg, dict):
            continue
        msg = _resolve(msg, att)
        if msg.get("role") == "assistant":
            for call in msg.get("tool_calls") or []:
                if isinstance(call, dict):
                    yield tool_call_event(index, str(call.get("function", "")),
                                          call.get("arguments"), call_id=call.get("id"),
                                          where=where)
                    index += 1
        elif msg.get("role") == "tool":
            yield Event(index, actor="tool", tool="output", output=text_of(msg.get("content")),
                        call_id=msg.get("tool_call_id"), where=where)
            index += 1


def log_events(doc: dict[str, Any]) -> Iterator[Event]:
    index = 0
    for sample in doc.get("samples") or []:
        if isinstance(sample, dict):
            for ev in sample_events(sample, index):
                index = ev.index + 1
                yield ev


def _read_member(zf: zipfile.ZipFile, fh: Any, info: zipfile.ZipInfo) -> bytes:
    if info.compress_type != ZSTD_METHOD:
        return zf.read(info)
    try:
        import zstandard
    except ImportError:
        raise ArchiveError(f"member {info.filename} is zstd-compressed; install the optional "
                           "'zstandard' package (pip install zstandard) to read it") from None
    fh.seek(info.header_offset)
    head = fh.read(30)
    if len(head) != 30 or head[:4] != b"PK\x03\x04":
        raise ArchiveError(f"member {info.filename}: bad local header")
    name_len, extra_len = struct.unpack("<HH", head[26:30])
    fh.seek(info.header_offset + 30 + name_len + extra_len)
    raw = fh.read(info.compress_size)
    try:
        data = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
    except zstandard.ZstdError as exc:
        raise ArchiveError(f"member {info.filename}: zstd error: {exc}") from None
    if zlib.crc32(data) & 0xFFFFFFFF != info.CRC:
        raise ArchiveError(f"member {info.filename}: CRC mismatch")
    return data


def eval_archive_events(path: str) -> Iterator[Event]:
    """Events of every sample in an .eval archive, one member in memory at a time."""
    try:
        with open(path, "rb") as fh, zipfile.ZipFile(fh) as zf:
            names = [i for i in zf.infolist() if i.filename.startswith("samples/")
                     and i.filename.endswith(".json")]
            if not names:
                raise ArchiveError("no samples/*.json members (an archive without samples "
                                   "has no trajectory to check)")
            index = 0
            for info in sorted(names, key=lambda i: i.filename):
                try:
                    sample = loads(_read_member(zf, fh, info))
                except (ValueError, zlib.error, zipfile.BadZipFile, NotImplementedError) as exc:
                    raise ArchiveError(f"member {info.filename}: {exc}") from None
                if isinstance(sample, dict):
                    for ev in sample_events(sample, index):
                        index = ev.index + 1
                        yield ev
    except zipfile.BadZipFile as exc:
        raise ArchiveError(f"not a readable zip archive: {exc}") from None
