"""`gavel task run|solvability|judge|judge-all`: thin CLI over runner, judge and fleet."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gavelkit.cli import argtypes as at
from gavelkit.cli.common import add_format, emit, parser
from gavelkit.core.errors import UsageError
from gavelkit.core.findings import Finding


def progress_printer(quiet: bool, label: str = "gavel") -> Any:
    """A progress callback on the shared one-line display (gavelkit.core.progress), or None
    when nobody watches: --quiet, stderr not a terminal, or GAVEL_PROGRESS=0."""
    from gavelkit.core.progress import Progress

    bar = Progress(label, quiet=quiet)
    if not bar.enabled:
        return None

    def show(msg: str, done: int | None = None, total: int | None = None) -> None:
        bar.update(bar.done if done is None else done, total, msg)
    show.bar = bar  # type: ignore[attr-defined]
    return show


def _end_progress(cb: Any) -> None:
    if cb is not None:
        cb.bar.close()


CONFIG_HELP = ("TOML file overriding the task tables and the judge's [tables.NAME] "
               "(default: <task>/gavel-task.toml if present); the same in every task command")


def _run_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", type=at.task_config, help=CONFIG_HELP)
    p.add_argument("--package", help="import name of the target (default: from task.json)")
    p.add_argument("--remove-path", action="append", default=[], metavar="PATH",
                   help="delete PATH from the oracle worktree before running (repeatable)")
    p.add_argument("--python", help="score with this interpreter instead of a uv environment "
                                    "built from oracle/requirements.txt (recorded in the result; "
                                    "a relative path is resolved from the current folder)")
    p.add_argument("--install", choices=["auto", "never"], default="auto",
                   help="auto: a solution folder with pyproject.toml / setup.py / setup.cfg is "
                        "built and installed with its dependencies (default); never: put the "
                        "folder on sys.path as it is")
    p.add_argument("--offline", action="store_true", help="never reach the package index")
    p.add_argument("--timeout", type=at.positive_float, default=60.0, help="per-test limit in s (default 60)")
    p.add_argument("--file-timeout", type=at.positive_float, default=900.0,
                   help="per-file wall limit in s (default 900)")
    p.add_argument("--memory-mb", type=at.positive_int, default=4096, help="address-space limit (default 4096)")
    p.add_argument("--tmp-mb", type=at.positive_int, default=1024,
                   help="size of each private tmpfs of the sandbox: /tmp, /var/tmp, HOME "
                        "(default 1024)")
    p.add_argument("--isolation", choices=["auto", "bwrap", "none"], default="auto",
                   help="auto: bubblewrap when it works here (default); bwrap: require it")
    p.add_argument("--group", choices=["auto", "file", "run"], default="auto",
                   help="auto: all files in one pytest process, and each file that process "
                        "did not finish (crash, hang) re-run alone (default); file: one process "
                        "per test file; run: one process, no re-runs")
    p.add_argument("--repeat", type=at.positive_int, default=1, metavar="K",
                   help="run K times and mark nodes whose outcome changes as flaky")


@contextlib.contextmanager
def _prestarted(a: argparse.Namespace, argv: list[str], solution: str | None,
                spec: str | None) -> Iterator[Any]:
    """The test process started before argparse (cli.task_early), else started now, so its
    pytest import overlaps the run's preparation (task.scoring.warm); None when that cannot
    help. Only the first launch uses it (--repeat rounds and re-runs start cold); it is
    ended when the command is, used or not."""
    from gavelkit.task.scoring.warm import claim, prestart

    warm = claim(argv) or prestart(a.task, solution=solution, spec=spec, install=a.install,
                                   python=a.python, isolation=a.isolation,
                                   memory_mb=a.memory_mb)
    try:
        yield warm
    finally:
        if warm is not None:
            warm.close()


def _opts(a: argparse.Namespace, solution: str, out: str, role: str, progress: Any) -> Any:
    from gavelkit.task.scoring.options import RunOptions

    if a.repeat < 1:
        raise UsageError("--repeat must be at least 1")
    return RunOptions(solution=solution, out=out, package=a.package, remove_paths=a.remove_path,
                      python=a.python, offline=a.offline, role=role, test_timeout=a.timeout,
                      file_timeout=a.file_timeout, memory_mb=a.memory_mb, tmp_mb=a.tmp_mb,
                      isolation=a.isolation,
                      repeat=a.repeat, progress=progress, group=a.group, install=a.install,
                      reference_score=getattr(a, "reference_run", None), config=a.config)


def _score_text(score: dict[str, Any]) -> str:
    from gavelkit.task.scoring.counts import count_line

    s = score["summary"]
    g = score.get("gavel", {})
    rest = ", ".join(f"{k} {v}" for k, v in s.items() if k not in ("passed", "total", "skipped")
                     and v)
    lines = [count_line(s, score.get("pass_rate_excluding_skips"))
             + (f" ({rest})" if rest else "")]
    lines += [f"  {layer}: {v.get('passed', 0)}/{v['total']}"
              for layer, v in sorted(score.get("by_layer", {}).items())]
    if g.get("classification"):
        lines.append("failure classes: " + ", ".join(f"{k} {n}" for k, n in
                                                     sorted(g["classification"].items())))
    return "\n".join([*lines, *_run_lines(g)])


def _run_lines(g: dict[str, Any]) -> list[str]:
    """How the run was made: isolation, environment, installation, pytest arguments."""
    lines = [_isolation_line(g.get("isolation", {})), _environment_line(g.get("environment", {}))]
    inst = g.get("install") or {}
    if inst.get("kind") in ("project", "spec"):
        lines.append(_install_line(inst))
    pa = g.get("pytest_args") or {}
    lines += [f"pytest_args {word}: {' '.join(d['args'])} ({d['why']})"
              for key, word in (("refused", "refused"), ("dropped", "dropped"))
              for d in pa.get(key) or []]
    rerun = (g.get("processes") or {}).get("rerun_alone")
    if rerun:
        lines.append("re-run alone after the shared process did not finish them: "
                     + ", ".join(rerun))
    return lines


def _isolation_line(iso: dict[str, Any]) -> str:
    if iso.get("active"):
        return f"isolation: active ({iso.get('mechanism', '')})"
    return f"isolation: INACTIVE - {iso.get('why_inactive')}"


def _environment_line(env: dict[str, Any]) -> str:
    if env.get("error"):
        return f"environment: NOT BUILT - {env['error']}"
    return (f"environment: {env.get('kind')} {env.get('requirements_hash', '')} "
            f"({'reused' if env.get('reused') else 'built'})")


def _install_line(inst: dict[str, Any]) -> str:
    prov = inst.get("provenance") or {}
    return (f"installed: {inst.get('spec') or 'the solution project'} with its dependencies"
            + (f"; provenance {'OK' if prov.get('ok') else 'FAILED'} - {prov.get('why')}"
               if prov else ""))


def run_parser(prog: str) -> argparse.ArgumentParser:
    p = parser(prog, "Score a solution against the task's oracle in an isolated runner; "
                     "writes OUT/score_result.json.")
    p.add_argument("task", help="task folder")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--solution", type=at.abs_path, help="solution folder (reference or candidate); a folder "
                                        "with pyproject.toml / setup.py / setup.cfg is built "
                                        "and installed with its dependencies")
    src.add_argument("--solution-package", metavar="SPEC",
                     help="install SPEC (e.g. semver==3.0.2) with its dependencies as the "
                          "solution")
    p.add_argument("--out", required=True, type=at.abs_path, help="run folder to write score_result.json into")
    p.add_argument("--role", choices=["candidate", "reference"], default="candidate")
    p.add_argument("--reference-run", help="reference score_result.json (skips it takes are "
                                           "not counted against the candidate)")
    _run_args(p)
    add_format(p)
    return p


def run_main(argv: list[str], prog: str) -> int:
    a = run_parser(prog).parse_args(argv)
    with _prestarted(a, argv, a.solution, a.solution_package) as warm:
        cb = progress_printer(a.quiet, "task run")
        opts = _opts(a, a.solution or "", a.out, a.role, cb)
        opts.package_spec = a.solution_package
        opts.warm = warm
        from gavelkit.task.scoring.runner import run_solution  # after the prestart: 35 ms

        res = run_solution(a.task, opts)
        _end_progress(cb)
    extra = {"score_result": str(res.path), "summary": res.summary,
             "pass_rate": res.pass_rate, "by_layer": res.score.get("by_layer"),
             "isolation": res.score["gavel"]["isolation"]}
    # -q: errors and the one count line (the linters' -q), not the per-layer breakdown
    text = (_score_text(res.score).split("\n", 1)[0] if a.quiet
            else _score_text(res.score) + f"\nwrote {res.path}")
    return emit(res.findings, a.format, "task run", extra=extra, text=text, quiet=a.quiet)


def solvability_parser(prog: str) -> argparse.ArgumentParser:
    p = parser(prog, "Run the reference on the oracle in the task's own environment: >= 95 % "
                     "(100 % at S3_REFERENCE_RUN), with an environment diagnosis when below.")
    p.add_argument("task", help="task folder")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--reference", type=at.abs_path, help="reference solution folder")
    g.add_argument("--reference-package", metavar="SPEC",
                   help="install SPEC (e.g. semver==3.0.2) from the index as the reference")
    p.add_argument("--out", type=at.abs_path, help="run folder (default: TASK/judge/reference_run)")
    p.add_argument("--threshold", type=at.unit_float, help="pass rate needed (default: the "
                                                             "task's [judge] solvable, 0.95; "
                                                             "solvable_at_s3, 1.0, at "
                                                    "S3_REFERENCE_RUN)")
    _run_args(p)
    add_format(p)
    return p


def solvability_main(argv: list[str], prog: str) -> int:
    a = solvability_parser(prog).parse_args(argv)
    with _prestarted(a, argv, a.reference, a.reference_package) as warm:
        cb = progress_printer(a.quiet, "task solvability")
        out = a.out or str(Path(a.task) / "judge" / "reference_run")
        opts = _opts(a, a.reference or "", out, "reference", cb)
        opts.warm = warm
        from gavelkit.task.scoring.solvability import check_solvability

        res = check_solvability(a.task, a.reference, a.reference_package, opts, a.threshold)
        _end_progress(cb)
    text = (res.text().split("\n", 1)[0] if a.quiet  # errors and the verdict line only
            else _score_text(res.run.score) + "\n" + res.text())
    return emit(res.findings, a.format, "task solvability", extra=res.to_dict(), text=text,
                quiet=a.quiet)


def judge_parser(prog: str) -> argparse.ArgumentParser:
    p = parser(prog, "Judge a scored run: preflight, anti-cheat, solvability, fairness gates, "
                     "then scores; writes judge/diagnosis_report.md, updates task.json and "
                     "moves the state.")
    p.add_argument("task", help="task folder")
    p.add_argument("--run", required=True, type=at.abs_path,
                   help="candidate run folder (with score_result.json or another scorer's "
                        "result file), or the score file itself")
    p.add_argument("--trajectory", nargs="+", default=[], metavar="FILE",
                   help="agent trajectory files for the anti-cheat scan")
    p.add_argument("--reference-run", help="reference run folder or score file "
                                           "(default: TASK/judge/reference_run, then the task's "
                                           "reference_score.json)")
    p.add_argument("--solution", type=at.abs_path, help="candidate solution folder (default: from the run)")
    p.add_argument("--forbid", action="append", default=[], help="extra forbidden path")
    p.add_argument("--spotcheck", metavar="FILE", help="the filled Gate A/C table (default: "
                                                      "TASK/judge/spotcheck.md)")
    p.add_argument("--rescore", action="store_true",
                   help="re-score the candidate first and walk the state back to S5_JUDGE "
                        "(from REOPENED_S3, S4_SETUP, S4_EVAL_RUN, S4_ANALYSIS, S4_DONE)")
    p.add_argument("--no-state", action="store_true",
                   help="do not move the pipeline state (nor task.json's status and record)")
    p.add_argument("--dry-run", action="store_true", help="write nothing")
    p.add_argument("--date", type=at.iso_date, help="date to record (default: today)")
    p.add_argument("--config", type=at.task_config, help=CONFIG_HELP)
    add_format(p)
    return p


def judge_main(argv: list[str], prog: str) -> int:
    a = judge_parser(prog).parse_args(argv)
    from gavelkit.task.judging.records import record

    res = _judged(a)
    if res.verdict == "REFUSED":
        return emit(res.findings, a.format, "task judge", extra={"judge": {
            "verdict": "REFUSED", "reasons": res.reasons}, "written": []},
            text="refused: " + "; ".join(res.reasons), quiet=a.quiet, outcome=1)
    return emit(res.findings, a.format, "task judge",
                extra={"judge": record(res), "written": res.written},
                text="\n".join(_judge_lines(res)), quiet=a.quiet,
                outcome=0 if res.verdict == "QUALIFIED" else 1)


def _judged(a: argparse.Namespace) -> Any:
    kw = {"trajectories": a.trajectory, "reference_run": a.reference_run, "forbid": a.forbid,
          "spotcheck": a.spotcheck, "config": a.config, "date": a.date,
          "solution": a.solution}
    if not a.rescore:
        from gavelkit.task.judging.judge import judge_run

        return judge_run(a.task, a.run, write=not a.dry_run, move_state=not a.no_state, **kw)
    if a.dry_run or a.no_state:
        raise UsageError("--rescore moves the state and writes the run: not with "
                         "--dry-run or --no-state")
    from gavelkit.task.judging.rejudge import rescore_and_judge

    return rescore_and_judge(a.task, a.run, **kw)


def _judge_lines(res: Any) -> list[str]:
    """The text output: verdict and reasons, the hard checks, what was written."""
    lines = _verdict_lines(res)
    ev = res.unverified if not res.scores_usable else None
    if ev is not None:
        lines.append(f"scores: UNVERIFIED evidence only, never used ({res.scores_why})")
        lines += [f"  not checked: {name}: {why}" for name, why in ev.not_checked]
        lines += _metrics_lines(ev.metrics)
    elif not res.scores_usable:
        lines.append(f"scores: not shown ({res.scores_why})")
    lines += _metrics_lines(res.metrics) if res.metrics else []
    if res.transition:
        tr = res.transition
        lines.append(f"state: -> {tr.get('to', tr.get('requested'))} "
                     + ("(written)" if tr.get("written") else
                        "(not written: " + "; ".join(tr.get("why", [])) + ")"))
    lines += [f"todo: {t}" for t in res.terminal]
    return lines + (["wrote: " + ", ".join(res.written)] if res.written else [])


def _verdict_lines(res: Any) -> list[str]:
    rate = "none" if res.reference_rate is None else f"{res.reference_rate:.1%}"
    return [f"verdict: {res.verdict}" + (f" (route: {res.route})" if res.route else "")
            + (" - not certified" if res.verdict == "PENDING" else ""),
            *[f"  {r}" for r in res.reasons],
            f"preflight: {_preflight_word(res.preflight)} - {res.preflight.reason}",
            f"anti-cheat: {res.scan.verdict}", f"reference: {rate}"]


def _preflight_word(pre: Any) -> str:
    """PASS, FAIL, or NOT RUN (no package or no code: the check could not be made)."""
    return "PASS" if pre.passed else "FAIL" if pre.ran else "NOT RUN"


def _metrics_lines(m: Any) -> list[str]:
    ig = m.integration_gap
    cd = m.to_dict()["cascade"]
    return [f"gap: atomic {ig['atomic_rate']} integration {ig['integration_e2e_rate']} "
            f"rate_gap {ig['rate_gap']}; true gap events {len(m.true_gap_events)}",
            f"cascade: {cd['failures']} failures in {cd['root_causes']} root causes"]


def judge_all_main(argv: list[str], prog: str) -> int:
    from gavelkit.task.judging.fleet import FleetOptions, judge_all, render_table

    p = parser(prog, "Score (where needed) and judge every task under a folder, in parallel "
                     "processes or on a Dask cluster.")
    p.add_argument("tasks", help="folder holding task folders")
    p.add_argument("--jobs", "-j", type=at.positive_int, default=1, help="parallel tasks (default 1)")
    p.add_argument("--executor", choices=["process", "dask"], default="process")
    p.add_argument("--scheduler", help="Dask scheduler address (tcp://host:8786); default: "
                                       "a local cluster with --jobs workers")
    p.add_argument("--rescore", action="store_true", help="re-run solutions already scored")
    p.add_argument("--no-state", action="store_true", help="do not move pipeline states")
    p.add_argument("--isolation", choices=["auto", "bwrap", "none"], default="auto")
    p.add_argument("--offline", action="store_true")
    p.add_argument("--config", type=at.task_config, help=CONFIG_HELP + " (for every task)")
    add_format(p)
    a = p.parse_args(argv)
    if a.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if a.scheduler and a.executor != "dask":
        raise UsageError("--scheduler needs --executor dask")
    tasks = Path(a.tasks)
    if not tasks.is_dir():
        from gavelkit.core.errors import InputError

        raise InputError(a.tasks, "not a folder")
    cb = progress_printer(a.quiet, "judge-all")
    opts = FleetOptions(jobs=a.jobs, executor=a.executor, scheduler=a.scheduler,
                        rescore=a.rescore, move_state=not a.no_state, isolation=a.isolation,
                        offline=a.offline, config=a.config)
    rows = judge_all(tasks, opts, progress=cb)
    _end_progress(cb)
    findings = [Finding("TSK-J010", "error", f"{r['task']}: {r['error']}", r["path"], 0, 0)
                for r in rows if r.get("error")]
    if not rows:
        findings.append(Finding("TSK-J010", "error", "no task folders found (a task folder has "
                                "kept_nodeids.txt or task.json)", str(tasks), 0, 0))
    done = ("QUALIFIED",)  # or already QUALIFIED and left alone (not at S5_JUDGE)
    blocked = any(r.get("verdict") not in done and not (
        r.get("verdict") == "NOT JUDGED" and r.get("state") in done) for r in rows)
    return emit(findings, a.format, "task judge-all", extra={"tasks": rows},
                text=render_table(rows), quiet=a.quiet, outcome=1 if blocked else 0)


SCHEMAS = {"judge-result": "gavelkit.task.judging.schema:judge_result_schema"}


def schema_main(argv: list[str], prog: str) -> int:
    """`gavel task schema judge-result`: the versioned JSON Schema of judge_result.json."""
    p = parser(prog, "Print the JSON Schema of a task-judge record (judge-result: "
                     "judge/judge_result.json), for validators and editors.")
    p.add_argument("kind", choices=sorted(SCHEMAS))
    p.add_argument("--format", choices=["json", "text"], default="json",
                   help="json (default, for validators) or text (the same schema as YAML)")
    a = p.parse_args(argv)
    import importlib

    mod, _, fn = SCHEMAS[a.kind].partition(":")
    schema = getattr(importlib.import_module(mod), fn)()
    if a.format == "text":
        import yaml

        print(yaml.safe_dump(schema, sort_keys=False, allow_unicode=True), end="")
    else:
        import json

        print(json.dumps(schema, indent=2))
    return 0
