"""figqa on the shapes real contest figures take (issue 18): each miss caught, each
false alarm gone.  Small figures of our own that imitate what the real scripts drew."""

from __future__ import annotations

import shutil

import pytest

import gk_testing

matplotlib = pytest.importorskip("matplotlib")
np = pytest.importorskip("numpy")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import FancyArrowPatch  # noqa: E402

from gavelkit.award.figures import figqa  # noqa: E402
from gavelkit.cli.award_figures import figure_findings  # noqa: E402


def new_fig(w: float = 6.4, h: float = 4.8, dpi: float = 100, **kw) -> Figure:
    fig = Figure(figsize=(w, h), dpi=dpi, **kw)
    FigureCanvasAgg(fig)
    return fig


def F(fig, **kw):
    return figure_findings(fig, path="fig.py", **kw)


def kinds(fig) -> list[str]:
    return [c.kind for c in figqa.find_collisions(fig)]


# ------------------------------------------------------- suptitle and subplot spacing

def test_suptitle_pushed_onto_axes_title_fires():
    fig = new_fig(6, 4)
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1])
    ax.set_title("Axes title here")
    fig.suptitle("Figure suptitle pushed down", y=0.92)
    gk_testing.fires(F(fig), "FIG-T001")


def test_subplots_too_close_fire_into_the_panel_below():
    # hspace too small: the upper panel's tick labels and x label lie on the panel below
    fig = new_fig(5, 4)
    axs = fig.subplots(2, 1)
    for a in axs:
        a.plot(np.arange(10), np.arange(10))
        a.set_title("Subplot title")
        a.set_xlabel("x label")
    fig.subplots_adjust(hspace=0.05)
    f = gk_testing.fires(F(fig), "FIG-T002")
    assert "too little space between subplots" in f.message
    labels = {c.a.role for c in figqa.find_collisions(fig) if c.kind == "text-over-axes"}
    assert {"xlabel", "xticklabel"} <= labels


def test_well_spaced_subplots_insets_twins_and_colorbars_are_clean():
    fig = new_fig(6, 5, layout="constrained")
    axs = fig.subplots(2, 2)
    for a in axs.flat:
        a.plot(np.arange(10), np.arange(10))
        a.set_title("Subplot title")
        a.set_xlabel("x label")
        a.set_ylabel("y label")
    ins = axs[0, 0].inset_axes([0.55, 0.1, 0.4, 0.35])
    ins.plot([0, 1], [1, 0])
    tw = axs[0, 1].twinx()
    tw.set_ylabel("twin y")
    im = axs[1, 0].imshow(np.arange(16).reshape(4, 4))
    fig.colorbar(im, ax=axs[1, 0], label="value")
    gk_testing.clean(F(fig), "FIG-T002")


# ------------------------------------------------------- text on a fill_between band

def test_text_on_a_translucent_band_fires_opaque_stack_label_is_clean():
    fig = new_fig()
    ax = fig.add_subplot()
    x = np.linspace(0, 10, 100)
    ax.fill_between(x, np.sin(x) - 1, np.sin(x) + 1, alpha=0.3, label="95% band")
    ax.plot(x, np.sin(x) + 3)
    ax.set_ylim(-3, 5)
    ax.text(5, np.sin(5), "band text", ha="center", va="center")
    f = gk_testing.fires(F(fig), "FIG-D003")
    assert "band text" in f.message
    # a tinted zone (half the plane) named by its label is not a band of data
    fig = new_fig()
    ax = fig.add_subplot()
    ax.fill_between([0, 10], [0, 10], [10, 10], alpha=0.1, color="red")
    ax.plot([0, 10], [0, 10], "k--")
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    ax.text(1, 8, "Judge-favouring", fontstyle="italic")
    ax.fill_between([7, 9.5], 0.5, 3, alpha=0.1)  # a small zone with constant bounds
    ax.text(8, 1, "Fan zone", ha="center")
    gk_testing.clean(F(fig), "FIG-D003")
    # a label placed inside its own opaque stack area names that area: allowed
    fig = new_fig()
    ax = fig.add_subplot()
    ax.stackplot(x, np.full_like(x, 4.0), np.full_like(x, 4.0))
    ax.set_ylim(0, 10)
    ax.text(5, 2, "lower", ha="center", va="center")
    ax.text(5, 6, "upper", ha="center", va="center")
    gk_testing.clean(F(fig), "FIG-D003")


# ------------------------------------------------------- bar value labels and series

def _grouped(fig):
    ax = fig.add_subplot()
    x = np.arange(3)
    w = 0.4
    a = ax.bar(x - w / 2, [3, 4, 5], w, label="A")
    b = ax.bar(x + w / 2, [6, 7, 8], w, label="B")
    ax.set_ylim(0, 10)
    return ax, a, b


def test_value_label_inside_another_series_bar_fires():
    fig = new_fig()
    ax, a, _ = _grouped(fig)
    for r in a:  # the blue series' labels, shifted into the orange bars
        ax.text(r.get_x() + r.get_width() + 0.2, 1.5, f"{r.get_height():.0f}", ha="center")
    f = gk_testing.fires(F(fig), "FIG-D003")
    assert "series 'A'" in f.message


def test_value_labels_inside_their_own_bars_are_clean():
    fig = new_fig()
    ax, a, b = _grouped(fig)
    ax.bar_label(a, label_type="center")
    ax.bar_label(b, label_type="center")
    for r in b:  # hand-placed labels with the bar's own value
        ax.text(r.get_x() + r.get_width() / 2, 1.0, f"{r.get_height():.1f}", ha="center")
    gk_testing.clean(F(fig), "FIG-D003")


# ------------------------------------------------------- network graphs (false alarms)

def _network(fig, edge_label_on="own"):
    ax = fig.add_subplot()
    pos = np.array([[0.0, 0.0], [4.0, 0.0], [2.0, 3.0], [6.0, 3.0]])
    edges = [(0, 1), (1, 2), (0, 2), (2, 3), (1, 3)]
    ax.add_collection(LineCollection([pos[list(e)] for e in edges], colors="k", zorder=1))
    ax.scatter(pos[:, 0], pos[:, 1], s=900, c="#1f78b4", zorder=2)
    for k, (x, y) in enumerate(pos):
        ax.text(x, y, str(k + 1), ha="center", va="center", zorder=3, clip_on=True)
    box = {"boxstyle": "round", "ec": (1, 1, 1), "fc": (1, 1, 1)}
    for u, v in edges:
        mx, my = (pos[u] + pos[v]) / 2
        if edge_label_on == "other" and (u, v) == (0, 1):
            mx, my = 1.2, 1.5  # off its own edge, with edge 1-3 running through its box
        ax.text(mx, my, f"w={u + v}", ha="center", va="center", bbox=box, zorder=1,
                clip_on=True)
    ax.set_xlim(-1, 7)
    ax.set_ylim(-1, 4)
    ax.set_axis_off()
    return ax


def test_network_node_and_edge_labels_on_their_own_artists_are_clean():
    fig = new_fig()
    _network(fig)
    found = F(fig)
    for code in ("FIG-D001", "FIG-D002"):
        gk_testing.clean(found, code)


def test_network_label_on_another_edge_still_fires():
    fig = new_fig()
    _network(fig, edge_label_on="other")
    f = gk_testing.fires(F(fig), "FIG-D001")
    assert "w=1" in f.message


def test_node_label_bigger_than_its_node_fires():
    fig = new_fig()
    ax = fig.add_subplot()
    ax.scatter([5], [5], s=30, zorder=2)
    ax.text(5, 5, "a long city name", ha="center", va="center")
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    gk_testing.fires(F(fig), "FIG-D002")


def test_markers_clipped_flat_on_the_top_spine_do_not_touch_the_title():
    fig = new_fig(5, 3.5)
    ax = fig.add_subplot()
    ax.plot(np.arange(10), np.full(10, 10.0), "o", markersize=14)
    ax.set_ylim(0, 10)
    ax.set_title("Markers on the top spine")
    gk_testing.clean(F(fig), "FIG-D002")
    ax.set_clip_on(False)
    for line in ax.lines:
        line.set_clip_on(False)  # unclipped full disks do reach the title
    gk_testing.fires(F(fig), "FIG-D002")


# ------------------------------------------------------- missing glyphs, 3-D labels

def test_missing_glyph_in_legend_entry_and_3d_axis_label_fire():
    fig = new_fig()
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1], label="数据 series")
    ax.legend()
    f = gk_testing.fires(F(fig), "FIG-G001")
    assert "legend" in f.message and "数据" in f.message
    fig = new_fig()
    ax = fig.add_subplot(projection="3d")
    ax.plot([0, 1], [0, 1], [0, 1])
    ax.set_xlabel("时间")
    f = gk_testing.fires(F(fig), "FIG-G001")
    assert "xlabel" in f.message
    fig = new_fig()
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1], label="plain series")
    ax.legend()
    gk_testing.clean(F(fig), "FIG-G001")


def _cjk_font() -> str | None:
    from matplotlib import font_manager

    names = {f.name for f in font_manager.fontManager.ttflist}
    for n in ("WenQuanYi Micro Hei", "Noto Sans CJK SC", "Noto Sans CJK JP"):
        if n in names:
            return n
    return None


def test_missing_glyph_names_the_installed_font_that_covers_it():
    font = _cjk_font()
    if font is None:
        pytest.skip("no CJK font installed (apt-get install fonts-wqy-microhei)")
    with matplotlib.rc_context({"font.sans-serif": ["SimHei", "DejaVu Sans"]}):
        fig = new_fig()
        ax = fig.add_subplot()
        ax.set_title("收益率")
        f = gk_testing.fires(F(fig), "FIG-G001")
    assert "SimHei is not installed" in f.message
    assert font in f.message and "plt.rcParams['font.sans-serif']" in f.message
    with matplotlib.rc_context({"font.sans-serif": [font, "DejaVu Sans"]}):
        fig = new_fig()
        fig.add_subplot().set_title("收益率")
        gk_testing.clean(F(fig), "FIG-G001")


def test_3d_axis_label_over_its_tick_labels_fires_default_is_clean():
    fig = new_fig(5, 4)
    ax = fig.add_subplot(projection="3d")
    xx, yy = np.meshgrid(np.linspace(-5, 5, 20), np.linspace(-5, 5, 20))
    ax.plot_surface(xx, yy, 1e6 * np.sin(np.hypot(xx, yy)))
    ax.set_zlabel("z value (units)", labelpad=-2)
    found = figqa.find_collisions(fig)
    assert any(c.kind == "text-over-text" and c.a.role == "zlabel" for c in found), found
    fig = new_fig(5, 4)
    ax = fig.add_subplot(projection="3d")
    ax.plot_surface(xx, yy, np.sin(np.hypot(xx, yy)))
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_zlabel("z")
    assert "text-over-text" not in kinds(fig)


# ------------------------------------------------------- arrows across text

def test_free_arrow_across_a_label_fires_arrow_between_labels_is_clean():
    fig = new_fig()
    ax = fig.add_subplot()
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    ax.text(5, 5, "crossed label", ha="center", va="center")
    ax.add_patch(FancyArrowPatch((1, 5), (9, 5), arrowstyle="->", mutation_scale=15))
    gk_testing.fires(F(fig), "FIG-A002")
    fig = new_fig()
    ax = fig.add_subplot()
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    ax.text(1, 5, "from", ha="center", va="center")
    ax.text(9, 5, "to", ha="center", va="center")
    ax.add_patch(FancyArrowPatch((2, 5), (8.3, 5), arrowstyle="->", mutation_scale=15))
    gk_testing.clean(F(fig), "FIG-A002")


# ------------------------------------------------------- counting

def test_distinct_unlabeled_lines_are_counted_apart():
    fig = new_fig()
    ax = fig.add_subplot()
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    ax.axvline(4.8)
    ax.axvline(5.2)
    ax.text(5, 5, "threshold", ha="center", va="center")
    lines = [f for f in F(fig) if f.code == "FIG-D001"]
    assert len(lines) == 2
    assert len({f.message for f in lines}) == 2  # told apart in words too


def test_usetex_without_latex_is_could_not_check():
    if shutil.which("latex"):
        pytest.skip("LaTeX is installed here; usetex works")
    fig = new_fig()
    ax = fig.add_subplot()
    ax.set_title("usetex", usetex=True)
    from gavelkit.cli.award_figures import collisions_to_findings

    err = None
    try:
        figqa.find_collisions(fig)
    except Exception as exc:  # what the runner records for the figure
        err = f"{type(exc).__name__}: {exc}"
    assert err is not None
    result = {"figures": [{"index": 1, "line": 3, "collisions": [], "error": err}], "exit": 0}
    found = collisions_to_findings(result, "fig.py")
    f = gk_testing.fires(found, "FIG-S004")
    assert f.unusable and "LaTeX" in f.message


# ------------------------------------------------ issue 27: the two kinds a team's run missed

@pytest.mark.parametrize("y", [0.89, 0.87])
def test_suptitle_pushed_below_the_axes_title_onto_the_panel(y):
    """The two titles overprint at the panel's top spine: the suptitle (a figure text in
    this matplotlib) is measured as a suptitle against the panel."""
    fig = new_fig(6, 4)
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1])
    ax.set_title("Forecast of monthly demand")
    fig.suptitle("Figure 3: Demand model", y=y)
    f = gk_testing.fires(F(fig), "FIG-T002")
    assert "suptitle" in f.message


def test_suptitle_above_constrained_panels_is_clean():
    fig = new_fig(8, 4, layout="constrained")
    for a in fig.subplots(1, 2):
        a.plot([0, 1])
        a.set_title("Panel title")
    fig.suptitle("Figure 4: sensitivity")
    gk_testing.clean(F(fig), "FIG-T002")
    gk_testing.clean(F(fig), "FIG-T001")


def _band(alpha: float = 0.25, lines: bool = True):
    fig = new_fig(6, 4)
    ax = fig.add_subplot()
    x = np.arange(2015, 2031)
    y = 50 + 3 * (x - 2015)
    if lines:
        ax.plot(x, y, "k-")
    ax.fill_between(x, y - 25, y + 25, alpha=alpha)
    ax.text(2019, 45, "95% PI", fontsize=9)  # inside the band, clear of the line
    return fig


def test_text_on_a_wide_band_clear_of_its_line_fires():
    f = gk_testing.fires(F(_band()), "FIG-D003")
    assert "translucent band" in f.message


def test_label_in_a_half_plane_zone_or_a_stack_without_line_is_not_a_band():
    fig = new_fig(6, 4)
    ax = fig.add_subplot()
    x = np.arange(2015, 2031)
    y = 50 + 3 * (x - 2015)
    ax.plot(x, y, "k-")
    ax.fill_between(x, y, 130, alpha=0.25)  # "judge-favouring" half plane above the curve
    ax.set_ylim(0, 130)
    ax.text(2016, 110, "judge-favouring", fontsize=9)
    gk_testing.clean(F(fig), "FIG-D003")
    assert "text-over-patch" not in kinds(_band(lines=False))  # wide and no line inside


@pytest.mark.parametrize("text,fires", [
    ("  Index 30\n  Error -1.60", False),   # f"  Index {i}": the blanks lie on the marker
    ("  Index 30", False),
    ("Index 30\nError -1.60", True),        # near miss: the same label without the blanks
    ("Index 30", True),
])
def test_blank_start_of_a_label_on_its_marker_is_no_ink(text, fires):
    """A real contest figure (xifeng0126/MCM my_c/4_4.py) labels its largest errors with
    plt.text(x, y, f"  Index {i}\\n  Error {e:.2f}") at the highlighted point: the two
    blanks cover the marker, the glyphs start clear of it. The layout box counted the
    blanks as ink and reported every label over its own marker."""
    fig = Figure(figsize=(6, 4), dpi=200)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.scatter([30], [-1.6], s=120, color="orange")
    ax.text(30, -1.6, text, fontsize=12)
    ax.set_xlim(0, 60)
    ax.set_ylim(-2, 1.2)
    kinds = [c.kind for c in figqa.find_collisions(fig)]
    assert ("text-over-marker" in kinds) is fires, kinds


def _corner_patch_fig(text: str, corner: str) -> Figure:
    """A label and a triangle over its box's top-right corner: `clear` stays off the
    glyphs' ink (the empty corner above the right leg of an "A"), `ink` reaches the leg."""
    from matplotlib.patches import Polygon

    fig = Figure(figsize=(4, 3), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_xlim(0, 100)
    ax.set_ylim(0, 100)
    t = ax.text(40, 40, text, fontsize=40)
    bb = t.get_window_extent(fig.canvas.get_renderer())
    inv = ax.transData.inverted()
    w, h = bb.width, bb.height
    if corner == "clear":
        pts = [(bb.x1 - 0.25 * w, bb.y1 + 6), (bb.x1 + 6, bb.y1 + 6), (bb.x1 + 6, bb.y1 - 0.45 * h)]
    else:
        pts = [(bb.x1 - 0.7 * w, bb.y1 + 6), (bb.x1 + 6, bb.y1 + 6), (bb.x1 + 6, bb.y0 - 6)]
    ax.add_patch(Polygon(inv.transform(pts), closed=True, color="tab:cyan"))
    return fig


@pytest.mark.parametrize("corner,fires", [("clear", False), ("ink", True)])
def test_patch_over_a_label_box_corner_without_ink_is_clean(corner, fires):
    """A real contest donut chart (boa-z/MCM-ICM-2024-C code/plot_part.py): the inner label
    "30.3%" sits in the hole, and the slanted inner edge of the next wedge cuts the top-right
    corner of its box by 3 px while the "%" ink stays 1-2 px clear. A box corner is not ink:
    text-over-patch only where the glyphs are on the patch (near miss: the patch on the leg)."""
    fig = _corner_patch_fig("A", corner)
    kinds = [c.kind for c in figqa.find_collisions(fig)]
    assert ("text-over-patch" in kinds) is fires, kinds
