"""The prefilter's block edges: lines split across blocks, an overlong line skipped and
reported, an unterminated last line; both engines give the same lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from gavelkit.task.anticheat import prefilter

ENGINES = prefilter.available_engines()


def _scan(path: Path, engine: str, every: bool = False) -> tuple[list[tuple[int, bytes]],
                                                                  prefilter.LineStats]:
    stats = prefilter.LineStats()
    m = prefilter.Matcher([b"curl ", b"pip "], engine)
    return list(prefilter.hit_lines(str(path), m, every, stats)), stats


@pytest.mark.parametrize("engine", ENGINES)
def test_lines_split_across_blocks_keep_numbers(tmp_path: Path, engine: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prefilter, "BLOCK", 7)
    p = tmp_path / "t.jsonl"
    p.write_bytes(b'{"a": 1}\n{"c": "curl x"}\n{"b": 2}\n{"c": "pip install y"}\n')
    hits, stats = _scan(p, engine)
    assert [n for n, _ in hits] == [2, 4]
    assert hits[1][1] == b'{"c": "pip install y"}'
    assert stats.lines == 4 and stats.bad_lines == [] and stats.overlong == []


@pytest.mark.parametrize("engine", ENGINES)
def test_overlong_line_is_skipped_and_reported(tmp_path: Path, engine: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prefilter, "BLOCK", 8)
    monkeypatch.setattr(prefilter, "MAX_LINE", 20)
    p = tmp_path / "t.jsonl"
    long = b'{"c": "curl ' + b"x" * 60 + b'"}'
    p.write_bytes(b'{"a": 1}\n' + long + b'\n{"c": "curl z"}\n')
    hits, stats = _scan(p, engine)
    assert stats.overlong == [2]
    assert [n for n, _ in hits] == [3]          # the line after it keeps its number
    assert stats.lines == 3


@pytest.mark.parametrize("engine", ENGINES)
def test_unterminated_last_line_is_seen(tmp_path: Path, engine: str) -> None:
    p = tmp_path / "t.jsonl"
    p.write_bytes(b'{"a": 1}\n{"c": "curl x"')
    hits, stats = _scan(p, engine)
    assert [n for n, _ in hits] == [2]
    assert stats.last_line_unterminated and stats.bad_lines == [2]


def test_near_miss_complete_last_line_is_not_unterminated(tmp_path: Path) -> None:
    p = tmp_path / "t.jsonl"
    p.write_bytes(b'{"a": 1}\n{"c": "curl x"}\n')
    hits, stats = _scan(p, ENGINES[0])
    assert [n for n, _ in hits] == [2]
    assert not stats.last_line_unterminated and stats.bad_lines == []
