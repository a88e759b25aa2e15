#!/usr/bin/env python3
"""Run the award linter and the brief leak checker on public Mathodology material.

No public contest run trees were found (seed §5: `work/<run-id>/` is gitignored), so the
nearest real material is the public skill's own example blocks and the public judge
agent brief the seats actually receive. SOURCES.md lists each file (repository, commit,
path) and the name it is saved under; put the saved files in a folder and pass it:

    python benchmarks/award/public_material.py DIR   # writes public_material.json

Absent files are skipped. Nothing fetched is committed: only the results.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
GAVEL = [sys.executable, "-c", "from gavelkit.cli.main import run; run()"]
KINDS = {"handoff:": "handoff", "gate:": "gate", "scorecard:": "scorecard",
         "decision_memo:": "memo", "variant:": "variant"}
FILES = {
    "mathodology-award-judge@8b57eb0.md": "brief",
    "mathodology-award-judge@49da903.md": "brief",
    "skill-examples@44b6d5d.md": "blocks",
}


def gavel(*argv: str) -> tuple[int, dict]:
    p = subprocess.run([*GAVEL, *argv, "--format", "json"], capture_output=True, text=True,
                       timeout=120)
    try:
        return p.returncode, json.loads(p.stdout)
    except ValueError:
        return p.returncode, {"stderr": p.stderr.strip()}


def main() -> int:
    if len(sys.argv) != 2 or not Path(sys.argv[1]).is_dir():
        print(__doc__.strip(), file=sys.stderr)
        return 2
    folder = Path(sys.argv[1])
    results = []
    for name, what in FILES.items():
        path = folder / name
        if not path.is_file():
            results.append({"file": name, "skipped": "absent"})
            continue
        if what == "brief":
            rc, doc = gavel("award", "briefs", "--check", str(path))
            results.append({"file": name, "check": "briefs --check", "exit": rc,
                            "findings": sorted({(f["code"], f["line"], f["message"][:120])
                                                for f in doc.get("findings", [])})})
            # the scorecard template inside the brief is what the seat copies
            rc, doc = gavel("award", "lint", "scorecard", str(path))
            results.append({"file": name, "check": "lint scorecard (the brief's template)",
                            "exit": rc, "findings": sorted({(f["code"], f["line"],
                                                             f["message"][:120])
                                                            for f in doc.get("findings", [])})})
            continue
        text = path.read_text(encoding="utf-8")
        for i, block in enumerate(re.findall(r"```yaml\n(.*?)```", text, re.S), 1):
            kind = next((k for w, k in KINDS.items() if block.startswith(w)), None)
            if kind is None:
                continue
            one = folder / f".block-{i}.yaml"
            one.write_text(block, encoding="utf-8")
            argv = ["award", "lint", kind, str(one)]
            if kind == "handoff":
                argv += ["--agent", "mathodology-coder"]
            rc, doc = gavel(*argv)
            one.unlink()
            results.append({"file": name, "block": i, "kind": kind, "exit": rc,
                            "findings": sorted({(f["code"], f["message"][:120])
                                                for f in doc.get("findings", [])
                                                if f["severity"] != "info"})})
    out = HERE / "public_material.json"
    out.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    for r in results:
        print(r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
