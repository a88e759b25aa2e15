"""Is a run's figqa.py the gate the skill ships? (content digests of released versions)

The coder copies figqa.py into work/<run-id>/code/ so the package reruns its gate
without the skill installed. The critic's re-run gates with the shipped figqa whatever
the copy says, but a copy that is not a released version (a no-op, an edited threshold)
is a defeated gate in the package: it fails and the message names the difference.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

SHIPPED = Path(__file__).resolve().parent / "figqa.py"


@dataclass(frozen=True, slots=True)
class Verdict:
    status: str        # "shipped" | "released" (an older one) | "modified" | "unreadable"
    sha256: str
    detail: str = ""   # the first difference from the shipped file, or why unreadable


def digest(data: bytes) -> str:
    """sha256 of the text with LF line endings (a checkout with CRLF is the same file)."""
    return hashlib.sha256(data.replace(b"\r\n", b"\n")).hexdigest()


@functools.cache
def released() -> frozenset[str]:
    import yaml

    from gavelkit.data import path

    doc = yaml.safe_load(path("award", "figqa_releases.yaml").read_text(encoding="utf-8"))
    return frozenset(str(r["sha256"]) for r in doc["releases"])


def shipped_digest() -> str:
    return digest(SHIPPED.read_bytes())


def first_difference(text: str, limit: int = 6) -> str:
    """The first changed lines against the shipped figqa.py, as `-old` / `+new` (with the
    shipped line number), or a note that the file is the shipped one."""
    ours = SHIPPED.read_text(encoding="utf-8").splitlines()
    theirs = text.replace("\r\n", "\n").splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ours, theirs,
                                                        autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        gone = [f"-{ln.strip()[:80]}" for ln in ours[i1:i2][:limit]]
        new = [f"+{ln.strip()[:80]}" for ln in theirs[j1:j2][:limit]]
        more = max(i2 - i1, j2 - j1) > limit
        return (f"first difference at line {i1 + 1} of the shipped figqa.py: "
                + " / ".join(gone + new) + (" / ..." if more else ""))
    return "identical lines (only line endings or a final newline differ)"


def judge(path: str) -> Verdict:
    """The verdict on one figqa.py file (read at most 4 MB)."""
    from gavelkit.core.errors import InputError
    from gavelkit.core.safeio import read_input

    try:
        data = read_input(path, limit=4 << 20)
    except InputError as exc:
        return Verdict("unreadable", "", exc.message)
    d = digest(data)
    if d == shipped_digest():
        return Verdict("shipped", d)
    if d in released():
        return Verdict("released", d)
    return Verdict("modified", d, first_difference(data.decode("utf-8", "replace")))
