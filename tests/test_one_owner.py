"""One fact, one owner (issue 23 items 2 and 6): the places that used to keep their own copy
of a rule now ask one function, so they cannot drift apart."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import pytest

from gavelkit.core.fences import find_fences
from gavelkit.core.textio import sha256_file
from gavelkit.task.formats._md import code_mask

TRICKY = [
    "``` `not a fence` ```\n# Heading A\n",               # backtick info holding a backtick
    "````md\n```\n# inside\n```\n````\n# Heading B\n",    # a longer fence holds a shorter one
    "~~~yaml\nkey: 1\n~~~~~\n# Heading C\n",              # a longer closing fence closes
    "  ```\n  # indented inside\n  ```\n# Heading D\n",   # indented (a list item's) fence
    "```\n# never closed\n",                              # open to the end of the file
]


@pytest.mark.parametrize("text", TRICKY)
def test_the_code_mask_and_the_fence_finder_agree(text: str) -> None:
    lines = text.split("\n")
    mask = code_mask(lines)
    inside = set()
    for f in find_fences(text):
        end = f.open_line + f.text.count("\n") + 1 + (1 if f.closed else 0)
        inside |= set(range(f.open_line - 1, min(end, len(lines))))
    assert {i for i, m in enumerate(mask) if m} == inside
    headings = [ln for i, ln in enumerate(lines) if ln.startswith("# ") and not mask[i]]
    assert all(h.split()[-1] in "ABCD" for h in headings)


def test_sha256_of_a_file_once(tmp_path: Path) -> None:
    p = tmp_path / "score_result.json"
    p.write_bytes(b"x" * (3 << 20))
    assert sha256_file(p) == hashlib.sha256(p.read_bytes()).hexdigest()
    assert sha256_file(tmp_path) is None and sha256_file(tmp_path / "gone") is None


def test_sha256_of_a_fifo_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[object] = []
    t = threading.Thread(target=lambda: got.append(sha256_file(fifo)), daemon=True)
    t.start()
    t.join(5)
    assert got == [None]


def test_open_blocking_severities_come_from_the_data_only() -> None:
    """blocker/high was spelled out in four places beside blocks.yaml's gate.open_blocking."""
    import re

    import gavelkit
    from gavelkit.award.tables import load_tables, open_blocking

    assert open_blocking() == tuple(load_tables().blocks["gate"]["open_blocking"])
    assert [] not in open_blocking()  # any YAML value may be asked about
    src = Path(gavelkit.__file__).parent
    spelled = [str(p.relative_to(src)) for p in src.rglob("*.py")
               if re.search(r"""\(\s*["']blocker["']\s*,\s*["']high["']\s*\)""", p.read_text())]
    assert not spelled


def test_one_vocabulary_for_verdicts_and_gate_names() -> None:
    from gavelkit.task.judging import schema, verdict

    assert "REFUSED" in verdict.VERDICTS and "PENDING" in verdict.VERDICTS
    assert set(schema.GATES) <= set(verdict.ORDER)  # a gate is named as its check everywhere
    assert set(schema.judge_result_schema()["$defs"]["check"]["properties"]["name"]["enum"]) \
        == set(verdict.ORDER)


def test_one_class_per_name_in_the_judge_and_its_inputs() -> None:
    """Check, Ruling and the step results are defined once (there were two Checks, two
    Decisions, two Results, and api.Preflight beside PreflightResult)."""
    import ast

    import gavelkit

    src = Path(gavelkit.__file__).parent
    names: dict[str, list[str]] = {}
    for p in src.rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ClassDef):
                names.setdefault(node.name, []).append(str(p.relative_to(src)))
    for name in ("Check", "Ruling", "Decision", "Preflight", "PreflightResult",
                 "TransitionResult", "ScoreResult", "ScoreCase", "SolvabilityCheck"):
        assert len(names.get(name, [])) <= 1, (name, names.get(name))


def test_every_option_the_judge_tells_you_to_pass_exists() -> None:
    """'set task.json package or pass --package' named an option `task judge` lacks."""
    import re

    import gavelkit
    from gavelkit.cli.task_judging import judge_parser

    opts = set(judge_parser("gavel task judge")._option_string_actions)
    src = Path(gavelkit.__file__).parent
    told = {o for p in [*(src / "task" / "judging").glob("*.py"), src / "task" / "formats" /
                        "score.py"] for o in re.findall(r"pass (--[a-z][a-z-]*)", p.read_text())}
    assert told and told <= opts, told - opts
