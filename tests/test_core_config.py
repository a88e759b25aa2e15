"""Project configuration lookup and its failure mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from gavelkit.core.config import find_config, load_config
from gavelkit.core.errors import InputError

from gk_testing import cli, fires


def test_config_found_upward(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "gavel.toml").write_text("[award]\n")
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    monkeypatch.delenv("GAVEL_CONFIG", raising=False)
    assert find_config(sub) == tmp_path / "gavel.toml"


def test_broken_config_is_unusable(tmp_path: Path) -> None:
    bad = tmp_path / "gavel.toml"
    bad.write_text("[award\n")
    with pytest.raises(InputError) as exc:
        load_config(str(bad))
    f = fires([exc.value.to_finding()], "GK-IO006")
    assert f.unusable
    good = tmp_path / "ok.toml"
    good.write_text("[award.rubrics.A]\ncriteria = {summary = 1.0}\n")
    assert load_config(str(good))["award"]["rubrics"]["A"]["criteria"] == {"summary": 1.0}


def test_cli_reports_broken_config_with_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "gavel.toml"
    bad.write_text("x = [\n")
    card = tmp_path / "c.yaml"
    card.write_text("scorecard: {}\n")
    rc, _, err = cli("award", "lint", "scorecard", str(card), "--config", str(bad))
    assert rc == 2 and "TOML error" in err and str(bad) in err
