import pytest
from tally import Tally, parse, render


@pytest.mark.parametrize("text,total", [("|||", 3), ("|| |", 3)], ids=["a", "b"])
def test_parse_counts_strokes(text, total):
    assert parse(text).total == total


def test_parse_rejects_letters():
    with pytest.raises(ValueError):
        parse("||x")


def test_render_digits():
    assert render(parse("||||")) == "4"


def test_tally_total_is_fixed():
    t = parse("|")
    assert isinstance(t, Tally)
    assert t.total == 1
