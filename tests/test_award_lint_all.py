"""`gavel award lint-all`: every run block linted by its own kind, as the pre-commit hook runs it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gk_testing import cli, cli_json, fires

ROOT = Path(__file__).resolve().parent.parent
RUN_ID = "20260130-0900-mcm26c"


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(ROOT / "examples" / "award-run" / "work", tmp_path / "work")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "work" / RUN_ID


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_example_run_passes_by_kind(run: Path) -> None:
    rc, doc = cli_json("award", "lint-all")
    kinds = sorted({b["kind"] for f in doc["files"] for b in f["blocks"]})
    assert rc == 0, doc["findings"]
    assert kinds == ["decision_memo", "gate", "handoff", "scorecard", "variant"]
    skipped = {Path(p).parts[2] for p in doc["skipped"]}
    assert skipped <= {"code", "outputs", "paper", "package", "evidence"}
    rc, out, _ = cli("award", "lint-all", f"work/{RUN_ID}")
    assert rc == 0 and out.strip().endswith("-> PASS")


def test_a_bad_scorecard_fails_at_its_place(run: Path) -> None:
    card = run / "scorecards" / "phase7-seat-A-round-1.yaml"
    edit(card, "weight: 0.25, score: 84", "weight: 0.35, score: 84")
    rc, out, _ = cli("award", "lint-all", str(card.relative_to(run.parent.parent)))
    assert rc == 1
    assert f"work/{RUN_ID}/scorecards/phase7-seat-A-round-1.yaml:6:5: AWD-S008 error" in out


def test_a_file_is_held_to_what_its_folder_says(run: Path) -> None:
    """A gate file that holds a handoff is not linted as a handoff: no gate, an error."""
    gate = run / "gates" / "phase-1-loop-0.yaml"
    gate.write_text("handoff: {phase: 1}\n", encoding="utf-8")
    rc, doc = cli_json("award", "lint-all", str(gate))
    assert rc == 1
    assert "no 'gate' block found" in fires(
        [_f(x) for x in doc["findings"]], "AWD-B001").message


def _f(d: dict):  # type: ignore[no-untyped-def]
    from gavelkit.core.findings import Finding

    return Finding(d["code"], d["severity"], d["message"], d["path"], d["line"], d["col"])


def test_each_handoff_is_held_to_its_own_role(run: Path) -> None:
    """No --agent needed: the coder's handoff without collision_gate_result fails."""
    log = run / "phase-logs" / "phase4.md"
    text = log.read_text(encoding="utf-8")
    log.write_text(text.replace("  collision_gate_result: {status: fail, command: python3 "
                                f"work/{RUN_ID}/code/run_all.py}}\n", "", 1), encoding="utf-8")
    rc, doc = cli_json("award", "lint-all", str(log))
    assert rc == 1
    f = fires([_f(x) for x in doc["findings"]], "AWD-H015")
    assert "mathodology-coder" in f.message and f.line > 0


def test_handoff_artifacts_must_exist_in_the_run(run: Path) -> None:
    (run / "outputs" / "tables" / "forecast.csv").unlink()
    rc, doc = cli_json("award", "lint-all", str(run / "phase-logs" / "phase4.md"))
    assert rc == 1
    assert "forecast.csv" in fires([_f(x) for x in doc["findings"]], "AWD-H009").message


def test_files_outside_the_blocks_are_left_alone(run: Path) -> None:
    notes = run / "code" / "notes.md"
    notes.write_text("gate: this is not a block\n", encoding="utf-8")
    prose = run / "phase-logs" / "notes.md"
    prose.write_text("# what we tried\nnothing to lint here\n", encoding="utf-8")
    rc, doc = cli_json("award", "lint-all", str(notes), str(prose))
    assert rc == 0 and doc["files"] == [] and len(doc["skipped"]) == 2


def test_unreadable_input_is_exit_2_with_its_place(run: Path) -> None:
    bad = run / "gates" / "phase-9-loop-0.yaml"
    bad.write_text("gate: [unclosed\n", encoding="utf-8")
    rc, out, err = cli("award", "lint-all", str(bad))
    assert rc == 2 and "phase-9-loop-0.yaml:" in out + err and "Traceback" not in out + err
    binary = run / "phase-logs" / "phase9.md"
    binary.write_bytes(b"\x00\x01")
    rc, out, err = cli("award", "lint-all", str(binary))
    assert rc == 2 and "phase9.md" in out + err


def test_no_work_folder_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    rc, _, err = cli("award", "lint-all")
    assert rc == 2 and "no work/ folder" in err


def test_a_link_out_of_the_run_is_refused(run: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text("gate: {}\n", encoding="utf-8")
    (run / "gates" / "phase-8-loop-0.yaml").symlink_to(secret)
    rc, _, err = cli("award", "lint-all", f"work/{RUN_ID}")
    assert rc == 2 and "phase-8-loop-0.yaml" in err and "outside" in err


def test_figqa_rerun_names_what_it_did_not_run(run: Path) -> None:
    rc, doc = cli_json("award", "figqa", "rerun", "README.md")
    assert rc == 0 and doc["runs"] == [] and doc["not_in_a_run"] == ["README.md"]


def test_lint_all_json_and_sarif(run: Path) -> None:
    rc, out, _ = cli("award", "lint-all", "--format", "sarif")
    doc = json.loads(out)
    assert rc == 0 and doc["version"] == "2.1.0" and doc["runs"][0]["results"] == []
