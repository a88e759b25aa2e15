"""Score a solution (reference or candidate) against a task's oracle, isolated.

    res = run_solution("tasks/foo-001", RunOptions(solution="runs/x/output", out="runs/x/score"))
    res.score      # the score_result.json dict (public harness fields + ours)
    res.findings   # TSK-X findings: planted files, tampering, isolation, denominator

The pieces (task-judge.md §4, §5.2): `worktree` (expected node ids, private oracle and
solution copies, planted files), `envbuild` + `install` (the task's uv environment; a
solution that is a Python project, or a `--reference-package` spec, is built and
installed into a derived environment with its dependencies, and the imported code is
proven to be the solution's build), `pytestargs` (the oracle's pytest_args parsed and
vetted), `sandbox` (one pytest process with our authenticated result plugin, limits and
bubblewrap), `reconcile` (outcomes against the expected ids, classification).

Process layout (`group`): "auto" (default) runs all test files in one pytest process and
re-runs, one process per file, only the files whose results that process did not deliver
(it crashed, hung or was killed), so a crash in one file never sinks the others; "file"
always uses one process per file; "run" uses one process and no re-runs.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import sys
import threading
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.task.formats.load import load_task
from gavelkit.task.formats.nodeids import file_of
from gavelkit.task.scoring.options import RunOptions, RunResult
from gavelkit.task.scoring.results import _combined, assemble
from gavelkit.task.scoring.sandbox import FileRun, Sandbox, bwrap_available, sandbox_ok
from gavelkit.task.scoring.target import find_import_root, target_package, task_remove_paths
from gavelkit.task.scoring.warm import hidden_folders, run_folder
from gavelkit.task.scoring.worktree import (
    expected_ids,
    ignore_litter,
    inside,
    layer_of,
    load_reference,
    neutralise,
    prepare_worktree,
    shadowed_modules,
    suspicious_source,
    tree_digest,
    unsafe_entries,
)

__all__ = ["RunOptions", "RunResult", "run_solution"]  # what callers import from here


def resolve_python(python: str) -> str:
    """An absolute interpreter path: the sandbox runs in another working directory."""
    if os.sep in python or (os.altsep and os.altsep in python):
        return str(Path(python).expanduser().absolute())
    return shutil.which(python) or str(Path(python).absolute())


def _requirements(task: Any) -> Path:
    from gavelkit.task.scoring.envkeys import requirements_path

    oracle = task.task_json.oracle if task.task_json else {}
    req = requirements_path(task.dir, oracle if isinstance(oracle, dict) else {})
    if os.path.lexists(req):  # there but unreadable (a FIFO, a device, a loop): never ignored
        from gavelkit.core.safeio import check_input

        check_input(req)
    return req


def _environment(task: Any, opts: RunOptions, sol_src: Path | None,
                 findings: list[Finding]) -> tuple[Any, dict[str, Any], str]:
    """(env or None, install record, error): the task env, plus the solution when installed."""
    from gavelkit.task.scoring import envbuild
    from gavelkit.task.scoring.install import is_project, solution_env

    req = _requirements(task)
    cache = Path(opts.cache) if opts.cache else None
    install: dict[str, Any] = {"kind": "none"}
    try:
        env = (envbuild.given_env(resolve_python(opts.python), req) if opts.python else
               envbuild.build_env(req if req.is_file() else None, offline=opts.offline,
                                  cache=cache))
    except envbuild.EnvError as exc:
        findings.append(Finding("TSK-X005", "error", f"scoring environment: {exc}",
                                str(req), 0, 0))
        return None, install, str(exc)
    project = sol_src is not None and opts.install != "never" and is_project(sol_src)
    if not (project or opts.package_spec):
        return env, install, ""
    try:
        return (*solution_env(env, source=sol_src if project else None,
                              spec=opts.package_spec, offline=opts.offline, cache=cache,
                              hide=[task.dir.resolve()]), "")
    except envbuild.EnvError as exc:
        if project and not getattr(exc, "missing", None):
            # the folder's own build failed (no version, broken setup.py ...): score it as
            # a plain folder, and say so
            findings.append(Finding("TSK-X022", "warning", "the solution has packaging "
                                    "metadata but could not be built and installed; scored as "
                                    f"a plain folder on sys.path instead: {str(exc)[-400:]}",
                                    str(sol_src), 0, 0))
            return env, {"kind": "none", "build_error": str(exc)[-1500:]}, ""
        where = opts.package_spec or str(sol_src)
        findings.append(Finding("TSK-X005", "error", f"scoring environment: {exc}", where, 0, 0))
        return None, {"kind": "spec" if opts.package_spec else "project", "error": str(exc)}, \
            str(exc)


def _incomplete(fr: FileRun, files: list[str], expected: list[str]) -> list[str]:
    """Files whose expected nodes a crashed or killed process left without a full result."""
    if not fr.killed and any(m.get("t") == "end" for m in fr.messages):
        return []
    done = {m["nodeid"] for m in fr.messages if m.get("t") == "report"
            and m.get("when") == "teardown"}
    return [f for f in files if any(n not in done for n in expected if file_of(n) == f)]


def _rel(path: Path, base: Path) -> str:
    """`path` relative to `base` (records must survive moving the task folder)."""
    try:
        return os.path.relpath(path.resolve(), base.resolve())
    except ValueError:  # another drive
        return str(path.resolve())


def run_solution(task_dir: str | Path, opts: RunOptions) -> RunResult:
    """Score `opts.solution` against the task's oracle; write `<out>/score_result.json`.

    `opts.warm` (warm.prestart) is a test process started while the command line was
    read; it is used for the first launch when it matches this run, and always ended."""
    warm = opts.warm
    run_dir = warm.run_dir if warm is not None and warm.run_dir else run_folder()
    try:
        return _run(task_dir, opts, run_dir, warm)
    finally:
        if warm is not None:
            warm.cancel()
        _rmtree(run_dir)


def _isolation(opts: RunOptions, warm: Any, probe: Any) -> tuple[bool, str]:
    """(use bubblewrap, why not). A prestarted process that got ready inside bubblewrap
    has proven it works here; otherwise the probe decides."""
    if warm is not None and warm.state == "started" and warm.bwrap and warm.wait_ready():
        sandbox_ok(warm.bwrap)
    if probe is not None:
        probe.join()
    ok_bwrap, why_bwrap = bwrap_available()  # probes now when nothing has shown it yet
    if opts.isolation == "bwrap" and not ok_bwrap:
        raise InputError("bwrap", f"--isolation bwrap requested but {why_bwrap}")
    return opts.isolation in ("auto", "bwrap") and ok_bwrap, why_bwrap


def _run(task_dir: str | Path, opts: RunOptions, run_dir: Path, warm: Any) -> RunResult:
    from gavelkit.core.textio import atomic_write
    from gavelkit.task.pipeline.digests import current_digests
    from gavelkit.task.scoring.install import (
        is_project,
        project_name,
        source_files,
        verify_provenance,
    )
    from gavelkit.task.scoring.pytestargs import parse_pytest_args

    probe = None
    if warm is None or warm.state != "started" or not warm.bwrap:
        probe = threading.Thread(target=bwrap_available, daemon=True)  # a subprocess: overlap it
        probe.start()
    task = load_task(task_dir)
    spec = opts.package_spec
    sol_src = None if spec else Path(opts.solution)
    if sol_src is not None and not sol_src.is_dir():
        raise InputError(str(sol_src), "solution folder not found")
    out = Path(opts.out)
    out.mkdir(parents=True, exist_ok=True)
    findings: list[Finding] = [f for f in task.findings if f.unusable]
    if findings:
        raise InputError(findings[0].path, findings[0].message)
    package = target_package(task, opts.package)
    if package is None and spec:
        import re

        package = re.split(r"[\s<>=!~;\[@]", spec.strip(), maxsplit=1)[0].replace("-", "_")
    if package is None and sol_src is not None and opts.install != "never" \
            and is_project(sol_src):
        # the target is the project's own package: its declared name, else the first word
        # of the task id (`diskcache-cache-fullrepro-001`), when the source tree has it
        name = project_name(sol_src)
        for guess in ((name or "").replace("-", "_").lower(), task.id.split("-")[0].lower()):
            if guess.isidentifier() and find_import_root(sol_src, guess)[0] is not None:
                package = guess
                break
    remove = list(dict.fromkeys(task_remove_paths(task) + list(opts.remove_paths)))
    reference = load_reference(task, opts.reference_score) if opts.role == "candidate" else None
    expected, expected_src = expected_ids(task, reference)
    if not expected:
        findings.append(Finding("TSK-X001", "error", "the task names no expected node ids "
                                "(no kept_nodeids.txt, covered map rows or taxonomy): nothing "
                                "can be scored", str(task.dir), 0, 0))
    env, install, env_error = _environment(task, opts, sol_src, findings)
    installed = install.get("kind") in ("project", "spec") and env is not None
    raw_args = task.task_json.oracle.get("pytest_args") if task.task_json else None
    pa = parse_pytest_args(raw_args if isinstance(raw_args, list) else [],
                           {p["name"] for p in env.plugins} if env else set(), task.dir)
    for d in pa.refused:
        findings.append(Finding("TSK-X020", "warning", f"oracle pytest_args {' '.join(d['args'])}"
                                f" refused: {d['why']}", str(task.paths.get("task_json") or
                                                               task.dir), 0, 0, data=d))
    import_root, layout, src_root = None, "installed-package" if spec else "unknown", None
    if sol_src is not None:
        sol = run_dir / "solution"
        outside, special = unsafe_entries(sol_src)
        for rel, target in outside:
            findings.append(Finding("TSK-X015", "error", f"solution entry {rel} is a symlink "
                                    f"to {target}, outside the solution: not copied",
                                    rel, 0, 0, data={"target": target}))
        for rel, what in special:
            findings.append(Finding("TSK-X024", "warning", f"solution entry {rel} is {what}, "
                                    "not a regular file or folder: not copied", rel, 0, 0,
                                    data={"what": what}))
        skip = {os.path.join(os.path.realpath(sol_src / Path(rel).parent), Path(rel).name)
                for rel, _ in [*outside, *special]}

        def ignore(d: str, names: list[str]) -> set[str]:
            return ignore_litter(d, names) | {
                n for n in names if os.path.join(os.path.realpath(d), n) in skip}
        shutil.copytree(sol_src, sol, ignore=ignore, symlinks=False)
        findings += neutralise(sol, package)
        if opts.role == "candidate":
            findings += suspicious_source(sol)
        import_root, layout = find_import_root(sol, package) if package else (sol, "unknown")
        if package:
            src_root = find_import_root(sol_src, package)[0]
        if package and import_root is None and not installed:
            findings.append(Finding("TSK-X007", "error", f"package {package!r} not found in "
                                    "the solution (looked for PKG/, PKG.py, src/PKG, nested "
                                    "PKG/)", str(sol_src), 0, 0))
        if import_root is not None and not installed:
            shadow = shadowed_modules(import_root, package)
            if shadow:
                where = (sol_src / import_root.relative_to(sol)
                         if inside(import_root, sol) else import_root)
                findings.append(Finding("TSK-X023", "warning", "the solution provides "
                                        f"{', '.join(shadow)}, which the test runner itself "
                                        "imports; on sys.path before the standard library and "
                                        "site-packages, pytest runs on the solution's copy",
                                        str(where), 0, 0, data={"modules": shadow}))
    if installed:
        layout = f"installed ({install['kind']}; source layout {layout})"
        if package:
            install["provenance"] = verify_provenance(env.python, Path(env.path), package,
                                                      source_root=src_root, spec=spec,
                                                      role=opts.role)
            if install["provenance"]["ok"]:
                env.plugin_dists = list(install["provenance"]["distributions"])
            else:
                findings.append(Finding("TSK-X021", "error", "the installed solution is not "
                                        "proven to be the code under test: "
                                        + install["provenance"]["why"],
                                        str(sol_src or spec), 0, 0))
    work = run_dir / "work"
    files = list(dict.fromkeys(file_of(n) for n in expected))
    removed = prepare_worktree(task, work, files, remove, package)
    ini = run_dir / "gavel-pytest.ini"
    oracle_ini = work / "gavel-oracle-pytest.ini"
    ini.write_text(oracle_ini.read_text("utf-8") if oracle_ini.is_file() else "[pytest]\n",
                   "utf-8")
    before_task = current_digests(task)
    before_work = tree_digest(work)
    hidden = hidden_folders(task.dir, sol_src)  # the test process sees private copies only
    if warm is not None and warm.state == "started":
        why = ("nothing to run: " + (env_error or "no expected node ids")
               if env is None or not expected else
               warm.compatible(env.python, Path(env.path), hidden,
                               (opts.memory_mb, opts.cpu_seconds, opts.fsize_mb)))
        if why:
            warm.why = why
            warm.cancel()
    use_bwrap, why_bwrap = _isolation(opts, warm, probe)
    if not use_bwrap:
        findings.append(Finding("TSK-X006", "warning",
                                "ISOLATION INACTIVE: no network namespace and no read-only "
                                "mounts for this run (" + (why_bwrap if opts.isolation
                                                            != "none" else "--isolation none")
                                + ")", str(task.dir), 0, 0))
    if warm is not None and warm.state == "started" and bool(warm.bwrap) != use_bwrap:
        warm.why = "started with another isolation"
        warm.cancel()
    from gavelkit.task.scoring.classify import context_for

    prep: dict[str, Any] = {}

    def while_running() -> None:  # parent work overlapped with the first test process
        if not prep:
            prep.update(layer=layer_of(task), ctx=context_for(task, opts),
                        files=source_files(sol_src) if sol_src is not None else None,
                        platform=platform.platform())  # ~10-30 ms: reads the interpreter
    rounds: list[dict[str, Any]] = []
    file_runs: dict[str, FileRun] = {}
    reruns: list[str] = []
    if env is not None and expected:
        box = Sandbox(run_dir, env, None if installed else import_root, opts, use_bwrap,
                      pa.disabled_plugins)
        box.hidden = hidden
        box.warm = warm if warm is not None and warm.state == "started" else None
        for k in range(max(1, opts.repeat)):
            rounds.append(_one_round(box, task.id, files, expected, pa.kept, opts, k,
                                     reruns, while_running))
            for f, fr in rounds[-1].items():
                file_runs.setdefault(f, fr)
    while_running()
    layer = prep["layer"]
    after_work = tree_digest(work)
    after_task = current_digests(task)  # the same files, re-read and re-hashed
    score = assemble(task, expected, expected_src, rounds, layer, reference, opts, findings,
                     env_error=env_error, oracle_args=pa.kept, ctx=prep["ctx"])
    changed = sorted(k for k in set(before_work) | set(after_work)
                     if before_work.get(k) != after_work.get(k))
    if changed:
        findings.append(Finding("TSK-X008", "error", "the oracle worktree changed during the "
                                f"run: {', '.join(changed[:8])}", str(task.dir), 0, 0,
                                data={"changed": changed}))
    if before_task != after_task:
        findings.append(Finding("TSK-X008", "error", "the task's oracle files changed during "
                                "the run", str(task.dir), 0, 0))
    sol_rel = _rel(sol_src, out) if sol_src is not None else None
    score.update({
        "platform": prep["platform"], "python_version": sys.version,
        "timeout_seconds": opts.file_timeout, "remove_paths": remove,
        "source_repo": _rel(task.dir, out), "solution_dir": sol_rel,
        "solution_package": spec,
        "nodeids": task.rel(task.paths["kept"]) if task.paths.get("kept") else "",
        "run_dir": ".", "paths_relative_to": "the run folder (this file's folder)",
        "taxonomy": task.rel(task.paths["taxonomy"]) if task.paths.get("taxonomy") else "",
        "grouped_results": _grouped(file_runs),
    })
    data = task.task_json.data if task.task_json else {}
    score["gavel"]["upstream"] = {"repo": data.get("repo") or data.get("repo_url") or "",
                                  "repo_commit": data.get("repo_commit") or ""}
    uniq = {id(fr): fr for fr in file_runs.values()}
    score["gavel"].update({
        "role": opts.role, "package": package, "import_root_layout": layout,
        "removed_from_worktree": removed,
        "environment": env.to_dict() if env else {"error": env_error},
        "install": install,
        "pytest_args": pa.to_dict(),
        "processes": {"group": opts.group, "count": len(uniq),
                      "rerun_alone": sorted(set(reruns)),
                      "prestarted": warm.record() if warm is not None else
                      {"used": False, "why_not": "not prestarted"}},
        "isolation": {
            "active": use_bwrap, "mechanism": "bubblewrap" if use_bwrap else "none",
            "network": "blocked (new network namespace)" if use_bwrap else "NOT blocked",
            "filesystem": ("read-only except a scratch folder; environment mounted "
                           "read-only") if use_bwrap else "NOT confined",
            "why_inactive": "" if use_bwrap else (why_bwrap or "--isolation none"),
            "plugin_autoload": False, "cache_provider": False,
            "plugins": [n for n in env.plugin_args() if n not in pa.disabled_plugins]
            if env else [],
            "rlimits": {"address_space_mb": opts.memory_mb, "cpu_seconds": opts.cpu_seconds,
                        "file_size_mb": opts.fsize_mb},
            "per_test_timeout_s": opts.test_timeout, "per_file_timeout_s": opts.file_timeout,
            "timeout_method": "signal (SIGALRM) + process-group kill",
        },
        "integrity": {
            "oracle_digest_before": _combined(before_task),
            "oracle_digest_after": _combined(after_task),
            "worktree_unchanged": not changed,
        },
    })
    score["gavel"]["findings"] = [f.to_dict() for f in findings]
    root_rel = None
    if sol_src is not None:
        rel_root = (import_root.relative_to(run_dir / "solution") if import_root is not None
                    and inside(import_root, run_dir / "solution") else Path("."))
        root_rel = _rel(sol_src / rel_root, out)
    meta = {"package": package, "solution_dir": sol_rel, "role": opts.role,
            "solution_dir_absolute": str(sol_src.resolve()) if sol_src else None,
            "solution_package": spec, "import_root": root_rel,
            "solution_files": prep["files"],
            "paths_relative_to": "run folder",
            "remove_paths": remove, "install": install,
            "environment": {"python": env.python if env else None,
                            "path": str(env.path) if env else None,
                            "digest": env.digest if env else None}}
    atomic_write(out / "run_meta.json", json.dumps(meta, indent=2) + "\n")
    atomic_write(out / "score_result.json", dump_score(score))
    logs = out / "logs"
    if (run_dir / "logs").is_dir():
        if logs.exists():
            shutil.rmtree(logs)
        shutil.copytree(run_dir / "logs", logs)
    return RunResult(score, findings, out / "score_result.json")


def dump_score(score: dict[str, Any]) -> str:
    """score_result.json text: the top two levels of keys one per line, one case per line.

    The same JSON as `json.dumps(score, indent=2)` when read back; but `indent` switches
    json to its pure-Python encoder (~10 ms for 295 cases, on every run), and one case per
    line is as easy to read and to grep."""
    def one(v: Any) -> str:
        return json.dumps(v, ensure_ascii=False, default=str)

    def block(v: Any, depth: int) -> str:
        pad = "  " * (depth + 1)
        if depth < 2 and isinstance(v, dict) and v:
            return "{\n" + ",\n".join(f"{pad}{one(str(k))}: {block(x, depth + 1)}"
                                       for k, x in v.items()) + "\n" + "  " * depth + "}"
        if depth < 2 and isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            return "[\n" + ",\n".join(pad + one(x) for x in v) + "\n" + "  " * depth + "]"
        return one(v)

    return block(score, 0) + "\n"


def _one_round(box: Sandbox, task_id: str, files: list[str], expected: list[str],
               args: list[str], opts: RunOptions, k: int, reruns: list[str],
               while_running: Any = None) -> dict[str, Any]:
    """One pass over the files in the chosen process layout: {file: FileRun}."""
    per: dict[str, Any] = {}
    rnd = f" round {k + 1}/{opts.repeat}" if opts.repeat > 1 else ""
    if opts.group in ("auto", "run") and len(files) > 1:
        if opts.progress:
            opts.progress(f"{task_id}: {len(files)} file(s) in one process{rnd}")
        limit = opts.file_timeout * (len(files) if opts.group == "auto" else 1)
        launch = box.start("all-files", files, expected, args, timeout=limit)
        if while_running:
            while_running()
        fr = launch.finish()
        per = dict.fromkeys(files, fr)
        if opts.group == "run":
            return per
        todo = _incomplete(fr, files, expected)
    else:
        todo = files
    for i, f in enumerate(todo):
        if opts.progress:
            opts.progress(f"{task_id}: {f} ({i + 1}/{len(todo)}){rnd}")
        if len(files) > 1 and opts.group == "auto":
            reruns.append(f)
        launch = box.start(f, [f], [n for n in expected if file_of(n) == f], args)
        if while_running:
            while_running()
        per[f] = launch.finish()
    return per


def _grouped(file_runs: dict[str, FileRun]) -> dict[str, Any]:
    return {f: {"returncode": fr.returncode, "stdout": fr.stdout[-4000:],
                "stderr": fr.stderr[-4000:], "seconds": round(fr.seconds, 3),
                "killed_after_timeout": fr.killed, "process": fr.file}
            for f, fr in file_runs.items()}


def _rmtree(p: Path) -> None:
    def onerr(func, path, exc):  # type: ignore[no-untyped-def]
        try:
            os.chmod(path, 0o700)
            func(path)
        except OSError:
            pass
    shutil.rmtree(p, onerror=onerr)
