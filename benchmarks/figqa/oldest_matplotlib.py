"""Run the figqa tests on the oldest matplotlib the package claims (pyproject: >=3.8).

usage: python benchmarks/figqa/oldest_matplotlib.py VENV_DIR [--matplotlib 3.8.*]
       [--out benchmarks/figqa/oldest_matplotlib_results.json]

Creates VENV_DIR with `uv venv` (same Python as this interpreter), installs this
checkout editable with its test extra plus the old matplotlib (and numpy<2, which
matplotlib 3.8 wheels were built against), runs the four figqa test files and
writes what ran and the pytest summary.  Needs the package index (uv pip); CI
may run it as an optional job.  Not part of the default test run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ["tests/test_figqa.py", "tests/test_figqa_cli.py", "tests/test_figqa_pytest.py",
         "tests/test_figqa_real_shapes.py"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("venv")
    ap.add_argument("--matplotlib", default="3.8.*")
    ap.add_argument("--out", default=str(Path(__file__).with_name("oldest_matplotlib_results.json")))
    a = ap.parse_args()
    venv = Path(a.venv).resolve()
    py = venv / "bin" / "python"
    if not py.exists():
        subprocess.run(["uv", "venv", "-p", sys.executable, str(venv)], check=True)
    env = dict(os.environ, VIRTUAL_ENV=str(venv))
    subprocess.run(["uv", "pip", "install", "-q", "-e", f"{ROOT}[test]",
                    f"matplotlib=={a.matplotlib}", "numpy<2"], check=True, env=env)
    vers = subprocess.run([str(py), "-c", "import matplotlib, numpy, sys; print(matplotlib."
                           "__version__, numpy.__version__, sys.version.split()[0])"],
                          capture_output=True, text=True, check=True).stdout.split()
    p = subprocess.run([str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", *TESTS],
                       cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, MPLBACKEND="Agg"))
    tail = [ln for ln in p.stdout.splitlines() if ln.strip()][-1:]
    res = {"matplotlib": vers[0], "numpy": vers[1], "python": vers[2], "tests": TESTS,
           "exit": p.returncode, "summary": tail[0] if tail else "",
           "failed": [ln for ln in p.stdout.splitlines() if ln.startswith("FAILED")]}
    with open(a.out, "w", encoding="utf-8") as fh:
        json.dump(res, fh, indent=1)
        fh.write("\n")
    print(json.dumps(res, indent=1))
    return p.returncode


if __name__ == "__main__":
    sys.exit(main())
