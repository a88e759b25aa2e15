"""The lead's HTML report of one award run: where it stands and why the panel failed.

Everything comes from `budget.run_status` (the same numbers as `gavel award status`):
the phase timeline with each gate's loops and verdicts, the open issues by severity
and id (stalled ids marked), the budgets against their caps, every panel round per
seat and criterion drawn against the target's threshold and floor, the evidence
conflicts (adjudicated or open), PDF QA of paper/solution.pdf with its contact sheet
when the PDF QA commands are available, and the one next action. The thresholds are
drawn here only: this report is lead-side and is never part of a seat's brief.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.award.panel.aggregate import PanelResult
from gavelkit.award.runs.budget import RoundInfo, RunStatus, budgets, run_status
from gavelkit.award.runs.runfiles import CardFile
from gavelkit.core import htmlreport as hr
from gavelkit.core.findings import Finding

PDF_NAME = ("paper", "solution.pdf")


@dataclass
class AwardReport:
    status: RunStatus
    data: dict[str, Any]
    html: str = ""
    findings: list[Finding] = field(default_factory=list)


# ----------------------------------------------------------------------------- data

def _issues(st: RunStatus) -> list[dict[str, Any]]:
    """Issues of the latest gate of each phase (what is still open), worst first."""
    out = []
    for ph, info in sorted(st.phases.items()):
        last = info.loops[-1]
        for o in [*last.open, *last.other]:
            out.append({"phase": ph, "loop": last.loop, "id": o.id, "severity": o.severity,
                        "summary": o.summary, "owner": o.owner, "accepted": o.accepted,
                        "stalled": o.id in info.stalled,
                        "stalled_loops": info.stalled.get(o.id, []), "path": last.path})
    out.sort(key=lambda r: (hr.severity_rank(r["severity"]), r["id"], r["phase"]))
    return out


def _stalled(st: RunStatus) -> list[dict[str, Any]]:
    out = []
    for ph, info in sorted(st.phases.items()):
        last_ids = {o.id for o in info.loops[-1].open}
        for sid, loops in info.stalled.items():
            out.append({"phase": ph, "id": sid, "loops": loops, "still_open": sid in last_ids})
    return out


def _budgets(st: RunStatus) -> list[dict[str, Any]]:
    caps = budgets()
    rows = [{"name": "fix loops (whole run)", "used": st.fix_loops_used,
             "cap": caps.run_fix_loops},
            {"name": "panel rounds", "used": len(st.rounds), "cap": caps.panel_rounds}]
    for ph, info in sorted(st.phases.items()):
        rows.append({"name": f"phase {ph} evaluations", "used": len(info.loops),
                     "cap": caps.phase_fix_loops + 1})
    return rows


def decisive(x: float | None, bar: float | None) -> str:
    """A number with enough digits that it reads on the right side of `bar`."""
    from gavelkit.award.blocks.checks import fmt_vs

    return "n/a" if x is None else fmt_vs(x, bar)


def _round(r: RoundInfo) -> dict[str, Any]:
    bar = r.panel.target.threshold if r.panel else None
    seats = {s: _seat(cf, r.round, bar) for s, cf in sorted(r.seats.items())}
    crits: list[str] = []
    for v in seats.values():
        crits += [c for c in v["criteria"] if c not in crits]
    return {"round": r.round, "criteria": crits, "kind": r.kind, "redispatched": r.redispatched,
            "seats": seats, "min_total": r.min_total, "min_seat": r.min_seat,
            "min_total_text": decisive(r.min_total, bar),
            "improved": r.improved, **_panel_verdict(r.panel)}


def _seat(cf: CardFile, round_no: int, bar: float | None) -> dict[str, Any]:
    """One seat's card in a round (a card that did not parse: its path and validity)."""
    card = cf.card
    if card is None:
        return {"path": cf.path, "valid": cf.valid, "criteria": {}, "total": None,
                "total_text": decisive(None, bar), "declared_text": decisive(None, bar),
                "declared": None, "tier": None, "round": round_no}
    return {"path": cf.path, "valid": cf.valid, "criteria": dict(card.criteria),
            "total": card.computed_total, "total_text": decisive(card.computed_total, bar),
            "declared_text": decisive(card.declared_total, bar),
            "declared": card.declared_total, "tier": card.tier_token, "round": card.round}


def _panel_verdict(p: PanelResult | None) -> dict[str, Any]:
    if p is None:
        return {"result": "not evaluated", "failed": [], "conflicts": [], "threshold": None,
                "floor": None}
    return {"result": "PASS" if p.passed else "FAIL", "failed": list(p.failed),
            "conflicts": [c.to_dict() for c in p.conflicts], "threshold": p.target.threshold,
            "floor": p.target.floor}


def _conflicts(rounds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for i, r in enumerate(rounds):
        nxt = rounds[i + 1] if i + 1 < len(rounds) else None
        for c in r["conflicts"]:
            later = None
            if nxt is not None and nxt["redispatched"]:
                again = any(x["criterion"] == c["criterion"] for x in nxt["conflicts"])
                later = (f"persisted in round {nxt['round']}" if again else
                         f"resolved by re-dispatching seat {nxt['redispatched']} "
                         f"(round {nxt['round']})")
            out.append({"round": r["round"], **c,
                        "state": ("adjudicated: " + str(c["adjudicated"])) if c["adjudicated"]
                        else (later or "OPEN")})
    return out


def _memo_row(m: dict[str, Any]) -> dict[str, Any]:
    dec = m.get("decision") or {}
    return {"path": m["path"], "phase": m["phase"], "adjudications": m["adjudications"],
            "stopped_at": m.get("stopped_at"),
            "choice": dec.get("choice"), "by": dec.get("by"), "rationale": dec.get("rationale")}


def collect(st: RunStatus) -> dict[str, Any]:
    """The report's data as plain JSON-able values (also printed by --format json)."""
    from gavelkit.award.runs.status_render import to_dict

    rounds = [_round(r) for r in st.rounds]
    a = st.action
    return {
        "run": str(st.run), "run_id": st.run.name,
        "target": ({"tier": st.target.name, "threshold": st.target.threshold,
                    "floor": st.target.floor, "source": st.target_source}
                   if st.target else None),
        "status": to_dict(st),
        "issues": _issues(st),
        "stalled": _stalled(st),
        "budgets": _budgets(st),
        "rounds": rounds,
        "conflicts": _conflicts(rounds),
        "next_action": {"action": a.kind, "phase": a.phase, "reason": a.reason,
                        "items": list(a.items), "may_continue": a.may_continue},
        "decisions": [d.to_dict() for d in st.decisions],
        "memos": [_memo_row(m) for m in st.memos],
        "findings": [f.to_dict() for f in st.findings if f.severity != "info"],
    }


# ----------------------------------------------------------------------------- PDF QA

def pdf_qa(run: Path, dpi: int = 30) -> dict[str, Any]:
    """PDF QA of paper/solution.pdf with its contact sheet (the same function as
    `gavel award contact-sheet`), or why it was not run."""
    from gavelkit.award.pdf.framed import framed_sheet
    from gavelkit.core.errors import InputError

    pdf = run.joinpath(*PDF_NAME)
    if not os.path.lexists(pdf):  # a FIFO, folder or broken link is reported, not "absent"
        return {"ran": False, "reason": f"no compiled paper at {'/'.join(PDF_NAME)}"}
    out: dict[str, Any] = {"ran": True, "pdf": str(pdf), "findings": [], "sheet": None}
    with tempfile.TemporaryDirectory(prefix="gavel-report-") as tmp:
        png = Path(tmp) / "contact-sheet.png"
        try:
            fs = framed_sheet(str(pdf), str(png), dpi=dpi, qa=True, anonymous=True)
        except InputError as exc:
            return {"ran": False, "reason": f"pdf QA could not read the paper: {exc}",
                    "unread": exc.to_finding().to_dict()}
        except OSError as exc:
            return {"ran": False, "reason": f"contact sheet failed: {exc.strerror or exc}"}
        if png.is_file():
            from gavelkit.core.safeio import read_input

            out["sheet"] = hr.png_data_uri(read_input(png, limit=64 << 20))
    out["findings"] = [f.to_dict() for f in fs.qa.findings] if fs.qa else []
    out["summary"] = {"pages": fs.sheet.pages,
                      "framed": {str(k): sorted(v) for k, v in sorted(fs.flags.items())}}
    return out


# ----------------------------------------------------------------------------- charts

def _verdict_color(v: str | None) -> str:
    return hr.COLORS["pass"] if v == "pass" else hr.COLORS["fail"] if v == "fail" else \
        hr.COLORS["none"]


@hr.styled
def timeline_chart(st: RunStatus) -> Any:
    caps = budgets()
    phases = sorted(st.phases)
    evals = max([caps.phase_fix_loops + 1]
                + [lp.loop + 1 for info in st.phases.values() for lp in info.loops])
    fig = hr.figure(7.5, 0.45 * max(len(phases), 1) + 1.1)
    ax = fig.subplots()
    for row, ph in enumerate(phases):
        info = st.phases[ph]
        for lp in info.loops:
            stalled = any(lp.loop in loops for loops in info.stalled.values())
            ax.barh(row, 0.92, left=lp.loop - 0.46, height=0.7, color=_verdict_color(lp.verdict),
                    edgecolor="#ef6c00" if stalled else "white", linewidth=3 if stalled else 1,
                    hatch="//" if stalled else None)
            label = f"{lp.verdict or '?'} · {lp.count} open"
            ax.text(lp.loop, row, label, ha="center", va="center", color="white",
                    fontsize=8, fontweight="bold")
    ax.set_yticks(range(len(phases)), [f"phase {p}" for p in phases])
    ax.set_xticks(range(evals), [f"loop {k}" for k in range(evals)])
    ax.set_xlim(-0.55, evals - 0.45)
    ax.set_ylim(len(phases) - 0.5, -0.5)
    ax.set_title("Gate verdict per phase and loop (open blocker+high; hatched = stalled id)",
                 fontsize=9, loc="left")
    return hr.svg(fig, "phase timeline")


@hr.styled
def budget_chart(rows: list[dict[str, Any]]) -> Any:
    fig = hr.figure(7.5, 0.32 * len(rows) + 0.9)
    ax = fig.subplots()
    names = [r["name"] for r in rows]
    ax.barh(names, [r["cap"] for r in rows], color="#e0e4ea", height=0.6, label="cap")
    colors = [hr.COLORS["fail"] if r["used"] > r["cap"] else
              hr.COLORS["warn"] if r["used"] == r["cap"] else hr.COLORS["pass"] for r in rows]
    ax.barh(names, [r["used"] for r in rows], color=colors, height=0.6, label="used")
    for i, r in enumerate(rows):
        ax.text(max(r["used"], r["cap"]) + 0.1, i, f"{r['used']}/{r['cap']}", va="center",
                fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, max(max(r["cap"], r["used"]) for r in rows) + 1.2)
    ax.set_title("Budgets: used against cap", fontsize=9, loc="left")
    ax.legend(loc="lower right", fontsize=7, frameon=False)
    return hr.svg(fig, "budgets")


@hr.styled
def panel_chart(rnd: dict[str, Any]) -> Any:
    """Criteria per seat as grouped bars with the floor; seat totals with the threshold."""
    seats = sorted(rnd["seats"])
    crits = rnd["criteria"]
    conflicted = {c["criterion"] for c in rnd["conflicts"]}
    fig = hr.figure(9.5, 3.6)
    ax, tx = fig.subplots(1, 2, width_ratios=[max(len(crits), 1), 2.2])
    width = 0.8 / max(len(seats), 1)
    for k, s in enumerate(seats):
        xs, ys = [], []
        for i, c in enumerate(crits):
            v = rnd["seats"][s]["criteria"].get(c)
            if v is not None:
                xs.append(i - 0.4 + width * (k + 0.5))
                ys.append(v)
        ax.bar(xs, ys, width=width * 0.95, color=hr.COLORS["seat"][k % 4], label=f"seat {s}")
    if rnd["floor"] is not None:
        ax.axhline(rnd["floor"], color=hr.COLORS["fail"], linestyle="--", linewidth=1.2,
                   label=f"floor {hr.num(rnd['floor'])}")
    labels = [f"{c} ⚠" if c in conflicted else c for c in crits]
    ax.set_xticks(range(len(crits)), labels, rotation=30, ha="right")
    ax.set_ylim(0, 100)
    ax.set_ylabel("criterion score")
    ax.set_title(f"Round {rnd['round']}: criterion scores per seat (⚠ = evidence conflict)",
                 fontsize=9, loc="left")
    totals = [rnd["seats"][s]["total"] or 0 for s in seats]
    tx.bar(seats, totals, color=[hr.COLORS["seat"][k % 4] for k in range(len(seats))])
    for i, v in enumerate(totals):
        tx.text(i, v - 3, decisive(v, rnd["threshold"]), ha="center", va="top", fontsize=8, color="white",
                fontweight="bold")
    if rnd["threshold"] is not None:
        tx.axhline(rnd["threshold"], color="#111", linestyle=":", linewidth=1.5,
                   label=f"threshold {hr.num(rnd['threshold'])}")
    tx.set_ylim(0, 100)
    tx.set_title(f"totals: {rnd['result']}", fontsize=9, loc="left")
    fig.legend(*_merged_legend(ax, tx), loc="outside upper right", ncols=6, fontsize=8,
               frameon=False)
    return hr.svg(fig, f"panel round {rnd['round']}")


def _merged_legend(*axes: Any) -> tuple[list[Any], list[str]]:
    handles: list[Any] = []
    labels: list[str] = []
    for a in axes:
        h, lab = a.get_legend_handles_labels()
        handles += h
        labels += lab
    return handles, labels


# ----------------------------------------------------------------------------- build

def build(run: str | Path, target: str | None = None, pdfqa: bool = True,
          config: str | None = None,
          progress: Callable[[int, int, str], None] | None = None) -> AwardReport:
    """Status, data and the HTML of the report. Raises UsageError for a missing run
    folder or an unknown --target (exit 2 at the CLI). `progress(done, total, stage)`
    is told each stage (PDF QA and the charts can take seconds on a big run)."""
    from gavelkit import __version__
    from gavelkit.award.tables import load_tables

    step = progress or (lambda done, total, stage: None)
    step(0, 3, "status")
    st = run_status(Path(run), target, load_tables(config))
    data = collect(st)
    step(1, 3, "PDF QA")
    data["pdfqa"] = pdf_qa(st.run) if pdfqa else {"ran": False, "reason": "skipped (--no-pdfqa)"}
    findings = list(st.findings)
    bad_pdf = data["pdfqa"].get("unread")
    if bad_pdf:
        findings.append(Finding(bad_pdf["code"], "error", bad_pdf["message"], bad_pdf["path"],
                                bad_pdf.get("line", 0), bad_pdf.get("col", 0), unusable=True))
    # the page names first what it could not read: nothing of it is certified
    data["unread"] = [{"path": f.path, "line": f.line, "message": f.message, "code": f.code}
                      for f in findings if f.unusable]
    step(2, 3, "charts")
    charts: dict[str, Any] = {
        "timeline": timeline_chart(st) if st.phases else None,
        "budgets": budget_chart(data["budgets"]),
        "rounds": {r["round"]: panel_chart(r) for r in data["rounds"] if r["seats"]},
    }
    html = hr.render("award_report.html.j2", d=data, charts=charts, version=__version__)
    step(3, 3, "done")
    return AwardReport(st, data, html, findings)
