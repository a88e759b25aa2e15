"""Read a run folder: gate files, seat cards and phase logs, each checked against its name.

Everything a half-written run can throw at us (missing folders, empty files, stray
files, YAML errors) becomes a finding; whatever can be read is still returned.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from gavelkit.award.blocks.lint import check_block
from gavelkit.award.blocks.load import Block, select
from gavelkit.award.blocks.scorecard import Card
from gavelkit.award.runs.layout import check_layout, layout
from gavelkit.award.tables import Tables
from gavelkit.core.findings import Finding
from gavelkit.core.sources import load_source


class GateFile:
    """One gates/phase-<n>-loop-<k>.yaml with its gate block (None when unreadable)."""

    __slots__ = ("block", "loop", "path", "phase")

    def __init__(self, path: str, phase: int, loop: int, block: Block | None) -> None:
        self.path = path
        self.phase = phase
        self.loop = loop
        self.block = block


class CardFile:
    """One scorecards/phase7-seat-<S>-round-<r>.yaml with its checked card."""

    __slots__ = ("block", "card", "path", "round", "seat", "valid")

    def __init__(self, path: str, seat: str, round_: int, block: Block | None,
                 card: Card | None, valid: bool) -> None:
        self.path = path
        self.seat = seat
        self.round = round_
        self.block = block
        self.card = card
        self.valid = valid


class RunFiles:
    __slots__ = ("cards", "findings", "gates", "handoffs", "memos", "run", "variants")

    def __init__(self, run: Path) -> None:
        self.run = run
        self.gates: list[GateFile] = []
        self.cards: list[CardFile] = []
        self.memos: list[Block] = []
        self.handoffs: list[Block] = []
        self.variants: list[Block] = []
        self.findings: list[Finding] = []


def _one_block(findings: list[Finding], path: Path, kind: str, run: Path) -> Block | None:
    src = load_source(path, root=run)  # a gate or card linked from outside is not the run's
    findings.extend(src.findings)
    if src.unusable:
        return None
    blocks, found = select(src, kind)
    findings.extend(found)
    if len(blocks) > 1:
        findings.append(Finding("AWD-T003", "error", f"{path.name} holds {len(blocks)} {kind} "
                                "blocks; one file is one evaluation", str(path), blocks[1].line, 1))
    return blocks[0] if blocks else None


def _named(rf: RunFiles, folder: Path, rx: re.Pattern[str], pattern: str) -> list[tuple[Path, re.Match[str]]]:
    """Files of `folder` whose names match `rx`; others are reported as strays.

    A matching name that is not a regular file (a FIFO, a folder, a link loop) is kept:
    its reader reports it as unusable, so a gate can never vanish from the status."""
    out = []
    if os.path.lexists(folder) and not folder.is_dir():
        # a file (or FIFO, broken link) where the folder belongs: its gates or cards
        # cannot be read, which must not look like a run that has none yet
        from gavelkit.core.errors import InputError
        from gavelkit.core.safeio import check_input

        try:
            check_input(folder, want="dir")
        except InputError as exc:
            rf.findings.append(exc.to_finding())
        return out
    for p in sorted(folder.iterdir()) if folder.is_dir() else []:
        if p.name.startswith("."):
            continue
        m = rx.match(p.name)
        if not m:
            rf.findings.append(Finding("AWD-T004", "warning", f"{p.name} in {folder.name}/ does "
                                       f"not match {pattern} and is ignored", str(p)))
            continue
        out.append((p, m))
    return out


def _checked(rf: RunFiles, p: Path, kind: str, tables: Tables, named: dict[str, object],
             code: str) -> tuple[Block | None, Card | None, bool]:
    """Load, lint and compare a file's block with what its name promises."""
    block = _one_block(rf.findings, p, kind, rf.run)
    if block is None:
        return None, None, False
    res = check_block(block, tables)
    rf.findings.extend(res.findings)
    ok = res.ok
    for key, want in named.items():
        got = block.body.get(key)
        if key in block.body and got != want:
            line, col = block.body.kpos(key)
            rf.findings.append(Finding(code, "error", f"{p.name} is named for {key} {want} but "
                                       f"its {kind} says {key}: {got!r}", str(p), line, col))
            ok = False
    return block, res.card, ok


def read_run(run: Path, tables: Tables) -> RunFiles:
    rf = RunFiles(run)
    rf.findings.extend(check_layout(run))
    lay = layout()
    for p, m in _named(rf, run / "gates", re.compile(lay["gate_name"]),
                       "phase-<n>-loop-<k>.yaml"):
        phase, loop = int(m.group(1)), int(m.group(2))
        block, _, _ = _checked(rf, p, "gate", tables, {"phase": phase, "loop": loop}, "AWD-T001")
        rf.gates.append(GateFile(str(p), phase, loop, block))
    for p, m in _named(rf, run / "scorecards", re.compile(lay["card_name"]),
                       "phase7-seat-<A|B|C>-round-<r>.yaml"):
        seat, rnd = m.group(1), int(m.group(2))
        block, card, ok = _checked(rf, p, "scorecard", tables, {"seat": seat, "round": rnd},
                                   "AWD-T002")
        rf.cards.append(CardFile(str(p), seat, rnd, block, card, ok))
    ldir = run / "phase-logs"
    for p in sorted(ldir.rglob("*")) if ldir.is_dir() else []:
        if p.suffix.lower() not in (".md", ".yaml", ".yml", ".markdown") or p.is_dir():
            continue  # a FIFO or broken link with a log's name is read, and reported
        src = load_source(p, root=run)
        if src.unusable:
            rf.findings.extend(f for f in src.findings if f.unusable)
            continue
        for kind, bucket in (("decision_memo", rf.memos), ("variant", rf.variants),
                             ("handoff", rf.handoffs)):
            blocks, _ = select(src, kind)
            bucket.extend(b for b in blocks if not b.inferred)
    return rf
