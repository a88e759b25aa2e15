"""init, the variant template, seat briefs and their leak check, and the manifest."""

from __future__ import annotations

import json
import re
from pathlib import Path

from gavelkit.award.blocks.lint import lint_paths
from gavelkit.award.runs import briefs, manifest
from gavelkit.award.runs.layout import init_run, layout, mint_run_id

from award_util import dump, variant
from gk_testing import clean, cli, cli_json, fires


def test_init_creates_exact_layout(tmp_path: Path) -> None:
    rc, doc = cli_json("award", "init", "--root", str(tmp_path), "--run-id", "r1")
    assert rc == 0 and not doc["existed"]
    run = tmp_path / "work" / "r1"
    dirs = sorted(p.relative_to(run).as_posix() for p in run.rglob("*") if p.is_dir())
    assert dirs == sorted(layout()["folders"])
    assert (tmp_path / "work" / ".gitignore").read_text().strip().endswith("*")
    tpl = run / "phase-logs" / "variant.yaml"
    fs = [f for r in lint_paths([tpl], "variant") for f in r.all_findings()]
    fires(fs, "AWD-V007")  # the template must be filled in
    clean([f for f in fs if f.code != "AWD-V007"], "AWD-V006")


def test_init_again_changes_nothing(tmp_path: Path) -> None:
    run, _, _ = init_run(tmp_path, "r1")
    marker = run / "phase-logs" / "variant.yaml"
    marker.write_text("edited")
    rc, out, _ = cli("award", "init", "--root", str(tmp_path), "--run-id", "r1")
    assert rc == 0 and "already exists; nothing changed" in out
    assert marker.read_text() == "edited"


def test_minted_ids_sort_by_time() -> None:
    a = mint_run_id(1_700_000_000)
    b = mint_run_id(1_700_000_061)
    assert a < b and re.match(r"^\d{8}-\d{6}-[0-9a-f]{4}$", a)


def test_init_with_variant_and_bad_ids(tmp_path: Path) -> None:
    v = tmp_path / "v.yaml"
    v.write_text(dump(variant()))
    rc, _, _ = cli("award", "init", "--root", str(tmp_path), "--variant", str(v))
    assert rc == 0
    (run,) = [p for p in (tmp_path / "work").iterdir() if p.is_dir()]
    fs = [f for r in lint_paths([run / "phase-logs/variant.yaml"], "variant") for f in r.all_findings()]
    assert fs == []
    clean(fs, "AWD-V007")
    assert cli("award", "init", "--root", str(tmp_path), "--run-id", "../x")[0] == 2
    assert cli("award", "init", "--root", str(tmp_path), "--variant", str(tmp_path / "no"))[0] == 2


def test_generated_briefs_are_blind_and_complete(tmp_path: Path) -> None:
    run, _, _ = init_run(tmp_path, "r1")
    written = briefs.write_briefs(run, "MCM 2026 Problem C")
    assert [p.name for p in written] == ["seat-A-round-1.md", "seat-B-round-1.md",
                                         "seat-C-round-1.md"]
    for p in written:
        text = p.read_text()
        fs = briefs.check_brief(p)
        assert fs == [], fs
        for code in ("AWD-K001", "AWD-K002", "AWD-K003", "AWD-K004"):
            clean(fs, code)
        assert "work/r1/paper/solution.pdf" in text and "work/r1/package/manifest.md" in text
        assert "target_tier" not in text and "scorecard:" in text
        assert "90-100" in text and "cite" in text.lower()
    b = written[1].read_text()
    assert "innovation | 0.3" in b and "evidence | 0.2" in b


def test_leak_check_fires(tmp_path: Path) -> None:
    cases = {
        "AWD-K001": "Note: the threshold for the top prize is 85.",
        "AWD-K002": "We are aiming for outstanding this year.",
        "AWD-K003": "The panel passes when the minimum seat total clears the bar.",
        "AWD-K004": "See work/r1/phase-logs/phase4.md and scorecards/phase7-seat-B-round-1.yaml",
    }
    for code, line in cases.items():
        p = tmp_path / f"{code}.md"
        p.write_text(f"# Seat A\n\nScore honestly.\n{line}\n")
        f = fires(briefs.check_brief(p), code)
        assert f.line == 4 and f.col >= 1
    ok = tmp_path / "ok.md"
    ok.write_text("| 85–100 | outstanding |\n| 80 to under 85 | finalist |\n")
    assert briefs.check_brief(ok) == []
    rc, out, _ = cli("award", "briefs", "--check", str(tmp_path / "AWD-K002.md"), str(ok))
    assert rc == 1 and "LEAK" in out


def test_briefs_cli_uses_variant_contest(tmp_path: Path) -> None:
    run, _, _ = init_run(tmp_path, "r1", dump(variant(contest="CUMCM 2026 B")))
    rc, doc = cli_json("award", "briefs", str(run))
    assert rc == 0 and len(doc["written"]) == 3
    assert "CUMCM 2026 B" in Path(doc["written"][0]).read_text()
    run2, _, _ = init_run(tmp_path, "r2")
    rc, _, err = cli("award", "briefs", str(run2))
    assert rc == 2 and "no contest name" in err


def test_manifest_compile_and_check(tmp_path: Path) -> None:
    run, _, _ = init_run(tmp_path, "r1")
    (run / "paper/solution.pdf").write_bytes(b"%PDF-1.4 fake")
    (run / "outputs/figures/f1.png").write_bytes(b"png1")
    (run / "outputs/tables/t1.csv").write_text("a,b\n1,2\n")
    (run / "code/run_all.py").write_text("print(1)\n")
    (run / "code/__pycache__").mkdir()
    (run / "code/__pycache__/x.pyc").write_bytes(b"\0")
    rc, doc = cli_json("award", "manifest", str(run))
    assert rc == 0 and doc["files"] == 4
    text = (run / "package/manifest.md").read_text()
    assert "`work/r1/paper/solution.pdf`" in text and "__pycache__" not in text
    fs = manifest.check_manifest(run)
    assert fs == []
    for code in ("AWD-N001", "AWD-N002", "AWD-N003", "AWD-N004"):
        clean(fs, code)
    (run / "outputs/figures/f1.png").write_bytes(b"png1-changed")
    (run / "outputs/tables/t1.csv").unlink()
    (run / "outputs/data/new.csv").write_text("x\n")
    fs = manifest.check_manifest(run)
    assert "f1.png" in fires(fs, "AWD-N003").message
    assert "t1.csv" in fires(fs, "AWD-N001").message
    assert "new.csv" in fires(fs, "AWD-N002").message
    rc, _, _ = cli("award", "manifest", str(run), "--check")
    assert rc == 1


def test_manifest_missing(tmp_path: Path) -> None:
    run, _, _ = init_run(tmp_path, "r1")
    fires(manifest.check_manifest(run), "AWD-N004")
    (run / "package/manifest.md").write_text("# empty\n")
    fires(manifest.check_manifest(run), "AWD-N004")


def test_example_manifest_matches(root: Path) -> None:
    run = next((root / "examples/award-run/work").iterdir())
    assert manifest.check_manifest(run) == []


def test_status_json_shape(root: Path) -> None:
    run = next((root / "examples/award-run/work").iterdir())
    rc, out, _ = cli("award", "status", str(run), "--format", "json")
    assert rc == 0
    doc = json.loads(out)["status"]
    assert doc["budgets"]["fix_loops"] == {"used": 4, "cap": 8}
    assert doc["next_action"]["action"] == "advance" and doc["next_action"]["phase"] == 8
    assert doc["panel"][0]["conflicts"][0]["outlier"] == "C"


def test_brief_check_on_unreadable_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.md"
    empty.write_text("")
    rc, out, _ = cli("award", "briefs", "--check", str(empty))
    assert rc == 2 and "UNREADABLE" in out and "LEAK" not in out


def test_rules_command(tmp_path: Path) -> None:
    rc, out, _ = cli("rules", "AWD-G005")
    assert rc == 0 and "pass with an open blocker or high issue" in out
    rc, out, err = cli("rules", "NOPE-1")
    assert rc == 2 and "no rule" in err and out == ""
    rc, out, _ = cli("rules", "--format", "json")
    assert rc == 0 and len(json.loads(out)) > 200
