"""The one way every task-file reader opens its file.

Read the text through core.textio (size cap, BOM, CRLF, UTF-8 with the bad byte's
place), turn an unreadable file into `(None, [unusable finding])`, and hand the text
to the format's parser — so no reader repeats this, and none can forget a case.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.core.textio import read_text

T = TypeVar("T")


def read_with(parse: Callable[[str, str], tuple[T | None, list[Finding]]],
              path: str | Path) -> tuple[T | None, list[Finding]]:
    try:
        text = read_text(path)
    except InputError as exc:
        return None, [exc.to_finding()]
    return parse(text, str(path))
