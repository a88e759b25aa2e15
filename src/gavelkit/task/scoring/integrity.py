"""What the test process's integrity evidence means: findings, and the run's record of it.

The result plugin's guard (`plugin_guard`, inside the test process, set up before any
candidate code) reports at the end of each process what changed: the runner's callables,
hook implementations registered from outside the oracle and the environment, test
functions whose code is not what their oracle file compiles to, modules of the target
package loaded from outside the candidate (the preflight, re-checked after the session),
standard-library or runner modules loaded from elsewhere, a trace function, and what the
candidate's own code did that the audit hook saw. Any of these makes the run's results
evidence of nothing: TSK-X010 (error), which the judge turns into CHEAT_DETECTED. A
process that reported results but no integrity evidence (it was ended before pytest
finished, or gavel's plugin was removed) cannot be verified: TSK-X026 (error).

Frame access is judged with the source: the audit hook says which line of the candidate
took a frame of the oracle's test code, and that line's function must also read the
frame's locals (`f_locals`, `f_back`, `getattr` with a computed name) to count: honest
libraries take their caller's frame for its module name or line (attrs, logging).
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.findings import Finding

STRONG = ("replaced the", "installed a trace", "installed a profile", "opened process memory")


@dataclass(slots=True)
class Evidence:
    """The integrity evidence of every process of a run."""
    tamper: list[str] = field(default_factory=list)
    changed_sources: list[str] = field(default_factory=list)
    unverified: list[str] = field(default_factory=list)
    runtime: list[dict[str, Any]] = field(default_factory=list)  # audit events, weaker
    missing: list[str] = field(default_factory=list)  # processes without evidence
    processes: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"tamper": self.tamper[:40], "changed_sources": self.changed_sources,
                "unverified_sources": self.unverified[:20], "runtime": self.runtime[:40],
                "processes_without_evidence": self.missing, "processes": self.processes,
                "verified": not self.tamper and not self.changed_sources and not self.missing}


def reads_frame_locals(path: Path, line: int, unknown: bool = True) -> bool:
    """Does the candidate's file hand out values it read from a frame's locals (the
    static rule `caller-locals-value` of `tamperscan`)? Honest libraries read their
    caller's frame for its module name, its line, or a namespace to resolve annotations
    in; they do not return one of its local values."""
    from gavelkit.task.scoring.pysource import may_name, read_source
    from gavelkit.task.scoring.tamperscan import returns_frame_local

    try:
        text = read_source(path)
        if not may_name(text, "f_locals"):  # the rule reads `.f_locals`: nothing to parse
            return False
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError):
        return unknown  # the file that took the frame: cannot tell, the audit event stands
    return bool(returns_frame_local(tree))


_TREES: dict[str, str] = {}


def _frame_reader(path: Path, line: int, run_dir: Path) -> str:
    """Where the candidate hands out a frame-local value ('' nowhere): the file that took
    the frame, else any file of the solution copy that ran (taking a frame in one module
    and reading it in another must not hide it)."""
    if reads_frame_locals(path, line):
        return str(path)
    root = run_dir / "solution"
    if str(root) not in _TREES:
        _TREES[str(root)] = next((str(f) for f in _python_files(root)
                                  if f != path and reads_frame_locals(f, 0, unknown=False)), "")
    return _TREES[str(root)]


def _python_files(root: Path) -> list[Path]:
    from gavelkit.task.scoring.tamperscan import SKIP_DIRS

    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        out += [Path(dirpath) / n for n in sorted(filenames) if n.endswith(".py")]
    return out


def _local(path: str, run_dir: Path, sol_src: Path | None) -> Path:
    """A candidate file as the parent sees it (the test process saw the run's copy)."""
    p = Path(path)
    return p if p.is_file() else (sol_src / p.name if sol_src else p)


def collect(processes: list[Any], run_dir: Path, sol_src: Path | None) -> Evidence:
    """Evidence from every distinct process (FileRun) of a run."""
    ev = Evidence()
    for fr in processes:
        ev.processes += 1
        msgs = fr.messages
        integ = next((m for m in msgs if m.get("t") == "integrity"), None)
        ev.tamper += _replaced_tests(msgs)
        if integ is None:
            if any(m.get("t") == "report" for m in msgs):
                ev.missing.append(fr.file)
            continue
        _one(ev, integ, run_dir, sol_src)
    ev.tamper = list(dict.fromkeys(ev.tamper))
    return ev


def _replaced_tests(msgs: list[dict[str, Any]]) -> list[str]:
    """The per-test code check's reports (the plugin's 'tamper' messages)."""
    out = []
    for m in msgs:
        if m.get("t") == "tamper" and m.get("where") == "test-code":
            out += [f"test function replaced: {c}" for c in m.get("changed", [])]
    return out


def _one(ev: Evidence, integ: dict[str, Any], run_dir: Path, sol_src: Path | None) -> None:
    def got(key: str) -> list[Any]:
        return list(integ.get(key) or [])
    ev.tamper += [f"runner callable replaced: {c.replace(':', '.')}"
                  for c in got("changed_callables")]
    ev.tamper += [f"hook implementation registered from outside the oracle and the "
                  f"environment: {h}" for h in got("foreign_hooks")]
    ev.tamper += got("modules")
    ev.tamper += [str(integ["trace"])] if integ.get("trace") else []
    ev.changed_sources += [s for s in got("changed_sources") if s not in ev.changed_sources]
    ev.unverified += got("unverified_sources")
    for a in got("audit"):
        _audit_event(ev, a, run_dir, sol_src)


def _audit_event(ev: Evidence, a: dict[str, Any], run_dir: Path, sol_src: Path | None) -> None:
    """An audit-hook event: tampering when strong (or a frame whose locals the candidate
    returns), else runtime evidence for the warning."""
    what = str(a.get("what", ""))
    where = f"{a.get('file')}:{a.get('line')}"
    if what.startswith(STRONG):
        ev.tamper.append(f"the candidate's code {what} ({where})")
    elif what.startswith("took a frame") and (peek := _frame_reader(
            _local(str(a.get("file")), run_dir, sol_src), int(a.get("line") or 0), run_dir)):
        ev.tamper.append(f"the candidate's code {what} ({where}) and returns values it read "
                         f"from a frame's locals ({peek})")
    else:
        ev.runtime.append(a)


def findings(ev: Evidence, where: str) -> list[Finding]:
    out: list[Finding] = []
    if ev.tamper:
        out.append(Finding("TSK-X010", "error", "the test process was tampered with: "
                           + "; ".join(ev.tamper[:4]) + (f" (+{len(ev.tamper) - 4} more)"
                                                         if len(ev.tamper) > 4 else ""),
                           where, 0, 0, data={"evidence": ev.tamper[:40]}))
    if ev.changed_sources:
        out.append(Finding("TSK-X008", "error", "oracle files were changed before pytest "
                           "imported them: " + ", ".join(ev.changed_sources[:8]), where, 0, 0,
                           data={"changed": ev.changed_sources}))
    if ev.missing:
        out.append(Finding("TSK-X026", "error", "the test process reported results but "
                           "ended without gavel's integrity check (" + ", ".join(ev.missing)
                           + "): its results cannot be verified", where, 0, 0,
                           data={"processes": ev.missing}))
    shown = [a for a in ev.runtime if not str(a.get("what", "")).startswith("took a frame")]
    if shown:  # a frame taken for a module name or a line (attrs, logging) is no evidence
        first = shown[0]
        out.append(Finding("TSK-X004", "warning", f"candidate code at run time: "
                           f"{first.get('what')} ({first.get('file')}:{first.get('line')})"
                           + (f" and {len(shown) - 1} more" if len(shown) > 1 else ""),
                           where, 0, 0, data={"runtime": shown[:20]}))
    return out
