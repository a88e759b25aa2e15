"""Self-contained HTML reports: Jinja2 templates, matplotlib charts as inline SVG.

A report is one file a person opens from disk: no server, no network, no external
URL (no CDN script, font or image). Charts are drawn by matplotlib (object API, no
pyplot global state) and embedded as inline SVG with text kept as text, so a chart is
searchable and scales; raster images (the PDF contact sheet) are embedded as data URIs.
Output is deterministic (fixed SVG id salt, no timestamps in the SVG) so two runs over
the same files give the same bytes. Jinja2 autoescapes every value; only our own SVG
and data URIs are marked safe. A template that reads a value the data does not hold fails
(StrictUndefined) instead of printing a blank: data that is legitimately optional is asked
for explicitly (`x.get("key")`, `|default(...)`, `is defined`).
"""

from __future__ import annotations

import base64
import functools
import io
import re
from typing import Any

SEVERITY_ORDER = ("blocker", "high", "medium", "low", "info")
COLORS = {"pass": "#2e7d32", "fail": "#c62828", "warn": "#ef6c00", "none": "#9e9e9e",
          "seat": ("#1565c0", "#6a1b9a", "#00838f", "#ad1457")}


@functools.cache
def _env() -> Any:
    import jinja2

    from gavelkit.data import path

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(path("templates"))),
                             autoescape=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["pct"] = pct
    env.filters["num"] = num
    return env


def render(template: str, **ctx: Any) -> str:
    return _env().get_template(template).render(**ctx)


def safe(html: str) -> Any:
    import markupsafe

    return markupsafe.Markup(html)


def pct(v: Any) -> str:
    if v is None or isinstance(v, bool) or not isinstance(v, int | float):
        return "n/a"
    return f"{100.0 * v:.1f}%"


def num(v: Any) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:.1f}".rstrip("0").rstrip(".") if abs(v - round(v)) > 1e-9 else str(round(v))
    return str(v)


def figure(width: float, height: float, layout: str | None = "constrained") -> Any:
    """A matplotlib Figure not registered with pyplot (no global state, any thread).

    Big charts pass layout=None and set their margins by hand: constrained layout
    draws the figure several times, which doubles the cost of a large heat map.
    """
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout=layout)


_RC = {"svg.fonttype": "none", "svg.hashsalt": "gavelkit", "font.size": 9,
       "font.family": "sans-serif", "axes.spines.top": False, "axes.spines.right": False}


def svg(fig: Any, title: str = "") -> Any:
    """The figure as an inline <svg> element (marked safe for the template)."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context(_RC):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    start = text.find("<svg")
    text = text[start:] if start >= 0 else text
    # the RDF metadata block only names the generator; it adds bytes and URL-like noise
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, count=1, flags=re.S)
    text = re.sub(r"<svg ", f'<svg role="img" aria-label="{_attr(title)}" ', text, count=1)
    return safe(f'<div class="chart">{text}</div>')


def styled(fn: Any) -> Any:
    """Run a chart builder under our rc settings (fonts, spines) so text sizes agree."""
    import matplotlib

    @functools.wraps(fn)
    def wrapper(*a: Any, **kw: Any) -> Any:
        with matplotlib.rc_context(_RC):
            return fn(*a, **kw)

    return wrapper


def png_data_uri(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def _attr(text: str) -> str:
    import html

    return html.escape(text, quote=True)


def write(path: str, html: str) -> None:
    from gavelkit.core.textio import atomic_write

    atomic_write(path, html)


def severity_rank(sev: str) -> int:
    s = (sev or "").lower()
    return SEVERITY_ORDER.index(s) if s in SEVERITY_ORDER else len(SEVERITY_ORDER)
