"""Scorecard rules (seed §1, §3, §6; edge cases 23-31)."""

from __future__ import annotations

from pathlib import Path

import pytest

from award_util import card, lint
from gk_testing import clean, fires


def crit(card_: dict, name: str) -> dict:
    return next(c for c in card_["scorecard"]["criteria"] if c["name"] == name)


def test_good_cards_are_clean(tmp_path: Path) -> None:
    fs = []
    for seat in "ABC":
        got = lint(tmp_path, "scorecard", card(seat))
        assert got == [], got
        fs += got
    for code in [f"AWD-S{n:03d}" for n in range(1, 18)]:
        clean(fs, code)


def test_missing_and_types(tmp_path: Path) -> None:
    c = card()
    del c["scorecard"]["do_not_regress"]
    fires(lint(tmp_path, "scorecard", c), "AWD-S001")
    fires(lint(tmp_path, "scorecard", card(ranked_gaps="none")), "AWD-S002")
    fires(lint(tmp_path, "scorecard", card(fix_one_thing=None)), "AWD-S002")


@pytest.mark.parametrize("seat", ["a", "A ", "D", 1, None])
def test_seat(tmp_path: Path, seat: object) -> None:
    c = card()
    c["scorecard"]["seat"] = seat
    f = fires(lint(tmp_path, "scorecard", c), "AWD-S003")
    assert (f.hint is not None) == (seat in ("a", "A "))


@pytest.mark.parametrize("rnd", [0, 4, "1", True, -1])
def test_round(tmp_path: Path, rnd: object) -> None:
    c = card()
    c["scorecard"]["round"] = rnd
    fires(lint(tmp_path, "scorecard", c), "AWD-S004")


def test_rounds_1_to_3_ok(tmp_path: Path) -> None:
    for r in (1, 2, 3):
        clean(lint(tmp_path, "scorecard", card(round_=r)), "AWD-S004")


@pytest.mark.parametrize("criteria", [[], None, "summary: 80", ["summary"], [{"weight": 1.0,
                                                                                 "score": 80}]])
def test_criteria_shape(tmp_path: Path, criteria: object) -> None:
    fires(lint(tmp_path, "scorecard", card(criteria=criteria)), "AWD-S005")


@pytest.mark.parametrize("w", ["0.25", True, float("nan"), float("inf"), -0.5, 1.5])
def test_weight_invalid(tmp_path: Path, w: object) -> None:
    c = card()
    crit(c, "summary")["weight"] = w
    fires(lint(tmp_path, "scorecard", c), "AWD-S006")


@pytest.mark.parametrize("s", ["80", True, float("nan"), float("-inf"), -1, 130])
def test_score_invalid(tmp_path: Path, s: object) -> None:
    c = card()
    crit(c, "summary")["score"] = s
    fires(lint(tmp_path, "scorecard", c), "AWD-S007")


def _weights(tmp_path: Path, ws: list[float]) -> list:
    c = card()
    for row, w in zip(c["scorecard"]["criteria"], ws, strict=False):
        row["weight"] = w
    return lint(tmp_path, "scorecard", c)


def test_weight_sum_tolerance_is_symmetric(tmp_path: Path) -> None:
    # 0.985 and 1.015 fail alike; 1.0000001 and 0.9995 pass.
    fires(_weights(tmp_path, [0.235, 0.25, 0.20, 0.15, 0.15]), "AWD-S008")
    fires(_weights(tmp_path, [0.265, 0.25, 0.20, 0.15, 0.15]), "AWD-S008")
    clean(_weights(tmp_path, [0.2500001, 0.25, 0.20, 0.15, 0.15]), "AWD-S008")
    clean(_weights(tmp_path, [0.2495, 0.25, 0.20, 0.15, 0.15]), "AWD-S008")


def test_three_equal_thirds_fail_the_tight_tolerance(tmp_path: Path) -> None:
    from gavelkit.award.blocks.checks import Ctx
    from gavelkit.award.blocks.scorecard import check_scorecard
    from gavelkit.award.tables import load_tables
    from gavelkit.core.sources import load_source

    p = tmp_path / "t.yaml"
    p.write_text("scorecard: {criteria: [{name: a, weight: 0.33, score: 80}, "
                 "{name: b, weight: 0.33, score: 80}, {name: c, weight: 0.33, score: 80}]}\n")
    ctx = Ctx(str(p))
    check_scorecard(ctx, load_source(p).docs[0].data["scorecard"], load_tables())
    f = fires(ctx.findings, "AWD-S008")
    assert "0.99" in f.message


@pytest.mark.parametrize(("delta", "fails"), [(0.1, False), (-0.1, False), (0.15, True),
                                             (1.4, True), (-20, True)])
def test_declared_total_vs_recomputed(tmp_path: Path, delta: float, fails: bool) -> None:
    c = card(scores={"summary": 82, "modeling": 80, "results": 84, "writing": 85,
                     "completeness": 83})
    c["scorecard"]["weighted_total"] = round(82.5 + delta, 4)
    fs = lint(tmp_path, "scorecard", c)
    if fails:
        f = fires(fs, "AWD-S009")
        assert "82.5" in f.message and str(round(82.5 + delta, 4)).rstrip("0") in f.message
        assert f.data["computed"] == pytest.approx(82.5)
    else:
        clean(fs, "AWD-S009")


@pytest.mark.parametrize("tier", ["Outstanding", "  国一 ", "三等奖x", 4, None, "outstanding_winner"])
def test_unknown_tier(tmp_path: Path, tier: object) -> None:
    c = card()
    c["scorecard"]["implied_tier"] = tier
    f = fires(lint(tmp_path, "scorecard", c), "AWD-S010")
    if tier in ("Outstanding", "  国一 "):
        assert f.hint and "exactly" in f.hint


@pytest.mark.parametrize("tier", ["o", "国一", "一等奖", "national_first", "guoyi"])
def test_tier_aliases_accepted(tmp_path: Path, tier: str) -> None:
    assert lint(tmp_path, "scorecard", card(tier=tier)) == []


def test_band_edges(tmp_path: Path) -> None:
    # 84.95 -> finalist band; 85.0 -> outstanding; 79.999 -> meritorious; 75 -> meritorious
    def at(total_scores: float, tier: str) -> list:
        return lint(tmp_path, "scorecard", card(scores={k: total_scores for k in
                                                        ("summary", "modeling", "results",
                                                         "writing", "completeness")}, tier=tier))
    assert at(84.95, "finalist") == []
    fires(at(84.95, "outstanding"), "AWD-S011")
    assert at(85.0, "outstanding") == []
    assert at(79.999, "meritorious") == []
    fires(at(79.999, "finalist"), "AWD-S011")
    assert at(75, "meritorious") == []
    assert at(70, "below") == []
    assert at(70, "三等奖") == []


def test_below_band_needs_justification(tmp_path: Path) -> None:
    c = card(tier="meritorious")  # 88 total -> outstanding band
    fires(lint(tmp_path, "scorecard", c), "AWD-S012")
    c["scorecard"]["tier_justification"] = "summary sheet misstates the headline number"
    clean(lint(tmp_path, "scorecard", c), "AWD-S012")


def test_target_tier_is_a_leak(tmp_path: Path) -> None:
    f = fires(lint(tmp_path, "scorecard", card(target_tier="outstanding")), "AWD-S013")
    lines = (tmp_path / "block.yaml").read_text().splitlines()
    assert lines[f.line - 1].strip().startswith("target_tier:")  # the key's own line


def test_rubric_names(tmp_path: Path) -> None:
    c = card("B")
    crit(c, "innovation")["name"] = "novelty"
    f = fires(lint(tmp_path, "scorecard", c), "AWD-S014")
    assert "missing innovation" in f.message and "novelty" in f.message
    c2 = card("A")
    crit(c2, "summary")["name"] = "Summary"
    f2 = fires(lint(tmp_path, "scorecard", c2), "AWD-S014")
    assert f2.hint and "'Summary' -> 'summary'" in f2.hint


def test_seat_a_with_seat_c_criteria(tmp_path: Path) -> None:
    c = card("C")
    c["scorecard"]["seat"] = "A"
    fires(lint(tmp_path, "scorecard", c), "AWD-S014")


def test_rubric_weights(tmp_path: Path) -> None:
    c = card("B")
    crit(c, "innovation")["weight"] = 0.25
    crit(c, "summary")["weight"] = 0.20
    fs = lint(tmp_path, "scorecard", c)
    assert sum(f.code == "AWD-S015" for f in fs) == 2
    assert "rubric weight 0.15" in fires(fs, "AWD-S015").message


def test_duplicate_criterion(tmp_path: Path) -> None:
    c = card()
    c["scorecard"]["criteria"].append({"name": "summary", "weight": 0.0, "score": 98})
    fires(lint(tmp_path, "scorecard", c), "AWD-S016")


@pytest.mark.parametrize("total", ["88", float("nan"), 101, None])
def test_total_invalid(tmp_path: Path, total: object) -> None:
    c = card()
    c["scorecard"]["weighted_total"] = total
    fires(lint(tmp_path, "scorecard", c), "AWD-S017")


def test_nan_written_in_yaml(tmp_path: Path) -> None:
    from award_util import dump

    text = dump(card()).replace("weighted_total: 88.0", "weighted_total: .nan")
    fires(lint(tmp_path, "scorecard", text), "AWD-S017")


def test_project_rubric_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gavelkit.award.blocks.lint import lint_paths
    from gavelkit.award.tables import load_tables

    cfg = tmp_path / "gavel.toml"
    cfg.write_text('[award.rubrics.A]\ncriteria = { summary = 0.5, modeling = 0.5 }\n')
    c = card("A")
    c["scorecard"]["criteria"] = [{"name": "summary", "weight": 0.5, "score": 90},
                                  {"name": "modeling", "weight": 0.5, "score": 88}]
    c["scorecard"]["weighted_total"] = 89
    p = tmp_path / "c.yaml"
    from award_util import dump

    p.write_text(dump(c))
    tables = load_tables(str(cfg))
    fs = [f for r in lint_paths([p], "scorecard", tables=tables) for f in r.all_findings()]
    assert fs == []
    fs_default = [f for r in lint_paths([p], "scorecard") for f in r.all_findings()]
    fires(fs_default, "AWD-S014")
