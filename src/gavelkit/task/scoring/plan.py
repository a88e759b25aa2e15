"""Preparing a run before anything of the solution executes: what is scored, where from.

`make_plan` loads the task and decides the target package, the expected node ids, the
environment (the task's uv environment; a solution project or a package spec installed
into a derived one), the oracle's vetted pytest_args and which oracle files are missing;
`copy_solution` makes the private solution copy with planted files removed;
`check_installed` proves an installed solution is the code under test. Each step adds
its findings to the plan.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.task.formats.load import Task, load_task
from gavelkit.task.formats.nodeids import file_of
from gavelkit.task.scoring.options import RunOptions
from gavelkit.task.scoring.target import find_import_root, target_package, task_remove_paths
from gavelkit.task.scoring.worktree import (
    expected_ids,
    ignore_litter,
    inside,
    load_reference,
    neutralise,
    shadowed_modules,
    unsafe_entries,
)


@dataclass(slots=True)
class Plan:
    """Everything a run needs that is known before the test process starts."""
    task: Task
    opts: RunOptions
    run_dir: Path
    out: Path
    sol_src: Path | None
    spec: str | None
    package: str | None
    remove: list[str]
    reference: dict[str, Any] | None
    expected: list[str]
    expected_src: str
    findings: list[Finding] = field(default_factory=list)
    env: Any = None
    install: dict[str, Any] = field(default_factory=lambda: {"kind": "none"})
    env_error: str = ""
    pa: Any = None
    import_root: Path | None = None
    layout: str = "unknown"
    src_root: Path | None = None
    missing_files: dict[str, str] = field(default_factory=dict)
    limit: Any = None  # limits.ProcLimit of the run's test processes

    @property
    def installed(self) -> bool:
        return self.install.get("kind") in ("project", "spec") and self.env is not None

    @property
    def files(self) -> list[str]:
        """The oracle files to run: every file the expected ids name that exists."""
        return [f for f in dict.fromkeys(file_of(n) for n in self.expected)
                if f not in self.missing_files]


def resolve_python(python: str) -> str:
    """An absolute interpreter path: the sandbox runs in another working directory."""
    if os.sep in python or (os.altsep and os.altsep in python):
        return str(Path(python).expanduser().absolute())
    return shutil.which(python) or str(Path(python).absolute())


def _requirements(task: Task) -> Path:
    from gavelkit.task.scoring.envkeys import requirements_path

    oracle = task.task_json.oracle if task.task_json else {}
    req = requirements_path(task.dir, oracle if isinstance(oracle, dict) else {})
    if os.path.lexists(req):  # there but unreadable (a FIFO, a device, a loop): never ignored
        from gavelkit.core.safeio import check_input

        check_input(req)
    return req


def _guess_package(task: Task, opts: RunOptions, sol_src: Path | None) -> str | None:
    """The target import name: task.json, else the spec's name, else a project's own."""
    from gavelkit.task.scoring.install import is_project, project_name

    package = target_package(task, opts.package)
    if package is None and opts.package_spec:
        package = re.split(r"[\s<>=!~;\[@]", opts.package_spec.strip(),
                           maxsplit=1)[0].replace("-", "_")
    if package is None and sol_src is not None and opts.install != "never" \
            and is_project(sol_src):
        return _project_package(task, sol_src, project_name(sol_src))
    return package


def _project_package(task: Task, sol_src: Path, name: str | None) -> str | None:
    """The project's declared name, else the first word of the task id
    (`diskcache-cache-fullrepro-001`), when the source tree has it."""
    for guess in ((name or "").replace("-", "_").lower(), task.id.split("-")[0].lower()):
        if guess.isidentifier() and find_import_root(sol_src, guess)[0] is not None:
            return guess
    return None


def _missing_files(task: Task, expected: list[str], source: str) -> dict[str, str]:
    """Oracle files the expected ids name that are not in the task folder: their ids are
    the oracle's failure, said as such ("oracle file missing"), and pytest never sees them
    (a missing path on its command line fails the whole process)."""
    out: dict[str, str] = {}
    for f in dict.fromkeys(file_of(n) for n in expected):
        if f and not (task.dir / f).is_file():
            out[f] = (f"oracle file missing: {f} (named by {source}, not in the task folder "
                      f"{task.dir})")
    return out


def make_plan(task_dir: str | Path, opts: RunOptions, run_dir: Path) -> Plan:
    """Load the task and decide what is scored (raises InputError on unusable input)."""
    task = load_task(task_dir, opts.config)
    spec = opts.package_spec
    sol_src = None if spec else Path(opts.solution)
    if sol_src is not None and not sol_src.is_dir():
        raise InputError(str(sol_src), "solution folder not found")
    bad = [f for f in task.findings if f.unusable]
    if bad:
        raise InputError(bad[0].path, bad[0].message)
    out = Path(opts.out)
    out.mkdir(parents=True, exist_ok=True)
    reference = load_reference(task, opts.reference_score) if opts.role == "candidate" else None
    expected, src = expected_ids(task, reference)
    plan = Plan(task, opts, run_dir, out, sol_src, spec, _guess_package(task, opts, sol_src),
                list(dict.fromkeys(task_remove_paths(task) + list(opts.remove_paths))),
                reference, expected, src)
    if not expected:
        plan.findings.append(Finding("TSK-X001", "error", "the task names no expected node ids "
                                     "(no kept_nodeids.txt, covered map rows or taxonomy): "
                                     "nothing can be scored", str(task.dir), 0, 0))
    plan.missing_files = _missing_files(task, expected, src)
    for f, why in plan.missing_files.items():
        plan.findings.append(Finding("TSK-X025", "error", why, f, 0, 0, data={"file": f}))
    _environment(plan)
    _pytest_args(plan)
    return plan


def _pytest_args(plan: Plan) -> None:
    from gavelkit.task.scoring.pytestargs import parse_pytest_args

    task = plan.task
    raw = task.task_json.oracle.get("pytest_args") if task.task_json else None
    plan.pa = parse_pytest_args(raw if isinstance(raw, list) else [],
                                {p["name"] for p in plan.env.plugins} if plan.env else set(),
                                task.dir)
    where = str(task.paths.get("task_json") or task.dir)
    for d in plan.pa.refused:
        plan.findings.append(Finding("TSK-X020", "warning", f"oracle pytest_args "
                                     f"{' '.join(d['args'])} refused: {d['why']}", where, 0, 0,
                                     data=d))


def _environment(plan: Plan) -> None:
    """The task env, plus the solution when it is installed (env None: plan.env_error)."""
    from gavelkit.task.scoring import envbuild
    from gavelkit.task.scoring.install import is_project, solution_env

    opts, task, sol_src = plan.opts, plan.task, plan.sol_src
    req = _requirements(task)
    cache = Path(opts.cache) if opts.cache else None
    try:
        env = (envbuild.given_env(resolve_python(opts.python), req) if opts.python else
               envbuild.build_env(req if req.is_file() else None, offline=opts.offline,
                                  cache=cache))
    except envbuild.EnvError as exc:
        plan.findings.append(Finding("TSK-X005", "error", f"scoring environment: {exc}",
                                     str(req), 0, 0))
        plan.env_error = str(exc)
        return
    plan.env = env
    project = sol_src is not None and opts.install != "never" and is_project(sol_src)
    if not (project or plan.spec):
        return
    try:
        plan.env, plan.install = solution_env(env, source=sol_src if project else None,
                                              spec=plan.spec, offline=opts.offline,
                                              cache=cache, hide=[task.dir.resolve()])
    except envbuild.EnvError as exc:
        if project and not getattr(exc, "missing", None):
            # the folder's own build failed (no version, broken setup.py ...): score it as
            # a plain folder, and say so
            plan.findings.append(Finding(
                "TSK-X022", "warning", "the solution has packaging metadata but could not be "
                "built and installed; scored as a plain folder on sys.path instead: "
                f"{str(exc)[-400:]}", str(sol_src), 0, 0))
            plan.install = {"kind": "none", "build_error": str(exc)[-1500:]}
            return
        where = plan.spec or str(sol_src)
        plan.findings.append(Finding("TSK-X005", "error", f"scoring environment: {exc}",
                                     where, 0, 0))
        plan.env, plan.env_error = None, str(exc)
        plan.install = {"kind": "spec" if plan.spec else "project", "error": str(exc)}


def copy_solution(plan: Plan) -> None:
    """The private solution copy (links out and special files left out, planted files
    removed), its import root, and the static flags on candidate code."""
    sol_src, package = plan.sol_src, plan.package
    if sol_src is None:
        plan.layout = "installed-package"
        return
    sol = plan.run_dir / "solution"
    _copy_entries(plan, sol_src, sol)
    plan.findings += neutralise(sol, package)
    plan.import_root, plan.layout = find_import_root(sol, package) if package else \
        (sol, "unknown")
    if plan.opts.role == "candidate":
        from gavelkit.task.scoring import tamperscan

        plan.findings += tamperscan.findings(sol, package, plan.import_root)
    if package:
        plan.src_root = find_import_root(sol_src, package)[0]
    if plan.installed:
        return
    if package and plan.import_root is None:
        plan.findings.append(Finding("TSK-X007", "error", f"package {package!r} not found in "
                                     "the solution (looked for PKG/, PKG.py, src/PKG, nested "
                                     "PKG/)", str(sol_src), 0, 0))
    if plan.import_root is not None:
        _shadowing(plan, sol)


def _copy_entries(plan: Plan, sol_src: Path, sol: Path) -> None:
    """Copy the solution without its links out of it and its special files (a finding
    each)."""
    outside, special = unsafe_entries(sol_src)
    for rel, target in outside:
        plan.findings.append(Finding("TSK-X015", "error", f"solution entry {rel} is a symlink "
                                     f"to {target}, outside the solution: not copied",
                                     rel, 0, 0, data={"target": target}))
    for rel, what in special:
        plan.findings.append(Finding("TSK-X024", "warning", f"solution entry {rel} is {what}, "
                                     "not a regular file or folder: not copied", rel, 0, 0,
                                     data={"what": what}))
    skip = {os.path.join(os.path.realpath(sol_src / Path(rel).parent), Path(rel).name)
            for rel, _ in [*outside, *special]}

    def ignore(d: str, names: list[str]) -> set[str]:
        return ignore_litter(d, names) | {
            n for n in names if os.path.join(os.path.realpath(d), n) in skip}
    shutil.copytree(sol_src, sol, ignore=ignore, symlinks=False, dirs_exist_ok=True)


def _shadowing(plan: Plan, sol: Path) -> None:
    shadow = shadowed_modules(plan.import_root, plan.package)  # type: ignore[arg-type]
    if not shadow:
        return
    root = plan.import_root
    where = plan.sol_src / root.relative_to(sol) if inside(root, sol) else root  # type: ignore
    plan.findings.append(Finding("TSK-X023", "warning", "the solution provides "
                                 f"{', '.join(shadow)}, which the test runner or the standard "
                                 "library provides too; its copy is never used (the solution "
                                 "comes after the standard library and site-packages on "
                                 "sys.path), so code that needs it gets the environment's",
                                 str(where), 0, 0, data={"modules": shadow}))


def check_installed(plan: Plan) -> None:
    """An installed solution: its layout, and proof that `import PKG` loads its build."""
    from gavelkit.task.scoring.install import verify_provenance

    if not plan.installed:
        return
    install = plan.install
    plan.layout = f"installed ({install['kind']}; source layout {plan.layout})"
    if not plan.package:
        return
    install["provenance"] = verify_provenance(plan.env.python, Path(plan.env.path),
                                              plan.package, source_root=plan.src_root,
                                              spec=plan.spec, role=plan.opts.role)
    if install["provenance"]["ok"]:
        dists = list(install["provenance"]["distributions"])
        if plan.opts.role == "reference":
            plan.env.plugin_dists = dists  # a reference's own pytest plugin the oracle uses
        else:  # never a candidate's: its plugin would run before the tests, as a plugin
            from gavelkit.task.scoring.envkeys import norm

            own = [p["name"] for p in plan.env.plugins if norm(p["dist"]) in
                   {norm(d) for d in dists}]
            if own:
                install["plugins_not_loaded"] = own
    else:
        plan.findings.append(Finding("TSK-X021", "error", "the installed solution is not "
                                     "proven to be the code under test: "
                                     + install["provenance"]["why"],
                                     str(plan.sol_src or plan.spec), 0, 0))
