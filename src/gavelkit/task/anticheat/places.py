"""The forbidden-place model: what a scan forbids, where each place came from, matching.

Sources, in order: the rules tables (generic places: repo-pool, oracle worktrees,
earlier runs, oracle maps, score reports, the target in site-packages, the
upstream's tests in a clone), the task folder's own entries (all but its spec),
the paths task.json records under a forbidden key (`taskpaths`), an earlier
run named in task.json, and `--forbid`. The agent's own places are exempt:
`--workspace` and the own-keys of task.json always win for anything inside them,
except for the names of the oracle's maps, which have no business in a
candidate's workspace.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.task.anticheat import taskpaths
from gavelkit.task.anticheat.anchors import compile_context
from gavelkit.task.anticheat.names import norm
from gavelkit.task.anticheat.oracleids import load_signatures
from gavelkit.task.anticheat.placematch import (
    _holds_own,
    _inside,
    ancestor_place,
    forbidden_name,
    match_place,
    task_place,
)
from gavelkit.task.anticheat.rules import CommandRule, Place, load_rules

TASK_ALLOW = ("spec.md", "spec_v*.md", "README*", "LICENSE*", ".*")
_URL = re.compile(r"(?:https?://|git@|ssh://|git://|git\+https?://)[^\s'\"<>]+", re.I)


@dataclass
class Context:
    places: list[Place]
    commands: list[CommandRule]
    targets: set[str] = field(default_factory=set)        # normalised dist/import names
    upstreams: list[tuple[str, str]] = field(default_factory=list)
    commits: set[str] = field(default_factory=set)
    workspaces: list[str] = field(default_factory=list)  # --workspace + task.json own paths
    home: str = "/root"
    signatures: set[str] = field(default_factory=set)    # oracle test names (file::name)
    sig_files: set[str] = field(default_factory=set)
    surface_rx: re.Pattern[str] | None = None
    sig_rx: re.Pattern[str] | None = None
    anchors: list[bytes] = field(default_factory=list)
    every_line: bool = False      # a rule without a usable anchor: parse every line
    surface_lits: list[str] = field(default_factory=list)   # cheap pre-check for surface_rx
    task_record: str | None = None                            # path of task.json, if any
    unknown_keys: list[tuple[str, str]] = field(default_factory=list)  # (key, path)
    overridden: list[dict[str, str]] = field(default_factory=list)
    # (path, line, what) a part of the task the scan did not use: each is a CHT-U007
    unchecked: list[tuple[str, int, str]] = field(default_factory=list)
    matchers: dict[str, Any] = field(default_factory=dict)   # compiled once per scan engine
    # hits of pure actions (gate.Need.PURE) by (text, folder, workspace): reused across
    # the files of one scan; bounded
    pure_hits: dict[tuple[str, str | None, tuple[str, ...]], list[Any]] = field(
        default_factory=dict)
    fingerprints: Any = None      # fingerprint.Fingerprints of the protected material
    references: list[str] = field(default_factory=list)      # reference source folders
    history: str = "none"         # the agent's workspace has upstream history: "upstream"
    # folders (two or more components deep) that hold a task-specific place, outside the
    # agent's workspace and home: reading one recursively reads the place (`ancestor_place`)
    ancestors: dict[str, Place] = field(default_factory=dict)

    def report(self) -> list[dict[str, Any]]:
        """The forbidden places this scan used, each with where it came from."""
        out: list[dict[str, Any]] = []
        for p in self.places:
            d: dict[str, Any] = {"id": p.id, "code": p.code, "what": p.what,
                                 "source": p.source}
            for key, val in (("components", p.components), ("sequences", p.sequences),
                             ("names", p.names), ("prefixes", p.prefixes),
                             ("workspace_names", p.workspace_names)):
                if val:
                    d[key] = val
            out.append(d)
        out.extend(self.overridden)
        return out


def read_task_record(task_dir: str | os.PathLike[str]) -> tuple[dict[str, Any], str | None]:
    """task.json (or legacy MANIFEST.json) through the shared reader; ({}, None) if absent.

    An unreadable record is an InputError: a scan must not silently lose the paths
    the task itself names as forbidden.
    """
    from gavelkit.task.formats.task_json import read_task_json

    for name in ("task.json", "MANIFEST.json"):
        p = Path(task_dir) / name
        if p.is_file():
            tj, findings = read_task_json(p)
            if tj is None:
                f = findings[0]
                raise InputError(f.path, f"task record is not usable: {f.message}", f.line,
                                 f.col, f.code)
            return (tj.data if isinstance(tj.data, dict) else {}), str(p)
    return {}, None


def _expand(pat: str, forms: dict[str, list[str]]) -> list[str]:
    out = [pat]
    for key, vals in forms.items():
        if "{" + key + "}" in pat:
            out = [o.replace("{" + key + "}", v) for o in out for v in vals]
    return out


def _expand_seq(seq: list[str], forms: dict[str, list[str]]) -> list[list[str]]:
    out = [seq]
    for key, vals in forms.items():
        tag = "{" + key + "}"
        if any(tag in s for s in seq):
            out = [[s.replace(tag, v) for s in o] for o in out for v in vals]
    return out



def _abs(p: str) -> str:
    p = p.replace("\\", "/")
    return posixpath.normpath(p if p.startswith("/") or re.match(r"^[A-Za-z]:/", p)
                              else os.path.abspath(p))


def build_context(task_dir: str | None, package: str | None, forbid: Sequence[str] = (),
                  workspace: Sequence[str] = (), rules: Sequence[str] = (),
                  upstream: str | None = None, home: str | None = None,
                  aliases: Sequence[str] = (), references: Sequence[str] = (),
                  history: str | None = None, fingerprints: bool = True) -> Context:
    extra, record, record_path = _task_inputs(task_dir, rules)
    places, commands = load_rules(extra)
    ctx = Context(places=places, commands=commands, task_record=record_path)
    ctx.workspaces = [_abs(w) for w in workspace]
    names, repo_names = _targets(ctx, [n for n in [package, *aliases] if n],
                                 upstream or record.get("repo"), record)
    _expand_places(ctx, names, repo_names)
    if task_dir:
        _task_places(ctx, Path(task_dir).resolve(), record)
    if forbid:
        _add_prefixes(ctx, Place("forbid", "CHT-R007", "a path forbidden on the command line",
                                 generic=False, source="--forbid"), [_abs(f) for f in forbid])
    ctx.home = home or "/root"
    _history_rules(ctx, _history_mode(history, record))
    ctx.ancestors = _holding_folders(ctx)
    compile_context(ctx)
    if fingerprints:
        _fingerprints(ctx, task_dir, record, references)
    return ctx


def _holding_folders(ctx: Context) -> dict[str, Place]:
    """The folders above each task-specific prefix that hold it, down from two components
    (`/srv/evalbench`, `/srv/evalbench/tasks`): `/`, `/srv`, `/tmp` hold everything and
    are left to the sandbox; so are the folders of the agent's own workspace and home."""
    own = [*ctx.workspaces, ctx.home]
    out: dict[str, Place] = {}
    for place in ctx.places:
        if place.generic:
            continue
        for pre in place.prefixes:
            folder = posixpath.dirname(pre.rstrip("/"))
            while folder.count("/") >= 2 and not _holds_own(folder, own):
                out.setdefault(folder, place)
                folder = posixpath.dirname(folder)
    return out


def _history_rules(ctx: Context, mode: str) -> None:
    """Upstream history in the workspace allows it (and warns on refs past the base).
    The same switch says the workspace is the upstream checkout, so the target's
    installed copy in site-packages is that checkout too (`pip install -e .`), the
    agent's input, not a copy of the reference."""
    ctx.history = mode
    drop = "git-history" if mode == "upstream" else "git-future-refs"
    ctx.commands = [c for c in ctx.commands if c.id != drop]
    if mode == "upstream":
        ctx.places = [p for p in ctx.places if p.id != "site-packages-target"]


def _task_inputs(task_dir: str | None, rules: Sequence[str]
                 ) -> tuple[list[str], dict[str, Any], str | None]:
    """The rule files (the task's own first) and task.json of a task folder."""
    extra = list(rules)
    if not task_dir:
        return extra, {}, None
    tdir = Path(task_dir)
    if not tdir.is_dir():
        raise InputError(str(task_dir), "task folder not found")
    own = tdir / "anticheat_rules.toml"
    if own.is_file():
        extra.insert(0, str(own))
    record, record_path = read_task_record(tdir)
    return extra, record, record_path


def _targets(ctx: Context, names: list[str], repo_val: Any,
             record: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The target's names (package, aliases, upstream repository) and known commits."""
    repo_names: list[str] = []
    if isinstance(repo_val, str) and "/" in repo_val:
        owner, name = repo_val.strip().rstrip("/").split("/")[-2:]
        name = name.removesuffix(".git")
        ctx.upstreams.append((owner.lower(), name.lower()))
        names.append(name)
        repo_names.append(name)
    ctx.targets = {norm(n) for n in names}
    for key in ("repo_commit", "commit", "base_commit"):
        val = record.get(key)
        if isinstance(val, str) and re.fullmatch(r"[0-9a-fA-F]{7,40}", val):
            ctx.commits.add(val.lower())
    return names, repo_names


def _expand_places(ctx: Context, names: list[str], repo_names: list[str]) -> None:
    """Fill `{pkg}`/`{repo}` in the rule places; drop what stays unfillable."""
    forms = _forms(names, repo_names)
    for place in ctx.places:
        _fill_place(place, forms)
    ctx.places = [p for p in ctx.places if _usable(p)]


def _forms(names: list[str], repo_names: list[str]) -> dict[str, list[str]]:
    """The spellings `{pkg}` and `{repo}` stand for."""
    pkg_forms = sorted({n for raw in names for n in (raw, raw.replace("-", "_"), raw.lower())})
    repo_forms = sorted({n for raw in (repo_names or names)
                         for n in (raw, raw.lower())}) if names else []
    return {"pkg": pkg_forms, "repo": repo_forms}


def _usable(p: Place) -> bool:
    return bool(p.components or p.names or p.sequences or p.prefixes)


def _fill_place(place: Place, forms: dict[str, list[str]]) -> None:
    """A place's patterns with the forms filled in; a {pkg}/{repo} pattern without a
    package cannot be used and goes (workspace names are kept as they are)."""
    def fill(pats: list[str]) -> list[str]:
        return [c for p in pats for c in _expand(p, forms) if "{" not in c]

    place.sequences = [s for seq in place.sequences for s in _expand_seq(seq, forms)
                       if not any("{" in x for x in s)]
    place.components = fill(place.components)
    place.names = fill(place.names)
    place.workspace_names = [c for p in place.workspace_names for c in _expand(p, forms)]


def _history_mode(explicit: str | None, record: dict[str, Any]) -> str:
    """Does the agent's workspace carry the upstream's history? One documented switch:
    task.json `workspace_history` (or `anticheat.workspace_history`) = "upstream" for
    SWE-bench-style tasks, else "none" (rebuild from the spec: no history to read)."""
    if explicit:
        if explicit not in ("none", "upstream"):
            raise InputError("--workspace-history", f"unknown mode {explicit!r} (none|upstream)")
        return explicit
    holder = record.get("anticheat") if isinstance(record.get("anticheat"), dict) else record
    val = holder.get("workspace_history", record.get("workspace_history"))
    if val is None:
        return "none"
    if val not in ("none", "upstream"):
        raise InputError("task.json", f"workspace_history must be \"none\" or \"upstream\", "
                                      f"not {val!r}")
    return str(val)


def _fingerprints(ctx: Context, task_dir: str | None, record: dict[str, Any],
                  references: Sequence[str]) -> None:
    from gavelkit.task.anticheat import fingerprint

    refs = [_abs(r) for r in references] + (_recorded_references(task_dir, record)
                                            if task_dir else [])
    for r in references:
        if not Path(r).is_dir():
            raise InputError(r, "reference source folder not found")
    ctx.references = refs
    skip = [Path(w).name for w in ctx.workspaces
            if task_dir and Path(w).parent == Path(task_dir).resolve()]
    fp = fingerprint.build(task_dir, refs, skip)
    for where, why in fp.unchecked:
        ctx.unchecked.append((where, 0, why))
    ctx.fingerprints = fp if fp.prints else None


def _recorded_references(task_dir: str, record: dict[str, Any]) -> list[str]:
    """The reference source folders task.json names (relative to the task folder)."""
    refs = []
    for key in ("reference_source", "reference_dir", "source_dir", "source_repo",
                "upstream_dir", "source_checkout"):
        val = record.get(key)
        if isinstance(val, str) and val.strip():
            p = Path(val) if Path(val).is_absolute() else Path(task_dir) / val
            if p.is_dir():
                refs.append(str(p))
    return refs


def _add_prefixes(ctx: Context, place: Place, prefixes: list[str]) -> None:
    """Add a place of prefixes; the ones inside the agent's workspace are overridden."""
    keep = []
    for pre in prefixes:
        ws = _inside(pre, ctx.workspaces)
        if ws is not None:
            ctx.overridden.append({"id": place.id, "what": place.what, "prefix": pre,
                                   "source": place.source, "overridden_by": ws})
        else:
            keep.append(pre)
    place.prefixes = sorted(set(place.prefixes) | set(keep))
    if place.prefixes or place.sequences or place.components:
        ctx.places.append(place)


def _task_places(ctx: Context, tdir: Path, record: dict[str, Any]) -> None:
    deep: list[str] = []
    recorded = taskpaths.recorded_paths(record, deep)
    for key in deep:
        ctx.unchecked.append((ctx.task_record or "task.json", 0,
                              f"task.json is nested deeper than {taskpaths.MAX_DEPTH} levels "
                              f"at {key!r}: paths recorded there were not classified, so no "
                              "forbidden place was taken from them"))
    # the agent's own places named by the task: they count as its workspace
    for rp in recorded:
        if rp.kind == taskpaths.OWN:
            p = rp.value.replace("\\", "/")
            ctx.workspaces.append(posixpath.normpath(p) if p.startswith("/")
                                  else str(tdir / p))
    anchor = _task_folder_places(ctx, tdir)
    for rp in recorded:
        if rp.kind == taskpaths.UNKNOWN:
            ctx.unknown_keys.append((rp.key, rp.value))
        elif rp.kind == taskpaths.FORBIDDEN:
            _recorded_place(ctx, tdir, rp, anchor)
    _earlier_run(ctx, record)
    load_signatures(ctx, tdir, record)


def _task_folder_places(ctx: Context, tdir: Path) -> list[str]:
    """The task's own folder: every entry but the spec (and the agent's own places).
    Returns the folder's anchor: its name, unless that is the package's own
    (tasks/astropy): then its parent's name must match too."""
    entries = [e.name for e in sorted(tdir.iterdir()) if _forbidden_entry(ctx, e)]
    anchor = [tdir.name]
    if norm(tdir.name) in ctx.targets or len(tdir.name) < 4:
        anchor = [tdir.parent.name, tdir.name] if tdir.parent.name else []
    seqs = [[*anchor, e] for e in entries] if anchor else []
    task_place = Place("task", "CHT-R006", f"the task's own package ({tdir.name}/)",
                       sequences=seqs, generic=False, source="task folder")
    _add_prefixes(ctx, task_place, [str(tdir / e) for e in entries])
    return anchor


def _allowed(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, a) for a in TASK_ALLOW)


def _forbidden_entry(ctx: Context, e: Path) -> bool:
    """A task folder entry is forbidden unless it is the spec or the agent's own place."""
    allowed = _allowed(e.name) and e.name != "spec_test_map.md"
    return not allowed and _inside(str(e), ctx.workspaces) is None and \
        not any(w.startswith(str(e) + "/") for w in ctx.workspaces)


def _recorded_place(ctx: Context, tdir: Path, rp: Any, anchor: list[str]) -> None:
    """A path task.json records under a forbidden key: absolute, or inside the task."""
    p = rp.value.replace("\\", "/")
    place = Place(f"task.json:{rp.key}", "CHT-R006", f"a place task.json records ({rp.key})",
                  generic=False, source=f"task.json {rp.key}")
    if p.startswith("/") or re.match(r"^[A-Za-z]:/", p):
        _add_prefixes(ctx, place, [posixpath.normpath(p)])
        return
    parts = [q for q in p.split("/") if q and q != "."]
    if parts and ".." not in parts and anchor and not _allowed(p):
        place.sequences = [[*anchor, *parts]]
        _add_prefixes(ctx, place, [str(tdir / "/".join(parts))])


def _earlier_run(ctx: Context, record: dict[str, Any]) -> None:
    run = record.get("candidate_run")
    score = record.get("candidate_score")
    if run is None and isinstance(score, dict):
        run = score.get("run_id")
    if isinstance(run, str) and run.strip() and "/" not in run:
        ctx.places.append(Place("earlier-run", "CHT-R003", f"an earlier attempt ({run})",
                                components=[run.strip()], generic=False,
                                source="task.json candidate_run"))


__all__ = ["Context", "ancestor_place", "build_context", "forbidden_name", "match_place",
           "read_task_record", "task_place"]
