"""A tiny PDF writer for self-tests and test fixtures (no third-party code).

It writes just enough PDF to exercise the QA: pages of any size with text lines
(Latin in Helvetica; CJK either in a real CJK font embedded as a subset, or in the
non-embedded Adobe-GB1 font STSong-Light, which every reader extracts but draws
without ink unless a CJK font is installed), rotated text (watermarks), filled
rectangles standing in for figures, Form XObjects (an embedded vector plot with
its own text), small images with their own XMP packet, annotations and form
fields, bookmarks, attachments, a page background, white (invisible) text,
Unicode Info metadata and an optional document XMP packet (plain or compressed).

Pass `cjk_font=find_cjk_font()` so Chinese pages carry ink, as real papers do;
fontTools (a matplotlib dependency) subsets the font to the characters used.
"""

from __future__ import annotations

import functools
import glob
import math
import os
import zlib
from dataclasses import dataclass, field
from typing import Any

A4 = (595.28, 841.89)

# Real CJK fonts, TrueType outlines first (embedded as FontFile2); Debian paths.
CJK_FONT_GLOBS = (
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/usr/share/fonts/**/*[Cc][Jj][Kk]*.tt[fc]",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/**/NotoSansCJK*.tt[fc]",
    "/usr/share/fonts/**/NotoSerifCJK*.tt[fc]",
)


def find_cjk_font() -> str | None:
    """Path of an installed font that covers common Chinese, or None."""
    extra = os.environ.get("GAVEL_CJK_FONT")
    if extra and os.path.isfile(extra):
        return extra
    for pattern in CJK_FONT_GLOBS:
        for path in sorted(glob.glob(pattern, recursive=True)):
            if os.path.isfile(path):
                return path
    return None


@dataclass
class Text:
    x: float
    y: float
    text: str
    size: float = 11
    grey: float = 0.0          # 0 black .. 1 white
    angle: float = 0.0         # degrees, counter-clockwise (a diagonal watermark)


@dataclass
class Rect:
    x: float
    y: float
    w: float
    h: float
    grey: float = 0.2


@dataclass
class Form:
    """A Form XObject (an included vector plot): a frame, a curve, and its own text.

    `source_file` and `source_info` are what pdfTeX keeps of an included PDF figure
    (/PTEX.FileName, the path as written in \\includegraphics; /PTEX.InfoDict, the
    figure's own Info dictionary)."""
    x: float
    y: float
    w: float
    h: float
    items: list[Text] = field(default_factory=list)
    source_file: str | None = None
    source_info: dict[str, str] | None = None


@dataclass
class Image:
    """A small grey image XObject, optionally with its own XMP packet (as Photoshop writes)."""
    x: float
    y: float
    w: float
    h: float
    xmp: str | None = None
    pixels: bytes = b"\x40\xa0\xa0\x40"  # 2x2 grey; other bytes make another image


@dataclass
class Annot:
    """A sticky note (kind 'Text': author in /T, note in /Contents) or a text form field
    (kind 'Widget': field name in /T, value in /V)."""
    kind: str = "Text"
    author: str = ""
    contents: str = ""
    field: str = ""
    value: str = ""


@dataclass
class PageSpec:
    items: list[Text | Rect | Form | Image] = field(default_factory=list)
    size: tuple[float, float] = A4
    background: float | None = None   # grey level of a full-page fill
    annots: list[Annot] = field(default_factory=list)

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


class _CjkFont:
    """A real CJK font subset to the characters drawn, embedded as a Type0/Identity-H font."""

    def __init__(self, path: str, chars: set[str]) -> None:
        import io

        from fontTools import subset
        from fontTools.ttLib import TTFont

        font = TTFont(path, fontNumber=0)
        for tag in ("GSUB", "GPOS", "GDEF", "kern", "morx", "vhea", "vmtx", "DSIG"):
            if tag in font:          # layout tables: not needed to draw, slow to subset
                del font[tag]
        cmap = font.getBestCmap()
        keep = sorted({ord(c) for c in chars if ord(c) in cmap})
        opts = subset.Options()
        opts.layout_features = []
        opts.notdef_outline = True
        opts.name_IDs = ["*"]
        opts.hinting = False
        sub = subset.Subsetter(opts)
        sub.populate(unicodes=keep)
        sub.subset(font)
        self.truetype = "glyf" in font
        cmap = font.getBestCmap()
        scale = 1000.0 / font["head"].unitsPerEm
        hmtx = font["hmtx"]
        self.cid: dict[str, int] = {}
        self.width: dict[int, int] = {}
        for code, name in cmap.items():
            gid = font.getGlyphID(name)
            cid = int(name[3:]) if not self.truetype and name.startswith("cid") else gid
            self.cid[chr(code)] = cid
            self.width[cid] = round(hmtx[name][0] * scale)
        buf = io.BytesIO()
        font.save(buf)
        self.data = buf.getvalue() if self.truetype else _cff_table(buf.getvalue())
        self.name = "GKSUBS+" + "".join(ch for ch in str(font["name"].getDebugName(6) or "CJK")
                                        if ch.isalnum())[:40]

    def encode(self, text: str) -> str:
        return "<" + "".join(f"{self.cid.get(c, 0):04X}" for c in text) + ">"

    def objects(self, add: Any) -> int:
        """Write the font objects with `add`, return the Type0 font's object number."""
        data = zlib.compress(self.data)
        if self.truetype:
            ff = add(b"<< /Length " + str(len(data)).encode() + b" /Length1 "
                     + str(len(self.data)).encode() + b" /Filter /FlateDecode >>\nstream\n"
                     + data + b"\nendstream")
            fkey, sub = b"/FontFile2", b"/CIDFontType2"
        else:
            ff = add(b"<< /Length " + str(len(data)).encode() + b" /Subtype /CIDFontType0C"
                     b" /Filter /FlateDecode >>\nstream\n" + data + b"\nendstream")
            fkey, sub = b"/FontFile3", b"/CIDFontType0"
        desc = add(b"<< /Type /FontDescriptor /FontName /" + self.name.encode() + b" /Flags 4 "
                   b"/FontBBox [-200 -300 1200 1000] /ItalicAngle 0 /Ascent 880 /Descent -120 "
                   b"/CapHeight 700 /StemV 80 " + fkey + b" " + str(ff).encode() + b" 0 R >>")
        widths = " ".join(f"{cid} [{w}]" for cid, w in sorted(self.width.items()))
        extra = b" /CIDToGIDMap /Identity" if self.truetype else b""
        cid_font = add(b"<< /Type /Font /Subtype " + sub + b" /BaseFont /" + self.name.encode()
                       + b" /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >>"
                       b" /FontDescriptor " + str(desc).encode() + b" 0 R /DW 1000 /W ["
                       + widths.encode() + b"]" + extra + b" >>")
        bf = "\n".join(f"<{cid:04X}> <{ord(c):04X}>" for c, cid in sorted(self.cid.items())
                       if ord(c) < 0x10000)
        n = len(self.cid)
        cmap = ("/CIDInit /ProcSet findresource begin 12 dict begin begincmap "
                "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def "
                "/CMapName /Adobe-Identity-UCS def /CMapType 2 def\n"
                "1 begincodespacerange <0000> <FFFF> endcodespacerange\n")
        lines = bf.split("\n") if bf else []
        for i in range(0, n, 100):
            chunk = lines[i:i + 100]
            cmap += f"{len(chunk)} beginbfchar\n" + "\n".join(chunk) + "\nendbfchar\n"
        cmap += "endcmap CMapName currentdict /CMap defineresource pop end end"
        raw = cmap.encode()
        tu = add(b"<< /Length " + str(len(raw)).encode() + b" >>\nstream\n" + raw + b"\nendstream")
        return add(b"<< /Type /Font /Subtype /Type0 /BaseFont /" + self.name.encode()
                   + b" /Encoding /Identity-H /DescendantFonts [" + str(cid_font).encode()
                   + b" 0 R] /ToUnicode " + str(tu).encode() + b" 0 R >>")


@functools.lru_cache(maxsize=32)
def _cjk(path: str, chars: frozenset[str]) -> _CjkFont:
    """Subsetting costs ~0.5 s; test suites draw the same characters many times."""
    import logging

    logging.getLogger("fontTools").setLevel(logging.ERROR)
    return _CjkFont(path, set(chars))


def _cff_table(otf: bytes) -> bytes:
    """The raw CFF table of an OpenType/CFF font (FontFile3 /CIDFontType0C)."""
    import io

    from fontTools.ttLib import TTFont

    return TTFont(io.BytesIO(otf)).reader["CFF "]


def _text_op(it: Text, cjk: _CjkFont | None) -> str:
    if _is_latin(it.text):
        raw = it.text.encode("latin-1")
        s = "(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(
            b")", b"\\)").decode("latin-1") + ")"
        font = "F1"
    elif cjk is not None:
        s, font = cjk.encode(it.text), "F3"
    else:
        s = "<" + "".join(f"{ord(c):04X}" for c in it.text if ord(c) < 0x10000) + ">"
        font = "F2"
    if it.angle:
        a = math.radians(it.angle)
        c, n = math.cos(a), math.sin(a)
        where = f"{c:.4f} {n:.4f} {-n:.4f} {c:.4f} {it.x:.2f} {it.y:.2f} Tm"
    else:
        where = f"{it.x:.2f} {it.y:.2f} Td"
    return f"BT {it.grey:.3f} g /{font} {it.size:g} Tf {where} {s} Tj ET"


def _content(page: PageSpec, cjk: _CjkFont | None, names: list[str]) -> bytes:
    ops: list[str] = []
    if page.background is not None:
        ops.append(f"{page.background:.3f} g 0 0 {page.size[0]:.2f} {page.size[1]:.2f} re f")
    k = 0
    for it in page.items:
        if isinstance(it, Rect):
            ops.append(f"{it.grey:.3f} g {it.x:.2f} {it.y:.2f} {it.w:.2f} {it.h:.2f} re f")
        elif isinstance(it, Image):
            ops.append(f"q {it.w:.2f} 0 0 {it.h:.2f} {it.x:.2f} {it.y:.2f} cm /{names[k]} Do Q")
            k += 1
        elif isinstance(it, Form):
            ops.append(f"/{names[k]} Do")
            k += 1
        else:
            ops.append(_text_op(it, cjk))
    return "\n".join(ops).encode("latin-1")


def _form_content(form: Form, cjk: _CjkFont | None) -> bytes:
    x0, y0, x1, y1 = form.x, form.y, form.x + form.w, form.y + form.h
    ops = [f"0 G 1 w {x0:.2f} {y0:.2f} {form.w:.2f} {form.h:.2f} re S",
           f"{x0 + 10:.2f} {y0 + 10:.2f} m {(x0 + x1) / 2:.2f} {y1 - 30:.2f} l "
           f"{x1 - 10:.2f} {y0 + 40:.2f} l S"]
    ops += [_text_op(t, cjk) for t in form.items]
    return "\n".join(ops).encode("latin-1")


def _stream(body: bytes, head: bytes = b"") -> bytes:
    return b"<< /Length " + str(len(body)).encode() + head + b" >>\nstream\n" + body + b"\nendstream"


def _texts(pages: list[PageSpec]) -> list[str]:
    """Every text drawn, on the pages and inside their forms."""
    out = []
    for p in pages:
        for it in p.items:
            out += [t.text for t in (it.items if isinstance(it, Form) else [it])
                    if isinstance(t, Text)]
    return out


class _Builder:
    """Numbered objects of one document, added in the order a reader would meet them."""

    def __init__(self) -> None:
        self.objs: list[bytes] = []
        self.fields: list[int] = []

    def add(self, body: bytes) -> int:
        self.objs.append(body)
        return len(self.objs)

    def fonts(self, pages: list[PageSpec], cjk_font: str | None) -> tuple[str, _CjkFont | None]:
        """Helvetica, the non-embedded STSong-Light, and a real CJK subset when asked for."""
        add = self.add
        f1 = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
        desc = add(b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light "
                   b"/CIDSystemInfo << /Registry (Adobe) /Ordering (GB1) /Supplement 2 >> "
                   b"/FontDescriptor " + str(len(self.objs) + 2).encode() + b" 0 R /DW 1000 >>")
        f2 = add(b"<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /UniGB-UCS2-H "
                 b"/DescendantFonts [" + str(desc).encode() + b" 0 R] >>")
        add(b"<< /Type /FontDescriptor /FontName /STSong-Light /Flags 6 /FontBBox [-25 -254 1000 880] "
            b"/ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 880 /StemV 93 >>")
        texts = [t for t in _texts(pages) if not _is_latin(t)]
        fonts = f"/F1 {f1} 0 R /F2 {f2} 0 R"
        cjk = None
        if cjk_font and texts:
            cjk = _cjk(cjk_font, frozenset("".join(texts)))
            fonts += f" /F3 {cjk.objects(add)} 0 R"
        return fonts, cjk

    def xobject(self, it: Text | Rect | Form | Image, fonts: str,
                cjk: _CjkFont | None) -> int | None:
        """The image or form XObject of one page item (None for text and rectangles)."""
        if isinstance(it, Image):
            head = b" /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray " \
                   b"/BitsPerComponent 8"
            if it.xmp is not None:
                m = self.add(_stream(it.xmp.encode("utf-8"), b" /Type /Metadata /Subtype /XML"))
                head += f" /Metadata {m} 0 R".encode()
            return self.add(_stream(it.pixels, head))
        if isinstance(it, Form):
            bbox = f"[{it.x:.2f} {it.y:.2f} {it.x + it.w:.2f} {it.y + it.h:.2f}]"
            head = (f" /Type /XObject /Subtype /Form /BBox {bbox} "
                    f"/Resources << /Font << {fonts} >> >>").encode() + self._ptex(it)
            return self.add(_stream(_form_content(it, cjk), head))
        return None

    def _ptex(self, form: Form) -> bytes:
        """The keys pdfTeX writes on an included PDF figure: its file name as given to
        \\includegraphics, and the figure's own Info dictionary."""
        out = b""
        if form.source_file is not None:
            out += b" /PTEX.FileName " + _pdf_string(form.source_file)
        if form.source_info is not None:
            info = self.add(b"<< " + b" ".join(b"/" + k.encode() + b" " + _pdf_string(v)
                                               for k, v in form.source_info.items()) + b" >>")
            out += f" /PTEX.InfoDict {info} 0 R".encode()
        return out

    def annots(self, p: PageSpec, page_id: int) -> list[int]:
        """Sticky notes and text fields of one page (fields also go to the AcroForm)."""
        out = []
        for k, a in enumerate(p.annots):
            rect = f"[72 {700 - 30 * k} 200 {720 - 30 * k}]"
            if a.kind == "Widget":
                body = (b"<< /Type /Annot /Subtype /Widget /FT /Tx /Rect " + rect.encode()
                        + b" /T " + _pdf_string(a.field) + b" /V " + _pdf_string(a.value)
                        + f" /P {page_id} 0 R /F 4 >>".encode())
                out.append(self.add(body))
                self.fields.append(out[-1])
            else:
                body = (b"<< /Type /Annot /Subtype /Text /Rect " + rect.encode()
                        + (b" /T " + _pdf_string(a.author) if a.author else b"")
                        + b" /Contents " + _pdf_string(a.contents) + b" >>")
                out.append(self.add(body))
        return out

    def page(self, p: PageSpec, pages_id: int, fonts: str, cjk: _CjkFont | None) -> int:
        names, xobjs = [], []
        for it in p.items:
            ref = self.xobject(it, fonts, cjk)
            if ref is not None:
                names.append(f"X{len(names) + 1}")
                xobjs.append(f"/{names[-1]} {ref} 0 R")
        c = self.add(_stream(_content(p, cjk, names)))
        page_id = len(self.objs) + 1 + len(p.annots)
        annots = self.annots(p, page_id)
        res = f"/Font << {fonts} >>" + (f" /XObject << {' '.join(xobjs)} >>" if xobjs else "")
        ann = f" /Annots [{' '.join(f'{r} 0 R' for r in annots)}]" if annots else ""
        kid = self.add(
            f"<< /Type /Page /Parent {pages_id} 0 R /MediaBox [0 0 {p.size[0]:.2f} {p.size[1]:.2f}] "
            f"/Resources << {res} >> /Contents {c} 0 R{ann} >>".encode())
        assert kid == page_id
        return kid

    def metadata(self, xmp: str, compress: bool) -> bytes:
        raw = xmp.encode("utf-8")
        filt = b""
        if compress:
            raw, filt = zlib.compress(raw), b" /Filter /FlateDecode"
        m = self.add(b"<< /Type /Metadata /Subtype /XML /Length " + str(len(raw)).encode() + filt
                     + b" >>\nstream\n" + raw + b"\nendstream")
        return f" /Metadata {m} 0 R".encode()

    def outline(self, titles: list[str], kids: list[int]) -> bytes:
        root = len(self.objs) + 1
        first = root + 1
        self.add(f"<< /Type /Outlines /First {first} 0 R /Last {first + len(titles) - 1} 0 R "
                 f"/Count {len(titles)} >>".encode())
        for k, title in enumerate(titles):
            me = first + k
            link = (f" /Prev {me - 1} 0 R" if k else "") + \
                   (f" /Next {me + 1} 0 R" if k + 1 < len(titles) else "")
            self.add(b"<< /Title " + _pdf_string(title) + f" /Parent {root} 0 R{link} "
                     f"/Dest [{kids[min(k, len(kids) - 1)]} 0 R /XYZ 0 800 0] >>".encode())
        return f" /Outlines {root} 0 R".encode()

    def attachments(self, files: dict[str, bytes]) -> bytes:
        entries = []
        for name, body in files.items():
            ef = self.add(_stream(body, b" /Type /EmbeddedFile"))
            spec = self.add(b"<< /Type /Filespec /F " + _pdf_string(name) + b" /UF "
                            + _pdf_string(name) + f" /EF << /F {ef} 0 R >> >>".encode())
            entries.append(_pdf_string(name) + f" {spec} 0 R".encode())
        return b" /Names << /EmbeddedFiles << /Names [" + b" ".join(entries) + b"] >> >>"


def build_pdf(pages: list[PageSpec], info: dict[str, str] | None = None,
              xmp: str | None = None, compress_xmp: bool = False, *,
              cjk_font: str | None = None, outline: list[str] | None = None,
              attachments: dict[str, bytes] | None = None) -> bytes:
    b = _Builder()
    catalog = b.add(b"")
    pages_id = b.add(b"")
    fonts, cjk = b.fonts(pages, cjk_font)
    kids = [b.page(p, pages_id, fonts, cjk) for p in pages]
    b.objs[pages_id - 1] = (f"<< /Type /Pages /Count {len(kids)} /Kids ["
                            + " ".join(f"{k} 0 R" for k in kids) + "] >>").encode()
    cat = f"<< /Type /Catalog /Pages {pages_id} 0 R".encode()
    if xmp is not None:
        cat += b.metadata(xmp, compress_xmp)
    if outline:
        cat += b.outline(outline, kids)
    if attachments:
        cat += b.attachments(attachments)
    if b.fields:
        cat += f" /AcroForm << /Fields [{' '.join(f'{r} 0 R' for r in b.fields)}] >>".encode()
    b.objs[catalog - 1] = cat + b" >>"
    info_id = b.add(b"<< " + b" ".join(b"/" + k.encode() + b" " + _pdf_string(v)
                                       for k, v in (info or {}).items()) + b" >>")
    return serialize(b.objs, catalog, info_id)


def serialize(objects: list[bytes], root: int, info: int | None = None,
              header: bytes = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n") -> bytes:
    """The file around numbered objects (1, 2, ...): body, a correct xref table, trailer.

    Tests build odd documents (a page tree that loops, a broken catalog) from raw object
    bodies with it, so their only oddity is the one they mean."""
    out = bytearray(header)
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    info_ref = f" /Info {info} 0 R" if info is not None else ""
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root {root} 0 R{info_ref} >>\n"
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
