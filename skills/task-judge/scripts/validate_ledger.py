#!/usr/bin/env python3
"""Seed-compatible static quality gate (Gate E): `python3 validate_ledger.py [TASK_DIR...]`.

The seed runs `python harness/validate_ledger.py` from the repository root; this launcher
runs gavel's Gate E on the given task folders (default: every folder under tasks/ and wip/
that holds a spec.md). Exit 0 when all pass (warnings allowed), 1 otherwise, 2 on usage
errors. All logic lives in gavelkit (see _gavel.py for which one runs).
"""

import os
import sys

if __name__ == "__main__":
    here = os.path.dirname(os.path.realpath(__file__))
    sys.path.insert(0, here)
    try:
        from _gavel import main
    except ImportError:  # a lone copy of this script: the gavelkit installed here, if any
        try:
            from gavelkit.cli.skill_launch import run as main
        except ImportError:
            sys.stderr.write(f"validate_ledger.py: _gavel.py is not next to this copy ({here}) and "
                             f"{sys.executable} has no gavelkit; run the one in the skill's "
                             "scripts/ folder, or install the skill: "
                             "gavel skills install --only task-judge\n")
            sys.exit(2)
    sys.exit(main("validate_ledger.py", sys.argv[1:]))
