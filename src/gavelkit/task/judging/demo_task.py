"""`gavel demo` for the task pack: judge examples/task-semver end to end on a copy.

reference -> solvability, broken candidate -> run, judge (with the run's example
trajectory for the anti-cheat scan and the example's filled Gate A table) -> verdict
and report artifacts. The example's candidate has real bugs and a missing module, so
the expected outcome is a valid task (the reference passes 100 %) with a weak
candidate: QUALIFIED with weaknesses when the anti-cheat pack is installed, BROKEN
with TSK-J002 (preflight not run) when it is not.

Then the Gate B case, on a second copy: a candidate that differs from the reference
only in the wording of its exception messages. The spec's Non-Goals say it does not
define error-message text, so the failing `pytest.raises(..., match=...)` tests are
verifier failures, not model weaknesses: Gate B fails and the judge writes a
filter_correction_request.md for test-filter.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

# (file, old, new): message wording only; exception types and triggers unchanged
WORDING = [
    ("version.py", '"Version index cannot be negative"', '"negative indices are not supported"'),
    ("version.py", '"Version part undefined"', '"no such version part"'),
    ("version.py", 'f"Expected a Version type but got {type(other)}"',
     'f"cannot check compatibility with {type(other)}"'),
    ("version.py", '"{!r} is negative. A version can only be positive."',
     '"{!r} must not be below zero"'),
    ("version.py", "is readonly\")", "cannot be changed\")"),
    ("_deprecated.py", "\"Function 'semver.{f}' is deprecated.\"", '"semver.{f}() will go away."'),
]


def wording_solution(reference: Path, dest: Path) -> Path:
    """The reference with only its messages reworded (the seed's Gate B case)."""
    shutil.copytree(reference, dest)
    for name, old, new in WORDING:
        p = dest / "semver" / name
        text = p.read_text("utf-8")
        if old not in text:
            raise ValueError(f"{p}: {old!r} not found (example reference changed?)")
        p.write_text(text.replace(old, new), "utf-8")
    return dest


def steps(root: Path, Step: Any) -> list[Any]:
    from gavelkit.task.judging.judge import judge_run
    from gavelkit.task.scoring.counts import count_line
    from gavelkit.task.scoring.options import RunOptions
    from gavelkit.task.scoring.runner import run_solution

    task = root / "task-semver"
    out: list[Any] = []
    ref = run_solution(task, RunOptions(solution=task / "reference",
                                        out=task / "judge" / "reference_run", role="reference"))
    iso = ref.score["gavel"]["isolation"]
    env = ref.score["gavel"]["environment"]
    from gavelkit.task.config import load_config

    least = float(load_config(task)["judge"]["solvable"])
    out.append(Step(f"solvability: reference on the oracle (>= {least * 100:g} %)",
                    (ref.pass_rate or 0) >= least,
                    f"{count_line(ref.summary, ref.pass_rate)}; env "
                    f"{env.get('requirements_hash')} ({'reused' if env.get('reused') else 'built'});"
                    f" isolation {'bubblewrap' if iso['active'] else 'INACTIVE: ' + iso['why_inactive']}"))
    gate_b_task = root / "gate-b" / "task-semver"  # same folder name: Gate E checks it
    shutil.copytree(task, gate_b_task)
    run_dir = task / "candidate-runs" / "broken-001"
    cand = run_solution(task, RunOptions(solution=run_dir / "solution", out=run_dir))
    cls = cand.score["gavel"]["classification"]
    out.append(Step("run: broken candidate scored against the oracle",
                    cand.pass_rate is not None and cand.pass_rate < 1.0,
                    f"{count_line(cand.summary, cand.pass_rate)}; failure classes "
                    + ", ".join(f"{k} {n}" for k, n in sorted(cls.items()))))
    res = judge_run(task, run_dir, trajectories=[str(p) for p in
                                                  sorted(run_dir.glob("trajectory*.jsonl"))])
    have_ac = res.preflight is not None and res.preflight.ran
    isolated = bool(cand.score["gavel"]["isolation"]["active"])
    # a score taken without the sandbox never certifies (issue 24): PENDING there
    expected = ("QUALIFIED" if isolated else "PENDING") if have_ac else "BROKEN"
    cd = res.metrics.to_dict()["cascade"] if res.metrics else {}
    out.append(Step(f"judge: verdict (expected {expected}"
                    + ("" if have_ac else ": anti-cheat pack not installed")
                    + ("" if isolated else ": scored without bubblewrap") + ")",
                    res.verdict == expected,
                    f"{res.verdict}; anti-cheat {res.scan.verdict}; Gate A/C "
                    f"{next((c.status for c in res.checks if c.name == 'gate-A/C'), '?')}; gap "
                    f"{res.metrics.integration_gap['rate_gap'] if res.metrics else '-'}"
                    f"; {cd.get('failures')} failures in {cd.get('root_causes')} root causes; "
                    f"{len(res.metrics.true_gap_events) if res.metrics else 0} true gap events"))
    report = (task / "judge" / "diagnosis_report.md").read_text("utf-8")
    tj = json.loads((task / "task.json").read_text("utf-8-sig"))
    ok = ("## Preflight output" in report and report.index("## Preflight output")
          < report.index("## Candidate Score By Layer")
          and (task / "judge" / "judge_result.json").is_file()
          and (not have_ac or not isolated or (tj.get("status") == "QUALIFIED"
                                               and "integration_gap" in tj)))
    out.append(Step("report artifacts: diagnosis_report.md (preflight block first), task.json "
                    "(status with the verdict), judge_result.json", ok,
                    f"{task / 'judge' / 'diagnosis_report.md'}; task.json status "
                    f"{tj.get('status')}, labels {tj.get('labels')}; state "
                    f"{res.transition.get('to', '-')}"))
    out.append(gate_b_step(gate_b_task, Step, have_ac))
    return out


def gate_b_step(task: Path, Step: Any, have_ac: bool) -> Any:
    """A candidate differing only in exception-message wording: Gate B -> test-filter."""
    from gavelkit.task.judging.judge import judge_run
    from gavelkit.task.scoring.options import RunOptions
    from gavelkit.task.scoring.runner import run_solution

    run_dir = task / "candidate-runs" / "wording"
    wording_solution(task / "reference", run_dir / "solution")
    shutil.copy(task / "candidate-runs" / "broken-001" / "trajectory.jsonl",
                run_dir / "trajectory.jsonl")
    cand = run_solution(task, RunOptions(solution=run_dir / "solution", out=run_dir))
    res = judge_run(task, run_dir, trajectories=[str(run_dir / "trajectory.jsonl")])
    req = task / "judge" / "filter_correction_request.md"
    gb = res.gate_b
    if not have_ac:
        return Step("Gate B: message-wording candidate (needs the anti-cheat pack: skipped)",
                    res.verdict == "BROKEN", f"{res.verdict}; {'; '.join(res.reasons[:1])}")
    ok = (gb.verdict == "FAIL" and res.route == "filter" and req.is_file()
          and not res.weaknesses)
    return Step("Gate B: a candidate differing only in error-message wording (expected BROKEN, "
                "routed to test-filter)", ok,
                f"{cand.summary['passed']}/{cand.summary['total']} passed; Gate B "
                f"{gb.verdict}: {gb.verifier} of {gb.failures} failures are "
                f"verifier failures ({gb.why}); {res.verdict} -> {res.route}; wrote "
                f"{req.relative_to(task.parent.parent) if req.is_file() else 'no request'}; state "
                f"{res.transition.get('to', '-')}")
