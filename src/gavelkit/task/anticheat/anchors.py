"""Literal anchors and surface patterns compiled from a scan context.

Why: the scanner parses only what can matter. A JSONL line, or one command of a
document-format transcript, is parsed only when it contains one of these
literals (`gavelkit.task.anticheat.prefilter` finds them); `thorough=True`
parses everything. Anchors must be rare in honest work: a sequence anchors on
its longest literal, but when that literal is the package's own name it
anchors on the joined pair (`python-semver/tests`), since the package name is
on nearly every line of a session that works on it; and not at all for a generic
place when the workspace itself is named like the package (then `pkg/tests` is
on every test line, and those lines are exempt anyway).
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

from gavelkit.task.anticheat.names import literal, norm

FRAGMENTS = ("kept", "nodeid", "spec_test", "taxonomy", "score", "oracle", "repo-pool",
             "worktree", "candidate-run")


def compile_context(ctx: Any) -> None:
    """Fill ctx.anchors, surface_lits/surface_rx and sig_rx from ctx's places and rules."""
    generic_tokens: set[str] = set()
    anchors: set[str] = set()
    ws_names = {norm(c) for w in ctx.workspaces for c in w.split("/") if c}
    for place in ctx.places:
        _name_anchors(place, anchors, generic_tokens)
        _path_anchors(ctx, place, ws_names, anchors)
    anchors.update(_holding_anchor(folder, ctx) for folder in getattr(ctx, "ancestors", {}))
    anchors.update(FRAGMENTS)
    _rule_anchors(ctx, anchors)
    anchors.update(["__file__", "site-packages", "dist-packages", "find_spec", "getsource"])
    anchors.update(ctx.commits)
    anchors.update(ctx.sig_files)
    anchors.update(f"{o}/{n}" for o, n in ctx.upstreams)
    ctx.anchors = sorted(a.encode() for a in anchors if a)
    _surface(ctx, sorted(generic_tokens))


# folder names too common in honest work to anchor on alone (`tasks.py`, `data/`)
_COMMON_DIRS = frozenset({"tasks", "task", "work", "data", "home", "repos", "repo", "runs",
                          "run", "eval", "evals", "bench", "build", "tests", "test", "src",
                          "lib", "tmp", "var", "opt", "srv", "out", "output", "results", "jobs",
                          "workspace", "workspaces", "project", "projects", "code", "mnt"})


def _holding_anchor(folder: str, ctx: Any) -> str:
    """A folder that holds a place (places.Context.ancestors) anchors on its name, or on
    parent/name when the name is short, common or the package's own (the task folder
    `tasks/django` would otherwise anchor every line of a session on django). Spellings
    that break parent/name (`//`, `/./`, `/../`) are gate constructs of their own."""
    parts = [x for x in folder.split("/") if x]
    base = parts[-1]
    if len(base) >= 5 and base.lower() not in _COMMON_DIRS and norm(base) not in ctx.targets:
        return base
    return "/".join(parts[-2:])


def _path_anchors(ctx: Any, place: Any, ws_names: set[str], anchors: set[str]) -> None:
    for seq in place.sequences:
        lit = _sequence_anchor(seq, place.generic, ctx.targets, ws_names)
        if len(lit) >= 4:
            anchors.add(lit)
    for pre in place.prefixes:
        base = _prefix_anchor(pre, ctx)
        if len(base) >= 3:
            anchors.add(base)


def _prefix_anchor(pre: str, ctx: Any) -> str:
    """A prefix anchors on its last component (with its parent when that is the
    package's own name)."""
    parts = [x for x in pre.rstrip("/").split("/") if x]
    base = parts[-1] if parts else ""
    if norm(base) in ctx.targets and len(parts) >= 2:
        base = "/".join(parts[-2:])
    return base


def _name_anchors(place: Any, anchors: set[str], generic_tokens: set[str]) -> None:
    for c in place.components:
        lit = literal(c)
        if len(lit) >= 4:
            anchors.add(lit)
            if place.generic:
                generic_tokens.add(c)
    for n in [*place.names, *place.workspace_names]:
        lit = literal(n)
        if len(lit) >= 4:
            anchors.add(lit.split("*")[0] if "*" in n else lit)
            if place.generic:
                generic_tokens.add(n)


def _sequence_anchor(seq: list[str], generic: bool, targets: set[str],
                     ws_names: set[str]) -> str:
    """A sequence anchors on its longest literal; on the package's name only joined with
    a neighbour (that name is on nearly every line); not at all for a generic place when
    the workspace is named like the package (`pkg/tests` is then on every test line, and
    those lines are exempt there; --thorough still checks every line)."""
    lits = [literal(s) for s in seq]
    lit = max(lits, key=len, default="")
    at = next((i for i, x in enumerate(lits) if norm(x) in targets), None)
    if at is not None and len(seq) >= 2:
        lit = "/".join(lits[at:at + 2]) if at + 1 < len(lits) else "/".join(lits[-2:])
        if generic and norm(lits[at]) in ws_names:
            return ""
    return lit


def _rule_anchors(ctx: Any, anchors: set[str]) -> None:
    for rule in ctx.commands:
        _RULE_ANCHORS[rule.kind](ctx, rule, anchors)


def _program_anchors(ctx: Any, rule: Any, anchors: set[str]) -> None:
    # a program name followed by a space (shell text) or a quote (argv arrays)
    for prog in rule.programs:
        anchors.update([f"{prog} ", f'{prog}\\"', f'{prog}"', f"{prog}\t"])


def _git_anchors(ctx: Any, rule: Any, anchors: set[str]) -> None:
    # git's stores read as files (pathcheck._GIT_STORE)
    anchors.update([".git/objects", "packed-refs", ".git/logs", "refs/tags", "refs/remotes",
                    "ORIG_HEAD", "FETCH_HEAD"])
    anchors.update(["reflog", "cat-file", "rev-list", "fsck", "git show", "--all",
                    "cherry-pick", "git log", "git -C", "git diff", "git checkout"])
    anchors.update(v for v in rule.verbs if len(v) >= 4)
    anchors.update(f"git {v}" for v in (*rule.flag_verbs, *rule.sha_verbs))


def _fetch_anchors(ctx: Any, rule: Any, anchors: set[str]) -> None:
    anchors.update(["http", "git@", "git clone", "ssh://"])


def _argv_anchors(ctx: Any, rule: Any, anchors: set[str]) -> None:
    if rule.pattern is None:
        return
    lits = rule.anchors or re.findall(r"[A-Za-z0-9_./-]{4,}", rule.pattern.pattern)
    anchors.update(lits)
    if not lits:
        ctx.every_line = True


_RULE_ANCHORS = {"install": _program_anchors, "probe": _program_anchors, "git": _git_anchors,
                 "fetch": _fetch_anchors, "argv": _argv_anchors}


def _surface(ctx: Any, toks: list[str]) -> None:
    ctx.surface_lits = sorted({max(re.split(r"[*?\[\]]", t), key=len) for t in toks} - {""})
    if toks:
        alts = "|".join(fnmatch.translate(t).removeprefix("(?s:").removesuffix(")\\Z")
                        .replace(".*", r"[\w.-]*") for t in toks)
        ctx.surface_rx = re.compile(rf"(?<![\w.-])(?:{alts})(?![\w-])")
    if ctx.sig_files:
        files = "|".join(re.escape(f) for f in sorted(ctx.sig_files))
        ctx.sig_rx = re.compile(rf"(?<![\w-])({files})::([A-Za-z_]\w*)")
