"""`gavel demo`: run the bundled examples end to end on a scratch copy.

The examples live in the repository's examples/ folder, and a wheel carries them as
package data (gavelkit/_bundle/examples/); the demo copies them to a scratch folder (or
--out) first, so running it never changes the checkout or the installation.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gavelkit.cli.common import parser


@dataclass(slots=True)
class Step:
    title: str
    ok: bool
    detail: str


def find_examples(explicit: str | None = None) -> Path | None:
    """--examples, else the examples shipped with this gavelkit (wheel or checkout)."""
    if explicit:
        return Path(explicit)
    from gavelkit.cli.bundled import bundled

    return bundled("examples")


def _run_dir(root: Path) -> Path:
    runs = sorted(p for p in (root / "award-run" / "work").iterdir() if p.is_dir())
    return runs[-1]


def award_steps(root: Path) -> list[Step]:
    """Lint every block of the example run and aggregate its panel rounds."""
    run = _run_dir(root)
    steps = [handoff_step(run), *kind_steps(run), *panel_steps(run)]
    steps.extend(run_steps(run))
    steps.extend(figure_steps(run))
    steps.extend(paper_steps(run))
    steps.append(manifest_step(run))
    steps.append(report_step(run, root.parent / "award-report.html"))
    steps.extend(stop_resume_steps(root, run))
    return steps


def handoff_step(run: Path) -> Step:
    """Every handoff of the phase logs, each judged under its own role, with --run-dir."""
    from gavelkit.award.blocks.lint import lint_paths

    logs = sorted((run / "phase-logs").glob("*.md"))
    handoff_logs = [p for p in logs if "handoff:" in p.read_text(encoding="utf-8")]
    n = bad = 0
    for res in lint_paths(handoff_logs, "handoff", run_dir=run):
        # lint each log once per role it holds, judging each block under its own role
        for agent in {b.block.body.get("agent") for b in res.blocks}:
            again = lint_paths([res.path], "handoff", agent=agent, run_dir=run)[0]
            mine = [x for x in again.blocks if x.block.body.get("agent") == agent]
            n += len(mine)
            bad += sum(1 for x in mine if not x.ok)
    return Step("lint handoffs (--agent per role, --run-dir)", bad == 0,
                f"{n} handoff blocks in {len(handoff_logs)} phase logs, {bad} failing")


def kind_steps(run: Path) -> list[Step]:
    """The gate, scorecard, memo and variant blocks of the example run."""
    from gavelkit.award.blocks.lint import lint_paths

    steps = []
    for kind, files in (("gate", sorted((run / "gates").glob("*.yaml"))),
                        ("scorecard", sorted((run / "scorecards").glob("*.yaml"))),
                        ("decision_memo", [run / "phase-logs" / "phase7.md"]),
                        ("variant", [run / "phase-logs" / "phase0.md"])):
        results = lint_paths(files, kind)
        errs = [f for r in results for f in r.all_findings() if f.severity == "error"]
        steps.append(Step(f"lint {kind} blocks", not errs,
                          f"{sum(len(r.blocks) for r in results)} blocks, {len(errs)} errors"))
    return steps


def _verdict(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


def panel_steps(run: Path) -> list[Step]:
    """Round 1 fails on an evidence conflict; the adjudication round re-scores seat C."""
    from gavelkit.award.panel.aggregate import aggregate

    cards = run / "scorecards"
    r1 = aggregate(sorted(cards.glob("phase7-seat-*-round-1.yaml")), "finalist")
    steps = [Step("aggregate round 1 at finalist (expected FAIL: conflict on results)",
                  not r1.passed and bool(r1.conflicts),
                  f"{_verdict(r1.passed)}; conflicts: "
                  + "; ".join(c.describe() for c in r1.conflicts))]
    adj = [cards / "phase7-seat-A-round-1.yaml", cards / "phase7-seat-B-round-1.yaml",
           cards / "phase7-seat-C-round-2.yaml"]
    fin = aggregate(adj, "finalist", adjudication_round=True)
    out = aggregate(adj, "outstanding", adjudication_round=True)
    steps.append(Step("aggregate adjudication round 2 (seat C re-dispatched)",
                      fin.passed and not out.passed,
                      f"finalist {_verdict(fin.passed)}, outstanding "
                      f"{_verdict(out.passed)} ({'; '.join(out.failed)})"))
    return steps


def manifest_step(run: Path) -> Step:
    """The Phase 6 QA wrote the contact sheet into outputs/figures/: recompile the manifest,
    or status (rightly) refuses to advance on a stale one."""
    from gavelkit.award.runs import manifest

    stale = manifest.check_manifest(run)
    manifest.write_manifest(run)
    again = manifest.check_manifest(run)
    return Step("recompile package/manifest.md after the Phase 6 QA outputs", not again,
                f"{len(stale)} stale entr{'y' if len(stale) == 1 else 'ies'} before "
                "(e.g. the contact sheet), none after")


def _write_gate(run: Path, phase: int, loop: int, ids: list[str]) -> None:
    """A critic's gate file: fail with the given open high issues, else pass."""
    import yaml

    issues = [{"id": i, "severity": "high", "summary": f"{i} open", "artifact": "paper",
               "required_fix": "fix", "owner": "mathodology-coder"} for i in ids]
    body = {"gate": {"phase": phase, "loop": loop, "verdict": "fail" if ids else "pass",
                     "issues": issues, "evidence_checked": ["re-ran run_all.py"],
                     "missing_evidence": []}}
    (run / "gates" / f"phase-{phase}-loop-{loop}.yaml").write_text(
        yaml.safe_dump(body, sort_keys=False), encoding="utf-8")


def stop_resume_steps(root: Path, example: Path) -> list[Step]:
    """A run that stops (phase 4 loop 1 does not improve), gets a drafted decision memo, a
    human's recorded decision, and resumes — the STOP is lifted only by that decision."""
    from gavelkit.award.runs.layout import init_run

    variant = (example / "phase-logs" / "phase0.md").read_text(encoding="utf-8")
    block = next(b.split("```", 1)[0] for b in variant.split("```yaml\n")[1:]
                 if b.startswith("variant:"))
    run, _, _ = init_run(root / "award-stop-run", "20260131-1000-stop", block)
    for ph in range(4):
        _write_gate(run, ph, 0, [])
    _write_gate(run, 4, 0, ["G4-1", "G4-2"])
    _write_gate(run, 4, 1, ["G4-1", "G4-3"])
    steps, memo = _stop_and_memo(run)
    return steps + _resume(run, memo)


def _stop_and_memo(run: Path) -> tuple[list[Step], Path]:
    from gavelkit.award.blocks.lint import lint_paths
    from gavelkit.award.runs.budget import run_status
    from gavelkit.award.runs.memo_draft import write_draft

    st = run_status(run)
    steps = [Step("stop: phase 4 loop 1 did not improve (2 -> 2 open high)",
                  st.action.kind == "STOP", f"NEXT {st.action.kind}: {st.action.reason}")]
    memo = write_draft(st)
    res = lint_paths([memo], "decision_memo")[0]
    rec = [o["option"].split(":")[0] for o in res.blocks[0].block.body["options"]
           if o["recommended"]] if res.blocks else []
    still = run_status(run).action.kind
    steps.append(Step("decision memo drafted; the run stays at STOP until a human decides",
                      not res.all_findings() and still == "STOP" and rec == ["rework"],
                      f"{memo.name} lints clean; recommended: {', '.join(rec)}; status: {still}"))
    return steps, memo


def _resume(run: Path, memo: Path) -> list[Step]:
    from gavelkit.award.runs.budget import run_status

    text = memo.read_text(encoding="utf-8").replace(
        "decision_memo:\n", "decision_memo:\n  decision: {choice: rework, by: 'team lead (Ana)', "
        "rationale: 'replace the ARIMA fit with a state-space model for G4-1'}\n", 1)
    memo.write_text(text, encoding="utf-8")
    st = run_status(run)
    steps = [Step("human decision recorded (rework): the run resumes with fix loop 2",
                  st.action.kind == "fix" and st.action.decision is not None,
                  f"NEXT {st.action.kind} phase {st.action.phase}: {st.action.reason}")]
    _write_gate(run, 4, 2, [])
    st = run_status(run)
    under = [f.message for f in st.findings if f.code == "AWD-T015"]
    steps.append(Step("loop 2 passes under the decision: advance to phase 5, no overrun",
                      (st.action.kind, st.action.phase) == ("advance", 5) and bool(under)
                      and not any(f.severity == "error" for f in st.findings),
                      f"NEXT {st.action.kind} phase {st.action.phase}; "
                      + (under[0] if under else "no decision recorded")))
    return steps


def report_step(run: Path, out: Path) -> Step:
    """`gavel award report`: the lead's HTML report of the example run."""
    from gavelkit.award.runs.report import build
    from gavelkit.core.htmlreport import write

    rep = build(run)
    write(str(out), rep.html)
    ok = rep.data["next_action"]["action"] == "advance" and "<svg" in rep.html
    return Step("award report (self-contained HTML)", ok,
                f"wrote {out} ({out.stat().st_size // 1024} KB); PDF QA: "
                + ("ran" if rep.data["pdfqa"]["ran"] else rep.data["pdfqa"]["reason"]))


def _cli_json(*argv: str) -> tuple[int, dict[str, Any]]:
    """Run a gavel command in-process with --format json and parse what it printed."""
    import contextlib
    import io
    import json

    from gavelkit.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = main([*argv, "--format", "json"])
    try:
        return rc, json.loads(out.getvalue())
    except ValueError:
        return rc, {}


def figure_steps(run: Path) -> list[Step]:
    """The coder's collision gate: run_all.py re-run headless with every figure gated."""
    rc, doc = _cli_json("award", "figqa", "run", str(run / "code" / "run_all.py"), "--quiet")
    n = len(doc.get("figures", [])) if isinstance(doc.get("figures"), list) else doc.get("figures")
    return [Step("figqa run code/run_all.py (every figure gated, as the critic re-runs it)",
                 rc == 0, f"exit {rc}; figures gated: {n}; collisions: "
                 f"{doc.get('counts', {}).get('error', '?')}")]


def paper_steps(run: Path) -> list[Step]:
    """PDF QA of the compiled paper (limit from the variant) and its contact sheet."""
    pdf = run / "paper" / "solution.pdf"
    variant = run / "phase-logs" / "phase0.md"
    rc, doc = _cli_json("award", "pdfqa", str(pdf), "--variant", str(variant), "--anonymous",
                        "--quiet")
    counts = doc.get("counts", {})
    steps = [Step("pdfqa --variant --anonymous (AI-use report not counted)", rc == 0,
                  f"exit {rc}; {counts.get('error', '?')} errors, {counts.get('warning', '?')} "
                  "warnings: " + "; ".join(f["message"] for f in doc.get("findings", [])[:3]))]
    sheet = run / "outputs" / "figures" / "contact_sheet.png"
    rc, doc = _cli_json("award", "contact-sheet", str(pdf), "-o", str(sheet), "--quiet")
    steps.append(Step("contact sheet from the compiled PDF", rc == 0 and sheet.is_file(),
                      f"exit {rc}; wrote {sheet.name} "
                      f"({sheet.stat().st_size // 1024 if sheet.is_file() else 0} KB)"))
    return steps


def run_steps(run: Path) -> list[Step]:
    """status (budgets, stalls, next action), manifest check and blind briefs of the run."""
    from gavelkit.award.runs import briefs, manifest, status_render
    from gavelkit.award.runs.budget import run_status

    st = run_status(run)
    table = status_render.render_table(st)
    stalled = sorted({s for info in st.phases.values() for s in info.stalled})
    steps = [Step("status: budgets, stalled ids, panel rounds, next action",
                  st.action.kind == "advance" and st.action.phase == 8 and bool(stalled),
                  f"fix loops {st.fix_loops_used}/8, rounds {len(st.rounds)}/3, stalled "
                  f"{', '.join(stalled)}; NEXT {st.action.kind}: {st.action.reason}\n"
                  + "\n".join("          " + line for line in table.splitlines()))]
    st_out = run_status(run, target="outstanding")
    steps.append(Step("status at --target outstanding", st_out.action.kind == "rescore",
                      f"NEXT {st_out.action.kind}: {st_out.action.reason}"))
    stale = manifest.check_manifest(run)
    steps.append(Step("manifest --check (package/manifest.md against the tree)", not stale,
                      "matches" if not stale else "; ".join(f.message for f in stale)))
    written = briefs.write_briefs(run, "MCM 2026 Problem C", round_=3)
    leaks = [f for w in written for f in briefs.check_brief(w)]
    steps.append(Step("blind seat briefs for round 3, checked for leaks", not leaks,
                      f"{len(written)} briefs, {len(leaks)} leaks"))
    return steps


def task_steps(root: Path) -> list[Step]:
    """Judge examples/task-semver: solvability, candidate run, verdict, report artifacts."""
    from gavelkit.task.judging.demo_task import steps

    out = steps(root, Step)
    out.append(task_report_step(root / "task-semver", root.parent / "task-report.html"))
    return out


def task_report_step(task: Path, out: Path) -> Step:
    """`gavel task report` on the judged example task (layer rates, gap, heat map, clusters)."""
    from gavelkit.core.htmlreport import write
    from gavelkit.task.judging.report import build_task

    rep = build_task(task)
    write(str(out), rep.html)
    ok = "<svg" in rep.html and out.stat().st_size > 0
    return Step("task report (self-contained HTML)", ok,
                f"wrote {out} ({out.stat().st_size // 1024} KB)")


DEMOS: list[tuple[str, Callable[[Path], list[Step]]]] = [
    ("award run", award_steps),
    ("task judge (examples/task-semver)", task_steps),
]


def _work_copy(src: Path, out: str | None) -> tuple[Path, Path]:
    """(scratch folder, its copy of the examples): the demo never changes the originals."""
    scratch = Path(out) if out else Path(tempfile.mkdtemp(prefix="gavel-demo-"))
    dest = scratch / "examples"
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(src, dest, symlinks=False)  # examples hold no link (test_examples_links)
    return scratch, dest


def _print_json(results: list[tuple[str, list[Step]]], ok: bool, scratch: Path) -> None:
    import json

    print(json.dumps({"ok": ok, "workdir": str(scratch),
                      "demos": {name: [{"step": s.title, "ok": s.ok, "detail": s.detail}
                                       for s in steps] for name, steps in results}},
                     ensure_ascii=False, indent=2))


def _print_text(results: list[tuple[str, list[Step]]], ok: bool, scratch: Path) -> None:
    for name, steps in results:
        print(f"== {name}")
        for s in steps:
            print(f"  [{'ok' if s.ok else 'UNEXPECTED'}] {s.title}\n        {s.detail}")
    print(f"demo {'finished as expected' if ok else 'found unexpected results'}; "
          f"work copy in {scratch}")


def main(argv: list[str], prog: str) -> int:
    p = parser(prog, "Run the bundled examples end to end and print a short summary.")
    p.add_argument("--examples", help="examples folder (default: the ones shipped with gavelkit)")
    p.add_argument("--out", help="work on a copy here instead of a scratch folder")
    p.add_argument("--format", choices=["text", "json"], default="text")
    args = p.parse_args(argv)
    src = find_examples(args.examples)
    if src is None or not src.is_dir():
        where = f"{args.examples} is not a folder" if args.examples else (
            "this gavelkit was installed without its examples")
        print(f"{prog}: error: examples folder not found: {where}; pass the examples/ folder "
              "of a gavelkit checkout with --examples", file=sys.stderr)
        return 2
    scratch, dest = _work_copy(src, args.out)
    results: list[tuple[str, list[Step]]] = [(name, fn(dest)) for name, fn in DEMOS]
    ok = all(s.ok for _, steps in results for s in steps)
    (_print_json if args.format == "json" else _print_text)(results, ok, scratch)
    return 0 if ok else 1
