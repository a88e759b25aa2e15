"""score_result.json / reference_score.json: the scorer's summary, by layer and per case.

Two shapes occur: the harness output (`summary{passed,failed,...,total}`,
`pass_rate_excluding_skips`, `by_layer`, `cases[]`) and the short form copied
into task.json (`{passed, total, pass_rate}`). Both read into one ScoreResult.
Skips leave the denominator, as the scorer does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.core.textio import read_text

OUTCOMES = ("passed", "failed", "error", "skipped", "timeout", "collection_error",
            "not_collected")


@dataclass(frozen=True, slots=True)
class Case:
    nodeid: str
    outcome: str
    layer: str = ""


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """One score file, candidate's or reference's alike: counts, cases and the rate, which is
    always recomputed from the counts (a stated rate is only compared with it)."""

    path: str
    counts: Mapping[str, int] = field(default_factory=dict)
    total: int = 0
    by_layer: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    cases: tuple[Case, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict)
    stated_rate: float | None = None

    @property
    def passed(self) -> int:
        return self.counts.get("passed", 0)

    @property
    def pass_rate(self) -> float | None:
        """passed / (total - skipped); None when nothing was scored (0/0 is not 100 %)."""
        denom = self.total - self.counts.get("skipped", 0)
        if denom <= 0:
            return None
        return self.passed / denom

    @property
    def summary(self) -> dict[str, Any]:
        """The summary as the file states it (the counts for a file without one)."""
        s = self.raw.get("summary")
        return dict(s) if isinstance(s, dict) else {**self.counts, "total": self.total}

    @property
    def gavel(self) -> Mapping[str, Any]:
        """gavel's own run record inside the file (isolation, environment, findings...)."""
        g = self.raw.get("gavel")
        return g if isinstance(g, dict) else {}

    def problem(self) -> str | None:
        """Why this score cannot be used as a measurement (None: it can). The one owner of
        "is this score usable": the judge, reports and the state guard all ask here."""
        s = self.raw.get("summary")
        if not isinstance(s, dict):
            return "no 'summary' object"
        for k in ("passed", "total"):
            if _int(s.get(k)) is None:
                return f"summary.{k} is missing or not a count"
        if s["total"] == 0:
            return "it scored nothing (total 0)"
        if s["passed"] > s["total"]:
            return "summary.passed exceeds summary.total"
        cases = self.raw.get("cases")
        if not isinstance(cases, list) or not cases:
            return "no 'cases' list: per-test outcomes are needed for layers and Gate B"
        if not isinstance(self.raw.get("pass_rate_excluding_skips"), int | float):
            return "no pass_rate_excluding_skips"
        return None


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def score_from_dict(data: Mapping[str, Any], path: str) -> tuple[ScoreResult, list[Finding]]:
    findings: list[Finding] = _shape(data, path)
    summary = data.get("summary") if isinstance(data.get("summary"), dict) else data
    counts: dict[str, int] = {}
    for k in OUTCOMES:
        n = _int(summary.get(k))
        if n is not None:
            counts[k] = n
    total = _int(summary.get("total"))
    if total is None:
        total = sum(counts.values()) if counts else 0
        if not counts:
            findings.append(Finding("TSK-R006", "error",
                                    "no summary counts (passed/total) found", path, 0, 0))
    if counts and sum(counts.values()) != total:
        findings.append(Finding("TSK-R006", "warning",
                                f"outcome counts add up to {sum(counts.values())}, total says "
                                f"{total}", path, 0, 0))
    stated = None
    for key in ("pass_rate_excluding_skips", "pass_rate"):
        v = data.get(key, summary.get(key))
        if isinstance(v, int | float) and not isinstance(v, bool):
            stated = float(v)
            break
    by_layer: dict[str, dict[str, int]] = {}
    bl = data.get("by_layer")
    if isinstance(bl, dict):
        for layer, c in bl.items():
            if isinstance(c, dict):
                by_layer[str(layer)] = {k: v for k, v in c.items() if _int(v) is not None}
    raw_cases = data.get("cases")
    cases = tuple(Case(c["nodeid"], str(c.get("outcome", "")), str(c.get("layer") or ""))
                  for c in (raw_cases if isinstance(raw_cases, list) else [])
                  if isinstance(c, dict) and isinstance(c.get("nodeid"), str))
    sr = ScoreResult(path, counts, total, by_layer, cases, data, stated)
    rate = sr.pass_rate
    if stated is not None and 1.0 < stated <= 100.0 and rate is not None \
            and abs(rate - stated / 100.0) <= 5e-5:
        stated /= 100.0  # stated as a percentage (100.0), counts give a fraction (1.0)
        sr = ScoreResult(path, counts, total, by_layer, cases, data, stated)
    if stated is not None and rate is not None and abs(rate - stated) > 1e-6:
        findings.append(Finding("TSK-R006", "warning",
                                f"stated pass rate {stated:.4f} differs from counts "
                                f"({rate:.4f})", path, 0, 0))
    return sr, findings


def _shape(data: Mapping[str, Any], path: str) -> list[Finding]:
    """Keys present with the wrong type: the score cannot be trusted (fail closed)."""
    out = []
    for key, kinds, what in (("summary", dict, "an object"), ("cases", list, "an array"),
                             ("by_layer", dict, "an object"),
                             ("pass_rate_excluding_skips", (int, float), "a number"),
                             ("pass_rate", (int, float), "a number")):
        v = data.get(key)
        if key in data and v is not None and (not isinstance(v, kinds) or isinstance(v, bool)):
            out.append(Finding("TSK-R006", "error", f"'{key}' should be {what}, not "
                               f"{type(v).__name__}", path, 0, 0, unusable=True))
    return out


def read_score(path: str | Path) -> tuple[ScoreResult | None, list[Finding]]:
    from gavelkit.core.safeio import parse_json

    try:
        text = read_text(path)
        data = parse_json(text, str(path))
    except InputError as exc:
        return None, [exc.to_finding()]
    if not isinstance(data, dict):
        return None, [Finding("TSK-R006", "error", "score file is not a JSON object", str(path),
                              1, 1, unusable=True)]
    return score_from_dict(data, str(path))

