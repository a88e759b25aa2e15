"""What the task report shows, collected from the task folder: layer counts and gap,
crash clusters, coverage, history, diagnosis and the verdict."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.task.formats.score import ScoreResult, read_score, score_from_dict
from gavelkit.task.judging.failures import crash_message
from gavelkit.task.judging.fleet_verdict import decide_row, recorded_verdict
from gavelkit.task.judging.verdict import TASK_STATUSES

SHOWN_FINDINGS = 200  # per gate on the page; the rest is counted, never dropped silently
LAYERS = ("atomic", "integration", "system_e2e")
FAILED = ("failed", "error", "timeout", "collection_error", "not_collected")
VERDICTS = TASK_STATUSES  # a task.json status that states a verdict
EXTRA_CANDIDATE = ("evidence/candidate_score.json", "judge/candidate_score.json")
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


def _candidate(task: Any, problems: list[Finding]) -> tuple[ScoreResult | None, str]:
    """The candidate's score and where it came from. A score file that exists but cannot
    be read is never replaced by another source: the report says it could not read it."""
    if task.score_result is not None:
        return task.score_result, task.rel(Path(task.score_result.path))
    if "score_result" in task.paths:
        return None, f"could not read {task.rel(task.paths['score_result'])}"
    for rel in EXTRA_CANDIDATE:
        p = task.dir / rel
        if os.path.lexists(p):
            sr, fnd = read_score(p)
            if sr is not None:
                return sr, rel
            problems.extend(f for f in fnd if f.unusable)
            return None, f"could not read {rel}"
    tj = task.task_json
    cs = tj.data.get("candidate_score") if tj else None
    if isinstance(cs, dict) and ("passed" in cs or "summary" in cs):
        sr, _ = score_from_dict(cs, "task.json candidate_score")
        return sr, "task.json candidate_score"
    return None, ""


def _reference(task: Any) -> tuple[float | None, str]:
    if task.reference_score is not None and task.reference_score.pass_rate is not None:
        return task.reference_score.pass_rate, task.rel(Path(task.reference_score.path))
    if task.reference_score is None and "reference_score" in task.paths:
        return None, f"could not read {task.rel(task.paths['reference_score'])}"
    return _recorded_reference(task.task_json.data if task.task_json else {}, task.manifest)


def _recorded_reference(tj: dict[str, Any], manifest: dict[str, Any] | None
                        ) -> tuple[float | None, str]:
    """The reference rate the task records (task.json or MANIFEST.json), in its shapes."""
    v = tj.get("reference_pass_rate")
    if isinstance(v, int | float) and not isinstance(v, bool):
        return float(v), "task.json reference_pass_rate"
    for key in ("reference_score", "reference"):
        d = tj.get(key) or (manifest or {}).get(key)
        if not isinstance(d, dict):
            continue
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
        msg = crash_message(c)
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


def _first(c: dict[str, Any], *keys: str) -> str:
    """The first truthy value among a record's key spellings, as text."""
    return str(next((c[k] for k in keys if c.get(k)), ""))


def _size(c: dict[str, Any]) -> int | None:
    size = c.get("size", c.get("count"))
    if isinstance(size, int) and not isinstance(size, bool):
        return size
    tests = c.get("tests") or c.get("failed_tests") or c.get("affected_tests")
    if isinstance(tests, list):
        return len(tests)
    return tests if isinstance(tests, int) else None


def _layers_text(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value or "")


def _judge_clusters(tj: dict[str, Any]) -> list[dict[str, Any]]:
    """The clusters a judge recorded in task.json, in any of the shapes seen."""
    judge = tj.get("judge") if isinstance(tj.get("judge"), dict) else {}
    raw = judge.get("failure_clusters") or tj.get("failure_clusters") or []
    if isinstance(raw, dict):
        raw = [{"cluster": k, **(v if isinstance(v, dict) else {"detail": v})}
               for k, v in raw.items()]
    return [{"name": _first(c, "cluster", "name", "id"),
             "root_cause": _first(c, "root_cause", "cause", "description"),
             "dimension": _first(c, "dimension", "root_cause_dimension"),
             "count": _size(c), "layer": _layers_text(c.get("layers", c.get("layer"))),
             "kind": _first(c, "class", "kind", "type", "classification")}
            for c in (raw if isinstance(raw, list) else []) if isinstance(c, dict)]


# ----------------------------------------------------------------------------- coverage

def _covered_by_section(task: Any, lines: set[int]) -> tuple[dict[int, dict[str, list[str]]],
                                                               list[tuple[str, str]]]:
    """section line -> layer -> node ids, and every (node id, layer) that hit a section."""
    from gavelkit.task.gates.gate_d import match_sections

    by_section: dict[int, dict[str, list[str]]] = {ln: {} for ln in lines}
    tests: list[tuple[str, str]] = []
    for row in task.map.covered_rows():
        hits = {s.line for cell in row.sections for s in match_sections(task.spec, cell)
                if s.line in by_section}
        if hits:
            tests.append((row.nodeid, row.layer or "?"))
        for ln in hits:
            by_section[ln].setdefault(row.layer or "?", []).append(row.nodeid)
    return by_section, tests


def coverage(task: Any, gate_d: Any) -> dict[str, Any]:
    """Per audited section: covered tests by layer and (small oracles) by test id."""
    if task.spec is None or task.map is None or gate_d is None:
        return {"sections": [], "tests": []}
    rows = {r["line"]: r for r in gate_d.table}
    index = {s.line: i for i, s in enumerate(task.spec.sections) if s.line in rows}
    by_section, tests = _covered_by_section(task, set(index))
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

def _ledger_history(task: Any) -> list[dict[str, Any]]:
    if task.ledger is None:
        return []
    from gavelkit.task.pipeline.digests import ledger_names  # the same matching as REOPENED_S3

    names = ledger_names(task)
    return [{"date": "", "from": "", "to": r.status,
             "note": " ".join(x for x in (r.metric, r.detail) if x),
             "source": f"CANDIDATES.md line {r.line}"}
            for r in task.ledger.rows if r.matches(names)]


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
    out += _ledger_history(task)
    ro = tj.get("reopened_s3")
    if isinstance(ro, dict):
        out.append({"date": str(ro.get("date") or ""), "from": "QUALIFIED", "to": "REOPENED_S3",
                    "note": str(ro.get("reason") or ""), "source": "task.json reopened_s3"})
    return out


def _diagnosis(task: Any) -> dict[str, Any]:
    """Verdict line and the sections a person reads first from judge/diagnosis_report.md."""
    for rel in ("judge/diagnosis_report.md", "diagnosis_report.md"):
        p = task.dir / rel
        if not os.path.lexists(p):  # a FIFO or folder here is reported, not skipped
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
    if isinstance(extra.get("checks"), list):
        # the judge's own record: its checks re-decided by the one verdict function, so the
        # fleet page, judge-all and `gavel task judge` cannot disagree (a hand-edited
        # "verdict" over failing checks does not count)
        from gavelkit.task.judging import verdict as V

        got = V.decide(V.checks_from_record(extra)).verdict
        said = extra.get("verdict")
        return got, "judge/judge_result.json" + (
            "" if said == got else f" (its checks decide {got}; the record says {said!r})")
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


def _json_file(p: Path, problems: list[Finding] | None = None) -> dict[str, Any]:
    """A JSON record the report shows; {} when absent. One that cannot be read is
    appended to `problems` (unusable): the report must say it could not read it."""
    from gavelkit.core.errors import InputError
    from gavelkit.core.safeio import load_json

    if not os.path.lexists(p):
        return {}
    try:
        data = load_json(p)
    except InputError as exc:
        if problems is not None:
            problems.append(Finding("RPT-T002", "error", f"could not read it: {exc.message}",
                                    str(p), exc.line, exc.col, unusable=True))
        return {}
    if not isinstance(data, dict):
        if problems is not None:
            problems.append(Finding("RPT-T002", "error", "could not use it: not a JSON object",
                                    str(p), 1, 1, unusable=True))
        return {}
    return data


# ----------------------------------------------------------------------------- collect

def _gate_info(r: Any) -> dict[str, Any]:
    errors: dict[str, int] = {}
    for f in r.findings:
        if f.severity == "error":
            errors[f.code] = errors.get(f.code, 0) + 1
    return {"verdict": r.verdict, "errors": sum(errors.values()),
            "warnings": sum(1 for f in r.findings if f.severity == "warning"),
            "findings": [f.to_dict() for f in r.findings][:SHOWN_FINDINGS],
            "total": len(r.findings), "by_code": errors,
            "gap_accepted": bool(r.data.get("gap_accepted"))}


def _state(task: Any) -> str | None:
    return task.state or (str((task.manifest or {}).get("status") or "") or None)


def _strings(value: Any) -> list[str]:
    return [x for x in value if isinstance(x, str)] if isinstance(value, list) else []


def _str_map(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def _unread(task: Any, problems: list[Finding]) -> list[dict[str, Any]]:
    return [{"path": task.rel(Path(f.path)) if f.path else str(task.dir), "line": f.line,
             "message": f.message, "code": f.code}
            for f in [*task.findings, *problems] if f.unusable]


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def _gap(tj: dict[str, Any], layers: dict[str, Any], cand: Any, cand_src: str) -> dict[str, Any]:
    """The rate gap: computed from the score file, or the task's recorded one beside it."""
    computed = gap_metrics(layers)
    recorded = tj.get("integration_gap") if isinstance(tj.get("integration_gap"), dict) else None
    gap = dict(computed)
    gap["source"] = ("no usable score file" if cand is None and cand_src else
                     f"computed from {cand_src}" if cand_src else "no score file")
    if recorded:
        for k in ("atomic_rate", "integration_e2e_rate", "rate_gap"):
            if isinstance(recorded.get(k), int | float):
                gap[k] = float(recorded[k])
        gap["source"] = "task.json integration_gap"
        gap["computed"] = computed
    return gap


def _candidate_block(cand: Any, src: str) -> dict[str, Any]:
    if cand is None:
        return {"source": src, "pass_rate": None, "passed": None, "total": None, "counts": {}}
    return {"source": src, "pass_rate": cand.pass_rate, "passed": cand.passed,
            "total": cand.total, "counts": dict(cand.counts)}


def _judge_files(task: Any, problems: list[Finding]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(diagnosis report, judge record); what cannot be read goes to problems."""
    diag = _diagnosis(task)
    if diag.get("error"):
        problems.append(Finding("RPT-T002", "error", f"could not read it: {diag['error']}",
                                str(task.dir / diag["path"]), unusable=True))
    extra = _json_file(task.dir / "judge" / "judge_result.json", problems) or \
        _json_file(task.dir / "judge" / "verdict.json", problems)
    return diag, extra


def _ordered_layers(layers: dict[str, Any]) -> dict[str, Any]:
    return {k: {**v, "rate": _rate(v)} for k, v in sorted(
        layers.items(), key=lambda kv: (LAYERS.index(kv[0]) if kv[0] in LAYERS else 9))}


def collect(task: Any, problems: list[Finding] | None = None) -> dict[str, Any]:
    """The report's data. Files the report could not read go to `problems` (and to
    data["unread"], which the page shows first): nothing is certified from them."""
    from gavelkit.task.gates import run_gates

    problems = [] if problems is None else problems
    gates = run_gates(task, "DEF")
    tj = dict(task.task_json.data) if task.task_json else {}
    cand, cand_src = _candidate(task, problems)
    ref_rate, ref_src = _reference(task)
    layers = layer_counts(cand, dict(task.task_json.taxonomy) if task.task_json else {})
    gap = _gap(tj, layers, cand, cand_src)
    recorded = tj.get("integration_gap") if isinstance(tj.get("integration_gap"), dict) else {}
    diag, extra = _judge_files(task, problems)
    verdict, verdict_src = _verdict(tj, diag, extra)
    judge = tj.get("judge") if isinstance(tj.get("judge"), dict) else {}
    gd = gates.results.get("D")
    gate_info = {g: _gate_info(r) for g, r in gates.results.items()}
    return {
        "id": task.id, "dir": str(task.dir),
        "state": _state(task),
        "verdict": verdict, "verdict_source": verdict_src,
        "labels": _strings(tj.get("labels")),
        "candidate": _candidate_block(cand, cand_src),
        "reference": {"pass_rate": ref_rate, "source": ref_src},
        "layers": _ordered_layers(layers), "gap": gap,
        "true_gap_events": _dicts(tj.get("true_gap_events") or recorded.get("true_gap_events")),
        "weaknesses": _dicts(tj.get("weaknesses")),
        "judge_clusters": _judge_clusters(tj), "crash_clusters": crash_clusters(cand),
        "coverage": coverage(task, gd), "gates": gate_info,
        "fleet_verdict": decide_row(gate_info, extra.get("checks"),
                                    *recorded_verdict(tj, task.manifest)).to_dict(),
        "recorded_gates": _str_map(judge.get("fairness_gates")),
        "uncovered": gd.data.get("uncovered", []) if gd else [],
        "history": _history(task, tj), "diagnosis": diag, "judge_record": _judge_record(extra),
        "load_findings": [f.to_dict() for f in task.findings],
        "unread": _unread(task, problems),
        "files": {k: task.rel(v) for k, v in task.paths.items()},
    }


# ----------------------------------------------------------------------------- charts

