"""The run folder: minting run ids, creating `work/<run-id>/`, and checking its shape.

Layout, file-name patterns and the variant template are data (layout.yaml,
variant_template.yaml) so the seed's layout lives in one place.
"""

from __future__ import annotations

import functools
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

    An existing run is left untouched: nothing is created or overwritten.
    """
    rid = run_id or mint_run_id()
    if not RUN_ID.match(rid):
        from gavelkit.core.errors import UsageError

        raise UsageError(f"run id {rid!r} must be letters, digits, '.', '_' or '-' "
                         "(no slashes), at most 80 characters")
    run = run_dir_for(root, rid)
    if run.exists():
        return run, [], True
    created: list[str] = []
    work = root / "work"
    ignore = work / ".gitignore"
    if not ignore.exists():
        atomic_write(ignore, "# Run trees are working state, never committed (seed §5).\n*\n")
        created.append(str(ignore))
    for folder in layout()["folders"]:
        (run / folder).mkdir(parents=True, exist_ok=True)
        created.append(str(run / folder) + "/")
    target = run / "phase-logs" / "variant.yaml"
    atomic_write(target, variant if variant is not None else variant_template())
    created.append(str(target))
    return run, created, False


def check_layout(run: Path) -> list[Finding]:
    """Missing layout folders and stray top-level entries of a run folder."""
    out: list[Finding] = []
    expected = layout()["folders"]
    for folder in expected:
        if not (run / folder).is_dir():
            out.append(Finding("AWD-L001", "warning", f"layout folder {folder}/ is missing",
                               str(run / folder)))
    top = {f.split("/")[0] for f in expected} | {layout().get("briefs", "briefs")}
    for entry in sorted(run.iterdir()) if run.is_dir() else []:
        if entry.name not in top and not entry.name.startswith("."):
            out.append(Finding("AWD-L002", "info", f"{entry.name} is not part of the run layout "
                               f"({', '.join(sorted(top))})", str(entry)))
    return out
