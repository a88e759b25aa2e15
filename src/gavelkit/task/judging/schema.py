"""The versioned schema of judge/judge_result.json (`gavel task schema judge-result`).

Like inspect_ai's log, the judge's record has one typed, versioned shape that every writer
produces and every reader may rely on: the judge writes it, `task state --to QUALIFIED`
re-decides from it, the reports read it. The schema is built from the judge's own
vocabularies (verdict.py), so the two cannot drift; a field added, dropped or changed in
meaning bumps SCHEMA_VERSION. tests/test_judge_schema.py validates written records.
"""

from __future__ import annotations

from typing import Any

from gavelkit.task.judging.verdict import ORDER, ROUTES, SCHEMA_VERSION, STATUSES, VERDICTS

GATES = ("gate-A/C", "gate-B", "gate-D", "gate-E", "gate-F")
STEPS = ("preflight", "anti-cheat", "solvability", "fairness", "scores")


def _obj(props: dict[str, Any], required: list[str] | None = None, null: bool = False,
         closed: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"type": ["object", "null"] if null else "object",
                           "properties": props}
    if closed:
        out["additionalProperties"] = False
    out["required"] = list(props) if required is None else required
    return out


def _arr(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


STR = {"type": "string"}
RATE = {"type": ["number", "null"], "minimum": 0, "maximum": 1}
ROUTE = {"enum": [*ROUTES, None]}
FINDING = _obj({"code": STR, "severity": {"enum": ["error", "warning", "info"]},
                "message": STR, "path": STR, "line": {"type": "integer"},
                "col": {"type": "integer"}}, ["code", "severity", "message"], closed=False)
CHECK = _obj({"name": {"enum": list(ORDER)}, "status": {"enum": [str(s) for s in STATUSES]},
              "reason": STR, "route": ROUTE})


def _evidence() -> dict[str, Any]:
    """The hard checks' evidence: what was judged, preflight, anti-cheat, solvability."""
    return {
        "judged_on": _obj({"oracle_digest": STR, "score_file": {"type": ["string", "null"]},
                           "score_sha256": {"type": ["string", "null"],
                                            "pattern": "^[0-9a-f]{64}$"}}),
        "preflight": _obj({"available": {"type": "boolean"}, "passed": {"type": "boolean"},
                           "reason": STR, "block": {"type": "string",
                                                    "pattern": "^### Preflight output"}},
                          null=True),
        "anti_cheat": _obj({"verdict": {"enum": ["CLEAN", "CHEAT_DETECTED", "UNVERIFIABLE"]},
                            "reason": STR, "findings": _arr({"$ref": "#/$defs/finding"}),
                            "run_tamper": _arr({"type": "object"})}, null=True),
        "solvability": _obj({"reference": STR, "pass_rate": RATE, "diagnosis": _arr(STR)}),
    }


def _fairness() -> dict[str, Any]:
    return {
        "fairness_gates": _obj({g: STR for g in GATES}),
        "fairness_notes": _obj({g: STR for g in GATES[2:]}, []),
        "standard": {"type": ["object", "null"]},
        "spotcheck": _obj({"gate": {"enum": ["A", "C"]}, "path": STR, "prefilled": {"const": True},
                           "rows": {"type": "integer", "minimum": 0},
                           "verdicts": {"type": "object",
                                        "additionalProperties": {"type": "integer"}},
                           "findings": _arr({"$ref": "#/$defs/finding"})}, []),
        "coverage_gap": _obj({"sections": _arr(STR), "reason": STR}, null=True, closed=False),
    }


def _scores() -> dict[str, Any]:
    return {
        "scores_usable": {"type": "boolean"},
        "scores_withheld_because": {"type": ["string", "null"]},
        "candidate_score": _obj({"summary": {"type": "object", "required": ["passed", "total"]},
                                 "pass_rate": RATE, "by_layer": {"type": ["object", "null"]}},
                                null=True),
        "metrics": {"type": ["object", "null"]},
        "unverified_evidence": _obj({
            "candidate_score": {"type": "object", "required": ["summary", "pass_rate"]},
            "metrics": {"type": "object"}, "gate_b": {"type": "object"},
            "not_checked": _arr(_obj({"check": {"enum": list(ORDER)}, "reason": STR}))},
            null=True),
        "labels": _arr(_obj({"label": STR, "evidence": STR})),
        "weaknesses": _arr(_obj({"dimension": STR, "description": STR,
                                 "affected_tests": {"type": "integer", "minimum": 1},
                                 "layer": STR, "spec_sections": _arr(STR)})),
    }


def judge_result_schema() -> dict[str, Any]:
    props: dict[str, Any] = {
        "schema_version": {"const": SCHEMA_VERSION},
        "verdict": {"enum": [str(v) for v in VERDICTS]},
        "route": ROUTE, "reasons": _arr(STR),
        "date": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
        "order": _arr({"enum": list(STEPS)}), "checks": _arr({"$ref": "#/$defs/check"}),
        **_evidence(), **_fairness(), **_scores(),
        "transition": _obj({"from": STR, "requested": STR, "to": STR,
                            "written": {"type": "boolean"}, "why": _arr(STR)}, []),
        "terminal_todos": _arr(STR), "findings": _arr({"$ref": "#/$defs/finding"}),
    }
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"https://gavelkit.invalid/schemas/judge-result/{SCHEMA_VERSION}.json",
            "title": "gavel judge/judge_result.json",
            "description": "What `gavel task judge` decided and the evidence it decided on; "
                           "`gavel task state --to QUALIFIED` re-decides from `checks` and "
                           "`judged_on`.",
            **_obj(props), "$defs": {"check": CHECK, "finding": FINDING}}
