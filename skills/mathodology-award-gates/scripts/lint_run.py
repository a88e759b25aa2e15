#!/usr/bin/env python3
"""Seed-compatible launcher for the award block linter and panel aggregator.

    lint_run.py handoff FILE... [--agent NAME] [--run-dir DIR]
    lint_run.py gate|scorecard|memo|variant FILE...
    lint_run.py aggregate FILE_OR_GLOB... --target TIER
    lint_run.py --self-test

Exit codes: 0 clean or panel passed, 1 findings or panel failed, 2 usage error or
unreadable input. All logic lives in gavelkit (see _gavel.py for which one runs);
this file only forwards. Needs Python 3.11+ and PyYAML.
"""

import os
import sys

if __name__ == "__main__":
    if not sys.argv[1:] or sys.argv[1] in ("-h", "--help"):
        try:
            print(__doc__.strip())
            sys.stdout.flush()
        except BrokenPipeError:  # `lint_run.py --help | head`
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0 if sys.argv[1:] else 2)
    here = os.path.dirname(os.path.realpath(__file__))
    sys.path.insert(0, here)
    try:
        from _gavel import main
    except ImportError:  # a lone copy of this script: the gavelkit installed here, if any
        try:
            from gavelkit.cli.skill_launch import run as main
        except ImportError:
            sys.stderr.write(f"lint_run.py: _gavel.py is not next to this copy ({here}) and "
                             f"{sys.executable} has no gavelkit; run the one in the skill's "
                             "scripts/ folder, or install the skill: "
                             "gavel skills install --only mathodology-award-gates\n")
            sys.exit(2)
    sys.exit(main("lint_run.py", sys.argv[1:]))
