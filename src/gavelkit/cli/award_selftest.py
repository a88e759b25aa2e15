"""`--self-test`: prove the installed linter still catches what it must, on real files.

Cases are data (data/award/selftest.yaml): each writes a small file, lints or
aggregates it, and states the expected exit code and, where it matters, the rule
code that must fire. The seed's own sample gate (pass with a high issue) and memo
(one option) are among the cases that must fail.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import yaml

from gavelkit import data


def _cases() -> list[dict[str, Any]]:
    text = (data.ROOT / "award" / "selftest.yaml").read_text(
        encoding="utf-8")
    return yaml.safe_load(text)["cases"]


def run_selftest(quiet: bool = False, fmt: str = "text") -> int:
    cases = _cases()
    with tempfile.TemporaryDirectory(prefix="gavel-selftest-") as tmp:
        report = [_run_case(Path(tmp), case) for case in cases]
    failures = sum(not r["ok"] for r in report)
    if fmt == "json":
        import json

        print(json.dumps({"ok": not failures, "cases": report}, indent=2))
        return 0 if not failures else 1
    for r in report:
        if not quiet or not r["ok"]:
            print(f"{'PASS' if r['ok'] else 'FAIL'} self-test[{r['case']}]"
                  + ("" if r["ok"] else f": exit {r['exit']}, wanted {r['expected']}"
                     + (f" with {r['fires']}" if r["fires"] else "")))
    print(f"lint self-test: {'OK' if not failures else 'FAILED'} "
          f"({len(cases) - failures}/{len(cases)} cases)")
    return 0 if not failures else 1


def _run_case(root: Path, case: dict[str, Any]) -> dict[str, Any]:
    """Write the case's files under root/<name>, run its argv in-process, compare."""
    import contextlib
    import io

    from gavelkit.cli.main import main

    files = []
    for name, content in case.get("files", {}).items():
        p = root / case["name"] / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(content, encoding="utf-8")
        files.append(str(p))
    argv = [a.replace("{dir}", str(root / case["name"])) for a in case["argv"]]
    argv = [a for a in argv if a != "{files}"] + (files if "{files}" in case["argv"] else [])
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        rc = main([*argv, "--format", "json"] if case.get("json", True) else argv)
    want = case.get("fires")
    ok = rc == case["exit"] and (not want or f'"code": "{want}"' in out.getvalue())
    return {"case": case["name"], "ok": ok, "exit": rc, "expected": case["exit"], "fires": want}
