#!/usr/bin/env python3
"""make_contact_sheet.py -- seed-compatible launcher for `gavel award contact-sheet`.

    python3 make_contact_sheet.py paper.pdf -o contact_sheet.png [--dpi 60] [--cols N]
    python3 make_contact_sheet.py --self-test

The sheet is built FROM the compiled PDF by the gavelkit package (pypdfium2 +
Pillow, no poppler); pages with QA findings are framed in colour.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_SRC = os.path.normpath(os.path.join(HERE, "..", "..", "..", "src"))
if os.path.isdir(os.path.join(REPO_SRC, "gavelkit")):
    sys.path.insert(0, REPO_SRC)  # inside a clone of the gavelkit repository

try:
    import PIL  # noqa: F401
    import pypdfium2  # noqa: F401

    from gavelkit.cli import award_pdf as pdfqa_cli  # noqa: F401
    from gavelkit.cli.main import main
except ImportError as exc:
    sys.stderr.write(
        f"make_contact_sheet: gavelkit with pypdfium2 and Pillow is needed ({exc}).\n"
        f"    gavelkit is not on PyPI; install it from a checkout: "
        f"{os.path.basename(sys.executable)} -m pip install <path to the gavelkit checkout>"
        " (it brings pypdfium2 and Pillow)\n")
    sys.exit(2)

if __name__ == "__main__":
    sys.exit(main(["award", "contact-sheet", *sys.argv[1:]]))
