"""The gate's fast forms equal the slower forms they replaced (the gate's decisions, and
so fast == thorough, rest on it): property tests over texts made of the characters
that matter to each form."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from gavelkit.task.anticheat.gate import _LITERAL, literals_joined

# the literal pattern the gate used before: one back-reference and a lookahead per char
_OLD_LITERAL = re.compile(r"""(['"])((?:\\.|(?!\1)[^\\\n])*)\1""")
_QUOTY = st.text(alphabet="ab'\"\\\n x/", max_size=40)


@settings(max_examples=3000, deadline=None, derandomize=True, database=None)
@given(code=_QUOTY)
def test_literal_pattern_finds_what_the_backreference_form_found(code: str) -> None:
    assert [m.span() for m in _LITERAL.finditer(code)] == \
        [m.span() for m in _OLD_LITERAL.finditer(code)]
    old = [body for _q, body in _OLD_LITERAL.findall(code)]
    assert literals_joined(code) == "".join(old) + "\n" + "/".join(old) + "\n" + \
        "".join(reversed(old))


def test_literals_joined_on_real_shapes() -> None:
    code = """p = '/srv/' + "eval\\"bench" ; q = 'it\\'s'\nr = "a'b" + ''"""
    assert literals_joined(code).split("\n")[0] == "/srv/eval\\\"benchit\\'sa'b"
    assert literals_joined("x = 1  # no literal") == "\n\n"
