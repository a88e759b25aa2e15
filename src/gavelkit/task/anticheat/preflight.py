"""Import-provenance preflight: does `import PKG` really load the candidate's code?

Library entry point for the judge::

    res = run_preflight("cleo", "/runs/x/solution", python="/venv/bin/python",
                        cwd=None, remove_paths=["cleo"])
    res.passed      # True only if the real path of PKG.__file__ is inside the candidate
    res.block_text  # the literal "Preflight output" block for the diagnosis report
    res.reason      # one sentence: why it passed or failed
    res.kind        # ok | not-importable | cwd-shadow | site-packages | pth-redirect |
                    # namespace | symlink | pythonpath | outside | error

The literal command of the seed, `python -c "import PKG; print(PKG.__file__)"`,
runs in a fresh subprocess of the scoring interpreter with the candidate on
PYTHONPATH, from a neutral empty working directory (or from `cwd`, the folder the
scorer runs in, to expose `sys.path[0]` shadowing; `remove_paths` are then
hidden, as the scorer's `--remove-path` deletes them). Its output is recorded
verbatim. A second probe in the same environment explains a failure: which
`sys.path` entry won, whether a `.pth` file put it there or a meta-path finder
(editable install) served it, whether it is site-packages, whether the package
is a namespace package, and whether a symlink leads out of the candidate.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError, UsageError
from gavelkit.core.findings import Finding

TIMEOUT = 60

_PROBE = r"""
import importlib.util, json, os, site, sys
_write, _read = os.write, sys.stdin.readline
name = sys.argv[1]
out = {"sys_path": list(sys.path), "executable": sys.executable, "pth": [], "error": None,
       "pythonpath": os.environ.get("PYTHONPATH", "")}
try:
    mod = __import__(name)
    spec = getattr(mod, "__spec__", None)
    out["file"] = getattr(mod, "__file__", None)
    out["path"] = [str(p) for p in (getattr(mod, "__path__", None) or [])]
    out["origin"] = getattr(spec, "origin", None)
    out["loader"] = type(getattr(spec, "loader", None)).__name__ if spec else None
except BaseException as exc:
    out["error"] = f"{type(exc).__name__}: {exc}"
dirs = []
try:
    dirs += site.getsitepackages()
except Exception:
    pass
try:
    dirs.append(site.getusersitepackages())
except Exception:
    pass
out["site_dirs"] = dirs
for d in dirs:
    try:
        names = sorted(os.listdir(d))
    except OSError:
        continue
    for n in names:
        if n.endswith(".pth"):
            try:
                with open(os.path.join(d, n), encoding="utf-8", errors="replace") as fh:
                    lines = [ln.rstrip("\n") for ln in fh]
            except OSError as exc:
                out["pth"].append({"file": os.path.join(d, n), "lines": [],
                                   "unread": str(exc)})
                continue
            out["pth"].append({"file": os.path.join(d, n), "lines": lines[:5000],
                               "cut": max(0, len(lines) - 5000)})
# the marker comes from stdin only now, after the import: the imported code never saw it
_write(1, ("\nGAVEL-PREFLIGHT " + _read().strip() + " " + json.dumps(out) + "\n").encode())
"""


@dataclass
class PreflightResult:
    package: str
    candidate: str
    passed: bool
    kind: str
    reason: str
    command: str
    output: str
    returncode: int
    resolved: str | None = None
    file: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def not_run(cls, package: str, candidate: str, why: str) -> PreflightResult:
        """The probe could not be started (no target package, no candidate folder): the
        literal block still opens the report, saying why; never a pass."""
        return cls(package, candidate, False, "not-run", why,
                   f'python -c "import {package}; print({package}.__file__)"',
                   f"(not run: {why})", -1)

    @property
    def ran(self) -> bool:
        return self.kind != "not-run"

    @property
    def block_text(self) -> str:
        body = self.output if self.output.endswith("\n") or not self.output else self.output + "\n"
        return (f"### Preflight output\n\n```text\n$ {self.command}\n{body}```\n\n"
                f"Verdict: {'PASS' if self.passed else 'FAIL'} — {self.reason}\n")

    def findings(self) -> list[Finding]:
        code = {"ok": "", "not-importable": "PRE-001", "cwd-shadow": "PRE-002",
                "site-packages": "PRE-003", "pth-redirect": "PRE-004", "namespace": "PRE-005",
                "symlink": "PRE-006", "pythonpath": "PRE-007", "outside": "PRE-007",
                "error": "PRE-001", "not-run": "PRE-008"}[self.kind]
        if not code:
            return []
        return [Finding(code, "error", self.reason, self.candidate, data={
            "kind": self.kind, "file": self.file, "resolved": self.resolved})]

    def to_dict(self) -> dict[str, Any]:
        return {"package": self.package, "candidate": self.candidate, "passed": self.passed,
                "kind": self.kind, "reason": self.reason, "command": self.command,
                "output": self.output, "returncode": self.returncode, "file": self.file,
                "resolved": self.resolved, "block_text": self.block_text,
                "details": self.details}


def _inside(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([os.path.realpath(path), root]) == root
    except ValueError:
        return False


def _view_without(cwd: Path, remove: Sequence[str], tmp: Path) -> Path:
    """A folder of symlinks to cwd's entries minus the removed ones (nothing is deleted)."""
    view = tmp / "view"
    view.mkdir()
    drop = {Path(r).parts[0] for r in remove if r and not os.path.isabs(r)}
    drop |= {os.path.relpath(r, cwd).split(os.sep)[0] for r in remove if os.path.isabs(r)}
    for entry in cwd.iterdir():
        if entry.name not in drop:
            os.symlink(entry, view / entry.name)
    return view


def run_preflight(package: str, candidate: str | os.PathLike[str], python: str | None = None,
                  cwd: str | os.PathLike[str] | None = None, remove_paths: Sequence[str] = (),
                  env: dict[str, str] | None = None, pythonpath: bool = True,
                  timeout: float = TIMEOUT) -> PreflightResult:
    """Run the provenance probe and decide; raises InputError/UsageError for bad arguments."""
    cand_real, exe = _check_args(package, candidate, python)
    run_env = _probe_env(env, candidate if pythonpath else None)
    code = f"import {package}; print({package}.__file__)"
    with tempfile.TemporaryDirectory(prefix="gavel-preflight-") as tmp:
        run_dir = _run_dir(cwd, remove_paths, Path(tmp))
        command = _command_text(exe, code, cwd, remove_paths,
                                run_env["PYTHONPATH"] if pythonpath else None)
        try:
            proc, info = _probe(exe, code, package, run_dir, run_env, Path(tmp), timeout)
        except subprocess.TimeoutExpired:
            return PreflightResult(package, cand_real, False, "error",
                                   f"the import did not finish within {timeout:g} s", command,
                                   "", -1)
        run_dir_real = os.path.realpath(run_dir)
    return _decide(package, package.split(".")[0], cand_real, command,
                   proc.stdout + proc.stderr, proc.returncode, info, run_dir_real,
                   str(cwd) if cwd is not None else None)


def _check_args(package: str, candidate: str | os.PathLike[str],
                python: str | None) -> tuple[str, str]:
    """The candidate's real folder and the interpreter, or the usage/input error."""
    if not package or not package.replace("_", "a").replace(".", "a").isalnum():
        raise UsageError(f"not an importable package name: {package!r}")
    if not Path(candidate).is_dir():
        raise InputError(str(candidate), "candidate folder not found", code="PRE-008")
    exe = python or sys.executable
    if shutil.which(exe) is None and not os.access(exe, os.X_OK):
        raise InputError(exe, "scoring interpreter not found or not executable", code="PRE-008")
    return os.path.realpath(candidate), exe


def _probe_env(env: dict[str, str] | None,
               candidate: str | os.PathLike[str] | None) -> dict[str, str]:
    """The import's environment: no startup file or home override; the candidate first on
    PYTHONPATH unless told not to (candidate None)."""
    run_env = dict(os.environ if env is None else env)
    for var in ("PYTHONSTARTUP", "PYTHONHOME", "PYTHONSAFEPATH"):
        run_env.pop(var, None)
    if candidate is not None:
        old = run_env.get("PYTHONPATH", "")
        run_env["PYTHONPATH"] = str(candidate) + (os.pathsep + old if old else "")
    return run_env


def _run_dir(cwd: str | os.PathLike[str] | None, remove_paths: Sequence[str],
             tmp: Path) -> Path:
    """Where the import runs: the given folder (a view without --remove-path entries), or a
    fresh empty one."""
    if cwd is None:
        run_dir = tmp / "neutral"
        run_dir.mkdir()
        return run_dir
    where = Path(cwd)
    if not where.is_dir():
        raise InputError(str(cwd), "working directory not found", code="PRE-008")
    return _view_without(where.resolve(), remove_paths, tmp) if remove_paths else where


def _command_text(exe: str, code: str, cwd: str | os.PathLike[str] | None,
                  remove_paths: Sequence[str], pythonpath: str | None) -> str:
    """The command as the report shows it (what a reader can paste)."""
    prefix = (f"cd {shlex.quote(str(cwd))} && " if cwd is not None
              else 'cd "$(mktemp -d)" && ')
    if cwd is not None and remove_paths:
        prefix = (f"# run from a symlink view of {cwd} without {', '.join(remove_paths)} "
                  "(the scorer's --remove-path)\n$ " + prefix)
    if pythonpath is not None:
        prefix += f"PYTHONPATH={shlex.quote(pythonpath)} "
    return prefix + f"{shlex.quote(exe)} -c {shlex.quote(code)}"


def _probe(exe: str, code: str, package: str, run_dir: Path, run_env: dict[str, str],
           tmp: Path, timeout: float) -> tuple[_Capped, dict[str, Any]]:
    """The literal import, then the probe's marked answer. The import runs the candidate's
    code: confined as the scoring run is (read-only files but a private HOME/TMPDIR, no
    network; sandbox.confine)."""
    from gavelkit.task.scoring.sandbox import confine

    scratch = tmp / "scratch"
    box_env = {**run_env, "HOME": str(scratch), "TMPDIR": str(scratch)}

    def boxed(cmd: list[str]) -> list[str]:
        return confine(cmd, writable=[scratch], cwd=Path(run_dir).resolve())[0]
    try:
        proc = _run_capped(boxed([exe, "-c", code]), run_dir, box_env, timeout)
        nonce = os.urandom(16).hex()
        probe = subprocess.run(boxed([exe, "-c", _PROBE, package]), cwd=run_dir,
                               env=box_env, capture_output=True, text=True, timeout=timeout,
                               input=nonce + "\n")
    except OSError as exc:
        raise InputError(exe, f"cannot run the scoring interpreter: {exc}",
                         code="PRE-008") from None
    return proc, _marked(probe.stdout, nonce)


OUTPUT_CAP = 32 * 1024  # bytes kept from each end of what the import prints


class _Capped:
    __slots__ = ("returncode", "stderr", "stdout")

    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def _run_capped(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float) -> _Capped:
    """Run the import keeping only the head and tail of its output: a candidate that prints
    300 MB on import must not be copied whole into memory and the preflight block."""
    import threading

    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    kept: dict[str, str] = {}

    def drain(name: str, stream: Any) -> None:
        head = bytearray()
        tail = bytearray()
        total = 0
        for chunk in iter(lambda: stream.read(1 << 16), b""):
            total += len(chunk)
            if len(head) < OUTPUT_CAP:
                take = OUTPUT_CAP - len(head)
                head += chunk[:take]
                chunk = chunk[take:]
            tail += chunk
            if len(tail) > OUTPUT_CAP:
                del tail[:len(tail) - OUTPUT_CAP]
        cut = total - len(head) - len(tail)
        text = head.decode("utf-8", "replace")
        if cut > 0:
            text += f"\n[... {cut} bytes of output cut by gavel (kept the first and last " \
                    f"{OUTPUT_CAP // 1024} KiB) ...]\n"
        kept[name] = text + tail.decode("utf-8", "replace")

    threads = [threading.Thread(target=drain, args=(n, s), daemon=True)
               for n, s in (("out", proc.stdout), ("err", proc.stderr))]
    for t in threads:
        t.start()
    try:
        rc = proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise
    finally:
        for t in threads:
            t.join(5)
    return _Capped(rc, kept.get("out", ""), kept.get("err", ""))


def _marked(stdout: str, nonce: str) -> dict[str, Any]:
    """The probe's own answer: the one line carrying the marker it read from stdin after
    the import. None, or two (something printed in its name), is no answer."""
    mark = f"GAVEL-PREFLIGHT {nonce} "
    lines = [ln for ln in stdout.splitlines() if ln.startswith(mark)]
    if len(lines) != 1:
        how = "missing" if not lines else "there more than once"
        return {"error": f"the preflight probe's own answer was {how}", "marked": len(lines)}
    try:
        got = json.loads(lines[0][len(mark):])
    except ValueError:
        return {"error": "the preflight probe's answer was not readable"}
    if not isinstance(got, dict):
        return {"error": "the preflight probe's answer was not an object"}
    return got


def _decide(package: str, top: str, cand: str, command: str, output: str, rc: int,
            info: dict[str, Any], run_dir: str, cwd: str | None) -> PreflightResult:
    """PASS only when the module the probe imported resolves inside the candidate; else
    the first explanation that fits, from the probe's marked answer (never from the last
    line of the output, which anything run by the import could have printed)."""
    res = PreflightResult(package, cand, False, "outside", "", command, output, rc, details=info)
    last = output.strip().splitlines()[-1].strip() if output.strip() else ""
    failed = _no_answer(res, package, rc, last, info)
    if failed is not None:
        return failed
    printed = res.file = _printed(info, last, res.details)
    portions = [str(p) for p in info.get("path") or []]
    if printed == "None" or (not printed and portions):
        return _namespace(res, package, portions, cand)
    real = os.path.realpath(printed)
    res.resolved = real
    if _inside(real, cand):
        res.passed = True
        return _set(res, "ok", f"{package} resolves inside the candidate: {real}")
    return _elsewhere(res, package, top, cand, printed, real, info, run_dir, cwd)


def _no_answer(res: PreflightResult, package: str, rc: int, last: str,
               info: dict[str, Any]) -> PreflightResult | None:
    """The import failed, or the probe gave no usable answer: no provenance to decide on."""
    if rc != 0:
        return _set(res, "not-importable", f"`import {package}` fails in the scoring "
                    f"interpreter: {last or 'no output'}")
    if "marked" in info or (info.get("error") and not info.get("file")):
        return _set(res, "error", f"{info.get('error')}: the import's provenance cannot be "
                    "shown")
    return None


def _printed(info: dict[str, Any], last: str, details: dict[str, Any]) -> str:
    """The module's __file__ as the probe saw it ('None' for a namespace package); a last
    line of output that differs (printed after the import's own line) is kept to show."""
    printed = "None" if info.get("file") is None and "file" in info else str(info.get("file") or "")
    if last and printed and last != printed:
        details["printed_last"] = last
    return printed


def _set(res: PreflightResult, kind: str, reason: str) -> PreflightResult:
    res.kind, res.reason = kind, reason
    return res


def _namespace(res: PreflightResult, package: str, portions: list[str],
               cand: str) -> PreflightResult:
    outside = [p for p in portions if not _inside(p, cand)]
    if outside or not portions:
        return _set(res, "namespace", f"{package} is a namespace package (no __init__.py) "
                    f"with portions outside the candidate: {', '.join(outside) or 'unknown'}")
    return _set(res, "namespace", f"{package} is a namespace package (no __init__.py): "
                "__file__ is None, so provenance cannot be shown; add an __init__.py")


def _elsewhere(res: PreflightResult, package: str, top: str, cand: str, printed: str,
               real: str, info: dict[str, Any], run_dir: str,
               cwd: str | None) -> PreflightResult:
    """Why the module resolved outside the candidate: the first explanation that fits."""
    for why in (_symlink(printed, real, cand),
                _cwd(printed, real, package, top, run_dir, cwd),
                _on_path(real, package, top, info)):
        if why is not None:
            return _set(res, *why)
    res.reason = f"{package} resolves outside the candidate: {real}" + _unread(info)
    return res


def _symlink(printed: str, real: str, cand: str) -> tuple[str, str] | None:
    lexical = os.path.normpath(os.path.abspath(printed))
    inside = lexical == cand or lexical.startswith(cand.rstrip(os.sep) + os.sep)
    if lexical != real and inside:
        return "symlink", f"{printed} is inside the candidate but is a symlink to {real}, outside it"
    return None


def _cwd(printed: str, real: str, package: str, top: str, run_dir: str,
         cwd: str | None) -> tuple[str, str] | None:
    shadowed = _inside(printed, run_dir) or bool(cwd and _inside(printed, os.path.realpath(cwd)))
    if not shadowed:
        return None
    return "cwd-shadow", (f"the working directory shadows the candidate (sys.path[0]): "
                          f"{package} loads from {real}; use --remove-path {top} when scoring")


def _on_path(real: str, package: str, top: str, info: dict[str, Any]) -> tuple[str, str] | None:
    """A .pth redirect, an installed copy, or another sys.path entry ahead of it."""
    owner = _owner(real, info)
    site_dirs = [os.path.realpath(d) for d in info.get("site_dirs") or []]
    hit = _pth_hit(info, top, owner)
    if hit and not (owner is not None and os.path.realpath(owner) in site_dirs):
        return "pth-redirect", (f"a .pth file redirects the import: {hit[0]} adds {hit[1]!r}; "
                                f"{package} loads from {real}")
    if _installed(real, site_dirs):
        return "site-packages", ("an installed copy in site-packages wins over the candidate: "
                                 f"{real} (uninstall it from the scoring environment)")
    if owner:
        return "pythonpath", (f"sys.path entry {owner} provides {package} ({real}) ahead of "
                              "the candidate" + _from_pythonpath(owner, info))
    return None


def _owner(real: str, info: dict[str, Any]) -> str | None:
    """The longest sys.path entry the module's file lies in."""
    entries = [e for e in info.get("sys_path") or [] if e]
    return max((e for e in entries if _inside(real, os.path.realpath(e))), key=len, default=None)


def _from_pythonpath(owner: str, info: dict[str, Any]) -> str:
    pp = [e for e in str(info.get("pythonpath", "")).split(os.pathsep) if e]
    return " (from PYTHONPATH)" if owner in pp else ""


def _installed(real: str, site_dirs: list[str]) -> bool:
    return (any(_inside(real, d) for d in site_dirs) or "site-packages" in real
            or "dist-packages" in real)


def _unread(info: dict[str, Any]) -> str:
    """What the .pth search did not see (a redirect may hide there)."""
    unread = [f"{p['file']} ({p['unread']})" if p.get("unread") else
              f"{p['file']} (lines after 5000, {p['cut']} more)"
              for p in info.get("pth") or [] if p.get("unread") or p.get("cut")]
    return "; .pth files not fully read: " + ", ".join(unread) if unread else ""


def _pth_hit(info: dict[str, Any], top: str, owner: str | None) -> tuple[str, str] | None:
    """A .pth line that imports the package (or an editable finder) or adds its folder."""
    hit = None
    for pth in info.get("pth") or []:
        site_dir = os.path.dirname(str(pth.get("file", "")))
        for ln in pth.get("lines") or []:
            if _pth_line_hits(ln.strip(), top, owner, site_dir):
                hit = (pth["file"], ln.strip())
    return hit


def _pth_line_hits(s: str, top: str, owner: str | None, site_dir: str) -> bool:
    """`site` reads a path line relative to the .pth file's own folder."""
    if not s or s.startswith("#"):
        return False
    if s.startswith(("import ", "import\t")):
        return top in s or "__editable__" in s
    return bool(owner) and (os.path.realpath(os.path.join(site_dir, s))
                            == os.path.realpath(str(owner)))
