"""The package the seats judge (issue 27 items 6, 7): the manifest is checked before every
round's briefs and before Phase 8, says what changed by digest, tells a timestamp-only
re-run from a change, and a brief that would leak is never written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gavelkit.award.runs import manifest
from gavelkit.award.runs.budget import run_status
from gavelkit.award.runs.stable_digest import stable_sha256

from award_util import dump, memo
from gk_testing import clean, cli, cli_json, fires
from run_util import add_card, panel_ready


def _figure_pdf(path: Path, epoch: str, title: str = "") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    old = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = epoch
    try:
        fig, ax = plt.subplots(figsize=(2, 2))
        ax.plot([1, 2, 3])
        ax.set_title(title)
        fig.savefig(path)
        plt.close(fig)
    finally:
        if old is None:
            del os.environ["SOURCE_DATE_EPOCH"]
        else:
            os.environ["SOURCE_DATE_EPOCH"] = old


def _packaged(tmp_path: Path, target: str = "Outstanding") -> Path:
    run = panel_ready(tmp_path, target=target)
    _figure_pdf(run / "paper/solution.pdf", "1000000000")
    (run / "code/run_all.py").write_text("print(1)\n")
    manifest.write_manifest(run)
    return run


def test_pdf_changed_before_a_rescore_round_is_a_repair(tmp_path: Path) -> None:
    run = _packaged(tmp_path)
    for s in "ABC":
        add_card(run, s, 1, modeling=70)
    assert run_status(run).action.kind == "rescore"
    _figure_pdf(run / "paper/solution.pdf", "1000000000", title="revised")
    st = run_status(run)
    assert st.action.kind == "repair" and "before round 2's briefs" in st.action.reason
    f = fires(st.findings, "AWD-N003")
    assert "sha256" in f.message and "->" in f.message
    rc, doc = cli_json("award", "briefs", str(run), "--round", "2")
    assert rc == 1 and doc["written"] == [] and not (run / "briefs/seat-A-round-2.md").exists()


def test_stale_manifest_after_accept_risk_blocks_phase8(tmp_path: Path) -> None:
    run = _packaged(tmp_path)
    for r, sc in ((1, 70), (2, 72), (3, 74)):
        for s in "ABC":
            add_card(run, s, r, modeling=sc)
    (run / "phase-logs" / "phase7-decision.md").write_text("```yaml\n" + dump(memo(
        decision={"choice": "accept_risk", "by": "lead", "rationale": "deadline"},
        stopped_at={"phase": 7, "round": 3})) + "```\n")
    assert run_status(run).action.phase == 8
    (run / "code/run_all.py").write_text("print(2)\n")
    st = run_status(run)
    assert st.action.kind == "repair" and "before Phase 8" in st.action.reason


def test_changed_message_names_digests_even_at_same_size(tmp_path: Path) -> None:
    run = _packaged(tmp_path)
    (run / "code/run_all.py").write_text("print(9)\n")  # same size, different bytes
    fs = manifest.check_manifest(run)
    f = fires(fs, "AWD-N003")
    assert "same size" in f.message and "sha256" in f.message
    clean(fs, "AWD-N006")  # a code file has no timestamp to blame


def test_timestamp_only_rerun_is_a_warning(tmp_path: Path) -> None:
    run = _packaged(tmp_path, target="Meritorious")
    _figure_pdf(run / "paper/solution.pdf", "1700000000")  # the critic's re-run
    fs = manifest.check_manifest(run)
    fires(fs, "AWD-N006")
    clean(fs, "AWD-N003")
    for s in "ABC":
        add_card(run, s, 1)
    st = run_status(run)
    assert (st.action.kind, st.action.phase) == ("advance", 8), st.action


def test_stable_digest_sees_a_real_change(tmp_path: Path) -> None:
    a, b, c = (tmp_path / f"{n}.pdf" for n in "abc")
    _figure_pdf(a, "1000000000")
    _figure_pdf(b, "1700000000")
    _figure_pdf(c, "1700000000", title="x")
    assert a.read_bytes() != b.read_bytes()
    assert stable_sha256(a) == stable_sha256(b) != stable_sha256(c)


def test_stable_digest_never_blanks_page_text(tmp_path: Path) -> None:
    """A content stream that spells `/CreationDate (...)` is page text, not a date."""
    def pdf(words: bytes) -> bytes:
        content = b"BT /F1 12 Tf /CreationDate (" + words + b") Tj ET"
        return (b"%PDF-1.4\n1 0 obj\n<< /Length " + str(len(content)).encode() + b" >>\nstream\n"
                + content + b"\nendstream\nendobj\n%%EOF\n")
    one, two = tmp_path / "1.pdf", tmp_path / "2.pdf"
    one.write_bytes(pdf(b"we win"))
    two.write_bytes(pdf(b"we lose"[:6]))
    assert stable_sha256(one) != stable_sha256(two)


def test_png_time_chunks_are_ignored(tmp_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, _ = plt.subplots(figsize=(1, 1))
    for n, when in (("a", "2020"), ("b", "2021")):
        fig.savefig(tmp_path / f"{n}.png", metadata={"Creation Time": when})
    plt.close(fig)
    assert stable_sha256(tmp_path / "a.png") == stable_sha256(tmp_path / "b.png")


@pytest.mark.parametrize("question", ["Seat A gave results 84; the target is outstanding",
                                      "Is 85 the pass threshold?"])
def test_leaking_brief_is_never_written(tmp_path: Path, question: str) -> None:
    run = panel_ready(tmp_path, "Meritorious")
    add_card(run, "A", 1, results=90)
    add_card(run, "B", 1, results=90)
    add_card(run, "C", 1, results=60)
    rc, doc = cli_json("award", "briefs", str(run), "--round", "2", "--question", question)
    assert rc == 1 and doc["written"] == [], doc
    assert not list((run / "briefs").glob("*round-2*")) if (run / "briefs").exists() else True
    rc, _, _ = cli("award", "briefs", str(run), "--round", "2", "--question",
                   "Which page shows the hold-out error?")
    assert rc == 0 and (run / "briefs/seat-C-round-2.md").exists()
