"""Gates D/E/F on the shapes real tasks take: older spec standards, the task's own
mapping and coverage records, and rules the documents mark as review items.

Fixtures are the hand-made good task with edits that imitate real Bmk-dev
tasks (a 2026-07-13 spec with the PyPI Environment template, a native-batch task
with source_nodeid_map.json and no map, a task whose coverage lives only in
task.json). The corpus under ../shared is read only by tests that skip when it is
absent.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gavelkit.task.formats.load import load_task
from gavelkit.task.formats.score import score_from_dict
from gavelkit.task.formats.spec import parse_spec
from gavelkit.task.gates import run_gates
from gavelkit.task.gates.standard import current, detect, resembles, standards
from task_helpers import CORPUS, ROOT, copy_good, edit

from gk_testing import clean, cli, cli_json, fires

LEGACY_SPEC = """# tally Specification

## Product Overview

`tally` is a counting library that parses tally strings and formats totals.

## Scope

Parsing and formatting of tally strings.

## Installable Surface

`from tally import parse, render, Tally` must work.

### Import Surface

The package exports `parse`, `render` and `Tally`.

### API Catalog

`parse(text: str) -> Tally` parses a tally string.

### CLI Entry Points

- Console script name: none

## Parsing

- Each `|` adds one to the total; any other character may raise `ValueError`.

## Formatting

- `render` returns the total as decimal digits.

## State Model

A `Tally` holds one total.

## Error Semantics

| condition | exception |
|---|---|
| unknown character | `ValueError` |

## Cross-View Invariants

1. `render(parse(s))` must equal `str(parse(s).total)` for every valid `s`.

## Representative Workflows

A user parses a tally string and formats the total.

## Non-Goals

- A graphical interface is outside this design.

## Invocation Protocol

There is no console script.

## Environment

The implementation may use any third-party packages available on PyPI.

## Evaluation Notes

Scoring is based on behavior.
"""


def _run(d, gates="DEF", **kw):
    return run_gates(load_task(d, **kw), gates)


def legacy_task(tmp_path: Path, name: str = "legacy") -> Path:
    """The good task rewritten as a spec of the 2026-07-13b standard (PyPI template)."""
    d = copy_good(tmp_path, name)
    (d / "spec.md").write_text(LEGACY_SPEC, "utf-8")
    tj = json.loads((d / "task.json").read_text("utf-8-sig"))
    tj["spec_standard"] = "2026-07-13b"  # what the task records, never what its headings suggest
    (d / "task.json").write_text(json.dumps(tj, indent=2), "utf-8")
    return d


# ------------------------------------------------------------------ standards
@pytest.mark.parametrize(("headings", "hint"), [
    (["Product Overview", "Scope", "Non-Goals"], "2026-06-30"),
    (["Product Overview", "Invocation Protocol"], "2026-07-13a"),
    (["Product Overview", "Invocation Protocol", "Environment"], "2026-07-13b"),
    (["Product Overview", "Public Interface", "Appendix A: Environment"], "2026-07-23"),
])
def test_headings_never_choose_the_standard(headings, hint):
    """Issue 26 item 1: what a spec lacks never moves it to an older standard."""
    spec, _ = parse_spec("# x\n\n" + "".join(f"## {h}\n\ntext\n\n" for h in headings))
    std, why = detect(spec, {"spec": {"standard": "auto", "structure": "auto"}})
    assert std.id == "2026-07-23" and "no standard recorded" in why
    assert resembles(spec).id == hint  # a hint for the summary line only


@pytest.mark.parametrize(("where", "want"), [
    ("task.json", "2026-07-13b"), ("map", "2026-07-13a"), ("spec-internal", "2026-06-30"),
    ("spec-meta", "2026-07-13b"), ("nowhere", "2026-07-23")])
def test_standard_comes_from_what_the_task_records(tmp_path, where, want):
    d = copy_good(tmp_path)
    if where == "task.json":
        tj = json.loads((d / "task.json").read_text("utf-8-sig"))
        tj["spec_standard"] = "2026-07-13b"
        (d / "task.json").write_text(json.dumps(tj, indent=2), "utf-8")
    elif where == "map":
        m = (d / "spec_test_map.md").read_text("utf-8")
        (d / "spec_test_map.md").write_text("spec_standard: `2026-07-13a`\n\n" + m, "utf-8")
    elif where == "spec-internal":
        sp = (d / "spec.md").read_text("utf-8")
        (d / "spec.md").write_text("<!-- INTERNAL\nspec_version: v2\nspec_standard: 2026-06-30\n-->\n"
                                   + sp, "utf-8")
    elif where == "spec-meta":
        sp = (d / "spec.md").read_text("utf-8")
        (d / "spec.md").write_text(sp + "\n- **Spec standard:** SPEC_STANDARD 2026-07-13b\n", "utf-8")
    t = load_task(d)
    std, why = detect(t.spec, t.config, t)
    assert std.id == want, why
    if where != "nowhere":
        assert why.startswith("recorded in ")


def test_unknown_recorded_standard_is_the_current_one_and_says_so(tmp_path):
    d = copy_good(tmp_path)
    tj = json.loads((d / "task.json").read_text("utf-8-sig"))
    tj["spec_standard"] = "v9"
    (d / "task.json").write_text(json.dumps(tj, indent=2), "utf-8")
    t = load_task(d)
    std, why = detect(t.spec, t.config, t)
    assert std.is_current and "'v9', which is no known standard" in why


def test_deleting_environment_is_a_missing_section_not_an_older_standard(tmp_path):
    """Issue 26 item 1: removing `## Environment` from a spec does not excuse it."""
    d = legacy_task(tmp_path)
    tj = json.loads((d / "task.json").read_text("utf-8-sig"))
    del tj["spec_standard"]
    (d / "task.json").write_text(json.dumps(tj, indent=2), "utf-8")
    sp = (d / "spec.md").read_text("utf-8")
    start = sp.index("## Environment")
    end = sp.index("\n## ", start + 3)
    (d / "spec.md").write_text(sp[:start] + sp[end + 1:], "utf-8")
    rep = _run(d)
    assert rep.standard["applied"] == "2026-07-23"
    assert rep.verdicts["E"] == "FAIL" and rep.verdicts["F"] == "FAIL"
    assert any(f.code == "TSK-E001" and "Appendix A: Environment" in f.message for f in rep.findings)


def test_standard_override_and_versions_are_data():
    assert [s.id for s in standards()] == ["2026-06-30", "2026-07-13a", "2026-07-13b", "2026-07-23"]
    assert current().id == "2026-07-23" and current().phrasing_rules
    spec, _ = parse_spec("# x\n\n## Public Interface\n\ntext\n")
    std, why = detect(spec, {"spec": {"standard": "2026-06-30"}})
    assert std.id == "2026-06-30" and "configuration" in why


def test_older_standard_task_is_told_so_in_one_line(tmp_path):
    d = legacy_task(tmp_path)
    rep = _run(d)
    assert rep.standard["applied"] == "2026-07-13b" and rep.standard["current"] == "2026-07-23"
    f = fires(rep.findings, "TSK-E014")
    assert f.message.startswith("written to standard 2026-07-13b")
    assert "under the current standard 2026-07-23:" in f.message
    # grouped by cause, not one finding each
    assert "structure:" in f.message and "phrasing rules:" in f.message
    assert "TSK-F001 x1" in f.message and "Environment section:" in f.message
    assert sum(1 for x in rep.findings if x.code == "TSK-E014") == 1
    # the phrasing rules did not exist in that standard: no Gate F failure
    assert rep.verdicts["F"] == "N/A"
    for code in ("TSK-F001", "TSK-F002", "TSK-F004", "TSK-F005", "TSK-F006", "TSK-F007"):
        clean(rep.findings, code)
    # the 2026-07-13 template itself promised "any third-party packages on PyPI"
    clean(rep.findings, "TSK-E013")
    clean(rep.findings, "TSK-E001")
    _rc, out, _ = cli("task", "gates", str(d))
    assert "standard applied: 2026-07-13b" in out and "Gate F N/A" in out


def test_current_standard_task_gets_no_standard_line():
    from task_helpers import GOOD

    rep = _run(GOOD)
    clean(rep.findings, "TSK-E014")
    assert rep.standard["applied"] == "2026-07-23" and "line" not in rep.standard


def test_older_standard_still_checks_its_own_sections(tmp_path):
    d = legacy_task(tmp_path)
    edit(d / "spec.md", "## Scope\n", "## Coverage Area\n")
    f = fires(_run(d, "E").findings, "TSK-E001")
    assert "'Scope'" in f.message and "standard 2026-07-13b" in f.message


# ------------------------------------------------------------------ Gate D sources
def _native_batch(tmp_path: Path) -> Path:
    """No spec_test_map.md; oracle.mapping_file = source_nodeid_map.json (LiandZhang layout)."""
    d = copy_good(tmp_path, "native")
    (d / "spec_test_map.md").unlink()
    tj = json.loads((d / "task.json").read_text("utf-8-sig"))
    tj["oracle"]["mapping_file"] = "source_nodeid_map.json"
    (d / "task.json").write_text(json.dumps(tj, indent=2), "utf-8")
    rows = [("oracle/test_atomic.py::test_parse_counts_strokes[a]", "atomic", "Parsing"),
            ("oracle/test_atomic.py::test_parse_rejects_letters", "atomic", "Error Semantics"),
            ("oracle/test_atomic.py::test_render_digits", "atomic", "Formatting"),
            ("oracle/test_atomic.py::test_tally_total_is_fixed", "atomic", "State Model"),
            ("oracle/test_integration.py::test_round_trip", "integration",
             "Cross-View Invariants; CLI Entry Points"),
            ("oracle/test_integration.py::test_workflow_with_fixture", "system_e2e",
             "Representative Workflows")]
    data = {"schema_version": 1, "mapping_contract": {"oracle_nodeid": "score identity"},
            "cases": [{"source_nodeid": f"tests/t.py::u{i}", "oracle_nodeid": n, "layer": layer,
                       "spec_section": sec, "fixture_dependencies": []}
                      for i, (n, layer, sec) in enumerate(rows)]}
    (d / "source_nodeid_map.json").write_text(json.dumps(data, indent=1), "utf-8")
    return d


def test_gate_d_uses_the_mapping_file_when_there_is_no_map(tmp_path):
    d = _native_batch(tmp_path)
    rep = _run(d, "D")
    res = rep.results["D"]
    assert res.data["source"] == "mapping_file" and res.verdict == "FULL"
    f = fires(rep.findings, "TSK-D007")
    assert "oracle.mapping_file" in f.message and f.path.endswith("source_nodeid_map.json")
    clean(rep.findings, "TSK-D001")
    _rc, out, _ = cli("task", "gates", str(d), "--gate", "D")
    assert "Gate D source: oracle.mapping_file" in out


def test_gate_d_map_first_and_says_so():
    from task_helpers import GOOD

    rep = _run(GOOD, "D")
    assert rep.results["D"].data["source"] == "map"
    assert rep.results["D"].data["map"]["columns"]["nodeid"].startswith("'test_nodeid'")
    clean(rep.findings, "TSK-D007")


def test_gate_d_from_the_task_record_is_not_recomputed(tmp_path):
    d = copy_good(tmp_path, "record")
    (d / "spec_test_map.md").unlink()
    tj = json.loads((d / "task.json").read_text("utf-8-sig"))
    tj["coverage"] = {"verdict": "PARTIAL_ACCEPTABLE", "uncovered_sections": [
        {"spec_section": "Non-Goals", "type": "narrative", "impact": "none"},
        {"spec_section": "Formatting", "type": "secondary", "impact": "low"}]}
    (d / "task.json").write_text(json.dumps(tj, indent=2), "utf-8")
    rep = _run(d, "D")
    res = rep.results["D"]
    assert res.verdict == "PARTIAL" and res.data["source"] == "task_record"
    f = fires(rep.findings, "TSK-D007")
    assert "from the task's record" in f.message and "not recomputed" in f.message
    assert [r["section"] for r in res.table] == ["Non-Goals", "Formatting"]
    clean(rep.findings, "TSK-D002")
    # a recorded uncovered core section is still GAP
    tj["coverage"]["uncovered_sections"].append({"spec_section": "Error Semantics",
                                                 "type": "core", "impact": "high"})
    (d / "task.json").write_text(json.dumps(tj, indent=2), "utf-8")
    rep = _run(d, "D")
    assert rep.verdicts["D"] == "GAP" and "Error Semantics" in fires(rep.findings, "TSK-D002").message


def test_gate_d_without_any_source_says_why(tmp_path):
    d = copy_good(tmp_path, "nosrc")
    (d / "spec_test_map.md").write_text("# Map\n\n| File | Kept |\n|---|---|\n| a.py | 3 |\n",
                                        "utf-8")
    rep = _run(d, "D")
    assert rep.verdicts["D"] == "UNKNOWN"
    f = fires(rep.findings, "TSK-D001")
    assert "table at line 3" in f.message and "no coverage record" in f.message


def test_mapping_file_named_but_missing(tmp_path):
    d = _native_batch(tmp_path)
    (d / "source_nodeid_map.json").unlink()
    rep = _run(d, "D")
    f = fires(rep.findings, "TSK-R010")
    assert f.severity == "error" and "does not exist" in f.message
    assert rep.verdicts["D"] == "UNKNOWN"


def test_accepted_coverage_gap_is_a_warning(tmp_path):
    d = copy_good(tmp_path)
    edit(d / "spec_test_map.md", "| Error Semantics |", "| Parsing |")
    tj = json.loads((d / "task.json").read_text("utf-8-sig"))
    tj["coverage_gap"] = {"sections": ["Error Semantics"], "reason": "no further tests"}
    (d / "task.json").write_text(json.dumps(tj, indent=2), "utf-8")
    rep = _run(d, "D")
    f = fires(rep.findings, "TSK-D002")
    assert f.severity == "warning" and "caveat" in f.message
    assert rep.verdicts["D"] == "GAP" and rep.results["D"].data["gap_accepted"]
    assert rep.passed


def test_stale_map_headings_are_grouped(tmp_path):
    d = copy_good(tmp_path)
    text = (d / "spec_test_map.md").read_text("utf-8")
    (d / "spec_test_map.md").write_text(text.replace("| ## Parsing |", "| Public Behavior |")
                                        .replace("`## Parsing`; `## Product Overview`",
                                                 "Public Behavior"), "utf-8")
    found = [f for f in _run(d, "D").findings if f.code == "TSK-D006"]
    assert len(found) == 1 and found[0].message.startswith("2 covered row(s) map to 'Public Behavior'")


# ------------------------------------------------------------------ review items
def test_signature_is_an_error_only_in_the_api_catalog(tmp_path):
    d = copy_good(tmp_path)
    edit(d / "spec.md", "`from tally import parse, render, Tally` must work.",
         "`parse(text, strict=False)` must work.")
    f = fires(_run(d, "F").findings, "TSK-F006")
    assert f.severity == "warning" and f.message.startswith("review:")
    assert _run(d, "F").verdicts["F"] == "PASS"
    edit(d / "spec.md", "| `parse` | function |", "| `parse(text: str) -> Tally` | function |")
    errs = [x for x in _run(d, "F").findings if x.code == "TSK-F006" and x.severity == "error"]
    assert len(errs) == 1 and "API Catalog" in errs[0].message


def test_modal_word_is_an_error_only_in_invariants(tmp_path):
    d = copy_good(tmp_path)
    edit(d / "spec.md", "Any other character must raise", "Any other character may raise")
    rep = _run(d, "F")
    f = fires(rep.findings, "TSK-F007")
    assert f.severity == "warning" and rep.verdicts["F"] == "PASS"
    edit(d / "spec.md", "`render(parse(s))` must equal", "`render(parse(s))` should equal")
    f = [x for x in _run(d, "F").findings if x.code == "TSK-F007" and x.severity == "error"]
    assert len(f) == 1 and "Cross-View Invariants" in f[0].message


def test_scoring_in_the_notes_section_is_a_review_warning(tmp_path):
    d = copy_good(tmp_path)
    edit(d / "spec.md", "Tests exercise parsing", "Scoring exercises parsing")
    f = fires(_run(d, "E").findings, "TSK-E004")
    assert f.severity == "warning" and "notes section" in f.message
    edit(d / "spec.md", "Formatting turns a `Tally` into text.",
         "Formatting turns a `Tally` into text for scoring.")
    errs = [x for x in _run(d, "E").findings if x.code == "TSK-E004" and x.severity == "error"]
    assert len(errs) == 1


def test_layer_floor_functions_vs_node_ids(tmp_path):
    d = copy_good(tmp_path)
    (d / "gavel-task.toml").write_text("[gate_e]\nmin_atomic = 5\nmin_integration = 1\n"
                                       "min_total = 5\n")
    # 4 atomic functions, 5 atomic node ids (one parametrized function)
    f = fires(_run(d, "E").findings, "TSK-E008")
    assert f.severity == "warning" and "5 node ids reach it" in f.message
    (d / "gavel-task.toml").write_text("[gate_e]\nmin_atomic = 6\nmin_integration = 1\n"
                                       "min_total = 5\n")
    f = fires(_run(d, "E").findings, "TSK-E008")
    assert f.severity == "error"


def test_task_json_taxonomy_entries_variant(tmp_path):
    d = copy_good(tmp_path)
    tj = json.loads((d / "task.json").read_text("utf-8-sig"))
    tj["taxonomy"] = {"atomic": 5, "entries": [{"taxonomy_key": k, "layer": v}
                                               for k, v in tj["taxonomy"].items()]}
    (d / "task.json").write_text(json.dumps(tj, indent=2), "utf-8")
    (d / "taxonomy.jsonl").unlink()
    t = load_task(d)
    assert len(t.task_json.taxonomy) == 7
    assert run_gates(t, "E").results["E"].data["layers"]["functions"]["atomic"] == 4


@pytest.mark.parametrize(("stated", "warn"), [(100.0, False), (1.0, False), (90.0, True)])
def test_pass_rate_stated_as_a_percentage(stated, warn):
    _, fnd = score_from_dict({"summary": {"passed": 5, "failed": 0, "total": 5},
                              "pass_rate": stated}, "s.json")
    assert any("stated pass rate" in f.message for f in fnd) == warn


# ------------------------------------------------------------------ gates-all
def test_gates_all_verdict_per_task_and_causes(tmp_path):
    root = tmp_path / "tasks"
    for sub in ("a", "b", "c"):
        (root / sub).mkdir(parents=True)
    copy_good(root / "a")
    legacy_task(root / "b", "task_good")
    bad = copy_good(root / "c")
    edit(bad / "spec_test_map.md", "| Error Semantics |", "| Parsing |")
    rc, doc = cli_json("task", "gates-all", str(root))
    assert rc == 1
    rows = {r["path"]: r for r in doc["tasks"]}
    assert rows["a/task_good"]["passed"] and rows["a/task_good"]["verdicts"]["D"] == "FULL"
    assert rows["c/task_good"]["verdicts"]["D"] == "GAP" and not rows["c/task_good"]["passed"]
    assert rows["b/task_good"]["standard"] == "2026-07-13b" and rows["b/task_good"]["standard_line"]
    assert doc["summary"]["tasks"] == 3 and doc["summary"]["older_standard"] == {"2026-07-13b": 1}
    assert any(c["code"] == "TSK-D002" and c["examples"] == ["c/task_good"] for c in doc["causes"])
    from gavelkit.core.findings import Finding

    clean([Finding(**{k: x[k] for k in ("code", "severity", "message", "path", "line", "col")})
           for x in doc["findings"]], "TSK-R011")
    rc, out, _ = cli("task", "gates-all", str(root), "--top", "2")
    assert "most common causes" in out and "3 task(s): 2 pass every gate, 1 fail" in out, out
    assert re.search(r"^ 1\. TSK-", out, re.M) and not re.search(r"^ 3\. TSK-", out, re.M)


def test_gates_all_unloadable_task_and_bad_folder(tmp_path):
    root = tmp_path / "tasks"
    root.mkdir()
    d = copy_good(root, "broken")
    (d / "gavel-task.toml").write_text("[gate_e\n", "utf-8")
    rc, doc = cli_json("task", "gates-all", str(root))
    assert rc == 1 and doc["summary"]["unreadable"] == 1
    from gavelkit.core.findings import Finding

    f = fires([Finding(**{k: x[k] for k in ("code", "severity", "message", "path", "line", "col")})
               for x in doc["findings"]], "TSK-R011")
    assert "broken" in f.path
    rc, _, err = cli("task", "gates-all", str(tmp_path / "nope"))
    assert rc == 2 and "nope" in err


# ------------------------------------------------------------------ the catalog cites the documents
def _docs() -> Path | None:
    for base in (ROOT.parent / "shared", ROOT.parent.parent / "shared"):
        p = base / "reference" / "bmk-docs"
        if p.is_dir():
            return p
    return None


def test_every_error_level_gate_rule_cites_a_document_line():
    from gavelkit.core.rules import catalog

    docs = _docs()
    for code, rule in catalog().items():
        if not re.match(r"TSK-[DEF]\d{3}$", code) or rule.severity != "error":
            continue
        cites = re.findall(r"([\w.-]+\.md):(\d+)", rule.doc)
        assert "Enforces:" in rule.doc and cites, f"{code} cites no document line"
        if docs is None:
            continue
        for name, line in cites:
            path = docs / name
            assert path.is_file(), f"{code} cites {name}, not in {docs}"
            n = len(path.read_text("utf-8").splitlines())
            assert 1 <= int(line) <= n, f"{code} cites {name}:{line}, file has {n} lines"


def test_real_corpus_tasks_all_get_a_gate_d_source_or_say_why():
    base = CORPUS.parent
    dirs = sorted(p for s in ("bmk-real", "bmk-tasks") if (base / s).is_dir()
                  for p in (base / s).iterdir() if p.is_dir())
    if not dirs:
        pytest.skip(f"corpus {base} is absent")
    for d in dirs:
        rep = _run(d)
        res = rep.results["D"]
        assert res.data.get("source") or any(f.code == "TSK-D001" for f in rep.findings), d
        if (d / "spec_test_map.md").is_file():
            assert not res.data["map"]["unreadable"], d


def test_map_cell_naming_an_alias_counts_with_a_warning(tmp_path):
    d = legacy_task(tmp_path)
    edit(d / "spec.md", "## Evaluation Notes\n", "## Implementation Guidance\n")
    edit(d / "spec_test_map.md", "| Representative Workflows |", "| Representative Workflows; Evaluation Notes |")
    rep = _run(d, "D")
    f = fires(rep.findings, "TSK-D006")
    assert f.severity == "warning" and "'## Implementation Guidance'" in f.message
    assert not [x for x in rep.findings if x.code == "TSK-D006" and x.severity == "error"]


def test_repository_level_oracle_folder_is_found(tmp_path):
    """QUALITY_GATE Gate 0 / Bmk-dev main: tasks/{id}/ beside oracle/{id}/."""
    import shutil

    repo = tmp_path / "repo"
    (repo / "tasks").mkdir(parents=True)
    d = copy_good(repo / "tasks")
    (repo / "oracle").mkdir()
    shutil.move(str(d / "oracle"), str(repo / "oracle" / "task_good"))
    t = load_task(d)
    assert t.oracle_dir == (repo / "oracle" / "task_good").resolve()
    assert sorted(t.test_files) == ["oracle/test_atomic.py", "oracle/test_integration.py"]
    assert not t.missing_test_files
    rep = run_gates(t, "E")
    clean(rep.findings, "TSK-E010")
    clean(rep.findings, "TSK-E012")
    assert rep.verdicts["E"] == "PASS"
    # a task folder outside tasks/ does not look for a sibling oracle folder
    other = copy_good(tmp_path / "elsewhere")
    shutil.rmtree(other / "oracle")
    assert load_task(other).oracle_dir is None
