"""Score files, candidate's and reference's alike: one reader, one type, one owner of "usable".

Formats read (score_formats.py normalises the foreign ones into gavel's shape):

- gavel's own `score_result.json` (`summary{passed,failed,...,total}`,
  `pass_rate_excluding_skips`, `by_layer`, `cases[]`, the `gavel` run record): read
  strictly, as the runner writes it;
- the Bmk-dev harness (gavel's shape without the `gavel` record; zero counts omitted),
  pytest-json-report (`tests[]`), JUnit XML, and counts-only files (a summary, a
  `candidate`/`reference` block, top-level `{passed, total, pass_rate}` as copied into
  task.json): read as far as they go, saying what was derived and what could not be.

The pass rate is always recomputed from the counts (passed / non-skipped; 0/0 is no
rate); a stated rate is only compared with it. `ScoreResult.problem()` says whether the
file is a complete measurement; the judge, reports and the state guard all ask there.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.core.textio import read_text
from gavelkit.task.formats.score_formats import Format, Normalised, normalise

OUTCOMES = ("passed", "failed", "error", "skipped", "timeout", "collection_error",
            "not_collected")
# result files a run folder may hold besides score_result.json, by name (lower case)
SCORE_NAME_HINTS = ("score", "result", "report", "junit")


@dataclass(frozen=True, slots=True)
class ScoreCase:
    nodeid: str
    outcome: str
    layer: str = ""


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """One score file: counts, cases and the rate, always recomputed from the counts."""

    path: str
    counts: Mapping[str, int] = field(default_factory=dict)
    total: int = 0
    by_layer: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    cases: tuple[ScoreCase, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict)  # gavel's shape (normalised)
    stated_rate: float | None = None
    format: Format = "gavel"
    notes: tuple[str, ...] = ()  # what the reader derived, and from what
    gaps: tuple[str, ...] = ()  # what it could not derive

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

    @property
    def rate_mismatch(self) -> str | None:
        rate = self.pass_rate
        if self.stated_rate is None or rate is None:
            return None
        if abs(rate - self.stated_rate) <= _rounding(self.stated_rate):
            return None
        return (f"its stated pass rate {self.stated_rate!r} disagrees with its own counts "
                f"({self.passed}/{self.total - self.counts.get('skipped', 0)} = {rate:.6g})")

    def problem(self) -> str | None:
        """Why this score cannot be used as a measurement (None: it can). The one owner of
        "is this score usable"."""
        why = self._gavel_problem() if self.format == "gavel" else (
            self.gaps[0] if self.gaps else None)
        if why:
            return why
        if self.total == 0:
            return "it scored nothing (total 0)"
        if self.passed > self.total:
            return "summary.passed exceeds summary.total"
        return self.rate_mismatch

    def _gavel_problem(self) -> str | None:
        s = self.raw.get("summary")
        if not isinstance(s, dict):
            return "no 'summary' object"
        for k in ("passed", "total"):
            if _int(s.get(k)) is None:
                return f"summary.{k} is missing or not a count"
        cases = self.raw.get("cases")
        if not isinstance(cases, list) or not cases:
            return "no 'cases' list: per-test outcomes are needed for layers and Gate B"
        if not isinstance(self.raw.get("pass_rate_excluding_skips"), int | float):
            return "no pass_rate_excluding_skips"
        return None


def _rounding(stated: float) -> float:
    """How far a stated rate may be from the counts' and still be their rounding: half a
    unit of its last written decimal (0.6667 for 2/3), at least 1e-6. The rate used is
    always the counts', so the tolerance only decides whether to call the file wrong."""
    text = repr(float(stated))
    if "e" in text or "." not in text:
        return 1e-6
    return max(1e-6, 0.5 * 10.0 ** -len(text.split(".")[1]) + 1e-12)


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def score_from_dict(data: Mapping[str, Any], path: str,
                    role: str = "candidate") -> tuple[ScoreResult, list[Finding]]:
    """Any supported JSON score (see the module doc); `role` picks the block of a file that
    records both runs (`candidate` / `reference`)."""
    return _result(normalise(data, role), path, _shape(data, path))


def _counts(summary: Mapping[str, Any]) -> tuple[dict[str, int], int | None]:
    counts = {k: n for k in OUTCOMES if (n := _int(summary.get(k))) is not None}
    return counts, _int(summary.get("total"))


def _result(norm: Normalised, path: str, findings: list[Finding]) -> tuple[ScoreResult,
                                                                          list[Finding]]:
    data = norm.data
    summary = data.get("summary") if isinstance(data.get("summary"), dict) else data
    counts, total = _counts(summary)
    findings += _count_findings(counts, total, path)
    total = sum(counts.values()) if total is None else total
    stated = _stated(data, summary)
    sr = ScoreResult(path, counts, total, _layers(data), _cases(data), data, stated,
                     norm.format, norm.notes, norm.gaps)
    rate = sr.pass_rate
    if stated is not None and 1.0 < stated <= 100.0 and rate is not None \
            and abs(rate - stated / 100.0) <= 5e-5:
        # stated as a percentage (100.0), counts give a fraction (1.0)
        sr = replace(sr, stated_rate=stated / 100.0)
    if sr.rate_mismatch:
        findings.append(Finding("TSK-R006", "warning", sr.rate_mismatch, path, 0, 0))
    return sr, findings


def _count_findings(counts: dict[str, int], total: int | None, path: str) -> list[Finding]:
    if total is None and not counts:
        return [Finding("TSK-R006", "error", "no summary counts (passed/total) found", path,
                        0, 0)]
    if total is not None and counts and sum(counts.values()) != total:
        return [Finding("TSK-R006", "warning", f"outcome counts add up to "
                        f"{sum(counts.values())}, total says {total}", path, 0, 0)]
    return []


def _stated(data: Mapping[str, Any], summary: Mapping[str, Any]) -> float | None:
    for key in ("pass_rate_excluding_skips", "pass_rate"):
        v = data.get(key, summary.get(key))
        if isinstance(v, int | float) and not isinstance(v, bool):
            return float(v)
    return None


def _layers(data: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    bl = data.get("by_layer")
    return {str(layer): {k: v for k, v in c.items() if _int(v) is not None}
            for layer, c in (bl.items() if isinstance(bl, dict) else ()) if isinstance(c, dict)}


def _cases(data: Mapping[str, Any]) -> tuple[ScoreCase, ...]:
    raw = data.get("cases")
    return tuple(ScoreCase(c["nodeid"], str(c.get("outcome", "")), str(c.get("layer") or ""))
                 for c in (raw if isinstance(raw, list) else [])
                 if isinstance(c, dict) and isinstance(c.get("nodeid"), str))


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


def load_score(path: str | Path, role: str = "candidate") -> ScoreResult:
    """A score file of any supported format, or InputError (exit 2) when it cannot be read
    as one at all (not JSON/XML, not an object)."""
    from gavelkit.core.safeio import parse_json
    from gavelkit.task.formats.score_formats import from_junit

    text = read_text(path)
    if text.lstrip().startswith("<"):
        return _result(from_junit(text, str(path)), str(path), [])[0]
    data = parse_json(text, str(path))
    if not isinstance(data, dict):
        raise InputError(str(path), "score file is not a JSON object", 1, 1, code="TSK-R006")
    return score_from_dict(data, str(path), role)[0]


def read_score(path: str | Path, role: str = "candidate") -> tuple[ScoreResult | None,
                                                                   list[Finding]]:
    """`load_score` with its findings; an unreadable file is (None, [its finding])."""
    from gavelkit.core.safeio import parse_json
    from gavelkit.task.formats.score_formats import from_junit

    try:
        text = read_text(path)
        if text.lstrip().startswith("<"):
            return _result(from_junit(text, str(path)), str(path), [])
        data = parse_json(text, str(path))
    except InputError as exc:
        return None, [exc.to_finding()]
    if not isinstance(data, dict):
        return None, [Finding("TSK-R006", "error", "score file is not a JSON object", str(path),
                              1, 1, unusable=True)]
    return score_from_dict(data, str(path), role)


def find_score_file(run: Path, role: str = "candidate") -> Path:
    """The score file of a run folder: score_result.json, else the one JSON or XML file
    whose name says it is a score or result (another scorer's `candidate_score_report.json`,
    `junit.xml`, ...). A file given directly is itself; none or several: the usual name, so
    the caller reports it missing, or InputError naming the candidates."""
    if not run.is_dir():
        return run
    usual = run / "score_result.json"
    if os.path.lexists(usual):
        return usual
    found = [p for p in sorted(run.iterdir()) if _looks_like_a_score(p)]
    return _pick(found, role, run) if found else usual


def _pick(found: list[Path], role: str, run: Path) -> Path:
    """One result file, or the one whose name says its role; several: never a guess."""
    mine = [p for p in found if role in p.name.lower()]
    if len(found) == 1 or len(mine) == 1:
        return found[0] if len(found) == 1 else mine[0]
    raise InputError(str(run), "no score_result.json, and several result files: "
                     + ", ".join(p.name for p in found) + "; pass the one to judge as "
                     "--run FILE", code="TSK-R006")


def _looks_like_a_score(p: Path) -> bool:
    name = p.name.lower()
    return (p.suffix.lower() in (".json", ".xml") and name != "run_meta.json"
            and any(h in name for h in SCORE_NAME_HINTS) and p.is_file())
