"""A rule example's PDF, from a small spec, written by the project's own test-PDF writer.

The spec is a TOML table: `pages` (a list), optional `info` (document metadata),
`xmp` (creator/title/tool/producer of a document XMP packet) and `cjk = false`
(draw Chinese in the non-embedded font instead of an installed one). A page holds
`lines` (text from the top), `number` (the folio at the foot), `figure = true`
(a filled box standing in for a plot), `size = [w, h]`, `text` and `rects` (placed
items), and `repeat = K` (K copies; `{n}` in any string becomes the page number).
Damage for the unusable-input rules: `encrypt = "PASSWORD"` (a user password; needs
pypdf, a test dependency) and `cut_eof = true` (the file ends before its last %%EOF).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PAGE_KEYS = frozenset({"lines", "number", "figure", "size", "text", "rects", "repeat"})


def _fill(value: Any, n: int) -> Any:
    if isinstance(value, str):
        return value.replace("{n}", str(n))
    if isinstance(value, list):
        return [_fill(v, n) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, n) for k, v in value.items()}
    return value


def _page(spec: Mapping[str, Any]) -> Any:
    from gavelkit.award.pdf.writer import A4, PageSpec, Rect, Text

    unknown = set(spec) - PAGE_KEYS
    if unknown:
        raise ValueError(f"pdf page: unknown keys {sorted(unknown)}")
    page = PageSpec(size=tuple(spec.get("size", A4)))
    lines = spec.get("lines", [])
    page.lines(list(lines))
    if spec.get("figure"):
        page.figure(top=120 + 16 * len(lines), height=150)
    for t in spec.get("text", []):
        page.items.append(Text(**t))
    for r in spec.get("rects", []):
        page.items.append(Rect(**r))
    if "number" in spec:
        page.number(spec["number"])
    return page


def expand(spec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The spec's pages with `repeat` unrolled and `{n}` filled in."""
    out: list[Mapping[str, Any]] = []
    for page in spec.get("pages", []):
        for _ in range(int(page.get("repeat", 1))):
            body = {k: v for k, v in page.items() if k != "repeat"}
            out.append(_fill(body, len(out) + 1))
    return out


def build(spec: Mapping[str, Any]) -> bytes:
    from gavelkit.award.pdf.writer import build_pdf, find_cjk_font, xmp_packet

    unknown = set(spec) - {"pages", "info", "xmp", "cjk", "encrypt", "cut_eof"}
    if unknown:
        raise ValueError(f"pdf: unknown keys {sorted(unknown)}")
    pages = [_page(p) for p in expand(spec)]
    xmp = spec.get("xmp")
    font = find_cjk_font() if spec.get("cjk", True) else None
    data = build_pdf(pages, dict(spec.get("info", {})) or None,
                     xmp_packet(**xmp) if xmp else None, cjk_font=font)
    if spec.get("cut_eof"):
        data = data[: data.rindex(b"%%EOF")]
    if "encrypt" in spec:
        data = _encrypted(data, str(spec["encrypt"]))
    return data


def _encrypted(data: bytes, user: str) -> bytes:
    import io

    from pypdf import PdfReader, PdfWriter

    w = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    w.encrypt(user_password=user, owner_password="owner", algorithm="RC4-128")
    out = io.BytesIO()
    w.write(out)
    return out.getvalue()


def describe(spec: Mapping[str, Any]) -> list[str]:
    """One line per page (and per metadata entry): how two PDF examples are compared."""
    import json

    lines = [f"info {k} = {v!r}" for k, v in sorted(spec.get("info", {}).items())]
    if spec.get("xmp"):
        lines.append("xmp " + json.dumps(spec["xmp"], sort_keys=True))
    for key in ("cjk", "encrypt", "cut_eof"):
        if key in spec:
            lines.append(f"{key} = {spec[key]!r}")
    for k, page in enumerate(expand(spec), 1):
        lines.append(f"page {k}: " + json.dumps(page, sort_keys=True, ensure_ascii=False))
    return lines
