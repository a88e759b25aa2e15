"""Blind seat briefs (seed §6): built from the rubric data, checked for leaks.

A seat sees only its brief, the rendered PDF and package/manifest.md. The brief names
its role, criteria and weights, the band anchors and the total-to-tier band, asks for
cited evidence and one scorecard block — and never the target, the pass thresholds,
the pass rule, other seats' scores, or paths to phase logs and other seats' cards. A
re-dispatched outlier gets a one-seat brief carrying only the evidence question.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from gavelkit.award.runs.layout import layout
from gavelkit.award.tables import Tables, load_tables
from gavelkit.core.findings import Finding
from gavelkit.core.textio import atomic_write, read_text


@functools.cache
def leak_patterns() -> list[dict[str, Any]]:
    import yaml

    from gavelkit.data import path

    pats = yaml.safe_load(path("award", "leaks.yaml").read_text(encoding="utf-8"))["patterns"]
    for p in pats:
        p["rx"] = re.compile(p["regex"], re.IGNORECASE)
    return pats


def _band_rows(tables: Tables) -> list[str]:
    tiers = sorted(tables.tiers.values(), key=lambda t: -t.rank)
    rows = []
    upper = 100.0
    for t in tiers:
        lo = t.band_min
        span = f"{lo:g}–{upper:g}" if upper == 100.0 else f"{lo:g} to under {upper:g}"
        if lo == 0:
            span = f"under {upper:g}"
        rows.append(f"| {span} | {t.name} |")
        upper = lo
    return rows


def _reading_hint() -> str:
    """Suggest only PDF tools this machine has (a seat cannot use what is not installed)."""
    import shutil

    tools = [t for t in ("pdftotext", "pdfinfo") if shutil.which(t)]
    if tools:
        return (f"Use read-only commands only (for example {', '.join(f'`{t}`' for t in tools)}); "
                "if a check you need would write a file, name it in `ranked_gaps` instead of "
                "running it.")
    return ("Read the PDF with whatever read-only PDF text extraction you have; if a check you "
            "need would write a file, name it in `ranked_gaps` instead of running it.")


def _question_section(round_: int, question: str, criterion: str | None) -> list[str]:
    what = f"your `{criterion}` score" if criterion else "your score"
    return [
        "## The evidence question",
        "",
        f"This is a re-score (round {round_}) of {what}. Before scoring, answer this question "
        "from the paper and its artifacts, and cite the page, section, figure, table or file "
        "that answers it:",
        "",
        f"> {question.strip()}",
        "",
        "Then score every criterion again from the evidence alone.",
        "",
    ]


def render_brief(seat: str, run: Path, contest: str, round_: int = 1,
                 tables: Tables | None = None, question: str | None = None,
                 criterion: str | None = None) -> str:
    """One seat's blind brief; `question` makes it the one-seat brief of a re-dispatch."""
    tables = tables or load_tables()
    s = tables.seats[seat]
    pdf = f"work/{run.name}/{layout()['paper']}"
    manifest = f"work/{run.name}/{layout()['manifest']}"
    crit_rows = [f"| {name} | {w:g} |" for name, w in s.criteria.items()]
    anchors = [f"| {band} | {meaning} |" for band, meaning in tables.anchors]
    crit_yaml = "\n".join(f"    - {{name: {n}, weight: {w:g}, score: <0-100>}}"
                          for n, w in s.criteria.items())
    return "\n".join([
        f"# Judge seat {seat}: {s.role}",
        "",
        f"You are one of three independent judges of a {contest} paper. Work alone: you "
        "have no contact with the other judges and no other context.",
        "",
        "## What you may read",
        "",
        f"- the rendered paper: `{pdf}`",
        f"- its artifact inventory: `{manifest}`",
        "",
        "Nothing else. " + _reading_hint(),
        "",
        *(_question_section(round_, question, criterion) if question else []),
        "## What you score",
        "",
        "| criterion | weight |",
        "|---|---|",
        *crit_rows,
        "",
        "Score each criterion 0-100 against these anchors:",
        "",
        "| band | meaning |",
        "|---|---|",
        *anchors,
        "",
        "Every score cites artifact evidence from the paper (page, section, figure or table). "
        "Calibrate to how rare top awards are: competent but unremarkable work is not an "
        "award paper.",
        "",
        "## From scores to a tier",
        "",
        "Compute `weighted_total` = Σ weight × score, then read the implied tier from it:",
        "",
        "| weighted total | implied tier |",
        "|---|---|",
        *_band_rows(tables),
        "",
        "You may place the tier below its band only with a `tier_justification`; never above.",
        "",
        "## What you return",
        "",
        "Exactly one block and nothing else:",
        "",
        "```yaml",
        "scorecard:",
        f"  contest: {contest}",
        f"  seat: {seat}",
        f"  round: {round_}",
        "  criteria:",
        crit_yaml,
        "  weighted_total: <Σ weight × score>",
        "  implied_tier: <outstanding | finalist | meritorious | below>",
        "  fix_one_thing: \"<the single most award-limiting weakness>\"",
        "  ranked_gaps: []",
        "  do_not_regress: []",
        "```",
        "",
    ])


class LeakingBrief(Exception):
    """A brief failed the leak check: none of the round's briefs was written."""

    def __init__(self, findings: list[Finding]) -> None:
        super().__init__(f"{len(findings)} leak(s)")
        self.findings = findings


def write_briefs(run: Path, contest: str, round_: int = 1, out: Path | None = None,
                 tables: Tables | None = None, seats: list[str] | None = None,
                 question: str | None = None, criterion: str | None = None) -> list[Path]:
    """Write the briefs to RUN/briefs/ (not phase-logs/, which seats must not read).

    `seats`: only these seats (a re-dispatch writes the outlier's brief alone). Every
    brief is checked for leaks before anything is written: a leaking brief never lands
    where a lead would dispatch it (raises LeakingBrief with the findings).
    """
    tables = tables or load_tables()
    dest = out or run / layout().get("briefs", "briefs")
    texts = {dest / f"seat-{seat}-round-{round_}.md":
             render_brief(seat, run, contest, round_, tables, question, criterion)
             for seat in seats or sorted(tables.seats)}
    leaks = [f for p, text in texts.items() for f in check_text(text, str(p))]
    if leaks:
        raise LeakingBrief(leaks)
    for p, text in texts.items():
        atomic_write(p, text)
    return list(texts)


def check_text(text: str, path: str) -> list[Finding]:
    """Leaks in a brief's text: thresholds/floors, target tier, pass rule, forbidden paths."""
    out = []
    for i, line in enumerate(text.split("\n"), 1):
        for pat in leak_patterns():
            m = pat["rx"].search(line)
            if m:
                out.append(Finding(pat["code"], "error", f"the brief reveals {pat['what']}: "
                                   f"{m.group(0)!r}", path, i, m.start() + 1))
    return out


def check_brief(path: str | Path) -> list[Finding]:
    """Leaks in a brief file (see check_text)."""
    return check_text(read_text(path), str(path))
