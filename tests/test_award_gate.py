"""Gate rules (seed §1-2; edge cases 19-21)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from award_util import gate, lint
from gk_testing import clean, fires


def issue(**over: Any) -> dict[str, Any]:
    base = {"id": "G4-1", "severity": "high", "summary": "s", "artifact": "a",
            "required_fix": "f", "owner": "mathodology-coder"}
    base.update(over)
    return base


def test_good_gates_are_clean(tmp_path: Path) -> None:
    fs = lint(tmp_path, "gate", gate())
    assert fs == []
    passing = gate(verdict="pass", issues=[issue(severity="low", id="G4-2")])
    fs2 = lint(tmp_path, "gate", passing)
    assert fs2 == []
    for code in [f"AWD-G{n:03d}" for n in range(1, 16)]:
        clean(fs + fs2, code)


def test_missing_and_types(tmp_path: Path) -> None:
    g = gate()
    del g["gate"]["evidence_checked"]
    fires(lint(tmp_path, "gate", g), "AWD-G001")
    fires(lint(tmp_path, "gate", gate(issues={"id": "G4-1"})), "AWD-G002")
    fires(lint(tmp_path, "gate", gate(loop="1")), "AWD-G002")
    fires(lint(tmp_path, "gate", gate(phase=9)), "AWD-G003")
    fires(lint(tmp_path, "gate", gate(loop=-1)), "AWD-G003")


@pytest.mark.parametrize("verdict", ["PASS", "ok", None])
def test_verdict_enum(tmp_path: Path, verdict: object) -> None:
    fires(lint(tmp_path, "gate", gate(verdict=verdict)), "AWD-G004")


@pytest.mark.parametrize("sev", ["blocker", "high"])
def test_pass_with_open_blocker_or_high(tmp_path: Path, sev: str) -> None:
    f = fires(lint(tmp_path, "gate", gate(verdict="pass", issues=[issue(severity=sev)])),
              "AWD-G005")
    assert "G4-1" in f.message


def test_pass_with_medium_is_fine(tmp_path: Path) -> None:
    clean(lint(tmp_path, "gate", gate(verdict="pass", issues=[issue(severity="medium")])),
          "AWD-G005")


def test_issue_not_mapping(tmp_path: Path) -> None:
    fires(lint(tmp_path, "gate", gate(issues=["fix the plot"])), "AWD-G006")


@pytest.mark.parametrize("sev", ["Critical", "HIGH", None])
def test_severity_ladder(tmp_path: Path, sev: object) -> None:
    f = fires(lint(tmp_path, "gate", gate(issues=[issue(severity=sev)])), "AWD-G007")
    if sev == "HIGH":
        assert f.hint and "'high'" in f.hint


def test_ids(tmp_path: Path) -> None:
    fires(lint(tmp_path, "gate", gate(issues=[issue(id=None)])), "AWD-G008")
    for bad in ("G4_1", "g4-1", "4-1", "G4-"):
        fires(lint(tmp_path, "gate", gate(issues=[issue(id=bad)])), "AWD-G009")
    f = fires(lint(tmp_path, "gate", gate(issues=[issue(id="g4-1")])), "AWD-G009")
    assert f.hint == "write 'G4-1'"
    fires(lint(tmp_path, "gate", gate(issues=[issue(id="G3-2")])), "AWD-G010")
    clean(lint(tmp_path, "gate", gate(issues=[issue(id="G4-12")])), "AWD-G010")
    fires(lint(tmp_path, "gate", gate(issues=[issue(), issue(severity="low")])), "AWD-G011")


def test_issue_fields(tmp_path: Path) -> None:
    for key in ("summary", "artifact", "owner"):
        fires(lint(tmp_path, "gate", gate(issues=[issue(**{key: ""})])), "AWD-G012")
    fires(lint(tmp_path, "gate", gate(issues=[issue(required_fix=None)])), "AWD-G013")


def test_medium_fix_plan_or_acceptance(tmp_path: Path) -> None:
    med = issue(severity="medium", required_fix=None)
    fires(lint(tmp_path, "gate", gate(issues=[med])), "AWD-G013")
    accepted = dict(med, risk_acceptance="page budget; judges rarely read appendix C")
    clean(lint(tmp_path, "gate", gate(issues=[accepted])), "AWD-G013")
    structured = dict(med, acceptance={"rationale": "cosmetic", "by": "mathodology-lead"})
    clean(lint(tmp_path, "gate", gate(issues=[structured])), "AWD-G013")
    empty = dict(med, acceptance={"by": "lead"})
    fires(lint(tmp_path, "gate", gate(issues=[empty])), "AWD-G013")


@pytest.mark.parametrize("consent", ["accepted", "ok", "OK.", "risk accepted by the lead",
                                     {"rationale": "accepted", "by": "lead"}])
def test_consent_is_not_a_rationale(tmp_path: Path, consent: object) -> None:
    med = issue(severity="medium", required_fix=None, risk_acceptance=consent)
    f = fires(lint(tmp_path, "gate", gate(issues=[med])), "AWD-G013")
    assert "rationale" in f.message
    reason = issue(severity="medium", required_fix=None, risk_acceptance="accepted: cosmetic")
    clean(lint(tmp_path, "gate", gate(issues=[reason])), "AWD-G013")
    zh = issue(severity="medium", required_fix=None, risk_acceptance="仅影响附录排版")
    clean(lint(tmp_path, "gate", gate(issues=[zh])), "AWD-G013")


def test_high_cannot_be_accepted(tmp_path: Path) -> None:
    fires(lint(tmp_path, "gate", gate(issues=[issue(risk_acceptance="no time")])), "AWD-G014")


def test_fail_without_issues_warns(tmp_path: Path) -> None:
    f = fires(lint(tmp_path, "gate", gate(issues=[])), "AWD-G015")
    assert f.severity == "warning"
