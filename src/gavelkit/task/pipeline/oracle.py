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
   `score_result_superseded_<date>.json`.

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


@dataclass(slots=True)
class OracleCheck:
    changes: list[tuple[str, str]] | None
    findings: list[Finding] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    old_version: str | None = None
    new_version: str | None = None


def _rename_scores(task: Task, date: str, dry_run: bool) -> list[str]:
    done = []
    globs = [g for g in task.config["state"]["candidate_score_globs"] if not g.startswith("..")]
    for p in find_globs(task.dir, globs):
        if p.name != "score_result.json":
            continue
        target = p.with_name(f"score_result_superseded_{date}.json")
        n = 2
        while target.exists():
            target = p.with_name(f"score_result_superseded_{date}-{n}.json")
            n += 1
        if not dry_run:
            p.rename(target)
        done.append(f"renamed {task.rel(p)} -> {task.rel(target)}")
    return done


def check_oracle(task_dir: str | Path, *, ledger: str | Path | None = None,
                 date: str | None = None, dry_run: bool = False, record: bool = False,
                 config: str | Path | None = None) -> OracleCheck:
    from gavelkit.task.formats.candidates import render_with_superseded
    from gavelkit.task.pipeline.clock import today
    from gavelkit.task.pipeline.state import STATE_NAME, transition

    d = Path(task_dir)
    day = date or today()
    task = load_task(d, config, ledger)
    rec = load_record(d)
    state = task.state
    if rec is None:
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
    digests = current_digests(task)
    changes = diff(rec["files"], digests)
    res = OracleCheck(changes, old_version=str(rec.get("oracle_version") or ""))
    if not changes:
        return res
    new_version = version_of(task, digests)
    if new_version == res.old_version:
        res.findings.append(Finding(
            "TSK-O003", "warning", f"oracle files changed but oracle_version is still "
            f"{new_version}; bump it in spec_test_map.md (all four oracle files change together)",
            str(task.paths.get("map", d)), 0, 0))
        new_version = f"{new_version}+sha256:{combined(digests)[:12]}"
    res.new_version = new_version
    listing = ", ".join(f"{rel} ({how})" for rel, how in changes)
    res.findings.append(Finding("TSK-O002", "error" if state == "QUALIFIED" else "warning",
                                f"oracle changed since it was recorded on "
                                f"{rec.get('recorded', '?')}: {listing}", str(d), 0, 0,
                                data={"changes": [list(c) for c in changes],
                                      "old_version": res.old_version,
                                      "new_version": new_version}))
    if state != "QUALIFIED":
        return res
    reason = f"oracle changed after QUALIFIED ({listing}); new oracle version {new_version}"
    # 1. state -> REOPENED_S3
    if (d / STATE_NAME).is_file():
        r = transition(d, "REOPENED_S3", reason, date=day, dry_run=dry_run)
        if r.findings and not r.plan.ok:
            res.findings.extend(r.findings)
            return res
        res.actions.append("state QUALIFIED -> REOPENED_S3 in PIPELINE_STATE.md")
    elif task.task_json is not None:
        if not dry_run:
            from gavelkit.task.formats.task_json import update_task_json

            update_task_json(task.paths["task_json"], {
                "status": "REOPENED_S3",
                "reopened_s3": {"date": day, "reason": reason,
                                "required_next_stage": "S4_EVAL_RUN"}})
        res.actions.append("task.json status QUALIFIED -> REOPENED_S3 (no PIPELINE_STATE.md)")
    # 2. ledger row
    if task.ledger is not None:
        names = ledger_names(task)
        rows = [r for r in task.ledger.rows if r.status == "QUALIFIED" and r.matches(names)]
        if rows:
            lp = task.paths["ledger"]
            with locked(lp):
                from gavelkit.task.formats.candidates import read_candidates

                led, _ = read_candidates(lp)
                assert led is not None
                fresh = [r for r in led.rows if r.status == "QUALIFIED" and r.matches(names)]
                if not dry_run and fresh:
                    atomic_write(lp, render_with_superseded(led, fresh[-1], new_version))
            res.actions.append(f"CANDIDATES.md line {rows[-1].line}: superseded_by: {new_version}")
        else:
            res.findings.append(Finding("TSK-O004", "warning",
                                        "no QUALIFIED row for this task in CANDIDATES.md; "
                                        "superseded_by not written", str(task.paths["ledger"]),
                                        0, 0))
    else:
        res.findings.append(Finding("TSK-O004", "warning", "no CANDIDATES.md found (task folder "
                                    "or its two parents; use --ledger); superseded_by not "
                                    "written", str(d), 0, 0))
    # 3. rename score files
    res.actions += _rename_scores(task, day, dry_run)
    return res
