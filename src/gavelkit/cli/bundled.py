"""Where the skill folders and the demo's examples are: in the wheel or in the checkout.

A wheel carries `skills/` and `examples/` as `gavelkit/_bundle/NAME/` (setup.py copies them
at build time, so the repository keeps one copy); an editable install or a test run uses
the checkout's own folders next to `src/`. Nothing else is searched: a folder that merely
happens to be called `skills/` above a virtualenv is not ours.
"""

from __future__ import annotations

from pathlib import Path

#: folder -> a file that only our folder of that name holds
MARKERS = {"skills": "mathodology-award-gates/SKILL.md",
           "examples": "award-run/work"}


def package_dir() -> Path:
    import gavelkit

    return Path(gavelkit.__file__).resolve().parent


def bundled(name: str) -> Path | None:
    """`skills` or `examples` as shipped with this gavelkit, or None."""
    pkg = package_dir()
    cands = [pkg / "_bundle" / name]
    if pkg.parent.name == "src":
        cands.append(pkg.parent.parent / name)
    for cand in cands:
        if (cand / MARKERS[name]).exists():
            return cand
    return None
