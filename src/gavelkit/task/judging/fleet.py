"""`judge-all`: score what is missing and judge every task of a folder, in parallel.

A task folder holds its oracle files and, by convention, `reference/` (the
reference solution) and `candidate-runs/<run>/solution/` (or `output/`). For
each task the job (1) runs solvability when `judge/reference_run/` has no score
yet, (2) scores each candidate solution that has no `score_result.json` yet,
(3) judges the newest candidate run. Jobs are plain functions of a path, so the
same work runs in a process pool (`--jobs N`) or on a Dask distributed cluster
(`--executor dask [--scheduler ADDRESS]`; the `dask` extra). The work inside a
job is subprocess + sandbox, so a pool of N slots is what the measurements
favour (ecosystem-measurements §8).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(slots=True)
class FleetOptions:
    jobs: int = 1
    executor: str = "process"
    scheduler: str | None = None
    rescore: bool = False
    move_state: bool = True
    isolation: str = "auto"
    offline: bool = False
    config: Any = None  # the command's --config (task.config.ConfigFile), for every task


def find_tasks(root: Path) -> list[Path]:
    out = []
    for p in sorted(root.iterdir()):
        if p.is_dir() and ((p / "kept_nodeids.txt").is_file() or (p / "task.json").is_file()):
            out.append(p)
    if not out and ((root / "kept_nodeids.txt").is_file() or (root / "task.json").is_file()):
        out.append(root)
    return out


def candidate_runs(task: Path) -> list[tuple[Path, Path | None]]:
    """(run folder, solution folder or None) for each candidate run, oldest first."""
    base = task / "candidate-runs"
    if not base.is_dir():
        return []
    out = []
    for run in sorted((p for p in base.iterdir() if p.is_dir()), key=lambda p: p.name):
        sol = next((run / n for n in ("solution", "output") if (run / n).is_dir()), None)
        out.append((run, sol))
    return out


def clear_crash_litter(task: Path) -> list[str]:
    """Temporary files of an atomic write that a killed attempt left (`.NAME.XXXX.tmp`).

    A job can be killed mid-write (a Dask worker lost, a pool process killed); the
    scheduler then runs it again elsewhere. The rename that finishes an atomic write never
    happened, so the target is intact, but the temp file stays: remove it before the retry.
    """
    import re

    out = []
    for p in task.rglob(".*.tmp"):
        if p.is_file() and re.fullmatch(r"\..+\.[A-Za-z0-9_]{6,}\.tmp", p.name):
            p.unlink(missing_ok=True)
            out.append(str(p.relative_to(task)))
    return out


def run_trajectories(task: Path, run: Path) -> list[str]:
    """The run's trajectory files by the configured globs ([fleet] trajectory_globs), never
    from inside its solution/ (the candidate's own files are not its log)."""
    from gavelkit.task.config import load_config

    out: list[str] = []
    for pat in load_config(task)["fleet"]["trajectory_globs"]:
        for p in sorted(run.glob(pat)):
            if p.is_file() and "solution" not in p.relative_to(run).parts and str(p) not in out:
                out.append(str(p))
    return out


def _score_runs(task: Path, opts: FleetOptions) -> list[Path]:
    """Score the reference and every candidate run that needs it; the scored runs."""
    from gavelkit.task.scoring.options import RunOptions
    from gavelkit.task.scoring.runner import run_solution

    ref_out = task / "judge" / "reference_run"
    ref_sol = task / "reference"
    if ref_sol.is_dir() and (opts.rescore or not (ref_out / "score_result.json").is_file()):
        run_solution(task, RunOptions(solution=ref_sol, out=ref_out, role="reference",
                                      isolation=opts.isolation, offline=opts.offline,
                                      config=opts.config))
    runs = candidate_runs(task)
    for run, sol in runs:
        if sol is not None and (opts.rescore or not (run / "score_result.json").is_file()):
            run_solution(task, RunOptions(solution=sol, out=run, role="candidate",
                                          isolation=opts.isolation, offline=opts.offline,
                                          config=opts.config))
    return [r for r, _ in runs if (r / "score_result.json").is_file()]


def _judged_row(res: Any, run: Path) -> dict[str, Any]:
    if str(res.verdict) == "REFUSED":  # e.g. already QUALIFIED: not at the judge's entry
        return {"run": run.name, "verdict": "NOT JUDGED", "state": res.task.state,
                "recorded": res.task.task_json.status if res.task.task_json else None,
                "not_judged": res.reasons[0] if res.reasons else ""}
    s = res.score.summary if res.score else {}
    m = res.metrics
    return {"run": run.name, "verdict": str(res.verdict), "route": res.route,
            "passed": s.get("passed"), "total": s.get("total"), "skipped": s.get("skipped", 0),
            "pass_rate": res.score.pass_rate if res.score else None,
            "reference_rate": res.reference_rate,
            "rate_gap": m.integration_gap["rate_gap"] if m else None,
            "root_causes": m.root_failures if m else None, "anti_cheat": res.scan.verdict,
            "blocking": [c.name for c in res.checks if c.blocks]}


def judge_one(task_dir: str, opts: FleetOptions) -> dict[str, Any]:
    """Everything one task needs; never raises (errors become the row's `error`)."""
    from gavelkit.core.errors import InputError, UsageError
    from gavelkit.task.judging.judge import judge_run

    t0 = time.monotonic()
    task = Path(task_dir)
    row: dict[str, Any] = {"task": task.name, "path": str(task)}
    try:
        litter = clear_crash_litter(task)
        if litter:
            row["cleared"] = litter
        scored = _score_runs(task, opts)
        if not scored:
            row["error"] = "no scored candidate run (candidate-runs/<run>/solution/)"
            return row
        run = scored[-1]
        row.update(_judged_row(judge_run(task, run, move_state=opts.move_state, config=opts.config,
                                         trajectories=run_trajectories(task, run)), run))
    except (InputError, UsageError, OSError) as exc:
        row["error"] = str(exc)
    row["seconds"] = round(time.monotonic() - t0, 2)
    return row


def judge_all(root: Path, opts: FleetOptions, progress: Any = None) -> list[dict[str, Any]]:
    tasks = [str(p) for p in find_tasks(root)]
    if not tasks:
        return []
    if opts.executor == "dask":
        return _dask(tasks, opts, progress)
    rows = _serial(tasks, opts, progress) if opts.jobs == 1 else _pool(tasks, opts, progress)
    return [rows[t] for t in tasks]


def _said(row: dict[str, Any]) -> Any:
    """What a finished row says: its verdict, else its error."""
    return row.get("verdict", row.get("error", ""))


def _serial(tasks: list[str], opts: FleetOptions, progress: Any) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for i, t in enumerate(tasks, 1):
        if progress:
            progress(f"judging {Path(t).name}", i - 1, len(tasks))
        rows[t] = judge_one(t, opts)
        if progress:
            progress(f"{Path(t).name}: {_said(rows[t])}", i, len(tasks))
    return rows


def _pool(tasks: list[str], opts: FleetOptions, progress: Any) -> dict[str, dict[str, Any]]:
    """judge_one in opts.jobs spawned worker processes; a crashed worker is an error row."""
    import concurrent.futures as cf
    import multiprocessing as mp

    rows: dict[str, dict[str, Any]] = {}
    ctx = mp.get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=opts.jobs, mp_context=ctx) as pool:
        futs = {pool.submit(judge_one, t, opts): t for t in tasks}
        for n, fut in enumerate(cf.as_completed(futs), 1):
            t = futs[fut]
            try:
                rows[t] = fut.result()
            except Exception as exc:  # a crashed worker is an infrastructure error
                rows[t] = {"task": Path(t).name, "path": t,
                           "error": f"worker failed: {type(exc).__name__}: {exc}"}
            if progress:
                progress(f"{Path(t).name}: {_said(rows[t])}", n, len(tasks))
    return rows


def _dask(tasks: list[str], opts: FleetOptions, progress: Any) -> list[dict[str, Any]]:
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError as exc:
        from gavelkit.core.errors import UsageError

        raise UsageError("--executor dask needs the dask extra: pip install "
                         f"'gavelkit[dask]' ({exc})") from None
    cluster = None
    if opts.scheduler:
        client = Client(opts.scheduler)
    else:
        cluster = LocalCluster(n_workers=opts.jobs, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    rows: dict[str, dict[str, Any]] = {}
    try:
        futs = {client.submit(judge_one, t, opts, pure=False): t for t in tasks}
        for n, fut in enumerate(as_completed(list(futs)), 1):
            t = futs[fut]
            try:
                rows[t] = fut.result()
            except Exception as exc:
                rows[t] = {"task": Path(t).name, "path": t,
                           "error": f"dask worker failed: {type(exc).__name__}: {exc}"}
            if progress:
                progress(f"{Path(t).name}: {rows[t].get('verdict', '')}", n, len(tasks))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return [rows[t] for t in tasks]


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.1f} %"


def _table_row(r: dict[str, Any]) -> str:
    if r.get("error"):
        return f"| {r['task']} | ERROR | {r['error'][:60]} | | | | | {r.get('seconds', '')} |"
    if r.get("verdict") == "NOT JUDGED":
        return (f"| {r['task']} | NOT JUDGED (state {r.get('state')}) | "
                f"{str(r.get('not_judged', ''))[:80]} | | | | | {r.get('seconds', '')} |")
    verdict = r["verdict"] + (f" ({r['route']})" if r.get("route") else "")
    if r.get("verdict") == "PENDING" and r.get("blocking"):
        verdict += f" [{', '.join(r['blocking'])}]"
    sk = f" ({r['skipped']} skipped)" if r.get("skipped") else ""
    pr = f" {_pct(r.get('pass_rate'))}" if r.get("pass_rate") is not None else ""
    return (f"| {r['task']} | {verdict} | {r['passed']}/{r['total']}{sk}{pr} | "
            f"{_pct(r.get('reference_rate'))} | {r.get('rate_gap')} | {r.get('root_causes')} | "
            f"{r.get('anti_cheat')} | {r.get('seconds')} |")


def render_table(rows: list[dict[str, Any]]) -> str:
    head = ["task", "verdict", "score (rate of non-skipped)", "reference", "rate_gap", "roots",
            "anti-cheat", "s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += [_table_row(r) for r in rows]
    count = {v: sum(1 for r in rows if r.get("verdict") == v)
             for v in ("QUALIFIED", "PENDING", "BROKEN", "CHEAT_DETECTED", "NOT JUDGED")}
    lines.append(f"\n{len(rows)} task(s): {count['QUALIFIED']} QUALIFIED, {count['PENDING']} "
                 f"PENDING, {count['BROKEN']} BROKEN, {count['CHEAT_DETECTED']} CHEAT_DETECTED, "
                 f"{count['NOT JUDGED']} not judged (not at S5_JUDGE), "
                 f"{sum(1 for r in rows if r.get('error'))} error(s)")
    return "\n".join(lines)
