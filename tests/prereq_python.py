"""A Python that has the seed's pip prerequisites and nothing else (no gavelkit), offline.

`python3 -m venv --without-pip` gives an interpreter with an empty site-packages; into it go
links to exactly the installed files of the named distributions and their runtime
dependencies (read from their metadata), so a skill script that silently needs gavelkit,
Jinja2 or anything else fails there as it would on a user's machine. The real thing (a
venv with those packages pip-installed from the registry) is `benchmarks/package/`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

#: seed 000's prerequisites, with the pip-installable PDF libraries instead of poppler
SEED_PREREQS = ("PyYAML", "matplotlib", "numpy", "pypdfium2", "Pillow")


def seed_invocations() -> list[str]:
    """Seed 000 §7's invocations of the skill's scripts, verbatim: from the seed itself when
    ../shared/seeds is beside the checkout (a worktree), else the committed copy (a clean CI
    checkout has no shared/; `test_seed_copy_matches_the_seed` keeps the copy true)."""
    return seed_invocations_from_seed() or committed_seed_invocations()


def seed_invocations_from_seed() -> list[str]:
    root = Path(__file__).resolve().parent.parent
    for base in (root.parent / "shared", root.parent.parent / "shared"):
        for seed in sorted((base / "seeds").glob("000_*.txt")):
            return [line.strip() for line in seed.read_text(encoding="utf-8").splitlines()
                    if line.startswith(("python3 .claude/skills/", "bash    .claude/skills/"))]
    return []


def committed_seed_invocations() -> list[str]:
    text = (Path(__file__).resolve().parent / "data" / "seed000_invocations.txt").read_text(
        encoding="utf-8")
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def _norm(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def closure(names: tuple[str, ...]) -> list[metadata.Distribution]:
    """The distributions `names` need at run time (extras and other platforms left out)."""
    from packaging.requirements import Requirement

    seen: dict[str, metadata.Distribution] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        if _norm(name) in seen:
            continue
        dist = metadata.distribution(name)
        seen[_norm(name)] = dist
        for spec in dist.requires or []:
            req = Requirement(spec)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return sorted(seen.values(), key=lambda d: _norm(d.metadata["Name"]))


def top_levels(dist: metadata.Distribution) -> set[str]:
    """Names directly in site-packages that the distribution installed."""
    out = set()
    for f in dist.files or []:
        parts = Path(f).parts
        if parts and parts[0] not in ("..", "__pycache__") and not parts[0].endswith(".pth"):
            out.add(parts[0])
    return out


def make_python(folder: Path, names: tuple[str, ...] = SEED_PREREQS) -> Path:
    """A venv in `folder` whose site-packages holds only `names` (and what they need)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True,
                   capture_output=True, timeout=120)
    py = folder / "bin" / "python3"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()"
                                "['purelib'])"], check=True, capture_output=True, text=True,
                               timeout=60).stdout.strip())
    for dist in closure(names):
        base = Path(str(dist.locate_file("")))
        for top in sorted(top_levels(dist)):
            if (base / top).exists() and not (site / top).exists():
                os.symlink(base / top, site / top)
    return py


def clean_env(py: Path, home: Path) -> dict[str, str]:
    """An environment in which `python3` is `py` and nothing points at this checkout."""
    return {"PATH": f"{py.parent}{os.pathsep}/usr/bin{os.pathsep}/bin", "HOME": str(home),
            "PYTHONNOUSERSITE": "1", "MPLBACKEND": "Agg", "LC_ALL": "C.UTF-8",
            "MPLCONFIGDIR": str(home / ".mpl")}
