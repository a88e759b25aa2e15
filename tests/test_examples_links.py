"""The demo and every bundled example are self-contained: no link leaves its folder.

A link out of a run folder is what `award manifest` and `lint handoff --run-dir`
must refuse; the bundled examples must not teach it (issue 13, item 8).
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def escaping_links(folder: Path) -> list[str]:
    real_root = os.path.realpath(folder)
    out = []
    for dirpath, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = os.path.join(dirpath, name)
            if os.path.islink(p):
                real = os.path.realpath(p)
                if not (real == real_root or real.startswith(real_root + os.sep)):
                    out.append(os.path.relpath(p, ROOT))
    return out


def test_examples_have_no_link_out_of_their_folder() -> None:
    examples = sorted(p for p in (ROOT / "examples").iterdir() if p.is_dir())
    assert examples
    bad = [link for ex in examples for link in escaping_links(ex)]
    # each run folder is a root of its own too: a link may not leave the run
    runs = (ROOT / "examples" / "award-run" / "work").iterdir()
    bad += [link for run in runs if run.is_dir() for link in escaping_links(run)]
    assert not bad, f"links leaving their folder: {bad}"


def test_demo_copies_no_link_at_all() -> None:
    """`gavel demo` copies examples/ whole: a link of any kind would be copied as a link."""
    links = [p.relative_to(ROOT).as_posix() for p in (ROOT / "examples").rglob("*")
             if p.is_symlink()]
    assert not links, links
