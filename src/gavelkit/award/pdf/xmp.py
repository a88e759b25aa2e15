"""Read XMP metadata packets out of raw PDF bytes, without a PDF library.

pypdfium2 only exposes the Info dictionary, but identity often hides in XMP
(`dc:creator` written by Word, InDesign, pdfx/hyperxmp). A metadata stream can
never live inside an object stream, so its dictionary is always visible in the
raw file; we find `/Subtype /XML` streams (and bare `<x:xmpmeta` packets),
inflate them when Flate-compressed, and read the few properties we need with
tolerant regular expressions (no XML parser, so no entity-expansion risk).
"""

from __future__ import annotations

import html
import re
import zlib

MAX_PACKET = 4 * 1024 * 1024

# XMP property -> the Info field it corresponds to.
PROPERTIES: dict[str, str] = {
    "dc:creator": "Author",
    "dc:contributor": "Author",
    "dc:publisher": "Author",
    "xmpRights:Owner": "Author",
    "pdf:Author": "Author",
    "photoshop:AuthorsPosition": "Author",
    "dc:title": "Title",
    "dc:description": "Subject",
    "dc:subject": "Keywords",
    "pdf:Keywords": "Keywords",
    "xmp:CreatorTool": "Creator",
    "pdf:Producer": "Producer",
}

_STREAM_DICT = re.compile(rb"/Subtype\s*/XML\b")
_LENGTH = re.compile(rb"/Length\s+(\d+)(?!\s+\d+\s+R)")
_TAG = re.compile(r"<[^>]*>")
_LI = re.compile(r"<rdf:li\b[^>]*>(.*?)</rdf:li>", re.S)


def _streams(data: bytes) -> list[bytes]:
    out: list[bytes] = []
    for m in _STREAM_DICT.finditer(data):
        start = data.rfind(b"<<", 0, m.start())
        kw = data.find(b"stream", m.end(), m.end() + 4096)
        if start < 0 or kw < 0:
            continue
        head = data[start:kw]
        body_start = kw + len(b"stream")
        if data[body_start:body_start + 2] == b"\r\n":
            body_start += 2
        elif data[body_start:body_start + 1] in (b"\n", b"\r"):
            body_start += 1
        lm = _LENGTH.search(head)
        if lm:
            end = body_start + min(int(lm.group(1)), MAX_PACKET)
        else:
            end = data.find(b"endstream", body_start, body_start + MAX_PACKET)
            if end < 0:
                continue
        raw = data[body_start:end]
        if b"/FlateDecode" in head or b"/Fl " in head or b"/Fl]" in head:
            try:
                raw = zlib.decompressobj().decompress(raw, MAX_PACKET)
            except zlib.error:
                continue
        out.append(raw)
    if not out:
        # Packets written without a recognisable stream dictionary.
        for m in re.finditer(rb"<x:xmpmeta\b", data):
            end = data.find(b"</x:xmpmeta>", m.start(), m.start() + MAX_PACKET)
            if end > 0:
                out.append(data[m.start():end + 12])
    return out


def _decode(raw: bytes) -> str:
    if raw.startswith((b"\xfe\xff", b"\xff\xfe")):
        return raw.decode("utf-16", "replace")
    return raw.decode("utf-8", "replace")


def _clean(value: str) -> str:
    return " ".join(html.unescape(_TAG.sub(" ", value)).split())


def parse_packet(text: str) -> list[tuple[str, str, str]]:
    """(property, info field, value) triples found in one XMP packet."""
    found: list[tuple[str, str, str]] = []
    for prop, field in PROPERTIES.items():
        qp = re.escape(prop)
        for m in re.finditer(rf"<{qp}\b[^>]*?(?:/>|>(.*?)</{qp}>)", text, re.S):
            inner = m.group(1) or ""
            items = _LI.findall(inner) or [inner]
            for item in items:
                value = _clean(item)
                if value:
                    found.append((prop, field, value))
        for m in re.finditer(rf"\b{qp}\s*=\s*(\"[^\"]*\"|'[^']*')", text):
            value = _clean(m.group(1)[1:-1])
            if value:
                found.append((prop, field, value))
    return found


def read_xmp(data: bytes) -> list[tuple[str, str, str]]:
    """Every identity-relevant XMP property in the file, deduplicated, in file order."""
    seen: set[tuple[str, str, str]] = set()
    out: list[tuple[str, str, str]] = []
    for raw in _streams(data):
        for triple in parse_packet(_decode(raw)):
            if triple not in seen:
                seen.add(triple)
                out.append(triple)
    return out
