"""core.safeio: the one way in (read_input) and the one way out (check_output, used by textio.atomic_write)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from gavelkit.core import safeio
from gavelkit.core.errors import InputError
from gavelkit.core.textio import atomic_write, read_text


def _err(fn, *a, **kw) -> InputError:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as ei:
        fn(*a, **kw)
    return ei.value


def _no_hang(fn, *a, **kw):  # type: ignore[no-untyped-def]
    """Run fn in a thread; a FIFO that blocks would leave the thread alive (test fails)."""
    box: dict[str, object] = {}

    def go() -> None:
        try:
            box["value"] = fn(*a, **kw)
        except BaseException as exc:
            box["exc"] = exc
    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(10)
    if t.is_alive():  # unblock the reader so the suite can go on, then fail
        with open(a[0], "wb", opener=lambda p, f: os.open(p, f | os.O_NONBLOCK)):
            pass
        pytest.fail(f"{fn.__name__} blocked on {a[0]}")
    if "exc" in box:
        raise box["exc"]  # type: ignore[misc]
    return box.get("value")


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "in.yaml"
    os.mkfifo(fifo)
    e = _err(_no_hang, safeio.read_input, fifo)
    assert "FIFO" in e.message and str(fifo) == e.path and e.code == "GK-IO007"
    e = _err(_no_hang, read_text, fifo)  # textio goes through the same door
    assert "FIFO" in e.message


def test_devices_and_dev_zero_links_are_refused(tmp_path: Path) -> None:
    link = tmp_path / "kept_nodeids.txt"
    link.symlink_to("/dev/zero")
    e = _err(safeio.read_input, link)
    assert "character device" in e.message
    assert "character device" in _err(safeio.read_input, "/dev/null").message


def test_size_cap_names_file_and_limit(tmp_path: Path) -> None:
    p = tmp_path / "big.txt"
    p.write_bytes(b"x" * 5000)
    e = _err(safeio.read_input, p, 4096)
    assert "4096-byte limit" in e.message and e.path == str(p) and e.code == "GK-IO005"
    assert safeio.read_input(p, 5000) == b"x" * 5000


def test_directory_loop_missing_and_file_as_folder(tmp_path: Path) -> None:
    assert "directory" in _err(safeio.read_input, tmp_path).message
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    assert "loop" in _err(safeio.read_input, loop).message
    assert "no such" in _err(safeio.read_input, tmp_path / "nope.txt").message
    f = tmp_path / "afile"
    f.write_text("x")
    e = _err(safeio.read_input, f / "child.txt")
    assert "not a folder" in e.message and str(f) in e.message


def test_permission_error_is_input_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "x.txt"
    p.write_text("hello")

    def deny(*_a, **_k):  # type: ignore[no-untyped-def]
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(safeio.os, "open", deny)
    assert "permission denied" in _err(safeio.read_input, p).message


def test_links_out_of_the_root_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "run"
    root.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cret")
    inside = root / "ok.txt"
    inside.write_text("fine")
    (root / "alias.txt").symlink_to(inside)
    (root / "leak.txt").symlink_to(secret)
    assert safeio.read_input(root / "alias.txt", root=root) == b"fine"
    e = _err(safeio.read_input, root / "leak.txt", root=root)
    assert "outside" in e.message and e.code == "GK-IO010"
    walked = dict(safeio.iter_files(root))
    assert walked[root / "ok.txt"] is None and walked[root / "alias.txt"] is None
    assert "outside" in (walked[root / "leak.txt"] or "")


def test_iter_files_reports_fifos_and_loops(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "again").symlink_to(tmp_path / "sub")
    got = dict(safeio.iter_files(tmp_path))
    assert "FIFO" in (got[tmp_path / "pipe"] or "")
    assert any("loop" in (why or "") for why in got.values())


def test_json_depth_nan_and_big_ints(tmp_path: Path) -> None:
    p = tmp_path / "d.json"
    p.write_text("[" * 50_000 + "]" * 50_000)
    e = _err(safeio.load_json, p)
    assert "nested" in e.message and "limit" in e.message
    p.write_text('{"a": NaN}')
    assert "NaN" in _err(safeio.load_json, p).message
    p.write_text('{"a": ' + "9" * 5000 + "}")
    assert "not usable" in _err(safeio.load_json, p).message
    p.write_text('\ufeff{"a": "[[[["}')
    assert safeio.load_json(p) == {"a": "[[[["}


@pytest.mark.parametrize("kind", ["fifo", "dir", "device", "loop", "parent_file"])
def test_outputs_only_replace_regular_files(tmp_path: Path, kind: str) -> None:
    out = tmp_path / "out.png"
    if kind == "fifo":
        os.mkfifo(out)
    elif kind == "dir":
        out.mkdir()
    elif kind == "device":
        out.symlink_to("/dev/null")
    elif kind == "loop":
        out.symlink_to(out)
    else:
        (tmp_path / "f").write_text("x")
        out = tmp_path / "f" / "out.png"
    e = _err(atomic_write, out, b"data")
    assert e.code == "GK-IO009" and str(out) == e.path
    if kind == "device":
        assert Path("/dev/null").is_char_device()


def test_outputs_replace_regular_files_and_make_folders(tmp_path: Path) -> None:
    out = tmp_path / "a" / "b" / "o.txt"
    atomic_write(out, "one")
    atomic_write(out, "two")
    assert out.read_text() == "two"
    assert "not a folder" in _err(safeio.check_output_dir, out).message


def test_resolve_arg_is_absolute_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    p = safeio.resolve_arg("cand")
    monkeypatch.chdir("/")
    assert p == tmp_path / "cand" and p.is_absolute()
    assert safeio.resolve_arg(None) is None


def test_stale_temps_of_dead_writers_are_cleaned(tmp_path: Path) -> None:
    target = tmp_path / "task.json"
    dead = tmp_path / f".task.json.{2 ** 22 + 12345}.abcd.tmp"  # above pid_max: never alive
    live = tmp_path / f".task.json.{os.getpid()}.efgh.tmp"
    other = tmp_path / ".other.json.1.x.tmp"
    for p in (dead, live, other):
        p.write_text("partial")
    removed = safeio.clean_stale_temps(target)
    assert removed == [dead] and live.exists() and other.exists()  # other: no pid
    atomic_write(target, "{}\n")
    assert target.read_text() == "{}\n"


def test_rule_codes_fire_and_stay_quiet(tmp_path: Path) -> None:
    from gk_testing import fires

    good = tmp_path / "good.json"
    good.write_text('{"a": [1, 2]}')
    assert safeio.load_json(good, root=tmp_path) == {"a": [1, 2]}
    atomic_write(tmp_path / "o.txt", "x")
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    fires([_err(safeio.read_input, fifo).to_finding()], "GK-IO007")
    good.write_text("[" * 300 + "]" * 300)
    fires([_err(safeio.load_json, good).to_finding()], "GK-IO008")
    fires([_err(atomic_write, fifo, "x").to_finding()], "GK-IO009")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "l").symlink_to(tmp_path / "o.txt")
    fires([_err(safeio.read_input, tmp_path / "sub" / "l", root=tmp_path / "sub").to_finding()],
          "GK-IO010")
