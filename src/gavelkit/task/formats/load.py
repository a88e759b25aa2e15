"""`load_task(dir) -> Task`: every file of a task folder, parsed, with all findings.

Real folders differ (graduated `tasks/{id}/` with files at the root, `wip/{id}/`
with `filter/` and `judge/`, legacy packets with MANIFEST.json), so each file
is looked up in the places it is found in practice. A missing file is not an
error here: the gates decide what they need. A file that is present but
unreadable gives an `unusable` finding (exit 2).

Library use (issue 8 builds on it)::

    task = load_task("tasks/foo-001")
    task.spec, task.map, task.kept, task.taxonomy, task.task_json,
    task.reference_score, task.score_result, task.pipeline, task.ledger
    task.test_files        # {relative path: Path} of oracle test files found
    task.missing_test_files
    task.findings          # reader findings (malformed rows with lines)
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.task.config import load_config
from gavelkit.task.formats.candidates import Ledger, read_candidates
from gavelkit.task.formats.nodeids import NodeIds, file_of, read_nodeids
from gavelkit.task.formats.pipeline_state import PipelineState, read_pipeline_state
from gavelkit.task.formats.score import ScoreResult, read_score
from gavelkit.task.formats.spec import Spec, read_spec
from gavelkit.task.formats.spec_test_map import SpecTestMap, read_spec_test_map
from gavelkit.task.formats.task_json import TaskJson, read_task_json
from gavelkit.task.formats.taxonomy import Taxonomy, read_taxonomy

SPEC_NAMES = ("spec.md",)
MAP_NAMES = ("spec_test_map.md", "filter/spec_test_map.md")
KEPT_NAMES = ("kept_nodeids.txt", "filter/kept_nodeids.txt")
TAX_NAMES = ("taxonomy.jsonl", "filter/taxonomy.jsonl")
STATE_NAME = "PIPELINE_STATE.md"
LEDGER_NAME = "CANDIDATES.md"


@dataclass(slots=True)
class Task:
    dir: Path
    config: dict[str, Any]
    paths: dict[str, Path] = field(default_factory=dict)
    spec: Spec | None = None
    map: SpecTestMap | None = None
    kept: NodeIds | None = None
    taxonomy: Taxonomy | None = None
    task_json: TaskJson | None = None
    manifest: dict[str, Any] | None = None
    reference_score: ScoreResult | None = None
    score_result: ScoreResult | None = None
    pipeline: PipelineState | None = None
    ledger: Ledger | None = None
    test_files: dict[str, Path] = field(default_factory=dict)
    missing_test_files: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def id(self) -> str:
        if self.task_json and self.task_json.instance_id:
            return self.task_json.instance_id
        return self.dir.resolve().name

    def rel(self, p: Path) -> str:
        try:
            return str(p.relative_to(self.dir))
        except ValueError:
            return str(p)

    @property
    def oracle_dir(self) -> Path | None:
        """`<task>/oracle/`, else the repository-level `oracle/{id}/` of QUALITY_GATE Gate 0
        (`tasks/{id}/` beside `oracle/{id}/`, the layout of Bmk-dev's main branch)."""
        own = self.dir / "oracle"
        if own.is_dir():
            return own
        repo = self.dir.resolve().parent.parent / "oracle" / self.dir.resolve().name
        return repo if self.dir.resolve().parent.name == "tasks" and repo.is_dir() else None

    def resolve(self, rel: str) -> Path:
        """A task-relative path; `oracle/...` falls back to the repository-level oracle folder."""
        p = self.dir / rel
        if not p.exists() and rel.startswith("oracle/"):
            od = self.oracle_dir
            if od is not None and od != self.dir / "oracle":
                return od / rel[len("oracle/"):]
        return p

    @property
    def state(self) -> str | None:
        """Pipeline state if the folder has PIPELINE_STATE.md, else task.json status."""
        if self.pipeline and self.pipeline.state:
            return self.pipeline.state
        if self.task_json and self.task_json.status:
            return self.task_json.status
        return None

    def oracle_source(self) -> tuple[str | None, str]:
        """(value, where) of the first oracle_source found: map header, then task.json."""
        if self.map and self.map.oracle_source:
            key = "oracle_source" if "oracle_source" in self.map.header else "filter/oracle_source"
            return self.map.oracle_source, f"{self.rel(self.paths['map'])}:{self.map.header_lines.get(key, 0)}"
        if self.task_json and self.task_json.oracle_source:
            return self.task_json.oracle_source, "task.json oracle.source"
        return None, ""


def _first(base: Path, names: tuple[str, ...]) -> Path | None:
    """The first of `names` present in any form: a folder, FIFO or broken link there is
    handed to the reader, which reports it (exit 2) instead of the task looking file-less."""
    for n in names:
        p = base / n
        if os.path.lexists(p):
            return p
    return None


def find_ledger(task_dir: Path, explicit: str | Path | None = None) -> Path | None:
    if explicit:
        return Path(explicit)
    d = task_dir.resolve()
    for cand in (d, d.parent, d.parent.parent):
        p = cand / LEDGER_NAME
        if p.is_file():
            return p
    return None


def find_globs(task_dir: Path, patterns: list[str]) -> list[Path]:
    out: list[Path] = []
    for pat in patterns:
        for hit in sorted(glob.glob(str(task_dir / pat))):
            p = Path(hit)
            if p.is_file() and p not in out:
                out.append(p)
    return out


def _score_paths(task_dir: Path, patterns: list[str]) -> list[Path]:
    """Score files by the globs, then any plain-name pattern that exists but is not a
    regular file (a folder, FIFO or broken link): handed to the reader, which reports it,
    instead of the task looking as if it had no score."""
    hits = find_globs(task_dir, patterns)
    odd = [task_dir / pat for pat in patterns if not glob.has_magic(pat)
           and os.path.lexists(task_dir / pat) and not (task_dir / pat).is_file()]
    return hits + [p for p in odd if p not in hits]


def load_task(task_dir: str | Path, config: str | Path | None = None,
              ledger: str | Path | None = None) -> Task:
    """Parse every known file of a task folder. Raises InputError if it is not a folder."""
    from gavelkit.core.safeio import check_input

    d = Path(task_dir)
    try:
        check_input(d, want="dir")
    except InputError as exc:
        raise InputError(str(task_dir), f"not a task folder: {exc.message}") from None
    cfg = load_config(d, config)
    task = Task(d, cfg)

    def take(key: str, path: Path | None, reader):  # type: ignore[no-untyped-def]
        if path is None:
            return None
        task.paths[key] = path
        value, fnd = reader(path)
        task.findings.extend(fnd)
        return value

    task.spec = take("spec", _first(d, SPEC_NAMES), read_spec)
    headings = {s.key for s in task.spec.sections} if task.spec is not None else None
    task.map = take("map", _first(d, MAP_NAMES), lambda p: read_spec_test_map(p, headings))
    task.kept = take("kept", _first(d, KEPT_NAMES), read_nodeids)
    task.taxonomy = take("taxonomy", _first(d, TAX_NAMES), read_taxonomy)
    task.task_json = take("task_json", _first(d, ("task.json",)), read_task_json)
    task.pipeline = take("pipeline", _first(d, (STATE_NAME,)), read_pipeline_state)
    refs = _score_paths(d, cfg["state"]["reference_score_globs"])
    task.reference_score = take("reference_score", refs[0] if refs else None, read_score)
    cands = _score_paths(d, cfg["state"]["candidate_score_globs"])
    task.score_result = take("score_result", cands[0] if cands else None, read_score)
    lp = find_ledger(d, ledger)
    if lp is not None:
        task.ledger = take("ledger", lp, read_candidates)
    manifest = d / "MANIFEST.json"
    if manifest.is_file():
        task.paths["manifest"] = manifest
        from gavelkit.core.safeio import load_json

        try:
            data = load_json(manifest)
            task.manifest = data if isinstance(data, dict) else None
        except InputError as exc:
            task.findings.append(Finding("TSK-R005", "warning",
                                         f"MANIFEST.json unreadable: {exc.message}",
                                         str(manifest), exc.line, exc.col))
    _locate_tests(task)
    return task


def _locate_tests(task: Task) -> None:
    for rel in _wanted_tests(task):
        p = task.resolve(rel)
        if p.is_file():
            task.test_files[rel] = p
        else:
            task.missing_test_files.append(rel)


def _wanted_tests(task: Task) -> list[str]:
    """task.json's test files, then the files kept ids name, then oracle/test_*.py; once each."""
    wanted: list[str] = list(task.task_json.test_files) if task.task_json else []
    kept = [file_of(nid) for nid in task.kept.ids] if task.kept else []
    od = task.oracle_dir
    found = ["oracle/" + p.name for p in sorted(od.glob("test_*.py"))] if od is not None else []
    for rel in [*kept, *found]:
        if rel and rel not in wanted:
            wanted.append(rel)
    return wanted
