"""The task and fleet reports' charts (matplotlib SVG): layer rates, the coverage heat
map, failure clusters and the fleet overview."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gavelkit.core import htmlreport as hr
from gavelkit.task.judging.report_data import LAYERS

MATRIX_MAX_TESTS = 120
LAYER_COLORS = {"atomic": "#1565c0", "integration": "#6a1b9a", "system_e2e": "#00838f"}
LAYER_NAMES = {"atomic": "blue", "integration": "purple", "system_e2e": "teal"}


@hr.styled
def layer_chart(d: dict[str, Any]) -> Any:
    layers = [k for k in d["layers"] if d["layers"][k]["rate"] is not None]
    fig = hr.figure(6.5, 2.9)
    ax = fig.subplots()
    rates = [100 * d["layers"][k]["rate"] for k in layers]
    colors = ["#1565c0", "#6a1b9a", "#00838f", "#607d8b"]
    ax.bar(layers, rates, color=[colors[i % 4] for i in range(len(layers))], width=0.6)
    for i, k in enumerate(layers):
        c = d["layers"][k]
        ax.text(i, rates[i] + 1.5, f"{100 * c['rate']:.0f}% ({c.get('passed', 0)}/"
                f"{c.get('total', 0) - c.get('skipped', 0)})", ha="center", fontsize=8)
    g = d["gap"]
    _rate_lines(ax, g, d["reference"]["pass_rate"])
    ax.set_ylim(0, 112)
    ax.set_ylabel("pass rate (%)")
    gap = g["rate_gap"]
    ax.set_title("Candidate pass rate per layer" + (f"; rate gap {gap:+.2f}" if gap is not None
                                                     else ""), fontsize=9, loc="left")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    return hr.svg(fig, "layer pass rates")


def _rate_lines(ax: Any, g: dict[str, Any], reference: float | None) -> None:
    """The atomic, integration+e2e and reference rates as horizontal lines."""
    for rate, style, label in (
            (g["atomic_rate"], dict(color="#1565c0", linestyle=":"), "atomic"),
            (g["integration_e2e_rate"], dict(color="#c62828", linestyle="--"), "integration+e2e"),
            (reference, dict(color="#2e7d32"), "reference")):
        if rate is not None:
            ax.axhline(100 * rate, linewidth=1, label=f"{label} {100 * rate:.0f}%", **style)


def _short(nodeid: str) -> str:
    name = nodeid.split("::")[-1]
    return name if len(name) <= 38 else name[:36] + "…"


@dataclass(frozen=True, slots=True)
class _Grid:
    """What the heat map shows: one row per section, one column per test or per layer."""

    matrix: Any  # numpy array, rows = sections
    col_labels: list[str]
    title: str
    by_test: bool


@dataclass(frozen=True, slots=True)
class _Margins:
    """Figure size and margins in inches, from the label lengths."""

    width: float
    height: float
    left: float
    right: float
    bottom: float
    top: float


def _grid(cov: dict[str, Any]) -> _Grid:
    tests = cov["tests"]
    if len(tests) <= MATRIX_MAX_TESTS and tests:
        return _test_grid(cov["sections"], [t["nodeid"] for t in tests])
    return _layer_grid(cov["sections"], len(tests))


def _test_grid(secs: list[dict[str, Any]], cols: list[str]) -> _Grid:
    import numpy as np

    m = np.array([[1.0 if t in s["tests"] else 0.0 for t in cols] for s in secs])
    return _Grid(m, [_short(t) for t in cols],
                 "Spec sections × covered tests (★ core section; grey row = uncovered)", True)


def _layer_grid(secs: list[dict[str, Any]], n_tests: int) -> _Grid:
    import numpy as np

    layers = [ly for ly in LAYERS if any(ly in s["by_layer"] for s in secs)] or list(LAYERS)
    m = np.array([[float(s["by_layer"].get(ly, 0)) for ly in layers] for s in secs])
    return _Grid(m, layers, f"Spec sections × covered tests per layer ({n_tests} tests; ★ "
                 "core section; grey row = uncovered)", False)


def _margins(labels: list[str], grid: _Grid, rows: int) -> _Margins:
    # 7 pt text is about 0.055 in per char
    left = 0.35 + 0.055 * max((len(x) for x in labels), default=10)
    cols = grid.col_labels
    bottom = (0.3 + 0.045 * max((len(x) for x in cols), default=8)) if grid.by_test else 0.5
    top = 0.55
    per_col = 0.13 if len(cols) > 40 else 0.3
    plot_w = min(per_col * len(cols), 12.0) if grid.by_test else 4.5
    right = 0.3 if grid.by_test else 1.3
    width = max(left + plot_w + right, 8.0)
    return _Margins(width, 0.2 * rows + bottom + top, left, right, bottom, top)


def _mark_uncovered(ax: Any, secs: list[dict[str, Any]]) -> None:
    for i, s in enumerate(secs):
        if s["status"] == "uncovered":
            ax.axhspan(i - 0.5, i + 0.5, color="#cfd4db", zorder=0)
            ax.text(-0.5, i, " uncovered", va="center", fontsize=7, color="#c62828")


def _count_labels(fig: Any, ax: Any, im: Any, m: Any, mg: _Margins) -> None:
    """Per-layer counts written in their cells, and the colour bar."""
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j]:
                ax.text(j, i, f"{int(m[i, j])}", ha="center", va="center", fontsize=7,
                        color="white" if m[i, j] > m.max() / 2 else "#1d2330")
    cax = fig.add_axes((1 - 1.0 / mg.width, mg.bottom / mg.height, 0.15 / mg.width,
                        0.6 * (1 - (mg.top + mg.bottom) / mg.height)))
    fig.colorbar(im, cax=cax, label="covered tests")


def _ticks(ax: Any, labels: list[str], secs: list[dict[str, Any]], grid: _Grid,
           tests: list[dict[str, Any]]) -> str:
    """Row and column tick labels; returns the title with the layer colour key if any."""
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    for tick, s in zip(ax.get_yticklabels(), secs, strict=False):
        if s["core"]:
            tick.set_color("#c62828")
            tick.set_fontweight("bold")
    ax.set_xticks(range(len(grid.col_labels)), grid.col_labels,
                  rotation=90 if grid.by_test else 0, fontsize=6 if grid.by_test else 8)
    if not grid.by_test:
        return grid.title
    for tick, t in zip(ax.get_xticklabels(), tests, strict=False):
        tick.set_color(LAYER_COLORS.get(t["layer"], "#555"))
    return grid.title + "; test names coloured by layer: " + ", ".join(
        f"{k} = {v}" for k, v in LAYER_NAMES.items())


@hr.styled
def heatmap(cov: dict[str, Any]) -> Any:
    """Sections × covered tests (small oracles) or sections × layer counts."""
    import numpy as np
    from matplotlib import colormaps

    secs = cov["sections"]
    labels = [("★ " if s["core"] else "") + s["section"].lstrip("#").strip()[:48]
              + (" (exempt)" if s["status"] == "exempt" else "") for s in secs]
    grid = _grid(cov)
    rows = max(len(secs), 1)
    mg = _margins(labels, grid, rows)
    fig = hr.figure(mg.width, mg.height, layout=None)
    fig.subplots_adjust(left=mg.left / mg.width, right=1 - mg.right / mg.width,
                        bottom=mg.bottom / mg.height, top=1 - mg.top / mg.height)
    ax = fig.subplots()
    m = grid.matrix if grid.matrix.size else np.zeros((rows, 1))
    cmap = colormaps["Blues"].with_extremes(bad="#f1f3f6")
    im = ax.imshow(np.ma.masked_where(m == 0, m), aspect="auto", cmap=cmap,
                   interpolation="nearest", vmin=0, vmax=max(float(m.max()), 1.0))
    _mark_uncovered(ax, secs)
    if not grid.by_test:
        _count_labels(fig, ax, im, m, mg)
    title = _ticks(ax, labels, secs, grid, cov["tests"])
    fig.suptitle(title, fontsize=9, x=0.01, ha="left", y=1 - 0.1 / mg.height, va="top")
    return hr.svg(fig, "spec coverage heat map")


@hr.styled
def cluster_chart(clusters: list[dict[str, Any]]) -> Any:
    top = clusters[:12]
    fig = hr.figure(7.5, 0.3 * len(top) + 1.0)
    ax = fig.subplots()
    left = [0] * len(top)
    for k, layer in enumerate((*LAYERS, "?")):
        vals = [c["layers"].get(layer, 0) for c in top]
        if any(vals):
            ax.barh(range(len(top)), vals, left=left, label=layer,
                    color=("#1565c0", "#6a1b9a", "#00838f", "#9e9e9e")[k])
            left = [a + b for a, b in zip(left, vals, strict=True)]
    ax.set_yticks(range(len(top)), [f"#{i + 1}" for i in range(len(top))])
    ax.invert_yaxis()
    ax.set_xlabel("failing tests")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title("Failure clusters by crash signature (see the table for the root cause)",
                 fontsize=9, loc="left")
    ax.legend(fontsize=7, frameon=False, loc="lower right")
    return hr.svg(fig, "failure clusters")


# ----------------------------------------------------------------------------- build

@hr.styled
def fleet_chart(rows: list[dict[str, Any]]) -> Any:
    pts = [r for r in rows if r["gap"] is not None]
    pts.sort(key=lambda r: r["gap"])
    fig = hr.figure(7.5, 0.28 * len(pts) + 1.0)
    ax = fig.subplots()
    ax.barh([r["id"] for r in pts], [r["gap"] for r in pts],
            color=["#c62828" if r["gap"] > 0 else "#2e7d32" for r in pts])
    ax.axvline(0, color="#111", linewidth=0.8)
    ax.set_xlabel("rate gap (atomic − integration+e2e)")
    ax.set_title("Rate gap per task", fontsize=9, loc="left")
    ax.tick_params(axis="y", labelsize=7)
    return hr.svg(fig, "rate gap per task")


