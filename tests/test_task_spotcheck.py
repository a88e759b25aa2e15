"""Gates A and C: reproducible samples, AST summaries, and verification of filled tables."""

from __future__ import annotations

from gavelkit.task.formats.load import load_task
from gavelkit.task.gates import spotcheck as sc
from task_helpers import GOOD, copy_good, edit, need_corpus

from gk_testing import clean, cli, cli_json, fires


def test_sample_is_reproducible_and_seed_dependent():
    task = load_task(GOOD)
    a = [r.nodeid for r in sc.sample(task, 3, seed=7)]
    assert a == [r.nodeid for r in sc.sample(task, 3, seed=7)]
    assert a == sorted(a) and len(set(a)) == 3
    seeds = {tuple(r.nodeid for r in sc.sample(task, 3, seed=s)) for s in range(10)}
    assert len(seeds) > 1
    assert len(sc.sample(task, 99, seed=1)) == 7  # all covered rows, no excluded one


def test_build_quotes_exact_headings_and_summarises_asserts():
    task = load_task(GOOD)
    rows = {r.nodeid: r for r in sc.build(task, 7, seed=0)}
    r = rows["oracle/test_atomic.py::test_parse_rejects_letters"]
    assert r.summary == "raises ValueError" and r.spec_section == "## Error Semantics"
    r = rows["oracle/test_atomic.py::test_parse_counts_strokes[a]"]
    assert r.summary == "assert parse(text).total == total"
    assert r.spec_section == "## Parsing; ## Product Overview"
    r = rows["oracle/test_integration.py::test_round_trip"]  # helper call, no assert of its own
    assert r.spec_section == "## Cross-View Invariants; ### CLI Entry Points"
    assert r.summary == "via _check_round_trip(): assert render(parse(text)) == str(parse(text).total)"
    assert r.verdict == ""


def _filled(task_dir, gate="A", verdict="derivable", n=7):
    task = load_task(task_dir)
    rows = sc.build(task, n, seed=0, gate=gate)
    for r in rows:
        r.verdict = verdict
    return sc.render(rows, gate, 0, n, sc.allowed_verdicts(task.config, gate))


def test_filled_table_verifies_clean(tmp_path):
    text = _filled(GOOD)
    res = sc.verify(load_task(GOOD), text, "t.md", "A")
    for code in ("TSK-A001", "TSK-A002", "TSK-A003", "TSK-A004", "TSK-A005", "TSK-A007"):
        clean(res.findings, code)
    assert res.verdicts == {"derivable": 7}
    p = tmp_path / "filled.md"
    p.write_text(text)
    rc, data = cli_json("task", "spotcheck", str(GOOD), "--verify", str(p))
    assert rc == 0 and data["gate"] == "A" and data["rows"] == 7


def test_verify_rejects_bad_rows(tmp_path):
    task = load_task(GOOD)
    text = _filled(GOOD)
    lines = text.splitlines()
    # row 1: empty verdict; row 2: heading not verbatim; row 3: verdict outside the set;
    # row 4: a node id that is not a covered row; row 5: "not derivable"
    rows = [i for i, ln in enumerate(lines) if ln.startswith("| `")]
    lines[rows[0]] = lines[rows[0]].rsplit("|", 2)[0] + "|  |"
    cells = lines[rows[1]].split(" | ")
    cells[2] = "Errors semantics"
    lines[rows[1]] = " | ".join(cells)
    lines[rows[2]] = lines[rows[2]].replace("| derivable |", "| looks fine |")
    lines[rows[3]] = lines[rows[3]].replace("`oracle/", "`other/", 1)
    lines[rows[4]] = lines[rows[4]].replace("| derivable |", "| not derivable |")
    res = sc.verify(task, "\n".join(lines), "t.md", "A")
    assert fires(res.findings, "TSK-A002").line == rows[0] + 1
    a3 = fires(res.findings, "TSK-A003")
    assert "Errors semantics" in a3.message
    assert "'looks fine'" in fires(res.findings, "TSK-A004").message
    fires(res.findings, "TSK-A005")
    assert "1 not derivable" in fires(res.findings, "TSK-A007").message
    res = sc.verify(task, "no table here", "t.md", "A")
    fires(res.findings, "TSK-A001")


def test_heading_quotes_accept_prefix_and_backticks_but_not_case_changes():
    task = load_task(GOOD)
    assert sc._heading_ok(task, "## Error Semantics")
    assert sc._heading_ok(task, "`Error Semantics`")
    assert not sc._heading_ok(task, "error semantics")
    assert not sc._heading_ok(task, "### Error Semantics")  # wrong level


def test_gate_c_trigger_variants_and_min_rows(tmp_path):
    d = copy_good(tmp_path)
    task = load_task(d)
    assert sc.gate_c_triggered(task)[0] is False  # mixed
    for variant in ("generated_only", "`generated-only`", "Generated Only", "track_b_only"):
        text = (GOOD / "spec_test_map.md").read_text().replace("filter/oracle_source: mixed",
                                                                f"filter/oracle_source: {variant}")
        (d / "spec_test_map.md").write_text(text)
        assert sc.gate_c_triggered(load_task(d))[0] is True, variant
    rc, data = cli_json("task", "spotcheck", str(d), "--sample", "2", "--seed", "3")
    assert data["gate"] == "C" and data["sample"] == 5  # raised to the Gate C minimum
    fires([_f(x) for x in data["findings"]], "TSK-A008")
    # only 4 covered rows have source "generated": too few for Gate C
    fires([_f(x) for x in data["findings"]], "TSK-A006")
    assert rc == 1 and all("generated" for r in data["rows"])
    clean([_f(x) for x in cli_json("task", "spotcheck", str(GOOD))[1]["findings"]], "TSK-A008")


def test_gate_c_verdicts(tmp_path):
    d = copy_good(tmp_path)
    edit(d / "spec_test_map.md", "filter/oracle_source: mixed", "oracle_source: generated_only")
    edit(d / "spec_test_map.md", "| upstream | system_e2e |", "| generated | system_e2e |")
    text = _filled(d, gate="C", n=5)
    task = load_task(d)
    res = sc.verify(task, text, "c.md", "C")
    clean(res.findings, "TSK-A006")
    clean(res.findings, "TSK-A007")
    bad = text.replace("| derivable |", "| circular |", 1)
    res = sc.verify(task, bad, "c.md", "C")
    assert "1 circular" in fires(res.findings, "TSK-A007").message
    res = sc.verify(task, text.replace("| derivable |", "| not derivable |", 1), "c.md", "C")
    fires(res.findings, "TSK-A004")  # a Gate A verdict is not a Gate C verdict
    few = "\n".join(text.splitlines()[:6])
    fires(sc.verify(task, few, "c.md", "C").findings, "TSK-A006")


def test_spotcheck_cli_writes_atomically(tmp_path):
    out = tmp_path / "spot.md"
    rc, text, _ = cli("task", "spotcheck", str(GOOD), "--sample", "3", "--seed", "1", "--out",
                      str(out))
    assert rc == 0 and "wrote 3 row(s)" in text
    body = out.read_text()
    assert body.count("\n| `") == 3 and "| nodeid | assertion summary | spec_section | verdict |" in body
    rc, text2, _ = cli("task", "spotcheck", str(GOOD), "--sample", "3", "--seed", "1")
    assert text2.strip() == body.strip()
    rc, _, _ = cli("task", "spotcheck", str(GOOD), "--sample", "0")
    assert rc == 2


def test_spotcheck_on_corpus():
    for d in need_corpus():
        rc, data = cli_json("task", "spotcheck", str(d), "--sample", "5", "--seed", "1")
        assert rc in (0, 1) and data["rows"]
        if d.name.startswith("bandit"):
            assert data["gate"] == "C"  # oracle_source: `generated_only`
        if d.name.startswith("transitions"):
            assert data["rows"][0]["spec_section"].count("NOT A SPEC HEADING") == 0


def _f(d):
    from gavelkit.core.findings import Finding

    return Finding(d["code"], d["severity"], d["message"], d["path"], d["line"], d["col"])


_HEADER_ONLY = ("<!-- gavel task spotcheck: Gate A, seed 0, sample 1; verdict one of: derivable -->"
                "\n\n| nodeid | assertion summary | spec_section | verdict |\n|---|---|---|---|\n")
_ONE_ROW = (_HEADER_ONLY + "| `oracle/test_atomic.py::test_parse_rejects_letters` | raises "
            "ValueError | ## Error Semantics | derivable |\n")


def test_verify_refuses_a_table_without_rows(tmp_path):
    # was "Gate A: 0 row(s)", exit 0: an empty table verified nothing and passed
    p = tmp_path / "empty.md"
    p.write_text(_HEADER_ONLY)
    rc, data = cli_json("task", "spotcheck", str(GOOD), "--verify", str(p))
    assert rc == 1 and data["rows"] == 0
    f = fires(sc.verify(load_task(GOOD), _HEADER_ONLY, str(p)).findings, "TSK-A011")
    assert f.line == 3 and f.severity == "error"


def test_verify_one_filled_row_is_not_an_empty_table(tmp_path):
    p = tmp_path / "one.md"
    p.write_text(_ONE_ROW)
    rc, data = cli_json("task", "spotcheck", str(GOOD), "--verify", str(p))
    assert rc == 0 and data["rows"] == 1
    clean(sc.verify(load_task(GOOD), _ONE_ROW, str(p)).findings, "TSK-A011")
    # a row with the wrong cell count is a broken row (A002), not an empty table
    broken = _HEADER_ONLY + "| `oracle/test_atomic.py::test_parse_rejects_letters` | x |\n"
    res = sc.verify(load_task(GOOD), broken, str(p))
    fires(res.findings, "TSK-A002")
    clean(res.findings, "TSK-A011")
