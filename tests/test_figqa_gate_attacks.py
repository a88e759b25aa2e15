"""The critic's re-run against a coder who wants the figure gate off (issue 27 item 5).

Every attack here hides a real collision (a label across a line). The re-run must
still report it, and say how the gate was defeated. The honest neighbours (the shipped
copy, a CRLF checkout of it, an older release, a script with no gate of its own) stay
clean of the defeat codes.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from gavelkit.award.figures import figqa
from gavelkit.award.figures.releases import digest, released, shipped_digest

import gk_testing

pytest.importorskip("matplotlib")

SHIPPED = Path(figqa.__file__).read_text(encoding="utf-8")
STUB = "def find_collisions(fig, **kw):\n    return []\ndef assert_no_overlap(fig, **kw):\n    pass\n"
COLLIDE = """
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
{pre}
fig, ax = plt.subplots()
ax.axhline(0.5)
ax.text(0.5, 0.5, "crossed", ha="center", va="center")
{save}
"""


def _run(tmp_path: Path, pre: str = "", save: str = "fig.savefig(OUT)", copy: str | None = None,
         env: dict[str, str] | None = None) -> tuple[int, list]:
    code = tmp_path / "code"
    code.mkdir(parents=True, exist_ok=True)
    if copy is not None:
        (code / "figqa.py").write_text(copy, encoding="utf-8", newline="")
    p = code / "run_all.py"
    body = COLLIDE.format(pre=textwrap.dedent(pre), save=save)
    p.write_text(body.replace("OUT", repr(str(tmp_path / "out.png"))), encoding="utf-8")
    rc, out = _cli_json(str(p), env)
    return rc, out


def _cli_json(script: str, env: dict[str, str] | None) -> tuple[int, list]:
    import os

    old = dict(os.environ)
    os.environ.update(env or {})
    try:
        rc, doc = gk_testing.cli_json("award", "figqa", "run", script)
    finally:
        os.environ.clear()
        os.environ.update(old)
    from pdfqa_fixtures import as_findings

    return rc, as_findings(doc)


def test_no_op_copy(tmp_path):
    rc, found = _run(tmp_path, "from figqa import assert_no_overlap", copy=STUB)
    assert rc == 1
    gk_testing.fires(found, "FIG-D001")
    gk_testing.fires(found, "FIG-S006")


def test_shipped_copy_and_a_crlf_checkout_pass(tmp_path):
    _rc, found = _run(tmp_path, "", copy=SHIPPED.replace("\n", "\r\n"))
    for code in ("FIG-S006", "FIG-S007", "FIG-S008"):
        gk_testing.clean(found, code)
    gk_testing.fires(found, "FIG-D001")  # the collision itself is still there


def test_wrapper_that_skips_savefig_gating(tmp_path):
    pre = """
    import matplotlib.figure as mf
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    mf.Figure.savefig = lambda self, fname, **k: FigureCanvasAgg(self).print_png(fname)
    """
    rc, found = _run(tmp_path, pre)
    assert rc == 1
    f = gk_testing.fires(found, "FIG-S007")
    assert "savefig" in f.message
    gk_testing.fires(found, "FIG-D001")  # still alive at exit: gated there


def test_print_figure_called_directly_is_gated(tmp_path):
    rc, found = _run(tmp_path, save="fig.canvas.print_figure(OUT)\nplt.close(fig)")
    assert rc == 1
    gk_testing.fires(found, "FIG-D001")


def test_patching_the_gate_module_or_matplotlib_is_seen(tmp_path):
    pre = """
    import sys
    gate = sys.modules.get("_gavelkit_figqa")
    if gate is not None:
        gate.find_collisions = lambda fig, **kw: []
    """
    rc, found = _run(tmp_path, pre)
    assert rc == 1 and "find_collisions" in gk_testing.fires(found, "FIG-S007").message
    pre2 = """
    import matplotlib.text
    matplotlib.text.Text.get_window_extent = lambda self, renderer=None, dpi=None: None
    """
    rc, found = _run(tmp_path / "b", pre2)
    assert rc == 1 and "get_window_extent" in gk_testing.fires(found, "FIG-S007").message


def test_run_all_that_catches_the_assertion(tmp_path):
    pre = """
    from figqa import assert_no_overlap
    def safe(fig):
        try:
            assert_no_overlap(fig)
        except AssertionError:
            pass
    """
    rc, found = _run(tmp_path, pre, save="safe(fig)\nfig.savefig(OUT)", copy=SHIPPED)
    assert rc == 1
    gk_testing.fires(found, "FIG-D001")
    gk_testing.clean(found, "FIG-S006")


def test_figqa_from_elsewhere_on_sys_path(tmp_path):
    elsewhere = tmp_path / "site"
    elsewhere.mkdir()
    (elsewhere / "figqa.py").write_text(STUB, encoding="utf-8")
    pre = f"""
    import sys
    sys.path.insert(0, {str(elsewhere)!r})
    from figqa import assert_no_overlap
    """
    rc, found = _run(tmp_path, pre, copy=SHIPPED)  # the shipped copy sits in code/, unused
    assert rc == 1
    f = gk_testing.fires(found, "FIG-S006")
    assert str(elsewhere / "figqa.py") in f.message
    rc, found = _run(tmp_path / "x", "from figqa import assert_no_overlap", copy=None,
                     env={"PYTHONPATH": str(elsewhere)})
    assert str(elsewhere / "figqa.py") in gk_testing.fires(found, "FIG-S006").message


def test_a_gate_made_in_memory(tmp_path):
    pre = """
    import sys, types
    fake = types.ModuleType("figqa")
    fake.assert_no_overlap = lambda fig, **kw: None
    sys.modules["figqa"] = fake
    from figqa import assert_no_overlap
    """
    _rc, found = _run(tmp_path, pre)
    assert "no file" in gk_testing.fires(found, "FIG-S006").message


def test_shipped_digest_is_a_listed_release():
    """A changed figqa.py must be added to data/award/figqa_releases.yaml (a team may copy
    any shipped version)."""
    assert shipped_digest() in released()
    assert digest(b"a\r\nb\n") == digest(b"a\nb\n")


def test_the_result_names_the_shipped_gate_and_what_the_script_imported(tmp_path):
    code = tmp_path / "code"
    code.mkdir()
    (code / "figqa.py").write_text(SHIPPED, encoding="utf-8")
    p = code / "run_all.py"
    p.write_text("import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
                 "from figqa import assert_no_overlap\nfig, ax = plt.subplots()\n"
                 "assert_no_overlap(fig)\n", encoding="utf-8")
    rc, doc = gk_testing.cli_json("award", "figqa", "run", str(p))
    assert rc == 0, doc
    assert doc["figqa"]["gate"] == figqa.__file__
    assert doc["figqa"]["imported"] == [{"name": "figqa", "file": str(code / "figqa.py")}]
    assert doc["figqa"]["tampered"] == []
