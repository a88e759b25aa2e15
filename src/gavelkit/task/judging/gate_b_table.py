"""Gate B's judgement table: the seed's Pass 1 questions per failure cluster (issue 26 item 4).

Gate B asks of each failure cluster whether a correct reimplementation with other
internals would pass the test ("reimplementation-neutral?") and whether the candidate's
output matches what the spec says (Q-A). Both are the judge's judgement: the judge
writes `judge/gate_b.md` prefilled (cluster, failures, root cause, spec section) with
those two cells blank, and Gate B waits (PENDING) until they are filled, as Gates A/C
wait for theirs. Only the wording rule (a failure asserting message text the spec does
not state) is decided mechanically, and may fail the gate on its own.

A cluster counts as a verifier failure when it is not reimplementation-neutral (the test
checks internal structure) or when Q-A is yes (the candidate does what the spec says, so
the test, or the spec, is wrong: a protocol issue, not a model failure).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gavelkit.task.formats._md import escape_cell, find_tables, norm_key

TABLE = "judge/gate_b.md"
COLUMNS = ["cluster", "failures", "root cause", "spec section", "reimplementation-neutral?",
           "Q-A"]
YES, NO = ("yes", "y", "true"), ("no", "n", "false")


@dataclass(frozen=True, slots=True)
class Audit:
    """What a filled table says; `pending` names what is still to judge."""

    pending: tuple[str, ...] = ()
    verifier_tests: int = 0
    verifier_clusters: tuple[str, ...] = ()
    judged: int = 0


def render(clusters: list[Any]) -> str:
    """The prefilled table: one row per candidate failure cluster, the judgement cells '?'."""
    lines = ["<!-- gavel task judge: Gate B failure-pattern audit. Fill the last two cells of "
             "every row: reimplementation-neutral? yes | no (no: the test checks internal "
             "shapes, a verifier failure); Q-A: yes | no (does the candidate's output match "
             "what the spec says? yes: a protocol issue, no: a model failure). Then re-run "
             "the judge. -->", "",
             "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for c in clusters:
        cells = [c.id, str(len(c.tests)), c.signature, "; ".join(c.sections[:3]) or "(unmapped)",
                 "?", "?"]
        lines.append("| " + " | ".join(escape_cell(x) for x in cells) + " |")
    return "\n".join(lines) + "\n"


def _answer(cell: str) -> bool | None:
    v = cell.strip().strip("`*").lower()
    if v in YES:
        return True
    if v in NO:
        return False
    return None


def _rows(text: str) -> dict[str, tuple[str, str, int]] | None:
    """root cause -> (neutral cell, Q-A cell, line), or None when no table has the columns."""
    want = [norm_key(c) for c in COLUMNS]
    table = next((t for t in find_tables(text) if [norm_key(h) for h in t.header] == want), None)
    if table is None:
        return None
    return {r.cells[2].strip(): (r.cells[4], r.cells[5], r.line)
            for r in table.rows if len(r.cells) == len(COLUMNS)}


def audit(text: str, clusters: list[Any]) -> Audit:
    rows = _rows(text)
    if rows is None:
        return Audit(pending=("no table with the columns " + " | ".join(COLUMNS),))
    pending: list[str] = []
    bad: list[str] = []
    tests = judged = 0
    for c in clusters:
        row = rows.get(c.signature.strip())
        if row is None:
            pending.append(f"{c.id} has no row (root cause {c.signature[:80]!r}); delete the "
                           "table to get a fresh prefilled one")
            continue
        neutral, qa = _answer(row[0]), _answer(row[1])
        for name, cell, got in (("reimplementation-neutral?", row[0], neutral), ("Q-A", row[1], qa)):
            if got is None:  # blank, '?' or an answer that is neither yes nor no
                pending.append(f"{c.id} (line {row[2]}): '{name}' is "
                               f"{cell.strip() or 'blank'}; answer yes or no")
        if neutral is None or qa is None:
            continue
        judged += 1
        if neutral is False or qa is True:
            bad.append(c.id)
            tests += len(c.tests)
    return Audit(tuple(pending), tests, tuple(bad), judged)
