"""`gavel demo` for the task pack: judge examples/task-semver end to end on a copy.

reference -> solvability, broken candidate -> run, judge (with the run's example
trajectory for the anti-cheat scan) -> verdict and report artifacts. The example's candidate has real bugs and a missing module, so the
expected outcome is a valid task (the reference passes 100 %) with a weak
candidate: QUALIFIED with weaknesses when the anti-cheat pack is installed,
BROKEN with TSK-J002 (preflight not run) when it is not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def steps(root: Path, Step: Any) -> list[Any]:
    from gavelkit.task.judging.judge import judge_run
    from gavelkit.task.scoring.options import RunOptions
    from gavelkit.task.scoring.runner import run_solution

    task = root / "task-semver"
    out: list[Any] = []
    ref = run_solution(task, RunOptions(solution=task / "reference",
                                        out=task / "judge" / "reference_run", role="reference"))
    iso = ref.score["gavel"]["isolation"]
    env = ref.score["gavel"]["environment"]
    out.append(Step("solvability: reference on the oracle (>= 95 %)",
                    (ref.pass_rate or 0) >= 0.95,
                    f"{ref.summary['passed']}/{ref.summary['total']} passed; env "
                    f"{env.get('requirements_hash')} ({'reused' if env.get('reused') else 'built'});"
                    f" isolation {'bubblewrap' if iso['active'] else 'INACTIVE: ' + iso['why_inactive']}"))
    run_dir = task / "candidate-runs" / "broken-001"
    cand = run_solution(task, RunOptions(solution=run_dir / "solution", out=run_dir))
    cls = cand.score["gavel"]["classification"]
    out.append(Step("run: broken candidate scored against the oracle",
                    cand.pass_rate is not None and cand.pass_rate < 1.0,
                    f"{cand.summary['passed']}/{cand.summary['total']} passed "
                    f"({cand.pass_rate:.1%}); failure classes "
                    + ", ".join(f"{k} {n}" for k, n in sorted(cls.items()))))
    res = judge_run(task, run_dir, trajectories=[str(p) for p in
                                                  sorted(run_dir.glob("trajectory*.jsonl"))])
    have_ac = res.preflight.available
    expected = "QUALIFIED" if have_ac else "BROKEN"
    cd = res.metrics.to_dict()["cascade"] if res.metrics else {}
    out.append(Step(f"judge: verdict (expected {expected}"
                    + ("" if have_ac else ": anti-cheat pack not installed") + ")",
                    res.verdict == expected,
                    f"{res.verdict}; anti-cheat {res.scan.verdict}; gap {res.metrics.integration_gap['rate_gap'] if res.metrics else '-'}"
                    f"; {cd.get('failures')} failures in {cd.get('root_causes')} root causes; "
                    f"{len(res.metrics.true_gap_events) if res.metrics else 0} true gap events"))
    report = (task / "judge" / "diagnosis_report.md").read_text("utf-8")
    tj = json.loads((task / "task.json").read_text("utf-8-sig"))
    ok = ("## Preflight output" in report and report.index("## Preflight output")
          < report.index("## Candidate Score By Layer") and "judge" in tj
          and "integration_gap" in tj and (task / "judge" / "judge_result.json").is_file())
    out.append(Step("report artifacts: diagnosis_report.md (preflight block first), task.json, "
                    "judge_result.json", ok,
                    f"{task / 'judge' / 'diagnosis_report.md'}; task.json labels "
                    f"{tj.get('labels')}; state {res.transition.get('to', '-')}"))
    return out
