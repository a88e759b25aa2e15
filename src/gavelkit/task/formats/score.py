"""score_result.json / reference_score.json: the scorer's summary, by layer and per case.

Two shapes occur: the harness output (`summary{passed,failed,...,total}`,
`pass_rate_excluding_skips`, `by_layer`, `cases[]`) and the short form copied
into task.json (`{passed, total, pass_rate}`). Both read into one ScoreResult.
Skips leave the denominator, as the scorer does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.core.textio import atomic_write, read_text

OUTCOMES = ("passed", "failed", "error", "skipped", "timeout", "collection_error",
            "not_collected")


@dataclass(slots=True)
class Case:
    nodeid: str
    outcome: str
    layer: str = ""


@dataclass(slots=True)
class ScoreResult:
    path: str
    counts: dict[str, int] = field(default_factory=dict)
    total: int = 0
    by_layer: dict[str, dict[str, int]] = field(default_factory=dict)
    cases: list[Case] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)
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


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def score_from_dict(data: dict[str, Any], path: str) -> tuple[ScoreResult, list[Finding]]:
    sr = ScoreResult(path, raw=data)
    findings: list[Finding] = []
    summary = data.get("summary") if isinstance(data.get("summary"), dict) else data
    for k in OUTCOMES:
        n = _int(summary.get(k))
        if n is not None:
            sr.counts[k] = n
    total = _int(summary.get("total"))
    if total is None:
        total = sum(sr.counts.values()) if sr.counts else 0
        if not sr.counts:
            findings.append(Finding("TSK-R006", "error",
                                    "no summary counts (passed/total) found", path, 0, 0))
    sr.total = total
    if sr.counts and sum(sr.counts.values()) != total:
        findings.append(Finding("TSK-R006", "warning",
                                f"outcome counts add up to {sum(sr.counts.values())}, total says "
                                f"{total}", path, 0, 0))
    for key in ("pass_rate_excluding_skips", "pass_rate"):
        v = data.get(key, summary.get(key))
        if isinstance(v, int | float) and not isinstance(v, bool):
            sr.stated_rate = float(v)
            break
    bl = data.get("by_layer")
    if isinstance(bl, dict):
        for layer, c in bl.items():
            if isinstance(c, dict):
                sr.by_layer[str(layer)] = {k: v for k, v in c.items() if _int(v) is not None}
    cases = data.get("cases")
    if isinstance(cases, list):
        for c in cases:
            if isinstance(c, dict) and isinstance(c.get("nodeid"), str):
                sr.cases.append(Case(c["nodeid"], str(c.get("outcome", "")),
                                     str(c.get("layer") or "")))
    rate = sr.pass_rate
    if sr.stated_rate is not None and 1.0 < sr.stated_rate <= 100.0 and rate is not None \
            and abs(rate - sr.stated_rate / 100.0) <= 5e-5:
        sr.stated_rate /= 100.0  # stated as a percentage (100.0), counts give a fraction (1.0)
    if sr.stated_rate is not None and rate is not None and abs(rate - sr.stated_rate) > 1e-6:
        findings.append(Finding("TSK-R006", "warning",
                                f"stated pass rate {sr.stated_rate:.4f} differs from counts "
                                f"({rate:.4f})", path, 0, 0))
    return sr, findings


def read_score(path: str | Path) -> tuple[ScoreResult | None, list[Finding]]:
    try:
        text = read_text(path)
    except InputError as exc:
        return None, [exc.to_finding()]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [Finding("TSK-R006", "error", f"not valid JSON: {exc.msg}", str(path),
                              exc.lineno, exc.colno, unusable=True)]
    if not isinstance(data, dict):
        return None, [Finding("TSK-R006", "error", "score file is not a JSON object", str(path),
                              1, 1, unusable=True)]
    return score_from_dict(data, str(path))


def write_score(path: str | Path, data: dict[str, Any]) -> None:
    """Atomic write of a score file (what the judge's runner produces)."""
    atomic_write(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
