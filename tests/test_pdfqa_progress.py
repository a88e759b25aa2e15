"""Progress goes to stderr only for a terminal, and never when quiet or piped."""

from __future__ import annotations

import io

from gavelkit.award.progress import Progress


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal():
    s = FakeTTY()
    p = Progress("pdfqa", stream=s, delay=0)
    for k in range(1, 4):
        p.update(k, 3)
    p.close()
    out = s.getvalue()
    assert "pdfqa: page 3/3" in out and out.endswith("\r\x1b[K")


def test_no_progress_when_piped_or_quiet():
    piped = io.StringIO()
    p = Progress("pdfqa", stream=piped, delay=0)
    p.update(1, 1)
    p.close()
    assert piped.getvalue() == ""
    tty = FakeTTY()
    q = Progress("pdfqa", enabled=False, stream=tty, delay=0)
    q.update(1, 1)
    q.close()
    assert tty.getvalue() == ""


def test_no_progress_for_quick_runs():
    s = FakeTTY()
    p = Progress("pdfqa", stream=s, delay=60)
    p.update(1, 2)
    p.close()
    assert s.getvalue() == ""
