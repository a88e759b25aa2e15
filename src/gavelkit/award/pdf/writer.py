"""A tiny PDF writer for self-tests and test fixtures (no third-party code).

It writes just enough PDF to exercise the QA: pages of any size with text lines
(Latin in Helvetica; CJK in the non-embedded Adobe-GB1 font STSong-Light with
the UniGB-UCS2-H CMap, so every reader extracts it without a font file), filled
rectangles standing in for figures, a page background, white (invisible)
text, Unicode Info metadata and an optional XMP packet (plain or compressed).
CJK text is extractable but renders without ink unless a CJK font is present,
which is why fixtures pair it with Latin text or a figure.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

A4 = (595.28, 841.89)


@dataclass
class Text:
    x: float
    y: float
    text: str
    size: float = 11
    grey: float = 0.0          # 0 black .. 1 white


@dataclass
class Rect:
    x: float
    y: float
    w: float
    h: float
    grey: float = 0.2


@dataclass
class PageSpec:
    items: list[Text | Rect] = field(default_factory=list)
    size: tuple[float, float] = A4
    background: float | None = None   # grey level of a full-page fill

    def lines(self, lines: list[str], top: float = 90, step: float = 16, x: float = 72,
              size: float = 11) -> PageSpec:
        """Add text lines from `top` points below the page top."""
        for k, ln in enumerate(lines):
            self.items.append(Text(x, self.size[1] - top - k * step, ln, size))
        return self

    def number(self, n: int | str, y: float = 30) -> PageSpec:
        self.items.append(Text(self.size[0] / 2 - 3, y, str(n), 10))
        return self

    def figure(self, top: float = 300, height: float = 200) -> PageSpec:
        self.items.append(Rect(100, self.size[1] - top - height, self.size[0] - 200, height))
        return self


def _pdf_string(s: str) -> bytes:
    try:
        raw = s.encode("latin-1")
        return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"
    except UnicodeEncodeError:
        return b"<FEFF" + s.encode("utf-16-be").hex().upper().encode() + b">"


def _is_latin(s: str) -> bool:
    return all(ord(c) < 256 for c in s)


def _content(page: PageSpec) -> bytes:
    ops: list[str] = []
    if page.background is not None:
        ops.append(f"{page.background:.3f} g 0 0 {page.size[0]:.2f} {page.size[1]:.2f} re f")
    for it in page.items:
        if isinstance(it, Rect):
            ops.append(f"{it.grey:.3f} g {it.x:.2f} {it.y:.2f} {it.w:.2f} {it.h:.2f} re f")
            continue
        if _is_latin(it.text):
            raw = it.text.encode("latin-1")
            s = "(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(
                b")", b"\\)").decode("latin-1") + ")"
            font = "F1"
        else:
            s = "<" + "".join(f"{ord(c):04X}" for c in it.text if ord(c) < 0x10000) + ">"
            font = "F2"
        ops.append(f"BT {it.grey:.3f} g /{font} {it.size:g} Tf {it.x:.2f} {it.y:.2f} Td {s} Tj ET")
    return "\n".join(ops).encode("latin-1")


def build_pdf(pages: list[PageSpec], info: dict[str, str] | None = None,
              xmp: str | None = None, compress_xmp: bool = False) -> bytes:
    objs: list[bytes] = []

    def add(body: bytes) -> int:
        objs.append(body)
        return len(objs)

    catalog = add(b"")
    pages_id = add(b"")
    f1 = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    desc = add(b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light "
               b"/CIDSystemInfo << /Registry (Adobe) /Ordering (GB1) /Supplement 2 >> "
               b"/FontDescriptor " + str(len(objs) + 2).encode() + b" 0 R /DW 1000 >>")
    f2 = add(b"<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /UniGB-UCS2-H "
             b"/DescendantFonts [" + str(desc).encode() + b" 0 R] >>")
    add(b"<< /Type /FontDescriptor /FontName /STSong-Light /Flags 6 /FontBBox [-25 -254 1000 880] "
        b"/ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 880 /StemV 93 >>")
    kids = []
    for p in pages:
        data = _content(p)
        c = add(b"<< /Length " + str(len(data)).encode() + b" >>\nstream\n" + data + b"\nendstream")
        kids.append(add(
            f"<< /Type /Page /Parent {pages_id} 0 R /MediaBox [0 0 {p.size[0]:.2f} {p.size[1]:.2f}] "
            f"/Resources << /Font << /F1 {f1} 0 R /F2 {f2} 0 R >> >> /Contents {c} 0 R >>".encode()))
    objs[pages_id - 1] = (f"<< /Type /Pages /Count {len(kids)} /Kids ["
                          + " ".join(f"{k} 0 R" for k in kids) + "] >>").encode()
    cat = f"<< /Type /Catalog /Pages {pages_id} 0 R".encode()
    if xmp is not None:
        raw = xmp.encode("utf-8")
        filt = b""
        if compress_xmp:
            raw, filt = zlib.compress(raw), b" /Filter /FlateDecode"
        m = add(b"<< /Type /Metadata /Subtype /XML /Length " + str(len(raw)).encode() + filt
                + b" >>\nstream\n" + raw + b"\nendstream")
        cat += f" /Metadata {m} 0 R".encode()
    objs[catalog - 1] = cat + b" >>"
    info_id = add(b"<< " + b" ".join(b"/" + k.encode() + b" " + _pdf_string(v)
                                     for k, v in (info or {}).items()) + b" >>")
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += (f"trailer\n<< /Size {len(objs) + 1} /Root {catalog} 0 R /Info {info_id} 0 R >>\n"
            f"startxref\n{xref}\n%%EOF\n").encode()
    return bytes(out)


def xmp_packet(creator: str = "", title: str = "", tool: str = "", producer: str = "") -> str:
    def esc(s: str) -> str:
        return s.replace("&", "&amp;").replace("<", "&lt;")

    parts = []
    if creator:
        parts.append(f"<dc:creator><rdf:Seq><rdf:li>{esc(creator)}</rdf:li></rdf:Seq></dc:creator>")
    if title:
        parts.append(f"<dc:title><rdf:Alt><rdf:li xml:lang=\"x-default\">{esc(title)}</rdf:li>"
                     "</rdf:Alt></dc:title>")
    attrs = ""
    if tool:
        attrs += f' xmp:CreatorTool="{esc(tool)}"'
    if producer:
        attrs += f' pdf:Producer="{esc(producer)}"'
    return ('<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>'
            '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF '
            'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
            '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" '
            'xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/"'
            f'{attrs}>' + "".join(parts) + '</rdf:Description></rdf:RDF></x:xmpmeta>'
            '<?xpacket end="w"?>')
