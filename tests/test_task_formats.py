"""Task file readers: real variants, malformed rows as findings with lines, lossless rewrites."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gavelkit.task.formats.candidates import parse_candidates, render_with_superseded
from gavelkit.task.formats.load import load_task
from gavelkit.task.formats.nodeids import func_key, parse_nodeids
from gavelkit.task.formats.pipeline_state import (
    HistoryRow,
    parse_pipeline_state,
    render_transition,
)
from gavelkit.task.formats.score import score_from_dict
from gavelkit.task.formats.spec import parse_spec
from gavelkit.task.formats.spec_test_map import parse_spec_test_map, split_sections
from gavelkit.task.formats.task_json import parse_task_json, read_task_json, update_task_json
from gavelkit.task.formats.taxonomy import parse_taxonomy
from task_helpers import GOOD, copy_good, need_corpus

from gk_testing import clean, fires


# ------------------------------------------------------------------ spec.md
def test_spec_tree_keeps_exact_headings_and_skips_fences_and_comments():
    spec, fnd = parse_spec((GOOD / "spec.md").read_text("utf-8"))
    clean(fnd, "TSK-R001")
    texts = [s.text for s in spec.tree()]
    assert "Not A Heading" not in texts  # inside a ``` fence
    assert texts[:3] == ["Product Overview", "Non-Goals", "Representative Workflows"]
    pi = spec.exact("## Public Interface")
    assert pi is not None and pi.level == 2
    assert [spec.sections[c].text for c in pi.children] == [
        "Import Surface", "API Catalog", "CLI Entry Points"]
    assert spec.exact("### API Catalog") is not None
    assert spec.exact("## API Catalog") is None  # level given must match
    assert spec.find("`api catalog`")  # normalised lookup


def test_spec_internal_comment_headings_are_ignored():
    text = "<!-- INTERNAL\ntask_id: x\n## Hidden\n-->\n# T\n\n## Real\n\ntext\n"
    spec, _ = parse_spec(text)
    assert [s.text for s in spec.sections] == ["Real"]


def test_spec_structure_findings_have_lines():
    _, fnd = parse_spec("# T\n\n### Early\n\n## A\n\n## A\n")
    f = fires(fnd, "TSK-R001")
    assert f.line == 3
    assert any(x.line == 7 and "repeats line 5" in x.message for x in fnd)
    _, fnd = parse_spec("# Only a title\n\ntext\n")
    assert fires(fnd, "TSK-R001").severity == "error"


# ------------------------------------------------------------------ spec_test_map.md
def test_map_header_variants_and_sections():
    stm, fnd = parse_spec_test_map((GOOD / "spec_test_map.md").read_text("utf-8"))
    clean(fnd, "TSK-R002")
    assert stm.oracle_version == "v1"
    assert stm.oracle_source == "mixed"  # written with the filter/ prefix
    assert stm.layout == "with-source"
    assert len(stm.rows) == 8 and len(stm.covered_rows()) == 7
    assert stm.rows[0].sections == ["Parsing", "Product Overview"]
    assert stm.rows[3].sections == ["Formatting", "API Catalog"]
    assert stm.rows[5].sections == ["Cross-View Invariants", "CLI Entry Points"]
    assert stm.rows[7].sections == []
    assert stm.footer["excluded"] == 1 and stm.footer["kept_(covered)"] == 7


def test_map_layout_without_source_and_source_first_and_inline_header():
    text = ("# Map\n\nFinal artifact. `oracle_source: generated_only`; note.\n\n"
            "| source | test_nodeid | layer | spec_section | status | notes |\n"
            "|---|---|---|---|---|---|\n"
            "| generated | `t.py::test_a[x y]` | atomic | ### `cmd` | covered | |\n\n"
            "| test_nodeid | layer | spec_section | status | notes |\n|---|---|---|---|---|\n"
            "| t.py::test_b | integration | A + B | covered | |\n")
    stm, fnd = parse_spec_test_map(text)
    assert stm.oracle_source == "generated_only"
    assert [r.nodeid for r in stm.rows] == ["t.py::test_a[x y]", "t.py::test_b"]
    assert stm.rows[0].source == "generated" and stm.rows[0].sections == ["`cmd`"]
    assert stm.rows[1].sections == ["A", "B"]
    f = fires(fnd, "TSK-R002")  # the second table switches layout
    assert f.severity == "warning" and f.line == 9


def test_map_malformed_rows_are_findings_and_the_rest_is_read():
    text = ("| test_nodeid | layer | spec_section | status | notes |\n|---|---|---|---|---|\n"
            "| t.py::ok | atomic | A | covered | |\n"
            "| t.py::short | atomic | A |\n"
            "| t.py::badlayer | unit | A | covered | |\n"
            "| t.py::nosec | atomic | - | covered | |\n"
            "| t.py::ok | atomic | A | covered | |\n"
            "| t.py::later | integration | B | covered | |\n")
    stm, fnd = parse_spec_test_map(text, "m.md")
    lines = sorted(f.line for f in fnd if f.code == "TSK-R002")
    assert lines == [4, 5, 6, 7]
    assert [r.nodeid for r in stm.rows][-1] == "t.py::later"


def test_map_without_table_is_a_finding():
    _, fnd = parse_spec_test_map("# nothing here\n")
    assert fires(fnd, "TSK-R002").line == 0


def test_split_sections_variants():
    assert split_sections("`## A`; `### B`") == ["A", "B"]
    assert split_sections("§Rendering") == ["Rendering"]
    assert split_sections("section Workflow + section State Invariants") == [
        "Workflow", "State Invariants"]
    assert split_sections("—") == []


# ------------------------------------------------------------------ nodeids / taxonomy
def test_nodeids_reader():
    ids, fnd = parse_nodeids("a.py::t\n\n# comment\na.py::t[p q]\nnot an id\na.py::t\n a.py::u\n")
    assert ids.ids == ["a.py::t", "a.py::t[p q]", "a.py::u"]
    bad = sorted((f.line, f.severity) for f in fnd if f.code == "TSK-R003")
    assert bad == [(5, "error"), (6, "error"), (7, "warning")]
    fires(fnd, "TSK-R003")
    ok, fnd = parse_nodeids((GOOD / "kept_nodeids.txt").read_text())
    clean(fnd, "TSK-R003")
    assert len(ok.ids) == 7


def test_func_key_normalises_every_key_form():
    forms = ["oracle/test_atomic.py::T::t[x-1]", "test_atomic::T::t", "test_atomic.T.t"]
    assert {func_key(f) for f in forms} == {"test_atomic.T.t"}


def test_taxonomy_reader_accepts_test_id_and_reports_bad_lines():
    text = ('{"taxonomy_key": "m.t1", "layer": "atomic"}\n{"test_id": "m::t2", "layer": '
            '"system_e2e", "source": "generated"}\n{oops\n{"layer": "atomic"}\n'
            '{"taxonomy_key": "m.t3", "layer": "unit"}\n[1]\n{"taxonomy_key": "m.t1", "layer": "atomic"}\n')
    tax, fnd = parse_taxonomy(text)
    assert [e.key for e in tax.entries] == ["m.t1", "m::t2"]
    assert tax.entries[1].source == "generated"
    assert sorted(f.line for f in fnd) == [3, 4, 5, 6, 7]
    fires(fnd, "TSK-R004")
    _, fnd = parse_taxonomy((GOOD / "taxonomy.jsonl").read_text())
    clean(fnd, "TSK-R004")


# ------------------------------------------------------------------ task.json
def test_task_json_rewrite_keeps_bom_order_and_unknown_keys(tmp_path):
    d = copy_good(tmp_path)
    path = d / "task.json"
    before = path.read_bytes()
    assert before.startswith(b"\xef\xbb\xbf")
    tj, fnd = read_task_json(path)
    clean(fnd, "TSK-R005")
    assert tj is not None and tj.bom and tj.oracle_count == 7
    update_task_json(path, {"status": "QUALIFIED", "labels": ["x"]})
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    data = json.loads(raw.decode("utf-8-sig"))
    assert list(data)[:3] == ["instance_id", "status", "repo"]
    assert list(data)[-1] == "labels"
    assert data["zz_unknown_key"] == {"kept": ["as", "is"]}
    assert data["oracle"]["custom_flag"] is True
    assert data["status"] == "QUALIFIED"


def test_task_json_bad_shapes():
    tj, fnd = parse_task_json(b'{"oracle": [], "stats": 3}')
    assert tj is not None
    assert {f.message.split("'")[1] for f in fnd if "'" in f.message} >= {"oracle", "stats"}
    fires(fnd, "TSK-R005")
    tj, fnd = parse_task_json(b"[1, 2]")
    assert tj is None and fnd[0].unusable
    tj, fnd = parse_task_json(b'{"a": 1,,}')
    assert tj is None and fnd[0].line == 1


# ------------------------------------------------------------------ score files
def test_score_shapes():
    cases = [{"nodeid": f"a::t{i}", "outcome": o}
             for i, o in enumerate(["passed", "passed", "passed", "failed", "skipped"])]
    sr, fnd = score_from_dict({"summary": {"passed": 3, "failed": 1, "skipped": 1, "total": 5},
                               "pass_rate_excluding_skips": 0.75, "cases": cases}, "s.json")
    clean(fnd, "TSK-R006")
    assert sr.pass_rate == 0.75 and sr.cases[0].nodeid == "a::t0" and sr.problem() is None
    sr, _ = score_from_dict({"passed": 60, "total": 61}, "t")
    assert sr.pass_rate == pytest.approx(60 / 61)
    sr, _ = score_from_dict({"summary": {"passed": 0, "total": 0}}, "z")
    assert sr.pass_rate is None  # 0/0 is not 100 %
    _, fnd = score_from_dict({"summary": {"passed": 2, "total": 3}, "pass_rate": 1.0}, "w")
    assert fires(fnd, "TSK-R006").severity == "warning"
    _, fnd = score_from_dict({"note": "nothing"}, "n")
    assert fires(fnd, "TSK-R006").severity == "error"


# ------------------------------------------------------------------ PIPELINE_STATE.md
STATE = """# Pipeline State — t

> note

## Current

```
state:      S4_DONE
stage:      4
spec_iter:  1
filter_iter: 0
eval_iter:  0
updated:    2026-01-01
functions_in_scope: 12
```

todo:
- [x] done thing
- [ ] open thing
      continued

---

## History

| # | date | from | to | note |
|---|------|------|----|------|
| 1 | 2026-01-01 | S1_SCREENING | S1_SELECTED | kept |

---

## Catalogue

### S5_JUDGE
```
todo:
  - [ ] Own judge step one
  - [ ] Own judge step two
        with more words
→ QUALIFIED
```
"""


def test_pipeline_state_reader():
    ps, fnd = parse_pipeline_state(STATE)
    clean(fnd, "TSK-R007")
    assert ps.state == "S4_DONE" and ps.iter_value("spec_iter") == 1
    assert ps.current["functions_in_scope"] == "12"
    assert [t.done for t in ps.todo] == [True, False]
    assert ps.todo[1].text == "open thing continued"
    assert ps.history[0].to_state == "S1_SELECTED"
    assert ps.catalogue["S5_JUDGE"] == ["Own judge step one", "Own judge step two with more words"]


def test_pipeline_state_render_touches_only_what_changes():
    ps, _ = parse_pipeline_state(STATE)
    out = render_transition(ps, {"state": "S5_JUDGE", "stage": "5", "updated": "2026-02-02"},
                            ["a", "b"], HistoryRow(2, "2026-02-02", "S4_DONE", "S5_JUDGE", "go|on"))
    assert "state:      S5_JUDGE" in out  # padding kept
    assert "functions_in_scope: 12" in out
    assert "- [ ] a\n- [ ] b\n" in out and "open thing" not in out
    assert "| 2 | 2026-02-02 | S4_DONE | S5_JUDGE | go\\|on |" in out
    assert out.split("## Catalogue")[1] == STATE.split("## Catalogue")[1]
    ps2, fnd = parse_pipeline_state(out)
    clean(fnd, "TSK-R007")
    assert ps2.state == "S5_JUDGE" and len(ps2.history) == 2 and ps2.history[1].note == "go|on"


def test_pipeline_state_broken():
    _, fnd = parse_pipeline_state("# x\n\n## History\n")
    fires(fnd, "TSK-R007")
    _, fnd = parse_pipeline_state("## Current\n```\nspec_iter: lots\n```\n## History\n")
    msgs = [f.message for f in fnd]
    assert any("no 'state:'" in m for m in msgs) and any("not a number" in m for m in msgs)


# ------------------------------------------------------------------ CANDIDATES.md
LEDGER = """# Candidates

| repo | status | metric | detail |
|---|---|---|---|
| owner__tally | SELECTED | spec_v1 | first |
| task_good | QUALIFIED | spec_v1 / 7 tests | graduated |
"""


def test_ledger_superseded_by_keeps_the_row():
    led, fnd = parse_candidates(LEDGER)
    clean(fnd, "TSK-R008")
    row = led.rows[1]
    assert row.matches({"task_good"}) and led.rows[0].matches({"owner/tally"})
    out = render_with_superseded(led, row, "v2")
    assert "| task_good | QUALIFIED | spec_v1 / 7 tests | graduated; superseded_by: v2 |" in out
    assert out.count("\n") == LEDGER.count("\n")
    led2, _ = parse_candidates(out)
    assert render_with_superseded(led2, led2.rows[1], "v2") == out  # idempotent


def test_ledger_broken():
    _, fnd = parse_candidates("# Candidates\n\nno table\n")
    fires(fnd, "TSK-R008")
    _, fnd = parse_candidates("| repo | status |\n|---|---|\n| a | B | c |\n")
    assert fires(fnd, "TSK-R008").line == 3


# ------------------------------------------------------------------ whole folders
def test_load_good_task():
    task = load_task(GOOD)
    assert task.id == "task_good"
    assert not [f for f in task.findings if f.severity == "error"]
    assert sorted(task.test_files) == ["oracle/test_atomic.py", "oracle/test_integration.py"]
    assert task.oracle_source()[0] == "mixed"


def test_all_corpus_tasks_load():
    for d in need_corpus():
        task = load_task(d)
        assert task.spec is not None and task.spec.tree(), d
        assert task.map is not None and task.map.covered_rows(), d
        assert not any(f.unusable for f in task.findings), (d, task.findings[:3])


def test_corpus_variants_are_read():
    tasks = {d.name: load_task(d) for d in need_corpus()}
    bandit = tasks["bandit-securityscan-fullrepro-001"]
    assert bandit.task_json is not None and bandit.task_json.oracle_count == 61
    assert bandit.map.oracle_source == "generated_only"
    cleo = tasks["cleo-fullrepro-001"]
    assert cleo.map.oracle_source == "upstream_rewritten"  # filter/oracle_source
    jrnl = tasks["jrnl-journal-fullrepro-002"]
    assert jrnl.map.oracle_source == "upstream"  # only inside a prose sentence
    assert jrnl.map.layout == "with-source" and len(jrnl.map.covered_rows()) == 481
    assert jrnl.score_result is not None and jrnl.score_result.pass_rate == 1.0
    trans = tasks["transitions-state-machine-fullrepro-001"]
    assert trans.map.layout == "no-source"


# ------------------------------------------------------------------ robustness
_MD = st.text(alphabet=st.sampled_from(list("|#-`:* \n[]abc_0123456789{}\"'<>!~")), max_size=400)


@settings(max_examples=150, deadline=None)
@given(_MD)
def test_readers_never_raise_on_arbitrary_text(text):
    parse_spec(text)
    parse_spec_test_map(text)
    parse_nodeids(text)
    parse_taxonomy(text)
    parse_candidates(text)
    ps, _ = parse_pipeline_state(text)
    if ps.block != (0, 0):
        render_transition(ps, {"state": "S1_SELECTED"}, ["x"], HistoryRow(1, "d", "a", "b", "n"))
    parse_task_json(text.encode())
