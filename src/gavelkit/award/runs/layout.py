"""The run folder: minting run ids, creating `work/<run-id>/`, and checking its shape.

Layout, file-name patterns and the variant template are data (layout.yaml,
variant_template.yaml) so the seed's layout lives in one place.
"""

from __future__ import annotations

import functools
import os
import re
import secrets
import time
from pathlib import Path
from typing import Any

from gavelkit.core.findings import Finding
from gavelkit.core.textio import atomic_write

RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")


@functools.cache
def layout() -> dict[str, Any]:
    import yaml

    from gavelkit.data import path

    return yaml.safe_load(path("award", "layout.yaml").read_text(encoding="utf-8"))


def mint_run_id(now: float | None = None, slug: str = "") -> str:
    """Sortable id: UTC timestamp to the second plus 4 random hex digits (and a slug)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now))
    tail = secrets.token_hex(2)
    return f"{stamp}-{tail}" + (f"-{slug}" if slug else "")


def run_dir_for(root: Path, run_id: str) -> Path:
    return root / "work" / run_id


def variant_template(contest: str = "<contest name, e.g. MCM 2026 Problem C>") -> str:
    from gavelkit.data import path

    text = path("award", "variant_template.yaml").read_text(encoding="utf-8")
    return text.replace("{contest}", contest)


def init_run(root: Path, run_id: str | None = None, variant: str | None = None) -> tuple[Path, list[str], bool]:
    """Create the run tree; returns (run dir, what was created, existed before).

    The tree is built in a hidden `.RUNID.<pid>.partial` folder and renamed into
    place, so a killed init never leaves a half-made run (the next init removes
    the dead writer's partial folder). A run that exists but lacks part of the
    layout (made by hand, or by an older version that was killed) is completed:
    missing folders and a missing variant.yaml are created, nothing is overwritten.
    """
    import os
    import shutil

    from gavelkit.core.safeio import check_input, check_output_dir, stale_pid

    rid = run_id or mint_run_id()
    if not RUN_ID.match(rid):
        from gavelkit.core.errors import UsageError

        raise UsageError(f"run id {rid!r} must be letters, digits, '.', '_' or '-' "
                         "(no slashes), at most 80 characters")
    run = run_dir_for(root, rid)
    work = check_output_dir(root / "work")
    for entry in os.scandir(work):
        if entry.is_dir(follow_symlinks=False) and stale_pid(entry.name, ".partial"):
            shutil.rmtree(entry.path, ignore_errors=True)
    created: list[str] = []
    ignore = work / ".gitignore"
    if not os.path.lexists(ignore):
        atomic_write(ignore, "# Run trees are working state, never committed (seed §5).\n*\n")
        created.append(str(ignore))
    if os.path.lexists(run):
        check_input(run, want="dir")
        return run, created + _complete(run, run, variant), True
    tmp = work / f".{rid}.{os.getpid()}.partial"
    shutil.rmtree(tmp, ignore_errors=True)
    made = _complete(tmp, run, variant)
    try:
        os.rename(tmp, run)
    except OSError:  # another init won the race: theirs stands, ours goes
        shutil.rmtree(tmp, ignore_errors=True)
        check_input(run, want="dir")
        return run, created + _complete(run, run, variant), True
    return run, created + made, False


def _complete(where: Path, run: Path, variant: str | None) -> list[str]:
    """Create what the layout lacks under `where`; names are reported as under `run`."""
    made = []
    for folder in layout()["folders"]:
        if not (where / folder).is_dir():
            (where / folder).mkdir(parents=True, exist_ok=True)
            made.append(str(run / folder) + "/")
    target = where / "phase-logs" / "variant.yaml"
    if not target.exists():
        atomic_write(target, variant if variant is not None else variant_template())
        made.append(str(run / "phase-logs" / "variant.yaml"))
    return made


def check_layout(run: Path) -> list[Finding]:
    """Missing layout folders and stray top-level entries of a run folder."""
    out: list[Finding] = []
    expected = layout()["folders"]
    for folder in expected:
        if not (run / folder).is_dir():
            what = "is not a folder" if os.path.lexists(run / folder) else "is missing"
            out.append(Finding("AWD-L001", "warning", f"layout folder {folder}/ {what}",
                               str(run / folder)))
    top = {f.split("/")[0] for f in expected} | {layout().get("briefs", "briefs")}
    for entry in sorted(run.iterdir()) if run.is_dir() else []:
        if entry.name not in top and not entry.name.startswith("."):
            out.append(Finding("AWD-L002", "info", f"{entry.name} is not part of the run layout "
                               f"({', '.join(sorted(top))})", str(entry)))
    return out
