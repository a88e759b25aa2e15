"""Import-provenance preflight on real packages on disk, with real subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gavelkit.core.errors import InputError
from gavelkit.task.anticheat.preflight import run_preflight

from gk_testing import clean, cli, cli_json, fires

PKG = "gkprobe_widget"


def _pkg(root: Path, name: str = PKG, init: bool = True) -> Path:
    d = root / name
    d.mkdir(parents=True)
    if init:
        (d / "__init__.py").write_text(f"ORIGIN = {str(root)!r}\n", encoding="utf-8")
    else:
        (d / "mod.py").write_text("X = 1\n", encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A throw-away venv (no pip): its python and its site-packages."""
    root = tmp_path_factory.mktemp("venv")
    made = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "v")],
                          capture_output=True, text=True, timeout=120)
    if made.returncode != 0:  # e.g. Debian's python3 without python3-venv
        pytest.skip(f"cannot create a venv here: {made.stderr.strip()[-200:]}")
    py = root / "v" / "bin" / "python"
    site = subprocess.run([str(py), "-c", "import site; print(site.getsitepackages()[0])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    return py, Path(site)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env


def test_candidate_package_passes_and_block_is_literal(tmp_path: Path) -> None:
    cand = tmp_path / "solution"
    _pkg(cand)
    res = run_preflight(PKG, cand, env=_env())
    assert res.passed and res.kind == "ok"
    assert res.block_text.startswith("### Preflight output")
    assert f'-c \'import {PKG}; print({PKG}.__file__)\'' in res.block_text
    assert str(cand / PKG / "__init__.py") in res.block_text
    for code in ("PRE-001", "PRE-002", "PRE-003", "PRE-004", "PRE-005", "PRE-006", "PRE-007"):
        clean(res.findings(), code)


def test_not_importable(tmp_path: Path) -> None:
    cand = tmp_path / "solution"
    _pkg(cand / "src")            # src layout, not on the path
    res = run_preflight(PKG, cand, env=_env())
    assert not res.passed
    f = fires(res.findings(), "PRE-001")
    assert "ModuleNotFoundError" in f.message and "ModuleNotFoundError" in res.output


def test_cwd_shadowing_and_remove_path(tmp_path: Path) -> None:
    cand, worktree = tmp_path / "solution", tmp_path / "oracle_worktree"
    _pkg(cand)
    _pkg(worktree)
    (worktree / "test_atomic.py").write_text("def test_x(): pass\n")
    res = run_preflight(PKG, cand, cwd=worktree, env=_env())
    f = fires(res.findings(), "PRE-002")
    assert "--remove-path" in f.message and str(worktree) in f.message
    res = run_preflight(PKG, cand, cwd=worktree, remove_paths=[PKG], env=_env())
    assert res.passed, res.reason
    clean(res.findings(), "PRE-002")
    assert (worktree / PKG).is_dir()          # nothing was deleted


def test_installed_copy_in_site_packages(tmp_path: Path, venv: tuple[Path, Path]) -> None:
    py, site = venv
    inst = _pkg(site)
    try:
        cand = tmp_path / "solution"
        _pkg(cand / "src")
        res = run_preflight(PKG, cand, python=str(py), env=_env())
        f = fires(res.findings(), "PRE-003")
        assert str(site) in f.message
        _pkg(cand)                                  # now the candidate provides it
        res = run_preflight(PKG, cand, python=str(py), env=_env())
        assert res.passed
        clean(res.findings(), "PRE-003")
    finally:
        import shutil

        shutil.rmtree(inst)


@pytest.mark.parametrize("relative", [False, True])
def test_pth_redirect(tmp_path: Path, venv: tuple[Path, Path], relative: bool) -> None:
    """A .pth line names a folder absolutely or relative to its site folder (as `site`
    reads it, never relative to the working directory): both are PRE-004."""
    py, site = venv
    upstream = tmp_path / "repo-pool" / "widget" / "src"
    _pkg(upstream)
    pth = site / "zz_widget_dev.pth"
    line = os.path.relpath(upstream, site) if relative else str(upstream)
    pth.write_text(line + "\n", encoding="utf-8")
    try:
        cand = tmp_path / "solution"
        cand.mkdir()
        res = run_preflight(PKG, cand, python=str(py), env=_env())
        f = fires(res.findings(), "PRE-004")
        assert "zz_widget_dev.pth" in f.message
        _pkg(cand)
        clean(run_preflight(PKG, cand, python=str(py), env=_env()).findings(), "PRE-004")
    finally:
        pth.unlink()


def test_namespace_package(tmp_path: Path) -> None:
    cand, other = tmp_path / "solution", tmp_path / "other"
    _pkg(cand, init=False)
    _pkg(other, init=False)
    env = _env()
    env["PYTHONPATH"] = str(other)
    res = run_preflight(PKG, cand, env=env)
    f = fires(res.findings(), "PRE-005")
    assert str(other) in f.message
    assert res.output.strip() == "None"


def test_symlink_out_of_candidate(tmp_path: Path) -> None:
    upstream = tmp_path / "upstream"
    real = _pkg(upstream)
    cand = tmp_path / "solution"
    cand.mkdir()
    os.symlink(real, cand / PKG)
    res = run_preflight(PKG, cand, env=_env())
    f = fires(res.findings(), "PRE-006")
    assert str(upstream) in f.message
    clean(run_preflight(PKG, upstream, env=_env()).findings(), "PRE-006")


def test_pythonpath_entry_ahead_of_candidate(tmp_path: Path) -> None:
    cand, other = tmp_path / "solution", tmp_path / "copied_src"
    _pkg(cand / "src")
    _pkg(other)
    env = _env()
    env["PYTHONPATH"] = str(other)
    res = run_preflight(PKG, cand, env=env)
    f = fires(res.findings(), "PRE-007")
    assert str(other) in f.message
    _pkg(cand)
    clean(run_preflight(PKG, cand, env=env).findings(), "PRE-007")


def test_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(InputError) as exc:
        run_preflight(PKG, tmp_path / "missing")
    fires([exc.value.to_finding()], "PRE-008")
    cand = tmp_path / "c"
    _pkg(cand)
    clean(run_preflight(PKG, cand, env=_env()).findings(), "PRE-008")
    with pytest.raises(InputError):
        run_preflight(PKG, cand, python=str(tmp_path / "nopython"))
    rc, _, err = cli("task", "preflight", "--package", "x; rm -rf /", "--candidate", str(cand))
    assert rc == 2 and "not an importable package name" in err


def test_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTHONPATH", raising=False)
    cand = tmp_path / "solution"
    _pkg(cand)
    rc, out, _ = cli("task", "preflight", "--package", PKG, "--candidate", str(cand))
    assert rc == 0 and out.startswith("### Preflight output") and "Verdict: PASS" in out
    rc, doc = cli_json("task", "preflight", "--package", PKG, "--candidate", str(tmp_path))
    assert rc == 1 and doc["preflight"]["kind"] == "not-importable"
    assert doc["findings"][0]["code"] == "PRE-001"
    rc, _, _ = cli("task", "preflight", "--package", PKG, "--candidate", str(tmp_path / "no"))
    assert rc == 2


def test_the_literal_import_runs_confined(tmp_path: Path) -> None:
    """Importing the candidate runs its code; under bubblewrap it cannot write outside a
    private scratch folder nor reach the network, and the preflight still passes."""
    from gavelkit.task.scoring.sandbox import bwrap_available

    cand = tmp_path / "solution"
    d = _pkg(cand)
    marker = tmp_path / "written-at-import.txt"
    (d / "__init__.py").write_text(
        "import os, socket, tempfile\n"
        f"try:\n    open({str(marker)!r}, 'w').write('x')\nexcept OSError:\n    pass\n"
        "tempfile.mkstemp()  # a private TMPDIR is writable\n"
        "try:\n    socket.create_connection(('1.1.1.1', 53), timeout=2).close()\n"
        f"    open({str(marker)!r} + '.net', 'w')\nexcept OSError:\n    pass\n",
        encoding="utf-8")
    res = run_preflight(PKG, cand, env=_env())
    assert res.passed and res.kind == "ok", res.output
    if bwrap_available()[0]:
        assert not marker.exists()
    else:
        assert marker.exists()  # no sandbox on this machine: the import ran as it is


def test_a_path_printed_last_does_not_decide_the_preflight(tmp_path: Path) -> None:
    """Issue 24: the candidate's package loads the real code from elsewhere and an exit
    handler prints a path inside the candidate last; the preflight took the last line."""
    elsewhere = _pkg(tmp_path / "elsewhere")
    cand = tmp_path / "cand"
    d = cand / PKG
    d.mkdir(parents=True)
    (d / "__init__.py").write_text(f'''
import atexit, importlib.util, sys
_mine = __file__
_spec = importlib.util.spec_from_file_location({PKG!r}, {str(elsewhere / "__init__.py")!r})
_mod = importlib.util.module_from_spec(_spec)
sys.modules[{PKG!r}] = _mod
_spec.loader.exec_module(_mod)
atexit.register(lambda: print(_mine))
''', encoding="utf-8")
    res = run_preflight(PKG, cand)
    assert res.output.strip().splitlines()[-1] == str(d / "__init__.py")  # the lie is shown
    assert not res.passed and res.kind != "ok", res.reason
    assert str(elsewhere) in (res.resolved or "") or str(elsewhere) in res.reason


def test_the_probes_marker_cannot_be_printed_by_the_candidate(tmp_path: Path) -> None:
    """The marker is read from stdin after the import: code run by the import cannot
    know it, so what it prints in the probe's name is ignored (near miss: an honest
    package printing during import still passes)."""
    cand = tmp_path / "cand"
    d = cand / PKG
    d.mkdir(parents=True)
    (d / "__init__.py").write_text('print("GAVEL-PREFLIGHT 00 {\\"file\\": \\"/x\\"}")\n'
                                   'print("importing the widget")\n', encoding="utf-8")
    res = run_preflight(PKG, cand)
    assert res.passed, res.reason
