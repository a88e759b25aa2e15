"""Author values kept inside the document's own structure, not in its Info dictionary.

pypdfium2 shows the Info dictionary the trailer names. But a figure exported from Word
or PowerPoint and included by pdfTeX keeps its whole Info dictionary as the form's
/PTEX.InfoDict, Acrobat keeps the Word file's properties in /PieceInfo data, and an
incremental update leaves the earlier Info object in the file: all of them can be read
by anyone who opens the PDF with a tool, and they carry e-mails and names (a real paper
had `/Author (275696925@qq.com)` on every included figure). So every dictionary with an
/Author (or /LastModifiedBy) entry is read, in the raw file and inside Flate-compressed
object streams, except the current Info object (the caller reads that one).

pdfTeX also keeps each included figure's file name as written in \\includegraphics
(/PTEX.FileName). An absolute path names the account folder it was on
(`C:/Users/<account>/...`, `/Users/<account>/...`): those paths are read too, as
entries of key "FileName", and the caller grades the account like an Author.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

MAX_STREAM = 8 * 1024 * 1024
_KEY = re.compile(rb"/(Author|LastModifiedBy)\s*(\((?:\\.|[^\\)]){0,400}\)|<[0-9A-Fa-f\s]{0,1600}>)")
_OBJ = re.compile(rb"(\d+)\s+\d+\s+obj\b")
_INFO_REF = re.compile(rb"/Info\s+(\d+)\s+\d+\s+R")
_OBJSTM = re.compile(rb"/Type\s*/ObjStm\b")
_LENGTH = re.compile(rb"/Length\s+(\d+)(?!\s+\d+\s+R)")
_ESC = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}


@dataclass(frozen=True, slots=True)
class Embedded:
    where: str     # "Info dictionary of an included figure (object 195)", ...
    key: str       # Author | LastModifiedBy | FileName (a figure path with an account)
    value: str


def _decode(raw: bytes) -> str:
    """A PDF string literal or hex string as text (UTF-16 with BOM, else UTF-8/Latin-1)."""
    if raw.startswith(b"<"):
        try:
            b = bytes.fromhex(re.sub(rb"\s", b"", raw[1:-1]).decode())
        except ValueError:
            return ""
    else:
        b = re.sub(rb"\\([nrtbf()\\])", lambda m: _ESC.get(m.group(1), m.group(1)), raw[1:-1])
        b = re.sub(rb"\\([0-7]{1,3})", lambda m: bytes([int(m.group(1), 8) & 255]), b)
    if b.startswith(b"\xfe\xff"):
        return b[2:].decode("utf-16-be", "replace")
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b.decode("latin-1")


_PTEX_REF = re.compile(rb"/PTEX\.FileName\s*\(([^)]{0,200})\)[^>]{0,400}?/PTEX\.InfoDict\s+(\d+)\s+\d+\s+R"
                       rb"|/PTEX\.InfoDict\s+(\d+)\s+\d+\s+R[^>]{0,400}?/PTEX\.FileName\s*\(([^)]{0,200})\)")


_PTEX_FILE = re.compile(rb"/PTEX\.FileName\s*(\((?:\\.|[^\\)]){0,1000}\)|<[0-9A-Fa-f\s]{0,2000}>)")
# Windows (C:/Users/<account>/, C:/Documents and Settings/<account>/) and macOS
# (/Users/<account>/). Not /home/<x>/: real papers carry figures that went through an
# online converter's server (/home/pdftool/img.pdfresizer.com/...), not a team's machine.
_ACCOUNT_DIR = re.compile(r"(?i)^(?:[a-z]:[\\/]+(?:Users|Documents and Settings)|/Users)"
                          r"[\\/]+([^\\/]+)[\\/]")


def account_of(path: str) -> str | None:
    """The account folder an absolute figure path was on (C:/Users/<it>/...), or None."""
    m = _ACCOUNT_DIR.search(path)
    return m.group(1).strip() if m else None


def _figure_paths(data: bytes, out: list[Embedded], seen: set[tuple[str, str]]) -> None:
    for m in _PTEX_FILE.finditer(data):
        path = _decode(m.group(1)).strip()
        if account_of(path) is None or ("FileName", path) in seen:
            continue
        seen.add(("FileName", path))
        num, _ = _owner(data, m.start(), {})
        where = "file path of an included figure (PTEX.FileName" + (
            f", object {num})" if num is not None else ")")
        out.append(Embedded(where, "FileName", path))


def _figures(data: bytes) -> dict[int, str]:
    """Object number of an included figure's Info dictionary -> the figure's file name."""
    out: dict[int, str] = {}
    for m in _PTEX_REF.finditer(data):
        name, num = (m.group(1), m.group(2)) if m.group(2) else (m.group(4), m.group(3))
        out[int(num)] = _decode(b"(" + name + b")")
    return out


def _owner(data: bytes, at: int, figures: dict[int, str]) -> tuple[int | None, str]:
    """The object number around offset `at`, and what the dictionary is."""
    objs = _OBJ.findall(data, max(0, at - 4096), at)
    num = int(objs[-1]) if objs else None
    context = data[max(0, at - 1200):at + 600]
    if num in figures:
        what = f"Info dictionary of the included figure {figures[num]!r}"
    elif b"PTEX.InfoDict" in context or b"/PTEX.FileName" in context:
        what = "Info dictionary of an included figure"
    elif b"/PieceInfo" in context or b"/Private" in context:
        what = "application data (PieceInfo) kept from the source document"
    else:
        what = "Info-like dictionary inside the document"
    return num, what


def _object_streams(data: bytes) -> list[bytes]:
    """The inflated bodies of Flate-compressed object streams (where pdfTeX and Word put
    small dictionaries)."""
    out = []
    for m in _OBJSTM.finditer(data):
        start = data.rfind(b"<<", 0, m.start())
        kw = data.find(b"stream", m.end(), m.end() + 2048)
        if start < 0 or kw < 0 or b"/FlateDecode" not in data[start:kw]:
            continue
        body = kw + len(b"stream")
        body += 2 if data[body:body + 2] == b"\r\n" else 1
        lm = _LENGTH.search(data[start:kw])
        end = body + int(lm.group(1)) if lm else data.find(b"endstream", body)
        try:
            out.append(zlib.decompressobj().decompress(data[body:end], MAX_STREAM))
        except (zlib.error, ValueError):
            continue
    return out


def read_embedded(data: bytes) -> list[Embedded]:
    """Author-like values outside the current Info object (see the module docstring)."""
    infos = _INFO_REF.findall(data)
    current = int(infos[-1]) if infos else None
    out: list[Embedded] = []
    seen: set[tuple[str, str]] = set()
    figures = _figures(data)
    for m in _KEY.finditer(data):
        num, what = _owner(data, m.start(), figures)
        if num is not None and num == current:
            continue
        _add(out, seen, f"{what} (object {num})" if num is not None else what, m)
    for body in _object_streams(data):
        for m in _KEY.finditer(body):
            what = ("Info dictionary of an included figure" if b"PTEX" in body
                    else "Info-like dictionary in an object stream")
            _add(out, seen, what, m)
    _figure_paths(data, out, seen)
    return out


def _add(out: list[Embedded], seen: set[tuple[str, str]], where: str, m: re.Match[bytes]) -> None:
    value = _decode(m.group(2)).strip()
    key = m.group(1).decode()
    if value and (where, value) not in seen:
        seen.add((where, value))
        out.append(Embedded(where, key, value))
