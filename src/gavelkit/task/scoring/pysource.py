"""A candidate's Python file as the interpreter reads it.

Python honours a file's coding declaration (PEP 263, `utf-7` included) and folds
identifiers to NFKC (`ｆ_locals` is `f_locals`). A check that reads the bytes as UTF-8, or
looks for an ASCII word in the text, sees another program than the one that runs: the
candidate could hide a primitive from the static scan or the frame check that way.
"""

from __future__ import annotations

from pathlib import Path


def read_source(path: Path) -> str:
    """The file's text decoded as its coding declaration says (UTF-8 with replacement when
    the declaration names no codec Python knows: such a file does not import anyway)."""
    from importlib.util import decode_source

    data = path.read_bytes()
    try:
        return decode_source(data)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return data.decode("utf-8", "replace")


def may_name(text: str, word: str) -> bool:
    """Can the program in `text` spell the ASCII identifier `word`? Only a pure-ASCII text
    without the word cannot (NFKC folds other letters into it)."""
    return word in text or not text.isascii()
