#!/usr/bin/env python3
"""figqa: a geometry-exact overlap and clipping gate for matplotlib figures.

Wire it into every figure factory and into ``run_all.py``::

    from figqa import assert_no_overlap
    assert_no_overlap(fig)          # raises AssertionError listing each collision

or inspect the result yourself with ``find_collisions(fig)``.

Why geometry and not boxes: a label next to a diagonal line is not touched by
it, a line that leaves the axes is not drawn, a NaN gap has no ink, a step plot
draws steps.  So every data artist is reduced to what the renderer really
draws, in display pixels: line segments as drawn (draw style, NaN gaps, clipped
to their clip box), markers at their real size, filled polygons (bars, patches,
``fill_between``, contour fills, meshes), images.  Text-like artists (texts,
annotations with their box padding, legends, titles, axis and tick labels,
colorbar labels, figure texts) are rotated rectangles.  Collisions are exact
intersections of those shapes beyond a tolerance given in *points*, so a gate
passes or fails the same way at 100 and at 300 dpi.

Deliberately allowed: a label from ``ax.text``/``ax.annotate``/``bar_label``
that sits fully inside its *own* bar or filled region (its anchor point lies in
that region); background spans (``axvspan``/``axhspan`` and patches covering the
whole axes); invisible, empty or fully transparent artists; artists of axes
that are hidden; segments clipped away.

This file stands alone: it imports only matplotlib, numpy and the standard
library, so a submission can carry a copy and rerun the gate without any other
package.  ``python3 figqa.py --self-test`` proves the gate works.
"""

from __future__ import annotations

import contextlib
import math
import sys
from dataclasses import dataclass, field
from typing import Any

try:
    import matplotlib
    import numpy as np
    from matplotlib.path import Path as _MplPath
    from matplotlib.transforms import Bbox
except ImportError as _exc:  # pragma: no cover - exercised only without prerequisites
    if __name__ == "__main__":
        sys.stderr.write(
            f"figqa: missing prerequisite: {_exc}.\n"
            "  install it with: python3 -m pip install matplotlib numpy\n"
            "  or run once with: uv run --with matplotlib python3 figqa.py --self-test\n")
        sys.exit(2)
    raise

__all__ = ["KINDS", "ArtistRef", "Collision", "FigqaError", "assert_no_overlap",
           "find_collisions", "format_collisions", "self_test"]

#: Collision kinds, in the order they are reported.
KINDS = ("text-over-text", "text-over-axes", "text-over-line", "text-over-marker", "text-over-patch",
         "text-over-image", "arrow-over-data", "arrow-over-text", "clipped-by-figure",
         "clipped-by-axes", "missing-glyph")

#: Default tolerances, in points (1/72 inch) so they do not depend on dpi.
TOL_PT = 1.0        # shapes must overlap by more than this in every direction
MIN_AREA_PT2 = 1.5  # ... and by more than this area
_NO_LINE = ("None", "none", "", " ")


class FigqaError(AssertionError):
    """Raised by assert_no_overlap; `.collisions` holds what was found."""

    def __init__(self, message: str, collisions: list[Collision]):
        super().__init__(message)
        self.collisions = collisions


@dataclass(frozen=True)
class ArtistRef:
    """One side of a collision: which artist, in words a person recognises."""

    type: str       # matplotlib class name: Text, Legend, Line2D, Rectangle, ...
    role: str       # title, xlabel, ticklabel, legend, text, annotation, line, bar, ...
    label: str      # the text, or the artist's label, or "" when it has none
    axes: int       # index into the figure's axes (subfigures included), -1 = figure
    n: int = -1     # the artist's place among its axes' children: tells unlabeled ones apart

    def describe(self) -> str:
        where = "figure" if self.axes < 0 else f"axes#{self.axes}"
        t = self.type.lower()
        name = self.role if t.startswith(self.role) else f"{self.role} {self.type}"
        lab = f" {_short(self.label)!r}" if self.label else (f" #{self.n}" if self.n >= 0 else "")
        return f"{name}{lab} ({where})"

    def to_dict(self) -> dict[str, Any]:
        d = {"type": self.type, "role": self.role, "label": self.label, "axes": self.axes}
        if self.n >= 0:
            d["n"] = self.n
        return d


@dataclass(frozen=True)
class Collision:
    """A visible defect: `a` (text-like or arrow) overlaps or is cut by `b`."""

    kind: str
    a: ArtistRef
    b: ArtistRef
    area_px: float                               # overlap (or cut-off) area, display px^2
    where: tuple[float, float, float, float]     # x0, y0, x1, y1 display px, origin bottom-left
    figsize_px: tuple[float, float] = (0.0, 0.0)
    detail: str = ""
    a_box: tuple[float, float, float, float] | None = None   # the whole of `a`, display px

    def __str__(self) -> str:
        x0, y0, x1, y1 = self.where
        extra = f"; {self.detail}" if self.detail else ""
        return (f"[{self.kind}] {self.a.describe()} x {self.b.describe()}: "
                f"{self.area_px:.1f} px^2 at x={x0:.0f}..{x1:.0f}, y={y0:.0f}..{y1:.0f} px{extra}")

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "a": self.a.to_dict(), "b": self.b.to_dict(),
                "area_px": round(self.area_px, 1), "where": [round(v, 1) for v in self.where],
                "figsize_px": [round(v, 1) for v in self.figsize_px], "detail": self.detail,
                "a_box": None if self.a_box is None else [round(v, 1) for v in self.a_box]}


def _short(s: str, n: int = 40) -> str:
    s = " ".join(str(s).split())
    return s if len(s) <= n else s[: n - 3] + "..."


# --------------------------------------------------------------------------- geometry

@dataclass
class _Shape:
    """A text-like obstacle: a rectangle of half sizes (hw, hh) rotated by theta."""

    cx: float
    cy: float
    hw: float
    hh: float
    theta: float
    ref: ArtistRef
    artist: Any
    axes: Any = None
    anchors: list[tuple[float, float]] = field(default_factory=list)
    own_ok: bool = False          # may sit inside its own bar/region (ax.text, annotate)
    is3d: bool = False
    parts: list[_Shape] = field(default_factory=list)   # one shape per line of a multi-line text

    @property
    def aabb(self) -> tuple[float, float, float, float]:
        c, s = abs(math.cos(self.theta)), abs(math.sin(self.theta))
        ex, ey = self.hw * c + self.hh * s, self.hw * s + self.hh * c
        return (self.cx - ex, self.cy - ey, self.cx + ex, self.cy + ey)

    def local(self, pts: np.ndarray) -> np.ndarray:
        c, s = math.cos(self.theta), math.sin(self.theta)
        d = pts - (self.cx, self.cy)
        return np.column_stack([d[:, 0] * c + d[:, 1] * s, -d[:, 0] * s + d[:, 1] * c])

    def world(self, pts: np.ndarray) -> np.ndarray:
        c, s = math.cos(self.theta), math.sin(self.theta)
        return np.column_stack([pts[:, 0] * c - pts[:, 1] * s + self.cx,
                                pts[:, 0] * s + pts[:, 1] * c + self.cy])

    def corners(self, shrink: float = 0.0) -> np.ndarray:
        hw, hh = max(self.hw - shrink, 0.0), max(self.hh - shrink, 0.0)
        return self.world(np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]]))

    @property
    def area(self) -> float:
        return 4.0 * self.hw * self.hh


def _clip_halfplane(poly: np.ndarray, axis: int, sign: float, bound: float) -> np.ndarray:
    """Sutherland-Hodgman step: keep sign*poly[:, axis] <= bound (vectorised)."""
    if len(poly) == 0:
        return poly
    s = sign * poly[:, axis] - bound
    q = np.roll(poly, -1, axis=0)
    sq = np.roll(s, -1)
    inside_q = sq <= 0
    cross = (s <= 0) != inside_q
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(cross, s / (s - sq), 0.0)
    inter = poly + t[:, None] * (q - poly)
    stacked = np.stack([inter, q], axis=1)
    mask = np.stack([cross, inside_q], axis=1)
    return stacked[mask]


def _clip_to_box(poly: np.ndarray, hw: float, hh: float) -> np.ndarray:
    for axis, bound in ((0, hw), (1, hh)):
        poly = _clip_halfplane(poly, axis, 1.0, bound)
        poly = _clip_halfplane(poly, axis, -1.0, bound)
    return poly


def _poly_area(poly: np.ndarray) -> float:
    if len(poly) < 3:
        return 0.0
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def _liang_barsky(p: np.ndarray, q: np.ndarray, x0: float, y0: float, x1: float, y1: float
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Clip segments p->q to a box; return (mask, t_enter, t_exit) per segment."""
    d = q - p
    t0 = np.zeros(len(p))
    t1 = np.ones(len(p))
    ok = np.ones(len(p), dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for dd, pp, lo, hi in ((d[:, 0], p[:, 0], x0, x1), (d[:, 1], p[:, 1], y0, y1)):
            zero = dd == 0
            ok &= ~(zero & ((pp < lo) | (pp > hi)))
            ta = (lo - pp) / dd
            tb = (hi - pp) / dd
            tmin = np.where(zero, -np.inf, np.minimum(ta, tb))
            tmax = np.where(zero, np.inf, np.maximum(ta, tb))
            t0 = np.maximum(t0, tmin)
            t1 = np.minimum(t1, tmax)
    ok &= t0 <= t1
    return ok, t0, t1


@dataclass
class _Data:
    """A data artist reduced to drawn geometry in display pixels."""

    kind: str                       # line | marker | region | image
    ref: ArtistRef
    artist: Any
    axes: Any
    clip: tuple[float, float, float, float] | None
    segs: np.ndarray | None = None  # (n, 2, 2) segments (line)
    halfw: float = 0.0              # half stroke width px (line)
    pts: np.ndarray | None = None   # (n, 2) centres (marker), sorted by x
    rad: np.ndarray | None = None   # (n,) radii (marker)
    polys: list[np.ndarray] = field(default_factory=list)   # region polygons
    bbox: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    background: bool = False


def _bbox_tuple(bb: Any) -> tuple[float, float, float, float]:
    return (float(bb.x0), float(bb.y0), float(bb.x1), float(bb.y1))


def _touch(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def _inter(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, float, float, float] | None:
    x0, y0 = max(a[0], b[0]), max(a[1], b[1])
    x1, y1 = min(a[2], b[2]), min(a[3], b[3])
    return (x0, y0, x1, y1) if x0 < x1 and y0 < y1 else None


# --------------------------------------------------------------------------- collection

def _alpha_of(color: Any) -> float:
    from matplotlib.colors import to_rgba
    try:
        return float(to_rgba(color)[3])
    except (ValueError, TypeError):
        return 1.0


def _visible(artist: Any) -> bool:
    if artist is None or not artist.get_visible():
        return False
    alpha = artist.get_alpha()
    return not (alpha is not None and np.ndim(alpha) == 0 and float(alpha) <= 0.0)


def _clip_rect(artist: Any) -> tuple[float, float, float, float] | None:
    if not artist.get_clip_on():
        return None
    rect = None
    box = artist.get_clip_box()
    if box is not None:
        rect = _bbox_tuple(box)
    cp = artist.get_clip_path()
    if cp is not None:
        try:
            path, trans = cp.get_transformed_path_and_affine()
            ext = _bbox_tuple(trans.transform_path(path).get_extents())
            rect = ext if rect is None else (_inter(rect, ext) or (0.0, 0.0, 0.0, 0.0))
        except Exception:
            pass
    return rect


def _clip_shape(artist: Any) -> Any:
    """The artist's clip path in display pixels (polar and other curved axes), or None."""
    if not artist.get_clip_on() or artist.get_clip_path() is None:
        return None
    try:
        path, trans = artist.get_clip_path().get_transformed_path_and_affine()
        tp = trans.transform_path(path)
        polys = tp.to_polygons()
        return [_MplPath(pl) for pl in polys if len(pl) >= 3] or None
    except Exception:
        return None


def _inside_clip(paths: Any, pts: np.ndarray) -> np.ndarray:
    if paths is None or not len(pts):
        return np.ones(len(pts), dtype=bool)
    keep = np.zeros(len(pts), dtype=bool)
    for p in paths:
        keep |= p.contains_points(pts, radius=1.0) | p.contains_points(pts, radius=-1.0)
    return keep


def _text_shape(t: Any, renderer: Any, ref: ArtistRef, axes: Any, own_ok: bool = False
                ) -> _Shape | None:
    """The drawn box of a Text (rotation and bbox padding included), or None."""
    bb = _drawn_extent(t, renderer)
    if bb is None:
        return None
    rot = _rotation(t)
    patch = t.get_bbox_patch()
    boxed = patch is not None and patch.get_visible()
    bb, pad = _with_box(t, renderer, patch, bb, rot) if boxed else (bb, 0.0)
    cx, cy = (bb.x0 + bb.x1) / 2.0, (bb.y0 + bb.y1) / 2.0
    if rot == 0.0:
        shape = _Shape(cx, cy, bb.width / 2.0, bb.height / 2.0, 0.0, ref, t, axes)
    elif rot == 90.0:
        shape = _Shape(cx, cy, bb.height / 2.0, bb.width / 2.0, math.pi / 2, ref, t, axes)
    else:
        # the unrotated size: the axis-aligned extent of a rotated box shares its centre
        orig = t._rotation
        try:
            t._rotation = 0.0
            b0 = t.get_window_extent(renderer)
        finally:
            t._rotation = orig
        shape = _Shape(cx, cy, b0.width / 2.0 + pad, b0.height / 2.0 + pad,
                       math.radians(rot), ref, t, axes)
    if not boxed:
        if "\n" in t.get_text():
            shape.parts = _line_shapes(shape, t, renderer)
        else:
            _tighten_to_ink(shape, t, renderer)
    shape.own_ok = own_ok
    shape.anchors = _anchors(t, renderer)
    for part in shape.parts:
        part.own_ok, part.anchors = shape.own_ok, shape.anchors
    return shape


def _drawn_extent(t: Any, renderer: Any) -> Any:
    """The text's own window extent, or None when nothing of it is drawn."""
    from matplotlib.text import Annotation, Text

    s = t.get_text() if _visible(t) else ""
    if not s or not s.strip() or _alpha_of(t.get_color()) <= 0:
        return None
    if isinstance(t, Annotation):
        try:
            if not t._check_xy(renderer):  # an annotation whose xy is clipped is not drawn
                return None
        except Exception:
            pass
    try:
        bb = Text.get_window_extent(t, renderer)  # an Annotation's own extent adds its arrow
    except Exception:
        return None
    ok = np.isfinite([bb.x0, bb.y0, bb.x1, bb.y1]).all() and bb.width > 0 and bb.height > 0
    return bb if ok else None


def _rotation(t: Any) -> float:
    """The rotation in [0, 180), with 0 and 90 exact."""
    rot = float(t.get_rotation()) % 180.0
    if abs(rot - 180.0) < 1e-6 or rot < 1e-6:
        return 0.0
    return 90.0 if abs(rot - 90.0) < 1e-6 else rot


def _with_box(t: Any, renderer: Any, patch: Any, bb: Any, rot: float) -> tuple[Any, float]:
    """A boxed text's extent with its box, or (for other angles) the box padding."""
    try:
        pb = patch.get_window_extent(renderer)
        if rot in (0.0, 90.0):
            return Bbox.union([bb, pb]), 0.0
        fs = t.get_fontsize() * renderer.points_to_pixels(1.0)
        return bb, float(getattr(patch.get_boxstyle(), "pad", 0.3)) * fs
    except Exception:
        return bb, 0.0


def _anchors(t: Any, renderer: Any) -> list[tuple[float, float]]:
    """The point a label belongs to: what an annotation points at (bar_label uses the
    bar's end or centre), else the text's own position."""
    from matplotlib.text import Annotation

    anchors = []
    try:
        if isinstance(t, Annotation):
            anchors.append(tuple(t._get_xy_transform(renderer, t.xycoords).transform(
                (t.convert_xunits(t.xy[0]), t.convert_yunits(t.xy[1])))))
        else:
            anchors.append(tuple(t.get_transform().transform(t.get_unitless_position())))
    except Exception:
        pass
    return [a for a in anchors if np.isfinite(a).all()]


_INK: dict[tuple[str, Any], tuple[float, float, float, float] | None] = {}
_LP_DESCENT: dict[tuple[Any, float], float] = {}


def _ink(s: str, prop: Any) -> tuple[float, float, float, float] | None:
    """Glyph ink extent of one line of plain text, in points from its origin."""
    key = (s, prop)
    if key not in _INK:
        if len(_INK) > 50_000:  # a long test session: keep memory bounded
            _INK.clear()
        from matplotlib.textpath import TextPath

        try:
            ext = TextPath((0, 0), s, size=prop.get_size_in_points(), prop=prop).get_extents()
            ok = np.isfinite([ext.x0, ext.y0, ext.x1, ext.y1]).all() and ext.width > 0
            _INK[key] = (ext.x0, ext.y0, ext.x1, ext.y1) if ok else None
        except Exception:
            _INK[key] = None
    return _INK[key]


def _blank_ends(s: str, prop: Any, renderer: Any) -> tuple[float, float]:
    """Pixels of blanks at the start and end of one line's layout width.

    f"  Index {i}" puts two blanks between a marker and its label: the layout box
    covers them, the reader sees nothing there."""
    core = s.strip()
    if core == s or not core:
        return 0.0, 0.0
    try:
        def width(x: str) -> float:
            return float(renderer.get_text_width_height_descent(x, prop, ismath=False)[0])
        full = width(s)
        return max(0.0, full - width(s.lstrip())), max(0.0, full - width(s.rstrip()))
    except Exception:
        return 0.0, 0.0


def _tighten_to_ink(shape: _Shape, t: Any, renderer: Any) -> None:
    """Shrink a text box from its line box (ascent + descent) to the glyphs' ink height.

    "0.50" has no descender and "ace" no ascender: the empty band of the line box
    is not a visible part of the label, and counting it makes neighbours collide.
    """
    s = t.get_text()
    if "\n" in s or t.get_usetex() or s.count("$") >= 2:
        return
    prop = t.get_fontproperties()
    ink = _ink(s, prop)
    if ink is None:
        return
    k = renderer.points_to_pixels(1.0)
    key = (prop, k)
    lp_d = _LP_DESCENT.get(key)
    if lp_d is None:
        try:
            lp_d = _LP_DESCENT[key] = renderer.get_text_width_height_descent(
                "lp", prop, ismath=False)[2]
        except Exception:
            return
    base = -shape.hh + max(-min(ink[1], 0.0) * k, lp_d)  # the baseline in the line box
    # along the baseline the layout box is kept: the renderer's hinted glyphs are a
    # little wider than the outline, and side bearings are only a pixel or two
    left, right = _blank_ends(s, prop, renderer)
    lx0, lx1 = -shape.hw + left, shape.hw - right
    ly0 = max(-shape.hh, base + ink[1] * k)
    ly1 = min(shape.hh, base + ink[3] * k)
    if lx1 - lx0 < 1.0 or ly1 - ly0 < 1.0:
        return
    c = shape.world(np.array([[(lx0 + lx1) / 2.0, (ly0 + ly1) / 2.0]]))[0]
    shape.cx, shape.cy = float(c[0]), float(c[1])
    shape.hw, shape.hh = (lx1 - lx0) / 2.0, (ly1 - ly0) / 2.0


def _line_shapes(shape: _Shape, t: Any, renderer: Any) -> list[_Shape]:
    """A multi-line text as one ink-tight shape per line (empty if its layout is unknown).

    The whole block's box covers the blank ends of short lines and the line gaps,
    where nothing is drawn.
    """
    layout = _layout_lines(t, renderer)
    if layout is None:
        return []
    bbox, info = layout
    k = renderer.points_to_pixels(1.0)
    cx0, cy0 = bbox.x0 + bbox.width / 2.0, bbox.y0 + bbox.height / 2.0
    if abs(bbox.width / 2.0 - shape.hw) > 1.0 or abs(bbox.height / 2.0 - shape.hh) > 1.0:
        return []
    parts = []
    try:
        for item in info:
            # (line, (w, h, d), (x, y)) since matplotlib 3.9; (line, (w, h), x, y) in 3.8
            line, (w, *_) = item[0], item[1]
            x, y = (item[2], item[3]) if len(item) == 4 else item[-1]
            ink = _ink(line, t.get_fontproperties()) if line.strip() else None
            if ink is None or w <= 0:
                continue
            left, right = _blank_ends(line, t.get_fontproperties(), renderer)
            lx0, lx1 = x - cx0 + left, x + w - cx0 - right
            ly0, ly1 = y - cy0 + ink[1] * k, y - cy0 + ink[3] * k
            c = shape.world(np.array([[(lx0 + lx1) / 2.0, (ly0 + ly1) / 2.0]]))[0]
            parts.append(_Shape(float(c[0]), float(c[1]), (lx1 - lx0) / 2.0,
                                (ly1 - ly0) / 2.0, shape.theta, shape.ref, t, shape.axes))
    except (TypeError, ValueError):
        return []
    return parts


def _layout_lines(t: Any, renderer: Any) -> tuple[Any, Any] | None:
    """The unrotated layout box and line info of a plain (not TeX, not mathtext) text."""
    s = t.get_text()
    if t.get_usetex() or s.count("$") >= 2:
        return None
    orig = t._rotation
    try:
        t._rotation = 0.0
        bbox, info, _ = t._get_layout(renderer)
    except Exception:
        return None
    finally:
        t._rotation = orig
    return bbox, info


def _legends(fig: Any, axes_list: list[Any]) -> list[tuple[int, Any, Any]]:
    from matplotlib.legend import Legend

    legs = [(i, ax, c) for i, ax in enumerate(axes_list) if ax.get_visible()
            for c in ax.get_children() if isinstance(c, Legend)]
    legs += [(-1, None, leg) for sub in _figures(fig) for leg in getattr(sub, "legends", [])]
    return [x for x in legs if _visible(x[2])]


def _box_shape(artist: Any, renderer: Any, ref: ArtistRef, axes: Any) -> _Shape | None:
    if not _visible(artist):
        return None
    try:
        bb = artist.get_window_extent(renderer)
    except Exception:
        return None
    if not (np.isfinite([bb.x0, bb.y0, bb.x1, bb.y1]).all() and bb.width > 0 and bb.height > 0):
        return None
    return _Shape((bb.x0 + bb.x1) / 2, (bb.y0 + bb.y1) / 2, bb.width / 2, bb.height / 2, 0.0,
                  ref, artist, axes)


def _ticks_drawn(axis: Any) -> list[Any]:
    try:
        return list(axis._update_ticks())
    except Exception:
        return list(axis.get_major_ticks()) + list(axis.get_minor_ticks())


def _axes_list(fig: Any) -> list[Any]:
    out: list[Any] = list(fig.axes)
    for sub in getattr(fig, "subfigs", []) or []:
        out.extend(a for a in _axes_list(sub) if a not in out)
    return out


def _figures(fig: Any) -> list[Any]:
    out = [fig]
    for sub in getattr(fig, "subfigs", []) or []:
        out.extend(_figures(sub))
    return out


def _collect_text(fig: Any, renderer: Any, axes_list: list[Any]) -> list[_Shape]:
    shapes: list[_Shape] = []
    for i, ax in enumerate(axes_list):
        if ax.get_visible():
            shapes.extend(_axes_texts(ax, i, renderer))
    for sub in _figures(fig):
        shapes.extend(_figure_texts(sub, renderer))
    return shapes


def _name(t: Any) -> str:
    return str(t.get_text()) if hasattr(t, "get_text") else ""


def _add(shapes: list[_Shape], sh: _Shape | None) -> None:
    """A text's shape, or each of its lines' shapes when it has several."""
    if sh is not None:
        shapes.extend(sh.parts or [sh])


def _axis_texts(ax: Any, i: int, renderer: Any) -> list[_Shape]:
    """Axis labels, offset texts and the tick labels an axes draws."""
    out: list[_Shape] = []
    axis_map = getattr(ax, "_axis_map", None) or {"x": ax.xaxis, "y": ax.yaxis}
    for key, axis in axis_map.items():
        if not axis.get_visible():
            continue
        _add(out, _text_shape(axis.label, renderer,
                              ArtistRef("Text", f"{key}label", _name(axis.label), i), ax))
        off = axis.get_offset_text()
        _add(out, _text_shape(off, renderer, ArtistRef("Text", "offset text", _name(off), i),
                              ax))
        for tick in _ticks_drawn(axis):
            for lab in (tick.label1, tick.label2):
                _add(out, _text_shape(lab, renderer,
                                      ArtistRef("Text", f"{key}ticklabel", _name(lab), i), ax))
    return out


def _boxes(ax: Any, i: int, renderer: Any) -> list[_Shape]:
    """Legends and anchored boxes of an axes (anchored labels and scale bars are placed
    on the data on purpose, like ax.text: they may sit inside an image or region)."""
    from matplotlib.legend import Legend
    from matplotlib.offsetbox import OffsetBox

    out: list[_Shape] = []
    for leg in (c for c in ax.get_children() if isinstance(c, Legend)):
        _add(out, _box_shape(leg, renderer, ArtistRef("Legend", "legend", _legend_name(leg), i),
                             ax))
    for art in ax.artists:
        if isinstance(art, OffsetBox) and not isinstance(art, Legend):
            sh = _box_shape(art, renderer, ArtistRef(type(art).__name__, "box",
                                                     _offsetbox_text(art), i), ax)
            if sh is not None:
                sh.own_ok = True
                sh.anchors = [(sh.cx, sh.cy)]
            _add(out, sh)
    return out


def _axes_texts(ax: Any, i: int, renderer: Any) -> list[_Shape]:
    from matplotlib.text import Annotation

    shapes: list[_Shape] = []
    for t in ax.texts:
        role = "annotation" if isinstance(t, Annotation) else "text"
        _add(shapes, _text_shape(t, renderer, ArtistRef(type(t).__name__, role, _name(t), i), ax,
                                 own_ok=True))
    for t in (ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None)):
        if t is not None:
            _add(shapes, _text_shape(t, renderer, ArtistRef("Text", "title", _name(t), i), ax))
    if ax.axison:
        shapes.extend(_axis_texts(ax, i, renderer))
    shapes.extend(_boxes(ax, i, renderer))
    is3d = getattr(ax, "name", "") == "3d"
    if is3d:
        # 3-D texts and axis labels are projected only while drawing; their stored
        # positions are not where they appear, so only 2-D overlays are measured
        shapes = [sh for sh in shapes if sh.ref.role in ("title", "legend", "box")
                  or (sh.ref.role in ("text", "annotation") and
                      not type(sh.artist).__name__.endswith("3D"))]
    for sh in shapes:
        sh.is3d = is3d
    return shapes


def _figure_texts(sub: Any, renderer: Any) -> list[_Shape]:
    """Figure texts, suptitles, figure legends and boxes of a (sub)figure."""
    from matplotlib.legend import Legend
    from matplotlib.offsetbox import OffsetBox
    from matplotlib.text import Text

    out: list[_Shape] = []
    # a suptitle is a figure text in some versions: it keeps its role either way, so one
    # pushed down onto a panel is measured against that panel (text-over-axes)
    sup = {id(t): role for attr, role in (("_suptitle", "suptitle"),
                                          ("_supxlabel", "supxlabel"),
                                          ("_supylabel", "supylabel"))
           if isinstance(t := getattr(sub, attr, None), Text)}
    for t in list(sub.texts):
        role = sup.pop(id(t), "figure text")
        _add(out, _text_shape(t, renderer, ArtistRef(type(t).__name__, role, _name(t), -1), None))
    for attr, role in (("_suptitle", "suptitle"), ("_supxlabel", "supxlabel"),
                       ("_supylabel", "supylabel")):
        t = getattr(sub, attr, None)
        if isinstance(t, Text) and id(t) in sup:
            _add(out, _text_shape(t, renderer, ArtistRef("Text", role, _name(t), -1), None))
    for leg in getattr(sub, "legends", []):
        _add(out, _box_shape(leg, renderer, ArtistRef("Legend", "figure legend",
                                                      _legend_name(leg), -1), None))
    for art in getattr(sub, "artists", []):
        if isinstance(art, OffsetBox) and not isinstance(art, Legend):
            _add(out, _box_shape(art, renderer, ArtistRef(type(art).__name__, "box", "", -1),
                                 None))
    return out


def _offsetbox_text(box: Any) -> str:
    from matplotlib.text import Text

    try:
        return " ".join(t.get_text() for t in box.findobj(Text) if t.get_text())[:60]
    except Exception:
        return ""


def _legend_name(leg: Any) -> str:
    try:
        title = leg.get_title().get_text()
        if title:
            return title
        return ", ".join(t.get_text() for t in leg.get_texts()[:3])
    except Exception:
        return ""


def _polylines(tpath: Any) -> list[np.ndarray]:
    try:
        polys = tpath.to_polygons(closed_only=False)
    except Exception:
        return []
    return [p for p in polys if len(p) >= 2 and np.isfinite(p).all()]


def _segments(polys: list[np.ndarray]) -> np.ndarray:
    parts = [np.stack([p[:-1], p[1:]], axis=1) for p in polys if len(p) >= 2]
    return np.concatenate(parts) if parts else np.zeros((0, 2, 2))


def _clip_segments(segs: np.ndarray, clip: tuple[float, float, float, float] | None
                   ) -> np.ndarray:
    if clip is None or len(segs) == 0:
        return segs
    p, q = segs[:, 0], segs[:, 1]
    ok, t0, t1 = _liang_barsky(p, q, *clip)
    d = q - p
    a = p + t0[:, None] * d
    b = p + t1[:, None] * d
    return np.stack([a, b], axis=1)[ok]


def _clip_segments_to_path(segs: np.ndarray, paths: Any) -> np.ndarray:
    """Drop segments a curved clip path hides (both ends and middle outside it)."""
    if paths is None or not len(segs):
        return segs
    keep = (_inside_clip(paths, segs[:, 0]) | _inside_clip(paths, segs[:, 1]) |
            _inside_clip(paths, segs.mean(axis=1)))
    return segs[keep]


def _ptp(dpi: float) -> float:
    return dpi / 72.0


def _is_background(p: Any, ax: Any, polys: list[np.ndarray]) -> bool:
    """axvspan/axhspan shading or a patch covering (nearly) the whole axes."""
    try:
        dt = p.get_data_transform()
        if dt is ax.get_xaxis_transform(which="grid") or dt is ax.get_yaxis_transform(which="grid"):
            return True
        if dt is ax.transAxes:
            return True
    except Exception:
        pass
    ab = ax.bbox
    area = sum(_poly_area(_clip_axis_aligned(pl, _bbox_tuple(ab))) for pl in polys)
    return area >= 0.9 * ab.width * ab.height > 0


def _clip_axis_aligned(poly: np.ndarray, rect: tuple[float, float, float, float]) -> np.ndarray:
    cx, cy = (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2
    out = _clip_to_box(poly - (cx, cy), (rect[2] - rect[0]) / 2, (rect[3] - rect[1]) / 2)
    return out + np.array([cx, cy]) if len(out) else out


def _label_of(artist: Any) -> str:
    lab = artist.get_label() if hasattr(artist, "get_label") else ""
    lab = "" if lab is None else str(lab)
    return "" if lab.startswith("_") else lab


def _collect_data(fig: Any, renderer: Any, axes_list: list[Any]) -> list[_Data]:
    px = _ptp(fig.dpi)
    out: list[_Data] = []
    for i, ax in enumerate(axes_list):
        if not ax.get_visible():
            continue
        for k, art in enumerate(ax.get_children()):
            if not _visible(art):
                continue
            try:
                found = _artist_data(art, i, ax, px, renderer)
            except Exception:
                continue  # an artist we cannot measure is skipped, never fatal
            for d in found:  # unlabeled artists stay apart in reports and counts
                if not d.ref.label:
                    d.ref = ArtistRef(d.ref.type, d.ref.role, "", d.ref.axes, k)
            out.extend(found)
    return out


def _artist_data(art: Any, i: int, ax: Any, px: float, renderer: Any) -> list[_Data]:
    """What one child of an axes draws, as data shapes (lines, markers, regions, images)."""
    from matplotlib.collections import Collection
    from matplotlib.image import AxesImage
    from matplotlib.lines import Line2D
    from matplotlib.patches import FancyArrowPatch, Patch

    if isinstance(art, Line2D):
        return _line_data(art, i, ax, px)
    if isinstance(art, Collection):
        return _collection_data(art, i, ax, px)
    if isinstance(art, Patch) and art is not ax.patch and \
            not isinstance(art, FancyArrowPatch) and art not in ax.spines.values():
        d = _patch_data(art, i, ax, px)
        return [d] if d is not None else []
    if isinstance(art, AxesImage):
        return _image_data(art, i, ax, renderer)
    return []


def _image_data(art: Any, i: int, ax: Any, renderer: Any) -> list[_Data]:
    rect = _bbox_tuple(art.get_window_extent(renderer))
    clip = _clip_rect(art)
    if clip is not None:
        rect = _inter(rect, clip) or (0.0, 0.0, 0.0, 0.0)
    if not (rect[2] > rect[0] and rect[3] > rect[1]):
        return []
    poly = np.array([[rect[0], rect[1]], [rect[2], rect[1]], [rect[2], rect[3]],
                     [rect[0], rect[3]]])
    return [_Data("image", ArtistRef(type(art).__name__, "image", _label_of(art), i), art, ax,
                  None, polys=[poly], bbox=rect)]


def _line_data(line: Any, i: int, ax: Any, px: float) -> list[_Data]:
    clip = _clip_rect(line)
    label = _label_of(line)
    out = []
    if line.get_linestyle() not in _NO_LINE and line.get_linewidth() > 0 and \
            _alpha_of(line.get_color()) > 0:
        tpath = line.get_transform().transform_path(line.get_path())
        segs = _clip_segments(_segments(_polylines(tpath)), clip)
        segs = _clip_segments_to_path(segs, _clip_shape(line))
        if len(segs):
            out.append(_Data("line", ArtistRef("Line2D", "line", label, i), line, ax, clip,
                             segs=segs, halfw=line.get_linewidth() * px / 2.0,
                             bbox=_seg_bbox(segs)))
    if line.get_marker() not in ("None", "none", "", " ", None) and line.get_markersize() > 0:
        pts = _kept_points(line, _marked_points(line), clip)
        if len(pts):
            r = (line.get_markersize() / 2.0 + line.get_markeredgewidth() / 2.0) * px
            out.append(_marker_data(ArtistRef("Line2D", "marker", label, i), line, ax, clip,
                                    pts, np.full(len(pts), r)))
    return out


def _marked_points(line: Any) -> np.ndarray:
    """Display positions of the points a line draws a marker at (markevery applied)."""
    xy = np.asarray(line.get_xydata(), dtype=float)
    me = line.get_markevery()
    if isinstance(me, int) and me > 1:
        xy = xy[::me]
    elif isinstance(me, tuple) and len(me) == 2 and all(isinstance(v, int) for v in me):
        xy = xy[me[0]::me[1]]
    pts = line.get_transform().transform(xy) if len(xy) else np.zeros((0, 2))
    return pts[np.isfinite(pts).all(axis=1)]


def _in_rect(pts: np.ndarray, clip: tuple[float, float, float, float]) -> np.ndarray:
    return ((pts[:, 0] >= clip[0]) & (pts[:, 0] <= clip[2]) &
            (pts[:, 1] >= clip[1]) & (pts[:, 1] <= clip[3]))


def _kept_points(art: Any, pts: np.ndarray, clip: Any) -> np.ndarray:
    """The points inside the artist's clip box and clip path (drawn, not clipped away)."""
    if clip is not None and len(pts):
        pts = pts[_in_rect(pts, clip)]
    return pts[_inside_clip(_clip_shape(art), pts)]


def _marker_data(ref: ArtistRef, art: Any, ax: Any, clip: Any, pts: np.ndarray,
                 rad: np.ndarray) -> _Data:
    order = np.argsort(pts[:, 0], kind="stable")
    pts, rad = pts[order], rad[order]
    bbox = (float((pts[:, 0] - rad).min()), float((pts[:, 1] - rad).min()),
            float((pts[:, 0] + rad).max()), float((pts[:, 1] + rad).max()))
    return _Data("marker", ref, art, ax, clip, pts=pts, rad=rad, bbox=bbox)


def _grow(b: tuple[float, float, float, float], r: float) -> tuple[float, float, float, float]:
    return (b[0] - r, b[1] - r, b[2] + r, b[3] + r)


def _seg_bbox(segs: np.ndarray) -> tuple[float, float, float, float]:
    flat = segs.reshape(-1, 2)
    return (float(flat[:, 0].min()), float(flat[:, 1].min()),
            float(flat[:, 0].max()), float(flat[:, 1].max()))


def _per_item(a: np.ndarray, n: int) -> np.ndarray:
    """Cycle a per-item property to n items, as matplotlib does when drawing."""
    if a.size == n:
        return a
    if a.size == 1:
        return np.full(n, float(a.flat[0]))
    return np.resize(a, n)


def _facecolors_visible(coll: Any) -> bool:
    fc = np.asarray(coll.get_facecolor())
    return fc.size > 0 and bool((fc.reshape(-1, 4)[:, 3] > 0).any())


def _edges_visible(coll: Any) -> bool:
    ec = np.asarray(coll.get_edgecolor())
    lw = np.atleast_1d(coll.get_linewidth())
    return ec.size > 0 and bool((ec.reshape(-1, 4)[:, 3] > 0).any()) and bool((lw > 0).any())


def _collection_data(coll: Any, i: int, ax: Any, px: float) -> list[_Data]:
    from matplotlib.collections import QuadMesh

    if isinstance(coll, QuadMesh):
        return _mesh_data(coll, i, ax)
    offsets = np.asarray(coll.get_offsets(), dtype=float).reshape(-1, 2)
    has_offsets = len(offsets) > 0 and not (len(offsets) == 1 and not offsets.any())
    if not coll.get_paths():
        return []
    if has_offsets and _marker_like(coll, len(offsets)):
        return _offset_markers(coll, i, ax, px, offsets)
    return _path_data(coll, i, ax, px, offsets if has_offsets else None)


def _marker_like(coll: Any, n_offsets: int) -> bool:
    """One small path per offset, sized in points (scatter, and big offset collections
    drawn with an identity transform); others are data-space paths."""
    from matplotlib.collections import PathCollection

    if isinstance(coll, PathCollection):
        return True
    master = coll.get_transform()
    return n_offsets > 5000 and master.is_affine and np.allclose(master.get_matrix(), np.eye(3))


def _mesh_data(coll: Any, i: int, ax: Any) -> list[_Data]:
    """A QuadMesh (pcolormesh) as the region of its outline, like an image."""
    coords = np.asarray(coll.get_coordinates(), dtype=float)
    ring = np.concatenate([coords[0, :], coords[1:, -1], coords[-1, -2::-1],
                           coords[-2:0:-1, 0]])
    poly = coll.get_transform().transform(ring)
    poly = poly[np.isfinite(poly).all(axis=1)]
    clip = _clip_rect(coll)
    if clip is not None:
        poly = _clip_axis_aligned(poly, clip)
    if len(poly) < 3:
        return []
    return [_Data("image", ArtistRef(type(coll).__name__, "mesh", _label_of(coll), i), coll, ax,
                  None, polys=[poly], bbox=_seg_bbox(poly[None]))]


def _half_extents(paths: list[Any], transforms: Any, master: Any) -> list[float]:
    """Half the smaller side of each marker path as drawn (per-item transforms applied)."""
    halves = []
    for k in range(max(len(transforms), 1)):
        v = paths[k % len(paths)].vertices
        if len(transforms):
            v = v @ np.asarray(transforms[k])[:2, :2].T
        v = v @ np.asarray(master.get_matrix())[:2, :2].T if master.is_affine else v
        halves.append(float(min(np.ptp(v[:, 0]), np.ptp(v[:, 1]))) / 2.0 if len(v) else 0)
    return halves


def _marker_radii(coll: Any, n: int, px: float) -> np.ndarray | None:
    """The drawn radius of each of n offset markers (sizes in points^2 for scatter)."""
    from matplotlib.collections import PathCollection

    paths = coll.get_paths()
    if isinstance(coll, PathCollection):
        sizes = np.asarray(coll.get_sizes(), dtype=float)
        if sizes.size == 0:
            return None
        halves = [float(min(np.ptp(p.vertices[:, 0]), np.ptp(p.vertices[:, 1]))) / 2.0
                  if len(p.vertices) else 0.0 for p in paths]
        rad = _per_item(np.sqrt(np.abs(sizes)) * px, n) * _per_item(np.array(halves), n)
    else:
        rad = _per_item(np.array(_half_extents(paths, coll.get_transforms(),
                                               coll.get_transform())), n)
    if _edges_visible(coll):
        rad = rad + _per_item(np.atleast_1d(coll.get_linewidth()).astype(float), n) * px / 2.0
    return rad


def _offset_markers(coll: Any, i: int, ax: Any, px: float, offsets: np.ndarray) -> list[_Data]:
    """Marker-like collections: one small path per offset, sized in points."""
    if not (_facecolors_visible(coll) or _edges_visible(coll)):
        return []
    centres = coll.get_offset_transform().transform(offsets)
    rad = _marker_radii(coll, len(centres), px)
    if rad is None:
        return []
    ok = np.isfinite(centres).all(axis=1) & (rad > 0)
    centres, rad = centres[ok], rad[ok]
    clip = _clip_rect(coll)
    if clip is not None and len(centres):
        keep = _in_rect(centres, clip)
        centres, rad = centres[keep], rad[keep]
    keep = _inside_clip(_clip_shape(coll), centres)
    centres, rad = centres[keep], rad[keep]
    if not len(centres):
        return []
    return [_marker_data(ArtistRef(type(coll).__name__, "marker", _label_of(coll), i), coll, ax,
                         clip, centres, rad)]


def _collection_polys(coll: Any, offsets: np.ndarray | None) -> list[np.ndarray]:
    """Every path of a data-space collection in display coordinates."""
    from matplotlib.transforms import Affine2D

    paths, master, trs = coll.get_paths(), coll.get_transform(), coll.get_transforms()
    off_disp = coll.get_offset_transform().transform(offsets) if offsets is not None else None
    polys: list[np.ndarray] = []
    for k in range(max(len(paths), len(off_disp) if off_disp is not None else 0)):
        t = master if not len(trs) else Affine2D(np.asarray(trs[k % len(trs)])) + master
        pl = _polylines(t.transform_path(paths[k % len(paths)]))
        if off_disp is not None:
            pl = [q + off_disp[k % len(off_disp)] for q in pl]
        polys.extend(pl)
    return polys


def _closed_in(polys: list[np.ndarray], clip: Any) -> list[np.ndarray]:
    """The filled polygons (3+ vertices), cut to the clip box when there is one."""
    closed = [pl for pl in polys if len(pl) >= 3]
    if clip is not None:
        closed = [c for c in (_clip_axis_aligned(pl, clip) for pl in closed) if len(c) >= 3]
    return closed


def _path_data(coll: Any, i: int, ax: Any, px: float, offsets: np.ndarray | None
               ) -> list[_Data]:
    """Data-space collections (LineCollection, fill_between, contours, Poly3D, ...):
    filled regions, or the lines of their edges."""
    polys = _collection_polys(coll, offsets)
    if not polys:
        return []
    clip, tname, label = _clip_rect(coll), type(coll).__name__, _label_of(coll)
    if _facecolors_visible(coll):
        closed = _closed_in(polys, clip)
        if not closed:
            return []
        role = "fill" if tname in ("PolyCollection", "FillBetweenPolyCollection") else "region"
        return [_Data("region", ArtistRef(tname, role, label, i), coll, ax, None, polys=closed,
                      bbox=_seg_bbox(np.concatenate(closed)[None]))]
    if not _edges_visible(coll):
        return []
    segs = _clip_segments_to_path(_clip_segments(_segments(polys), clip), _clip_shape(coll))
    if not len(segs):
        return []
    lw = float(np.max(np.atleast_1d(coll.get_linewidth()))) * px / 2.0
    return [_Data("line", ArtistRef(tname, "line", label, i), coll, ax, clip, segs=segs,
                  halfw=lw, bbox=_seg_bbox(segs))]


def _patch_data(p: Any, i: int, ax: Any, px: float) -> _Data | None:
    clip = _clip_rect(p)
    polys = _polylines(p.get_transform().transform_path(p.get_path()))
    if not polys:
        return None
    if p.get_fill() and _alpha_of(p.get_facecolor()) > 0:
        return _patch_region(p, i, ax, polys, clip)
    if p.get_linewidth() <= 0 or _alpha_of(p.get_edgecolor()) <= 0 or \
            p.get_linestyle() in _NO_LINE:
        return None
    segs = _clip_segments(_segments(polys), clip)
    if not len(segs):
        return None
    d = _Data("line", ArtistRef(type(p).__name__, "outline", _label_of(p), i), p, ax, clip,
              segs=segs, halfw=p.get_linewidth() * px / 2.0, bbox=_seg_bbox(segs))
    d.background = _is_background(p, ax, [pl for pl in polys if len(pl) >= 3])
    return d


def _patch_region(p: Any, i: int, ax: Any, polys: list[np.ndarray], clip: Any) -> _Data | None:
    closed = _closed_in(polys, clip)
    if not closed:
        return None
    tname = type(p).__name__
    d = _Data("region", ArtistRef(tname, "bar" if tname == "Rectangle" else "patch",
                                  _label_of(p), i), p, ax, None, polys=closed,
              bbox=_seg_bbox(np.concatenate(closed)[None]))
    d.background = _is_background(p, ax, closed)
    return d


# --------------------------------------------------------------------------- tests

def _seg_hits(sh: _Shape, segs: np.ndarray, margin: float) -> tuple[float, np.ndarray] | None:
    """Length of `segs` inside the shape shrunk by `margin`, and the hit points."""
    hw, hh = sh.hw - margin, sh.hh - margin
    if hw <= 0 or hh <= 0:
        return None
    x0, y0, x1, y1 = sh.aabb
    bx0 = np.minimum(segs[:, 0, 0], segs[:, 1, 0])
    bx1 = np.maximum(segs[:, 0, 0], segs[:, 1, 0])
    by0 = np.minimum(segs[:, 0, 1], segs[:, 1, 1])
    by1 = np.maximum(segs[:, 0, 1], segs[:, 1, 1])
    cand = (bx1 >= x0) & (bx0 <= x1) & (by1 >= y0) & (by0 <= y1)
    if not cand.any():
        return None
    s = segs[cand]
    p = sh.local(s[:, 0])
    q = sh.local(s[:, 1])
    ok, t0, t1 = _liang_barsky(p, q, -hw, -hh, hw, hh)
    if not ok.any():
        return None
    d = q - p
    a = p[ok] + t0[ok, None] * d[ok]
    b = p[ok] + t1[ok, None] * d[ok]
    length = float(np.hypot(*(b - a).T).sum())
    return length, sh.world(np.concatenate([a, b]))


def _marker_hits(sh: _Shape, d: _Data, margin: float, skip: int = -1
                 ) -> tuple[float, np.ndarray] | None:
    pts, rad = d.pts, d.rad
    assert pts is not None and rad is not None
    if skip >= 0:  # the label's own marker (a node disk it sits in)
        pts, rad = np.delete(pts, skip, axis=0), np.delete(rad, skip)
        if not len(pts):
            return None
    if d.clip is not None and sh.theta == 0.0:
        # a marker is cut by its clip box (markers on the top spine are drawn as half
        # disks): only the part of the label inside that box can meet one
        box = _inter(sh.aabb, d.clip)
        if box is None:
            return None
        sh = _Shape((box[0] + box[2]) / 2, (box[1] + box[3]) / 2, (box[2] - box[0]) / 2,
                    (box[3] - box[1]) / 2, 0.0, sh.ref, sh.artist, sh.axes)
    near = _markers_near(sh, pts, rad)
    hw, hh = sh.hw - margin, sh.hh - margin
    if near is None or hw <= 0 or hh <= 0:
        return None
    cp, cr = near
    loc = sh.local(cp)
    dx = np.maximum(np.abs(loc[:, 0]) - hw, 0.0)
    dy = np.maximum(np.abs(loc[:, 1]) - hh, 0.0)
    hit = (dx * dx + dy * dy) < cr * cr
    hit &= ~((dx == 0) & (dy == 0) & (cr <= 0))
    if not hit.any():
        return None
    hp, hr = cp[hit], cr[hit]
    area = float(np.sum(np.minimum(hr * hr * math.pi, sh.area)))
    return area, np.concatenate([hp - hr[:, None], hp + hr[:, None]])


def _markers_near(sh: _Shape, pts: np.ndarray, rad: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray] | None:
    """The markers whose disks reach the shape's box (points sorted by x: a window)."""
    x0, y0, x1, y1 = sh.aabb
    rmax = float(rad.max())
    lo = np.searchsorted(pts[:, 0], x0 - rmax, side="left")
    hi = np.searchsorted(pts[:, 0], x1 + rmax, side="right")
    if hi <= lo:
        return None
    cp, cr = pts[lo:hi], rad[lo:hi]
    keep = (cp[:, 1] >= y0 - cr) & (cp[:, 1] <= y1 + cr)
    return (cp[keep], cr[keep]) if keep.any() else None


def _region_overlap(sh: _Shape, polys: list[np.ndarray], margin: float
                    ) -> tuple[float, np.ndarray | None]:
    hw, hh = sh.hw - margin, sh.hh - margin
    if hw <= 0 or hh <= 0:
        return 0.0, None
    x0, y0, x1, y1 = sh.aabb
    total = 0.0
    pieces = []
    for pl in polys:
        if pl[:, 0].max() < x0 or pl[:, 0].min() > x1 or pl[:, 1].max() < y0 or \
                pl[:, 1].min() > y1:
            continue
        cut = _clip_to_box(sh.local(pl), hw, hh)
        a = _poly_area(cut)
        if a > 0:
            total += a
            pieces.append(sh.world(cut))
    return total, (np.concatenate(pieces) if pieces else None)


def _contains(polys: list[np.ndarray], pt: tuple[float, float], radius: float) -> bool:
    for pl in polys:
        if _MplPath(pl).contains_point(pt, radius=radius) or \
                _MplPath(pl).contains_point(pt, radius=-radius):
            return True
    return False


def _where(pts: np.ndarray) -> tuple[float, float, float, float]:
    return (float(pts[:, 0].min()), float(pts[:, 1].min()),
            float(pts[:, 0].max()), float(pts[:, 1].max()))


def _occluded(sh: _Shape, d: _Data, axes_list: list[Any]) -> bool:
    """Text of an axes drawn over another axes' opaque background hides that data."""
    if sh.axes is None or d.axes is sh.axes:
        return False
    try:
        order = {id(a): n for n, a in enumerate(axes_list)}
        if (sh.axes.get_zorder(), order.get(id(sh.axes), 0)) <= \
                (d.axes.get_zorder(), order.get(id(d.axes), 0)):
            return False  # the data's axes is drawn on top of the text's axes
        if not sh.axes.patch.get_visible() or _alpha_of(sh.axes.patch.get_facecolor()) < 1:
            return False
        return _inside(sh.aabb, _bbox_tuple(sh.axes.bbox), 0.0)
    except Exception:
        return False


def _same_text(a: _Shape, b: _Shape) -> bool:
    if a.ref.label != b.ref.label or not a.ref.label:
        return False
    return (abs(a.cx - b.cx) < 1.0 and abs(a.cy - b.cy) < 1.0 and abs(a.hw - b.hw) < 1.0
            and abs(a.hh - b.hh) < 1.0)


def _text_text(a: _Shape, b: _Shape, shrink: float) -> tuple[float, np.ndarray] | None:
    ab, bb = a.aabb, b.aabb
    if _inter(ab, bb) is None:
        return None
    pa = b.local(a.corners(shrink))
    cut = _clip_to_box(pa, b.hw - shrink, b.hh - shrink)
    area = _poly_area(cut)
    if area <= 0:
        return None
    return area, b.world(cut)


def _zorder(artist: Any) -> float:
    try:
        return float(artist.get_zorder())
    except Exception:
        return 0.0


def _translucent(artist: Any) -> bool:
    try:
        fc = np.asarray(artist.get_facecolor(), dtype=float).reshape(-1, 4)
        a = artist.get_alpha()
        alpha = float(fc[:, 3].max()) * (1.0 if a is None or np.ndim(a) else float(a))
        return alpha < 0.99
    except Exception:
        return False


def _thin_band(d: _Data) -> bool:
    """A band around data (a confidence band or fan), not a shaded zone of the plot.

    A zone has a constant bound: a rectangle (both bounds constant) or a half-plane
    tint ("judge-favouring" above a curve) whose one bound runs along the fill's own
    edge; its label names it, unless the zone is thin enough to be a band itself. A
    fill whose bounds both follow the data is a band however wide it is, and text on
    it covers data.
    """
    try:
        x0, y0, x1, y1 = d.bbox
        v = np.concatenate(d.polys)
        on_x = (np.abs(v[:, 0] - x0) < 0.5) | (np.abs(v[:, 0] - x1) < 0.5)
        on_y = (np.abs(v[:, 1] - y0) < 0.5) | (np.abs(v[:, 1] - y1) < 0.5)
        if (on_x | on_y).all():
            return False  # constant bounds: a rectangle marking a zone, not data
        if on_y.mean() < 0.3 and on_x.mean() < 0.3 and _wraps_a_line(d):
            return True   # both bounds follow a curve drawn inside: a band, however wide
        area = sum(_poly_area(p) for p in d.polys)
        ab = d.axes.bbox
        across = min(area / max(x1 - x0, 1e-9) / max(ab.height, 1e-9),
                     area / max(y1 - y0, 1e-9) / max(ab.width, 1e-9))
        return across < 0.4
    except Exception:
        return False


def _wraps_a_line(d: _Data) -> bool:
    """A line of the same axes runs inside the fill (its estimate inside its interval);
    stacked areas hold no line inside and keep their direct labels."""
    polys = [_MplPath(p) for p in d.polys if len(p) >= 3]
    for line in getattr(d.axes, "lines", []):
        if not _visible(line):
            continue
        try:
            pts = np.asarray(line.get_transform().transform(line.get_xydata()), dtype=float)
        except Exception:
            continue
        pts = pts[np.isfinite(pts).all(axis=1)]
        if len(pts) < 2:
            continue
        inside = np.zeros(len(pts), dtype=bool)
        for path in polys:
            inside |= path.contains_points(pts, radius=-1.0)
        if inside.mean() >= 0.5:
            return True
    return False


def _opaque_markers(d: _Data) -> bool:
    art = d.artist
    try:
        a = art.get_alpha()
        if a is not None and np.ndim(a) == 0 and float(a) < 0.99:
            return False
        if hasattr(art, "get_markerfacecolor"):
            return _alpha_of(art.get_markerfacecolor()) >= 0.99
        fc = np.asarray(art.get_facecolor(), dtype=float).reshape(-1, 4)
        return fc.size > 0 and float(fc[:, 3].min()) >= 0.99
    except Exception:
        return False


def _own_marker(sh: _Shape, data: list[_Data], tol_px: float) -> tuple[_Data, int] | None:
    """The opaque marker a label sits wholly inside, centred on the label's anchor.

    Network node labels are drawn inside their own node disk by design, like a
    value label inside its own bar; a label bigger than its marker is not.
    """
    if not sh.anchors:
        return None
    corners = sh.corners(tol_px / 2.0)
    for d in data:
        if d.kind != "marker" or d.axes is not sh.axes or not _opaque_markers(d):
            continue
        for anchor in sh.anchors:
            k = _disk_under(d, anchor, corners)
            if k is not None:
                return d, k
    return None


def _disk_under(d: _Data, anchor: tuple[float, float], corners: np.ndarray) -> int | None:
    """The marker centred on `anchor` (within 2 px) whose disk holds every corner."""
    assert d.pts is not None and d.rad is not None
    ax_, ay = anchor
    lo = np.searchsorted(d.pts[:, 0], ax_ - 2.0, side="left")
    hi = np.searchsorted(d.pts[:, 0], ax_ + 2.0, side="right")
    for k in range(lo, hi):
        cx, cy = d.pts[k]
        if math.hypot(cx - ax_, cy - ay) <= 2.0 and \
                np.all(np.hypot(corners[:, 0] - cx, corners[:, 1] - cy) <= d.rad[k]):
            return k
    return None


def _opaque_box(t: Any) -> bool:
    """The text sits in a filled, opaque bbox patch."""
    try:
        patch = t.get_bbox_patch()
    except Exception:
        return False
    return patch is not None and patch.get_visible() and patch.get_fill() and \
        _alpha_of(patch.get_facecolor()) >= 0.99


def _own_edge_removed(sh: _Shape, d: _Data, tol_px: float) -> np.ndarray:
    """Segments of `d`, less the stretch an opaque boxed label sits on by design.

    An edge label in an opaque box placed on its own edge (networkx edge labels,
    inline labels) hides that edge under its box; other lines still count.
    """
    assert d.segs is not None
    t = sh.artist
    if not _opaque_box(t) or not sh.anchors or _zorder(d.artist) > _zorder(t):
        return d.segs
    p, q = d.segs[:, 0], d.segs[:, 1]
    keep = np.ones(len(p), dtype=bool)
    for a in sh.anchors:
        v = q - p
        w = np.asarray(a) - p
        L2 = np.maximum((v * v).sum(axis=1), 1e-12)
        tt = np.clip((w * v).sum(axis=1) / L2, 0.0, 1.0)
        dist = np.hypot(*(p + tt[:, None] * v - np.asarray(a)).T)
        keep &= dist > d.halfw + tol_px
    if keep.all():
        return d.segs
    # a single curve labelled inline: all of it under the box is the label's own line
    from matplotlib.lines import Line2D
    if isinstance(d.artist, Line2D):
        keep &= ~_seg_inside_box(sh, d.segs)
    return d.segs[keep]


def _seg_inside_box(sh: _Shape, segs: np.ndarray) -> np.ndarray:
    loc0, loc1 = sh.local(segs[:, 0]), sh.local(segs[:, 1])
    return ((np.abs(loc0[:, 0]) <= sh.hw) & (np.abs(loc0[:, 1]) <= sh.hh)) | \
        ((np.abs(loc1[:, 0]) <= sh.hw) & (np.abs(loc1[:, 1]) <= sh.hh))


_NUM = None


def _number(s: str) -> tuple[float, int, bool] | None:
    """A label's number: (value, decimals, percent) for "12", "3.50", "-1,234", "45%"."""
    global _NUM
    if _NUM is None:
        import re
        _NUM = re.compile(r"^\s*([-+\u2212]?\d[\d,]*(?:\.(\d+))?)\s*(%?)\s*$")
    m = _NUM.match(s)
    if not m:
        return None
    try:
        v = float(m.group(1).replace(",", "").replace("\u2212", "-"))
    except ValueError:
        return None
    return v, len(m.group(2) or ""), bool(m.group(3))


def _bar_values(axes_list: list[Any]) -> dict[int, tuple[int, str, float, bool, Any]]:
    """id(bar patch) -> (series index, series label, value, vertical, axes)."""
    from matplotlib.container import BarContainer

    out: dict[int, tuple[int, str, float, bool, Any]] = {}
    for ax in axes_list:
        series = [c for c in getattr(ax, "containers", []) if isinstance(c, BarContainer)]
        for k, c in enumerate(series):
            vals = getattr(c, "datavalues", None)
            if vals is None:
                continue
            vertical = getattr(c, "orientation", "vertical") != "horizontal"
            lab = _label_of(c)
            for patch, v in zip(c.patches, np.asarray(vals, dtype=float), strict=False):
                out[id(patch)] = (k, lab, float(v), vertical, ax)
    return out


def _matches(num: tuple[float, int, bool], v: float) -> bool:
    x, dec, pct = num
    tol = 0.5 * 10.0 ** -dec + 1e-9 * abs(v)
    cands = (v, v * 100.0) if pct else (v,)
    return any(abs(abs(x) - abs(c)) <= tol for c in cands)


def _foreign_bar(sh: _Shape, d: _Data, bars: dict[int, tuple[int, str, float, bool, Any]]
                 ) -> str:
    """Why a number inside a bar belongs to another series' bar nearby, or "".

    Only a positive match counts: the printed number is not this bar's value but
    is the value of a bar of another series within a few bar widths.
    """
    info = bars.get(id(d.artist))
    num = _number(str(getattr(sh.artist, "get_text", lambda: "")()))
    if info is None or num is None or _matches(num, info[2]):
        return ""
    series, _, _, vertical, ax = info
    try:
        bb = d.artist.get_window_extent()
    except Exception:
        return ""
    width, here = (bb.width if vertical else bb.height), _bar_centre(bb, vertical)
    for patch in ax.patches:
        other = bars.get(id(patch))
        if other is None or other[0] == series or not _matches(num, other[2]):
            continue
        try:
            there = _bar_centre(patch.get_window_extent(), vertical)
        except Exception:
            continue
        if abs(there - here) <= 3.0 * max(width, 1.0):
            who = f"series {other[1]!r}" if other[1] else f"series #{other[0] + 1}"
            return f"the value printed is that of a bar of {who}, not of this bar"
    return ""


_AXIS_ROLES = ("title", "xlabel", "ylabel", "xticklabel", "yticklabel", "offset text",
               "suptitle", "supxlabel", "supylabel")


def _into_other_axes(texts: list[_Shape], axes_list: list[Any], tol_px: float, area_px: float,
                     hit: Any) -> None:
    """Titles, axis and tick labels of one subplot lying on another subplot's frame.

    Too little space between subplots (hspace/wspace) puts one panel's x tick
    labels and x label on the panel below (where its background hides them) and
    that panel's title on the spine and ticks above.  Insets, twins and overlays
    (one axes inside the other) are left out: they share their area by design.
    """
    frames = _frames(axes_list)
    for sh in texts:
        if sh.ref.role not in _AXIS_ROLES or sh.is3d:
            continue
        ob = _bbox_tuple(sh.axes.bbox) if sh.axes is not None else None
        for j, ax, fb in frames:
            if ax is sh.axes or _inter(sh.aabb, fb) is None:
                continue
            if ob is not None and (_inside(ob, fb) or _inside(fb, ob)):
                continue
            poly = np.array([[fb[0], fb[1]], [fb[2], fb[1]], [fb[2], fb[3]], [fb[0], fb[3]]])
            area, pts = _region_overlap(sh, [poly], tol_px / 2.0)
            if _real_overlap(area, pts, tol_px, area_px):
                hit("text-over-axes", sh.ref, ArtistRef(type(ax).__name__, "axes area", "", j),
                    area, pts, "too little space between subplots", box=sh.aabb,
                    ids=(id(sh.artist), id(ax)))


def _frames(axes_list: list[Any]) -> list[tuple[int, Any, tuple[float, float, float, float]]]:
    """(index, axes, box) of the rectilinear axes that draw a frame or background."""
    frames = []
    for j, ax in enumerate(axes_list):
        try:
            if not ax.get_visible() or not ax.axison or getattr(ax, "name", "") != "rectilinear":
                continue
            if ax.get_frame_on() or ax.patch.get_visible():
                frames.append((j, ax, _bbox_tuple(ax.bbox)))
        except Exception:
            continue
    return frames


def _real_overlap(area: float, pts: np.ndarray | None, tol_px: float, area_px: float) -> bool:
    """More than the minimum area, and not a sliver along an edge (shapes that touch)."""
    return area > area_px and pts is not None and np.ptp(pts[:, 0]) > tol_px and \
        np.ptp(pts[:, 1]) > tol_px


def _axis_label_pair(a: _Shape, b: _Shape) -> bool:
    """A 3-D axis label against a tick or axis label of its own axes (both as drawn)."""
    ra, rb = a.ref.role, b.ref.role
    lab = ("xlabel", "ylabel", "zlabel")
    return (ra in lab and rb.endswith("label")) or (rb in lab and ra.endswith("label"))


def _inside(a: tuple[float, ...], b: tuple[float, ...], slack: float = 2.0) -> bool:
    return a[0] >= b[0] - slack and a[1] >= b[1] - slack and a[2] <= b[2] + slack and \
        a[3] <= b[3] + slack


# --------------------------------------------------------------------------- main entry

def _renderer(fig: Any) -> Any:
    """Draw the figure with Agg (restoring a non-Agg canvas) and return the renderer.

    A figure drawn on an Agg canvas and unchanged since (not stale) is not drawn
    again: the gate then costs only the measuring.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    orig = fig.canvas
    if isinstance(orig, FigureCanvasAgg):
        prev = getattr(orig, "renderer", None)
        renderer = orig.get_renderer()
        if fig.stale or renderer is not prev:
            orig.draw()
            renderer = orig.get_renderer()
        return renderer
    canvas = FigureCanvasAgg(fig)
    try:
        canvas.draw()
        return canvas.get_renderer()
    finally:
        fig.set_canvas(orig)


def _record_3d_texts(fig: Any) -> dict[int, _Shape]:
    """Draw once more, keeping each 3-D axis and tick label's shape as it is drawn.

    3-D labels are placed by projection inside ``draw``; asking for their ticks
    afterwards moves them back to 2-D places, so they are measured while drawn.
    """
    from matplotlib.text import Text

    rec: dict[int, _Shape] = {}
    orig = Text.draw
    ref = ArtistRef("Text", "text", "", -1)

    def draw(self: Any, renderer: Any) -> None:
        orig(self, renderer)
        with contextlib.suppress(Exception):  # 3-D tick labels have no .axes: keep them all
            sh = _text_shape(self, renderer, ref, None)
            if sh is not None:
                rec[id(self)] = sh

    Text.draw = draw  # type: ignore[method-assign]
    try:
        fig.stale = True
        _renderer(fig)
    finally:
        Text.draw = orig  # type: ignore[method-assign]
    return rec


def _axis3d_shapes(ax: Any, i: int, drawn: dict[int, _Shape]) -> list[_Shape]:
    """The axis labels and tick labels of a 3-D axes, where they were drawn."""
    out = []
    for key, axis in (getattr(ax, "_axis_map", None) or {}).items():
        items = [(axis.label, f"{key}label")]
        items += [(tk.label1, f"{key}ticklabel") for tk in list(axis.majorTicks) +
                  list(axis.minorTicks)]
        for t, role in items:
            sh = drawn.get(id(t))
            if sh is None or not t.get_visible():
                continue
            ref = ArtistRef("Text", role, str(t.get_text()), i)
            for part in sh.parts or [sh]:
                out.append(_Shape(part.cx, part.cy, part.hw, part.hh, part.theta, ref, t, ax,
                                  is3d=True))
    return out


class _Report:
    """The collisions found so far: one per pair and kind, of the kinds asked for."""

    def __init__(self, want: set[str], size: tuple[float, float]) -> None:
        self.want = want
        self.size = size
        self.out: list[Collision] = []
        self.seen: set[tuple[str, int, int]] = set()

    def __call__(self, kind: str, a: ArtistRef, b: ArtistRef, area: float, pts: Any,
                 detail: str = "", box: Any = None, ids: tuple[int, int] | None = None) -> None:
        if ids is not None:  # the lines of one multi-line text report a pair once
            key = (kind, *ids)
            if key in self.seen:
                return
            self.seen.add(key)
        if kind in self.want:
            pts = np.asarray(pts, dtype=float).reshape(-1, 2)
            a_box = None if box is None else tuple(float(v) for v in box)
            self.out.append(Collision(kind, a, b, float(area), _where(pts), self.size, detail,
                                      a_box))

    def sorted(self) -> list[Collision]:
        order = {k: n for n, k in enumerate(KINDS)}
        return sorted(self.out, key=lambda c: (order.get(c.kind, 99), c.a.axes, -c.area_px))


@dataclass
class _Gate:
    """What every check of one figure shares: tolerances in pixels and the report."""

    hit: _Report
    tol_px: float
    area_px: float
    axes_list: list[Any]
    bars: dict[int, tuple[int, str, float, bool, Any]] = field(default_factory=dict)
    renderer: Any = None


def _canvas_box(fig: Any, renderer: Any, tight: bool | None) -> tuple[float, float, float, float]:
    """The canvas, or what a tight save keeps (computed first: measuring the tight box
    moves located axes back to their nominal positions)."""
    if tight is None:
        tight = str(matplotlib.rcParams.get("savefig.bbox")) == "tight"
    canvas = (0.0, 0.0, float(fig.bbox.width), float(fig.bbox.height))
    if tight:
        try:
            tb = fig.get_tightbbox(renderer)
            pad = float(matplotlib.rcParams.get("savefig.pad_inches", 0.1) or 0) * fig.dpi
            canvas = (tb.x0 * fig.dpi - pad, tb.y0 * fig.dpi - pad,
                      tb.x1 * fig.dpi + pad, tb.y1 * fig.dpi + pad)
        except Exception:
            pass
    return canvas


def _place_located_axes(axes_list: list[Any], renderer: Any) -> None:
    """Axes placed by a locator (axes_grid1 dividers, inset locators) hold their drawn
    position only while drawing, and locating one may reset another: compute every
    position first, then apply them all, then place their labels and titles."""
    located = []
    for ax in axes_list:
        loc = ax.get_axes_locator()
        if loc is not None:
            with contextlib.suppress(Exception):
                located.append((ax, loc(ax, renderer)))
    for ax, pos in located:
        with contextlib.suppress(Exception):
            ax.apply_aspect(pos)
    for ax, _ in located:
        try:
            for axis in (getattr(ax, "_axis_map", None) or {"x": ax.xaxis, "y": ax.yaxis}).values():
                axis._update_label_position(renderer)
            ax._update_title_position(renderer)
        except Exception:
            pass


def _all_texts(fig: Any, renderer: Any, axes_list: list[Any], drawn3d: dict[int, _Shape],
               ignored: set[int]) -> list[_Shape]:
    texts = [s for s in _collect_text(fig, renderer, axes_list) if id(s.artist) not in ignored]
    for i, ax in enumerate(axes_list):
        if drawn3d and getattr(ax, "name", "") == "3d" and ax.get_visible() and \
                getattr(ax, "_axis3don", True):
            texts += [s for s in _axis3d_shapes(ax, i, drawn3d) if id(s.artist) not in ignored]
    return texts


def find_collisions(fig: Any, *, tol: float = TOL_PT, min_area: float = MIN_AREA_PT2,
                    tight: bool | None = None, ignore: Any = (),
                    kinds: Any = None) -> list[Collision]:
    """Every visible collision and clipped artist in `fig`.

    tol       overlap in points below which shapes only "touch" (default 1 pt)
    min_area  overlap area in points^2 below which nothing is reported
    tight     the figure will be saved with bbox_inches="tight" (None: follow
              rcParams["savefig.bbox"]); then only what a tight save cuts is clipped
    ignore    artists to leave out (a deliberate exception stays visible in code)
    kinds     report only these kinds (default: all of KINDS)
    """
    renderer = _renderer(fig)
    axes_list = _axes_list(fig)
    drawn3d = _record_3d_texts(fig) if any(getattr(a, "name", "") == "3d"
                                           for a in axes_list) else {}
    px = _ptp(fig.dpi)
    ignored = {id(a) for a in ignore}
    canvas = _canvas_box(fig, renderer, tight)
    _place_located_axes(axes_list, renderer)
    texts = _all_texts(fig, renderer, axes_list, drawn3d, ignored)
    data = [d for d in _collect_data(fig, renderer, axes_list) if id(d.artist) not in ignored]
    g = _Gate(_Report(set(KINDS if kinds is None else kinds),
                      (float(fig.bbox.width), float(fig.bbox.height))),
              tol * px, min_area * px * px, axes_list, _bar_values(axes_list), renderer)
    for sh in texts:  # text (and legends, boxes) against drawn data
        _text_over_data(g, sh, data)
    _into_other_axes(texts, axes_list, g.tol_px, g.area_px, g.hit)
    _text_over_text(g, texts)
    _arrows(fig, renderer, texts, data, g, ignored)
    _clipping(g, texts, canvas)
    _glyphs(g, fig, renderer, texts)
    return g.hit.sorted()


def _text_over_data(g: _Gate, sh: _Shape, data: list[_Data]) -> None:
    own = _own_marker(sh, data, g.tol_px) if sh.own_ok else None
    for d in data:
        if _exempt(g, sh, d, own):
            continue
        if d.kind == "line":
            _line_hit(g, sh, d)
        elif d.kind == "marker":
            _marker_hit(g, sh, d, own[1] if own is not None and own[0] is d else -1)
        else:
            _region_hit(g, sh, d)


def _bar_centre(bb: Any, vertical: bool) -> float:
    return (bb.x0 + bb.x1) / 2 if vertical else (bb.y0 + bb.y1) / 2


def _line_hit(g: _Gate, sh: _Shape, d: _Data) -> None:
    assert d.segs is not None
    segs = _own_edge_removed(sh, d, g.tol_px)
    r = _seg_hits(sh, segs, g.tol_px - d.halfw) if len(segs) else None
    if r is not None and r[0] * max(2 * d.halfw, 1.0) > g.area_px:
        g.hit("text-over-line", sh.ref, d.ref, r[0] * max(2 * d.halfw, 1.0), r[1],
              box=sh.aabb, ids=(id(sh.artist), id(d.artist)))


def _marker_hit(g: _Gate, sh: _Shape, d: _Data, skip: int) -> None:
    r = _marker_hits(sh, d, g.tol_px, skip=skip)
    if r is not None and r[0] > g.area_px:
        g.hit("text-over-marker", sh.ref, d.ref, r[0], r[1], box=sh.aabb,
              ids=(id(sh.artist), id(d.artist)))


def _region_hit(g: _Gate, sh: _Shape, d: _Data) -> None:
    area, pts = _region_overlap(sh, d.polys, g.tol_px / 2.0)
    if not _real_overlap(area, pts, g.tol_px, g.area_px):
        return
    detail = ""
    if _in_own_region(g, sh, d, area):
        # a label inside its own bar / region is allowed; not on a translucent band (a
        # confidence band is data), nor a value that belongs to a neighbouring bar of
        # another series
        if d.ref.role == "fill" and _translucent(d.artist) and _thin_band(d):
            detail = "text printed on a translucent band"
        else:
            detail = _foreign_bar(sh, d, g.bars)
            if not detail:
                return
    if _ink_clear_of(g, sh, d, pts):
        return
    kind = "text-over-image" if d.kind == "image" else "text-over-patch"
    g.hit(kind, sh.ref, d.ref, area, pts, detail, box=sh.aabb, ids=(id(sh.artist), id(d.artist)))


def _ink_clear_of(g: _Gate, sh: _Shape, d: _Data, pts: np.ndarray) -> bool:
    """The text's box overlaps the region but its glyphs do not: a box corner cut by a
    slanted edge (a donut's inner label beside the next wedge) is not ink. Only for plain
    text whose glyph outlines are known; anything else keeps the box's verdict."""
    glyphs = _glyph_path(sh.artist, g.renderer, sh.theta) if not sh.is3d else None
    if glyphs is None:
        return False
    x0, y0, x1, y1 = _where(pts)
    step = max(0.5, math.sqrt(max((x1 - x0) * (y1 - y0), 1.0) / 20_000))
    gx, gy = np.meshgrid(np.arange(x0 + step / 2, x1, step), np.arange(y0 + step / 2, y1, step))
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    if not len(grid):
        return False
    grid = grid[glyphs.contains_points(grid)]
    inside = np.zeros(len(grid), dtype=bool)
    for pl in d.polys:
        if len(grid):
            inside |= _MplPath(pl).contains_points(grid)
    return float(inside.sum()) * step * step <= g.area_px


def _glyph_path(t: Any, renderer: Any, theta: float) -> Any:
    """The glyph outlines of a plain, unboxed Text in display pixels, or None."""
    from matplotlib.textpath import TextPath
    from matplotlib.transforms import Affine2D

    if renderer is None or not _plain_text(t):
        return None
    layout, ext = _layout_lines(t, renderer), _drawn_extent(t, renderer)
    if layout is None or ext is None:
        return None
    bbox, info = layout
    prop = t.get_fontproperties()
    k = renderer.points_to_pixels(1.0)
    c0 = ((ext.x0 + ext.x1) / 2.0, (ext.y0 + ext.y1) / 2.0)
    paths = []
    try:
        for item in info:
            line = item[0]
            x, y = (item[2], item[3]) if len(item) == 4 else item[-1]
            if not line.strip():
                continue
            tr = Affine2D().scale(k).translate(x - (bbox.x0 + bbox.width / 2.0),
                                                y - (bbox.y0 + bbox.height / 2.0))
            tr = tr.rotate(theta).translate(*c0)
            tp = TextPath((0, 0), line, size=prop.get_size_in_points(), prop=prop)
            paths.append(tr.transform_path(tp))
    except Exception:
        return None
    return _MplPath.make_compound_path(*paths) if paths else None


def _plain_text(t: Any) -> bool:
    """A Text drawn as its glyphs only: no box behind it, no stroke or shadow effects."""
    from matplotlib.text import Text

    if not isinstance(t, Text) or t.get_path_effects():
        return False
    patch = t.get_bbox_patch()
    return patch is None or not patch.get_visible()


def _exempt(g: _Gate, sh: _Shape, d: _Data, own: tuple[_Data, int] | None) -> bool:
    """Pairs that never collide: data hidden, 3-D labels on panes, edges under a node."""
    if d.background or not _touch(sh.aabb, _grow(d.bbox, d.halfw)):
        return True
    if sh.is3d and sh.ref.role.endswith(("label", "ticklabel")):
        return True  # 3-D axis labels sit on the panes by design
    if _occluded(sh, d, g.axes_list):
        return True
    # a node label inside its opaque node disk: edges run under the disk
    return own is not None and own[0] is not d and d.kind == "line" and \
        _zorder(d.artist) <= _zorder(own[0].artist)


def _in_own_region(g: _Gate, sh: _Shape, d: _Data, area: float) -> bool:
    """The label lies wholly inside the region and one of its anchors is in it."""
    if not sh.own_ok:
        return False
    whole = _region_overlap(sh, [sh.corners()], g.tol_px / 2.0)[0]
    return area >= whole - max(g.area_px, 0.02 * sh.area) and \
        any(_contains(d.polys, a, g.tol_px) for a in sh.anchors)


def _text_over_text(g: _Gate, texts: list[_Shape]) -> None:
    """Text against text, anywhere in the figure (candidates pruned by box)."""
    shrink = g.tol_px / 2.0
    boxes = np.array([s.aabb for s in texts]) if texts else np.zeros((0, 4))
    for ia in range(len(texts) - 1):
        a = texts[ia]
        rest = boxes[ia + 1:]
        cand = np.nonzero((rest[:, 0] < a.aabb[2]) & (rest[:, 2] > a.aabb[0]) &
                          (rest[:, 1] < a.aabb[3]) & (rest[:, 3] > a.aabb[1]))[0]
        for j in cand:
            b = texts[ia + 1 + j]
            if _text_pair_exempt(a, b):
                continue
            r = _text_text(a, b, shrink)
            if r is not None and r[0] > g.area_px:
                g.hit("text-over-text", a.ref, b.ref, r[0], r[1], box=a.aabb,
                      ids=(min(id(a.artist), id(b.artist)), max(id(a.artist), id(b.artist))))


def _text_pair_exempt(a: _Shape, b: _Shape) -> bool:
    if b.artist is a.artist or (a.is3d and b.is3d and a.axes is b.axes and
                                not _axis_label_pair(a, b)):
        return True
    if a.ref.role == "box" and b.ref.role == "box":
        return True  # two anchored boxes: their frames are mostly empty padding
    return _same_text(a, b)  # the same words drawn twice in one place read as one


def _outside(box: tuple[float, ...], frame: tuple[float, ...], tol: float) -> bool:
    return (box[0] < frame[0] - tol or box[1] < frame[1] - tol or box[2] > frame[2] + tol or
            box[3] > frame[3] + tol)


def _cut_area(box: tuple[float, ...], frame: tuple[float, ...]) -> tuple[float, bool]:
    """The area of `box` outside `frame`, and whether none of it is inside."""
    inside = _inter(box, frame)
    full = (box[2] - box[0]) * (box[3] - box[1])
    kept = 0.0 if inside is None else (inside[2] - inside[0]) * (inside[3] - inside[1])
    return full - kept, inside is None


def _clipping(g: _Gate, texts: list[_Shape], canvas: tuple[float, float, float, float]) -> None:
    """Texts cut by the canvas (or the tight box a tight save keeps) or by their clip box."""
    fig_ref = ArtistRef("Figure", "figure edge", "", -1)
    for sh in texts:
        box = sh.aabb
        corners = [[box[0], box[1]], [box[2], box[3]]]
        cut, gone = _cut_area(box, canvas)
        if _outside(box, canvas, g.tol_px) and cut > g.area_px:
            if gone and sh.ref.role.endswith("ticklabel"):
                continue  # ticks of an axes that fills the canvas: not drawn, not cut
            g.hit("clipped-by-figure", sh.ref, fig_ref, cut, corners,
                  "entirely outside the canvas" if gone else "cut by the edge",
                  ids=(id(sh.artist), 0))
            continue
        clip = _clip_rect(sh.artist) if hasattr(sh.artist, "get_clip_on") else None
        if clip is None or sh.ref.role not in ("text", "annotation", "figure text"):
            continue
        cut, _ = _cut_area(box, clip)
        if _outside(box, clip, g.tol_px) and cut > g.area_px:
            g.hit("clipped-by-axes", sh.ref, ArtistRef("Bbox", "clip box", "", sh.ref.axes),
                  cut, corners, ids=(id(sh.artist), 0))


def _glyphs(g: _Gate, fig: Any, renderer: Any, texts: list[_Shape]) -> None:
    for sh, fonts, missing in _missing_glyphs(texts + _legend_texts(fig, renderer,
                                                                     g.axes_list)):
        x0, y0, x1, y1 = sh.aabb
        g.hit("missing-glyph", sh.ref, ArtistRef("Font", "font", fonts, sh.ref.axes), sh.area,
              [[x0, y0], [x1, y1]], f"no glyph for {missing!r} in {fonts}; drawn as empty boxes"
              + _font_advice(sh.artist, missing), ids=(id(sh.artist), 1))


_CHARMAPS: dict[str, frozenset[int]] = {}


def _legend_texts(fig: Any, renderer: Any, axes_list: list[Any]) -> list[_Shape]:
    """Legend entries and titles as texts (a legend is measured as one box, but its
    words can lack glyphs like any other text)."""
    out = []
    for i, ax, leg in _legends(fig, axes_list):
        for t in [*leg.get_texts(), leg.get_title()]:
            sh = _text_shape(t, renderer, ArtistRef("Text", "legend text", str(t.get_text()), i),
                             ax)
            if sh is not None:
                out.append(sh)
    return out


def _charmap(path: str) -> frozenset[int]:
    """The code points a font file has glyphs for (cached; empty when unreadable)."""
    from matplotlib import font_manager

    cm = _CHARMAPS.get(path)
    if cm is None:
        try:
            cm = frozenset(font_manager.get_font(path).get_charmap())
        except Exception:
            cm = frozenset()
        _CHARMAPS[path] = cm
    return cm


def _requested_fonts(t: Any) -> tuple[str, list[str]]:
    """The rcParams key that names the text's fonts, and every font it asks for."""
    from matplotlib import rcParams

    fams = list(t.get_fontproperties().get_family())
    key = f"font.{fams[0]}" if fams and fams[0] in _GENERIC else "font.family"
    wanted = []
    for fam in fams:
        wanted += list(rcParams.get(f"font.{fam}", [])) if fam in _GENERIC else [fam]
    return key, wanted


_GENERIC = ("sans-serif", "serif", "monospace", "cursive", "fantasy")


def _font_advice(t: Any, missing: str) -> str:
    """Which requested fonts are not installed and which installed font has the glyphs.

    Contest code asks for SimHei or Microsoft YaHei; where those are absent
    matplotlib falls back to DejaVu Sans and draws boxes although a CJK font may
    be installed under another name.
    """
    from matplotlib import font_manager

    try:
        key, wanted = _requested_fonts(t)
        installed = {f.name for f in font_manager.fontManager.ttflist}
        absent = [w for w in dict.fromkeys(wanted) if w not in installed and w not in _GENERIC]
        have: list[str] = []
        for f in font_manager.fontManager.ttflist:
            # Last Resort "has" every glyph as a placeholder box
            if f.name not in have and not f.name.startswith("Last Resort") and \
                    all(ord(c) in _charmap(f.fname) for c in missing):
                have.append(f.name)
    except Exception:
        return ""
    out = ""
    if absent:
        out += f"; {', '.join(absent[:3])} {'is' if len(absent) == 1 else 'are'} not installed"
    if have:
        return out + (f"; installed font(s) with these glyphs: {', '.join(have[:3])}; name one "
                      f"first: plt.rcParams[{key!r}] = [{have[0]!r}] + plt.rcParams[{key!r}]")
    return out + ("; no installed font has these glyphs: install one (e.g. Noto Sans CJK or "
                  "WenQuanYi Micro Hei) and name it in rcParams")


def _font_paths(t: Any) -> list[str] | None:
    """The font files matplotlib falls back through for this text."""
    from matplotlib import font_manager

    try:
        return list(font_manager.fontManager._find_fonts_by_props(t.get_fontproperties()))
    except Exception:
        try:
            return [font_manager.findfont(t.get_fontproperties())]
        except Exception:
            return None


def _missing_glyphs(texts: list[_Shape]) -> list[tuple[_Shape, str, str]]:
    """Texts with characters that no font in their fallback list can draw."""
    from matplotlib.text import Text

    out = []
    for sh in texts:
        t = sh.artist
        s = t.get_text() if isinstance(t, Text) else ""
        if not s or s.isascii() or (t.get_usetex() or s.count("$") >= 2):
            continue
        paths = _font_paths(t)
        if paths is None:
            continue
        have: set[int] = set()
        for p in paths:
            have |= _charmap(p)
        missing = "".join(dict.fromkeys(c for c in s if not c.isspace() and ord(c) >= 32 and
                                        ord(c) not in have))
        if missing:
            names = ", ".join(dict.fromkeys(str(p).rsplit("/", 1)[-1] for p in paths))
            out.append((sh, names, missing[:20]))
    return out


def _annotation_arrows(fig: Any, renderer: Any, axes_list: list[Any], ignored: set[int]
                       ) -> list[tuple[int, Any, Any, str, list[np.ndarray]]]:
    """(axes index, arrow patch, annotation, label, [tip]) of each drawn annotation arrow."""
    from matplotlib.text import Annotation

    anns = [(i, t) for i, ax in enumerate(axes_list) if ax.get_visible() for t in ax.texts]
    anns += [(-1, t) for sub in _figures(fig) for t in sub.texts]
    out = []
    for i, ann in anns:
        if not isinstance(ann, Annotation) or not _drawn_arrow(ann, ignored):
            continue
        tip = _arrow_tip(ann, renderer)
        if tip is not None:
            out.append((i, ann.arrow_patch, ann, str(ann.get_text()), [tip]))
    return out


def _drawn_arrow(ann: Any, ignored: set[int]) -> bool:
    ap = ann.arrow_patch
    return ap is not None and _visible(ann) and _visible(ap) and id(ann) not in ignored


def _arrow_tip(ann: Any, renderer: Any) -> np.ndarray | None:
    """Where an annotation points, in display pixels (None: its xy is clipped away)."""
    try:
        if not ann._check_xy(renderer):
            return None
        return np.asarray(ann._get_xy_transform(renderer, ann.xycoords).transform(ann.xy),
                          dtype=float)
    except Exception:
        return None


def _free_arrows(fig: Any, axes_list: list[Any], ignored: set[int]
                 ) -> list[tuple[int, Any, Any, str, list[np.ndarray]]]:
    """Free-standing arrows (FancyArrowPatch, ConnectionPatch); their ends come later."""
    from matplotlib.patches import FancyArrowPatch

    loose = [(i, p) for i, ax in enumerate(axes_list) if ax.get_visible() for p in ax.patches]
    loose += [(-1, p) for sub in _figures(fig)
              for p in [*getattr(sub, "patches", []), *getattr(sub, "artists", [])]]
    return [(i, ap, None, _label_of(ap), []) for i, ap in loose
            if isinstance(ap, FancyArrowPatch) and _visible(ap) and id(ap) not in ignored]


def _arrow_body(ap: Any, tips: list[np.ndarray], px: float
                ) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """The arrow's segments without the stretch near each end, which touches its target
    by design; and its ends (a free arrow's two ends, an annotation's tip)."""
    try:
        polys = _polylines(ap.get_transform().transform_path(ap.get_path()))
    except Exception:
        return None
    segs = _segments(polys)
    if not len(segs):
        return None
    if not tips:  # a free arrow: both its ends meet what it connects
        tips = [polys[0][0], _far_end(polys)]
    if not all(np.isfinite(t).all() for t in tips):
        return None
    length = float(np.hypot(*(segs[:, 1] - segs[:, 0]).T).sum())
    keep_out = max(12.0 * px, 0.15 * length / len(tips))
    for tip in tips:
        segs = segs[np.hypot(*(segs.mean(axis=1) - tip).T) > keep_out]
    return (segs, tips) if len(segs) else None


def _arrows(fig: Any, renderer: Any, texts: list[_Shape], data: list[_Data], g: _Gate,
            ignored: set[int]) -> None:
    """Annotation arrows and free-standing arrows (FancyArrowPatch, ConnectionPatch)
    crossing texts or lines away from their ends."""
    px = _ptp(fig.dpi)
    arrows = _annotation_arrows(fig, renderer, g.axes_list, ignored)
    arrows += _free_arrows(fig, g.axes_list, ignored)
    for i, ap, ann, label, tips in arrows:
        body = _arrow_body(ap, tips, px)
        if body is None:
            continue
        segs = body[0]
        owner = ann if ann is not None else ap
        ref = ArtistRef("FancyArrowPatch", "arrow", label, i)
        _arrow_over_text(g, ref, owner, ann, segs, texts)
        _arrow_over_lines(g, ref, owner, segs, data)


def _arrow_over_text(g: _Gate, ref: ArtistRef, owner: Any, ann: Any, segs: np.ndarray,
                     texts: list[_Shape]) -> None:
    own = next((s for s in texts if s.artist is ann), None) if ann is not None else None
    for sh in texts:
        if sh.artist is ann or (own is not None and _inter(own.aabb, sh.aabb)):
            continue
        r = _seg_hits(sh, segs, g.tol_px)
        if r is not None and r[0] * 1.0 > g.tol_px:
            g.hit("arrow-over-text", ref, sh.ref, r[0], r[1], ids=(id(owner), id(sh.artist)))


def _arrow_over_lines(g: _Gate, ref: ArtistRef, owner: Any, segs: np.ndarray,
                      data: list[_Data]) -> None:
    abox = _seg_bbox(segs)
    for d in data:
        if d.kind != "line" or d.background or not _touch(abox, _grow(d.bbox, d.halfw)):
            continue
        assert d.segs is not None
        pts = _seg_cross(segs, d.segs)
        if pts is not None:
            g.hit("arrow-over-data", ref, d.ref, float(len(pts)), pts,
                  f"the arrow crosses it {len(pts)} time(s)", ids=(id(owner), id(d.artist)))


def _far_end(polys: list[np.ndarray]) -> np.ndarray:
    """The vertex farthest from the arrow's start: its head."""
    allv = np.concatenate(polys)
    return allv[int(np.argmax(np.hypot(*(allv - polys[0][0]).T)))]


def _seg_cross(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """Proper crossing points between two segment sets (vectorised, AABB-pruned)."""
    ax0 = np.minimum(a[:, 0, 0], a[:, 1, 0]).min()
    ax1 = np.maximum(a[:, 0, 0], a[:, 1, 0]).max()
    ay0 = np.minimum(a[:, 0, 1], a[:, 1, 1]).min()
    ay1 = np.maximum(a[:, 0, 1], a[:, 1, 1]).max()
    bx0 = np.minimum(b[:, 0, 0], b[:, 1, 0])
    bx1 = np.maximum(b[:, 0, 0], b[:, 1, 0])
    by0 = np.minimum(b[:, 0, 1], b[:, 1, 1])
    by1 = np.maximum(b[:, 0, 1], b[:, 1, 1])
    b = b[(bx1 >= ax0) & (bx0 <= ax1) & (by1 >= ay0) & (by0 <= ay1)]
    if not len(b) or not len(a):
        return None
    p, r = a[:, None, 0], (a[:, 1] - a[:, 0])[:, None]
    q, s = b[None, :, 0], (b[:, 1] - b[:, 0])[None]
    den = r[..., 0] * s[..., 1] - r[..., 1] * s[..., 0]
    qp = q - p
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (qp[..., 0] * s[..., 1] - qp[..., 1] * s[..., 0]) / den
        u = (qp[..., 0] * r[..., 1] - qp[..., 1] * r[..., 0]) / den
    ok = (den != 0) & (t > 0) & (t < 1) & (u > 0) & (u < 1)
    if not ok.any():
        return None
    ii, jj = np.nonzero(ok)
    return p[ii, 0] + t[ii, jj][:, None] * r[ii, 0]


def format_collisions(collisions: list[Collision]) -> str:
    lines = [f"figqa: {len(collisions)} figure collision(s) detected:"]
    lines += [f"  - {c}" for c in collisions]
    return "\n".join(lines)


def assert_no_overlap(fig: Any, **tolerances: Any) -> None:
    """Raise FigqaError (an AssertionError) listing every collision; silent when clean."""
    found = find_collisions(fig, **tolerances)
    if found:
        raise FigqaError(format_collisions(found), found)


# --------------------------------------------------------------------------- self-test

def _new_fig(w: float = 6.4, h: float = 4.8, dpi: float = 100) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(figsize=(w, h), dpi=dpi)
    FigureCanvasAgg(fig)
    return fig


def _case_axes(ylim: tuple[float, float] = (0, 10)) -> tuple[Any, Any]:
    fig = _new_fig()
    ax = fig.add_subplot()
    ax.set_xlim(0, 10)
    ax.set_ylim(*ylim)
    return fig, ax


def _st_axvline_through_label() -> Any:
    fig, ax = _case_axes()
    ax.axvline(5)
    ax.text(5, 5, "threshold", ha="center", va="center")
    return fig


def _st_diagonal_near_label() -> Any:
    fig, ax = _case_axes()
    ax.plot([0, 10], [0, 10])
    ax.text(1, 8, "upper-left label")
    return fig


def _st_marker_only_between() -> Any:
    fig, ax = _case_axes()
    ax.plot([1, 9], [1, 9], "o", linestyle="None")
    ax.text(5, 5, "between", ha="center", va="center")
    return fig


def _st_marker_under_label() -> Any:
    fig, ax = _case_axes()
    ax.plot([5], [5], "o", markersize=8)
    ax.text(5, 5, "covered", ha="center", va="center")
    return fig


def _st_leading_blanks_beside_marker() -> Any:
    fig, ax = _case_axes()
    ax.plot([5], [5], "o", markersize=8)
    ax.text(5, 5, "    beside", va="center")  # the blanks are over the marker, no ink
    return fig


def _st_nan_gap() -> Any:
    fig, ax = _case_axes((-1, 1))
    ax.plot([0, 3, float("nan"), 7, 10], [0, 0, float("nan"), 0, 0])
    ax.text(5, 0, "gap", ha="center", va="center")
    return fig


def _st_own_bar() -> Any:
    fig = _new_fig()
    ax = fig.add_subplot()
    bars = ax.bar([0, 1, 2], [5, 7, 9], color="0.8")
    ax.set_ylim(0, 11)
    ax.bar_label(bars, label_type="center")
    return fig


def _st_foreign_bar() -> Any:
    fig = _new_fig()
    ax = fig.add_subplot()
    ax.bar([0, 1], [9, 9], width=0.9, color="0.8")
    ax.set_ylim(0, 11)
    ax.annotate("A=9", xy=(0, 9), xytext=(1, 5), ha="center", va="center")
    return fig


def _st_legend_over_title() -> Any:
    fig = _new_fig()
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 0], label="series")
    ax.set_title("A title")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 0.99))
    return fig


def _st_clipped_text() -> Any:
    fig = _new_fig()
    ax = fig.add_subplot()
    ax.text(0.98, 0.5, "falls off the right edge", transform=fig.transFigure)
    return fig


def _st_clean() -> Any:
    fig = _new_fig()
    ax = fig.add_subplot()
    bars = ax.bar([0, 1, 2], [4, 6, 8], label="values")
    ax.set_ylim(0, 11)
    ax.bar_label(bars, label_type="center")
    ax.legend(loc="upper left")
    ax.set_title("Clean")
    ax.set_xlabel("x")
    return fig


def _self_test_cases() -> list[tuple[str, Any, str | None]]:
    """(name, builder, expected kind or None for "no collision")."""
    return [
        ("axvline through a label", _st_axvline_through_label, "text-over-line"),
        ("diagonal line near but not through a label", _st_diagonal_near_label, None),
        ("marker-only series with a label between markers", _st_marker_only_between, None),
        ("marker under a label", _st_marker_under_label, "text-over-marker"),
        ("leading blanks of a label over a marker", _st_leading_blanks_beside_marker, None),
        ("label in a NaN gap", _st_nan_gap, None),
        ("labels inside their own bars", _st_own_bar, None),
        ("label on a foreign bar", _st_foreign_bar, "text-over-patch"),
        ("legend over the title", _st_legend_over_title, "text-over-text"),
        ("text cut by the figure edge", _st_clipped_text, "clipped-by-figure"),
        ("clean figure", _st_clean, None),
    ]


def self_test(stream: Any = None) -> bool:
    """Run the built-in cases; print one line per case; True when all pass."""
    stream = sys.stdout if stream is None else stream
    ok_all = True
    for name, build, expect in _self_test_cases():
        try:
            got = find_collisions(build())
        except Exception as exc:  # report, do not crash the self-test
            stream.write(f"FAIL  {name}: {type(exc).__name__}: {exc}\n")
            ok_all = False
            continue
        kinds = sorted({c.kind for c in got})
        ok = (not got) if expect is None else (expect in kinds)
        ok_all &= ok
        want = "no collision" if expect is None else expect
        stream.write(f"{'ok  ' if ok else 'FAIL'}  {name}: expected {want}, got "
                     f"{', '.join(kinds) or 'none'}\n")
    stream.write(f"figqa self-test: {'passed' if ok_all else 'FAILED'}\n")
    return ok_all


_USAGE = """usage: figqa.py --self-test

Import-only by design: call assert_no_overlap(fig) from your figure factory and
run_all.py (from figqa import assert_no_overlap).  --self-test proves the gate
works (exit 0 pass, 1 fail).  To gate whole scripts use `gavel award figqa run`.
"""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if "--self-test" in args:
        return 0 if self_test() else 1  # Figure + Agg canvas: no GUI backend involved
    if any(a in ("-h", "--help") for a in args):
        sys.stdout.write(_USAGE)
        return 0
    if args:
        sys.stderr.write(f"figqa: unknown argument(s): {' '.join(args)}\n{_USAGE}")
        return 2
    sys.stderr.write(_USAGE)
    return 2  # a bare call must not read as a pass in `&&` chains


if __name__ == "__main__":
    sys.exit(main())
