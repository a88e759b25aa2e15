"""`gavel award figqa run|self-test`: real scripts run headless in a child interpreter."""

from __future__ import annotations

import json
import textwrap

import pytest

import gk_testing

pytest.importorskip("matplotlib")

COLLIDE = """
import matplotlib.pyplot as plt
fig, ax = plt.subplots()
ax.axhline(0.5)
ax.text(0.5, 0.5, "crossed", ha="center", va="center")
fig.savefig(OUT)
"""

CLEAN = """
import sys
import matplotlib.pyplot as plt
fig, ax = plt.subplots()
ax.plot([0, 1], [0, 1], label=sys.argv[1] if len(sys.argv) > 1 else "line")
ax.legend(loc="upper left")
ax.set_title("clean")
plt.show()
"""


def script(tmp_path, body: str, name: str = "plot.py") -> str:
    p = tmp_path / name
    p.write_text(textwrap.dedent(body).replace("OUT", repr(str(tmp_path / "out.png"))),
                 encoding="utf-8")
    return str(p)


def test_run_flags_collision_with_script_line_and_annotates(tmp_path):
    s = script(tmp_path, COLLIDE)
    ann = tmp_path / "ann"
    rc, out, err = gk_testing.cli("award", "figqa", "run", s, "--annotate", str(ann))
    assert rc == 1, err
    assert f"{s}:3:1: FIG-D001 error" in out
    assert "gated 1 figure(s)" in out
    png = ann / "plot-fig1.png"
    assert png.exists()
    import matplotlib.image as mpimg
    import numpy as np

    img = mpimg.imread(str(png))
    red = (img[..., 0] > 0.9) & (img[..., 1] < 0.2) & (img[..., 2] < 0.2)
    assert red.sum() > 20  # the outline is really drawn
    assert (tmp_path / "out.png").exists()  # the script's own save still happens
    orig = mpimg.imread(str(tmp_path / "out.png"))
    assert not ((orig[..., 0] > 0.9) & (orig[..., 1] < 0.2) & (orig[..., 2] < 0.2)).any() or \
        np.sum((orig[..., 0] > 0.9) & (orig[..., 1] < 0.2)) < red.sum()


def test_run_clean_script_with_args_json_and_sarif(tmp_path):
    s = script(tmp_path, CLEAN)
    rc, out, _ = gk_testing.cli("award", "figqa", "run", "--format", "json", s, "--",
                                  "my series")
    doc = json.loads(out)
    assert rc == 0, doc
    findings = [_f(d) for d in doc["findings"]]
    for code in ("FIG-S001", "FIG-S002", "FIG-S003", "FIG-S004"):
        gk_testing.clean(findings, code)
    assert doc["figures"][0]["events"] == ["show"]
    rc, out, _ = gk_testing.cli("award", "figqa", "run", script(tmp_path, COLLIDE, "c.py"),
                                "--format", "sarif")
    assert rc == 1
    sarif = json.loads(out)
    assert sarif["runs"][0]["results"][0]["ruleId"] == "FIG-D001"


def _f(d):
    from gavelkit.core.findings import Finding

    return Finding(d["code"], d["severity"], d["message"], d.get("path", ""), d.get("line", 0))


def test_crashing_script_is_reported_not_our_traceback(tmp_path):
    s = script(tmp_path, """
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots()
        ax.plot([1, 2])
        1 / 0
    """)
    rc, out, err = gk_testing.cli("award", "figqa", "run", s)
    assert rc == 2
    f = gk_testing.fires(_parse_text(out), "FIG-S001")
    assert "ZeroDivisionError" in f.message and f.line == 5
    assert "Traceback" not in err


def _parse_text(out: str):
    from gavelkit.core.findings import Finding

    found = []
    for line in out.splitlines():
        if ": FIG-" in line:
            loc, rest = line.split(": FIG-", 1)
            code = "FIG-" + rest.split()[0]
            severity = rest.split()[1].rstrip(":")
            parts = loc.rsplit(":", 2)
            ln = int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else 0
            found.append(Finding(code, severity, rest.split(": ", 1)[-1], parts[0], ln))
    return found


def test_sys_exit_nonzero_and_no_figure(tmp_path):
    s = script(tmp_path, "import sys\nsys.exit(3)\n")
    rc, out, _ = gk_testing.cli("award", "figqa", "run", s)
    assert rc == 2 and "status 3" in out
    s = script(tmp_path, "print('no plots here')\n", "noplot.py")
    rc, out, _ = gk_testing.cli("award", "figqa", "run", s)
    assert rc == 0
    gk_testing.fires(_parse_text(out), "FIG-S002")
    # the script's stdout is shown (issue 19), in its own block, and kept out of JSON
    assert f"--- stdout of {s} ---\nno plots here\n--- end of stdout ---" in out
    rc, doc = gk_testing.cli_json("award", "figqa", "run", s)
    assert rc == 0 and doc["stdout"] == "no plots here\n"
    rc, out, _ = gk_testing.cli("award", "figqa", "run", s, "-q")
    assert "no plots here" not in out


def test_timeout_kills_script(tmp_path):
    s = script(tmp_path, "import time\ntime.sleep(30)\n")
    rc, out, _ = gk_testing.cli("award", "figqa", "run", s, "--timeout", "2")
    assert rc == 2
    gk_testing.fires(_parse_text(out), "FIG-S003")


def test_figure_that_cannot_be_drawn(tmp_path):
    s = script(tmp_path, """
        import matplotlib.pyplot as plt
        from matplotlib.artist import Artist
        class Broken(Artist):
            def draw(self, renderer):
                raise RuntimeError("cannot draw")
        fig = plt.figure()
        fig.add_artist(Broken())
    """)
    rc, out, _ = gk_testing.cli("award", "figqa", "run", s)
    assert rc == 2  # could not check is not a collision (issue 18)
    f = gk_testing.fires(_parse_text(out), "FIG-S004")
    assert "cannot draw" in f.message


def test_usage_errors_exit_2(tmp_path):
    rc, _, err = gk_testing.cli("award", "figqa", "run")
    assert rc == 2 and "no script" in err
    rc, _, err = gk_testing.cli("award", "figqa", "run", str(tmp_path / "missing.py"))
    assert rc == 2 and "no such file" in err
    rc, _, err = gk_testing.cli("award", "figqa", "run", "x.py", "--timeout", "soon")
    assert rc == 2 and "number" in err
    rc, out, _ = gk_testing.cli("award", "figqa", "run", "--help")
    assert rc == 0 and "--annotate" in out


def test_self_test_command():
    rc, out, _ = gk_testing.cli("award", "figqa", "self-test")
    assert rc == 0 and "figqa self-test: passed" in out
    rc, doc = gk_testing.cli_json("award", "figqa", "self-test")
    assert rc == 0 and doc["passed"] is True and len(doc["cases"]) >= 10


def test_cli_and_plugin_modules_do_not_import_matplotlib(subprocess_env):
    import subprocess
    import sys

    code = ("import sys, gavelkit.cli.main, gavelkit.cli.award_figures, "
            "gavelkit.award.figures.pytest_plugin; print('matplotlib' in sys.modules)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=subprocess_env, timeout=60)
    assert p.stdout.strip() == "False", p.stderr


# ------------------------------------------------- a run's code/ folder (issue 19)

RUN_ALL = """
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import figqa
from figqa import assert_no_overlap
print("gate module:", figqa.__file__)
fig, ax = plt.subplots()
ax.axhline(0.5)
ax.text(0.5, 0.5, "crossed", ha="center", va="center")
assert_no_overlap(fig)
fig.savefig(OUT)
print("not reached when the gate finds the collision")
"""


def _code_dir(tmp_path, figqa_text: str | None):
    code = tmp_path / "code"
    code.mkdir()
    if figqa_text is not None:
        (code / "figqa.py").write_text(figqa_text, encoding="utf-8")
    p = code / "run_all.py"
    p.write_text(RUN_ALL.replace("OUT", repr(str(tmp_path / "out.png"))), encoding="utf-8")
    return str(p)


def test_a_no_op_run_copy_cannot_switch_the_gate_off(tmp_path):
    """Issue 27 item 5: the critic's re-run gates with the shipped figqa; a replaced copy
    is itself a failed gate that names the difference."""
    stub = ("def find_collisions(fig, **kw):\n    return []\n"
            "def assert_no_overlap(fig, **kw):\n    return None\n")
    s = _code_dir(tmp_path, stub)
    rc, out, _ = gk_testing.cli("award", "figqa", "run", s)
    copy = str(tmp_path / "code" / "figqa.py")
    assert rc == 1, out
    found = _parse_text(out)
    gk_testing.fires(found, "FIG-D001")  # the collision the stub hid, found by the shipped gate
    f = gk_testing.fires(found, "FIG-S006")
    assert copy in f.message and "first difference at line" in f.message
    assert "not reached" in out  # the script's stdout is shown
    rc, doc = gk_testing.cli_json("award", "figqa", "run", s)
    assert doc["figqa"]["imported"] == [{"name": "figqa", "file": copy}]


def test_wired_in_gate_raising_is_a_failed_gate_not_could_not_run(tmp_path):
    from pathlib import Path

    from gavelkit.award.figures import figqa

    s = _code_dir(tmp_path, Path(figqa.__file__).read_text(encoding="utf-8"))
    rc, out, _ = gk_testing.cli("award", "figqa", "run", s)
    assert rc == 1, out
    found = _parse_text(out)
    f = gk_testing.fires(found, "FIG-S005")
    assert "assert_no_overlap" in f.message or "FigqaError" in f.message
    gk_testing.fires(found, "FIG-D001")  # the collision itself, gated at exit
    gk_testing.clean(found, "FIG-S001")
    # without a copy the script cannot import figqa: it could not run (exit 2)
    other = tmp_path / "other"
    other.mkdir()
    s2 = _code_dir(other, None)
    rc, out, _ = gk_testing.cli("award", "figqa", "run", s2)
    assert rc == 2
    gk_testing.fires(_parse_text(out), "FIG-S001")
    gk_testing.clean(_parse_text(out), "FIG-S005")


def test_figqa_group_help_exits_0():
    rc, out, _ = gk_testing.cli("award", "figqa", "--help")
    assert rc == 0 and "figqa run" in out and "self-test" in out
    rc, _, err = gk_testing.cli("award", "figqa", "bogus")
    assert rc == 2 and "award figqa run" in err


def test_snapshot_and_annotate_writes_are_not_gated_again(tmp_path, monkeypatch):
    """The runner's own PNG writes (--snapshot, --annotate) go through print_figure; they
    were gated as if the script had written them, measuring the annotation boxes and
    drawing them into the snapshot that is meant to be labelled by eye."""
    from PIL import Image

    s = tmp_path / "plot.py"
    s.write_text(textwrap.dedent("""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots()
        ax.plot(range(10), range(10), label="a line")
        ax.text(4.5, 4.5, "over the line")
        fig.savefig("out.png")
    """), encoding="utf-8")
    ann, snap = tmp_path / "ann", tmp_path / "snap"
    monkeypatch.chdir(tmp_path)  # the script writes out.png where it runs
    rc, doc = gk_testing.cli_json("award", "figqa", "run", str(s), "--annotate", str(ann),
                                  "--snapshot", str(snap))
    assert rc == 1
    fig = doc["figures"][0]
    assert "print_figure" not in fig["events"] and fig["saved_to"] == ["out.png"], fig
    reds = [px for px in Image.open(fig["snapshot"]).convert("RGB").getdata()
            if px[0] > 200 and px[1] < 60 and px[2] < 60]
    assert not reds  # no annotation box in the snapshot
    reds = [px for px in Image.open(fig["annotated"]).convert("RGB").getdata()
            if px[0] > 200 and px[1] < 60 and px[2] < 60]
    assert reds


TIGHT = """
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(4, 3))
ax.plot([0, 1], [0, 1])
fig.text(1.02, 0.5, "right of the canvas, inside the tight box", rotation=90, va="center")
fig.savefig(OUT, bbox_inches=BBOX)
SHOW
"""


@pytest.mark.parametrize("show", ["", "plt.show()"])
def test_a_tight_save_is_not_gated_again_without_tight(tmp_path, show):
    """A figure saved with bbox_inches="tight" is left stale by the save; at exit (or at a
    later plt.show()) it was gated again as drawn on the canvas, and the text the tight
    box keeps whole was reported cut by the edge (a false FIG-C001)."""
    body = TIGHT.replace("BBOX", '"tight"').replace("SHOW", show)
    rc, doc = gk_testing.cli_json("award", "figqa", "run", script(tmp_path, body))
    assert rc == 0, doc["findings"]
    assert doc["figures"][0]["events"][0] == "savefig"
    # near miss: the same figure saved without the tight box is cut
    body = TIGHT.replace("BBOX", "None").replace("SHOW", show)
    rc, doc = gk_testing.cli_json("award", "figqa", "run", script(tmp_path, body, "p2.py"))
    assert rc == 1
    assert [f["code"] for f in doc["findings"]] == ["FIG-C001"]


def test_a_failed_tight_save_leaves_the_canvas(tmp_path):
    """Near miss of the tight-save fix: a savefig(bbox_inches="tight") that raised (its
    folder does not exist, as in matplotlib's constrained-layout guide) wrote no file, so
    the figure the reader gets is the canvas, and the text past its edge is cut."""
    body = TIGHT.replace("BBOX", '"tight"').replace("SHOW", "").replace(
        "fig.savefig(", "try:\n    fig.savefig(").replace(
        '"tight")', '"tight")\nexcept OSError:\n    pass')
    missing = repr(str(tmp_path / "no" / "such" / "out.png"))
    s = script(tmp_path, body.replace("OUT", missing))
    rc, doc = gk_testing.cli_json("award", "figqa", "run", s)
    assert rc == 1 and [f["code"] for f in doc["findings"]] == ["FIG-C001"], doc["findings"]


def _gone(pid: int) -> bool:
    """No such process, or only its zombie (killed, not yet reaped by init)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not __import__("os").path.isdir("/proc/self"), reason="needs /proc")
@pytest.mark.parametrize("ignore_term", [False, True])
def test_the_runner_and_its_script_die_with_a_killed_gavel(tmp_path, ignore_term,
                                                           subprocess_env):
    """The runner leads its own session (so a timeout can kill the script's whole group);
    a `gavel` killed with SIGKILL left it, and whatever the script started, running. With
    the script ignoring SIGTERM, the watchdog on the parent pid still ends them."""
    import os
    import signal
    import subprocess
    import sys
    import time

    pids = tmp_path / "pids"
    s = script(tmp_path, f"""
        import os, signal, subprocess, time
        {"signal.signal(signal.SIGTERM, signal.SIG_IGN)" if ignore_term else ""}
        child = subprocess.Popen(["sleep", "120"])
        with open({str(pids)!r}, "w") as fh:
            fh.write(f"{{os.getpid()}} {{child.pid}}")
        time.sleep(120)
    """)
    gavel = subprocess.Popen([sys.executable, "-m", "gavelkit", "award", "figqa", "run", s,
                              "--timeout", "200"], env=subprocess_env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            if pids.exists() and len(pids.read_text().split()) == 2:
                break
            time.sleep(0.1)
        runner, grandchild = map(int, pids.read_text().split())
        assert not _gone(runner) and not _gone(grandchild)
        gavel.send_signal(signal.SIGKILL)
        gavel.wait()
        for _ in range(100):
            if _gone(runner) and _gone(grandchild):
                break
            time.sleep(0.1)
        assert _gone(runner) and _gone(grandchild)
    finally:
        gavel.kill()
        for pid in (locals().get("runner"), locals().get("grandchild")):
            if pid and not _gone(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_gavel_that_finishes_normally_is_not_mistaken_for_a_dead_parent(tmp_path):
    """Near miss: a script running longer than the watchdog's poll, with its parent alive,
    runs to its end and is gated."""
    s = script(tmp_path, """
        import time
        import matplotlib.pyplot as plt
        time.sleep(1.2)
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, 1])
        fig.savefig(OUT)
    """)
    rc, doc = gk_testing.cli_json("award", "figqa", "run", s)
    assert rc == 0 and len(doc["figures"]) == 1
