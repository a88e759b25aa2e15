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


_OBJ = re.compile(rb"(\d+)\s+(\d+)\s+obj\b")
_META_REF = re.compile(rb"/Metadata\s+(\d+)\s+\d+\s+R")
_SUBTYPE = re.compile(rb"/Subtype\s*/(Image|Form)\b")


def _owner_map(data: bytes) -> dict[int, str]:
    """Metadata stream object number -> 'image N' / 'form N' when an XObject points at it.

    XObjects are streams, and a stream's dictionary is always plain text in the file
    (never inside an object stream), so every XObject's /Metadata reference is visible.
    """
    owners: dict[int, str] = {}
    for m in _SUBTYPE.finditer(data):
        start = data.rfind(b"<<", 0, m.start())
        end = data.find(b"stream", m.end(), m.end() + 4096)
        if start < 0 or end < 0:
            continue
        head = data[max(0, start - 40):end]
        ref = _META_REF.search(head)
        if not ref:
            continue
        obj = _OBJ.findall(data[max(0, start - 40):start + 2])
        me = f" (object {int(obj[-1][0])})" if obj else ""
        owners[int(ref.group(1))] = f"{m.group(1).decode().lower()}{me}"
    return owners


def _catalog_refs(data: bytes) -> set[int]:
    """/Metadata references of every visible catalog (an update may rewrite it)."""
    refs: set[int] = set()
    for m in re.finditer(rb"/Type\s*/Catalog\b", data):
        start = data.rfind(b"<<", 0, m.start())
        end = data.find(b"endobj", m.end(), m.end() + 8192)
        if start < 0:
            continue
        ref = _META_REF.search(data[start:end if end > 0 else m.end() + 2048])
        if ref:
            refs.add(int(ref.group(1)))
    return refs


def _streams(data: bytes) -> list[tuple[int | None, bytes]]:
    """(object number or None, decoded packet) for every XML metadata stream."""
    out: list[tuple[int | None, bytes]] = []
    for m in _STREAM_DICT.finditer(data):
        start = data.rfind(b"<<", 0, m.start())
        kw = data.find(b"stream", m.end(), m.end() + 4096)
        if start < 0 or kw < 0:
            continue
        head = data[start:kw]
        objs = _OBJ.findall(data[max(0, start - 40):start + 2])
        num = int(objs[-1][0]) if objs else None
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
        out.append((num, raw))
    if not out:
        # Packets written without a recognisable stream dictionary.
        for m in re.finditer(rb"<x:xmpmeta\b", data):
            end = data.find(b"</x:xmpmeta>", m.start(), m.start() + MAX_PACKET)
            if end > 0:
                out.append((None, data[m.start():end + 12]))
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


def read_xmp(data: bytes) -> list[tuple[str, str, str, str]]:
    """(owner, property, info field, value) for every identity-relevant XMP property.

    owner is "" for the document's own packet (the catalog's, or any packet no
    XObject claims), "unreferenced packet (object 9)" for a stale packet left by
    an incremental save when the catalog points elsewhere, and "image (object 12)" / "form (object 7)" for a packet that an
    embedded image or vector figure carries (Photoshop, Illustrator and cameras
    write their own); a report must say which one it read. Deduplicated, in file order.
    """
    owners = _owner_map(data)
    catalog = _catalog_refs(data)
    seen: set[tuple[str, str, str, str]] = set()
    out: list[tuple[str, str, str, str]] = []
    for num, raw in _streams(data):
        owner = owners.get(num, "") if num is not None else ""
        if not owner and catalog and num is not None and num not in catalog:
            owner = f"unreferenced packet (object {num})"
        for prop, fld, value in parse_packet(_decode(raw)):
            item = (owner, prop, fld, value)
            if item not in seen:
                seen.add(item)
                out.append(item)
    return out
