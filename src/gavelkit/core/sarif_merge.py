"""Merge SARIF logs into one run per tool, as GitHub code scanning wants them.

A workflow that scans every task of a benchmark repository runs `gavel task scan` once per
task; code scanning refuses an upload that holds several runs of one tool in one category.
Merging joins the runs of the same tool (name and version): results concatenated in file
order, rules united by id (each result's ruleIndex re-pointed), base URIs united. Runs of
different tools stay separate runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gavelkit.core.errors import InputError


@dataclass(slots=True)
class _Run:
    """The merged run of one tool."""

    driver: dict[str, Any]
    rules: list[dict[str, Any]] = field(default_factory=list)
    rule_index: dict[str, int] = field(default_factory=dict)
    bases: dict[str, Any] = field(default_factory=dict)
    results: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        driver = dict(self.driver, rules=self.rules)
        out: dict[str, Any] = {"tool": {"driver": driver}, **self.extra}
        if self.bases:
            out["originalUriBaseIds"] = self.bases
        out["results"] = self.results
        return out


def _runs_of(doc: Any, name: str) -> list[dict[str, Any]]:
    """The runs of one SARIF 2.1.0 log, or InputError naming the file."""
    if not isinstance(doc, dict) or doc.get("version") != "2.1.0":
        raise InputError(name, "not a SARIF 2.1.0 log (no \"version\": \"2.1.0\")")
    runs = doc.get("runs")
    if not isinstance(runs, list) or not all(
            isinstance(r, dict) and isinstance(r.get("tool"), dict)
            and isinstance(r["tool"].get("driver"), dict) for r in runs):
        raise InputError(name, "SARIF log without a list of runs, each with tool.driver")
    return runs


def _add_rules(into: _Run, rules: Any, name: str) -> list[int]:
    """Unite the run's rules into `into`; where each of its rule indexes now points."""
    local: list[int] = []
    for rule in rules or []:
        rid = rule.get("id") if isinstance(rule, dict) else None
        if not isinstance(rid, str):
            raise InputError(name, "a rule without a string id")
        if rid not in into.rule_index:
            into.rule_index[rid] = len(into.rules)
            into.rules.append(rule)
        local.append(into.rule_index[rid])
    return local


def _add_bases(into: _Run, bases: Any, name: str) -> None:
    for key, val in (bases or {}).items():
        if into.bases.setdefault(key, val) != val:
            raise InputError(name, f"uriBaseId {key!r} means {val.get('uri')!r} here and "
                             f"{into.bases[key].get('uri')!r} in an earlier log; merge logs "
                             "made from the same checkout")


def _reindexed(res: Any, local: list[int], into: _Run, name: str) -> dict[str, Any]:
    if not isinstance(res, dict):
        raise InputError(name, f"a result that is not an object: {str(res)[:60]!r}")
    res = dict(res)
    idx = res.get("ruleIndex")
    if isinstance(idx, int) and 0 <= idx < len(local):
        res["ruleIndex"] = local[idx]
    elif isinstance(res.get("ruleId"), str) and res["ruleId"] in into.rule_index:
        res["ruleIndex"] = into.rule_index[res["ruleId"]]
    else:
        res.pop("ruleIndex", None)
    return res


def _add(into: _Run, run: dict[str, Any], name: str) -> None:
    local = _add_rules(into, run["tool"]["driver"].get("rules"), name)
    _add_bases(into, run.get("originalUriBaseIds"), name)
    if "columnKind" in run:
        into.extra.setdefault("columnKind", run["columnKind"])
    results = run.get("results") or []
    if not isinstance(results, list):
        raise InputError(name, "a run whose results are not a list")
    into.results.extend(_reindexed(r, local, into, name) for r in results)


def merge(logs: list[tuple[str, Any]]) -> dict[str, Any]:
    """One SARIF log from (file name, parsed log) pairs: one run per tool."""
    runs: dict[tuple[Any, Any], _Run] = {}
    schema = None
    for name, doc in logs:
        schema = schema or (doc.get("$schema") if isinstance(doc, dict) else None)
        for run in _runs_of(doc, name):
            driver = run["tool"]["driver"]
            key = (driver.get("name"), driver.get("version"))
            if key not in runs:
                runs[key] = _Run({k: v for k, v in driver.items() if k != "rules"})
            _add(runs[key], run, name)
    out: dict[str, Any] = {"version": "2.1.0", "runs": [r.as_dict() for r in runs.values()]}
    if schema:
        out = {"$schema": schema, **out}
    return out
