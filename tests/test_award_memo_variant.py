"""Decision memo (edge case 32) and variant block rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from award_util import lint, memo, variant
from gk_testing import clean, fires


def opt(rec: Any = False, **over: Any) -> dict[str, Any]:
    d = {"option": "o", "consequence": "c", "recommended": rec}
    d.update(over)
    return d


def test_good_memo(tmp_path: Path) -> None:
    fs = lint(tmp_path, "decision_memo", memo())
    assert fs == []
    for code in [f"AWD-M{n:03d}" for n in range(1, 10)]:
        clean(fs, code)


def test_missing_and_types(tmp_path: Path) -> None:
    m = memo()
    del m["decision_memo"]["options"]
    fires(lint(tmp_path, "decision_memo", m), "AWD-M001")
    fires(lint(tmp_path, "decision_memo", memo(phase="7")), "AWD-M002")
    fires(lint(tmp_path, "decision_memo", memo(unresolved="none")), "AWD-M002")
    fires(lint(tmp_path, "decision_memo", memo(phase=11)), "AWD-M003")


@pytest.mark.parametrize("bs", [None, [2, 2], {"loops": "two", "cap": 2}, {"loops": 1},
                                {"loops": 0, "cap": 0}])
def test_budget_spent_malformed(tmp_path: Path, bs: object) -> None:
    fires(lint(tmp_path, "decision_memo", memo(budget_spent=bs)), "AWD-M004")


def test_budget_overrun(tmp_path: Path) -> None:
    fires(lint(tmp_path, "decision_memo", memo(budget_spent={"loops": 3, "cap": 2})), "AWD-M005")
    clean(lint(tmp_path, "decision_memo", memo(budget_spent={"loops": 1, "cap": 2})), "AWD-M005")


def test_unresolved_needs_severity(tmp_path: Path) -> None:
    fires(lint(tmp_path, "decision_memo", memo(unresolved=[{"id": "G7-1", "summary": "x"}])), "AWD-M006")
    fires(lint(tmp_path, "decision_memo", memo(unresolved=["G7-1 thin sensitivity"])), "AWD-M006")
    clean(lint(tmp_path, "decision_memo", memo(unresolved=[])), "AWD-M006")


@pytest.mark.parametrize("n", [0, 1, 4])
def test_options_count(tmp_path: Path, n: int) -> None:
    opts = [opt(i == 0) for i in range(n)]
    fires(lint(tmp_path, "decision_memo", memo(options=opts)), "AWD-M007")


def test_three_options_ok(tmp_path: Path) -> None:
    assert lint(tmp_path, "decision_memo", memo(options=[opt(True), opt(), opt()])) == []


def test_option_malformed(tmp_path: Path) -> None:
    fires(lint(tmp_path, "decision_memo", memo(options=["submit", opt(True)])), "AWD-M008")
    fires(lint(tmp_path, "decision_memo", memo(options=[opt(True, consequence=""), opt()])), "AWD-M008")
    fires(lint(tmp_path, "decision_memo", memo(options=[opt("yes"), opt()])), "AWD-M008")


def test_exactly_one_recommended(tmp_path: Path) -> None:
    fires(lint(tmp_path, "decision_memo", memo(options=[opt(True), opt(True)])), "AWD-M009")
    fires(lint(tmp_path, "decision_memo", memo(options=[opt(), opt()])), "AWD-M009")


def test_good_variant(tmp_path: Path) -> None:
    fs = lint(tmp_path, "variant", variant())
    assert fs == []
    for code in [f"AWD-V{n:03d}" for n in range(1, 7)]:
        clean(fs, code)


def test_variant_rules(tmp_path: Path) -> None:
    v = variant()
    del v["variant"]["ai_use_policy"]
    fires(lint(tmp_path, "variant", v), "AWD-V001")
    fires(lint(tmp_path, "variant", variant(emphasis="data")), "AWD-V002")
    for pages in (0, -3, "25", 25.0, None):
        fires(lint(tmp_path, "variant", variant(limits={"pages": pages})), "AWD-V003")
    fires(lint(tmp_path, "variant", variant(limits={"files": 1})), "AWD-V003")
    fires(lint(tmp_path, "variant", variant(thresholds_ref="85/70")), "AWD-V004")
    fires(lint(tmp_path, "variant", variant(deadline="2026-02-02")), "AWD-V005")
    clean(lint(tmp_path, "variant", variant(deadline="2026-02-02T20:00:00-05:00")), "AWD-V005")
    fires(lint(tmp_path, "variant", variant(pass_threshold=85)), "AWD-V006")
    fires(lint(tmp_path, "variant", variant(emphasis=["aim for total >= 85"])), "AWD-V006")
    clean(lint(tmp_path, "variant", variant(emphasis=["85 teams compete in the region"])),
          "AWD-V006")


def test_variant_date_object_and_tz_datetime(tmp_path: Path) -> None:
    text = (tmp_path / "v.yaml")
    from award_util import dump

    body = dump(variant()).replace("deadline: 2026-02-02 20:00 EST", "deadline: 2026-02-02")
    fires(lint(tmp_path, "variant", body), "AWD-V005")
    body2 = dump(variant()).replace("deadline: 2026-02-02 20:00 EST",
                                    "deadline: 2026-02-02T20:00:00-05:00")
    clean(lint(tmp_path, "variant", body2), "AWD-V005")
    del text
