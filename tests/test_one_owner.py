"""One fact, one owner (issue 23 items 2 and 6): the places that used to keep their own copy
of a rule now ask one function, so they cannot drift apart."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import pytest

from gavelkit.core.fences import find_fences
from gavelkit.core.textio import sha256_file
from gavelkit.task.formats._md import code_mask

TRICKY = [
    "``` `not a fence` ```\n# Heading A\n",               # backtick info holding a backtick
    "````md\n```\n# inside\n```\n````\n# Heading B\n",    # a longer fence holds a shorter one
    "~~~yaml\nkey: 1\n~~~~~\n# Heading C\n",              # a longer closing fence closes
    "  ```\n  # indented inside\n  ```\n# Heading D\n",   # indented (a list item's) fence
    "```\n# never closed\n",                              # open to the end of the file
]


@pytest.mark.parametrize("text", TRICKY)
def test_the_code_mask_and_the_fence_finder_agree(text: str) -> None:
    lines = text.split("\n")
    mask = code_mask(lines)
    inside = set()
    for f in find_fences(text):
        end = f.open_line + f.text.count("\n") + 1 + (1 if f.closed else 0)
        inside |= set(range(f.open_line - 1, min(end, len(lines))))
    assert {i for i, m in enumerate(mask) if m} == inside
    headings = [ln for i, ln in enumerate(lines) if ln.startswith("# ") and not mask[i]]
    assert all(h.split()[-1] in "ABCD" for h in headings)


def test_sha256_of_a_file_once(tmp_path: Path) -> None:
    p = tmp_path / "score_result.json"
    p.write_bytes(b"x" * (3 << 20))
    assert sha256_file(p) == hashlib.sha256(p.read_bytes()).hexdigest()
    assert sha256_file(tmp_path) is None and sha256_file(tmp_path / "gone") is None


def test_sha256_of_a_fifo_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[object] = []
    t = threading.Thread(target=lambda: got.append(sha256_file(fifo)), daemon=True)
    t.start()
    t.join(5)
    assert got == [None]
