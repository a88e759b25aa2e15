#!/usr/bin/env python3
"""Seed-compatible static quality gate (Gate E): `python3 validate_ledger.py [TASK_DIR...]`.

The seed runs `python harness/validate_ledger.py` from the repository root; this launcher
runs gavel's Gate E on the given task folders (default: every folder under tasks/ and wip/
that holds a spec.md). Exit 0 when all pass (warnings allowed), 1 otherwise, 2 on usage errors.
"""

import os
import sys
from pathlib import Path


def _main():
    try:
        from gavelkit.cli.main import main
    except ImportError:
        here = os.path.dirname(os.path.realpath(__file__))
        src = os.path.normpath(os.path.join(here, "..", "..", "..", "src"))
        if not os.path.isdir(os.path.join(src, "gavelkit")):
            sys.stderr.write("validate_ledger: the gavelkit package is required and is not "
                             "on PyPI: python3 -m pip install <path to the gavelkit checkout>\n")
            return 2
        sys.path.insert(0, src)
        from gavelkit.cli.main import main
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    opts = [a for a in sys.argv[1:] if a.startswith("-")]
    if not args:
        args = sorted(str(p.parent) for pat in ("tasks/*/spec.md", "wip/*/spec.md")
                      for p in Path(".").glob(pat))
    if not args:
        sys.stderr.write("validate_ledger: no task folders given or found under tasks/ or wip/\n")
        return 2
    worst = 0
    for task in args:
        print(f"== {task}")
        worst = max(worst, main(["task", "gates", task, "--gate", "E", *opts]))
    return worst


if __name__ == "__main__":
    sys.exit(_main())
