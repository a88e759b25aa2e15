"""Random and mutated blocks never produce a traceback (hypothesis)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gavelkit.award.blocks.lint import lint_paths
from gavelkit.award.panel.aggregate import aggregate

from award_util import card, gate, handoff, memo, variant

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 200),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
                    st.sampled_from(["pass", "fail", "high", "A", "work/r1/x", "G4-1", "outstanding",
                                     "国一", "..", "/abs"]))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12)

BASES = {"handoff": handoff, "gate": gate, "scorecard": card, "decision_memo": memo,
         "variant": variant}


def _paths(obj: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(sorted(BASES)), data=st.data(), new=values,
       action=st.sampled_from(["replace", "delete", "add"]))
def test_mutated_blocks_never_raise(tmp_path: Path, kind: str, data: st.DataObject, new: Any,
                                    action: str) -> None:
    doc = copy.deepcopy(BASES[kind]())
    spots = _paths(doc)
    path = data.draw(st.sampled_from(spots[1:]))
    parent: Any = doc
    for k in path[:-1]:
        parent = parent[k]
    last = path[-1]
    if action == "replace":
        parent[last] = new
    elif action == "delete":
        del parent[last]
    elif isinstance(parent, dict):
        parent[f"extra_{len(parent)}"] = new
    else:
        parent.append(new)
    p = tmp_path / f"{kind}.yaml"
    try:
        p.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    except yaml.YAMLError:
        return
    lint_paths([p], kind)
    if kind == "scorecard":
        aggregate([p, p, p], "outstanding")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=values)
def test_random_documents_never_raise(tmp_path: Path, doc: Any) -> None:
    p = tmp_path / "r.yaml"
    try:
        p.write_text(yaml.safe_dump({"scorecard": doc, "gate": doc}), encoding="utf-8")
    except yaml.YAMLError:
        return
    for kind in BASES:
        lint_paths([p], kind)
    aggregate([p], "finalist")


@pytest.mark.parametrize("kind", sorted(BASES))
def test_every_kind_accepts_its_good_block(tmp_path: Path, kind: str) -> None:
    p = tmp_path / "b.yaml"
    p.write_text(yaml.safe_dump(BASES[kind]()), encoding="utf-8")
    res = lint_paths([p], kind)
    assert res[0].all_findings() == []
