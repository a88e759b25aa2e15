#!/usr/bin/env bash
# pdf_qa.sh -- seed-compatible launcher for `gavel award pdfqa` (gavelkit).
#   bash pdf_qa.sh paper.pdf --max-pages 25 --anonymous   (also --max-pages=25)
#   bash pdf_qa.sh --self-test
# All logic lives in the gavelkit package (pip-installed: pypdfium2 + Pillow, no
# poppler). Works when run with `bash` from any folder or as a non-executable copy.
set -u
py="${PYTHON:-python3}"
if ! command -v "$py" >/dev/null 2>&1; then
  echo "pdf_qa: '$py' not found. Install Python 3.11+, then gavelkit from its checkout: pip install <path to the gavelkit checkout>" >&2
  exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" 2>/dev/null && pwd)"
# Inside a clone of the gavelkit repository, prefer its own sources.
if [ -n "$here" ] && [ -d "$here/../../../src/gavelkit" ]; then
  export PYTHONPATH="$here/../../../src${PYTHONPATH:+:$PYTHONPATH}"
fi
if ! "$py" -c "import gavelkit.award.pdf.pdfqa, pypdfium2, PIL" >/dev/null 2>&1; then
  echo "pdf_qa: gavelkit with pypdfium2 and Pillow is not installed for $py." >&2
  echo "        gavelkit is not on PyPI; install it from a checkout: $py -m pip install <path to the gavelkit checkout> (it brings pypdfium2 and Pillow)" >&2
  exit 2
fi
exec "$py" -m gavelkit award pdfqa "$@"
