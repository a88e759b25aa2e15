"""Lint a run's files each by its own kind: what a pre-commit hook or a CI step runs.

The kind comes from where a file lies and what it holds (seed §5 layout):
`gates/*.yaml` holds a gate, `scorecards/*.yaml` a scorecard, anything else under
`work/<run-id>/` the blocks whose wrapper keys it has (`handoff:`, `gate:`, `scorecard:`,
`decision_memo:`, `variant:`); `briefs/*` are checked for leaks instead. A handoff is
checked under its own `agent:` (that role's extra keys) and against its run folder
(artifact paths must exist there). The submission's own folders (code, outputs, paper,
package) hold no run blocks and are left out.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from gavelkit.award.blocks.lint import FileResult, check_block
from gavelkit.award.blocks.load import KINDS, select
from gavelkit.award.runs import runpaths
from gavelkit.award.tables import Tables, load_tables
from gavelkit.core.findings import Finding
from gavelkit.core.sources import Source, load_source

#: folder of a run -> the one block kind its files hold
FOLDER_KIND = {"gates": "gate", "scorecards": "scorecard"}
#: folders of a run that hold no run blocks
NOT_BLOCKS = frozenset({"code", "outputs", "paper", "package"})
EXTENSIONS = (".yaml", ".yml", ".md")


@dataclass(slots=True)
class Linted:
    """What linting a set of files by kind found."""

    files: list[FileResult] = field(default_factory=list)
    briefs: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def run_part(path: str) -> str | None:
    """The folder of work/<run-id>/ a path lies in (`gates`, `briefs`, ...), else None."""
    parts = os.path.normpath(os.path.abspath(path)).split(os.sep)
    for i in range(len(parts) - 3, -1, -1):
        if parts[i] == "work":  # the innermost work/ (a checkout may lie under /work/)
            return parts[i + 2] if i + 3 < len(parts) else None
    return None


def wrapper_kinds(source: Source) -> list[str]:
    """The block kinds whose wrapper key a top-level mapping of the file has, in order."""
    seen: list[str] = []
    for doc in source.docs:
        if isinstance(doc.data, dict):
            seen.extend(k for k in KINDS if k in doc.data and k not in seen)
    return seen


def _known(tables: Tables, agent: object) -> str | None:
    return agent.strip() if isinstance(agent, str) and agent.strip() in tables.agents else None


def lint_kinds(source: Source, kinds: list[str], tables: Tables) -> FileResult:
    """One file's blocks of `kinds`, each handoff under its own agent and against the run
    folder the file lies in; the file's own findings once, whatever the number of kinds."""
    res = FileResult(source.path, source, findings=list(source.findings))
    loc = runpaths.run_id_from_location(source.path)
    run_dir = loc[1] if loc else None
    for kind in kinds:
        blocks, found = select(source, kind)
        res.findings.extend(found)
        for b in blocks:
            agent = _known(tables, b.body.get("agent")) if kind == "handoff" else None
            res.blocks.append(check_block(b, tables, agent, run_dir))
    return res


def kinds_for(path: str, source: Source) -> list[str]:
    """What a file must hold by its place, else what its wrapper keys say it holds."""
    folder = os.path.basename(os.path.dirname(os.path.abspath(path)))
    if folder in FOLDER_KIND and path.endswith((".yaml", ".yml")):
        return [FOLDER_KIND[folder]]
    return wrapper_kinds(source)


def lint_by_kind(paths: list[str], tables: Tables | None = None) -> Linted:
    """Lint each file by its kind; files of a run's submission folders are skipped."""
    from gavelkit.award.runs.briefs import check_brief

    tables = tables or load_tables()
    out = Linted()
    for path in paths:
        part = run_part(path)
        if part in NOT_BLOCKS or not path.endswith(EXTENSIONS):
            out.skipped.append(path)
            continue
        if part == "briefs":
            out.briefs.append(path)
            out.findings.extend(check_brief(path))
            continue
        source = load_source(path)
        kinds = [] if source.unusable else kinds_for(path, source)
        if not kinds and not source.unusable:
            out.skipped.append(path)
            continue
        out.files.append(lint_kinds(source, kinds, tables))
    for r in out.files:
        out.findings.extend(r.all_findings())
    return out


def run_files(folders: list[str]) -> list[str]:
    """The files under the given folders (runs, or work/ itself) that may hold run blocks;
    a link out of a folder, a FIFO or a device there is refused (exit 2, naming it)."""
    from gavelkit.core.errors import InputError
    from gavelkit.core.safeio import iter_files

    out = []
    for folder in folders:
        for f, why in iter_files(folder):
            if why is not None:
                raise InputError(str(f), f"not linted: {why}", code="GK-IO010")
            if f.suffix in EXTENSIONS:
                out.append(str(f))
    return sorted(out)
