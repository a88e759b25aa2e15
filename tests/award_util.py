"""Builders for award-block tests: good blocks as dicts, dumped to YAML files."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from gavelkit.award.blocks.lint import lint_paths
from gavelkit.core.findings import Finding

RUBRIC = {
    "A": {"summary": 0.25, "modeling": 0.25, "results": 0.20, "writing": 0.15, "completeness": 0.15},
    "B": {"summary": 0.15, "modeling": 0.20, "results": 0.15, "innovation": 0.30, "evidence": 0.20},
    "C": {"correctness": 0.35, "reproducibility": 0.25, "summary": 0.10, "modeling": 0.15,
          "results": 0.15},
}


def handoff(**over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "phase": 4, "agent": "mathodology-coder", "loop": 0, "status": "complete",
        "artifacts": [{"path": "work/r1/outputs/figures/sens.pdf", "role": "sensitivity"}],
        "decisions": [], "assumptions": [
            {"id": "A1", "text": "demand is stationary", "evidence": "assumed",
             "sensitivity_plan": "vary demand ±20%"}],
        "evidence": [], "commands": ["python3 work/r1/code/run_all.py"], "weaknesses": [],
        "questions": [], "critic_focus": [],
        "collision_gate_result": {"status": "pass", "command": "python3 code/run_all.py"},
    }
    body.update(over)
    return {"handoff": body}


def gate(**over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "phase": 4, "loop": 0, "verdict": "fail",
        "issues": [{"id": "G4-1", "severity": "high", "summary": "sensitivity missing",
                    "artifact": "work/r1/outputs/figures/sens.pdf",
                    "required_fix": "add tornado plot", "owner": "mathodology-coder"}],
        "evidence_checked": ["run_all.py exit 0"], "missing_evidence": [],
    }
    body.update(over)
    return {"gate": body}


def card(seat: str = "A", scores: dict[str, float] | None = None, round_: int = 1,
         contest: str = "MCM", total: float | None = None, tier: str | None = None,
         **over: Any) -> dict[str, Any]:
    rub = RUBRIC[seat]
    sc = {k: 88.0 for k in rub}
    sc.update(scores or {})
    crit = [{"name": k, "weight": w, "score": sc[k]} for k, w in rub.items()]
    computed = round(sum(w * sc[k] for k, w in rub.items()), 4)
    if tier is None:
        tier = ("outstanding" if computed >= 85 else "finalist" if computed >= 80
                else "meritorious" if computed >= 75 else "below")
    body: dict[str, Any] = {
        "contest": contest, "seat": seat, "round": round_, "criteria": crit,
        "weighted_total": computed if total is None else total, "implied_tier": tier,
        "fix_one_thing": "x", "ranked_gaps": [], "do_not_regress": [],
    }
    body.update(over)
    return {"scorecard": body}


def memo(**over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "phase": 7, "budget_spent": {"loops": 2, "cap": 2},
        "unresolved": [{"id": "G7-1", "severity": "high", "summary": "thin sensitivity"}],
        "options": [
            {"option": "submit", "consequence": "likely finalist", "recommended": False},
            {"option": "one more loop", "consequence": "deadline risk", "recommended": True},
        ],
    }
    body.update(over)
    return {"decision_memo": body}


def variant(**over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "contest": "MCM 2026 Problem C", "target_tier": "Outstanding / O-Prize",
        "adapter": "MCM/ICM O-Prize", "emphasis": ["data insight"], "gates_added": [],
        "thresholds_ref": "mathodology-award-gates",
        "official_rules_source": "COMAP 2026 contest instructions",
        "deadline": "2026-02-02 20:00 EST", "language": "en",
        "limits": {"pages": 25, "files": 1, "size": "17MB"},
        "identity_policy": "control number only", "code_policy": "appendix optional",
        "ai_use_policy": "AI-use report appended, not counted", "user_confirmations": [],
    }
    body.update(over)
    return {"variant": body}


def dump(obj: Any) -> str:
    return yaml.safe_dump(obj, sort_keys=False, allow_unicode=True)


def write(tmp: Path, name: str, content: Any) -> Path:
    p = tmp / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(content if isinstance(content, str) else dump(content), encoding="utf-8")
    return p


def lint(tmp: Path, kind: str, content: Any, name: str = "block.yaml",
         **kw: Any) -> list[Finding]:
    p = write(tmp, name, content)
    return [f for r in lint_paths([p], kind, **kw) for f in r.all_findings()]


def deep(obj: Any) -> Any:
    return copy.deepcopy(obj)
