"""Random run folders (names, contents, budgets) never make status raise."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gavelkit.award.runs.budget import run_status
from gavelkit.award.runs.layout import init_run
from gavelkit.award.runs.memo_draft import draft

from award_util import card, dump, gate

sev = st.sampled_from(["blocker", "high", "medium", "low", "HIGH", None])
issue = st.tuples(st.integers(0, 9), st.integers(1, 4), sev)
gate_spec = st.tuples(st.integers(0, 9), st.integers(0, 4), st.sampled_from(["pass", "fail", "x"]),
                      st.lists(issue, max_size=4), st.booleans())
card_spec = st.tuples(st.sampled_from(["A", "B", "C", "D"]), st.integers(0, 5),
                      st.integers(40, 100), st.booleans())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(gates=st.lists(gate_spec, max_size=12), cards=st.lists(card_spec, max_size=8),
       target=st.sampled_from([None, "outstanding", "finalist", "国二"]))
def test_status_never_raises(tmp_path_factory, gates, cards, target) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("run")
    run, _, _ = init_run(Path(root), "r")
    for ph, lp, verdict, its, misname in gates:
        body = gate(phase=ph, loop=lp, verdict=verdict,
                    issues=[{"id": f"G{p}-{n}", "severity": s, "summary": "s", "artifact": "a",
                             "required_fix": "f", "owner": "o"} for p, n, s in its])
        name = f"phase-{ph}-loop-{lp + (1 if misname else 0)}.yaml"
        (run / "gates" / name).write_text(dump(body))
    for seat, rnd, score, broken in cards:
        s = seat if seat in "ABC" else "A"
        c = card(s, scores={"summary": score}, round_=max(rnd, 1))
        c["scorecard"]["seat"] = seat
        c["scorecard"]["round"] = rnd
        text = dump(c) if not broken else "scorecard: [\n"
        (run / "scorecards" / f"phase7-seat-{seat}-round-{rnd}.yaml").write_text(text)
    st_ = run_status(run, target)
    assert st_.action.kind in ("advance", "fix", "rescore", "adjudicate", "repair", "STOP")
    if st_.action.kind == "STOP":
        d = draft(st_)["decision_memo"]
        assert d["budget_spent"]["loops"] <= d["budget_spent"]["cap"]
