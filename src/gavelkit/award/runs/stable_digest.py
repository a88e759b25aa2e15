"""A digest of a PDF or PNG that ignores what only says *when* the file was written.

Re-running `run_all.py` or pdflatex rewrites figures and the paper with a new embedded
date (PDF Info /CreationDate and /ModDate, the XMP dates and ids, the trailer /ID that
pdfTeX derives from the time; a PNG's tIME chunk and date text chunks) although not a
pixel or a word changed. The manifest keeps this digest next to the plain sha256, so
such a file reads as "only its timestamps changed" instead of stale.

Only those values are blanked, each in place; every other byte, the cross-reference
offsets included, still counts. A date that changed length (or one inside a compressed
object stream) shifts the offsets and the file reads as changed: the comparison fails
closed. Pinning `SOURCE_DATE_EPOCH` makes both files identical instead.
"""

from __future__ import annotations

import hashlib
import re
import struct
from pathlib import Path

_DATES = re.compile(rb"/(?:CreationDate|ModDate)\s*\(([^()\\]{0,64})\)")
_ID = re.compile(rb"/ID\s*\[\s*<([0-9A-Fa-f]{0,128})>\s*<([0-9A-Fa-f]{0,128})>\s*\]")
_XMP_NAMES = rb"xmp:CreateDate|xmp:ModifyDate|xmp:MetadataDate|xmpMM:DocumentID|xmpMM:InstanceID"
_XMP_ELEM = re.compile(rb"<(" + _XMP_NAMES + rb")>([^<]{0,128})</\1>")
_XMP_ATTR = re.compile(rb"(?:" + _XMP_NAMES + rb")=\"([^\"]{0,128})\"")
_STREAM = re.compile(rb">>\s*stream\r?\n")
_LENGTH = re.compile(rb"/Length\s+(\d+)(?!\s+\d+\s+R)")
_PNG_SIG = b"\x89PNG\r\n\x1a\n"
_PNG_DATE_KEYS = {b"creation time", b"date:create", b"date:modify", b"date:timestamp",
                  b"date", b"creationdate", b"moddate", b"modify-date", b"create-date"}
MAX_BYTES = 256 << 20


def _streams(data: bytes) -> list[tuple[int, int, bool]]:
    """(start, end, is_xmp) of every stream body: page text lives there, and only an XMP
    metadata stream may have values blanked inside it."""
    out = []
    pos = 0
    while (m := _STREAM.search(data, pos)) is not None:
        head = data[max(0, data.rfind(b"obj", 0, m.start())):m.start()]
        body = m.end()
        ln = _LENGTH.search(head)
        end = body + int(ln.group(1)) if ln else data.find(b"endstream", body)
        if end < body or end > len(data):
            end = data.find(b"endstream", body)
        end = len(data) if end < 0 else end
        xmp = b"/Metadata" in head and b"/XML" in head and b"/Filter" not in head
        out.append((body, end, xmp))
        pos = max(end, m.end())
    return out


def _pdf(data: bytes) -> bytes:
    """Blank the dates and ids in place (every offset stays where it was): Info and
    trailer values outside any stream, XMP values inside uncompressed XMP streams."""
    out = bytearray(data)
    spans = _streams(data)

    def where(i: int) -> str:
        for a, b, xmp in spans:
            if a <= i < b:
                return "xmp" if xmp else "stream"
        return "file"

    for rx, groups, place in ((_DATES, (1,), "file"), (_ID, (1, 2), "file"),
                              (_XMP_ELEM, (2,), "xmp"), (_XMP_ATTR, (1,), "xmp")):
        for m in rx.finditer(data):
            if where(m.start()) != place:
                continue
            for g in groups:
                a, b = m.span(g)
                out[a:b] = b"0" * (b - a)
    return bytes(out)


def _png(data: bytes) -> bytes | None:
    out = bytearray(_PNG_SIG)
    i = len(_PNG_SIG)
    while i + 8 <= len(data):
        (length,) = struct.unpack(">I", data[i:i + 4])
        kind = data[i + 4:i + 8]
        body = data[i + 8:i + 8 + length]
        if len(body) != length:
            return None
        i += 12 + length
        if kind == b"tIME":
            continue
        if kind in (b"tEXt", b"zTXt", b"iTXt") and body.split(b"\0", 1)[0].lower() in _PNG_DATE_KEYS:
            continue
        out += kind + struct.pack(">I", length) + body
        if kind == b"IEND":
            return bytes(out)
    return None


def stable_sha256(path: Path) -> str | None:
    """The timestamp-blind sha256 of a PDF or PNG; None for other files (or unreadable)."""
    suffix = path.suffix.lower()
    if suffix not in (".pdf", ".png"):
        return None
    try:
        if path.stat().st_size > MAX_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if suffix == ".pdf":
        if not data.startswith(b"%PDF"):
            return None
        norm: bytes | None = _pdf(data)
    else:
        norm = _png(data) if data.startswith(_PNG_SIG) else None
    return hashlib.sha256(norm).hexdigest() if norm is not None else None
