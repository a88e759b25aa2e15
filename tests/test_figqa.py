"""figqa: each detection fires on a real collision and stays silent on its look-alike."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import gk_testing

matplotlib = pytest.importorskip("matplotlib")
np = pytest.importorskip("numpy")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from gavelkit.award.figures import figqa  # noqa: E402
from gavelkit.cli.award_figures import KIND_CODES, figure_findings  # noqa: E402

FIGQA = Path(figqa.__file__).resolve()
_MPL = tuple(int(p) for p in matplotlib.__version__.split(".")[:2])


def new_fig(w: float = 6.4, h: float = 4.8, dpi: float = 100, **kw) -> Figure:
    fig = Figure(figsize=(w, h), dpi=dpi, **kw)
    FigureCanvasAgg(fig)
    return fig


def axes(xlim=(0, 10), ylim=(0, 10), **fig_kw):
    fig = new_fig(**fig_kw)
    ax = fig.add_subplot()
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    return fig, ax


def kinds(fig, **kw) -> set[str]:
    return {c.kind for c in figqa.find_collisions(fig, **kw)}


def F(fig, **kw):
    return figure_findings(fig, path="fig.py", **kw)


# --------------------------------------------------------------- lines (FIG-D001)

def test_axvline_through_label_fires():
    fig, ax = axes()
    ax.axvline(5)
    ax.text(5, 5, "threshold", ha="center", va="center")
    f = gk_testing.fires(F(fig), "FIG-D001")
    assert "threshold" in f.message and f.path == "fig.py"


def test_diagonal_line_beside_label_is_clean():
    # the label's box is inside the line's bounding box, but no segment touches it
    fig, ax = axes()
    ax.plot([0, 10], [0, 10])
    ax.text(1, 8, "upper-left label")
    gk_testing.clean(F(fig), "FIG-D001")


def test_nan_gap_is_not_bridged_but_line_is_seen():
    fig, ax = axes(ylim=(-1, 1))
    ax.plot([0, 3, np.nan, 7, 10], [0, 0, np.nan, 0, 0])
    ax.text(5, 0, "gap", ha="center", va="center")
    gk_testing.clean(F(fig), "FIG-D001")
    fig, ax = axes(ylim=(-1, 1))
    ax.plot([0, 3, 4, 7, 10], [0, 0, 0, 0, 0])
    ax.text(5, 0, "gap", ha="center", va="center")
    gk_testing.fires(F(fig), "FIG-D001")


def test_step_drawstyle_uses_the_drawn_steps():
    # raw chord (0,0)->(10,10) crosses the label at (5,5); the steps go around it
    fig, ax = axes()
    ax.plot([0, 10], [0, 10], drawstyle="steps-post")
    ax.text(5, 5, "mid", ha="center", va="center")
    assert "text-over-line" not in kinds(fig)
    fig, ax = axes()
    ax.plot([0, 10], [0, 10], drawstyle="steps-post")
    ax.text(5, 0, "on the step", ha="center", va="center")
    assert "text-over-line" in kinds(fig)


def test_segments_clipped_away_behind_title_are_clean():
    fig, ax = axes(xlim=(0, 1), ylim=(0, 1))
    ax.plot([0, 1], [1.04, 1.04], color="k")  # above the axes: not drawn
    ax.set_title("Title")
    assert "text-over-line" not in kinds(fig)
    fig, ax = axes(xlim=(0, 1), ylim=(0, 1))
    ax.plot([0, 1], [1.04, 1.04], color="k", clip_on=False)  # drawn through the title
    ax.set_title("Title")
    assert "text-over-line" in kinds(fig)


def test_rotated_label_uses_its_rotated_box():
    fig, ax = axes()
    ax.plot([0, 10], [7.5, 7.5])
    t = ax.text(5, 5, "a rotated label", rotation=45, ha="center", va="center")
    bb = t.get_window_extent(fig.canvas.get_renderer())
    assert bb.height > 0
    # the axis-aligned extent of the rotated text reaches y=7.5 only at its corner
    fig.canvas.draw()
    assert "text-over-line" not in kinds(fig)
    fig, ax = axes()
    ax.plot([0, 10], [5, 5])
    ax.text(5, 5, "a rotated label", rotation=45, ha="center", va="center")
    assert "text-over-line" in kinds(fig)


def test_errorbars_and_vlines_through_label_fire():
    fig, ax = axes()
    ax.errorbar([5], [2], yerr=[[1], [7]], fmt="none")
    ax.text(5, 6, "err", ha="center", va="center")
    assert "text-over-line" in kinds(fig)
    fig, ax = axes()
    ax.vlines([5], 0, 10)
    ax.text(5, 6, "vl", ha="center", va="center")
    assert "text-over-line" in kinds(fig)


def test_log_and_polar_axes():
    fig, ax = axes(xlim=(1, 1000), ylim=(1, 1000))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.plot([1, 1000], [30, 30])
    ax.text(30, 30, "log", ha="center", va="center")
    assert "text-over-line" in kinds(fig)
    fig = new_fig()
    ax = fig.add_subplot(projection="polar")
    theta = np.linspace(0, 2 * np.pi, 200)
    ax.plot(theta, np.ones_like(theta) * 0.5)
    ax.set_rmax(1)
    ax.set_yticklabels([])
    ax.text(0, 0, "centre", ha="center", va="center")  # the circle is drawn far from it
    assert "text-over-line" not in kinds(fig)
    ax.text(np.pi / 2, 0.5, "on the circle", ha="center", va="center")
    assert "text-over-line" in kinds(fig)


def test_invisible_and_transparent_artists_are_ignored():
    fig, ax = axes()
    ax.axhline(5, visible=False)
    ax.axhline(5, alpha=0.0)
    ax.text(5, 5, "safe", ha="center", va="center")
    ax.text(5, 5.0, "", ha="center")
    ax.text(5, 5, "hidden", visible=False)
    assert kinds(fig) == set()


def test_axes_turned_off_hides_its_tick_labels():
    fig = new_fig(3, 3)
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1])
    ax.set_yticks(np.linspace(0, 1, 40))  # forty tick labels would collide
    assert "text-over-text" in kinds(fig)
    ax.axis("off")
    assert kinds(fig) == set()


# --------------------------------------------------------------- markers (FIG-D002)

def test_marker_under_label_fires_and_between_markers_is_clean():
    fig, ax = axes()
    ax.plot([5], [5], "o", markersize=8)
    ax.text(5, 5, "covered", ha="center", va="center")
    gk_testing.fires(F(fig), "FIG-D002")
    fig, ax = axes()
    ax.plot([1, 9], [1, 9], "o", linestyle="None")
    ax.text(5, 5, "between", ha="center", va="center")
    found = F(fig)
    gk_testing.clean(found, "FIG-D002")
    gk_testing.clean(found, "FIG-D001")


def test_big_scatter_marker_partly_under_label_fires():
    fig, ax = axes()
    ax.scatter([5], [4.0], s=3000)  # centre well below the label, disc reaches into it
    ax.text(5, 5, "label", ha="center", va="center")
    assert "text-over-marker" in kinds(fig)
    fig, ax = axes()
    ax.scatter([5], [4.0], s=10)
    ax.text(5, 5, "label", ha="center", va="center")
    assert "text-over-marker" not in kinds(fig)


# --------------------------------------------------------------- patches (FIG-D003)

def test_label_inside_own_bar_ok_foreign_bar_fires():
    fig = new_fig()
    ax = fig.add_subplot()
    bars = ax.bar([0, 1, 2], [5, 7, 9], color="0.8")
    ax.set_ylim(0, 11)
    ax.bar_label(bars, label_type="center")
    ax.bar_label(bars)  # just above the bars
    gk_testing.clean(F(fig), "FIG-D003")
    fig = new_fig()
    ax = fig.add_subplot()
    ax.bar([0, 1], [9, 9], width=0.9, color="0.8")
    ax.set_ylim(0, 11)
    ax.annotate("A=9", xy=(0, 9), xytext=(1, 5), ha="center", va="center")
    f = gk_testing.fires(F(fig), "FIG-D003")
    assert "A=9" in f.message


def test_label_straddling_bar_edge_fires():
    fig = new_fig()
    ax = fig.add_subplot()
    ax.bar([0], [5], width=0.8)
    ax.set_xlim(-1, 1)
    ax.set_ylim(0, 10)
    ax.text(0, 5, "straddles the top", ha="center", va="center")
    assert "text-over-patch" in kinds(fig)


def test_boxed_text_padding_counts():
    fig = new_fig()
    ax = fig.add_subplot()
    ax.bar([0], [10], width=0.5)
    ax.set_xlim(-1, 2)
    ax.set_ylim(0, 10)
    # glyphs start right of the bar; the box padding reaches into it
    t = ax.text(0.27, 5, "boxed", va="center", bbox={"boxstyle": "square,pad=1.5"})
    r = fig.canvas.get_renderer()
    fig.canvas.draw()
    bar_x1 = ax.transData.transform((0.25, 0))[0]
    assert t.get_window_extent(r).x0 > bar_x1
    assert "text-over-patch" in kinds(fig)
    t.set_bbox(None)
    assert "text-over-patch" not in kinds(fig)


def test_fill_between_under_label_fires_axvspan_does_not():
    fig, ax = axes()
    ax.fill_between([0, 10], [4, 4], [6, 6], alpha=0.3)
    ax.set_title("t")
    ax.legend(handles=[], title="x", loc="center")
    assert "text-over-patch" in kinds(fig)
    fig, ax = axes()
    ax.axvspan(4, 6, alpha=0.3)
    ax.text(6, 5, "straddles the band edge", ha="center")
    assert kinds(fig) == set()


# --------------------------------------------------------------- images (FIG-D004)

def test_legend_over_image_fires_heatmap_cell_labels_ok():
    fig = new_fig()
    ax = fig.add_subplot()
    ax.imshow(np.arange(16).reshape(4, 4))
    ax.plot([], [], label="a series")
    ax.legend(loc="center")
    gk_testing.fires(F(fig), "FIG-D004")
    fig = new_fig()
    ax = fig.add_subplot()
    ax.imshow(np.arange(16).reshape(4, 4))
    for i in range(4):
        for j in range(4):
            ax.text(j, i, str(4 * i + j), ha="center", va="center")
    gk_testing.clean(F(fig), "FIG-D004")


def test_pcolormesh_under_title_inside_axes():
    fig = new_fig()
    ax = fig.add_subplot()
    ax.pcolormesh(np.arange(5), np.arange(5), np.arange(16).reshape(4, 4))
    ax.set_title("inside", y=0.9)
    assert "text-over-image" in kinds(fig)


# --------------------------------------------------------------- text vs text (FIG-T001)

def test_legend_over_title_fires_clean_figure_is_clean():
    fig, ax = axes()
    ax.plot([0, 1], [0, 0], label="series")
    ax.set_title("A title")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 0.99))
    gk_testing.fires(F(fig), "FIG-T001")
    fig = new_fig()
    ax = fig.add_subplot()
    bars = ax.bar([0, 1, 2], [4, 6, 8], label="values")
    ax.set_ylim(0, 11)
    ax.bar_label(bars, label_type="center")
    ax.legend(loc="upper left")
    ax.set_title("Clean")
    ax.set_xlabel("x")
    found = F(fig)
    assert found == []
    for code in set(KIND_CODES.values()):
        gk_testing.clean(found, code)


def test_suptitle_over_axes_title_and_across_subplots():
    fig = new_fig()
    ax = fig.add_subplot()
    ax.set_title("Axes title")
    fig.canvas.draw()
    y = ax.title.get_window_extent(fig.canvas.get_renderer()).y0 / fig.bbox.height
    fig.suptitle("Sup", y=y, va="bottom")
    assert "text-over-text" in kinds(fig)
    fig = new_fig()
    top, bottom = fig.subplots(2, 1, gridspec_kw={"hspace": 0.0})
    top.set_xlabel("top x label")
    bottom.set_title("bottom title")
    found = figqa.find_collisions(fig)
    assert any(c.kind == "text-over-text" and {c.a.axes, c.b.axes} == {0, 1} for c in found)


def test_twin_axes_legend_over_other_axes_line():
    fig, ax = axes()
    tw = ax.twinx()
    tw.plot([0, 10], [0.5, 0.5], label="twin line")
    tw.set_ylim(0, 1)
    ax.plot([], [], label="main")
    ax.legend(loc="center")
    found = figqa.find_collisions(fig)
    assert any(c.kind == "text-over-line" and c.a.role == "legend" and c.b.axes == 1
               for c in found)


def test_figure_legend_over_data_fires():
    fig, ax = axes()
    ax.axhline(5, label="level")
    fig.legend(loc="center")
    found = figqa.find_collisions(fig)
    assert any(c.a.role == "figure legend" and c.kind == "text-over-line" for c in found)


def test_touching_boxes_are_not_overlap():
    fig, ax = axes()
    t1 = ax.text(2, 5, "left", va="center")
    fig.canvas.draw()
    bb = t1.get_window_extent(fig.canvas.get_renderer())
    x_disp = bb.x1 - 0.5  # half a pixel of overlap: within the 1 pt tolerance
    x_data = ax.transData.inverted().transform((x_disp, 0))[0]
    ax.text(x_data, 5, "right", va="center")
    assert "text-over-text" not in kinds(fig)
    ax.text(x_data - 0.3, 5, "deep", va="center")
    assert "text-over-text" in kinds(fig)


# --------------------------------------------------------------- arrows (FIG-A001/A002)

def test_arrow_crossing_a_line_fires_pointing_at_it_does_not():
    fig, ax = axes()
    ax.plot([0, 10], [5, 5])
    ax.annotate("peak", xy=(5, 2), xytext=(5, 8), arrowprops={"arrowstyle": "->"})
    gk_testing.fires(F(fig), "FIG-A001")
    fig, ax = axes()
    ax.plot([0, 10], [5, 5])
    ax.annotate("here", xy=(5, 5), xytext=(5, 8), arrowprops={"arrowstyle": "->"})
    gk_testing.clean(F(fig), "FIG-A001")


def test_arrow_through_another_label_fires():
    fig, ax = axes()
    ax.text(5, 5, "in the way", ha="center", va="center")
    ax.annotate("note", xy=(5, 1), xytext=(5, 9), ha="center",
                arrowprops={"arrowstyle": "->"})
    gk_testing.fires(F(fig), "FIG-A002")
    fig, ax = axes()
    ax.text(8, 5, "beside", ha="center", va="center")
    ax.annotate("note", xy=(2, 1), xytext=(2, 9), ha="center",
                arrowprops={"arrowstyle": "->"})
    gk_testing.clean(F(fig), "FIG-A002")


# --------------------------------------------------------------- clipping (FIG-C001/C002)

def test_text_cut_by_figure_edge_and_tight_save():
    fig, ax = axes()
    ax.text(0.97, 0.5, "falls off the right edge", transform=fig.transFigure)
    f = gk_testing.fires(F(fig), "FIG-C001")
    assert "cut by the edge" in f.message
    # a tight save keeps it: nothing is cut
    gk_testing.clean(F(fig, tight=True), "FIG-C001")


def test_legend_fully_outside_canvas_fires():
    fig, ax = axes()
    ax.plot([0, 1], [0, 1], label="line")
    ax.legend(loc="center left", bbox_to_anchor=(2.0, 0.5))
    found = figqa.find_collisions(fig, tight=False)
    assert any(c.kind == "clipped-by-figure" and c.a.role == "legend" and
               "entirely" in c.detail for c in found)


def test_tick_labels_cut_off_fire():
    fig = new_fig(4, 3)
    ax = fig.add_axes((0.05, 0.2, 0.9, 0.7))  # too little room left of the axes
    ax.plot([0, 1], [0, 1000000])
    ax.ticklabel_format(style="plain")
    found = figqa.find_collisions(fig)
    assert any(c.kind == "clipped-by-figure" and c.a.role == "yticklabel" for c in found)
    # an axes filling the canvas (an image shown edge to edge) has its ticks fully
    # outside: nothing is drawn half-cut, so nothing is reported
    fig = new_fig(4, 3)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.imshow(np.arange(12).reshape(3, 4))
    assert figqa.find_collisions(fig) == []


def test_same_text_drawn_twice_is_not_a_collision():
    fig, ax = axes()
    ax.text(5, 5, "twice", ha="center")
    ax.text(5, 5, "twice", ha="center")
    assert kinds(fig) == set()
    ax.text(5, 5, "other", ha="center")
    assert kinds(fig) == {"text-over-text"}


def test_text_cut_by_axes_clip_box():
    fig, ax = axes()
    ax.text(8.5, 5, "clipped data label", clip_on=True)
    gk_testing.fires(F(fig), "FIG-C002")
    fig, ax = axes()
    ax.text(8.5, 5, "unclipped label")  # drawn past the axes, into the margin
    gk_testing.clean(F(fig), "FIG-C002")


# --------------------------------------------------------------- fonts (FIG-G001)

@pytest.mark.filterwarnings("ignore:Glyph")
def test_missing_glyph_fires_plain_text_clean():
    fig, ax = axes()
    ax.set_title("指导教师")
    f = gk_testing.fires(F(fig), "FIG-G001")
    assert "指" in f.message or "指" in json.dumps(f.data, ensure_ascii=False)
    fig, ax = axes()
    ax.set_title("plain ASCII and αβ")
    gk_testing.clean(F(fig), "FIG-G001")


# --------------------------------------------------------------- rendering edge cases

@pytest.mark.parametrize("backend", ["svg", "pdf"])
def test_non_agg_canvas_is_restored(backend):
    from importlib import import_module

    mod = import_module(f"matplotlib.backends.backend_{backend}")
    fig = Figure()
    canvas = getattr(mod, f"FigureCanvas{backend.upper() if backend == 'svg' else 'Pdf'}")(fig)
    ax = fig.add_subplot()
    ax.axhline(0.5)
    ax.text(0.5, 0.5, "x", ha="center", va="center")
    assert "text-over-line" in kinds(fig)
    assert fig.canvas is canvas


def test_dpi_does_not_change_the_verdict():
    results = []
    for dpi in (72, 100, 300):
        fig, ax = axes(dpi=dpi)
        ax.plot([0, 10], [5.12, 5.12])
        ax.text(5, 5, "near", ha="center", va="top")
        results.append(sorted(kinds(fig)))
    assert results[0] == results[1] == results[2]


def test_constrained_layout_and_never_drawn_figure():
    fig = new_fig(layout="constrained")
    axs = fig.subplots(2, 2)
    for a in axs.flat:
        a.set_title("title")
        a.set_xlabel("x label")
        a.plot([0, 1], [0, 1])
    assert figqa.find_collisions(fig) == []


def test_assert_no_overlap_raises_readable_list():
    fig, ax = axes()
    ax.axvline(5)
    ax.text(5, 5, "threshold", ha="center", va="center")
    with pytest.raises(AssertionError) as err:
        figqa.assert_no_overlap(fig)
    msg = str(err.value)
    assert msg.startswith("figqa: 1 figure collision(s) detected:")
    assert "[text-over-line]" in msg and "'threshold'" in msg
    c = err.value.collisions[0]
    assert c.area_px > 0 and c.a.type == "Text" and c.b.type == "Line2D"
    fig, ax = axes()
    ax.text(2, 2, "fine")
    figqa.assert_no_overlap(fig)


def test_speed_large_scatter_is_fast_enough_to_run_in_tests():
    # the timed benchmark lives in benchmarks/figqa; here only correctness at scale
    rng = np.random.default_rng(0)
    fig, ax = axes(xlim=(0, 1), ylim=(0, 1))
    ax.scatter(rng.random(20000), rng.random(20000) * 0.4, s=4)
    ax.text(0.5, 0.8, "clear", ha="center")
    ax.text(0.5, 0.2, "buried", ha="center")
    found = figqa.find_collisions(fig)
    assert [c.a.label for c in found if c.kind == "text-over-marker"] == ["buried"]


# --------------------------------------------------------------- standalone file

def test_module_imports_only_matplotlib_numpy_stdlib():
    tree = ast.parse(FIGQA.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    assert names - {"matplotlib", "numpy"} <= set(sys.stdlib_module_names), names


def test_standalone_copy_runs_without_gavelkit(tmp_path):
    copy = tmp_path / "figqa.py"
    copy.write_bytes(FIGQA.read_bytes())
    blocker = (
        "import sys, runpy\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'gavelkit': raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "sys.argv = ['figqa.py', '--self-test']\n"
        "runpy.run_path('figqa.py', run_name='__main__')\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["MPLBACKEND"] = "Agg"
    p = subprocess.run([sys.executable, "-c", blocker], cwd=tmp_path, capture_output=True,
                       text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "figqa self-test: passed" in p.stdout
    p = subprocess.run([sys.executable, str(copy)], capture_output=True, text=True, env=env,
                       timeout=60)
    assert p.returncode == 2 and "usage" in p.stderr


SYNC = ("cp src/gavelkit/award/figures/figqa.py skills/mathodology-award-gates/scripts/figqa.py"
        " && cp src/gavelkit/award/figures/figqa.py "
        "examples/award-run/work/20260130-0900-mcm26c/code/figqa.py")


def test_skill_script_is_the_same_file(root):
    """Real copies, not links (a link out of the skill folder is refused by `skills install`)."""
    skill = root / "skills" / "mathodology-award-gates" / "scripts" / "figqa.py"
    assert not skill.is_symlink()
    assert skill.read_bytes() == FIGQA.read_bytes(), f"copies out of date; run: {SYNC}"
    env = dict(os.environ, MPLBACKEND="Agg")
    p = subprocess.run([sys.executable, str(skill), "--self-test"], capture_output=True,
                       text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr


def test_colorbar_label_cut_and_contour_label_covered():
    fig = new_fig(4, 3)
    ax = fig.add_subplot()
    im = ax.imshow(np.arange(16).reshape(4, 4))
    cb = fig.colorbar(im)
    cb.set_label("a colorbar label far too large", fontsize=30)
    found = figqa.find_collisions(fig)
    assert any(c.kind == "clipped-by-figure" and c.a.role == "ylabel" and c.a.axes == 1
               for c in found)
    fig, ax = axes(xlim=(-2, 2), ylim=(-2, 2))
    x = np.linspace(-2, 2, 50)
    z = np.add.outer(x ** 2, x ** 2)
    cs = ax.contour(x, x, z, levels=[1.0])
    labels = ax.clabel(cs, inline=True, fmt="%.1f")
    assert labels
    assert "text-over-line" not in kinds(fig)  # inline labels sit in their own gap
    pos = labels[0].get_position()
    ax.text(pos[0], pos[1], "note", ha="center", va="center")
    found = figqa.find_collisions(fig)
    assert any(c.kind == "text-over-text" and {c.a.label, c.b.label} >= {"note"}
               for c in found)


def test_twin_axes_texts_collide_across_axes():
    fig, ax = axes()
    tw = ax.twinx()
    tw.set_ylim(0, 1)
    ax.text(5, 5, "left scale note", ha="center", va="center")
    tw.text(5, 0.5, "right scale note", ha="center", va="center")
    found = figqa.find_collisions(fig)
    assert any(c.kind == "text-over-text" and {c.a.axes, c.b.axes} == {0, 1} for c in found)


@pytest.mark.parametrize(("text", "rotation"), [("0.50", 0), ("Agpq", 0), ("hello", 90),
                                                 ("tilted", 30)])
def test_text_shape_matches_rendered_ink(text, rotation):
    # the measured shape must hug the pixels Agg really paints (within ~1.5 px)
    fig = new_fig(4, 3)
    t = fig.text(0.3, 0.4, text, fontsize=20, rotation=rotation)
    fig.canvas.draw()
    buf = np.asarray(fig.canvas.buffer_rgba())[:, :, 0]
    h = buf.shape[0]
    ys, xs = np.nonzero(buf < 200)
    ink = (xs.min(), h - ys.max() - 1, xs.max() + 1, h - ys.min())
    shape = figqa._text_shape(t, fig.canvas.get_renderer(),
                              figqa.ArtistRef("Text", "text", text, -1), None)
    x0, y0, x1, y1 = shape.aabb
    # it never cuts the ink (1 px of anti-aliasing slack) ...
    assert x0 <= ink[0] + 1 and y0 <= ink[1] + 1 and x1 >= ink[2] - 1 and y1 >= ink[3] - 1
    # ... and adds little: side bearings along the baseline, nothing across it
    slack = 5.0 if rotation not in (0, 90) else 3.0
    if rotation == 90 and _MPL < (3, 9):
        slack = 5.0  # 3.8 lays a vertical text out 2 px longer along its baseline
    assert max(ink[0] - x0, ink[1] - y0, x1 - ink[2], y1 - ink[3]) <= slack, (shape.aabb, ink)
    if rotation == 0:  # the empty ascent/descent bands of the line box are gone
        assert (ink[1] - y0) <= 1.5 and (y1 - ink[3]) <= 1.5, (shape.aabb, ink)


def test_multiline_text_is_measured_line_by_line():
    # a marker in the blank end of the short second line is not under any glyph
    fig, ax = axes()
    ax.text(1, 5, "a long first line\nshort", va="center", fontsize=14)
    fig.canvas.draw()
    t = ax.texts[0]
    bb = t.get_window_extent(fig.canvas.get_renderer())
    x, y = ax.transData.inverted().transform((bb.x1 - 12, bb.y0 + 6))
    ax.plot([x], [y], "o", markersize=6)
    assert "text-over-marker" not in kinds(fig)
    x, y = ax.transData.inverted().transform((bb.x1 - 12, bb.y1 - 8))
    ax.plot([x], [y], "s", markersize=6)  # on the long first line: covered
    found = figqa.find_collisions(fig)
    assert [c.kind for c in found] == ["text-over-marker"]  # reported once, not per line
