"""Findings to text, JSON or SARIF 2.1.0.

Text is one `path:line:col: CODE severity: message` line per finding so that
editors and agents can jump to it; JSON and SARIF are for programs.
"""

from __future__ import annotations

from collections.abc import Sequence

from gavelkit import __version__
from gavelkit.core.findings import Finding, counts, exit_code, sort_key

TYPE_CHECKING = False  # typing costs start-up time that agents pay on every call
if TYPE_CHECKING:
    from typing import Any

SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def render_text(findings: Sequence[Finding], summary: bool = True) -> str:
    lines = []
    for f in sorted(findings, key=sort_key):
        lines.append(f"{f.location()}: {f.code} {f.severity}: {f.message}")
        if f.hint:
            lines.append(f"    hint: {f.hint}")
    if summary and findings:
        c = counts(findings)
        lines.append(f"{c['error']} error(s), {c['warning']} warning(s), {c['info']} info")
    return "\n".join(lines)


def findings_json(findings: Sequence[Finding]) -> list[dict[str, Any]]:
    return [f.to_dict() for f in sorted(findings, key=sort_key)]


def json_default(obj: Any) -> Any:
    """Serialise dates and other YAML scalars that json does not know."""
    if hasattr(obj, "isoformat"):
        return obj.isoformat()
    if isinstance(obj, set | frozenset):
        return sorted(obj)
    return str(obj)


def render_json(findings: Sequence[Finding], command: str, extra: dict[str, Any] | None = None,
                rc: int | None = None) -> str:
    """The command's JSON document; `rc` is the exit code the command exits with (default:
    what the findings imply)."""
    doc: dict[str, Any] = {
        "tool": "gavel",
        "version": __version__,
        "command": command,
        "exit_code": exit_code(findings) if rc is None else rc,
        "counts": counts(findings),
        "findings": findings_json(findings),
    }
    if extra:
        doc.update(extra)
    import json

    return json.dumps(doc, ensure_ascii=False, indent=2, default=json_default)


#: the base id of paths inside the repository (GitHub code scanning resolves it to the
#: checkout; `originalUriBaseIds` says where it was on the machine that ran gavel)
SRCROOT = "%SRCROOT%"


def sarif_root() -> str:
    """The folder SARIF paths are relative to: GAVEL_SARIF_ROOT, else the working directory
    (in CI, the repository root the workflow runs in)."""
    import os

    return os.path.abspath(os.environ.get("GAVEL_SARIF_ROOT") or os.getcwd())


def sarif_location(path: str, line: int, col: int, root: str) -> dict[str, Any]:
    """A physicalLocation: relative to `root` (under %SRCROOT%) when inside it, else an
    absolute file URI; percent-encoded, so spaces and CJK names stay one valid URI."""
    import os
    from pathlib import Path
    from urllib.parse import quote

    full = os.path.abspath(path)
    rel = os.path.relpath(full, root)
    if rel == os.curdir or rel.split(os.sep, 1)[0] == os.pardir:
        art: dict[str, Any] = {"uri": Path(full).as_uri()}
    else:
        art = {"uri": quote(rel.replace(os.sep, "/")), "uriBaseId": SRCROOT}
    phys: dict[str, Any] = {"artifactLocation": art}
    if line > 0:
        phys["region"] = {"startLine": line, "startColumn": max(col, 1)}
    return {"physicalLocation": phys}


def sarif_rule(code: str) -> dict[str, Any]:
    """A reportingDescriptor from the rule catalog: its title, why it exists (help.text) and
    how to read more on the machine that ran it."""
    from gavelkit.core.rules import headlines

    rule = headlines().get(code)
    doc = rule.doc if rule else "not in this gavel's rule catalog"
    out: dict[str, Any] = {
        "id": code,
        "name": code,
        "shortDescription": {"text": rule.title if rule else code},
        "fullDescription": {"text": doc},
        "help": {"text": f"{doc}\n\nExplain it with: gavel rules {code}"},
        "defaultConfiguration": {"level": SARIF_LEVEL[rule.severity] if rule else "warning"},
    }
    if rule:
        out["properties"] = {"tags": [rule.pack]}
    return out


def render_sarif(findings: Sequence[Finding], anchor: str | None = None) -> str:
    """SARIF 2.1.0 of one gavel run (validated against the official schema in the tests).

    Every result has a location, as GitHub code scanning requires: a finding without a path
    is placed at `anchor` (the command's main input) when one is given."""
    root = sarif_root()
    used = sorted({f.code for f in findings})
    index = {code: i for i, code in enumerate(used)}
    results = []
    for f in sorted(findings, key=sort_key):
        res: dict[str, Any] = {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": SARIF_LEVEL[f.severity],
            "message": {"text": f.message + (f" (hint: {f.hint})" if f.hint else "")},
        }
        where = f.path or anchor
        if where:
            res["locations"] = [sarif_location(where, f.line if f.path else 0, f.col, root)]
        results.append(res)
    from pathlib import Path

    run: dict[str, Any] = {
        "tool": {"driver": {"name": "gavel", "version": __version__,
                            "informationUri": "https://pypi.org/project/gavelkit/",
                            "rules": [sarif_rule(c) for c in used]}},
        "originalUriBaseIds": {SRCROOT: {"uri": Path(root).as_uri().rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    import json

    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]},
                      ensure_ascii=False, indent=2)


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
