"""`gavel award pdfqa`: page count, captions, anonymity, blank pages, broken files."""

from __future__ import annotations

from pathlib import Path

import pytest

from gavelkit.award.pdf import pdfqa
from pdfqa_fixtures import PageSpec, Text, as_findings, page, paper, write, xmp_packet

from gk_testing import clean, cli, cli_json, fires

Q = ("award", "pdfqa")


def qa(path: str, **kw) -> list:
    return pdfqa.run_checks(pdfqa.load(path), **kw).findings


@pytest.fixture(scope="module")
def tmp(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("pdfqa")


@pytest.fixture(scope="module")
def paper26(tmp) -> str:
    return write(tmp, "paper26.pdf", paper(25, 1),
                 {"Producer": "xdvipdfmx (20220710)", "Creator": "LaTeX with hyperref"})


# ------------------------------------------------------------------ page count

def test_ai_report_is_not_counted(paper26):
    rc, doc = cli_json(*Q, paper26, "--max-pages", "25")
    assert rc == 0
    found = as_findings(doc)
    clean(found, "PDF-P001")
    f = fires(found, "PDF-P002")
    assert f.data["first"] == 26 and f.data["page"] == 26
    assert doc["summary"]["pages"]["total"] == 26 and doc["summary"]["pages"]["body"] == 25


def test_body_over_limit_fails_and_names_both_numbers(paper26):
    rc, doc = cli_json(*Q, paper26, "--max-pages=24")
    assert rc == 1
    f = fires(as_findings(doc), "PDF-P001")
    assert "25 pages" in f.message and "24" in f.message and "26-26" in f.message


def test_chinese_ai_report_and_mid_page_heading(tmp):
    p = write(tmp, "zh_ai.pdf", paper(3, 2, ai_heading="人工智能使用报告"))
    assert pdfqa.find_ai_report(pdfqa.load(p)) == (4, True)
    # heading lower on the page: that page is shared with the body
    pages = [*paper(3, 0), page(["Conclusion", "More text", "Even more", "x", "y", "z", "w",
                                 "Report on the Use of AI Tools", "We used tools."], 4),
             page(["Query log continued"], 5)]
    p2 = write(tmp, "mid_ai.pdf", pages)
    found = qa(p2, max_pages=4)
    clean(found, "PDF-P001")
    assert fires(found, "PDF-P002").data["first"] == 5


def test_toc_entry_is_not_an_ai_report(tmp):
    pages = [page(["Summary"], 1), page(["Contents", "1 Introduction ........ 3",
                                         "Report on Use of AI ........ 4"], 2), page(["Text"], 3)]
    found = qa(write(tmp, "toc.pdf", pages), max_pages=2)
    clean(found, "PDF-P002")
    fires(found, "PDF-P001")


# ------------------------------------------------------------------ captions

def test_chapter_style_and_prose_are_not_duplicates(tmp):
    pages = [page(["Figure 1.1: Map", "Figure 1.2: Flows", "图1-1 人口增长曲线",
                   "图1-2 交通流量", "表1 参数表", "表1给出了参数的取值。"], 1),
             page(["Results", "as Figure 3 shows, the error is small.", "As shown in",
                   "Figure 1.1. The map is dense.", "Table 1: Costs", "Table 1 (continued): Costs",
                   "表 2：结果", "注意长表格的格式。", "表 3: 中国省级行政单位一览",
                   "如", "图 1-1 所示的曲线"], 2)]
    found = qa(write(tmp, "caps_ok.pdf", pages))
    clean(found, "PDF-C001")
    caps = pdfqa.find_captions(pdfqa.load(str(tmp / "caps_ok.pdf")))
    assert {(c.series, c.number) for c in caps} == {
        ("en_figure", "1.1"), ("en_figure", "1.2"), ("zh_figure", "1.1"),
        ("zh_figure", "1.2"), ("zh_table", "1"), ("zh_table", "2"), ("zh_table", "3"),
        ("en_table", "1")}


@pytest.mark.parametrize("first,second", [
    ("Figure 4: Sensitivity", "Figure 4: Robustness"),
    ("Fig. 2: A", "Figure 2: B"),
    ("FIGURE 3: A", "Figure 3. B"),
    ("图1：人口", "图 1 人口"),
    ("Table 2: A", "TABLE 2: B"),
])
def test_duplicate_captions_fire(tmp, first, second):
    pages = [page(["Figure 1: x", first], 1), page(["Text", second], 2)]
    f = fires(qa(write(tmp, "dup.pdf", pages)), "PDF-C001")
    assert f.data["pages"] == [1, 2] and f.data["page"] == 2
    assert f.data["match"] == second.strip()


def test_list_of_figures_is_not_a_duplicate(tmp):
    pages = [page(["List of Figures", "Figure 1: Map .......... 2", "Figure 2: Flow"], 1),
             page(["Figure 1: Map", "Figure 2: Flow"], 2)]
    clean(qa(write(tmp, "lof.pdf", pages)), "PDF-C001")


def test_gap_and_order_warnings(tmp):
    pages = [page(["Figure 1: a", "Figure 2: b"], 1), page(["Figure 4: d", "Figure 3: c",
                                                            "Figure 6: f"], 2)]
    p = write(tmp, "gap.pdf", pages)
    rc, doc = cli_json(*Q, p)
    assert rc == 0                      # warnings are visible but do not fail ...
    found = as_findings(doc)
    gap = fires(found, "PDF-C002")
    assert gap.data["missing"] == ["5"]
    order = fires(found, "PDF-C003")
    assert order.data["page"] == 2 and "Figure 3" in order.message
    assert cli(*Q, p, "--strict")[0] == 1   # ... unless --strict
    ok = write(tmp, "nogap.pdf", [page(["Figure 1: a", "Figure 2: b", "Table 1: t"], 1)])
    found = qa(ok)
    clean(found, "PDF-C002")
    clean(found, "PDF-C003")


# ------------------------------------------------------------------ anonymity: metadata

@pytest.mark.parametrize("info", [
    {"Producer": "xdvipdfmx (20220710)", "Creator": "xetex"},
    {"Creator": "WPS 文字", "Producer": "WPS 文字"},
    {"Producer": "Acrobat Distiller 21.0.20155 (Windows)"},
    {"Author": "Typora"},  # "Administrator" is an account: a warning (test_pdfqa_real_shapes)
    {"Title": "基于多目标优化的交通调度模型", "Subject": "Team 2512345"},
    {"Producer": "pdfTeX-1.40.25", "Creator": "LaTeX with hyperref"},
    {"Producer": "Microsoft® Word for Microsoft 365"},
])
def test_tool_metadata_is_not_identity(tmp, info):
    found = qa(write(tmp, "meta_ok.pdf", [page(["Summary"], 1)], info), anonymous=True)
    for code in ("PDF-A001", "PDF-A002", "PDF-A003"):
        clean(found, code)


@pytest.mark.parametrize("info,code", [
    ({"Author": "张三"}, "PDF-A002"),
    ({"Author": "Jane Doe"}, "PDF-A002"),
    ({"Creator": "Jane Doe"}, "PDF-A002"),
    ({"Producer": "李四"}, "PDF-A002"),
    ({"Subject": "contact jane@uni.edu"}, "PDF-A001"),
    ({"Title": "姓名：张三 的论文"}, "PDF-A002"),
    ({"Title": "清华大学 数学建模"}, "PDF-A003"),
    ({"Creator": "FooBarWriter"}, "PDF-A003"),
])
def test_identity_metadata(tmp, info, code):
    found = qa(write(tmp, "meta_bad.pdf", [page(["Summary"], 1)], info), anonymous=True)
    f = fires(found, code)
    assert f.data["match"] == next(iter(info.values()))


@pytest.mark.parametrize("compress", [False, True])
def test_xmp_only_creator_is_found(tmp, compress):
    p = write(tmp, "xmp.pdf", [page(["Summary"], 1)], {"Author": ""},
              xmp=xmp_packet(creator="Jane Doe", tool="Microsoft Word"), compress_xmp=compress)
    f = fires(qa(p, anonymous=True), "PDF-A002")
    assert f.data["field"] == "XMP dc:creator"


def test_metadata_not_checked_without_anonymous(tmp):
    found = qa(write(tmp, "meta_bad2.pdf", [page(["Summary"], 1)], {"Author": "张三"}))
    clean(found, "PDF-A002")


# ------------------------------------------------------------------ anonymity: body

def test_control_number_and_problem_school_pass(paper26):
    rc, doc = cli_json(*Q, paper26, "--anonymous")
    found = as_findings(doc)
    assert rc == 0, doc["findings"]
    for code in ("PDF-A004", "PDF-A005"):
        clean(found, code)
    w = fires(found, "PDF-A006")          # "School of Economics" on page 1: WARN, exit 0
    assert w.severity == "warning" and "School of Economics" in w.data["match"]
    assert doc["verdict"] == "PASS"
    rc, doc = cli_json(*Q, paper26, "--anonymous", "--strict")
    assert rc == 1 and doc["exit_code"] == 1 and doc["verdict"] == "FAIL"


def test_page1_labels(tmp):
    pages = [page(["摘要", "姓名：张三", "参赛队员 王五", "商学院的食堂问题"], 1)]
    found = qa(write(tmp, "labels.pdf", pages), anonymous=True)
    fires(found, "PDF-A005")
    hits = [f for f in found if f.code == "PDF-A005"]
    assert any("姓名" in f.message and "张三" in f.data["match"] for f in hits)
    assert sum("队员" in f.message for f in hits) == 1       # 参赛队员 once, not also 队员
    w = fires(found, "PDF-A006")
    assert "商学院" in w.data["match"]


def test_leaks_on_later_pages_are_found(tmp):
    pages = [page(["Summary", "Team 2512345"], 1), page(["Body"], 2),
             page(["Acknowledgements", "We thank Prof. Wang of Peking University.",
                   "指导教师：李四", "Author: Jane Doe"], 3)]
    found = qa(write(tmp, "late.pdf", pages), anonymous=True)
    # the seed scans page 1: the same shapes on later pages are found, and warn (issue 27)
    clean(found, "PDF-A005")
    late = [f for f in found if f.code == "PDF-A009"]
    assert {f.data["page"] for f in late} == {3} and all(f.severity == "warning" for f in late)
    assert any("李四" in f.data["match"] for f in late)
    assert any("Jane Doe" in f.data["match"] for f in late)
    warns = [f.data["match"] for f in found if f.code == "PDF-A006"]
    assert "Prof. Wang" in warns and any("Peking University" in w for w in warns)


def test_email_in_running_header_reported_once(tmp):
    pages = [page([f"Team 2512345 jane.doe@example.com page {k}", "Body"], k) for k in (1, 2, 3)]
    rc, doc = cli_json(*Q, write(tmp, "hdr.pdf", pages), "--anonymous")
    assert rc == 1
    emails = [f for f in as_findings(doc) if f.code == "PDF-A004"]
    fires(emails, "PDF-A004")
    assert len(emails) == 1 and emails[0].data["pages"] == [1]
    assert emails[0].data["match"] == "jane.doe@example.com"
    later = fires(as_findings(doc), "PDF-A009")  # the same address on later pages: one warning
    assert later.data["pages"] == [2, 3] and later.severity == "warning"


def test_clean_body_has_no_identity(tmp):
    pages = [page(["Summary", "Team Control Number 2512345", "We study traffic."], 1)]
    found = qa(write(tmp, "body_ok.pdf", pages), anonymous=True)
    for code in ("PDF-A004", "PDF-A005", "PDF-A006"):
        clean(found, code)


# ------------------------------------------------------------------ blank pages

def _blank_cases() -> list[tuple[str, PageSpec, bool]]:
    hidden = PageSpec()
    hidden.items.append(Text(72, 500, "white text Jane Doe", 12, grey=1.0))
    header_rule = PageSpec().number(7)
    header_rule.items.append(Text(72, 805, "Team 2512345  Running header", 9))
    from gavelkit.award.pdf.writer import Rect
    header_rule.items.append(Rect(72, 770, 451, 0.6, grey=0.0))
    return [
        ("number only", PageSpec().number(3), True),
        ("empty", PageSpec(), True),
        ("uniform grey", PageSpec(background=0.75), True),
        ("landscape blank", PageSpec(size=(841.89, 595.28)).number(4), True),
        ("header, rule and number", header_rule, True),
        ("white text", hidden, True),
        ("one sparse line", PageSpec().lines(["A single sparse line of text here."], top=300),
         False),
        ("left blank note", PageSpec().lines(["This page intentionally left blank."], top=400),
         False),
        ("figure only", PageSpec().figure(), False),
    ]


@pytest.mark.parametrize("name,spec,blank", _blank_cases(), ids=[c[0] for c in _blank_cases()])
def test_blank_page_detection(tmp, name, spec, blank):
    pages = [page(["Summary"], 1), spec]
    found = qa(write(tmp, "blank.pdf", pages))
    if blank:
        f = fires(found, "PDF-B001")
        assert f.data["page"] == 2
    else:
        clean(found, "PDF-B001")


def test_hidden_text_is_named(tmp):
    spec = PageSpec()
    spec.items.append(Text(72, 500, "white text Jane Doe", 12, grey=1.0))
    f = fires(qa(write(tmp, "hidden.pdf", [page(["Summary"], 1), spec])), "PDF-B001")
    assert "leave no ink" in f.message


# ------------------------------------------------------------------ summary sheet

def test_summary_sheet(tmp):
    bad = write(tmp, "nosum.pdf", [page(["Contents", "1 Intro"], 1), page(["Summary"], 2)])
    f = fires(qa(bad, summary_sheet=True), "PDF-S001")
    assert f.data["found_on"] == 2
    good = write(tmp, "sum.pdf", [page(["Summary Sheet", "Team 2512345"], 1)])
    clean(qa(good, summary_sheet=True), "PDF-S001")
    clean(qa(bad), "PDF-S001")           # off unless asked


def test_variant_turns_on_summary_and_limit(tmp):
    bad = write(tmp, "nosum2.pdf", [page(["Contents"], 1), page(["Summary"], 2), page(["x"], 3)])
    v = tmp / "variant.md"
    v.write_text("# run\n\n```yaml\nvariant:\n  contest: MCM/ICM\n  limits:\n    pages: 2\n```\n",
                 encoding="utf-8")
    rc, doc = cli_json(*Q, bad, "--variant", str(v))
    assert rc == 1
    found = as_findings(doc)
    fires(found, "PDF-S001")
    assert fires(found, "PDF-P001").data["max_pages"] == 2


@pytest.mark.parametrize("body,needle", [
    ("variant:\n  contest: X\n", "limits.pages"),
    ("variant:\n  contest: X\n  limits:\n    pages: 0\n", "positive integer"),
    ("variant:\n  contest: X\n  limits:\n    pages: twenty\n", "positive integer"),
    # one owner of variant selection (issue 23): the linter refuses "25", so does pdfqa
    ("variant:\n  contest: X\n  limits:\n    pages: \"25\"\n", "positive integer"),
    ("other: 1\n", "no `variant:` block"),
    ("variant: [unclosed\n", "YAML"),
])
def test_variant_errors_are_usage_errors(tmp, paper26, body, needle):
    v = tmp / "bad_variant.yaml"
    v.write_text(body, encoding="utf-8")
    rc, _out, err = cli(*Q, paper26, "--variant", str(v))
    assert rc == 2 and needle.lower() in err.lower() and "Traceback" not in err


# ------------------------------------------------------------------ CLI surface

@pytest.mark.parametrize("argv", [
    ["--max-pages", "0"], ["--max-pages", "abc"], ["--max-pages"], ["--max-pages=-3"],
    ["EXTRA.pdf"], ["--bogus"],
])
def test_bad_arguments_exit_2(paper26, argv):
    rc, _out, err = cli(*Q, paper26, *argv)
    assert rc == 2 and err and "Traceback" not in err


def test_options_before_and_after_path(paper26):
    assert cli(*Q, "--max-pages", "25", paper26, "--anonymous")[0] == 0
    assert cli(*Q, paper26, "--max-pages=25")[0] == 0


def test_text_output_shows_both_page_numbers_and_warnings(paper26):
    rc, out, _ = cli(*Q, paper26, "--max-pages", "25", "--anonymous")
    assert rc == 0
    assert "26 total; body 25 (AI-use report pages 26-26 not counted); limit 25" in out
    assert "PDF-A006 warning" in out and out.rstrip().endswith(f"PASS ({paper26})")


def test_sarif_and_quiet(paper26):
    rc, out, _ = cli(*Q, paper26, "--format", "sarif", "--anonymous")
    assert rc == 0 and '"ruleId": "PDF-A006"' in out
    rc, out, _ = cli(*Q, paper26, "-q", "--anonymous")
    assert rc == 0 and out.strip() == f"pdfqa: PASS ({paper26})"


# ------------------------------------------------------------------ unusable files

def _encrypt(src: str, dst: Path, user: str) -> str:
    from pypdf import PdfReader, PdfWriter

    w = PdfWriter(clone_from=PdfReader(src))
    w.encrypt(user_password=user, owner_password="owner", algorithm="RC4-128")
    with open(dst, "wb") as fh:
        w.write(fh)
    return str(dst)


def test_encrypted_pdf_exits_2(tmp, paper26):
    p = _encrypt(paper26, tmp / "enc.pdf", "secret")
    rc, doc = cli_json(*Q, p)
    assert rc == 2
    f = fires(as_findings(doc), "PDF-F002")
    assert f.unusable and "password" in f.message
    rc, _out, err = cli(*Q, p)
    assert rc == 2 and "encrypted" in err and "Traceback" not in err


def test_owner_password_only_opens(tmp, paper26):
    p = _encrypt(paper26, tmp / "owner.pdf", "")
    rc, doc = cli_json(*Q, p, "--max-pages", "25")
    assert rc == 0
    clean(as_findings(doc), "PDF-F002")
    assert doc["summary"]["pages"]["body"] == 25


@pytest.mark.parametrize("kind", ["truncated", "random", "text", "no_pages"])
def test_corrupt_files_exit_2(tmp, paper26, kind):
    data = Path(paper26).read_bytes()
    p = tmp / f"{kind}.pdf"
    if kind == "truncated":
        p.write_bytes(data[: len(data) * 6 // 10])
    elif kind == "random":
        p.write_bytes(bytes((i * 7919) % 251 for i in range(50_000)))
    elif kind == "text":
        p.write_text("just some notes\n", encoding="utf-8")
    else:
        from gavelkit.award.pdf.writer import build_pdf
        p.write_bytes(build_pdf([]))
    rc, doc = cli_json(*Q, str(p))
    assert rc == 2
    f = fires(as_findings(doc), "PDF-F001")
    assert f.unusable
    rc, _out, err = cli(*Q, str(p))
    assert rc == 2 and "Traceback" not in err and err.strip()


def test_readable_pdf_is_not_corrupt(paper26):
    _rc, doc = cli_json(*Q, paper26)
    found = as_findings(doc)
    for code in ("PDF-F001", "PDF-F003", "PDF-F004"):
        clean(found, code)


@pytest.mark.parametrize("name,content", [("empty.pdf", b""), ("missing.pdf", None)])
def test_empty_and_missing(tmp, name, content):
    p = tmp / name
    if content is not None:
        p.write_bytes(content)
    rc, _out, err = cli(*Q, str(p))
    assert rc == 2 and ("empty" in err or "no such file" in err)


def test_missing_eof_is_a_warning(tmp, paper26):
    data = Path(paper26).read_bytes()
    p = tmp / "noeof.pdf"
    p.write_bytes(data[: data.rindex(b"%%EOF")])
    rc, doc = cli_json(*Q, str(p), "--max-pages", "25")
    assert rc == 0
    assert fires(as_findings(doc), "PDF-F003").severity == "warning"


def test_no_text_layer(tmp):
    p = write(tmp, "scan.pdf", [PageSpec().figure(), PageSpec().figure()])
    fires(qa(p), "PDF-F004")


def test_label_shapes_that_are_not_leaks(tmp):
    pages = [page(["Summary", "Authors: Team 2512345"], 1),
               page(["def f(x):", "    name: str = 'model'", "队员们分工合作完成了建模。",
                     "学校食堂的排队问题"], 2)]
    found = qa(write(tmp, "shapes_ok.pdf", pages), anonymous=True)
    clean(found, "PDF-A005")
    assert not [f for f in found if f.code == "PDF-A006" and f.data["page"] == 2]


def test_label_with_space_separated_name_on_later_page(tmp):
    pages = [page(["Summary"], 1), page(["致谢", "指导教师 李四"], 2)]
    f = fires(qa(write(tmp, "space_label.pdf", pages), anonymous=True), "PDF-A009")
    assert f.data["page"] == 2 and "李四" in f.data["match"]
    pages = [page(["Summary", "指导教师 李四"], 1)]  # the same label on the summary page fails
    f = fires(qa(write(tmp, "space_label1.pdf", pages), anonymous=True), "PDF-A005")
    assert f.severity == "error"


def test_repeated_longtable_caption_and_macro_at_sign(tmp):
    cap = "Table 2.11. A long table spanning pages"
    pages = [page(["Summary", cap], 1), page([cap], 2), page([cap, "\\ver@amsmath.sty"], 3)]
    found = qa(write(tmp, "longtable.pdf", pages), anonymous=True)
    clean(found, "PDF-C001")
    clean(found, "PDF-A004")
    # the same text on pages 1 and 3 is a real duplicate
    found = qa(write(tmp, "longtable2.pdf", [pages[0], page(["x"], 2), pages[2]]))
    fires(found, "PDF-C001")


def test_common_tex_tools_are_not_flagged(tmp):
    info = {"Creator": "LaTeX with Beamer class version 3.18",
            "Producer": "MiKTeX pdfTeX-1.40.21 (kpathsea)"}
    found = qa(write(tmp, "tools.pdf", [page(["Summary"], 1)], info), anonymous=True)
    clean(found, "PDF-A003")


def test_parallel_read_matches_serial(tmp, paper26):
    serial = pdfqa.load(paper26, jobs=1)
    parallel = pdfqa.load(paper26, jobs=2)
    assert [(p.number, p.text, p.blank) for p in serial.pages] == \
        [(p.number, p.text, p.blank) for p in parallel.pages]
    assert [f.to_dict() for f in pdfqa.run_checks(serial, anonymous=True).findings] == \
        [f.to_dict() for f in pdfqa.run_checks(parallel, anonymous=True).findings]


def test_cli_modules_import_no_pdf_library(subprocess_env):
    import subprocess
    import sys

    code = ("import sys, gavelkit.cli.main, gavelkit.cli.award_pdf, gavelkit.award.pdf.pdfqa, "
            "gavelkit.award.pdf.contact_sheet; "
            "print(sorted(m for m in ('pypdfium2', 'PIL') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], env=subprocess_env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stderr


def test_bilingual_caption_pair_is_one_caption(tmp):
    pages = [page(["Summary", "表 5: 中文标题", "表 5: English Title", "Body text", "x", "y",
                   "表 5: 又一个表"], 1)]
    found = qa(write(tmp, "bilingual.pdf", pages))
    f = fires(found, "PDF-C001")          # the third, far from the pair, is a real duplicate
    assert f.data["match"] == "表 5: 又一个表"
    clean(qa(write(tmp, "bilingual2.pdf", [page(["表 5: 中文标题", "表 5: English Title"], 1)])),
          "PDF-C001")
