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


def render_json(findings: Sequence[Finding], command: str, extra: dict[str, Any] | None = None) -> str:
    doc: dict[str, Any] = {
        "tool": "gavel",
        "version": __version__,
        "command": command,
        "exit_code": exit_code(findings),
        "counts": counts(findings),
        "findings": findings_json(findings),
    }
    if extra:
        doc.update(extra)
    import json

    return json.dumps(doc, ensure_ascii=False, indent=2, default=json_default)


def render_sarif(findings: Sequence[Finding]) -> str:
    from gavelkit.core.rules import catalog

    cat = catalog()
    used = sorted({f.code for f in findings})
    rules = []
    for code in used:
        rule = cat.get(code)
        rules.append({
            "id": code,
            "name": code,
            "shortDescription": {"text": rule.title if rule else code},
            "fullDescription": {"text": rule.doc if rule else code},
            "defaultConfiguration": {"level": SARIF_LEVEL[rule.severity] if rule else "warning"},
        })
    index = {code: i for i, code in enumerate(used)}
    results = []
    for f in sorted(findings, key=sort_key):
        res: dict[str, Any] = {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": SARIF_LEVEL[f.severity],
            "message": {"text": f.message + (f" (hint: {f.hint})" if f.hint else "")},
        }
        if f.path:
            phys: dict[str, Any] = {"artifactLocation": {"uri": f.path.replace("\\", "/")}}
            if f.line > 0:
                phys["region"] = {"startLine": f.line, "startColumn": max(f.col, 1)}
            res["locations"] = [{"physicalLocation": phys}]
        results.append(res)
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "gavel", "version": __version__,
                                "informationUri": "https://pypi.org/project/gavelkit/",
                                "rules": rules}},
            "results": results,
        }],
    }
    import json

    return json.dumps(sarif, ensure_ascii=False, indent=2)
