"""Contact sheet of the compiled PDF: every page as a numbered tile, QA hits framed.

Pages are rendered by pypdfium2 in worker processes (PDFium is not thread-safe;
each process opens the document itself) and pasted into one sheet as they
arrive, so only a few tiles are in memory at once. The same renders give the
ink used for blank-page detection, and the pages with QA findings (blank,
duplicate caption, identity) get a coloured frame and a legend, so the sheet
shows where to look. A pixel budget keeps 100+ page papers within memory.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

MAX_PIXELS = 30_000_000
PAD = 10
LABEL_H = 22
HEADER_H = 64
FRAME = 5

COLOURS: dict[str, tuple[int, int, int]] = {
    "blank": (220, 30, 30),
    "caption": (245, 140, 0),
    "identity": (190, 0, 190),
    "identity?": (120, 90, 220),
    "summary": (0, 110, 220),
    "over limit": (110, 110, 110),
    "AI report": (0, 150, 140),
}
LEGEND = {
    "blank": "blank page",
    "caption": "caption number (duplicate/gap/order)",
    "identity": "identity leak",
    "identity?": "identity to review",
    "summary": "not the summary sheet",
    "over limit": "over the page limit",
    "AI report": "AI-use report (not counted)",
}


@dataclass(slots=True)
class Tile:
    index: int           # 0-based page index
    size: tuple[int, int]
    raw: bytes
    ink: float
    blank: bool
    text: str | None = None
    error: str | None = None
    notes: list[tuple[str, str, str]] | None = None   # annotations (pdfqa: identity)


@dataclass(slots=True)
class Layout:
    n: int
    cols: int
    rows: int
    cell_w: int
    cell_h: int
    scale: float
    width: int = 0
    height: int = 0

    def origin(self, index: int) -> tuple[int, int]:
        r, c = divmod(index, self.cols)
        return PAD + c * (self.cell_w + PAD), HEADER_H + r * (self.cell_h + LABEL_H + PAD)


@dataclass(slots=True)
class SheetResult:
    path: str
    pages: int
    cols: int
    rows: int
    width: int
    height: int
    dpi: float
    ink: dict[int, tuple[float, bool]] = field(default_factory=dict)


def layout(sizes: list[tuple[float, float]], dpi: float, cols: int | None) -> Layout:
    """Grid shape and cell size for page sizes in points; shrinks to the pixel budget."""
    n = len(sizes)
    cols = max(1, min(n, cols or max(1, math.ceil(math.sqrt(n)))))
    rows = math.ceil(n / cols)
    scale = dpi / 72.0
    maxw = max(w for w, _ in sizes)
    maxh = max(h for _, h in sizes)
    for _ in range(40):
        cw, ch = max(1, math.ceil(maxw * scale) + 1), max(1, math.ceil(maxh * scale) + 1)
        width = PAD + cols * (cw + PAD)
        height = HEADER_H + rows * (ch + LABEL_H + PAD)
        if width * height <= MAX_PIXELS or scale < 0.05:
            break
        scale *= math.sqrt(MAX_PIXELS / (width * height)) * 0.98
    return Layout(n, cols, rows, cw, ch, scale, width, height)


def _render_chunk(path: str, indices: list[int], scale: float, want_text: bool) -> list[Tile]:
    """Worker: open the PDF in this process, render some pages to RGB tiles and, from
    the same loaded page (parsing a page costs as much as extracting its text),
    read their text for the QA."""
    import pypdfium2 as pdfium
    from PIL import Image

    from gavelkit.award.pdf.document import annot_notes, ink_of, normalise

    doc = pdfium.PdfDocument(path)
    out = []
    try:
        for i in indices:
            text, error, notes = None, None, None
            try:
                page = doc[i]
                try:
                    bitmap = page.render(scale=scale, rev_byteorder=True)
                    img = bitmap.to_pil().convert("RGB")
                    bitmap.close()
                    if want_text:
                        tp = page.get_textpage()
                        text = normalise(tp.get_text_range())
                        tp.close()
                        try:
                            notes = annot_notes(page, i + 1)
                        except Exception:  # a broken annotation must not lose the tile
                            notes = []
                finally:
                    page.close()
            except Exception as exc:  # a damaged page: show an empty tile, report it
                error = str(exc) or type(exc).__name__
                try:  # a page that cannot be loaded has no size either (page-tree loop)
                    w, h = doc.get_page_size(i) if i < len(doc) else (612, 792)
                except Exception:
                    w, h = 612, 792
                img = Image.new("RGB", (max(1, round(w * scale)), max(1, round(h * scale))),
                                (255, 255, 255))
            ink, blank = ink_of(img)
            out.append(Tile(i, img.size, img.tobytes(), ink, blank and error is None, text, error,
                            notes))
    finally:
        doc.close()
    return out


def _chunks(n: int, jobs: int) -> list[list[int]]:
    size = max(1, min(8, math.ceil(n / (jobs * 3))))
    return [list(range(i, min(n, i + size))) for i in range(0, n, size)]


def render_tiles(path: str, n: int, scale: float, jobs: int,
                 want_text: bool = False) -> Iterator[Tile]:
    """Yield tiles as they are rendered, from `jobs` worker processes (PDFium is not
    thread-safe; each process opens the document itself)."""
    if jobs <= 1:
        for chunk in _chunks(n, 1):
            yield from _render_chunk(path, chunk, scale, want_text)
        return
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed

    method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
    with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context(method)) as ex:
        futures = [ex.submit(_render_chunk, path, chunk, scale, want_text)
                   for chunk in _chunks(n, jobs)]
        for fut in as_completed(futures):
            yield from fut.result()


def default_jobs(n: int) -> int:
    if n < 8:
        return 1
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cpus, 4, math.ceil(n / 4)))


def _font(size: int) -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def build(path: str, out: str, sizes: list[tuple[float, float]], dpi: float = 60,
          cols: int | None = None, jobs: int | None = None,
          qa: Callable[[dict[int, Tile]], dict[int, set[str]]] | None = None,
          progress: Callable[[int, int], None] | None = None,
          title: str | None = None) -> SheetResult:
    """Render, paste, then frame pages flagged by `qa(tiles)` and write the PNG.

    `qa` receives {page number: Tile} (ink, blank?, text; pixels dropped) and returns
    {page number: kinds}; kinds are keys of COLOURS.
    """
    from PIL import Image, ImageDraw

    from gavelkit.core.textio import atomic_write

    n = len(sizes)
    lay = layout(sizes, dpi, cols)
    sheet = Image.new("RGB", (lay.width, lay.height), (255, 255, 255))
    seen = _render_into(sheet, lay, path, n, jobs or default_jobs(n), qa is not None, progress)
    flags = qa(seen) if qa else {}
    draw = ImageDraw.Draw(sheet)
    small, big = _font(14), _font(18)
    for i in range(n):
        _frame(draw, lay, i, sorted(flags.get(i + 1, set()), key=list(COLOURS).index), small)
    head = title or f"Contact sheet: {os.path.basename(path)} ({n} page{'s' if n != 1 else ''}, " \
        "from the compiled PDF)"
    draw.text((PAD, 8), head, fill=(0, 0, 0), font=big)
    _legend(draw, [k for k in COLOURS if any(k in v for v in flags.values())], small)
    buf = io.BytesIO()
    sheet.save(buf, format="PNG", compress_level=1)
    del sheet
    atomic_write(out, buf.getvalue())
    return SheetResult(out, n, lay.cols, lay.rows, lay.width, lay.height,
                       round(lay.scale * 72, 1),
                       {k: (t.ink, t.blank) for k, t in seen.items()})


def _render_into(sheet: Any, lay: Layout, path: str, n: int, jobs: int, want_text: bool,
                 progress: Callable[[int, int], None] | None) -> dict[int, Tile]:
    """Render every page onto the sheet; page number -> its Tile, pixels dropped."""
    seen: dict[int, Tile] = {}
    for item in render_tiles(path, n, lay.scale, jobs, want_text=want_text):
        _paste(sheet, lay, item)
        item.raw = b""
        seen[item.index + 1] = item
        if progress:
            progress(len(seen), n)
    return seen


def _paste(sheet: Any, lay: Layout, item: Tile) -> None:
    """The tile centred in its cell (shrunk or cut to the cell if it is larger)."""
    from PIL import Image

    tile = Image.frombytes("RGB", item.size, item.raw)
    if tile.size[0] > lay.cell_w + 2 or tile.size[1] > lay.cell_h + 2:
        tile.thumbnail((lay.cell_w, lay.cell_h))   # e.g. a /Rotate the size table missed
    elif tile.size[0] > lay.cell_w or tile.size[1] > lay.cell_h:
        tile = tile.crop((0, 0, min(tile.size[0], lay.cell_w), min(tile.size[1], lay.cell_h)))
    x, y = lay.origin(item.index)
    ox = x + (lay.cell_w - tile.size[0]) // 2
    oy = y + (lay.cell_h - tile.size[1]) // 2
    sheet.paste(tile, (ox, oy))


def _frame(draw: Any, lay: Layout, i: int, kinds: list[str], font: Any) -> None:
    """Page i's cell outline, a coloured frame per QA kind, and its label underneath."""
    x, y = lay.origin(i)
    draw.rectangle((x - 1, y - 1, x + lay.cell_w, y + lay.cell_h), outline=(160, 160, 160))
    for k, kind in enumerate(kinds):
        d = FRAME - k * FRAME          # first frame just outside the page, others inside
        draw.rectangle((x - d, y - d, x + lay.cell_w - 1 + d, y + lay.cell_h - 1 + d),
                       outline=COLOURS[kind], width=FRAME)
    label = f"p. {i + 1}" + (f"  {', '.join(kinds)}" if kinds else "")
    colour = COLOURS[kinds[0]] if kinds else (0, 0, 0)
    draw.text((x, y + lay.cell_h + 4), label, fill=colour, font=font)


def _legend(draw: Any, present: list[str], font: Any) -> None:
    """A swatch and its meaning per kind framed on the sheet (or that none was)."""
    lx = PAD
    if not present:
        draw.text((lx, 36), "no QA findings framed", fill=(0, 120, 0), font=font)
    for kind in present:
        draw.rectangle((lx, 38, lx + 14, 52), fill=COLOURS[kind])
        text = LEGEND[kind]
        draw.text((lx + 20, 36), text, fill=(0, 0, 0), font=font)
        lx += 20 + int(draw.textlength(text, font=font)) + 18
