"""Progress shows on a terminal only: silent when piped, quiet or disabled by env."""

from __future__ import annotations

import io

import pytest

from gavelkit.core.progress import CLEAR, Progress, track


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GAVEL_PROGRESS", raising=False)


def test_track_on_a_terminal_counts_and_clears() -> None:
    s = FakeTTY()
    got = list(track(["a", "b", "c"], "report-all", stream=s, delay=0, what=str))
    assert got == ["a", "b", "c"]
    out = s.getvalue()
    assert "report-all: 3/3 (100%)" in out
    assert "report-all: 0/3 (0%) a" in out
    assert out.endswith(CLEAR)


def test_silent_when_piped() -> None:
    s = io.StringIO()
    assert list(track(range(5), "x", stream=s, delay=0)) == [0, 1, 2, 3, 4]
    with Progress("y", 3, stream=s, delay=0) as bar:
        bar.advance()
        bar.update(3, 3)
    assert s.getvalue() == ""


def test_silent_when_quiet_or_env_off(monkeypatch: pytest.MonkeyPatch) -> None:
    s = FakeTTY()
    list(track(range(3), "x", stream=s, delay=0, quiet=True))
    assert s.getvalue() == ""
    monkeypatch.setenv("GAVEL_PROGRESS", "0")
    list(track(range(3), "x", stream=s, delay=0))
    assert s.getvalue() == ""


def test_env_forces_on_for_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAVEL_PROGRESS", "1")
    s = io.StringIO()
    list(track(range(2), "x", stream=s, delay=0))
    assert "x: 2/2" in s.getvalue()


def test_delay_hides_quick_runs() -> None:
    s = FakeTTY()
    with Progress("slow", 10, stream=s, delay=60) as bar:
        for _ in range(10):
            bar.advance()
    assert s.getvalue() == ""


def test_callback_style_and_unknown_total() -> None:
    s = FakeTTY()
    bar = Progress("pdfqa", stream=s, delay=0, interval=0)
    cb = bar.update
    cb(1, 4)
    assert bar.line() == "pdfqa: 1/4 (25%)"
    bar2 = Progress("scan", stream=s, delay=0, interval=0)
    bar2.advance(item="file.jsonl")
    assert bar2.line() == "scan: 1 file.jsonl"
    bar.close()
    bar.close()
    assert s.getvalue().endswith(CLEAR)


def test_generator_without_len_and_broken_stream() -> None:
    class Broken(FakeTTY):
        def write(self, _: str) -> int:
            raise OSError("gone")

    def gen():
        yield from range(3)

    assert list(track(gen(), "g", stream=Broken(), delay=0)) == [0, 1, 2]


def test_cleared_when_loop_breaks() -> None:
    s = FakeTTY()
    for i in track(range(10), "b", stream=s, delay=0):
        if i == 2:
            break
    assert s.getvalue().endswith(CLEAR)
