"""spec_test_map.md in every layout seen in real Bmk-dev maps (hand-made imitations).

Each fixture copies the shape of a real map (header spelling, column order,
cell decorations) with made-up rows; the real maps are read only by the last
test, which skips when the corpus is absent.
"""

from __future__ import annotations

import pytest

from gavelkit.task.formats.mapping_file import parse_mapping
from gavelkit.task.formats.spec_test_map import (
    normalise_layer,
    normalise_status,
    parse_spec_test_map,
    read_spec_test_map,
)
from task_helpers import CORPUS

from gk_testing import clean, fires

HEADINGS = {"parsing", "formatting", "error semantics", "cross-view invariants"}

# (name, header, one row in that layout, expected columns by role)
LAYOUTS = [
    ("six-column with source", "| test_nodeid | source | layer | spec_section | status | notes |",
     "| `oracle/test_atomic.py::test_a` | upstream | atomic | Parsing | covered | ok |",
     {"nodeid": "test_nodeid", "source": "source", "section": "spec_section"}),
    ("five-column, backticks and ## prefix", "| test_nodeid | layer | spec_section | status | notes |",
     "| `oracle/test_atomic.py::test_a` | atomic | `## Parsing` | covered | |",
     {"nodeid": "test_nodeid", "section": "spec_section"}),
    ("source first", "| source | test_nodeid | layer | spec_section | status | notes |",
     "| generated | `filter/generated_tests.py::test_a` | atomic | Parsing | covered | |",
     {"nodeid": "test_nodeid", "source": "source"}),
    ("Local case / Provenance / Specification section / Rationale",
     "| Local case | Provenance | Layer | Specification section | Status | Rationale |",
     "| `oracle/test_atomic.py::test_a[x]` | `tests/t.py::test_u`<br>`tests/t.py::test_v` | atomic "
     "| Parsing | covered | Direct public behavior assertion |",
     {"nodeid": "Local case", "source": "Provenance", "section": "Specification section",
      "notes": "Rationale"}),
    ("oracle_nodeid / source_type", "| oracle_nodeid | source_type | layer | spec_section | status | notes |",
     "| `oracle/test_atomic.py::TestX::test_a` | upstream_transplanted | atomic | Parsing | covered | |",
     {"nodeid": "oracle_nodeid", "source": "source_type"}),
    ("oracle nodeid / spec section (spaces)",
     "| oracle nodeid | source | layer | spec section | status | notes |",
     "| `oracle/test_atomic.py::test_a` | upstream | atomic | Parsing; Formatting | covered | |",
     {"nodeid": "oracle nodeid", "section": "spec section"}),
    ("four columns: Native test / Spec basis", "| Native test | Layer | Spec basis | Status |",
     "| `oracle/test_cli.py::test_a[args0]` | system_e2e | Parsing | covered |",
     {"nodeid": "Native test", "section": "Spec basis", "status": "Status"}),
    ("nodeid / rationale", "| nodeid | source | layer | spec_section | status | rationale |",
     "| `oracle/test_atomic.py::test_a` | upstream | atomic | Parsing | covered | why |",
     {"nodeid": "nodeid", "notes": "rationale"}),
    ("taxonomy as the layer column", "| test_nodeid | source | taxonomy | spec_section | status | notes |",
     "| `oracle/test_atomic.py::test_a` | upstream | atomic | Parsing | covered | |",
     {"layer": "taxonomy"}),
    ("source after layer", "| test_nodeid | layer | source | spec_section | status | notes |",
     "| `oracle/test_atomic.py::test_a` | atomic | upstream | Parsing | covered | |",
     {"source": "source", "layer": "layer"}),
]


@pytest.mark.parametrize(("name", "header", "row", "expect"), LAYOUTS, ids=[x[0] for x in LAYOUTS])
def test_every_real_layout_is_read_by_header(name, header, row, expect):
    ncols = header.count("|") - 1
    text = f"# Map\n\noracle_version: v1\n\n{header}\n|{'---|' * ncols}\n{row}\n"
    stm, fnd = parse_spec_test_map(text, "m.md", HEADINGS)
    assert not [f for f in fnd if f.severity == "error"], [f.message for f in fnd]
    assert not stm.unreadable and len(stm.rows) == 1
    r = stm.rows[0]
    assert r.covered and r.sections and r.sections[0] == "Parsing"
    assert "::" in r.nodeid and not r.nodeid.startswith("`")
    for role, head in expect.items():
        assert stm.columns[role].header == head and stm.columns[role].how == "header"
    clean(fnd, "TSK-R009")


def test_columns_found_by_content_when_headers_are_unknown():
    text = ("| Scenario | Where from | Kind | Spec part | State |\n|---|---|---|---|---|\n"
            "| `oracle/test_atomic.py::test_a` | upstream | atomic | Parsing | covered |\n"
            "| `oracle/test_atomic.py::test_b` | upstream | atomic | Error Semantics | covered |\n")
    stm, fnd = parse_spec_test_map(text, "m.md", HEADINGS)
    assert len(stm.rows) == 2 and not stm.unreadable
    assert stm.columns["nodeid"].how == "content" and stm.columns["nodeid"].header == "Scenario"
    assert stm.columns["section"].how == "content" and stm.columns["section"].header == "Spec part"
    f = fires(fnd, "TSK-R009")
    assert "'Scenario' (column 1, by content)" in f.message and f.line == 1
    assert "column 4" in stm.columns_used()["section"]


def test_section_column_by_content_needs_the_spec_headings():
    text = ("| Scenario | Spec part |\n|---|---|\n| `t.py::test_a` | Parsing |\n")
    stm, fnd = parse_spec_test_map(text, "m.md")  # no headings given
    assert stm.unreadable and not stm.rows
    f = fires(fnd, "TSK-R002")
    assert f.severity == "error" and f.line == 1
    assert "node ids in 'Scenario' (column 1, by content) but no spec-section column" in f.message


def test_unreadable_table_says_why_at_its_line():
    text = ("# Map\n\n| File | Kept | Excluded | Decision |\n|---|---|---|---|\n"
            "| tests/test_x.py | 3 | 1 | keep |\n")
    stm, fnd = parse_spec_test_map(text, "m.md", HEADINGS)
    f = fires(fnd, "TSK-R002")
    assert f.line == 3 and "has no node-id column" in f.message and "File | Kept" in f.message
    assert stm.unreadable.startswith("table at line 3")


def test_no_table_at_all():
    stm, fnd = parse_spec_test_map("# Map\n\nnothing here\n", "m.md")
    f = fires(fnd, "TSK-R002")
    assert "no Markdown table" in f.message and stm.unreadable


def test_quota_table_is_not_taken_for_the_map():
    text = ("## Coverage Quotas\n\n| spec_section | covered_tests | minimum | result |\n"
            "|---|---:|---:|---|\n| Parsing | 4 | 3 | met |\n\n## Oracle Map\n\n"
            "| test_nodeid | layer | spec_section | status | notes |\n|---|---|---|---|---|\n"
            "| `t.py::test_a` | atomic | Parsing | covered | |\n")
    stm, fnd = parse_spec_test_map(text, "m.md", HEADINGS)
    assert len(stm.rows) == 1 and len(stm.extra_tables) == 1
    clean(fnd, "TSK-R002")


def test_bullet_list_map_is_read_without_sections():
    text = ("# Filter Map\n\n## Kept Nodeids\n\n"
            "- `tests/integration/test_basic.py::test_one` [system] - does one thing\n"
            "- `tests/integration/test_config.py::test_two` [integration] - another\n")
    stm, fnd = parse_spec_test_map(text, "m.md", HEADINGS)
    assert stm.layout == "bullet-list" and len(stm.rows) == 2
    assert stm.rows[0].layer == "system_e2e" and stm.rows[0].layer_raw == "system"
    assert not stm.has_sections
    f = fires(fnd, "TSK-R002")
    assert f.severity == "warning" and f.line == 5


@pytest.mark.parametrize(("raw", "want"), [
    ("covered", "covered"), ("Covered", "covered"), ("`covered`", "covered"),
    ("removed-unpromised-surface [20260709]", "excluded"), ("excluded (format trap)", "excluded"),
    ("source_only", "source-only"), ("spec-gap", "spec_gap"), ("banana", "banana")])
def test_status_normalised(raw, want):
    assert normalise_status(raw) == want


@pytest.mark.parametrize(("raw", "want"), [
    ("atomic", "atomic"), ("system", "system_e2e"), ("E2E", "system_e2e"),
    ("system-e2e", "system_e2e"), ("excluded", ""), ("unit", "unit")])
def test_layer_normalised(raw, want):
    assert normalise_layer(raw) == want


def test_status_suffix_and_excluded_layer_keep_the_original():
    text = ("| test_nodeid | source | layer | spec_section | status | notes |\n|---|---|---|---|---|---|\n"
            "| `t.py::test_a` | generated | atomic | Parsing | removed-unpromised-surface [20260709] | |\n"
            "| `t.py::test_b` | upstream | excluded | - | excluded | private |\n")
    stm, fnd = parse_spec_test_map(text, "m.md", HEADINGS)
    clean(fnd, "TSK-R002")
    a, b = stm.rows
    assert a.status == "excluded" and a.status_raw == "removed-unpromised-surface [20260709]"
    assert b.layer == "" and b.layer_raw == "excluded" and b.status == "excluded"


def test_unknown_status_is_still_an_error_at_its_line():
    text = ("| test_nodeid | layer | spec_section | status | notes |\n|---|---|---|---|---|\n"
            "| `t.py::test_a` | atomic | Parsing | banana | |\n")
    _, fnd = parse_spec_test_map(text, "m.md", HEADINGS)
    f = fires(fnd, "TSK-R002")
    assert f.line == 3 and "'banana'" in f.message


def test_mapping_file_cases():
    data = {"schema_version": 1, "cases": [
        {"source_nodeid": "tests/t.py::u", "oracle_nodeid": "oracle/test_atomic.py::test_a",
         "layer": "atomic", "spec_section": "Parsing; Cross-View Invariants"},
        {"oracle_nodeid": "oracle/test_atomic.py::test_b"}]}
    rows, fnd = parse_mapping(data, "source_nodeid_map.json")
    assert rows is not None and len(rows) == 1
    assert rows[0].sections == ["Parsing", "Cross-View Invariants"] and rows[0].covered
    f = fires(fnd, "TSK-R010")
    assert f.severity == "warning" and "1 case(s)" in f.message
    rows, fnd = parse_mapping({"cases": [data["cases"][0]]}, "m.json")
    clean(fnd, "TSK-R010")
    rows, fnd = parse_mapping({"schema_version": 1}, "m.json")
    assert rows is None and fires(fnd, "TSK-R010").severity == "error"


def test_every_real_map_in_the_corpus_is_read():
    base = CORPUS.parent
    maps = sorted(base.glob("*/*/spec_test_map.md")) if base.is_dir() else []
    if not maps:
        pytest.skip(f"corpus {base} is absent")
    for p in maps:
        stm, _ = read_spec_test_map(p)
        assert stm is not None and not stm.unreadable, (p, stm and stm.unreadable)
        assert stm.rows, p


def test_gate_d_reports_the_normalised_spellings(tmp_path):
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.gates import run_gates
    from task_helpers import copy_good, edit

    d = copy_good(tmp_path)
    edit(d / "spec_test_map.md", "| - | excluded | repr format |",
         "| - | removed-unpromised-surface [20260709] | repr format |")
    rep = run_gates(load_task(d), "D")
    assert rep.results["D"].data["map"]["normalised"] == {
        "removed-unpromised-surface [20260709]": "excluded"}
