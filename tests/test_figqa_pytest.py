"""The pytest plugin fails a project's test whose figure collides, and only then."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("matplotlib")

PROJECT_TESTS = '''
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest


def test_collides(tmp_path):
    fig, ax = plt.subplots()
    ax.axhline(0.5)
    ax.text(0.5, 0.5, "crossed", ha="center", va="center")
    fig.savefig(tmp_path / "a.png")


def test_collides_never_saved():
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0.5, 0.5])
    ax.set_title("t")
    ax.text(0.5, 0.5, "crossed too", ha="center", va="center")  # struck through, any version


def test_clean():
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    ax.set_title("fine")


@pytest.mark.figqa(skip=True)
def test_opted_out():
    fig, ax = plt.subplots()
    ax.axhline(0.5)
    ax.text(0.5, 0.5, "crossed", ha="center", va="center")


def test_fixture(figqa_gate):
    fig, ax = plt.subplots()
    ax.set_title("ok")
    figqa_gate(fig)
'''


def run(tmp_path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_project.py").write_text(textwrap.dedent(PROJECT_TESTS), encoding="utf-8")
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    env = dict(os.environ, PYTHONPATH=src, MPLBACKEND="Agg")
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "gavelkit.award.figures.pytest_plugin", *args, "test_project.py"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=180)


def test_plugin_gates_every_figure(tmp_path):
    p = run(tmp_path, "--figqa")
    out = p.stdout
    assert p.returncode == 1, out + p.stderr
    assert "2 failed, 3 passed" in out
    assert "FAILED test_project.py::test_collides " in out or \
        "FAILED test_project.py::test_collides -" in out
    assert "test_collides_never_saved" in out
    assert "[text-over-line]" in out


def test_plugin_is_dormant_without_the_flag(tmp_path):
    p = run(tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "5 passed" in p.stdout
