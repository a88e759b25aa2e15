"""The rule-example format (core.rules, cli.rule_examples) and `gavel rules` showing it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gavelkit.cli.rule_examples import difference, materialize, one_respect, run_case
from gavelkit.core.rules import CatalogError, _rule, catalog

from gk_testing import cli

DOC = "a doc long enough to say why the rule exists, as every rule's doc must."


def rule(**extra: object):  # type: ignore[no-untyped-def]
    return _rule("XX-A001", {"severity": "error", "title": "t", "doc": DOC, **extra}, "test")


def test_near_miss_inherits_the_firing_case_and_changes_one_thing() -> None:
    r = rule(fires={"run": "gavel award lint handoff h.yaml", "env": {"A": "1"},
                    "files": {"h.yaml": {"base": "handoff.yaml", "edit": [["loop: 0", "loop: -1"]]},
                              "x.txt": "x\n"}},
             near={"files": {"h.yaml": {"base": "handoff.yaml"}}, "env": {"B": "2"}})
    ex = r.examples
    assert ex.near.run == ex.fires.run == ("award", "lint", "handoff", "h.yaml")
    assert set(ex.near.files) == {"h.yaml", "x.txt"} and dict(ex.near.env) == {"A": "1", "B": "2"}
    assert ex.near.files["h.yaml"].edit == () and ex.near_changes.run == ()


@pytest.mark.parametrize(("extra", "why"), [
    ({"fires": {"run": "gavel rules"}}, "both"),
    ({"fires": {"run": "rules"}, "near": {}}, "must start with 'gavel'"),
    ({"fires": {"files": {}}, "near": {}}, "needs run"),
    ({"fires": {"run": "gavel rules", "stdin": "x"}, "near": {}}, "unknown keys"),
    ({"fires": {"run": "gavel rules", "files": {"a": {"text": "x", "link": "b"}}}, "near": {}},
     "one source only"),
    ({"fires": {"run": "gavel rules", "files": {"a": {}}}, "near": {}}, "says nothing"),
    ({"fires": {"run": "gavel rules", "files": {"a": {"link": "b", "edit": [["x", "y"]]}}},
      "near": {}}, "edits only on text"),
    ({"fires": {"run": "gavel rules", "files": {"a": {"base": "h", "edit": ["x"]}}},
      "near": {}}, "pairs"),
    ({"example": {}}, "unknown keys"),
])
def test_malformed_examples_are_refused_by_name(extra: dict, why: str) -> None:
    with pytest.raises(CatalogError) as exc:
        rule(**extra)
    assert "XX-A001" in str(exc.value) and why in str(exc.value)


def test_materialize_refuses_stale_edits_and_escaping_paths(tmp_path: Path) -> None:
    stale = rule(fires={"run": "gavel rules", "files": {"h.yaml": {
        "base": "handoff.yaml", "edit": [["no such text", "x"]]}}}, near={})
    with pytest.raises(CatalogError, match="occurs 0 times"):
        materialize(stale.examples.fires, tmp_path / "a")
    out = rule(fires={"run": "gavel rules", "files": {"../x": "x"}}, near={})
    with pytest.raises(CatalogError, match="inside the example folder"):
        materialize(out.examples.fires, tmp_path / "b")
    with pytest.raises(CatalogError, match="no fixture"):
        materialize(rule(fires={"run": "gavel rules", "base": "nope"}, near={}).examples.fires,
                    tmp_path / "c")


def test_materialize_writes_every_kind_of_path(tmp_path: Path) -> None:
    r = rule(fires={"run": "gavel rules", "base": "award-run", "files": {
        "t.txt": "hi\n", "l": {"link": "t.txt"}, "p": {"fifo": True}, "d": {"dir": True},
        "b": {"hex": "00ff"}, "work/r1/paper": {"drop": True},
        "work/r1/phase-logs/variant.yaml": {"edit": [["Finalist", "Meritorious"]]},
        "paper.pdf": {"pdf": {"pages": [{"lines": ["Summary {n}"], "number": "{n}",
                                         "repeat": 2}]}}}}, near={})
    lines = materialize(r.examples.fires, tmp_path)
    assert os.readlink(tmp_path / "l") == "t.txt" and (tmp_path / "d").is_dir()
    assert (tmp_path / "b").read_bytes() == b"\0\xff" and not (tmp_path / "work/r1/paper").exists()
    assert "Meritorious" in (tmp_path / "work/r1/phase-logs/variant.yaml").read_text()
    assert (tmp_path / "paper.pdf").read_bytes().startswith(b"%PDF")
    assert "l -> t.txt" in lines and "p: special file" in lines and "d/" in lines
    assert any(ln.startswith('paper.pdf: page 2: ') and "Summary 2" in ln for ln in lines)


def test_one_respect_is_one_small_hunk() -> None:
    a = ["$ gavel x", "f: a", "f: b", "f: c"]
    assert one_respect(a, ["$ gavel x", "f: a", "f: B", "f: c"])
    assert difference(a, a) == (0, 0) and not one_respect(a, a)
    assert not one_respect(a, ["$ gavel y", "f: a", "f: B", "f: c"])  # two places
    assert not one_respect(a, ["$ gavel x"] + [f"f: {i}" for i in range(9)])  # too many lines


def test_an_input_error_is_the_finding_the_user_sees(tmp_path: Path) -> None:
    r = catalog()["GK-IO002"]
    out = run_case(r.examples.fires, tmp_path)
    assert out.exit == 2 and [f.code for f in out.findings] == ["GK-IO002"]


def test_a_project_config_is_read_fresh_for_each_example(tmp_path: Path) -> None:
    r = catalog()["GK-IO006"]
    assert "GK-IO006" not in run_case(r.examples.near, tmp_path / "near").codes()
    assert "GK-IO006" in run_case(r.examples.fires, tmp_path / "fires").codes()
    assert "GK-IO006" not in run_case(r.examples.near, tmp_path / "near2").codes()


def test_rules_command_shows_runs_and_writes_the_examples(tmp_path: Path) -> None:
    rc, out, _ = cli("rules", "AWD-H005")
    assert rc == 0 and "Fires:\n  $ gavel award lint handoff h.yaml" in out
    assert "-h.yaml:   status: done\n  +h.yaml:   status: partial" in out
    rc, out, _ = cli("rules", "AWD-H005", "--format", "json")
    ex = json.loads(out)[0]["examples"]
    assert ex["near"]["files"]["h.yaml"]["edit"] == [["status: complete", "status: partial"]]
    rc, out, _ = cli("rules", "AWD-H005", "--run")
    assert rc == 0 and "fires: AWD-H005 fires (exit 1)" in out and "does not fire (exit 0)" in out
    rc, out, _ = cli("rules", "AWD-H005", "--write", str(tmp_path / "ex"))
    assert rc == 0 and "status: done" in (tmp_path / "ex" / "fires" / "h.yaml").read_text()
    rc, _, err = cli("rules", "AWD-H", "--run")
    assert rc == 2 and "one rule code" in err


def test_placeholders_name_this_python_and_the_example_folder(tmp_path: Path) -> None:
    import sys

    from gavelkit.cli.rule_examples import expand

    py = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert expand("lib/python{py}/site-packages") == f"lib/python{py}/site-packages"
    assert expand("{root}/userbase", tmp_path) == f"{tmp_path}/userbase"
    r = rule(fires={"run": "gavel rules", "files": {"lib/python{py}/x.txt": "x\n"}}, near={})
    lines = materialize(r.examples.fires, tmp_path)
    assert (tmp_path / "lib" / f"python{py}" / "x.txt").is_file()
    assert f"lib/python{py}/x.txt: x" in lines


def test_figqa_in_process_stand_in_finds_what_the_child_finds(tmp_path: Path) -> None:
    """The test runner's in-process figqa gives the real child's findings (one example)."""
    from rule_runners import run

    case = catalog()["FIG-D001"].examples.fires
    here = run(case, tmp_path / "here")
    child = run_case(case, tmp_path / "child")  # the real command: a child interpreter
    key = [(f.code, f.message.replace(str(tmp_path / "here"), "")) for f in here.findings]
    assert key == [(f.code, f.message.replace(str(tmp_path / "child"), ""))
                   for f in child.findings]
    assert here.exit == child.exit == 1 and "FIG-D001" in here.codes()


def test_headlines_are_the_catalog_without_its_examples() -> None:
    """SARIF and lookups parse the rule tables only; they must read the same rules."""
    from dataclasses import replace

    from gavelkit.core.rules import headlines

    full = {c: replace(r, examples=None) for c, r in catalog().items()}
    assert headlines() == full
