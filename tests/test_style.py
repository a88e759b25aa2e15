"""ruff is part of the test run, so style drift fails CI like any other defect."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_clean() -> None:
    exe = shutil.which("ruff")
    cmd = [exe] if exe else [sys.executable, "-m", "ruff"]
    try:
        r = subprocess.run([*cmd, "check", "src", "tests", "benchmarks"], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        pytest.skip("ruff is not installed (pip install -e '.[test]' brings it)")
    if "No module named ruff" in r.stderr:
        pytest.skip("ruff is not installed (pip install -e '.[test]' brings it)")
    assert r.returncode == 0, r.stdout + r.stderr
