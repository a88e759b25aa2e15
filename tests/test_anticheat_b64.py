"""The base64 blocks the output check decodes: the same with re2 on UTF-8 bytes as with
Python's `re` on text (the fallback when re2 is missing)."""

from __future__ import annotations

import base64
import re

import pytest

from gavelkit.task.anticheat import fingerprint as fp

TEXT = "def test_widget():\n    assert widget_value(3) == 21\n" * 6
ENC = base64.b64encode(TEXT.encode()).decode()


def _wrap(s: str, width: int, sep: str = "\n") -> str:
    return sep.join(s[i:i + width] for i in range(0, len(s), width))


CASES = [
    ENC, _wrap(ENC, 76), _wrap(ENC, 48), _wrap(ENC, 24), _wrap(ENC, 16),
    _wrap(ENC, 48, "\u2028"), _wrap(ENC, 48, "\u00a0"), _wrap(ENC, 48, "\x0b"),
    _wrap(ENC, 48, "\r\n"), "x" + ENC + "y", "see " + _wrap(ENC, 40) + " done",
    _wrap(ENC, 15),                        # too narrow: no block
    "/testbed/django/contrib/admin\n" * 5,  # looks like one: decoded, no match later
    "a3f9c2e1" * 5 + " commit\n",          # a 40-character hash alone: no block
    "é" + _wrap(ENC, 32) + "ü",
]


@pytest.mark.parametrize("text", CASES)
def test_re2_and_python_find_the_same_blocks(text: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    fast = fp.decoded_blocks(text)
    monkeypatch.setattr(fp, "block_pattern", lambda: (fp._B64, False))
    assert fast == fp.decoded_blocks(text)


@pytest.mark.parametrize("width", [16, 24, 40, 48, 76])
def test_a_wrapped_block_decodes_to_the_text(width: int) -> None:
    # a last line too short to be part of the block is left out: most of the text is there
    assert TEXT[:len(TEXT) * 3 // 4] in "".join(fp.decoded_blocks(_wrap(ENC, width)))


def test_near_miss_lines_narrower_than_16_are_not_a_block() -> None:
    assert fp.decoded_blocks(_wrap(ENC, 15)) == []


def test_the_spelled_out_whitespace_is_pythons() -> None:
    re2 = pytest.importorskip("re2")
    pythons = {c for c in range(0x110000) if re.match(r"\s", chr(c))}

    spelled = re2.compile(fp._PY_SPACE.encode())
    assert {c for c in range(0x3001)
            if spelled.fullmatch(chr(c).encode("utf-8", "surrogatepass"))} == pythons
