"""JSON Schemas of the run blocks, built from the same tables the linter uses.

Editors (VS Code YAML, JetBrains) validate blocks as they are typed. The schema
covers shape and enums; cross-field rules (sums, bands, verdict vs severities) stay
with `gavel award lint`.
"""

from __future__ import annotations

import json
from typing import Any

from gavelkit.award.tables import load_tables

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _int(lo: int | None = None, hi: int | None = None) -> dict[str, Any]:
    s: dict[str, Any] = {"type": "integer"}
    if lo is not None:
        s["minimum"] = lo
    if hi is not None:
        s["maximum"] = hi
    return s


def _researcher(role: dict[str, Any]) -> dict[str, Any]:
    text = {"type": "string", "minLength": 1, "pattern": r"\S"}
    return {
        "search_backend": {"enum": role["backends"]},
        "queries_run": {"type": "array", "items": {
            "type": "object", "required": ["query", "backend", "accepted", "rejected"],
            "properties": {"query": text, "backend": {"enum": role["query_backends"]},
                           "accepted": {"type": "array"}, "rejected": {"type": "array"}}}},
        "missing_evidence": {"type": "array", "items": {"type": "string"}},
        "citations_to_verify": {"type": "array", "items": {
            "type": "object", "required": ["id", "claim", "source", "url", "verified"],
            "properties": {"id": text, "claim": text, "source": text, "url": text,
                           "verified": {"type": "boolean"}}}},
    }


def _role_rules(agents: dict[str, Any]) -> list[dict[str, Any]]:
    """Each role's extra keys (roles.yaml), required when `agent` names that role."""
    out = []
    for name, role in sorted(agents.items()):
        keys = list(role.get("keys", {}))
        if not keys:
            continue
        then: dict[str, Any] = {"required": keys}
        if role.get("contract") == "evidence_researcher":
            then["properties"] = _researcher(role)
        out.append({"if": {"properties": {"agent": {"const": name}}, "required": ["agent"]},
                    "then": then})
    return out


_TEXT = {"type": "string", "minLength": 1, "pattern": r"\S"}


def _handoff(t: Any) -> dict[str, Any]:
    b, lim, text = t.blocks, t.limits, _TEXT
    return {
        "type": "object", "required": b["handoff"]["required"],
        "properties": {
            "phase": _int(lim["phase_min"], lim["phase_max"]),
            "agent": text, "loop": _int(0),
            "status": {"enum": b["handoff"]["status"]},
            "artifacts": {"type": "array", "items": {
                "type": "object", "required": ["path"],
                "properties": {"path": {"type": "string", "pattern": r"^work/[^/]+/.+"},
                               "role": {"type": "string"}}}},
            "assumptions": {"type": "array", "items": {
                "type": "object", "required": b["handoff"]["assumption_keys"]}},
            "collision_gate_result": {"type": "object", "required": ["status", "command"],
                                      "properties": {"status": {"enum": ["pass", "fail"]},
                                                     "command": text}},
            **{k: {"type": "array"} for k in b["handoff"]["lists"]
               if k not in ("artifacts", "assumptions")},
        },
        "allOf": _role_rules(t.agents)}


def _gate(t: Any) -> dict[str, Any]:
    b, lim, text = t.blocks, t.limits, _TEXT
    return {
        "type": "object", "required": b["gate"]["required"],
        "properties": {
            "phase": _int(lim["phase_min"], lim["phase_max"]), "loop": _int(0),
            "verdict": {"enum": b["gate"]["verdict"]},
            "issues": {"type": "array", "items": {
                "type": "object", "required": ["id", "severity", *b["gate"]["issue_keys"]],
                "properties": {"id": {"type": "string", "pattern": b["gate"]["id_pattern"]},
                               "severity": {"enum": b["gate"]["severity"]},
                               "summary": text, "artifact": text, "owner": text,
                               "required_fix": text}}},
            "evidence_checked": {"type": "array"}, "missing_evidence": {"type": "array"},
        }}


def _scorecard(t: Any) -> dict[str, Any]:
    b, lim, text = t.blocks, t.limits, _TEXT
    tiers = sorted({n for tier in t.tiers.values() for n in (tier.name, *tier.aliases)})
    return {
        "type": "object", "required": b["scorecard"]["required"],
        "not": {"required": ["target_tier"]},
        "properties": {
            "contest": text, "seat": {"enum": b["scorecard"]["seats"]},
            "round": _int(lim["round_min"], lim["round_max"]),
            "criteria": {"type": "array", "minItems": 1, "items": {
                "type": "object", "required": ["name", "weight", "score"],
                "properties": {"name": text,
                               "weight": {"type": "number", "minimum": 0, "maximum": 1},
                               "score": {"type": "number", "minimum": 0, "maximum": 100}}}},
            "weighted_total": {"type": "number", "minimum": 0, "maximum": 100},
            "implied_tier": {"enum": tiers}, "tier_justification": {"type": "string"},
            "fix_one_thing": text, "ranked_gaps": {"type": "array"},
            "do_not_regress": {"type": "array"},
        }}


def _memo(t: Any) -> dict[str, Any]:
    b, lim, text = t.blocks, t.limits, _TEXT
    opt = {"type": "object", "required": ["option", "consequence", "recommended"],
           "properties": {"option": text, "consequence": text,
                          "recommended": {"type": "boolean"}}}
    return {
        "type": "object", "required": b["decision_memo"]["required"],
        "properties": {
            "phase": _int(lim["phase_min"], lim["phase_max"]),
            "budget_spent": {"type": "object", "required": ["loops", "cap"],
                             "properties": {"loops": _int(0), "cap": _int(1)}},
            "unresolved": {"type": "array", "items": {
                "type": "object", "required": ["severity"],
                "properties": {"severity": {"enum": b["gate"]["severity"]}}}},
            "options": {"type": "array", "minItems": lim["options_min"],
                        "maxItems": lim["options_max"], "items": opt,
                        "contains": {"properties": {"recommended": {"const": True}}},
                        "minContains": 1, "maxContains": 1},
        }}


def _variant(t: Any) -> dict[str, Any]:
    b = t.blocks
    return {
        "type": "object", "required": b["variant"]["required"],
        "properties": {
            "thresholds_ref": {"const": "mathodology-award-gates"},
            "limits": {"type": "object", "required": ["pages"],
                       "properties": {"pages": _int(1)}},
            **{k: {"type": "array"} for k in b["variant"]["lists"]},
        }}


_BODIES = {"handoff": ("handoff", _handoff), "gate": ("gate", _gate),
           "scorecard": ("scorecard", _scorecard), "decision_memo": ("decision_memo", _memo),
           "variant": ("variant", _variant)}


def build(kind: str) -> dict[str, Any]:
    if kind not in _BODIES:
        raise ValueError(kind)
    name, body = _BODIES[kind]
    return {"$schema": DRAFT, "$id": f"https://gavelkit.dev/schema/{name}.json",
            "title": f"{name} block", "type": "object", "required": [name],
            "properties": {name: body(load_tables())}}


def schema_text(kind: str) -> str:
    return json.dumps(build(kind), ensure_ascii=False, indent=2)
