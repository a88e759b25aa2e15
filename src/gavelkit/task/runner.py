"""Score a solution (reference or candidate) against a task's oracle, isolated.

    res = run_solution("tasks/foo-001", RunOptions(solution="runs/x/output", out="runs/x/score"))
    res.score      # the score_result.json dict (public harness fields + ours)
    res.findings   # TSK-X findings: planted files, tampering, isolation, denominator

What makes the numbers trustworthy (task-judge.md §4, §5.2):

- the expected node ids come from the task (kept_nodeids.txt, or the reference
  run), never from what the candidate's process reports; a missing id is
  failed (collection_error / not_collected / timeout), an extra id is flagged;
  0 collected of N expected is an error, never "0 %";
- the oracle is copied to a private worktree (remove-paths and any copy of the
  target package deleted so `sys.path[0]` cannot shadow the candidate), the
  solution is copied too and its conftest.py / sitecustomize.py /
  usercustomize.py / *.pth / pytest configuration are removed with a finding;
- pytest runs once per test file in a fresh process with plugin autoload off,
  no cache provider, our ini file, only the plugins the requirements name, and
  our result plugin under a random name that reports over an inherited pipe
  with an HMAC, twice per test (raw call result and final report);
- the parent checks the exit status against the outcomes, and hashes the
  task's oracle files and the worktree before and after;
- bubblewrap (when present) removes the network and makes everything but a
  scratch folder read-only, including the uv environment; rlimits cap memory,
  CPU time and file size; a per-test SIGALRM limit and a per-file wall limit
  (process group killed) bound the time. The result says plainly which of these
  were active.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.task.formats.nodeids import base_nodeid, file_of, func_key
from gavelkit.task.load import Task, load_task

PASSING = ("passed", "xfail", "xpass")
PLANTED_NAMES = {"conftest.py": "warning", "sitecustomize.py": "error",
                 "usercustomize.py": "error", "pytest.ini": "warning"}
SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".tox", "node_modules",
             ".mypy_cache", ".pytest_cache", ".ruff_cache"}


@dataclass(slots=True)
class RunOptions:
    solution: str | Path
    out: str | Path
    package: str | None = None
    remove_paths: list[str] = field(default_factory=list)
    python: str | None = None
    offline: bool = False
    role: str = "candidate"  # candidate | reference
    test_timeout: float = 60.0
    file_timeout: float = 900.0
    memory_mb: int = 4096
    cpu_seconds: int = 1800
    fsize_mb: int = 512
    isolation: str = "auto"  # auto | bwrap | none
    repeat: int = 1
    group: str = "file"  # file: one pytest process per test file | run: one for all files
    reference_score: str | Path | None = None
    cache: str | Path | None = None
    progress: Any = None  # callable(str) or None


@dataclass(slots=True)
class RunResult:
    score: dict[str, Any]
    findings: list[Finding]
    path: Path

    @property
    def summary(self) -> dict[str, int]:
        return self.score["summary"]

    @property
    def pass_rate(self) -> float | None:
        return self.score.get("pass_rate_excluding_skips")


# ----------------------------------------------------------------- helpers
def target_package(task: Task, explicit: str | None = None) -> str | None:
    """The import name the oracle tests target (task.json keys seen in real packets)."""
    if explicit:
        return explicit
    data = task.task_json.data if task.task_json else {}
    oracle = task.task_json.oracle if task.task_json else {}
    for key in ("package", "target_package", "import_name", "target_import"):
        v = data.get(key) or oracle.get(key)
        if isinstance(v, str) and v:
            return v
    iso = task.task_json.oracle.get("scorer_isolation") if task.task_json else None
    if isinstance(iso, list):
        for i, x in enumerate(iso):
            if x == "--remove-path" and i + 1 < len(iso):
                return str(iso[i + 1]).split("/")[0]
    ti = data.get("TARGET_IMPORTS") or data.get("target_imports")
    if isinstance(ti, list) and ti and isinstance(ti[0], str):
        return ti[0].split(".")[0]
    return None


def task_remove_paths(task: Task) -> list[str]:
    out: list[str] = []
    iso = task.task_json.oracle.get("scorer_isolation") if task.task_json else None
    if isinstance(iso, list):
        for i, x in enumerate(iso):
            if x == "--remove-path" and i + 1 < len(iso):
                out.append(str(iso[i + 1]))
    rp = task.task_json.oracle.get("remove_paths") if task.task_json else None
    if isinstance(rp, list):
        out += [str(x) for x in rp]
    return out


def find_import_root(solution: Path, package: str) -> tuple[Path | None, str]:
    """(folder to put on sys.path, layout) for `package` inside a solution tree."""
    for rel, layout in (("", "flat"), ("src", "src")):
        base = solution / rel if rel else solution
        if (base / package).is_dir() and any((base / package).glob("*.py")):
            return base, layout
        if (base / f"{package}.py").is_file():
            return base, layout + "-module"
    for depth in (1, 2, 3):
        for hit in sorted(solution.glob("/".join(["*"] * depth))):
            if hit.name == package and hit.is_dir() and (hit / "__init__.py").is_file() \
                    and not set(hit.relative_to(solution).parts) & SKIP_DIRS:
                return hit.parent, f"nested:{hit.parent.relative_to(solution)}"
    return None, "missing"


def _inside(a: Path, b: Path) -> bool:
    """Is a inside b (or equal)?"""
    try:
        a.relative_to(b)
        return True
    except ValueError:
        return False


def outside_links(root: Path) -> list[tuple[str, str]]:
    """(relative path, target) of symlinks under root that resolve outside it."""
    out = []
    base = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS or
                       os.path.islink(os.path.join(dirpath, d))]
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            if p.is_symlink():
                target = p.resolve(strict=False)
                if not _inside(target, base):
                    out.append((str(p.relative_to(root)), str(target)))
    return sorted(out)


def _ignore(_dir: str, names: list[str]) -> set[str]:
    return {n for n in names if n in SKIP_DIRS}


def _tree_digest(root: Path) -> dict[str, str]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


_BWRAP: dict[str, Any] = {}


def bwrap_available() -> tuple[bool, str]:
    """Is bubblewrap installed and allowed to create namespaces here? (probed once)."""
    if "ok" not in _BWRAP:
        exe = shutil.which("bwrap")
        if exe is None:
            _BWRAP.update(ok=False, why="bwrap is not installed")
        else:
            try:
                p = subprocess.run([exe, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-all",
                                    "--die-with-parent", "true"], capture_output=True, text=True,
                                   timeout=20, check=False)
                ok = p.returncode == 0
                _BWRAP.update(ok=ok, why="" if ok else f"bwrap cannot create namespaces here: "
                              f"{p.stderr.strip()[:200]}", exe=exe)
            except (OSError, subprocess.TimeoutExpired) as exc:
                _BWRAP.update(ok=False, why=f"bwrap failed to start: {exc}")
    return bool(_BWRAP["ok"]), str(_BWRAP.get("why", ""))


def _rlimits(memory_mb: int, cpu: int, fsize_mb: int):  # type: ignore[no-untyped-def]
    def apply() -> None:
        import resource

        for lim, val in ((resource.RLIMIT_AS, memory_mb * 1024 * 1024),
                         (resource.RLIMIT_CPU, cpu), (resource.RLIMIT_FSIZE, fsize_mb * 1024 * 1024),
                         (resource.RLIMIT_CORE, 0)):
            try:
                soft = val
                hard = val + (5 if lim == resource.RLIMIT_CPU else 0)
                resource.setrlimit(lim, (soft, hard))
            except (ValueError, OSError):
                pass
    return apply


# ----------------------------------------------------------------- outcomes
def node_outcome(reports: list[dict[str, Any]]) -> tuple[str, dict[str, Any], bool]:
    """(outcome, the deciding phase report, forged?) from a node's phase reports."""
    by = {r["when"]: r for r in reports}
    forged = False
    for r in reports:
        raw = r.get("raw") or {}
        if r["outcome"] == "passed" and raw.get("kind") in ("exception", "timeout") \
                and not r.get("wasxfail"):
            forged = True
    if any(r.get("timeout") for r in reports):
        dec = next(r for r in reports if r.get("timeout"))
        return "timeout", dec, forged
    setup = by.get("setup")
    if setup and setup["outcome"] == "failed":
        return "error", setup, forged
    if setup and setup["outcome"] == "skipped":
        return ("xfail" if setup.get("wasxfail") else "skipped"), setup, forged
    call = by.get("call")
    if call is None:
        return "error", setup or reports[-1], forged
    raw = call.get("raw") or {}
    if forged or call["outcome"] == "failed":
        out = "failed"
    elif call["outcome"] == "skipped":
        out = "xfail" if call.get("wasxfail") else "skipped"
    elif call.get("wasxfail"):
        out = "xpass"
    else:
        out = "passed"
    if raw.get("kind") == "exception" and out == "passed":
        out, forged = "failed", True
    td = by.get("teardown")
    if td and td["outcome"] == "failed" and out in PASSING:
        return "error", td, forged
    return out, call, forged


@dataclass(slots=True)
class FileRun:
    file: str
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    messages: list[dict[str, Any]]
    bad_macs: int
    killed: bool


def _read_pipe(fd: int, sink: list[bytes]) -> None:
    with os.fdopen(fd, "rb") as fh:
        while True:
            chunk = fh.read(65536)
            if not chunk:
                break
            sink.append(chunk)


class _Sandbox:
    """One run's private folders, interpreter, plugin copy and isolation settings."""

    def __init__(self, run_dir: Path, env: Any, import_root: Path | None, opts: RunOptions,
                 use_bwrap: bool) -> None:
        self.run_dir = run_dir
        self.work = run_dir / "work"
        self.scratch = run_dir / "scratch"
        self.env = env
        self.import_root = import_root
        self.opts = opts
        self.bwrap = use_bwrap
        self.plugdir = run_dir / "plugin"
        self.plugdir.mkdir(parents=True, exist_ok=True)
        self.modname = "gk_" + os.urandom(6).hex()
        src = Path(__file__).with_name("_result_plugin.py")
        shutil.copyfile(src, self.plugdir / f"{self.modname}.py")
        self.ini = run_dir / "gavel-pytest.ini"
        self.hidden: list[Path] = []

    def command(self, test_files: list[str], extra_args: list[str]) -> list[str]:
        cmd = [self.env.python, "-s", "-m", "pytest", "-p", self.modname,
               "-p", "no:cacheprovider", "-c", str(self.ini), "--rootdir", str(self.work),
               "--confcutdir", str(self.work), "-q", "--no-header", "-o", "addopts=",
               "-o", "cache_dir=" + str(self.scratch / ".cache"),
               "--continue-on-collection-errors"]
        for name in self.env.plugin_args():
            cmd += ["-p", name]
        cmd += [*extra_args, *test_files]
        if not self.bwrap:
            return cmd
        exe = _BWRAP.get("exe") or "bwrap"
        wrap = [exe, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                "--tmpfs", "/tmp"]
        for hidden in self.hidden:
            wrap += ["--tmpfs", str(hidden)]
        for p in self.ro_paths():
            wrap += ["--ro-bind", str(p), str(p)]
        wrap += ["--bind", str(self.scratch), str(self.scratch), "--unshare-all",
                 "--die-with-parent", "--new-session", "--chdir", str(self.work), "--"]
        return wrap + cmd

    def ro_paths(self) -> list[Path]:
        out = [self.run_dir, self.env.path]
        home = self._venv_home()
        if home is not None:
            out.append(home)
        return out

    def _venv_home(self) -> Path | None:
        cfg = Path(self.env.path) / "pyvenv.cfg"
        if cfg.is_file():
            for line in cfg.read_text("utf-8", "replace").splitlines():
                k, _, v = line.partition("=")
                if k.strip() == "home" and v.strip():
                    return Path(v.strip()).parent
        return None

    def run_file(self, test_file: str, expected: list[str], extra_args: list[str],
                 files: list[str] | None = None) -> FileRun:
        exp_path = self.run_dir / "expected" / (re.sub(r"[^\w.-]", "_", test_file) + ".json")
        exp_path.parent.mkdir(parents=True, exist_ok=True)
        exp_path.write_text(json.dumps(expected), "utf-8")
        key = os.urandom(32)
        rfd, wfd = os.pipe()
        krfd, kwfd = os.pipe()
        os.write(kwfd, key)
        os.close(kwfd)
        home = self.scratch / "home"
        tmp = self.scratch / "tmp"
        home.mkdir(parents=True, exist_ok=True)
        tmp.mkdir(parents=True, exist_ok=True)
        pp = [str(self.plugdir)] + ([str(self.import_root)] if self.import_root else [])
        env = {"PATH": os.pathsep.join([str(Path(self.env.python).parent), "/usr/bin", "/bin"]),
               "HOME": str(home), "TMPDIR": str(tmp), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "PYTHONPATH": os.pathsep.join(pp), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
               "PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0",
               "GAVEL_RESULT_FD": str(wfd), "GAVEL_KEY_FD": str(krfd),
               "GAVEL_EXPECTED": str(exp_path), "GAVEL_TEST_TIMEOUT": str(self.opts.test_timeout),
               "NO_COLOR": "1"}
        if not self.bwrap:
            env["TMPDIR"] = str(tmp)
        sink: list[bytes] = []
        reader = threading.Thread(target=_read_pipe, args=(rfd, sink), daemon=True)
        t0 = time.monotonic()

        out_path = self.run_dir / "logs" / (re.sub(r"[^\w.-]", "_", test_file) + ".log")
        out_path.parent.mkdir(parents=True, exist_ok=True)
        with open(out_path, "wb") as log, tempfile.TemporaryFile() as errf:
            try:
                proc = subprocess.Popen(self.command(files or [test_file], extra_args),
                                        cwd=self.work,
                                        env=env, stdout=log, stderr=errf, stdin=subprocess.DEVNULL,
                                        pass_fds=(wfd, krfd), start_new_session=True,
                                        preexec_fn=_rlimits(self.opts.memory_mb,
                                                            self.opts.cpu_seconds,
                                                            self.opts.fsize_mb))
            finally:
                os.close(wfd)
                os.close(krfd)
            reader.start()
            fired = threading.Event()

            def kill() -> None:  # a timer, not wait(timeout=): wait() then blocks in waitpid
                fired.set()
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
            timer = threading.Timer(self.opts.file_timeout, kill)
            timer.daemon = True
            timer.start()
            try:
                rc = proc.wait()
            finally:
                timer.cancel()
            killed = fired.is_set()
            reader.join(timeout=30)
            errf.seek(0)
            stderr = errf.read().decode("utf-8", "replace")
        stdout = out_path.read_text("utf-8", "replace")
        messages, bad = [], 0
        for line in b"".join(sink).decode("utf-8", "replace").splitlines():
            try:
                env_ = json.loads(line)
                payload, mac = env_["p"], env_["m"]
            except (ValueError, KeyError, TypeError):
                bad += 1
                continue
            want = hmac.new(key, payload.encode(), hashlib.sha256).hexdigest()
            if not hmac.compare_digest(want, str(mac)):
                bad += 1
                continue
            messages.append(json.loads(payload))
        return FileRun(test_file, rc, stdout[-20000:], stderr[-20000:],
                       time.monotonic() - t0, messages, bad, killed)


# ----------------------------------------------------------------- main entry
def _layer_of(task: Task) -> Any:
    from gavelkit.task.gates.gate_e import layer_index

    idx = layer_index(task)

    def layer(nodeid: str) -> str:
        hit = idx.get(func_key(nodeid))
        if hit:
            return hit
        stem = func_key(nodeid).split(".", 1)[0]
        return "atomic" if stem == "test_atomic" else "unknown"
    return layer


def expected_ids(task: Task, reference: dict[str, Any] | None) -> tuple[list[str], str]:
    if task.kept is not None and task.kept.ids:
        return list(task.kept.ids), task.rel(task.paths["kept"])
    if reference and isinstance(reference.get("cases"), list):
        ids = [c["nodeid"] for c in reference["cases"] if isinstance(c, dict) and "nodeid" in c]
        if ids:
            return ids, "reference run"
    from gavelkit.task.gates.gate_e import scoring_set

    ids = scoring_set(task)
    return ids, "spec_test_map.md / task.json taxonomy" if ids else "none"


def _load_reference(task: Task, opts: RunOptions) -> dict[str, Any] | None:
    path = Path(opts.reference_score) if opts.reference_score else None
    if path is None:
        for cand in (task.dir / "judge" / "reference_run" / "score_result.json",):
            if cand.is_file():
                path = cand
        if path is None and task.reference_score is not None:
            return task.reference_score.raw
    if path is None or not path.is_file():
        return None
    try:
        data = json.loads(path.read_text("utf-8-sig"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def prepare_worktree(task: Task, work: Path, files: list[str], remove: list[str],
                     package: str | None) -> list[str]:
    """Copy the oracle into a private worktree; return what was removed and why."""
    removed = []
    if (task.dir / "oracle").is_dir():
        shutil.copytree(task.dir / "oracle", work / "oracle", ignore=_ignore)
    for rel in files:
        src = task.dir / rel
        dst = work / rel
        if src.is_file() and not dst.exists():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
            conf = src.parent / "conftest.py"
            if conf.is_file() and not (dst.parent / "conftest.py").exists():
                shutil.copy2(conf, dst.parent / "conftest.py")
    for ini in ("pytest.ini",):
        for base in (task.dir / "oracle", task.dir):
            if (base / ini).is_file():
                shutil.copy2(base / ini, work / "gavel-oracle-pytest.ini")
                break
    targets = list(remove)
    if package:
        targets += [package, f"{package}.py"]
    for rel in targets:
        for base in (work, work / "oracle", *(work / Path(f).parent for f in files)):
            p = base / rel
            if p.exists():
                shutil.rmtree(p) if p.is_dir() else p.unlink()
                removed.append(str(p.relative_to(work)))
    return sorted(set(removed))


def neutralise(sol: Path, package: str | None) -> list[Finding]:
    """Remove planted files from the private solution copy; one finding each."""
    out: list[Finding] = []
    for p in sorted(sol.rglob("*")):
        if not p.is_file():
            continue
        rel = str(p.relative_to(sol))
        sev = PLANTED_NAMES.get(p.name)
        why = ""
        if p.suffix == ".pth":
            sev, why = "error", "a .pth file runs code at interpreter start"
        elif p.name in ("sitecustomize.py", "usercustomize.py"):
            why = "runs code at interpreter start, before pytest"
        elif p.name == "conftest.py":
            why = "pytest would load it as test configuration"
        elif p.name == "pytest.ini":
            why = "pytest configuration belongs to the oracle"
        elif p.name in ("pyproject.toml", "tox.ini", "setup.cfg"):
            text = p.read_text("utf-8", "replace")
            if "[tool.pytest" in text or "[pytest]" in text or "[tool:pytest]" in text:
                sev, why = "warning", "carries pytest configuration"
        if sev and why:
            p.unlink()
            code = "TSK-X002" if sev == "error" else "TSK-X003"
            out.append(Finding(code, sev, f"solution file {rel} removed before scoring: {why}",
                               rel, 0, 0, data={"file": rel}))
    return out


def suspicious_source(sol: Path) -> list[Finding]:
    """Cheap static flags on candidate code that reaches into the test machinery."""
    from gavelkit.task.judgedata import table

    pats = [(re.compile(e["regex"]), e) for e in table("tamper_patterns")["pattern"]]
    out: list[Finding] = []
    for p in sorted(sol.rglob("*.py")):
        if set(p.relative_to(sol).parts) & SKIP_DIRS:
            continue
        try:
            lines = p.read_text("utf-8", "replace").splitlines()
        except OSError:
            continue
        rel = str(p.relative_to(sol))
        for i, line in enumerate(lines, 1):
            for rx, e in pats:
                m = rx.search(line)
                if m:
                    out.append(Finding("TSK-X004", "warning",
                                       f"candidate code {e['what']}: {line.strip()[:120]}",
                                       rel, i, m.start() + 1, data={"pattern": e["id"]}))
    return out


def run_solution(task_dir: str | Path, opts: RunOptions) -> RunResult:
    """Score `opts.solution` against the task's oracle; write `<out>/score_result.json`."""
    from gavelkit.core.textio import atomic_write
    from gavelkit.task import envbuild
    from gavelkit.task.oracle import current_digests

    task = load_task(task_dir)
    sol_src = Path(opts.solution)
    if not sol_src.is_dir():
        raise InputError(str(sol_src), "solution folder not found")
    out = Path(opts.out)
    out.mkdir(parents=True, exist_ok=True)
    findings: list[Finding] = [f for f in task.findings if f.unusable]
    if findings:
        raise InputError(findings[0].path, findings[0].message)
    package = target_package(task, opts.package)
    remove = list(dict.fromkeys(task_remove_paths(task) + list(opts.remove_paths)))
    reference = _load_reference(task, opts) if opts.role == "candidate" else None
    expected, expected_src = expected_ids(task, reference)
    layer = _layer_of(task)
    if not expected:
        findings.append(Finding("TSK-X001", "error", "the task names no expected node ids "
                                "(no kept_nodeids.txt, covered map rows or taxonomy): nothing "
                                "can be scored", str(task.dir), 0, 0))
    # environment
    req = None
    if task.task_json and isinstance(task.task_json.oracle.get("requirements"), str):
        req = task.dir / task.task_json.oracle["requirements"]
    if req is None or not req.is_file():
        req = task.dir / "oracle" / "requirements.txt"
    env_error = ""
    env = None
    try:
        env = (envbuild.given_env(opts.python, req) if opts.python else
               envbuild.build_env(req if req.is_file() else None, offline=opts.offline,
                                  cache=Path(opts.cache) if opts.cache else None))
    except envbuild.EnvError as exc:
        env_error = str(exc)
        findings.append(Finding("TSK-X005", "error", f"scoring environment: {exc}",
                                str(req), 0, 0))
    # isolation
    ok_bwrap, why_bwrap = bwrap_available()
    use_bwrap = opts.isolation in ("auto", "bwrap") and ok_bwrap
    if opts.isolation == "bwrap" and not ok_bwrap:
        raise InputError("bwrap", f"--isolation bwrap requested but {why_bwrap}")
    if not use_bwrap:
        findings.append(Finding("TSK-X006", "warning",
                                "ISOLATION INACTIVE: no network namespace and no read-only "
                                "mounts for this run (" + (why_bwrap if opts.isolation != "none"
                                                            else "--isolation none") + ")",
                                str(task.dir), 0, 0))
    run_dir = Path(tempfile.mkdtemp(prefix="gavel-run-"))
    try:
        sol = run_dir / "solution"
        outside = outside_links(sol_src)
        for rel, target in outside:
            findings.append(Finding("TSK-X015", "error", f"solution entry {rel} is a symlink to "
                                    f"{target}, outside the solution: not copied",
                                    rel, 0, 0, data={"target": target}))
        skip = {str((sol_src / rel).parent.resolve() / Path(rel).name) for rel, _ in outside}

        def ignore(d: str, names: list[str]) -> set[str]:
            return _ignore(d, names) | {n for n in names if str(Path(d).resolve() / n) in skip}
        shutil.copytree(sol_src, sol, ignore=ignore, symlinks=False)
        findings += neutralise(sol, package)
        if opts.role == "candidate":
            findings += suspicious_source(sol)
        import_root, layout = find_import_root(sol, package) if package else (sol, "unknown")
        if package and import_root is None:
            findings.append(Finding("TSK-X007", "error", f"package {package!r} not found in the "
                                    "solution (looked for PKG/, PKG.py, src/PKG, nested PKG/)",
                                    str(sol_src), 0, 0))
        work = run_dir / "work"
        work.mkdir()
        files = list(dict.fromkeys(file_of(n) for n in expected))
        removed = prepare_worktree(task, work, files, remove, package)
        ini = run_dir / "gavel-pytest.ini"
        oracle_ini = work / "gavel-oracle-pytest.ini"
        ini.write_text(oracle_ini.read_text("utf-8") if oracle_ini.is_file() else "[pytest]\n",
                       "utf-8")
        before_task = current_digests(task)
        before_work = _tree_digest(work)
        extra_args = []
        if task.task_json and isinstance(task.task_json.oracle.get("pytest_args"), list):
            extra_args = [str(a) for a in task.task_json.oracle["pytest_args"]
                          if str(a).startswith("-") and "plugin" not in str(a)]
        (run_dir / "scratch").mkdir()
        rounds: list[dict[str, Any]] = []
        repeat = max(1, opts.repeat)
        file_runs: dict[str, FileRun] = {}
        if env is not None and expected:
            box = _Sandbox(run_dir, env, import_root, opts, use_bwrap)
            # the task folder (oracle, maps, earlier runs) is hidden from the test process:
            # it sees only the private worktree copy
            box.hidden = [task.dir.resolve()] + ([sol_src.resolve()] if not _inside(
                task.dir.resolve(), sol_src.resolve()) else [])
            for k in range(repeat):
                per: dict[str, Any] = {}
                if opts.group == "run":
                    if opts.progress:
                        opts.progress(f"{task.id}: {len(files)} file(s) in one process")
                    fr = box.run_file("all-files", expected, extra_args, files=files)
                    for f in files:
                        file_runs.setdefault(f, fr)
                        per[f] = fr
                    rounds.append(per)
                    continue
                for i, f in enumerate(files):
                    if opts.progress:
                        opts.progress(f"{task.id}: {f} ({i + 1}/{len(files)})"
                                      + (f" round {k + 1}/{repeat}" if repeat > 1 else ""))
                    ids = [n for n in expected if file_of(n) == f]
                    fr = box.run_file(f, ids, extra_args)
                    file_runs[f] = fr if k == 0 else file_runs[f]
                    per[f] = fr
                rounds.append(per)
        after_work = _tree_digest(work)
        after_task = current_digests(task)  # the same files, re-read and re-hashed
        score = assemble(task, expected, expected_src, rounds, layer, reference, opts, findings)
        changed = sorted(k for k in set(before_work) | set(after_work)
                         if before_work.get(k) != after_work.get(k))
        if changed:
            findings.append(Finding("TSK-X008", "error", "the oracle worktree changed during the "
                                    f"run: {', '.join(changed[:8])}", str(task.dir), 0, 0,
                                    data={"changed": changed}))
        if before_task != after_task:
            findings.append(Finding("TSK-X008", "error", "the task's oracle files changed during "
                                    "the run", str(task.dir), 0, 0))
        score.update({
            "platform": platform.platform(), "python_version": sys.version,
            "timeout_seconds": opts.file_timeout, "remove_paths": remove,
            "source_repo": str(task.dir.resolve()), "solution_dir": str(sol_src.resolve()),
            "nodeids": str(task.paths.get("kept", "")), "run_dir": str(out.resolve()),
            "taxonomy": str(task.paths.get("taxonomy", "")),
            "grouped_results": {f: {"returncode": fr.returncode, "stdout": fr.stdout[-4000:],
                                    "stderr": fr.stderr[-4000:], "seconds": round(fr.seconds, 3),
                                    "killed_after_timeout": fr.killed}
                                for f, fr in file_runs.items()},
        })
        score["gavel"].update({
            "role": opts.role, "package": package, "import_root_layout": layout,
            "removed_from_worktree": removed,
            "environment": env.to_dict() if env else {"error": env_error},
            "isolation": {
                "active": use_bwrap, "mechanism": "bubblewrap" if use_bwrap else "none",
                "network": "blocked (new network namespace)" if use_bwrap else "NOT blocked",
                "filesystem": ("read-only except a scratch folder; environment mounted "
                               "read-only") if use_bwrap else "NOT confined",
                "why_inactive": "" if use_bwrap else (why_bwrap or "--isolation none"),
                "plugin_autoload": False, "cache_provider": False,
                "plugins": env.plugin_args() if env else [],
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
        rel_root = (import_root.relative_to(sol) if import_root is not None
                    and _inside(import_root, sol) else Path("."))
        meta = {"package": package, "solution_dir": str(sol_src.resolve()), "role": opts.role,
                "import_root": str((sol_src / rel_root).resolve()),
                "remove_paths": remove,
                "environment": {"python": env.python if env else None,
                                "digest": env.digest if env else None}}
        atomic_write(out / "run_meta.json", json.dumps(meta, indent=2) + "\n")
        atomic_write(out / "score_result.json",
                     json.dumps(score, ensure_ascii=False, indent=2, default=str) + "\n")
        logs = out / "logs"
        if (run_dir / "logs").is_dir():
            if logs.exists():
                shutil.rmtree(logs)
            shutil.copytree(run_dir / "logs", logs)
    finally:
        _rmtree(run_dir)
    return RunResult(score, findings, out / "score_result.json")


def _rmtree(p: Path) -> None:
    def onerr(func, path, exc):  # type: ignore[no-untyped-def]
        try:
            os.chmod(path, 0o700)
            func(path)
        except OSError:
            pass
    shutil.rmtree(p, onerror=onerr)


def _combined(d: dict[str, str]) -> str:
    from gavelkit.task.oracle import combined

    return combined(d)


def assemble(task: Task, expected: list[str], expected_src: str, rounds: list[dict[str, Any]],
             layer: Any, reference: dict[str, Any] | None, opts: RunOptions,
             findings: list[Finding]) -> dict[str, Any]:
    """Reconcile the plugin messages of every file (and round) against the expected ids."""
    from gavelkit.task.classify import classify_case, context_for

    ref_out: dict[str, str] = {}
    if reference and isinstance(reference.get("cases"), list):
        for c in reference["cases"]:
            if isinstance(c, dict) and isinstance(c.get("nodeid"), str):
                ref_out[c["nodeid"]] = str(c.get("outcome", ""))
    ctx = context_for(task, opts)
    outcomes_by_round: list[dict[str, tuple[str, dict[str, Any]]]] = []
    channel = {"forged_reports": [], "extra_ids": [], "bad_macs": 0, "tamper": [],
               "exit_status_mismatch": [], "no_end_message": []}
    expected_files = {file_of(n) for n in expected}
    for rnd in rounds:
        res: dict[str, tuple[str, dict[str, Any]]] = {}
        seen_runs: set[int] = set()
        for f, fr in rnd.items():
            shared = sum(1 for x in rnd.values() if x is fr) > 1
            first = id(fr) not in seen_runs
            seen_runs.add(id(fr))
            reports: dict[str, list[dict[str, Any]]] = {}
            collect_err = None
            ended = None
            collected: list[str] = []
            if first:
                channel["bad_macs"] += fr.bad_macs
            for m in fr.messages:
                t = m.get("t")
                if t == "report":
                    reports.setdefault(m["nodeid"], []).append(m)
                elif t == "collect_error":
                    where = str(m.get("nodeid", ""))
                    mine = (not shared or where in ("", f) or f.startswith(where + "/")
                            or where.startswith(f + "::"))
                    if mine:
                        collect_err = collect_err or m
                elif t == "end":
                    ended = m
                elif t == "collected":
                    collected = list(m.get("ids", []))
                elif t == "tamper" and first:
                    channel["tamper"].append({"file": f, **m})
            exp = [n for n in expected if file_of(n) == f]
            exp_set = set(exp)
            for nid in reports:
                if nid not in exp_set and (file_of(nid) == f or (
                        first and file_of(nid) not in expected_files)):
                    channel["extra_ids"].append(nid)
            any_fail = False
            for nid in exp:
                reps = reports.get(nid)
                if reps:
                    out, dec, forged = node_outcome(reps)
                    if forged:
                        channel["forged_reports"].append(nid)
                    detail = {"phase": dec.get("when"), "crash": dec.get("crash"),
                              "longrepr": dec.get("longrepr", ""), "duration": sum(
                                  r.get("duration", 0) for r in reps)}
                elif fr.killed:
                    out, detail = "timeout", {"phase": "file", "longrepr":
                                              f"test file killed after {opts.file_timeout:g} s"}
                elif collect_err is not None:
                    out, detail = "collection_error", {"phase": "collect",
                                                      "longrepr": collect_err.get("longrepr", "")}
                elif ended is None:
                    out, detail = "not_collected", {
                        "phase": "process", "longrepr": "the test process ended without a "
                        f"result for this node (exit {fr.returncode}): "
                        + (fr.stderr.strip()[-1500:] or fr.stdout.strip()[-1500:])}
                else:
                    out, detail = "not_collected", {
                        "phase": "collect", "longrepr": "node id not collected"
                        + (f"; the file collected {len(collected)} other id(s)" if collected
                           else "")}
                detail["returncode"] = fr.returncode
                detail["stderr_tail"] = fr.stderr.strip()[-800:]
                res[nid] = (out, detail)
                any_fail = any_fail or out not in (*PASSING, "skipped")
            if ended is None and not fr.killed and first:
                channel["no_end_message"].append(f)
            if fr.returncode == 0 and any_fail:
                channel["exit_status_mismatch"].append(f)
            if ended is not None and int(ended.get("exitstatus", -1)) != fr.returncode \
                    and fr.returncode >= 0 and first:
                channel["exit_status_mismatch"].append(f)
        outcomes_by_round.append(res)
    base = outcomes_by_round[0] if outcomes_by_round else {}
    flaky = set()
    for nid in expected:
        seen = {r.get(nid, ("missing", {}))[0] in PASSING for r in outcomes_by_round}
        if len(seen) > 1:
            flaky.add(nid)
    cases = []
    summary = {k: 0 for k in ("passed", "failed", "error", "skipped", "timeout",
                              "collection_error", "not_collected")}
    detail_counts: dict[str, int] = {}
    by_layer: dict[str, dict[str, int]] = {}
    for nid in expected:
        out, d = base.get(nid, ("not_collected", {"phase": "none", "longrepr": "not run"}))
        counted = "passed" if out in PASSING else out
        if out == "skipped" and opts.role == "candidate" and ref_out.get(nid) != "skipped":
            counted = "failed"
        lay = layer(nid)
        case: dict[str, Any] = {"nodeid": nid, "base_nodeid": base_nodeid(nid), "layer": lay,
                                "file": file_of(nid), "outcome": out, "counted_as": counted}
        if out == "skipped" and counted == "failed":
            case["note"] = ("skip caused by the candidate (the reference does not skip it) "
                            "counts as a failure")
        if nid in flaky:
            case["flaky"] = True
        call: dict[str, Any] = {"outcome": out, "phase": d.get("phase"),
                                "duration": round(float(d.get("duration") or 0), 6)}
        if d.get("crash"):
            call["crash"] = d["crash"]
        if d.get("longrepr"):
            call["longrepr"] = d["longrepr"]
        case["call"] = call
        if counted not in ("passed", "skipped"):
            cls = classify_case(case, d, ctx)
            case["classification"] = cls
        cases.append(case)
        summary[counted if counted in summary else "failed"] += 1
        detail_counts[out] = detail_counts.get(out, 0) + 1
        bl = by_layer.setdefault(lay, {"total": 0})
        bl[counted] = bl.get(counted, 0) + 1
        bl["total"] += 1
    summary["total"] = len(expected)
    denom = summary["total"] - summary["skipped"]
    rate = summary["passed"] / denom if denom > 0 else None
    collected_any = any(c["outcome"] not in ("collection_error", "not_collected")
                        for c in cases)
    if expected and not collected_any:
        findings.append(Finding("TSK-X009", "error", f"0 of {len(expected)} expected node ids "
                                "ran: the run measured nothing (an invalid run, not 0 %)",
                                str(task.dir), 0, 0))
    if channel["forged_reports"]:
        findings.append(Finding("TSK-X010", "error", f"{len(channel['forged_reports'])} test "
                                "report(s) said passed while the test raised (reports forged "
                                "in the test process); counted as failed",
                                str(task.dir), 0, 0, data={"nodeids": channel["forged_reports"][:50]}))
    if channel["tamper"]:
        what = sorted({c for t in channel["tamper"] for c in t.get("changed", [])})
        findings.append(Finding("TSK-X010", "error", "pytest's reporting machinery was replaced "
                                f"at run time: {', '.join(what)}", str(task.dir), 0, 0))
    if channel["bad_macs"]:
        findings.append(Finding("TSK-X010", "error", f"{channel['bad_macs']} result line(s) "
                                "failed authentication (written by someone else than gavel's "
                                "plugin) and were ignored", str(task.dir), 0, 0))
    if channel["extra_ids"]:
        findings.append(Finding("TSK-X011", "warning", f"{len(channel['extra_ids'])} reported "
                                "node id(s) are not in the expected set and were ignored: "
                                + ", ".join(channel["extra_ids"][:5]), str(task.dir), 0, 0))
    if channel["exit_status_mismatch"]:
        findings.append(Finding("TSK-X012", "error", "pytest's exit status disagrees with the "
                                "per-test outcomes in " + ", ".join(sorted(set(
                                    channel["exit_status_mismatch"]))) + " (exit status "
                                "reset or results suppressed)", str(task.dir), 0, 0))
    if channel["no_end_message"]:
        findings.append(Finding("TSK-X013", "warning", "the test process ended before pytest "
                                "finished in " + ", ".join(channel["no_end_message"])
                                + " (crash, os._exit or a resource limit); missing nodes "
                                "count as failed", str(task.dir), 0, 0))
    if flaky:
        findings.append(Finding("TSK-X014", "warning", f"{len(flaky)} node(s) changed outcome "
                                f"across {len(rounds)} runs (flaky): "
                                + ", ".join(sorted(flaky)[:5]), str(task.dir), 0, 0,
                                data={"flaky": sorted(flaky)}))
    classes: dict[str, int] = {}
    for c in cases:
        if "classification" in c:
            k = c["classification"]["class"]
            classes[k] = classes.get(k, 0) + 1
    return {
        "summary": summary,
        "pass_rate_excluding_skips": rate,
        "by_layer": by_layer,
        "cases": cases,
        "gavel": {
            "schema": 1, "expected_from": expected_src, "outcomes": detail_counts,
            "rounds": len(rounds), "flaky": sorted(flaky), "classification": classes,
            "channels": channel,
            "collected_ok": collected_any,
        },
    }
