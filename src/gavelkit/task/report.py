"""HTML reports of benchmark tasks, one task or a whole folder of them.

Built only from the files on disk, through `load_task` and `run_gates`: the candidate
and reference scores (harness shape: summary, by_layer, cases with crash info; or the
short form in task.json), task.json (`integration_gap`, `true_gap_events`,
`weaknesses`, `labels`, the `judge` record), PIPELINE_STATE.md History and
judge/diagnosis_report.md. The judge writes these files too; whatever is missing is
shown as missing, never guessed. Numbers recorded by the judge are shown as recorded,
and beside them what the score file itself says, so a stale record is visible.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core import htmlreport as hr
from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.task.formats.score import ScoreResult, read_score, score_from_dict

LAYERS = ("atomic", "integration", "system_e2e")
FAILED = ("failed", "error", "timeout", "collection_error", "not_collected")
VERDICTS = ("QUALIFIED", "BROKEN", "CHEAT_DETECTED")
EXTRA_CANDIDATE = ("evidence/candidate_score.json", "judge/candidate_score.json")
TASK_MARKERS = ("spec.md", "task.json", "PIPELINE_STATE.md", "spec_test_map.md",
                "MANIFEST.json", "filter/spec_test_map.md")
MATRIX_MAX_TESTS = 120
LAYER_COLORS = {"atomic": "#1565c0", "integration": "#6a1b9a", "system_e2e": "#00838f"}
LAYER_NAMES = {"atomic": "blue", "integration": "purple", "system_e2e": "teal"}


@dataclass
class Report:
    data: dict[str, Any]
    html: str = ""
    findings: list[Finding] = field(default_factory=list)


# ----------------------------------------------------------------------------- scores

def _rate(counts: dict[str, int]) -> float | None:
    total = counts.get("total")
    if total is None:
        total = sum(v for k, v in counts.items() if k != "total")
    denom = total - counts.get("skipped", 0)
    return counts.get("passed", 0) / denom if denom > 0 else None


def layer_counts(sr: ScoreResult | None, taxonomy: dict[str, str]) -> dict[str, dict[str, int]]:
    """Outcome counts per layer: the file's by_layer, else counted from its cases."""
    if sr is None:
        return {}
    if sr.by_layer:
        return {k: dict(v) for k, v in sr.by_layer.items()}
    out: dict[str, dict[str, int]] = {}
    for c in sr.cases:
        layer = c.layer or taxonomy.get(c.nodeid) or taxonomy.get(c.nodeid.split("[")[0]) or "?"
        row = out.setdefault(layer, {"total": 0})
        row[c.outcome] = row.get(c.outcome, 0) + 1
        row["total"] += 1
    return out


def gap_metrics(layers: dict[str, dict[str, int]]) -> dict[str, Any]:
    """Seed rate-difference: atomic rate minus the integration+system_e2e rate."""
    atomic = layers.get("atomic", {})
    merged: dict[str, int] = {}
    for name in ("integration", "system_e2e"):
        for k, v in layers.get(name, {}).items():
            merged[k] = merged.get(k, 0) + v
    a, ie = _rate(atomic) if atomic else None, _rate(merged) if merged else None
    return {"atomic_rate": a, "integration_e2e_rate": ie,
            "rate_gap": (a - ie) if a is not None and ie is not None else None}


def _candidate(task: Any) -> tuple[ScoreResult | None, str]:
    if task.score_result is not None:
        return task.score_result, task.rel(Path(task.score_result.path))
    for rel in EXTRA_CANDIDATE:
        p = task.dir / rel
        if p.is_file():
            sr, _ = read_score(p)
            if sr is not None:
                return sr, rel
    tj = task.task_json
    cs = tj.data.get("candidate_score") if tj else None
    if isinstance(cs, dict) and ("passed" in cs or "summary" in cs):
        sr, _ = score_from_dict(cs, "task.json candidate_score")
        return sr, "task.json candidate_score"
    return None, ""


def _reference(task: Any) -> tuple[float | None, str]:
    if task.reference_score is not None and task.reference_score.pass_rate is not None:
        return task.reference_score.pass_rate, task.rel(Path(task.reference_score.path))
    tj = task.task_json.data if task.task_json else {}
    v = tj.get("reference_pass_rate")
    if isinstance(v, int | float) and not isinstance(v, bool):
        return float(v), "task.json reference_pass_rate"
    for key in ("reference_score", "reference"):
        d = tj.get(key) or (task.manifest or {}).get(key)
        if isinstance(d, dict):
            if isinstance(d.get("pass_rate"), int | float):
                return float(d["pass_rate"]), f"{key}.pass_rate"
            if isinstance(d.get("passed"), int) and isinstance(d.get("total"), int) and d["total"]:
                return d["passed"] / d["total"], f"{key} passed/total"
    return None, ""


# ----------------------------------------------------------------------------- clusters

_ADDR = re.compile(r"0x[0-9a-fA-F]+")
_NUM = re.compile(r"\b\d+(\.\d+)?\b")


def signature(message: str) -> str:
    """Crash message -> cluster key: first line, addresses/numbers/quoted values folded."""
    first = next((ln.strip() for ln in message.splitlines() if ln.strip()), "")
    first = _ADDR.sub("0x…", first)
    if first.startswith(("AssertionError", "assert ")):
        # assertion details differ per test; the exception kind and the call are the cause
        first = _NUM.sub("N", first)
    return first[:160]


def crash_clusters(sr: ScoreResult | None) -> list[dict[str, Any]]:
    """Failing cases grouped by crash signature, biggest first (a cascade shows as one
    large cluster: a missing import fails dozens of tests with one message)."""
    if sr is None:
        return []
    groups: dict[str, dict[str, Any]] = {}
    for c in sr.raw.get("cases") or []:
        if not isinstance(c, dict) or c.get("outcome") not in FAILED:
            continue
        call = c.get("call") if isinstance(c.get("call"), dict) else {}
        crash = call.get("crash") if isinstance(call.get("crash"), dict) else {}
        msg = str(crash.get("message") or "")
        key = signature(msg) if msg else f"{c.get('outcome')} with no crash message " \
            "(setup, collection or timeout)"
        g = groups.setdefault(key, {"root_cause": key, "tests": [], "layers": {},
                                    "outcomes": {}})
        g["tests"].append(str(c.get("nodeid")))
        layer = str(c.get("layer") or "?")
        g["layers"][layer] = g["layers"].get(layer, 0) + 1
        oc = str(c.get("outcome"))
        g["outcomes"][oc] = g["outcomes"].get(oc, 0) + 1
    out = sorted(groups.values(), key=lambda g: (-len(g["tests"]), g["root_cause"]))
    for g in out:
        g["count"] = len(g["tests"])
    return out


def _judge_clusters(tj: dict[str, Any]) -> list[dict[str, Any]]:
    judge = tj.get("judge") if isinstance(tj.get("judge"), dict) else {}
    raw = judge.get("failure_clusters") or tj.get("failure_clusters") or []
    if isinstance(raw, dict):
        raw = [{"cluster": k, **(v if isinstance(v, dict) else {"detail": v})}
               for k, v in raw.items()]
    out = []
    for c in raw if isinstance(raw, list) else []:
        if not isinstance(c, dict):
            continue
        tests = c.get("tests") or c.get("failed_tests") or c.get("affected_tests")
        size = c.get("size", c.get("count"))
        if not isinstance(size, int) or isinstance(size, bool):
            size = len(tests) if isinstance(tests, list) else tests if isinstance(tests, int) \
                else None
        layers = c.get("layers", c.get("layer"))
        if isinstance(layers, dict):
            layers = ", ".join(f"{k} {v}" for k, v in layers.items())
        elif isinstance(layers, list):
            layers = ", ".join(map(str, layers))
        out.append({
            "name": str(c.get("cluster") or c.get("name") or c.get("id") or ""),
            "root_cause": str(c.get("root_cause") or c.get("cause") or c.get("description")
                              or ""),
            "dimension": str(c.get("dimension") or c.get("root_cause_dimension") or ""),
            "count": size,
            "layer": str(layers or ""),
            "kind": str(c.get("class") or c.get("kind") or c.get("type")
                        or c.get("classification") or ""),
        })
    return out


# ----------------------------------------------------------------------------- coverage

def coverage(task: Any, gate_d: Any) -> dict[str, Any]:
    """Per audited section: covered tests by layer and (small oracles) by test id."""
    if task.spec is None or task.map is None or gate_d is None:
        return {"sections": [], "tests": []}
    from gavelkit.task.gates.gate_d import match_sections

    spec = task.spec
    rows = {r["line"]: r for r in gate_d.table}
    index = {s.line: i for i, s in enumerate(spec.sections) if s.line in rows}
    by_section: dict[int, dict[str, list[str]]] = {ln: {} for ln in index}
    tests: list[tuple[str, str]] = []
    for row in task.map.covered_rows():
        hits: set[int] = set()
        for cell in row.sections:
            found = match_sections(spec, cell)
            hits |= {s.line for s in found if s.line in by_section}
        if hits:
            tests.append((row.nodeid, row.layer or "?"))
        for ln in hits:
            by_section[ln].setdefault(row.layer or "?", []).append(row.nodeid)
    sections = []
    for ln, r in sorted(rows.items(), key=lambda kv: index.get(kv[0], 0)):
        per = by_section.get(ln, {})
        sections.append({"section": r["section"], "line": ln, "core": r["core"],
                         "status": r["status"], "covered": r["covered"],
                         "with_subsections": r["covered_with_subsections"],
                         "minimum": r["minimum"],
                         "by_layer": {k: len(v) for k, v in per.items()},
                         "tests": sorted({t for v in per.values() for t in v})})
    order = {name: i for i, name in enumerate(LAYERS)}
    tests.sort(key=lambda t: (order.get(t[1], 9), t[0]))
    return {"sections": sections, "tests": [{"nodeid": t, "layer": lyr} for t, lyr in tests]}


# ----------------------------------------------------------------------------- history

def _history(task: Any, tj: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if task.pipeline is not None:
        for h in task.pipeline.history:
            out.append({"date": h.date, "from": h.from_state, "to": h.to_state, "note": h.note,
                        "source": "PIPELINE_STATE.md"})
    judge = tj.get("judge") if isinstance(tj.get("judge"), dict) else {}
    if judge.get("verdict"):
        out.append({"date": str(judge.get("date") or ""), "from": "", "to":
                    str(judge["verdict"]), "note": "judge record in task.json",
                    "source": "task.json judge"})
    if task.ledger is not None:
        from gavelkit.task.oracle import ledger_names  # the same matching as REOPENED_S3

        names = ledger_names(task)
        for r in task.ledger.rows:
            if r.matches(names):
                out.append({"date": "", "from": "", "to": r.status,
                            "note": " ".join(x for x in (r.metric, r.detail) if x),
                            "source": f"CANDIDATES.md line {r.line}"})
    ro = tj.get("reopened_s3")
    if isinstance(ro, dict):
        out.append({"date": str(ro.get("date") or ""), "from": "QUALIFIED", "to": "REOPENED_S3",
                    "note": str(ro.get("reason") or ""), "source": "task.json reopened_s3"})
    return out


def _diagnosis(task: Any) -> dict[str, Any]:
    """Verdict line and the sections a person reads first from judge/diagnosis_report.md."""
    for rel in ("judge/diagnosis_report.md", "diagnosis_report.md"):
        p = task.dir / rel
        if not p.is_file():
            continue
        from gavelkit.core.textio import read_text

        try:
            text = read_text(p)
        except InputError as exc:
            return {"path": rel, "error": exc.message}
        m = re.search(r"^\s*\**Verdict\**\s*[:：]\s*\**`?([A-Z_]+)", text, re.M)
        parts: dict[str, str] = {}
        chunks = re.split(r"^##\s+", text, flags=re.M)
        for ch in chunks[1:]:
            title, _, body = ch.partition("\n")
            key = title.strip()
            if re.search(r"failure|cascade|final|verdict|decision", key, re.I):
                parts[key] = body.strip()[:4000]
        return {"path": rel, "verdict": m.group(1) if m else None, "sections": parts}
    return {}


def _verdict(tj: dict[str, Any], diag: dict[str, Any], extra: dict[str, Any]) -> tuple[str | None, str]:
    judge = tj.get("judge") if isinstance(tj.get("judge"), dict) else {}
    for value, where in ((extra.get("verdict"), "judge/judge_result.json"),
                         (judge.get("verdict"), "task.json judge.verdict"),
                         (diag.get("verdict"), diag.get("path", "")),
                         (tj.get("status") if tj.get("status") in VERDICTS else None,
                          "task.json status")):
        if isinstance(value, str) and value:
            return value, where
    return None, ""


def _judge_record(rec: dict[str, Any]) -> dict[str, Any]:
    """Route, reasons and the cascade count from judge/judge_result.json, when present."""
    if not rec:
        return {}
    metrics = rec.get("metrics") if isinstance(rec.get("metrics"), dict) else {}
    cascade = metrics.get("cascade") if isinstance(metrics.get("cascade"), dict) else {}
    reasons = rec.get("reasons") if isinstance(rec.get("reasons"), list) else []
    return {"verdict": rec.get("verdict"), "route": rec.get("route"), "date": rec.get("date"),
            "reasons": [str(r) for r in reasons],
            "cascade": {k: v for k, v in cascade.items() if isinstance(v, int)}}


def _json_file(p: Path) -> dict[str, Any]:
    if not p.is_file():
        return {}
    try:
        data = json.loads(p.read_text("utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


# ----------------------------------------------------------------------------- collect

def collect(task: Any) -> dict[str, Any]:
    from gavelkit.task.gates import run_gates

    gates = run_gates(task, "DEF")
    tj = dict(task.task_json.data) if task.task_json else {}
    taxonomy = dict(task.task_json.taxonomy) if task.task_json else {}
    cand, cand_src = _candidate(task)
    ref_rate, ref_src = _reference(task)
    layers = layer_counts(cand, taxonomy)
    computed = gap_metrics(layers)
    recorded = tj.get("integration_gap") if isinstance(tj.get("integration_gap"), dict) else None
    gap = dict(computed)
    gap["source"] = f"computed from {cand_src}" if cand_src else "no score file"
    if recorded:
        for k in ("atomic_rate", "integration_e2e_rate", "rate_gap"):
            if isinstance(recorded.get(k), int | float):
                gap[k] = float(recorded[k])
        gap["source"] = "task.json integration_gap"
        gap["computed"] = computed
    events = tj.get("true_gap_events") or (recorded or {}).get("true_gap_events") or []
    diag = _diagnosis(task)
    extra = _json_file(task.dir / "judge" / "judge_result.json") or \
        _json_file(task.dir / "judge" / "verdict.json")
    verdict, verdict_src = _verdict(tj, diag, extra)
    judge = tj.get("judge") if isinstance(tj.get("judge"), dict) else {}
    gd = gates.results.get("D")
    return {
        "id": task.id, "dir": str(task.dir),
        "state": task.state or (str((task.manifest or {}).get("status") or "") or None),
        "verdict": verdict,
        "verdict_source": verdict_src,
        "labels": [x for x in tj.get("labels", []) if isinstance(x, str)]
        if isinstance(tj.get("labels"), list) else [],
        "candidate": {"source": cand_src, "pass_rate": cand.pass_rate if cand else None,
                      "passed": cand.passed if cand else None,
                      "total": cand.total if cand else None,
                      "counts": dict(cand.counts) if cand else {}},
        "reference": {"pass_rate": ref_rate, "source": ref_src},
        "layers": {k: {**v, "rate": _rate(v)} for k, v in sorted(
            layers.items(), key=lambda kv: (LAYERS.index(kv[0]) if kv[0] in LAYERS else 9))},
        "gap": gap,
        "true_gap_events": [e for e in events if isinstance(e, dict)]
        if isinstance(events, list) else [],
        "weaknesses": [w for w in tj.get("weaknesses", []) if isinstance(w, dict)]
        if isinstance(tj.get("weaknesses"), list) else [],
        "judge_clusters": _judge_clusters(tj),
        "crash_clusters": crash_clusters(cand),
        "coverage": coverage(task, gd),
        "gates": {g: {"verdict": r.verdict,
                      "errors": sum(1 for f in r.findings if f.severity == "error"),
                      "warnings": sum(1 for f in r.findings if f.severity == "warning"),
                      "findings": [f.to_dict() for f in r.findings][:200]}
                  for g, r in gates.results.items()},
        "recorded_gates": {str(k): str(v) for k, v in (judge.get("fairness_gates") or {}).items()}
        if isinstance(judge.get("fairness_gates"), dict) else {},
        "uncovered": gd.data.get("uncovered", []) if gd else [],
        "history": _history(task, tj),
        "diagnosis": diag,
        "judge_record": _judge_record(extra),
        "load_findings": [f.to_dict() for f in task.findings],
        "files": {k: task.rel(v) for k, v in task.paths.items()},
    }


# ----------------------------------------------------------------------------- charts

@hr.styled
def layer_chart(d: dict[str, Any]) -> Any:
    layers = [k for k in d["layers"] if d["layers"][k]["rate"] is not None]
    fig = hr.figure(6.5, 2.9)
    ax = fig.subplots()
    rates = [100 * d["layers"][k]["rate"] for k in layers]
    colors = ["#1565c0", "#6a1b9a", "#00838f", "#607d8b"]
    ax.bar(layers, rates, color=[colors[i % 4] for i in range(len(layers))], width=0.6)
    for i, k in enumerate(layers):
        c = d["layers"][k]
        ax.text(i, rates[i] + 1.5, f"{100 * c['rate']:.0f}% ({c.get('passed', 0)}/"
                f"{c.get('total', 0) - c.get('skipped', 0)})", ha="center", fontsize=8)
    g = d["gap"]
    if g["atomic_rate"] is not None:
        ax.axhline(100 * g["atomic_rate"], color="#1565c0", linestyle=":", linewidth=1,
                   label=f"atomic {100 * g['atomic_rate']:.0f}%")
    if g["integration_e2e_rate"] is not None:
        ax.axhline(100 * g["integration_e2e_rate"], color="#c62828", linestyle="--",
                   linewidth=1, label=f"integration+e2e {100 * g['integration_e2e_rate']:.0f}%")
    if d["reference"]["pass_rate"] is not None:
        ax.axhline(100 * d["reference"]["pass_rate"], color="#2e7d32", linewidth=1,
                   label=f"reference {100 * d['reference']['pass_rate']:.0f}%")
    ax.set_ylim(0, 112)
    ax.set_ylabel("pass rate (%)")
    gap = g["rate_gap"]
    ax.set_title("Candidate pass rate per layer" + (f"; rate gap {gap:+.2f}" if gap is not None
                                                     else ""), fontsize=9, loc="left")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    return hr.svg(fig, "layer pass rates")


def _short(nodeid: str) -> str:
    name = nodeid.split("::")[-1]
    return name if len(name) <= 38 else name[:36] + "…"


@hr.styled
def heatmap(cov: dict[str, Any]) -> Any:
    """Sections × covered tests (small oracles) or sections × layer counts."""
    import numpy as np

    secs = cov["sections"]
    tests = cov["tests"]
    labels = [("★ " if s["core"] else "") + s["section"].lstrip("#").strip()[:48]
              + (" (exempt)" if s["status"] == "exempt" else "") for s in secs]
    by_test = len(tests) <= MATRIX_MAX_TESTS and tests
    if by_test:
        cols = [t["nodeid"] for t in tests]
        col_labels = [_short(t) for t in cols]
        m = np.array([[1.0 if t in s["tests"] else 0.0 for t in cols] for s in secs])
        title = "Spec sections × covered tests (★ core section; grey row = uncovered)"
    else:
        layers = [ly for ly in LAYERS if any(ly in s["by_layer"] for s in secs)] or list(LAYERS)
        col_labels = layers
        m = np.array([[float(s["by_layer"].get(ly, 0)) for ly in layers] for s in secs])
        title = (f"Spec sections × covered tests per layer ({len(tests)} tests; ★ core "
                 "section; grey row = uncovered)")
    rows = max(len(secs), 1)
    # margins in inches from the label lengths (7 pt text is about 0.055 in per char)
    left_in = 0.35 + 0.055 * max((len(x) for x in labels), default=10)
    bottom_in = (0.3 + 0.045 * max((len(x) for x in col_labels), default=8)) if by_test else 0.5
    top_in = 0.55
    per_col = 0.13 if len(col_labels) > 40 else 0.3
    plot_w = min(per_col * len(col_labels), 12.0) if by_test else 4.5
    width = max(left_in + plot_w + (0.3 if by_test else 1.3), 8.0)
    height = 0.2 * rows + bottom_in + top_in
    fig = hr.figure(width, height, layout=None)
    fig.subplots_adjust(left=left_in / width, right=1 - (0.3 if by_test else 1.3) / width,
                        bottom=bottom_in / height, top=1 - top_in / height)
    ax = fig.subplots()
    if m.size == 0:
        m = np.zeros((rows, 1))
    shown = np.ma.masked_where(m == 0, m)
    from matplotlib import colormaps

    cmap = colormaps["Blues"].with_extremes(bad="#f1f3f6")
    im = ax.imshow(shown, aspect="auto", cmap=cmap, interpolation="nearest",
                   vmin=0, vmax=max(float(m.max()), 1.0))
    for i, s in enumerate(secs):
        if s["status"] == "uncovered":
            ax.axhspan(i - 0.5, i + 0.5, color="#cfd4db", zorder=0)
            ax.text(-0.5, i, " uncovered", va="center", fontsize=7, color="#c62828")
    if not by_test:
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                if m[i, j]:
                    ax.text(j, i, f"{int(m[i, j])}", ha="center", va="center", fontsize=7,
                            color="white" if m[i, j] > m.max() / 2 else "#1d2330")
        cax = fig.add_axes((1 - 1.0 / width, bottom_in / height, 0.15 / width,
                            0.6 * (1 - (top_in + bottom_in) / height)))
        fig.colorbar(im, cax=cax, label="covered tests")
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    for tick, s in zip(ax.get_yticklabels(), secs, strict=False):
        if s["core"]:
            tick.set_color("#c62828")
            tick.set_fontweight("bold")
    ax.set_xticks(range(len(col_labels)), col_labels, rotation=90 if by_test else 0,
                  fontsize=6 if by_test else 8)
    if by_test:
        for tick, t in zip(ax.get_xticklabels(), tests, strict=False):
            tick.set_color(LAYER_COLORS.get(t["layer"], "#555"))
        title += "; test names coloured by layer: " + ", ".join(
            f"{k} = {v}" for k, v in LAYER_NAMES.items())
    fig.suptitle(title, fontsize=9, x=0.01, ha="left", y=1 - 0.1 / height, va="top")
    return hr.svg(fig, "spec coverage heat map")


@hr.styled
def cluster_chart(clusters: list[dict[str, Any]]) -> Any:
    top = clusters[:12]
    fig = hr.figure(7.5, 0.3 * len(top) + 1.0)
    ax = fig.subplots()
    left = [0] * len(top)
    for k, layer in enumerate((*LAYERS, "?")):
        vals = [c["layers"].get(layer, 0) for c in top]
        if any(vals):
            ax.barh(range(len(top)), vals, left=left, label=layer,
                    color=("#1565c0", "#6a1b9a", "#00838f", "#9e9e9e")[k])
            left = [a + b for a, b in zip(left, vals, strict=True)]
    ax.set_yticks(range(len(top)), [f"#{i + 1}" for i in range(len(top))])
    ax.invert_yaxis()
    ax.set_xlabel("failing tests")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title("Failure clusters by crash signature (see the table for the root cause)",
                 fontsize=9, loc="left")
    ax.legend(fontsize=7, frameon=False, loc="lower right")
    return hr.svg(fig, "failure clusters")


# ----------------------------------------------------------------------------- build

def build_task(task_dir: str | Path, config: str | None = None, html: bool = True,
               progress: Callable[[int, int, str], None] | None = None) -> Report:
    """One task's report (data only with html=False: the fleet table needs no charts).
    Raises InputError when the folder does not exist. `progress(done, total, stage)`
    is told each stage."""
    from gavelkit import __version__
    from gavelkit.task.load import load_task

    step = progress or (lambda done, total, stage: None)
    step(0, 2, "reading files and running gates")
    task = load_task(task_dir, config)
    d = collect(task)
    if not html:
        return Report(d)
    step(1, 2, "charts")
    charts = {
        "layers": layer_chart(d) if any(v["rate"] is not None for v in d["layers"].values())
        else None,
        "heatmap": heatmap(d["coverage"]) if d["coverage"]["sections"] else None,
        "clusters": cluster_chart(d["crash_clusters"]) if d["crash_clusters"] else None,
    }
    page = hr.render("task_report.html.j2", d=d, charts=charts, version=__version__)
    step(2, 2, "done")
    return Report(d, page, [])


def looks_like_task(p: Path) -> bool:
    return p.is_dir() and any((p / m).is_file() for m in TASK_MARKERS)


def find_tasks(root: Path) -> list[Path]:
    """Task folders under root: its children that look like tasks, else its grandchildren
    (a repo root with tasks/ and wip/), else root itself."""
    kids = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    found = [p for p in kids if looks_like_task(p)]
    if not found:
        found = [g for k in kids for g in sorted(k.iterdir()) if looks_like_task(g)]
    if not found and looks_like_task(root):
        found = [root]
    return found


def _row(d: dict[str, Any], link: str | None) -> dict[str, Any]:
    secs = d["coverage"]["sections"]
    return {"id": d["id"], "state": d["state"] or "", "verdict": d["verdict"] or "",
            "pass_rate": d["candidate"]["pass_rate"], "reference": d["reference"]["pass_rate"],
            "atomic": d["gap"]["atomic_rate"], "int_e2e": d["gap"]["integration_e2e_rate"],
            "gap": d["gap"]["rate_gap"], "gates": {g: v["verdict"] for g, v in d["gates"].items()},
            "uncovered": sum(1 for s in secs if s["status"] == "uncovered"),
            "uncovered_core": sum(1 for s in secs if s["status"] == "uncovered" and s["core"]),
            "clusters": len(d["judge_clusters"]) or len(d["crash_clusters"]),
            "labels": d["labels"], "link": link}


@hr.styled
def fleet_chart(rows: list[dict[str, Any]]) -> Any:
    pts = [r for r in rows if r["gap"] is not None]
    pts.sort(key=lambda r: r["gap"])
    fig = hr.figure(7.5, 0.28 * len(pts) + 1.0)
    ax = fig.subplots()
    ax.barh([r["id"] for r in pts], [r["gap"] for r in pts],
            color=["#c62828" if r["gap"] > 0 else "#2e7d32" for r in pts])
    ax.axvline(0, color="#111", linewidth=0.8)
    ax.set_xlabel("rate gap (atomic − integration+e2e)")
    ax.set_title("Rate gap per task", fontsize=9, loc="left")
    ax.tick_params(axis="y", labelsize=7)
    return hr.svg(fig, "rate gap per task")


def fleet_one(folder: Path, config: str | None = None, reports_dir: Path | None = None,
              base: Path | None = None) -> tuple[str, dict[str, Any] | None, Finding | None]:
    """One fleet row (and its page under reports_dir); never raises for one bad task.
    A plain function of paths so it runs in a worker process as well."""
    try:
        rep = build_task(folder, config, html=reports_dir is not None)
    except InputError as exc:
        return folder.name, None, Finding("RPT-T001", "warning",
                                          f"task left out: {exc.message}", str(folder))
    except Exception as exc:  # one broken task must not sink a hundred
        if os.environ.get("GAVEL_DEBUG"):
            raise
        return folder.name, None, Finding("RPT-T001", "warning", f"task left out: "
                                          f"{type(exc).__name__}: {exc}", str(folder))
    link = None
    if reports_dir is not None:
        target = reports_dir / f"{folder.name}.html"
        hr.write(str(target), rep.html)
        link = os.path.relpath(target, base or Path("."))
    return folder.name, _row(rep.data, link), None


def build_fleet(folders: Iterable[Path], config: str | None = None,
                reports_dir: Path | None = None, out: Path | None = None, jobs: int = 1,
                wrap: Callable[[Iterable[Any], int], Iterable[Any]] | None = None) -> Report:
    """The fleet page over many task folders; an unreadable folder is a warning, not a stop.

    jobs > 1 builds the rows in that many worker processes (worth it with reports_dir,
    where each task draws its charts). `wrap(results, n)` sees every finished row in
    order, e.g. `core.progress.track`; each result is (folder name, row, finding).
    """
    from gavelkit import __version__

    folders = list(folders)
    base = out.parent if out is not None else None
    wrap = wrap or (lambda it, n: it)
    rows: list[dict[str, Any]] = []
    findings: list[Finding] = []
    if jobs > 1 and len(folders) > 1:
        from concurrent.futures import ProcessPoolExecutor
        from functools import partial

        with ProcessPoolExecutor(max_workers=min(jobs, len(folders))) as pool:
            results = pool.map(partial(fleet_one, config=config, reports_dir=reports_dir,
                                       base=base), folders)
            done = list(wrap(results, len(folders)))
    else:
        done = list(wrap((fleet_one(f, config, reports_dir, base) for f in folders),
                         len(folders)))
    for _, row, finding in done:
        if row is not None:
            rows.append(row)
        if finding is not None:
            findings.append(finding)
    data = {"tasks": rows,
            "states": sorted({r["state"] for r in rows if r["state"]}),
            "verdicts": sorted({r["verdict"] for r in rows if r["verdict"]}),
            "left_out": [f.to_dict() for f in findings]}
    chart = fleet_chart(rows) if any(r["gap"] is not None for r in rows) else None
    html = hr.render("fleet_report.html.j2", d=data, chart=chart, version=__version__)
    return Report(data, html, findings)
