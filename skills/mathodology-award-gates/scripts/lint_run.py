#!/usr/bin/env python3
"""Seed-compatible launcher for the award block linter and panel aggregator.

    lint_run.py handoff FILE... [--agent NAME] [--run-dir DIR]
    lint_run.py gate|scorecard|memo|variant FILE...
    lint_run.py aggregate FILE_OR_GLOB... --target TIER
    lint_run.py --self-test

Exit codes: 0 clean or panel passed, 1 findings or panel failed, 2 usage error or
unreadable input. All logic lives in the gavelkit package; this file only forwards.
"""

import os
import sys


def _import_gavel():
    try:
        from gavelkit.cli.main import main
        return main
    except ImportError:
        here = os.path.dirname(os.path.realpath(__file__))
        src = os.path.normpath(os.path.join(here, "..", "..", "..", "src"))
        if os.path.isdir(os.path.join(src, "gavelkit")):
            sys.path.insert(0, src)
            from gavelkit.cli.main import main
            return main
    sys.stderr.write("lint_run: the gavelkit package is required and is not on PyPI. Install "
                     "it from a gavelkit checkout: python3 -m pip install <path to the "
                     "checkout> (it brings PyYAML)\n")
    sys.exit(2)


def translate(argv):
    if argv and argv[0] == "--self-test":
        return ["award", "self-test", *argv[1:]]
    if not argv or argv[0] in ("-h", "--help"):
        return None
    if argv[0] == "aggregate":
        return ["award", "aggregate", *argv[1:]]
    return ["award", "lint", *argv]


if __name__ == "__main__":
    args = translate(sys.argv[1:])
    if args is None:
        try:
            print(__doc__.strip())
            sys.stdout.flush()
        except BrokenPipeError:  # `lint_run.py --help | head`
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0 if sys.argv[1:] else 2)
    main = _import_gavel()

    sys.exit(main(args))
