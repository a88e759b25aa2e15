"""Evidence-researcher contract (reference §1.6, edge case 18)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from award_util import handoff, lint
from gk_testing import clean, fires

R = "mathodology-evidence-researcher"


def researcher(**over: Any) -> dict[str, Any]:
    body: dict[str, Any] = dict(
        agent=R, phase=1, search_backend="combined",
        queries_run=[
            {"query": "bike share demand elasticity", "backend": "search-mcp",
             "accepted": ["doi:10.1/x"], "rejected": []},
            {"query": "citibike trip data 2024", "backend": "builtin", "accepted": [],
             "rejected": ["blog post"]},
        ],
        missing_evidence=[],
        citations_to_verify=[{"id": "C1", "claim": "elasticity -0.3", "source": "Smith 2020",
                              "url": "https://doi.org/10.1/x", "verified": True}],
    )
    body.update(over)
    h = handoff(**body)
    del h["handoff"]["collision_gate_result"]
    return h


def q(backend: str) -> dict[str, Any]:
    return {"query": "x", "backend": backend, "accepted": [], "rejected": []}


def test_valid_backends(tmp_path: Path) -> None:
    cases = [
        researcher(),
        researcher(search_backend="search-mcp", queries_run=[q("search-mcp")],
                   missing_evidence=["builtin search rate-limited"]),
        researcher(search_backend="builtin", queries_run=[q("builtin")],
                   missing_evidence=["search MCP not configured"]),
        researcher(search_backend="none", status="blocked", queries_run=[],
                   missing_evidence=["no network in sandbox"]),
    ]
    for h in cases:
        fs = lint(tmp_path, "handoff", h, agent=R)
        assert fs == [], fs
        for code in ("AWD-R001", "AWD-R002", "AWD-R003", "AWD-R004", "AWD-R005", "AWD-R006"):
            clean(fs, code)


@pytest.mark.parametrize(("over", "code"), [
    ({"search_backend": "google"}, "AWD-R001"),
    ({"queries_run": {"query": "x"}}, "AWD-R002"),
    ({"queries_run": [{"query": " ", "backend": "builtin", "accepted": [], "rejected": []},
                      q("search-mcp")]}, "AWD-R002"),
    ({"queries_run": [q("bing"), q("builtin")]}, "AWD-R002"),
    ({"citations_to_verify": ["C1"]}, "AWD-R003"),
    ({"citations_to_verify": [{"id": "C1", "claim": "c", "source": "s", "verified": True}]},
     "AWD-R003"),
    ({"citations_to_verify": [{"id": "C1", "claim": "c", "source": "s", "url": "u",
                               "verified": "true"}]}, "AWD-R003"),
    ({"queries_run": [q("builtin")]}, "AWD-R004"),
    ({"search_backend": "builtin", "queries_run": [q("builtin")], "missing_evidence": ["  "]},
     "AWD-R005"),
    ({"search_backend": "builtin", "queries_run": [q("search-mcp")],
      "missing_evidence": ["why"]}, "AWD-R004"),
    ({"search_backend": "none", "status": "partial", "queries_run": [],
      "missing_evidence": ["offline"]}, "AWD-R006"),
    ({"search_backend": "none", "status": "blocked", "queries_run": [q("builtin")],
      "missing_evidence": ["offline"]}, "AWD-R006"),
    ({"search_backend": "none", "status": "blocked", "queries_run": [],
      "missing_evidence": []}, "AWD-R005"),
])
def test_contract_violations(tmp_path: Path, over: dict[str, Any], code: str) -> None:
    fires(lint(tmp_path, "handoff", researcher(**over), agent=R), code)


def test_contract_only_under_agent(tmp_path: Path) -> None:
    h = researcher(search_backend="google")
    clean(lint(tmp_path, "handoff", h), "AWD-R001")


def test_schema_carries_the_researcher_contract() -> None:
    """`award schema handoff` holds the researcher's keys (issue 27 friction)."""
    import json

    import jsonschema

    from gk_testing import cli

    rc, out, _ = cli("award", "schema", "handoff")
    v = jsonschema.Draft202012Validator(json.loads(out))
    assert rc == 0 and not list(v.iter_errors(researcher()))
    bad = researcher()
    bad["handoff"]["queries_run"] = {"q1": "demand elasticity"}  # mapping-shaped: refused
    assert list(v.iter_errors(bad))
    gone = researcher()
    del gone["handoff"]["search_backend"]
    assert list(v.iter_errors(gone))
