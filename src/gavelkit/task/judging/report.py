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

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core import htmlreport as hr
from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.task.judging.report_charts import cluster_chart, fleet_chart, heatmap, layer_chart
from gavelkit.task.judging.report_data import collect

TASK_MARKERS = ("spec.md", "task.json", "PIPELINE_STATE.md", "spec_test_map.md",
                "MANIFEST.json", "filter/spec_test_map.md")
@dataclass
class Report:
    data: dict[str, Any]
    html: str = ""
    findings: list[Finding] = field(default_factory=list)


# ----------------------------------------------------------------------------- scores

def build_task(task_dir: str | Path, config: str | None = None, html: bool = True,
               progress: Callable[[int, int, str], None] | None = None) -> Report:
    """One task's report (data only with html=False: the fleet table needs no charts).
    Raises InputError when the folder does not exist. `progress(done, total, stage)`
    is told each stage."""
    from gavelkit import __version__
    from gavelkit.task.formats.load import load_task

    step = progress or (lambda done, total, stage: None)
    step(0, 2, "reading files and running gates")
    task = load_task(task_dir, config)
    problems: list[Finding] = []
    d = collect(task, problems)
    # what the command reports: the readers' findings and the files the report could not
    # read (unusable: exit 2, and the page says "could not read" first)
    findings = [*task.findings, *problems]
    if not html:
        return Report(d, "", findings)
    step(1, 2, "charts")
    charts = {
        "layers": layer_chart(d) if any(v["rate"] is not None for v in d["layers"].values())
        else None,
        "heatmap": heatmap(d["coverage"]) if d["coverage"]["sections"] else None,
        "clusters": cluster_chart(d["crash_clusters"]) if d["crash_clusters"] else None,
    }
    page = hr.render("task_report.html.j2", d=d, charts=charts, version=__version__)
    step(2, 2, "done")
    return Report(d, page, findings)


def looks_like_task(p: Path) -> bool:
    return p.is_dir() and any((p / m).is_file() for m in TASK_MARKERS)


def find_tasks(root: Path) -> list[Path]:
    """Task folders under root: its children that look like tasks, else its grandchildren
    (a repo root with tasks/ and wip/), else root itself."""
    kids = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    found = [p for p in kids if looks_like_task(p)] or _grandchildren(kids)
    if not found and looks_like_task(root):
        found = [root]
    return found


def _grandchildren(kids: list[Path]) -> list[Path]:
    return [g for k in kids for g in sorted(k.iterdir()) if looks_like_task(g)]


def _row(d: dict[str, Any], link: str | None) -> dict[str, Any]:
    fv = d["fleet_verdict"]
    return {"id": d["id"], "state": d["state"] or "", "verdict": d["verdict"] or "",
            "pass_rate": d["candidate"]["pass_rate"], "reference": d["reference"]["pass_rate"],
            "atomic": d["gap"]["atomic_rate"], "int_e2e": d["gap"]["integration_e2e_rate"],
            "gap": d["gap"]["rate_gap"], "gates": {g: v["verdict"] for g, v in d["gates"].items()},
            **_uncovered(d["coverage"]["sections"]),
            "clusters": len(d["judge_clusters"]) or len(d["crash_clusters"]),
            "labels": d["labels"], "link": link,
            "computed": fv["computed"], "route": fv["route"], "recorded": fv["recorded"],
            "recorded_source": fv["recorded_source"], "disagrees": fv["disagrees"],
            "blocking": fv["blocking"], **_error_counts(d["gates"])}


def _uncovered(secs: list[dict[str, Any]]) -> dict[str, int]:
    return {"uncovered": sum(1 for s in secs if s["status"] == "uncovered"),
            "uncovered_core": sum(1 for s in secs if s["status"] == "uncovered" and s["core"])}


def _error_counts(gates: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {"errors": sum(g["errors"] for g in gates.values()),
            "by_code": {c: n for g in gates.values() for c, n in g["by_code"].items()}}


def top_causes(rows: list[dict[str, Any]], top: int = 10) -> list[dict[str, Any]]:
    """Error codes by the number of tasks they hit, with those tasks (what to fix first)."""
    from gavelkit.core.rules import catalog

    hit: dict[str, list[str]] = {}
    count: dict[str, int] = {}
    for r in rows:
        for code, n in r["by_code"].items():
            hit.setdefault(code, []).append(r["id"])
            count[code] = count.get(code, 0) + n
    cat = catalog()
    out = [{"code": c, "title": cat[c].title if c in cat else "", "tasks": sorted(ts),
            "findings": count[c]} for c, ts in hit.items()]
    return sorted(out, key=lambda x: (-len(x["tasks"]), -x["findings"], x["code"]))[:top]


def blocks_most(row: dict[str, Any]) -> tuple[int, int, str]:
    """Sort key: most blocking checks and error findings first."""
    return (-len(row["blocking"]), -row["errors"], row["id"])


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
    unread = [f for f in rep.findings if f.unusable]
    note = Finding("RPT-T001", "warning", f"could not read {len(unread)} input(s) of this task "
                   f"(first: {unread[0].path}: {unread[0].message}); its row shows only the rest",
                   str(folder)) if unread else None
    return folder.name, _row(rep.data, link), note


def _fleet_rows(folders: list[Path], config: str | None, reports_dir: Path | None,
                base: Path | None, jobs: int,
                wrap: Callable[[Iterable[Any], int], Iterable[Any]]) -> list[Any]:
    """fleet_one over every folder, in worker processes when jobs > 1, in folder order."""
    if jobs > 1 and len(folders) > 1:
        from concurrent.futures import ProcessPoolExecutor
        from functools import partial

        with ProcessPoolExecutor(max_workers=min(jobs, len(folders))) as pool:
            results = pool.map(partial(fleet_one, config=config, reports_dir=reports_dir,
                                       base=base), folders)
            return list(wrap(results, len(folders)))
    return list(wrap((fleet_one(f, config, reports_dir, base) for f in folders), len(folders)))


def _fleet_data(rows: list[dict[str, Any]], findings: list[Finding]) -> dict[str, Any]:
    return {"tasks": rows, "causes": top_causes(rows),
            "disagree": sum(1 for r in rows if r["disagrees"]),
            "errors": sum(r["errors"] for r in rows),
            "states": sorted({r["state"] for r in rows if r["state"]}),
            "verdicts": sorted({r["verdict"] for r in rows if r["verdict"]}),
            "computed": sorted({r["computed"] for r in rows}),
            "left_out": [f.to_dict() for f in findings]}


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
    done = _fleet_rows(folders, config, reports_dir, out.parent if out is not None else None,
                       jobs, wrap or (lambda it, n: it))
    rows = [row for _, row, _f in done if row is not None]
    findings = [f for _, _r, f in done if f is not None]
    rows.sort(key=blocks_most)
    data = _fleet_data(rows, findings)
    chart = fleet_chart(rows) if any(r["gap"] is not None for r in rows) else None
    html = hr.render("fleet_report.html.j2", d=data, chart=chart, version=__version__)
    return Report(data, html, findings)
