"""Where a run lives and whether an artifact path stays inside it.

Every handoff artifact must resolve under `work/<run-id>/` of *this* run. Paths are
judged as written (POSIX, relative, no backslashes) and, when the run folder is
known, on disk: the file must exist and no symlink may lead out of the run tree.
"""

from __future__ import annotations

import os
import posixpath

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


class PathVerdict:
    """Whether a written path is inside a run, and if not, why (with a fix hint)."""

    __slots__ = ("hint", "normalized", "ok", "problem", "rest", "run_id")

    def __init__(self, ok: bool, run_id: str | None = None, rest: str = "", problem: str = "",
                 hint: str | None = None) -> None:
        self.ok = ok
        self.run_id = run_id
        self.rest = rest
        self.problem = problem
        self.hint = hint
        self.normalized: str | None = None


def run_id_from_location(path: str | Path) -> tuple[str, Path] | None:
    """(run id, run folder) when `path` lies inside some `work/<run-id>/`."""
    parts = os.path.abspath(path).split(os.sep)
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] == "work" and i + 1 < len(parts) - 1:
            run = os.sep.join(parts[: i + 2]) or os.sep
            # a folder merely named work/ (a /work/<project>/ checkout) is not a run:
            # a run has the seed's layout (phase-logs/ at least)
            if os.path.isdir(os.path.join(run, "phase-logs")):
                from pathlib import Path

                return parts[i + 1], Path(run)
    return None


def judge_path(raw: str) -> PathVerdict:
    """Judge a written artifact path without touching the disk."""
    if "\\" in raw:
        return PathVerdict(False, problem="uses backslashes",
                           hint=f"write {raw.replace(chr(92), '/')!r} with forward slashes")
    if raw.startswith("/") or (len(raw) > 1 and raw[1] == ":"):
        return PathVerdict(False, problem="is absolute",
                           hint="write it relative to the project root: work/<run-id>/...")
    norm = posixpath.normpath(raw)
    parts = norm.split("/")
    if parts[0] == "..":
        return PathVerdict(False, problem="escapes the project through '..'")
    if parts[0] != "work":
        hint = None
        if parts[0].casefold() == "work":
            hint = "the folder is 'work' in lower case"
        elif len(parts) > 1:
            hint = "artifact paths start with work/<run-id>/"
        return PathVerdict(False, problem="is not under work/<run-id>/", hint=hint)
    if len(parts) < 3:
        return PathVerdict(False, problem="names the work folder or a run folder, not a file in a run",
                           hint="point at the artifact itself: work/<run-id>/<sub-path>")
    verdict = PathVerdict(True, run_id=parts[1], rest="/".join(parts[2:]))
    if raw.rstrip("/") != norm:
        verdict.normalized = norm
    return verdict


def on_disk(run_dir: Path, rest: str) -> str | None:
    """None when `run_dir/rest` exists and stays inside the run tree, else the problem."""
    target = run_dir / rest
    if not os.path.lexists(target):
        return "missing"
    real_run = os.path.realpath(run_dir)
    real = os.path.realpath(target)
    if os.path.commonpath([real_run, real]) != real_run:
        return f"symlink:{real}"
    if not os.path.exists(target):
        return "missing"
    return None
