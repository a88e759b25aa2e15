"""Reading files: fences, positions, duplicate keys, and every unusable-input case."""

from __future__ import annotations

from pathlib import Path

import pytest
from gk_testing import clean, fires
from hypothesis import given, settings
from hypothesis import strategies as st

from gavelkit.core.fences import find_fences
from gavelkit.core.findings import exit_code
from gavelkit.core.sources import load_source
from gavelkit.core.textio import atomic_write, read_text


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content, encoding="utf-8")
    return p


def test_fences_any_case_tilde_indented_and_info_string() -> None:
    md = (
        "# log\n"
        "```YAML\na: 1\n```\n"
        "~~~yml\nb: 2\n~~~\n"
        "- item\n\n    ```yaml title=\"x\"\n    c: 3\n    ```\n"
        "```python\nd = 4\n```\n"
    )
    fences = [f for f in find_fences(md) if f.lang in ("yaml", "yml")]
    assert [f.text for f in fences] == ["a: 1", "b: 2", "c: 3"]
    assert fences[2].indent == 4


def test_longer_fence_contains_shorter() -> None:
    md = "````markdown\n```yaml\nx: 1\n```\n````\n```yaml\ny: 2\n```\n"
    fences = find_fences(md)
    assert [f.lang for f in fences] == ["markdown", "yaml"]


def test_positions_point_into_markdown(tmp_path: Path) -> None:
    p = write(tmp_path, "log.md", "intro\n\n- step\n  ```yaml\n  handoff:\n    phase: 4\n  ```\n")
    src = load_source(p)
    assert not src.findings
    doc = src.docs[0].data
    assert doc.kpos("handoff") == (5, 3)
    assert doc["handoff"].kpos("phase") == (6, 5)


def test_crlf_and_bom(tmp_path: Path) -> None:
    p = write(tmp_path, "a.md", "\ufeffx\r\n```yaml\r\ngate:\r\n  phase: 1\r\n```\r\n".encode())
    src = load_source(p)
    assert src.docs[0].data["gate"]["phase"] == 1
    assert src.docs[0].data.kpos("gate") == (3, 1)


def test_multiple_documents_per_block(tmp_path: Path) -> None:
    p = write(tmp_path, "a.yaml", "a: 1\n---\nb: 2\n---\n")
    assert [d.data for d in load_source(p).docs] == [{"a": 1}, {"b": 2}]


def test_duplicate_key_fires_and_merge_override_does_not(tmp_path: Path) -> None:
    p = write(tmp_path, "d.yaml", "phase: 4\nloop: 0\nphase: 5\n")
    f = fires(load_source(p).findings, "GK-Y003")
    assert (f.line, f.col) == (3, 1) and "line 1" in f.message
    assert exit_code([f]) == 1
    q = write(tmp_path, "m.yaml", "base: &b {x: 1, y: 2}\nthing:\n  <<: *b\n  x: 3\n")
    src = load_source(q)
    clean(src.findings, "GK-Y003")
    assert src.docs[0].data["thing"] == {"x": 3, "y": 2}


@pytest.mark.parametrize(("content", "code"), [
    (b"", "GK-IO002"),
    (b"   \n\n", "GK-IO002"),
    (b"a: 1\x00\x01", "GK-IO003"),
    ("phase: 4\nname: caf\u00e9\n".encode("latin-1"), "GK-IO004"),
    (b"a: [1,\nb: 2\n", "GK-Y001"),
])
def test_unusable_inputs(tmp_path: Path, content: bytes, code: str) -> None:
    src = load_source(write(tmp_path, "x.yaml", content))
    f = fires(src.findings, code)
    assert f.unusable and exit_code(src.findings) == 2


def test_nonutf8_reports_line(tmp_path: Path) -> None:
    src = load_source(write(tmp_path, "x.yaml", "a: 1\nb: \u00e9\n".encode("latin-1")))
    f = fires(src.findings, "GK-IO004")
    assert (f.line, f.col) == (2, 4)


def test_missing_file() -> None:
    f = fires(load_source("/nonexistent/zzz.yaml").findings, "GK-IO001")
    assert f.unusable


def test_oversize(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAVEL_MAX_BYTES", "100")
    src = load_source(write(tmp_path, "big.yaml", "a: 1\n" * 100))
    fires(src.findings, "GK-IO005")
    monkeypatch.delenv("GAVEL_MAX_BYTES")
    clean(load_source(write(tmp_path, "big.yaml", "a: 1\n" * 100)).findings, "GK-IO005")


def test_clean_file_has_no_io_findings(tmp_path: Path) -> None:
    src = load_source(write(tmp_path, "ok.yaml", "a: 1\n"))
    for code in ("GK-IO001", "GK-IO002", "GK-IO003", "GK-IO004", "GK-Y001", "GK-Y002",
                 "GK-Y004"):
        clean(src.findings, code)


def test_alias_bomb_is_refused_fast(tmp_path: Path) -> None:
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    prev = "a"
    for name in "bcdefghij":
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
        prev = name
    src = load_source(write(tmp_path, "bomb.yaml", "\n".join(lines) + "\n"))
    assert fires(src.findings, "GK-Y002").unusable


def test_recursive_alias_refused(tmp_path: Path) -> None:
    fires(load_source(write(tmp_path, "r.yaml", "a: &x\n  - *x\n")).findings, "GK-Y002")


def test_error_in_one_fence_keeps_the_other(tmp_path: Path) -> None:
    p = write(tmp_path, "two.md", "```yaml\na: [1,\n```\n\n```yaml\nb: 2\n```\n")
    src = load_source(p)
    f = fires(src.findings, "GK-Y001")
    assert f.line == 3
    assert [d.data for d in src.docs] == [{"b": 2}]


def test_unclosed_fence_warns(tmp_path: Path) -> None:
    src = load_source(write(tmp_path, "u.md", "```yaml\na: 1\n"))
    assert fires(src.findings, "GK-Y004").severity == "warning"
    assert src.docs[0].data == {"a": 1}


def test_fenced_yaml_in_txt_is_found(tmp_path: Path) -> None:
    src = load_source(write(tmp_path, "note.txt", "prose\n```yaml\na: 1\n```\n"))
    assert [d.data for d in src.docs] == [{"a": 1}]


def test_atomic_write_replaces_and_keeps_mode(tmp_path: Path) -> None:
    p = tmp_path / "state.md"
    atomic_write(p, "one")
    p.chmod(0o600)
    atomic_write(p, "two")
    assert read_text(p) == "two" and (p.stat().st_mode & 0o777) == 0o600
    assert [x.name for x in tmp_path.iterdir()] == ["state.md"]


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_never_raise(tmp_path_factory: pytest.TempPathFactory, blob: bytes) -> None:
    d = tmp_path_factory.mktemp("fuzz")
    for name in ("f.yaml", "f.md"):
        p = d / name
        p.write_bytes(blob)
        load_source(p)  # must not raise


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab: -[]{}&*!|>'\"\n#`~\t0123.")), max_size=200))
def test_random_yamlish_text_never_raises(tmp_path_factory: pytest.TempPathFactory,
                                          text: str) -> None:
    d = tmp_path_factory.mktemp("fuzz")
    for name in ("f.yaml", "f.md"):
        p = d / name
        p.write_text(text, encoding="utf-8")
        load_source(p)
