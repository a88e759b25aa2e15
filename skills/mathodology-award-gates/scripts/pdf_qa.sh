#!/usr/bin/env bash
# pdf_qa.sh -- seed-compatible launcher for `gavel award pdfqa` (gavelkit).
#   bash pdf_qa.sh paper.pdf --max-pages 25 --anonymous   (also --max-pages=25)
#   bash pdf_qa.sh --self-test
# All logic lives in gavelkit (pip prerequisites pypdfium2 + Pillow, no poppler; _gavel.py
# says which gavelkit runs). Works when run with `bash` from any folder or as a
# non-executable copy; PYTHON=... picks the interpreter (default python3).
set -u
py="${PYTHON:-python3}"
if ! command -v "$py" >/dev/null 2>&1; then
  again="$(printf '%q ' bash "$0" "$@")"; again="${again% }"
  alt="$(command -v python3 || command -v python3.13 || command -v python3.12 || command -v python3.11 || true)"
  if [ -n "$alt" ] && [ "$alt" != "$py" ]; then
    echo "pdf_qa.sh: '$py' not found; run it with the Python that is there: PYTHON=$(printf '%q' "$alt") $again" >&2
  else
    echo "pdf_qa.sh: no Python found. Install Python 3.11 or newer (Debian/Ubuntu: apt-get install -y python3 python3-pip), then run again: $again" >&2
  fi
  exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" 2>/dev/null && pwd -P)"
if [ -n "$here" ] && [ -f "$here/_gavel.py" ]; then
  exec "$py" "$here/_gavel.py" pdf_qa.sh "$@"
fi
# a lone copy of this script: the gavelkit installed for $py, if any
exec "$py" -c '
import sys
try:
    from gavelkit.cli.skill_launch import run
except ImportError:
    sys.stderr.write("pdf_qa.sh: _gavel.py is not next to this copy and " + sys.executable
                     + " has no gavelkit; run the one in the skill folder scripts/, or "
                     "install the skill: gavel skills install --only mathodology-award-gates\n")
    sys.exit(2)
sys.exit(run("pdf_qa.sh", sys.argv[1:]))' "$@"
