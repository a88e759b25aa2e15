"""`gavel award contact-sheet` and the seed-compatible launchers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from gavelkit.award.pdf import contact_sheet
from pdfqa_fixtures import PageSpec, as_findings, page, paper, write

from gk_testing import clean, cli, cli_json, fires

C = ("award", "contact-sheet")
SCRIPTS = Path(__file__).resolve().parent.parent / "skills" / "mathodology-award-gates" / "scripts"


@pytest.fixture(scope="module")
def tmp(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("sheet")


@pytest.mark.parametrize("n,cols,rows", [(1, 1, 1), (2, 2, 1), (25, 5, 5), (120, 11, 11)])
def test_grid_shape(n, cols, rows):
    lay = contact_sheet.layout([(595.0, 842.0)] * n, 60, None)
    assert (lay.cols, lay.rows) == (cols, rows)
    assert lay.width * lay.height <= contact_sheet.MAX_PIXELS
    # page order is row-major, also past page 99
    assert lay.origin(99)[1] > lay.origin(98)[1] or lay.origin(99)[0] > lay.origin(98)[0]


def test_big_sheet_stays_within_pixel_budget():
    lay = contact_sheet.layout([(595.0, 842.0)] * 300, 150, None)
    assert lay.width * lay.height <= contact_sheet.MAX_PIXELS and lay.scale < 150 / 72


def _cell_pixels(img: Image.Image, lay: contact_sheet.Layout, page_no: int) -> tuple:
    x, y = lay.origin(page_no - 1)
    frame = img.getpixel((x - 3, y + lay.cell_h // 2))
    h = lay.cell_h
    inner = img.crop((x + 2, y + h // 10, x + lay.cell_w - 2, y + h * 85 // 100)).convert("L")
    return frame, inner.getextrema()


def test_frames_and_page_order_in_a_120_page_sheet(tmp):
    pages = [page([f"Section {k}", f"Figure {k}: result"], k) for k in range(1, 121)]
    pages[104] = PageSpec().number(105)          # blank page 105
    pages[2] = page(["Section 3", "Figure 2: again"], 3)   # duplicate Figure 2
    pdf = write(tmp, "p120.pdf", pages)
    out = tmp / "new" / "folder" / "sheet.png"
    rc, doc = cli_json(*C, pdf, "-o", str(out), "--dpi", "20", "--jobs", "2")
    assert rc == 0 and out.exists()
    assert doc["pages"] == 120 and (doc["cols"], doc["rows"]) == (11, 11)
    assert doc["framed"]["105"] == ["blank"]
    assert "caption" in doc["framed"]["3"] and "caption" in doc["framed"]["2"]
    found = as_findings(doc)
    fires(found, "PDF-B001")
    clean(found, "PDF-K001")
    img = Image.open(out).convert("RGB")
    assert img.size == (doc["width"], doc["height"])
    lay = contact_sheet.layout([(595.28, 841.89)] * 120, 20, None)
    frame, (lo, _hi) = _cell_pixels(img, lay, 105)
    assert frame == contact_sheet.COLOURS["blank"]
    assert lo > 200                              # page 105's tile is blank: order kept past 99
    frame, (lo, _hi) = _cell_pixels(img, lay, 104)
    assert frame != contact_sheet.COLOURS["blank"] and lo < 100   # page 104 has a figure


def test_small_sheet_in_process_and_clean(tmp):
    pdf = write(tmp, "p2.pdf", [page(["Summary", "Figure 1: a"], 1), page(["Figure 2: b"], 2)])
    out = tmp / "p2.png"
    rc, out_text, err = cli(*C, pdf, "-o", str(out))
    assert rc == 0 and err == ""
    assert "contact sheet written" in out_text and "no QA findings" in out_text
    with Image.open(out) as im:
        assert im.format == "PNG" and im.size[0] > 500


def test_over_limit_and_ai_report_marked(tmp):
    pdf = write(tmp, "p6.pdf", paper(5, 1))
    rc, doc = cli_json(*C, pdf, "-o", str(tmp / "p6.png"), "--max-pages", "4")
    assert rc == 0
    assert doc["framed"]["5"] == ["over limit"] and doc["framed"]["6"] == ["AI report"]


@pytest.mark.parametrize("make", ["missing", "truncated", "empty"])
def test_unreadable_pdf_exit_2(tmp, make):
    p = tmp / f"{make}.pdf"
    if make == "truncated":
        p.write_bytes(Path(write(tmp, "t.pdf", paper(3, 0))).read_bytes()[:400])
    elif make == "empty":
        p.write_bytes(b"")
    rc, _out, err = cli(*C, str(p), "-o", str(tmp / "x.png"))
    assert rc == 2 and err and "Traceback" not in err
    assert not (tmp / "x.png").exists()


def test_unwritable_output_exit_2(tmp):
    pdf = write(tmp, "w.pdf", [page(["Summary"], 1)])
    blocker = tmp / "afile"
    blocker.write_text("x", encoding="utf-8")
    rc, doc = cli_json(*C, pdf, "-o", str(blocker / "sheet.png"))
    assert rc == 2
    assert fires(as_findings(doc), "PDF-K001").unusable
    rc, _out, err = cli(*C, pdf, "-o", str(tmp))       # a directory
    assert rc == 2 and "directory" in err


def test_usage_errors(tmp):
    pdf = write(tmp, "u.pdf", [page(["Summary"], 1)])
    assert cli(*C, pdf)[0] == 2                            # -o missing
    assert cli(*C, pdf, "-o", str(tmp / "u.png"), "--dpi", "0")[0] == 2
    assert cli(*C, pdf, "-o", str(tmp / "u.png"), "--cols", "x")[0] == 2


# ------------------------------------------------------------------ launchers

def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_pdf_qa_sh_seed_invocation(tmp, subprocess_env):
    pdf = write(tmp, "seed.pdf", paper(25, 1))
    r = _run(["bash", str(SCRIPTS / "pdf_qa.sh"), pdf, "--max-pages", "25", "--anonymous"],
             tmp, subprocess_env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "body 25" in r.stdout
    r = _run(["bash", str(SCRIPTS / "pdf_qa.sh"), pdf, "--max-pages=24"], tmp, subprocess_env)
    assert r.returncode == 1 and "PDF-P001" in r.stdout
    r = _run(["bash", str(SCRIPTS / "pdf_qa.sh"), pdf, "--max-pages", "abc"], tmp,
             subprocess_env)
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_pdf_qa_sh_self_test_from_own_folder_and_copy(tmp, subprocess_env):
    r = _run(["bash", "pdf_qa.sh", "--self-test"], SCRIPTS, subprocess_env)
    assert r.returncode == 0 and "self-test: PASS" in r.stdout, r.stdout + r.stderr
    copy = tmp / "copy_pdf_qa.sh"
    shutil.copy(SCRIPTS / "pdf_qa.sh", copy)
    os.chmod(copy, 0o644)                                 # non-executable copy
    r = _run(["bash", str(copy), "--self-test"], tmp, subprocess_env)
    assert r.returncode == 0 and "self-test: PASS" in r.stdout, r.stdout + r.stderr


def test_make_contact_sheet_py(tmp, subprocess_env):
    pdf = write(tmp, "mcs.pdf", [page(["Summary"], 1), PageSpec().number(2)])
    out = tmp / "figs" / "contact_sheet.png"
    r = _run([sys.executable, str(SCRIPTS / "make_contact_sheet.py"), pdf, "-o", str(out)],
             tmp, subprocess_env)
    assert r.returncode == 0 and out.exists(), r.stderr
    assert "p.2 blank" in r.stdout
    r = _run([sys.executable, str(SCRIPTS / "make_contact_sheet.py"), "--self-test"], tmp,
             subprocess_env)
    assert r.returncode == 0 and "self-test: PASS" in r.stdout, r.stdout + r.stderr


def test_launchers_explain_a_missing_install(tmp):
    """A lone copy of a launcher, in a Python without gavelkit: the message ends with a
    command that can be pasted as it is (issue 28: never a placeholder)."""
    bare = tmp / "bare"
    bare.mkdir()
    shutil.copy(SCRIPTS / "pdf_qa.sh", bare / "pdf_qa.sh")
    shutil.copy(SCRIPTS / "make_contact_sheet.py", bare / "make_contact_sheet.py")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONNOUSERSITE": "1",
           "PYTHON": sys.executable}
    want = "gavel skills install --only mathodology-award-gates"
    # -S: no site-packages, so neither gavelkit nor pypdfium2 can be imported
    r = _run([sys.executable, "-S", str(bare / "make_contact_sheet.py"), "x.pdf", "-o", "y.png"],
             bare, env)
    assert r.returncode == 2 and r.stderr.rstrip().endswith(want), r.stderr
    assert "<" not in r.stderr and "Traceback" not in r.stderr
    env["PYTHON"] = str(bare / "nopython")
    r = _run(["bash", str(bare / "pdf_qa.sh"), "x.pdf"], bare, env)
    assert r.returncode == 2 and "run it with the Python that is there: PYTHON=/" in r.stderr, \
        r.stderr
    assert r.stderr.rstrip().endswith(f"bash {bare / 'pdf_qa.sh'} x.pdf")
    assert "<" not in r.stderr
