from pathlib import Path

from tally import parse, render

DATA = Path(__file__).parent / "data" / "sample.toml"


def _check_round_trip(text):
    assert render(parse(text)) == str(parse(text).total)


def test_round_trip():
    _check_round_trip("||| ||")


def test_workflow_with_fixture():
    text = DATA.read_text().split('"')[1]
    assert render(parse(text)) == "5"


def test_internal_repr():
    assert repr(parse("|")).startswith("Tally(")
