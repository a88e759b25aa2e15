"""Issue 13, items 7-12 and 14-16: no escape, no hang, no memory blow-up, no exit 3.

Each case runs the CLI in a child with a time limit and an address-space cap
(tests/hostile.py), so a regression shows as a failing test, not a stuck suite.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from hostile import RUN, run_gavel
from task_helpers import GOOD

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_RUN = ROOT / "examples" / "award-run" / "work" / Path(RUN).name


def ok_contract(rc: int | str, err: str) -> None:
    assert rc in (0, 1, 2), (rc, err[-600:])
    assert "Traceback" not in err and "internal error" not in err, err[-600:]


def task_copy(tmp: Path) -> Path:
    dest = tmp / "task"
    shutil.copytree(GOOD, dest)
    return dest


def run_copy(tmp: Path) -> Path:
    dest = tmp / RUN
    shutil.copytree(EXAMPLE_RUN, dest, symlinks=True)
    return dest


def pdf_bytes(objects: list[bytes]) -> bytes:
    """A minimal PDF with a correct xref: objects are numbered from 1, object 1 the catalog."""
    from gavelkit.award.pdf.writer import serialize

    return serialize(objects, root=1, header=b"%PDF-1.4\n")


# ---- escapes: items 7, 8, 9 ----------------------------------------------------------------

def test_skills_install_refuses_links_out_of_the_source(tmp_path: Path) -> None:
    secret = tmp_path / "shadow"
    secret.write_text("root:$6$secret:19000::::::\n")
    secret.chmod(0o600)
    skill = tmp_path / "skills" / "demo-skill"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: demo-skill\n---\n")
    (skill / "scripts" / "leak.txt").symlink_to(secret)
    dest = tmp_path / "dest"
    rc, _, err = run_gavel(["skills", "install", "--from", str(tmp_path / "skills"),
                              "--dest", str(dest)], cwd=tmp_path)
    ok_contract(rc, err)
    assert rc == 2 and "leak.txt" in err and "outside" in err
    copied = [p for p in dest.rglob("*") if p.is_file()] if dest.exists() else []
    assert not any("secret" in p.read_text("utf-8", "replace") for p in copied)


def test_manifest_does_not_follow_links_out_of_the_run(tmp_path: Path) -> None:
    run = run_copy(tmp_path)
    secret = tmp_path / "shadow"
    secret.write_text("root:$6$secret\n")
    (run / "outputs" / "data" / "shadow.csv").symlink_to(secret)
    rc, out, err = run_gavel(["award", "manifest", str(run)], cwd=tmp_path)
    ok_contract(rc, err)
    assert rc in (1, 2) and "shadow.csv" in out + err and "outside" in out + err
    manifest = run / "package" / "manifest.md"
    import hashlib

    digest = hashlib.sha256(secret.read_bytes()).hexdigest()
    assert digest not in manifest.read_text("utf-8")


@pytest.mark.parametrize("kind", ["fifo", "device_link", "directory", "loop", "parent_is_file"])
def test_outputs_are_never_special_files(tmp_path: Path, kind: str) -> None:
    task = task_copy(tmp_path)
    out = tmp_path / "out.md"
    if kind == "fifo":
        os.mkfifo(out)
    elif kind == "device_link":
        out.symlink_to("/dev/null")
    elif kind == "directory":
        out.mkdir()
    elif kind == "loop":
        out.symlink_to(out)
    else:
        (tmp_path / "f").write_text("x")
        out = tmp_path / "f" / "out.md"
    rc, _, err = run_gavel(["task", "spotcheck", str(task), "--out", str(out)], cwd=tmp_path)
    ok_contract(rc, err)
    assert rc == 2 and str(out) in err
    if kind == "fifo":
        assert out.is_fifo()
    pdf = tmp_path / "p.pdf"
    shutil.copy2(EXAMPLE_RUN / "paper" / "solution.pdf", pdf)
    png = out.with_suffix(".png") if kind != "directory" else out
    if kind == "fifo":
        os.mkfifo(png)
    elif kind == "device_link":
        png.symlink_to("/dev/null")
    elif kind == "loop":
        png.symlink_to(png)
    rc, _, err = run_gavel(["award", "contact-sheet", str(pdf), "-o", str(png), "--no-qa"],
                           cwd=tmp_path)
    ok_contract(rc, err)
    assert rc == 2 and str(png) in err
    assert Path("/dev/null").is_char_device()


# ---- hangs and memory: items 10, 11 ---------------------------------------------------------

@pytest.mark.parametrize("name", ["kept_nodeids.txt", "spec.md", "task.json"])
@pytest.mark.parametrize("kind", ["fifo", "devzero"])
def test_task_files_that_never_end(tmp_path: Path, name: str, kind: str) -> None:
    task = task_copy(tmp_path)
    p = task / name
    p.unlink()
    if kind == "fifo":
        os.mkfifo(p)
    else:
        p.symlink_to("/dev/zero")
    rc, out, err = run_gavel(["task", "gates", str(task)], cwd=tmp_path, timeout=30)
    assert rc == 2, (rc, out[-300:], err[-300:])
    text = out + err
    assert name in text and ("FIFO" in text or "device" in text)


@pytest.mark.parametrize("option", ["--config", "--ledger"])
def test_fifo_options_do_not_hang(tmp_path: Path, option: str) -> None:
    task = task_copy(tmp_path)
    fifo = tmp_path / "opt.toml"
    os.mkfifo(fifo)
    rc, out, err = run_gavel(["task", "gates", str(task), option, str(fifo)], cwd=tmp_path,
                             timeout=30)
    assert rc == 2 and "FIFO" in out + err and "opt.toml" in out + err


def test_figqa_script_from_dev_zero(tmp_path: Path) -> None:
    script = tmp_path / "plot.py"
    script.symlink_to("/dev/zero")
    rc, _, err = run_gavel(["award", "figqa", "run", str(script)], cwd=tmp_path, timeout=60)
    ok_contract(rc, err)
    assert rc == 2 and "plot.py" in err


def test_preflight_output_is_capped(tmp_path: Path) -> None:
    cand = tmp_path / "cand" / "noisy"
    cand.mkdir(parents=True)
    (cand / "__init__.py").write_text(
        "import sys\nfor _ in range(200):\n    sys.stdout.write('x' * 50000 + '\\n')\n")
    rc, out, err = run_gavel(["task", "preflight", "--package", "noisy", "--candidate",
                              str(tmp_path / "cand")], cwd=tmp_path, timeout=60)
    ok_contract(rc, err)
    assert len(out) < 1_000_000, len(out)  # 10 MB printed on import, not copied whole
    assert "cut" in out or "truncated" in out


# ---- exit 3 -> exit 2: item 12 --------------------------------------------------------------

@pytest.mark.parametrize("name", ["task.json", "taxonomy.jsonl"])
def test_deep_json_in_task_files(tmp_path: Path, name: str) -> None:
    task = task_copy(tmp_path)
    (task / name).write_text("[" * 20000 + "]" * 20000)
    rc, out, err = run_gavel(["task", "gates", str(task)], cwd=tmp_path)
    ok_contract(rc, err)
    assert rc in (1, 2) and name in err + out and "nested" in err + out


def test_deep_json_in_skills_record(tmp_path: Path) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / ".gavel-skills.json").write_text("[" * 20000 + "]" * 20000)
    rc, _, err = run_gavel(["skills", "install", "--dest", str(dest)], cwd=tmp_path)
    ok_contract(rc, err)
    assert rc == 2 and ".gavel-skills.json" in err


def test_huge_int_in_yaml(tmp_path: Path) -> None:
    card = tmp_path / "card.yaml"
    card.write_text("scorecard:\n  seat: A\n  round: " + "9" * 5000 + "\n")
    rc, out, err = run_gavel(["award", "lint", "scorecard", str(card)], cwd=tmp_path)
    ok_contract(rc, err)
    assert rc == 2 and "card.yaml" in out + err and "digits" in out + err


def test_output_parent_is_a_file(tmp_path: Path) -> None:
    run = run_copy(tmp_path)
    (tmp_path / "afile").write_text("x")
    rc, _, err = run_gavel(["award", "report", str(run), "--no-pdfqa", "-o",
                            str(tmp_path / "afile" / "r.html")], cwd=tmp_path)
    ok_contract(rc, err)
    assert rc == 2 and "afile" in err


def test_pdf_page_tree_loop(tmp_path: Path) -> None:
    pdf = tmp_path / "loop.pdf"
    pdf.write_bytes(pdf_bytes([b"<< /Type /Catalog /Pages 2 0 R >>",
                               b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                               b"<< /Type /Pages /Kids [2 0 R] /Count 1 /Parent 2 0 R >>"]))
    rc, _, err = run_gavel(["award", "pdfqa", str(pdf)], cwd=tmp_path, timeout=60)
    ok_contract(rc, err)  # pdfqa copes: the unreadable page is a finding
    rc, _, err = run_gavel(["award", "contact-sheet", str(pdf), "-o", str(tmp_path / "s.png")],
                           cwd=tmp_path, timeout=60)
    ok_contract(rc, err)
    assert rc == 2 and "loop.pdf" in err


def test_zero_page_pdf_is_not_corrupt(tmp_path: Path) -> None:
    pdf = tmp_path / "empty.pdf"
    pdf.write_bytes(pdf_bytes([b"<< /Type /Catalog /Pages 2 0 R >>",
                               b"<< /Type /Pages /Kids [] /Count 0 >>"]))
    rc, out, err = run_gavel(["award", "pdfqa", str(pdf)], cwd=tmp_path, timeout=60)
    ok_contract(rc, err)
    assert "PDFium: Success" not in out + err and "corrupt" not in (out + err).lower()
    assert "0 page" in out + err or "no page" in (out + err).lower()


def test_non_utf8_requirements(tmp_path: Path) -> None:
    task = task_copy(tmp_path)
    (task / "oracle" / "requirements.txt").write_bytes(b"pytest\ncaf\xe9-lib==1.0\n")
    rc, out, err = run_gavel(["task", "gates", str(task)], cwd=tmp_path)
    ok_contract(rc, err)
    assert "requirements.txt" in out + err


@pytest.mark.parametrize("value", ["nan", "-1", "inf", "0"])
def test_timeout_values_are_checked(tmp_path: Path, value: str) -> None:
    rc, _, err = run_gavel(["task", "preflight", "--package", "x", "--candidate",
                            str(tmp_path), "--timeout", value], cwd=tmp_path)
    assert rc == 2 and "--timeout" in err, err


# ---- item 14: a killed award init ---------------------------------------------------------

def test_init_over_a_partial_run_completes_it(tmp_path: Path) -> None:
    rc, out, err = run_gavel(["award", "init", "--run-id", "r1", "--root", str(tmp_path)],
                             cwd=tmp_path)
    assert rc == 0, err
    run = tmp_path / "work" / "r1"
    full = sorted(p.relative_to(run).as_posix() for p in run.rglob("*"))
    # simulate a kill half-way: drop every other entry (files first)
    for p in sorted(run.rglob("*"), key=lambda p: -len(p.parts))[::2]:
        if p.is_file():
            p.unlink()
        elif p.is_dir() and not any(p.iterdir()):
            p.rmdir()
    rc, out, err = run_gavel(["award", "init", "--run-id", "r1", "--root", str(tmp_path)],
                             cwd=tmp_path)
    ok_contract(rc, err)
    now = sorted(p.relative_to(run).as_posix() for p in run.rglob("*"))
    assert (rc == 0 and now == full) or (rc == 2 and "incomplete" in err and "r1" in err), (
        rc, out, err)
    assert "nothing changed" not in out


# ---- item 15: numbers, dates -----------------------------------------------------------------

@pytest.mark.parametrize("argv, word", [
    (["--timeout", "nan"], "--timeout"), (["--timeout", "-5"], "--timeout"),
    (["--memory-mb", "-1"], "--memory-mb"), (["--file-timeout", "0"], "--file-timeout"),
    (["--repeat", "0"], "--repeat")])
def test_task_run_numbers(tmp_path: Path, argv: list[str], word: str) -> None:
    task = task_copy(tmp_path)
    (tmp_path / "sol").mkdir()
    rc, _, err = run_gavel(["task", "run", str(task), "--solution", str(tmp_path / "sol"),
                            "--out", str(tmp_path / "o"), *argv], cwd=tmp_path)
    assert rc == 2 and word in err, err
    assert not (tmp_path / "o" / "score_result.json").exists()


def test_briefs_round_zero(tmp_path: Path) -> None:
    run = run_copy(tmp_path)
    rc, _, err = run_gavel(["award", "briefs", str(run), "--round", "0", "--out",
                            str(tmp_path / "b")], cwd=tmp_path)
    assert rc == 2 and "--round" in err


@pytest.mark.parametrize("date", ["yesterday", "2026-13-01", "2026-01-02 | x", "2026-1-2"])
def test_dates_are_iso(tmp_path: Path, date: str) -> None:
    task = task_copy(tmp_path)
    rc, _, err = run_gavel(["task", "init", str(task), "--date", date], cwd=tmp_path)
    assert rc == 2 and "--date" in err, err
    assert not (task / "PIPELINE_STATE.md").exists()


@pytest.mark.parametrize("body", ["[gate_e]\nmin_positive_share = nan\n",
                                  "[gate_e]\nmin_atomic = 'x'\n", "gate_e = 3\n",
                                  "[spotcheck]\ngate_c_min_rows = -4\n"])
def test_config_wrong_types(tmp_path: Path, body: str) -> None:
    task = task_copy(tmp_path)
    cfg = tmp_path / "c.toml"
    cfg.write_text(body)
    rc, out, err = run_gavel(["task", "gates", str(task), "--config", str(cfg)], cwd=tmp_path)
    ok_contract(rc, err)
    assert rc == 2 and "c.toml" in err, (rc, out[-300:], err)


# ---- item 16: smaller ------------------------------------------------------------------------

def test_two_state_lines(tmp_path: Path) -> None:
    task = task_copy(tmp_path)
    rc, _, err = run_gavel(["task", "init", str(task), "--date", "2026-01-01"], cwd=tmp_path)
    assert rc == 0, err
    p = task / "PIPELINE_STATE.md"
    text = p.read_text()
    line = next(ln for ln in text.splitlines() if ln.startswith("state:"))
    p.write_text(text.replace(line, line + "\nstate:       QUALIFIED", 1))
    rc, out, err = run_gavel(["task", "state", str(task)], cwd=tmp_path)
    ok_contract(rc, err)
    assert rc in (1, 2) and "state" in (out + err).lower() and "twice" in (out + err).lower()


def test_plain_long_list_is_not_an_alias_bomb(tmp_path: Path) -> None:
    p = tmp_path / "memo.yaml"
    p.write_text("decision_memo:\n  items:\n" + "    - x\n" * 210_000)
    rc, out, err = run_gavel(["award", "lint", "memo", str(p)], cwd=tmp_path, timeout=120,
                             env_extra={"GAVEL_MAX_BYTES": str(8 << 20)})
    ok_contract(rc, err)
    assert "alias bomb" not in out + err


def test_file_given_as_folder(tmp_path: Path) -> None:
    f = tmp_path / "notadir"
    f.write_text("x")
    rc, _, err = run_gavel(["award", "status", str(f)], cwd=tmp_path)
    assert rc == 2 and "not a folder" in err and "does not exist" not in err


def test_stale_temp_files_are_cleaned_on_the_next_write(tmp_path: Path) -> None:
    task = task_copy(tmp_path)
    rc, _, err = run_gavel(["task", "init", str(task), "--date", "2026-01-01"], cwd=tmp_path)
    assert rc == 0, err
    orphan = task / f".PIPELINE_STATE.md.{2 ** 22 + 7}.zz.tmp"
    orphan.write_text("half")
    rc, _, err = run_gavel(["task", "state", str(task), "--to", "S2_SPEC_DRAFT", "--note", "n",
                            "--date", "2026-01-02"], cwd=tmp_path)
    ok_contract(rc, err)
    assert not orphan.exists()


def test_duplicate_spotcheck_rows_are_findings(tmp_path: Path) -> None:
    task = task_copy(tmp_path)
    table = tmp_path / "spot.md"
    rc, _, err = run_gavel(["task", "spotcheck", str(task), "--gate", "A", "--out", str(table)],
                           cwd=tmp_path)
    assert rc == 0, err
    lines = [ln.rstrip() for ln in table.read_text().splitlines()]
    head = next(i for i, ln in enumerate(lines) if ln.startswith("| nodeid"))
    rows = [i for i in range(head + 2, len(lines)) if lines[i].startswith("|")]
    assert rows
    for i in rows:
        cells = lines[i].split("|")
        cells[-2] = " derivable "
        lines[i] = "|".join(cells)
    ok = "\n".join(lines) + "\n"
    table.write_text(ok)
    rc, out, err = run_gavel(["task", "spotcheck", str(task), "--gate", "A", "--verify",
                              str(table)], cwd=tmp_path)
    assert rc == 0, (out, err)  # control: the filled table verifies
    lines.insert(rows[0] + 1, lines[rows[0]])
    table.write_text("\n".join(lines) + "\n")
    rc, out, err = run_gavel(["task", "spotcheck", str(task), "--gate", "A", "--verify",
                              str(table)], cwd=tmp_path)
    ok_contract(rc, err)
    assert rc == 1 and "duplicate" in (out + err).lower(), (out, err)


def test_unreadable_variant_is_not_no_contest(tmp_path: Path) -> None:
    run = run_copy(tmp_path)
    p = run / "phase-logs" / "phase0.md"
    p.write_bytes(p.read_bytes().replace(b"variant:", b"variant: \xff\xfe", 1))
    rc, out, err = run_gavel(["award", "briefs", str(run), "--out", str(tmp_path / "b")],
                             cwd=tmp_path)
    ok_contract(rc, err)
    assert "no contest name" not in out + err
    assert "phase0.md" in out + err and "UTF-8" in out + err
    assert json.dumps(rc) in ("1", "2")


def test_manifest_rule_fires_and_not(tmp_path: Path) -> None:
    from gavelkit.award.runs.manifest import check_manifest, refused, write_manifest

    from gk_testing import clean, fires

    run = run_copy(tmp_path)
    write_manifest(run)
    clean(refused(run) + check_manifest(run), "AWD-N005")
    (tmp_path / "outside.csv").write_text("a,b\n")
    (run / "outputs" / "tables" / "leak.csv").symlink_to(tmp_path / "outside.csv")
    os.mkfifo(run / "outputs" / "data" / "pipe.csv")
    got = refused(run)
    fires(got, "AWD-N005")
    assert {Path(f.path).name for f in got} == {"leak.csv", "pipe.csv"}
    assert "AWD-N005" in {f.code for f in check_manifest(run)}


def test_spotcheck_duplicate_rule_fires_and_not(tmp_path: Path) -> None:
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.gates.spotcheck import verify

    from gk_testing import clean, fires

    task = load_task(task_copy(tmp_path))
    head = "| nodeid | assertion summary | spec_section | verdict |\n|---|---|---|---|\n"
    row = "| `oracle/test_atomic.py::test_render_digits` | renders | ## Formatting | derivable |\n"
    clean(verify(task, head + row, "t.md").findings, "TSK-A009")
    res = verify(task, head + row + row, "t.md")
    fires(res.findings, "TSK-A009")
    assert len(res.rows) == 1


@pytest.mark.parametrize("body", ["[award.tiers.outstanding]\nthreshold = nan\n",
                                  "[award.rubrics.A]\ncriteria = 3\n",
                                  "[award.tiers.finalist]\nrank = 'first'\n"])
def test_award_config_wrong_types(tmp_path: Path, body: str) -> None:
    cfg = tmp_path / "gavel.toml"
    cfg.write_text(body)
    cards = [str(EXAMPLE_RUN / "scorecards" / f"phase7-seat-{s}-round-1.yaml") for s in "ABC"]
    rc, out, err = run_gavel(["award", "aggregate", *cards, "--target", "outstanding",
                              "--config", str(cfg)], cwd=tmp_path)
    ok_contract(rc, err)
    assert rc == 2 and "gavel.toml" in err, (rc, out[-300:], err)


@pytest.mark.parametrize("body", ["place = 3\n", '[[place]]\nid = "x"\nsequence = 3\n'])
def test_scan_rules_wrong_types(tmp_path: Path, body: str) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text(body)
    traj = tmp_path / "t.jsonl"
    traj.write_text('{"type": "user"}\n')
    rc, _, err = run_gavel(["task", "scan", "--package", "x", "--rules", str(rules),
                            str(traj)], cwd=tmp_path)
    ok_contract(rc, err)
    assert rc == 2 and "rules.toml" in err


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-3"])
def test_figqa_timeout_values(tmp_path: Path, value: str) -> None:
    script = tmp_path / "plot.py"
    script.write_text("print('no figure')\n")
    rc, _, err = run_gavel(["award", "figqa", "run", "--timeout", value, str(script)],
                           cwd=tmp_path)
    assert rc == 2 and "--timeout" in err, err


@pytest.mark.parametrize("kind", ["fifo", "directory", "loop"])
def test_a_gate_file_never_vanishes_from_the_status(tmp_path: Path, kind: str) -> None:
    run = run_copy(tmp_path)
    gate = run / "gates" / "phase-2-loop-0.yaml"
    gate.unlink()
    if kind == "fifo":
        os.mkfifo(gate)
    elif kind == "directory":
        gate.mkdir()
    else:
        gate.symlink_to(gate)
    rc, out, err = run_gavel(["award", "status", str(run)], cwd=tmp_path)
    ok_contract(rc, err)
    assert rc == 1 and "phase-2-loop-0.yaml" in out and "does not match" not in out
