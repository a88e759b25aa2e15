#!/usr/bin/env python3
"""make_contact_sheet.py -- seed-compatible launcher for `gavel award contact-sheet`.

    python3 make_contact_sheet.py paper.pdf -o contact_sheet.png [--dpi 60] [--cols N]
    python3 make_contact_sheet.py --self-test

The sheet is built FROM the compiled PDF by gavelkit (pypdfium2 + Pillow, no poppler;
see _gavel.py for which gavelkit runs); pages with QA findings are framed in colour.
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
            sys.stderr.write(f"make_contact_sheet.py: _gavel.py is not next to this copy "
                             f"({here}) and {sys.executable} has no gavelkit; run the one in the skill's "
                             "scripts/ folder, or install the skill: "
                             "gavel skills install --only mathodology-award-gates\n")
            sys.exit(2)
    sys.exit(main("make_contact_sheet.py", sys.argv[1:]))
