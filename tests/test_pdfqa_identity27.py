"""Page-1 identity and metadata identity as a contest team's paper carries them (issue 27
items 3, 4 and 12): author lines in every shape a summary page takes, later pages warn,
author-like metadata values, and identity kept inside the document's own structure."""

from __future__ import annotations

from pathlib import Path

import pytest

from gavelkit.award.pdf import pdfqa
from gavelkit.award.pdf.embedded import read_embedded
from pdfqa_fixtures import page, write

from gk_testing import clean, fires


def qa(path: str) -> list:
    return pdfqa.run_checks(pdfqa.load(path), anonymous=True).findings


@pytest.fixture(scope="module")
def tmp(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("pdfqa_id27")


@pytest.mark.parametrize("lines", [
    ["Demand Forecasting with Hidden States", "Team: Wei Zhang, Li Ming", "Summary"],
    ["Demand Forecasting with Hidden States", "Team members: Wei Zhang, Li Ming", "Summary"],
    ["Demand Forecasting with Hidden States", "by Jane Doe and John Smith", "Summary"],
    ["Demand Forecasting with Hidden States", "Wei Zhang    Li Ming    Chen Hao",
     "December 1, 2026", "Abstract"],
    ["Demand Forecasting with Hidden States", "Jane Doe", "February 2, 2026", "Abstract"],
    ["Problem C Demand Forecasting   Authors: Wei Zhang, Li Ming", "Summary"],
])
def test_page1_author_lines_fail(tmp, lines):
    f = fires(qa(write(tmp, "byline.pdf", [page(lines, 1)])), "PDF-A005")
    assert f.severity == "error" and f.data["page"] == 1


@pytest.mark.parametrize("lines", [
    ["Demand Forecasting with Hidden States", "Team: 2612345", "Summary"],
    ["Fishing Boats and Herring Schools", "Hook Line and Sinker", "Summary"],
    ["Demand Forecasting", "by analysing the hold-out months we find", "Summary"],
    ["Problem Chosen", "C", "2026", "MCM/ICM", "Summary Sheet", "Team Control Number",
     "2612345", "Survival or Death: Moving Fish and Fishery", "As oceans warm"],
])
def test_page1_titles_and_control_numbers_pass(tmp, lines):
    clean(qa(write(tmp, "title.pdf", [page(lines, 1)])), "PDF-A005")


def test_email_in_the_references_warns(tmp):
    pages = [page(["Summary", "We model demand."], 1)] + [page(["Body"], k) for k in range(2, 19)]
    pages.append(page(["References", "Data on request: data.office@example.org"], 19))
    found = qa(write(tmp, "refs.pdf", pages))
    clean(found, "PDF-A004")
    assert fires(found, "PDF-A009").data["page"] == 19
    first = qa(write(tmp, "refs1.pdf", [page(["Summary", "contact: a.b@example.org"], 1)]))
    assert fires(first, "PDF-A004").severity == "error"


def _with_embedded(path: str, author: str) -> str:
    """Add, as pdfTeX does for an included PDF figure, a form XObject whose /PTEX.InfoDict
    is the figure's own Info dictionary (an incremental update at the end of the file)."""
    data = Path(path).read_bytes()
    extra = (b"\n90 0 obj\n<< /Author (" + author.encode() + b") /Producer (Microsoft"
             b" PowerPoint 2019) >>\nendobj\n91 0 obj\n<< /Type /XObject /Subtype /Form "
             b"/BBox [0 0 10 10] /PTEX.FileName (./fig1.pdf) /PTEX.InfoDict 90 0 R /Length 0 >>"
             b"\nstream\n\nendstream\nendobj\n%%EOF\n")
    Path(path).write_bytes(data + extra)
    return path


def test_identity_inside_the_documents_own_structure_fails(tmp):
    base = write(tmp, "emb.pdf", [page(["Summary"], 1)], {"Author": "", "Creator": "LaTeX"})
    found = qa(_with_embedded(base, "275696925@qq.com"))
    f = fires(found, "PDF-A001")
    assert "included figure" in f.message
    found = qa(_with_embedded(write(tmp, "emb2.pdf", [page(["Summary"], 1)]), "Wei Zhang"))
    assert "included figure" in fires(found, "PDF-A002").message
    ok = qa(_with_embedded(write(tmp, "emb3.pdf", [page(["Summary"], 1)]), "Administrator"))
    clean(ok, "PDF-A002")


def test_the_current_info_is_not_read_twice(tmp):
    path = write(tmp, "info.pdf", [page(["Summary"], 1)], {"Author": "Wei Zhang"})
    assert not [e for e in read_embedded(Path(path).read_bytes()) if e.value == "Wei Zhang"]


def _with_figure(tmp: Path, name: str, source_file: str) -> str:
    """A paper whose page 2 includes a PDF figure the way pdfTeX keeps it (the project's
    writer: a form XObject with /PTEX.FileName and the figure's own /PTEX.InfoDict)."""
    from gavelkit.award.pdf.writer import Form, Text

    fig = page(["Results"], 2)
    fig.items.append(Form(100, 300, 300, 200, [Text(120, 310, "month")],
                          source_file=source_file, source_info={"Producer": "matplotlib"}))
    return write(tmp, name, [page(["Summary"], 1), fig], {"Author": "", "Creator": "LaTeX"})


@pytest.mark.parametrize("source_file", [
    "C:/Users/wzhang/Desktop/MCM2026/figures/fig1.pdf",
    "C:\\Users\\Wei Zhang\\OneDrive\\mcm\\fig1.pdf",
    "/Users/lihua/Documents/mcm/fig1.pdf",
])
def test_an_included_figures_path_names_its_account(tmp, source_file):
    """pdfTeX keeps \\includegraphics' path in /PTEX.FileName: an absolute path leaks the
    Windows (or Linux, macOS) account it was on. An account folder is an author-like value:
    a name or a handle fails like an Author would (issue 27's identity rule)."""
    found = qa(_with_figure(tmp, "figpath.pdf", source_file))
    f = fires(found, "PDF-A002")
    assert f.severity == "error" and "PTEX.FileName" in f.message
    assert "relative" in f.hint


@pytest.mark.parametrize("source_file,warns", [
    ("./figures/fig1.pdf", False),                        # the usual relative path
    ("figures/Users/fig1.pdf", False),                    # a folder named Users, no account
    ("C:/Users/Public/Documents/fig1.pdf", False),        # Windows' own profile folder
    ("C:/Users/Administrator/Desktop/fig1.pdf", True),    # a placeholder account: review
    ("D:/mcm2026/figures/fig1.pdf", False),               # absolute, but no account folder
    ("C:/Users/86150/Desktop/mcm/fig1.pdf", True),        # an account number: review
    # a figure that went through an online converter (seen on a real paper): its server
    ("/home/pdftool/img.pdfresizer.com/tmp/36f310439b17.pdf", False),
])
def test_figure_paths_without_a_personal_account_pass(tmp, source_file, warns):
    found = qa(_with_figure(tmp, "figpath_ok.pdf", source_file))
    clean(found, "PDF-A002")
    if warns:
        assert fires(found, "PDF-A003").severity == "warning"
    else:
        clean(found, "PDF-A003")


def test_a_figure_path_is_not_read_without_anonymous(tmp):
    path = _with_figure(tmp, "figpath_named.pdf", "C:/Users/wzhang/fig1.pdf")
    clean(pdfqa.run_checks(pdfqa.load(path)).findings, "PDF-A002")


@pytest.mark.parametrize("producer", ["Adobe Acrobat Pro DC 21.1", "Acrobat Pro DC (64-bit)",
                                      "Acrobat DC"])
def test_acrobat_dc_is_a_tool(tmp, producer):
    found = qa(write(tmp, "dc.pdf", [page(["Summary"], 1)], {"Producer": producer}))
    clean(found, "PDF-A003")


# ------------------------------------------------------------------ captions (item 11)

def _caps(tmp, lines_by_page):
    pages = [page(lines, k) for k, lines in enumerate(lines_by_page, 1)]
    return pdfqa.run_checks(pdfqa.load(write(tmp, "caps.pdf", pages))).findings


def test_typed_prefix_with_another_number_is_no_duplicate(tmp):
    found = _caps(tmp, [["Summary"], ["Figure 5: Figure 6: Forecast of demand"],
                        ["Figure 6: Sensitivity"]])
    f = fires(found, "PDF-C004")
    assert "delete the typed prefix" in f.hint and "renumber" in f.hint
    clean(found, "PDF-C001")


def test_typed_prefix_in_the_other_language(tmp):
    found = _caps(tmp, [["Summary"], ["Figure 5: 图 5: 需求预测"]])
    fires(found, "PDF-C004")


def test_side_by_side_captions_stay_two(tmp):
    found = _caps(tmp, [["Summary"], ["Figure 1: Data"],
                        ["Figure 2. Proportion of use Figure 3. Proportion of loss"],
                        ["Figure 4: Result"]])
    clean(found, "PDF-C002")
    clean(found, "PDF-C001")


@pytest.mark.parametrize("lines", [
    ["图 11 两个模型的误差对比", "图 11 揭示了误差随时间下降的规律"],
    ["表 1 参数取值", "附录 文件列表", "表1 表2整合.xlsx"],
    ["Figure 4: ACF and PACF", "Figure 4 (a) shows the truncation of the gold data"],
    ["图 11 遗传算法流程图", "图 11 遗传算法流程图"],
])
def test_prose_file_names_and_a_repeated_title_are_no_second_caption(tmp, lines):
    clean(_caps(tmp, [["Summary"], lines]), "PDF-C001")


def test_two_different_figures_with_one_number_still_fail(tmp):
    fires(_caps(tmp, [["Summary"], ["图 10 螺距分布图", "图 10 调头路径的临界情况"]]), "PDF-C001")


def test_spaced_period_caption_is_found(tmp):
    found = _caps(tmp, [["Summary"], ["Figure 1 . Herring weight"], ["Figure 2 . Mackerel"],
                        ["Figure 3: Fleet"]])
    clean(found, "PDF-C002")
