"""judge/diagnosis_report.md and the request files, rendered from a JudgeResult.

The report carries every section the seed's "Diagnosis Report" lists, in the
seed's order, with the literal Preflight output block first after the verdict
line: a report without it is structurally invalid (seed "Anti-Cheat"). The
Q-A/Q-B triage table is prefilled per failure cluster: what the program can
decide (traced to a spec section? does the reference pass?) is filled in, what
needs a senior engineer's reading of the spec (Q-A) is left as `?` to fill.

Layout lives in data/templates/diagnosis_report.md.j2, filter_correction_request.md.j2 and
spec_patch_request.md.j2 (core.mdtemplate: a value the view does not hold is an error);
the values come from the small view functions below.
"""

from __future__ import annotations

from typing import Any

from gavelkit.task.judging.fairness import gate_note
from gavelkit.task.scoring.counts import count_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gavelkit.task.formats.score import ScoreResult
    from gavelkit.task.judging.metrics import Metrics
    from gavelkit.task.judging.result import JudgeResult
    from gavelkit.task.judging.scores import GateB


def render_report(res: JudgeResult) -> str:
    from gavelkit.core.mdtemplate import render

    return render("diagnosis_report.md.j2", r=report_view(res))


def report_view(res: JudgeResult) -> dict[str, Any]:
    """What the report template shows, each section from its own small function. Scores
    (and everything computed from them) only when `scores_usable`."""
    usable = res.scores_usable
    return {
        "id": res.task.id, "verdict": str(res.verdict), "route": res.route,
        "pending": res.verdict == "PENDING",
        "labels": res.labels,
        "labels_line": ", ".join(f"`{lab['label']}`" for lab in res.labels) or "none",
        "checks": [{"name": c.name, "status": str(c.status), "reason": c.reason}
                   for c in res.checks],
        "preflight_block": res.preflight.block_text.replace("### Preflight output\n\n", "")
        if res.preflight else "",
        **_anticheat_view(res),
        "solvability": _solvability_view(res),
        "gates": _gates_view(res),
        "usable": usable, "withheld": "" if usable else f"Not shown: {res.scores_why}",
        "why": res.scores_why,
        **_score_view(res),
        "weaknesses": res.weaknesses, "reasons": res.reasons, "terminal": res.terminal,
        "transition": _transition_line(res.transition), "findings": res.findings,
    }


def _anticheat_view(res: JudgeResult) -> dict[str, Any]:
    scan = res.scan
    tamper = [{"code": f.get("code"), "severity": f.get("severity"), "message": f.get("message")}
              for f in (res.anticheat.run_findings if res.anticheat else ())
              if str(f.get("code", "")).startswith("TSK-X")]
    return {"scan": {"verdict": scan.verdict if scan else "?", "reason": scan.reason if scan
                     else ""},
            "scan_findings": list(scan.findings[:20]) if scan else [],
            "tamper": tamper[:20], "isolation": _isolation_line(res)}


def _isolation_line(res: JudgeResult) -> str:
    iso = res.score.gavel.get("isolation") if res.scores_usable and res.score else None
    iso = iso if isinstance(iso, dict) else {}
    line = (f"**{'active' if iso.get('active') else 'INACTIVE'}** ({iso.get('mechanism', '?')}; "
            f"network {iso.get('network', '?')}; filesystem {iso.get('filesystem', '?')})")
    return line + (f" — {iso.get('why_inactive')}" if iso.get("why_inactive") else "")


def _solvability_view(res: JudgeResult) -> dict[str, Any]:
    solv = res.solvability
    ref = solv.reference if solv else None
    if ref is None:
        return {"source": None}
    cfg = res.task.config["judge"]
    env = ref.gavel.get("environment") or {}
    flaky = list(ref.gavel.get("flaky") or [])
    return {"source": solv.source, "counts": count_line(ref.summary, res.reference_rate),
            "threshold": f"{cfg['solvable'] * 100:g}",
            "threshold_s3": f"{cfg['solvable_at_s3'] * 100:g}",
            "environment": (f"{env.get('kind')} at `{env.get('path')}`, requirements hash "
                            f"`{env.get('requirements_hash')}`, digest "
                            f"`{str(env.get('digest'))[:16]}`, plugins "
                            f"{env.get('plugins') or 'none'}") if env else "",
            "flaky": flaky, "flaky_shown": ", ".join(f"`{x}`" for x in flaky[:10]),
            "diagnosis": solv.diagnosis_text}


def _gates_view(res: JudgeResult) -> dict[str, Any]:
    fair = res.fairness
    d = fair.result("D") if fair else None
    sc = fair.spotcheck if fair else None
    return {"standard": _standard_text(fair) if fair else "",
            "rows": _gate_rows(res), "caveat": res.coverage_caveat,
            "errors": [f for f in (res.gates.findings if res.gates else [])[:25]
                       if f.severity == "error"],
            "uncovered": d.data.get("uncovered", []) if d else [],
            "spotcheck": list(sc.prefilled) if sc is not None else []}


def _standard_text(fair: Any) -> str:
    """The spec standard the gates applied, and what the current one says ('' unknown)."""
    from gavelkit.core.mdtemplate import cell

    std = fair.standard_line()
    if not std:
        return ""
    _, under, rest = str(fair.standard.get("line") or "").partition("under the current standard")
    return f"{cell(std)}." + (f" Under the current standard{cell(rest)}." if under else "")


def _gate_rows(res: JudgeResult) -> list[dict[str, str]]:
    rows = []
    for k, r in (res.gates.results.items() if res.gates else []):
        note = gate_note(r)
        rows.append({"gate": k, "verdict": f"{r.verdict}" + (f" ({note})" if note else "")})
    gb = res.gate_b
    rows.append({"gate": "B (failure pattern)", "verdict": (
        f"{gb.verdict} ({gb.verifier} verifier + {gb.untraced} untraced of {gb.failures} "
        f"failures" + (f": {gb.why}" if gb.why else "") + ")")
        if gb.verdict in ("PASS", "FAIL") else f"not audited ({gb.why})"})
    ac = next((c for c in res.checks if c.name == "gate-A/C"), None)
    if ac is not None:
        rows.append({"gate": "A/C (spot-check)", "verdict": f"{ac.status}: {ac.reason}"})
    return rows


_PROTOCOL = {"verifier": "verifier failure: return to test-filter, mark excluded",
             "environment": "environment/infrastructure: fix the scoring environment",
             "infrastructure": "environment/infrastructure: fix the scoring environment"}
_END_TO_END = ("integration", "system_e2e")


def _score_view(res: JudgeResult) -> dict[str, Any]:
    """The score's sections: a usable score, or a withheld one's unverified evidence (with
    the checks that could not be made), or nothing."""
    ev = res.unverified
    if res.scores_usable and res.score and res.metrics:
        score, m = res.score, res.metrics
    elif not res.scores_usable and ev is not None:
        score, m = ev.score, ev.metrics
    else:
        return {"total": "", "metrics": None, "unverified": None}
    return {"total": count_line(score.summary, score.pass_rate), "metrics": _metrics_view(m),
            "unverified": None if ev is None or res.scores_usable else {
                "not_checked": [{"name": n, "reason": r} for n, r in ev.not_checked],
                "gate_b": _gate_b_evidence(ev.gate_b)}}


def _gate_b_evidence(gb: GateB) -> str:
    if not gb.failures:
        return "no failures"
    return (f"{gb.verifier} of {gb.failures} failures are verifier failures by rule"
            f"{f' ({gb.why})' if gb.why else ''}, {gb.untraced} untraced to the spec "
            f"(share {gb.share:.1%}, the gate fails above {gb.threshold:.0%})"
            if gb.threshold is not None else f"{gb.failures} failures")


def _metrics_view(m: Metrics) -> dict[str, Any]:
    return {
        "layers": sorted(m.layers.items()),
        "classes": ", ".join(f"{k} {n}" for k, n in sorted(m.classes.items())) or "none",
        "protocol": [_protocol_row(c) for c in m.clusters
                     if c.klass != "candidate" or not c.traced_to_spec],
        "integration": _integration_rows(m.clusters),
        "negative": m.negative_gap if m.negative_gap.get("applies") else None,
        "clusters": [_cluster_row(c) for c in m.clusters],
        "cascade": m.to_dict()["cascade"],
        "roots": [{"id": c.id, "signature": c.signature, "tests": len(c.tests)}
                  for c in m.clusters if c.klass == "candidate"][:10],
        "gap": m.integration_gap, "events": m.true_gap_events,
        "saturation": {"applies": bool(m.saturation.get("applies")),
                       "reason": str(m.saturation.get("reason", ""))},
    }


def _protocol_row(c: Any) -> dict[str, Any]:
    return {"id": c.id, "tests": len(c.tests), "klass": c.klass, "signature": c.signature,
            "what": _PROTOCOL.get(c.klass, "not traced to a spec section: verifier failure "
                                           "(Pass 1)")}


def _integration_rows(clusters: list[Any]) -> list[dict[str, Any]]:
    """Candidate clusters with integration/e2e tests: does the spec state their constraint?"""
    return [{"id": c.id, "sections": "; ".join(c.sections) or "-",
             "tests": sum(v for k, v in c.layers.items() if k in _END_TO_END)}
            for c in clusters if c.klass == "candidate"
            and any(k in _END_TO_END for k in c.layers)]


def _cluster_row(c: Any) -> dict[str, Any]:
    """One row of the Q-A/Q-B triage table: what the program can decide is filled in."""
    if c.klass == "verifier" or not c.traced_to_spec:
        action = "return to test-filter"
    elif c.klass in ("environment", "infrastructure"):
        action = "fix environment"
    elif c.reference_passes is False:
        action = "verifier failure: exclude"
    else:
        action = "model failure unless Q-A = yes (then spec_error)"
    return {"id": c.id, "tests": len(c.tests),
            "layers": ", ".join(f"{k} {n}" for k, n in c.layers.items()),
            "signature": c.signature, "klass": c.klass, "dimension": c.dimension,
            "sections": "; ".join(c.sections) or "-",
            "traced": "yes" if c.traced_to_spec else "no",
            "neutral": "no" if c.klass == "verifier" else "?",
            "qb": {True: "yes", False: "no", None: "unknown"}[c.reference_passes],
            "action": action}


def _transition_line(tr: dict[str, Any]) -> str:
    if not tr:
        return ""
    where = tr.get("to", tr.get("requested", "?"))
    done = "written" if tr.get("written") else "not written: " + "; ".join(tr.get("why", []))
    return f"{tr.get('from', '?')} -> {where} ({done})"


def reference_failures(ref: ScoreResult | None) -> list[str]:
    """Node ids the reference did not pass (for the filter request)."""
    cases = ref.raw.get("cases") if ref is not None else None
    return [c["nodeid"] for c in (cases if isinstance(cases, list) else [])
            if isinstance(c, dict) and isinstance(c.get("nodeid"), str)
            and c.get("counted_as", c.get("outcome")) not in ("passed", "xfail", "xpass",
                                                              "skipped")]


def render_requests(res: JudgeResult) -> dict[str, str]:
    """filter_correction_request.md / spec_patch_request.md when a gate routes back."""
    from gavelkit.core.mdtemplate import render

    out: dict[str, str] = {}
    if res.route == "filter":
        out["filter_correction_request.md"] = render("filter_correction_request.md.j2",
                                                     strip=False, r=filter_request_view(res))
    if res.route == "spec":
        out["spec_patch_request.md"] = render("spec_patch_request.md.j2", strip=False,
                                              r=spec_request_view(res))
    return out


def filter_request_view(res: JudgeResult) -> dict[str, Any]:
    """What test-filter is asked: uncovered sections (not those accepted as a caveat), the
    verifier/untraced failures, the negative gap, a failed spot-check, reference failures."""
    m = res.metrics
    neg = m.negative_gap if m else {}
    return {
        "id": res.task.id, "date": res.date, "reasons": res.reasons,
        **_gap_requests(res),
        "review": [{"id": c.id, "signature": c.signature, "tests": c.tests[:30]}
                   for c in (m.clusters if m else [])
                   if c.klass == "verifier" or not c.traced_to_spec],
        "negative": neg.get("diagnosis", []) if neg.get("applies") else [],
        "spotcheck": _failed_spotcheck(res), "reference": _reference_failures(res),
    }


def _gap_requests(res: JudgeResult) -> dict[str, Any]:
    """Gate D's uncovered sections to ask for, and those accepted as a caveat (not asked)."""
    from gavelkit.task.formats.spec import norm_heading

    d = res.fairness.result("D") if res.fairness else None
    if d is None:
        return {"uncovered": [], "accepted": []}
    accepted = set((d.data.get("coverage_gap") or {}).get("sections", [])
                   if d.data.get("gap_accepted") else [])
    keys = {norm_heading(x) for x in accepted}
    return {"uncovered": [u for u in d.data.get("uncovered", [])
                          if norm_heading(u["spec section"]) not in keys],
            "accepted": sorted(accepted)}


def _failed_spotcheck(res: JudgeResult) -> dict[str, str] | None:
    ac = next((c for c in res.checks if c.name == "gate-A/C"), None)
    sc = res.fairness.spotcheck if res.fairness else None
    if ac is None or ac.status != "FAIL" or sc is None:
        return None
    return {"reason": ac.reason, "path": sc.path, "rows": _failed_spot_rows(sc.to_dict())}


def _reference_failures(res: JudgeResult) -> dict[str, Any] | None:
    sv = next((c for c in res.checks if c.name == "solvability"), None)
    if sv is None or sv.status != "FAIL" or res.solvability is None:
        return None
    return {"ids": reference_failures(res.solvability.reference),
            "source": res.solvability.source}


def spec_request_view(res: JudgeResult) -> dict[str, Any]:
    gates = []
    for g in ("E", "F"):
        r = res.fairness.result(g) if res.fairness else None
        errs = [f for f in r.findings if f.severity == "error"][:40] if r else []
        if errs:
            gates.append({"gate": g, "errors": errs})
    return {"id": res.task.id, "date": res.date, "reasons": res.reasons, "gates": gates,
            "type": "spec_error" if any("spec_error" in r for r in res.reasons) else "spec_gap"}


def _failed_spot_rows(spot: dict[str, Any]) -> list[str]:
    """The spot-check rows that failed, one line each, for the filter request."""
    rows = [r for f in spot.get("findings") or [] if f.get("code") == "TSK-A007"
            for r in (f.get("data") or {}).get("rows") or []]
    return [f"`{r['nodeid']}`: {r['verdict']} (spec_section {r['spec_section']}; table "
            f"line {r['line']})" for r in rows]
