"""A run's metadata (run_meta.json), with its recorded paths resolved and checked.

Runs record `solution_dir` and `import_root` relative to the run folder, so a task folder
moved or copied as a whole (to another machine, into a fleet) keeps working; the absolute
path is kept as a second place to look (a solution scored from outside the task folder),
and absolute paths from older runs are still read. A path recorded on another system (a
Windows `C:\\...` or `\\\\server\\...` path in a file read here) is never joined onto the run
folder: it names no folder on this machine. The solution's file digests recorded at
scoring time are compared with the folder found now: a solution that is missing or
changed since it was scored is a mismatch, and the judge refuses it by name (TSK-J020)
instead of preflighting or measuring code that was not the code scored.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True)
class Provenance:
    """Scoring-time import provenance of an installed solution (`task run --solution-package`)."""

    ok: bool
    why: str
    package: str | None = None
    module_file: str | None = None


@dataclass(frozen=True, slots=True)
class RunMeta:
    """What the judge needs of a run before it reads any score value."""

    run_dir: Path
    package: str | None = None
    solution_dir: str | None = None
    solution_dir_recorded: str | None = None  # as the run wrote it (perhaps another system's)
    import_root: str | None = None
    python: str | None = None
    remove_paths: tuple[str, ...] = ()
    install_kind: str | None = None
    solution_package: str | None = None
    provenance: Provenance | None = None
    mismatch: str = ""
    foreign_paths: tuple[str, ...] = ()  # recorded on another system, not resolved here


def _read_json(path: Path) -> dict[str, Any] | None:
    from gavelkit.core.safeio import json_object_or_none  # a FIFO or deep JSON never hangs

    return json_object_or_none(path)


def is_foreign(value: str) -> bool:
    """A path written on another system (formats/paths.py: a Windows drive or UNC path)."""
    from gavelkit.task.formats.paths import kind

    return kind(value) == "foreign"


def _resolve(value: Any, base: Path) -> str | None:
    if not isinstance(value, str) or not value or is_foreign(value):
        return None
    p = Path(value)
    return str(p if p.is_absolute() else (base / p).resolve())


def _dict(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) else {}


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) and v else None


def _raw(score_path: Path) -> dict[str, Any]:
    side = score_path.parent / "run_meta.json"
    data = _read_json(side) if side.is_file() else None
    if data is not None:
        return data
    score = _read_json(score_path) or {}
    g = _dict(score.get("gavel"))
    return {"package": g.get("package"), "solution_dir": score.get("solution_dir"),
            "environment": g.get("environment") or {},
            "remove_paths": score.get("remove_paths"), "install": g.get("install")}


def read_run_meta(score_path: Path) -> RunMeta:
    """Only the run's metadata (package, solution, environment): no score value."""
    base = score_path.parent
    data = _raw(score_path)
    recorded = _str(data.get("solution_dir"))
    sol, root = _solution(data, recorded, base)
    removes = data.get("remove_paths")
    foreign = tuple(v for k in ("solution_dir", "import_root", "solution_dir_absolute")
                    if isinstance(v := data.get(k), str) and is_foreign(v))
    inst = _dict(data.get("install"))
    return RunMeta(
        run_dir=base, package=_str(data.get("package")), solution_dir=sol,
        solution_dir_recorded=recorded, import_root=root,
        python=_str(_dict(data.get("environment")).get("python")),
        remove_paths=tuple(x for x in (removes if isinstance(removes, list) else [])
                           if isinstance(x, str)),
        install_kind=_str(inst.get("kind")), solution_package=_str(data.get("solution_package")),
        provenance=_provenance(_dict(inst.get("provenance"))),
        mismatch=mismatch(data.get("solution_files"), sol, recorded, base),
        foreign_paths=foreign)


def _solution(data: Mapping[str, Any], recorded: str | None,
              base: Path) -> tuple[str | None, str | None]:
    """The solution folder and import root, resolved against the run folder; a run moved
    without its solution (scored from elsewhere) falls back to the recorded absolute path,
    which is used only if its files match the recorded digests (`mismatch`)."""
    sol = _resolve(recorded, base)
    root = _resolve(data.get("import_root"), base)
    alt = _str(data.get("solution_dir_absolute"))
    if not alt or is_foreign(alt) or not sol or Path(sol).is_dir() or not Path(alt).is_dir():
        return sol, root
    return alt, (str(Path(alt) / os.path.relpath(root, sol)) if root else None)


def _provenance(prov: Mapping[str, Any]) -> Provenance | None:
    if not prov:
        return None
    return Provenance(bool(prov.get("ok")), str(prov.get("why") or ""), _str(prov.get("package")),
                      _str(prov.get("module_file")))


def mismatch(files: Any, sol: str | None, recorded: str | None, base: Path) -> str:
    """Why the solution folder found now is not the one that was scored ('' when it is)."""
    if not sol or not isinstance(files, dict):
        return ""
    where = f"{recorded} (recorded relative to the run folder {base})"
    folder = Path(sol)
    if not folder.is_dir():
        return f"the scored solution folder {where} is not there"
    from gavelkit.task.scoring.install import source_files

    now = source_files(folder)
    changed = sorted(k for k in set(files) | set(now) if files.get(k) != now.get(k))
    if changed:
        return (f"the solution folder {where} changed since it was scored: "
                + ", ".join(changed[:6]) + (f" and {len(changed) - 6} more" if len(changed) > 6
                                            else "") + "; re-score it")
    return ""
