"""The date stamps the pipeline writes (one place, so tests can pin it)."""

from __future__ import annotations

import datetime as _dt


def today() -> str:
    return _dt.date.today().isoformat()
