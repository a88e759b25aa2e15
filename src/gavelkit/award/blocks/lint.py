"""Lint files of run blocks: load -> select blocks of one kind -> check -> findings.

The library entry points (`lint_paths`, `lint_source`) are what the CLI and the
seed-compatible `lint_run.py` call; they never print and never exit.
"""

from __future__ import annotations

from collections.abc import Sequence

from gavelkit.award.blocks.checks import Ctx
from gavelkit.award.blocks.load import Block, select
from gavelkit.award.runs import runpaths
from gavelkit.award.tables import Tables, load_tables
from gavelkit.core.findings import Finding
from gavelkit.core.sources import Source, load_source

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from gavelkit.award.blocks.scorecard import Card

LINT_KINDS = ("handoff", "gate", "scorecard", "decision_memo", "variant")


class BlockResult:
    """The findings of one block (and, for scorecards, what aggregation needs)."""

    __slots__ = ("block", "card", "findings")

    def __init__(self, block: Block, findings: list[Finding], card: Card | None = None) -> None:
        self.block = block
        self.findings = findings
        self.card = card

    @property
    def ok(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)


class FileResult:
    """One linted file: file-level findings plus one BlockResult per block."""

    __slots__ = ("blocks", "findings", "path", "source")

    def __init__(self, path: str, source: Source, findings: list[Finding] | None = None) -> None:
        self.path = path
        self.source = source
        self.blocks: list[BlockResult] = []
        self.findings = findings if findings is not None else []

    def all_findings(self) -> list[Finding]:
        out = list(self.findings)
        for b in self.blocks:
            out.extend(b.findings)
        return out


def check_block(block: Block, tables: Tables, agent: str | None = None,
                run_dir: Path | None = None, run_id: str | None = None) -> BlockResult:
    # Each kind's checks are imported on first use: an agent linting one scorecard
    # should not pay for loading the handoff, gate, memo and variant rules.
    ctx = Ctx(block.path)
    card = None
    if block.kind == "handoff":
        from gavelkit.award.blocks.handoff import check_handoff

        check_handoff(ctx, block.body, tables, agent, run_dir, run_id)
    elif block.kind == "gate":
        from gavelkit.award.blocks.gate import check_gate

        check_gate(ctx, block.body, tables)
    elif block.kind == "scorecard":
        from gavelkit.award.blocks.scorecard import check_scorecard

        card = check_scorecard(ctx, block.body, tables)
    elif block.kind == "decision_memo":
        from gavelkit.award.blocks.memo import check_memo

        check_memo(ctx, block.body, tables)
    elif block.kind == "variant":
        from gavelkit.award.blocks.variant import check_variant

        check_variant(ctx, block.body, tables)
    return BlockResult(block, ctx.findings, card)


def lint_source(source: Source, kind: str, tables: Tables | None = None,
                agent: str | None = None, run_dir: Path | None = None) -> FileResult:
    tables = tables or load_tables()
    block_kind = kind
    result = FileResult(source.path, source, findings=list(source.findings))
    blocks, found = select(source, block_kind)
    result.findings.extend(found)
    run_id = None
    if block_kind == "handoff" and run_dir is None:
        # the seed's own invocation (`handoff work/<run-id>/phase-logs/phase4.md`) names the
        # run by the file's place: its artifacts are checked on disk, as with --run-dir
        loc = runpaths.run_id_from_location(source.path)
        if loc is not None:
            run_id, run_dir = loc
    for b in blocks:
        result.blocks.append(check_block(b, tables, agent, run_dir, run_id))
    return result


def lint_paths(paths: Sequence[str | Path], kind: str, agent: str | None = None,
               run_dir: str | Path | None = None, tables: Tables | None = None) -> list[FileResult]:
    """Lint every file for blocks of `kind` (handoff|gate|scorecard|decision_memo|variant).

    Raises UnknownAgentError (a UsageError) for an unknown `agent`, before reading anything.
    """
    if kind not in LINT_KINDS:
        raise ValueError(f"unknown block kind {kind!r}")
    tables = tables or load_tables()
    if agent is not None:
        from gavelkit.award.blocks.handoff import known_agent

        known_agent(tables, agent)
    rd = None
    if run_dir is not None:
        from pathlib import Path  # only here: pathlib costs start-up time on every lint

        rd = Path(run_dir)
    return [lint_source(load_source(p), kind, tables, agent, rd) for p in paths]


def variant_limits(path: str, tables: Tables | None = None) -> tuple[int | None, str, list[Finding]]:
    """(limits.pages, contest, limit findings) of the last `variant:` block of a file, read
    and checked exactly as `gavel award lint variant` does (one owner of variant selection:
    `pages: "25"` is refused here as there). Raises UsageError when the file holds no
    variant block or cannot be read."""
    from gavelkit.core.errors import UsageError

    res = lint_paths([path], "variant", tables=tables)[0]
    if res.source.unusable:
        f = res.source.findings[0]
        raise UsageError(f"--variant {f.location()}: {f.message}")
    if not res.blocks:
        raise UsageError(f"--variant {path}: no `variant:` block found")
    last = res.blocks[-1]
    body = last.block.body
    limit_errors = [f for f in last.findings if f.code == "AWD-V003"]
    lim = body.get("limits")
    pages = lim.get("pages") if isinstance(lim, dict) and not limit_errors else None
    contest = body.get("contest")
    return pages, contest if isinstance(contest, str) else "", limit_errors

