"""Issue 26 item 4: Gate B waits (PENDING, with a prefilled table) while its judgement
cells are blank; only the mechanical wording rule decides it alone."""

from __future__ import annotations

from types import SimpleNamespace

from gavelkit.task.formats.load import load_task
from gavelkit.task.judging import gate_b_table as T
from gavelkit.task.judging.metrics import Cluster
from gavelkit.task.judging.scores import gate_b
from task_helpers import copy_good


def _clusters(wording: int = 0) -> list[Cluster]:
    out = [Cluster("C1", "`parse` (Parsing): assert parse('|').total == 1 fails", "candidate",
                   tests=["a", "b", "c"], sections=["Parsing"]),
           Cluster("C2", "`render` (Formatting): raises ValueError", "candidate",
                   tests=["d"], sections=["Formatting"])]
    if wording:
        out.append(Cluster("C3", "Parsing: message wording not promised by the spec", "verifier",
                           tests=[f"w{i}" for i in range(wording)], rule="unpromised-wording"))
    return out


def _task(tmp_path):
    return load_task(copy_good(tmp_path))


def test_no_table_is_pending_with_a_prefilled_table(tmp_path):
    gb = gate_b(SimpleNamespace(clusters=_clusters()), _task(tmp_path))
    assert gb.verdict == "PENDING" and "| C1 | 3 |" in gb.prefilled
    assert gb.prefilled.count("| ? | ? |") == 2


def _write(tmp_path, cells: dict[str, tuple[str, str]]):
    task = _task(tmp_path)
    text = T.render([c for c in _clusters() if c.klass == "candidate"])
    for cid, (n, q) in cells.items():
        text = text.replace(f"| {cid} |", f"| {cid} |", 1)
        lines = text.splitlines()
        for i, ln in enumerate(lines):
            if ln.startswith(f"| {cid} |"):
                lines[i] = ln.rsplit("| ? | ? |", 1)[0] + f"| {n} | {q} |"
        text = "\n".join(lines) + "\n"
    (task.dir / "judge").mkdir(exist_ok=True)
    (task.dir / T.TABLE).write_text(text, "utf-8")
    return task


def test_a_blank_cell_keeps_it_pending(tmp_path):
    task = _write(tmp_path, {"C1": ("yes", "no")})  # C2 still blank
    gb = gate_b(SimpleNamespace(clusters=_clusters()), task)
    assert gb.verdict == "PENDING" and any(p.startswith("C2") for p in gb.pending)


def test_answered_model_failures_pass(tmp_path):
    task = _write(tmp_path, {"C1": ("yes", "no"), "C2": ("yes", "no")})
    gb = gate_b(SimpleNamespace(clusters=_clusters()), task)
    assert gb.verdict == "PASS" and gb.judged == 2


def test_judged_internal_shape_majority_fails(tmp_path):
    task = _write(tmp_path, {"C1": ("no", "no"), "C2": ("yes", "no")})
    gb = gate_b(SimpleNamespace(clusters=_clusters()), task)
    assert gb.verdict == "FAIL" and gb.verifier == 3 and "C1" in gb.why


def test_the_wording_rule_alone_may_fail_it(tmp_path):
    gb = gate_b(SimpleNamespace(clusters=_clusters(wording=9)), _task(tmp_path))
    assert gb.verdict == "FAIL" and "unpromised-wording" in gb.why and not gb.prefilled


def test_no_failures_is_nothing_to_judge(tmp_path):
    assert gate_b(SimpleNamespace(clusters=[]), _task(tmp_path)).verdict == "PASS"
