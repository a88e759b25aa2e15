"""Helpers for the report tests: an HTML outline parser and a fully judged fixture task."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

from task_helpers import copy_good


class Outline(HTMLParser):
    """Section ids, headings, tables, charts, scripts and every URL-bearing attribute."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: list[str] = []
        self.svgs = 0
        self.imgs: list[str] = []
        self.urls: list[str] = []
        self.scripts: list[dict[str, str | None]] = []
        self.links = 0
        self.rows: dict[str, int] = {}
        self.text: list[str] = []
        self.errors: list[str] = []
        self._stack: list[str] = []
        self._section = ""
        self.classes: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "section":
            self._section = a.get("id") or ""
            self.sections.append(self._section)
        if tag == "svg":
            self.svgs += 1
        if tag == "img":
            self.imgs.append(a.get("src") or "")
        if tag == "script":
            self.scripts.append(a)
        if tag == "link":
            self.links += 1
        if tag == "tr":
            self.rows[self._section] = self.rows.get(self._section, 0) + 1
        for k in ("src", "href", "xlink:href", "action", "data"):
            if a.get(k):
                self.urls.append(a[k] or "")
        if a.get("class"):
            self.classes += (a["class"] or "").split()

    def handle_data(self, data: str) -> None:
        if data.strip():
            self.text.append(data.strip())

    @property
    def body(self) -> str:
        return " ".join(self.text)


def outline(html: str) -> Outline:
    o = Outline()
    o.feed(html)
    o.close()
    return o


NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


def assert_self_contained(o: Outline, html: str = "") -> None:
    external = [u for u in o.urls if not (u.startswith(("#", "data:")) or u.endswith(".html"))]
    assert external == [], f"external URLs in a self-contained report: {external}"
    import re

    stray = set(re.findall(r"https?://[^\s\"'<>]+", html)) - NAMESPACES
    assert not stray, f"URLs in the report text: {sorted(stray)[:5]}"
    assert o.links == 0
    assert all(not s.get("src") for s in o.scripts), "scripts must be inline"


STATE = """# Pipeline State — task_good

## Current

```
state: QUALIFIED
stage: S5
spec_iter: 1
filter_iter: 0
eval_iter: 1
updated: 2026-07-20
```

todo:
- [ ] graduate

## History

| # | date | from | to | note |
|---|------|------|----|------|
| 1 | 2026-07-01 | S1_SCREENING | S1_SELECTED | picked |
| 2 | 2026-07-10 | S4_DONE | S5_JUDGE | run scored |
| 3 | 2026-07-20 | S5_JUDGE | QUALIFIED | judge verdict |
"""

DIAGNOSIS = """# Diagnosis Report - task_good

Verdict: QUALIFIED

## Real Failure Clusters

1. render_digits pads with spaces (atomic-behavior).

## Cascade Analysis

One root cause, no cascade.
"""


def _case(nodeid: str, layer: str, outcome: str, message: str | None = None) -> dict:
    call: dict = {"outcome": outcome}
    if message:
        call["crash"] = {"path": "x.py", "lineno": 3, "message": message}
    return {"nodeid": nodeid, "layer": layer, "outcome": outcome, "call": call}


def judged_task(tmp: Path, record_gap: bool = True) -> Path:
    """task_good plus a candidate score with crashes, a judge record, history, diagnosis."""
    t = copy_good(tmp)
    a = "oracle/test_atomic.py::"
    i = "oracle/test_integration.py::"
    cases = [
        _case(a + "test_parse_counts_strokes[a]", "atomic", "passed"),
        _case(a + "test_parse_counts_strokes[b]", "atomic", "passed"),
        _case(a + "test_parse_rejects_letters", "atomic", "passed"),
        _case(a + "test_render_digits", "atomic", "failed",
              "AttributeError: 'Tally' object at 0x7f00 has no attribute 'render'"),
        _case(a + "test_tally_total_is_fixed", "atomic", "passed"),
        _case(i + "test_round_trip", "integration", "failed",
              "AttributeError: 'Tally' object at 0x7f99 has no attribute 'render'"),
        _case(i + "test_workflow_with_fixture", "system_e2e", "error"),
    ]
    score = {"summary": {"passed": 4, "failed": 2, "error": 1, "total": 7},
             "pass_rate_excluding_skips": 4 / 7,
             "by_layer": {"atomic": {"passed": 4, "failed": 1, "total": 5},
                          "integration": {"failed": 1, "total": 1},
                          "system_e2e": {"error": 1, "total": 1}},
             "cases": cases}
    (t / "judge").mkdir()
    (t / "judge" / "score_result.json").write_text(json.dumps(score), "utf-8")
    (t / "reference_score.json").write_text(json.dumps(
        {"summary": {"passed": 7, "total": 7}}), "utf-8")
    tj = json.loads((t / "task.json").read_text("utf-8-sig"))
    tj["status"] = "QUALIFIED"
    tj["labels"] = ["discriminating", "render-gap"]
    tj["weaknesses"] = [{"dimension": "api-surface", "description": "Tally.render missing",
                         "affected_tests": 2, "layer": "atomic"}]
    tj["judge"] = {"verdict": "QUALIFIED", "date": "2026-07-20",
                   "failure_clusters": [{"cluster": "render", "root_cause":
                                         "Tally.render is not implemented",
                                         "dimension": "api-surface", "tests": [
                                             a + "test_render_digits", i + "test_round_trip"]}],
                   "fairness_gates": {"A_spec_mapping": "passed", "D_coverage_gap": "FULL"}}
    if record_gap:
        tj["integration_gap"] = {"atomic_rate": 0.8, "integration_e2e_rate": 0.0,
                                 "rate_gap": 0.8}
        tj["true_gap_events"] = [{"failed_test": i + "test_round_trip", "layer": "integration",
                                  "depended_atomic_tests": [a + "test_parse_rejects_letters"],
                                  "all_depended_pass": True,
                                  "root_cause_dimension": "cross-view-consistency"}]
    (t / "task.json").write_text(json.dumps(tj, indent=2), "utf-8")
    (t / "PIPELINE_STATE.md").write_text(STATE, "utf-8")
    (t / "judge" / "diagnosis_report.md").write_text(DIAGNOSIS, "utf-8")
    return t
