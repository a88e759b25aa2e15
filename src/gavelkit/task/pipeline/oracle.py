"""Oracle versioning and the REOPENED_S3 protocol.

When a task reaches QUALIFIED, the SHA-256 of each oracle file
(kept_nodeids.txt, taxonomy.jsonl, spec_test_map.md, the oracle test files and
oracle/conftest.py) is written to `oracle_digests.json` in the task folder.
`check_oracle` compares the folder against that record; when a QUALIFIED
task's oracle changed it carries out the protocol of the seed:

1. state -> REOPENED_S3 (PIPELINE_STATE.md, or task.json `status` +
   `reopened_s3{date, reason, required_next_stage}` for a graduated folder
   without a state file);
2. `superseded_by: <new oracle version>` appended to the QUALIFIED row of
   CANDIDATES.md (the row is kept, not overwritten);
3. every score_result.json of the task renamed to
   `score_result_superseded_<date>.json`;
4. every reference run and spot-check table made on the old oracle renamed the same
   way (`judge/reference_run/score_result_superseded_<date>.json`,
   `judge/spotcheck_superseded_<date>.md`, ...): the seed re-runs Stage 4 -> Stage 5
   against the new oracle, so the judge must score the reference afresh and the
   spot-check table must be written again (issue 26).

Digests live in digests.py. Library API:
`check_oracle(task_dir, ledger=None, date=None, dry_run=False) -> OracleCheck`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gavelkit.core.findings import Finding
from gavelkit.core.textio import atomic_write, locked
from gavelkit.task.formats.load import Task, find_globs, load_task
from gavelkit.task.pipeline.digests import (
    DIGEST_FILE,
    combined,
    current_digests,
    diff,
    ledger_names,
    load_record,
    record_digests,
    version_of,
)

# spot-check tables the judge reads (checks.SPOTCHECK and the legacy names)
SPOTCHECK_TABLES = ("judge/spotcheck.md", "spotcheck.md", "filter/spotcheck.md",
                    "judge/gate_b.md")  # Gate B's judgement table is made on the old oracle too


@dataclass(slots=True)
class OracleCheck:
    changes: list[tuple[str, str]] | None
    findings: list[Finding] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    old_version: str | None = None
    new_version: str | None = None


def _superseded(p: Path, date: str) -> Path:
    """`name_superseded_<date>.ext` beside p, numbered when that name is taken."""
    target = p.with_name(f"{p.stem}_superseded_{date}{p.suffix}")
    n = 2
    while target.exists():
        target = p.with_name(f"{p.stem}_superseded_{date}-{n}{p.suffix}")
        n += 1
    return target


def _rename(task: Task, paths: list[Path], date: str, dry_run: bool, what: str) -> list[str]:
    done = []
    for p in paths:
        target = _superseded(p, date)
        if not dry_run:
            p.rename(target)
        done.append(f"renamed {task.rel(p)} -> {task.rel(target)}{what}")
    return done


def _rename_scores(task: Task, date: str, dry_run: bool) -> list[str]:
    globs = [g for g in task.config["state"]["candidate_score_globs"] if not g.startswith("..")]
    hits = [p for p in find_globs(task.dir, globs) if p.name == "score_result.json"]
    return _rename(task, hits, date, dry_run, "")


def _void_old_oracle_evidence(task: Task, date: str, dry_run: bool) -> list[str]:
    """Every reference run and spot-check table made on the old oracle is void (issue 26):
    the seed re-runs Stage 4 -> Stage 5 "against the new oracle", so none may be reused."""
    globs = [g for g in task.config["state"]["reference_score_globs"] if not g.startswith("..")]
    refs = [p for p in find_globs(task.dir, globs) if "_superseded_" not in p.name]
    out = _rename(task, refs, date, dry_run, " (a reference run on the old oracle)")
    tables = [task.dir / rel for rel in SPOTCHECK_TABLES if (task.dir / rel).is_file()]
    out += _rename(task, tables, date, dry_run, " (a spot-check table on the old oracle)")
    return out


def _reopen_state(d: Path, task: Task, reason: str, day: str, dry_run: bool,
                  res: OracleCheck) -> bool:
    """Step 1: QUALIFIED -> REOPENED_S3; False when the state file refused the move."""
    from gavelkit.task.pipeline.state import STATE_NAME, transition

    if (d / STATE_NAME).is_file():
        r = transition(d, "REOPENED_S3", reason, date=day, dry_run=dry_run)
        if r.findings and not r.plan.ok:
            res.findings.extend(r.findings)
            return False
        res.actions.append("state QUALIFIED -> REOPENED_S3 in PIPELINE_STATE.md")
    elif task.task_json is not None:
        if not dry_run:
            from gavelkit.task.formats.task_json import update_task_json

            update_task_json(task.paths["task_json"], {
                "status": "REOPENED_S3",
                "reopened_s3": {"date": day, "reason": reason,
                                "required_next_stage": "S4_EVAL_RUN"}})
        res.actions.append("task.json status QUALIFIED -> REOPENED_S3 (no PIPELINE_STATE.md)")
    return True


def _supersede_row(task: Task, new_version: str, dry_run: bool, res: OracleCheck) -> None:
    """Step 2: `superseded_by` on the task's QUALIFIED row of CANDIDATES.md (kept, not replaced)."""
    if task.ledger is None:
        res.findings.append(Finding("TSK-O004", "warning", "no CANDIDATES.md found (task folder "
                                    "or its two parents; use --ledger); superseded_by not "
                                    "written", str(task.dir), 0, 0))
        return
    names = ledger_names(task)
    rows = [r for r in task.ledger.rows if r.status == "QUALIFIED" and r.matches(names)]
    if not rows:
        res.findings.append(Finding("TSK-O004", "warning",
                                    "no QUALIFIED row for this task in CANDIDATES.md; "
                                    "superseded_by not written", str(task.paths["ledger"]), 0, 0))
        return
    if not dry_run:
        _write_superseded(task.paths["ledger"], names, new_version)
    res.actions.append(f"CANDIDATES.md line {rows[-1].line}: superseded_by: {new_version}")


def _write_superseded(lp: Path, names: set[str], new_version: str) -> None:
    """Re-read under the ledger's lock and mark its last live QUALIFIED row of the task."""
    from gavelkit.task.formats.candidates import read_candidates, render_with_superseded

    with locked(lp):
        led, _ = read_candidates(lp)
        assert led is not None
        fresh = [r for r in led.rows if r.status == "QUALIFIED" and r.matches(names)]
        if fresh:
            atomic_write(lp, render_with_superseded(led, fresh[-1], new_version))


def _no_record(d: Path, state: str | None, day: str, record: bool, dry_run: bool) -> OracleCheck:
    res = OracleCheck(None)
    if record and not dry_run:
        r = record_digests(d, day)
        res.actions.append(f"recorded {len(r['files'])} oracle digests "
                           f"(version {r['oracle_version']}) in {DIGEST_FILE}")
        return res
    sev = "warning" if state == "QUALIFIED" else "info"
    res.findings.append(Finding(
        "TSK-O001", sev, f"no {DIGEST_FILE}: oracle digests were never recorded"
        + (" although the task is QUALIFIED (use --record to take the current oracle "
           "as the qualified baseline)" if state == "QUALIFIED" else ""), str(d), 0, 0))
    return res


def _changed(task: Task, d: Path, rec: dict, digests: dict, changes: list, res: OracleCheck) -> str:
    """The new oracle version (bumped by digest when the map's version was not), and O002."""
    new_version = version_of(task, digests)
    if new_version == res.old_version:
        res.findings.append(Finding(
            "TSK-O003", "warning", f"oracle files changed but oracle_version is still "
            f"{new_version}; bump it in spec_test_map.md (all four oracle files change together)",
            str(task.paths.get("map", d)), 0, 0))
        new_version = f"{new_version}+sha256:{combined(digests)[:12]}"
    listing = ", ".join(f"{rel} ({how})" for rel, how in changes)
    res.findings.append(Finding("TSK-O002", "error" if task.state == "QUALIFIED" else "warning",
                                f"oracle changed since it was recorded on "
                                f"{rec.get('recorded', '?')}: {listing}", str(d), 0, 0,
                                data={"changes": [list(c) for c in changes],
                                      "old_version": res.old_version,
                                      "new_version": new_version}))
    return new_version


def check_oracle(task_dir: str | Path, *, ledger: str | Path | None = None,
                 date: str | None = None, dry_run: bool = False, record: bool = False,
                 config: str | Path | None = None) -> OracleCheck:
    from gavelkit.task.pipeline.clock import today

    d = Path(task_dir)
    day = date or today()
    task = load_task(d, config, ledger)
    rec = load_record(d)
    if rec is None:
        return _no_record(d, task.state, day, record, dry_run)
    digests = current_digests(task)
    changes = diff(rec["files"], digests)
    res = OracleCheck(changes, old_version=str(rec.get("oracle_version") or ""))
    if not changes:
        return res
    res.new_version = _changed(task, d, rec, digests, changes, res)
    if task.state != "QUALIFIED":
        return res
    listing = ", ".join(f"{rel} ({how})" for rel, how in changes)
    reason = f"oracle changed after QUALIFIED ({listing}); new oracle version {res.new_version}"
    if not _reopen_state(d, task, reason, day, dry_run, res):
        return res
    _supersede_row(task, res.new_version, dry_run, res)
    res.actions += _rename_scores(task, day, dry_run)
    res.actions += _void_old_oracle_evidence(task, day, dry_run)
    return res
