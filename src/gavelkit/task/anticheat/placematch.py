"""Is a path in a forbidden place? Component, sequence and prefix matching (globs both
ways), the agent's own places exempt, and the task-specific places a path names or a
folder that holds one stands for. Split from places.py, which builds the places."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from typing import Any

from gavelkit.task.anticheat.names import GLOBCH as _GLOBCH
from gavelkit.task.anticheat.names import literal
from gavelkit.task.anticheat.rules import Place


def _inside(path: str, roots: Sequence[str]) -> str | None:
    for w in roots:
        w = w.rstrip("/") or "/"
        if path == w or path.startswith(w + "/") or w == "/":
            return w
    return None


def _holds_own(folder: str, own: Sequence[str]) -> bool:
    """Is `folder` one of the agent's own folders or above one?"""
    return any(o == folder or o.startswith(folder + "/") for o in own if o)


def ancestor_place(ctx: Any, path: str, is_glob: bool,
                   own: Sequence[str] = ()) -> Place | None:
    """The place a folder that holds it stands for (`places.Context.ancestors`); a glob
    stands for a holding folder it matches component by component."""
    if not ctx.ancestors or not path.startswith("/"):
        return None
    path = path.rstrip("/") or "/"
    place = ctx.ancestors.get(path)
    if place is None and is_glob and _GLOBCH.search(path):
        place = _glob_holder(ctx, path)
    return None if place is None or _holds_own(path, own) else place


def _glob_holder(ctx: Any, path: str) -> Place | None:
    depth = path.count("/")
    return next((p for a, p in ctx.ancestors.items()
                 if a.count("/") == depth and fnmatch.fnmatchcase(a, path)), None)


def task_place(ctx: Any, path: str, is_glob: bool = False, own: Sequence[str] = (),
               holding: bool = True) -> Place | None:
    """The task-specific place (not a generic pattern) an absolute path lies in, or with
    `holding` a folder holding one stands for: such a path in any argument of any program
    is read there, whatever the program's syntax made of the word."""
    comps = _components(path)
    if not comps or not _may_be_task_path(ctx, path, is_glob):
        return None
    place = next((p for p in ctx.places if not p.generic
                  and _place_hit(p, path, comps, is_glob)), None)
    if place is None and holding:
        place = ancestor_place(ctx, path, is_glob, own)
    return place


def _may_be_task_path(ctx: Any, path: str, is_glob: bool) -> bool:
    """Absolute, outside the workspace, and (unless a glob) holding a literal piece of a
    task-specific place."""
    if not path.startswith("/") or _inside(path, ctx.workspaces) is not None:
        return False
    return is_glob or any(h in path for h in _task_hints(ctx))


def _task_hints(ctx: Any) -> tuple[str, ...]:
    """One literal that every non-glob path in a task-specific place, or in a folder that
    holds one, contains: a prefix's last component, a sequence's or component's literal
    part, a holding folder's name (cached per context; a place without one: no hints)."""
    hints = ctx.matchers.get("task-hints")
    if hints is None:
        found: set[str] = {a.rsplit("/", 1)[-1] for a in ctx.ancestors}
        for p in ctx.places:
            mine = [] if p.generic else _place_hints(p)
            if mine is None:
                found = {"/"}       # a place without a literal piece: no prefilter
                break
            found.update(mine)
        hints = ctx.matchers["task-hints"] = tuple(found) or ("/",)
    return hints


def _place_hints(p: Place) -> list[str] | None:
    mine = [pre.rstrip("/").rsplit("/", 1)[-1] for pre in p.prefixes] + [
        literal(seq[0]) for seq in p.sequences if seq] + [
        literal(c) for c in [*p.components, *p.names]]
    return mine if mine and all(mine) else None


def _comp_match(comp: str, pat: str, is_glob: bool, anchored: bool = False) -> bool:
    """Does a path component match a place pattern? Glob components match the other way
    round, but only when they carry some literal text (`kept*`), or when `anchored`
    (another component of the same sequence matched literally)."""
    if fnmatch.fnmatchcase(comp, pat):
        return True
    if not (is_glob and _GLOBCH.search(comp)):
        return False
    if not anchored and len(literal(comp)) < 3:
        return False
    return fnmatch.fnmatchcase(literal(pat) or pat, comp)


def _seq_match(comps: list[str], seq: list[str], is_glob: bool, strict_last: bool) -> bool:
    n = len(seq)
    for i in range(0, len(comps) - n + 1):
        if not all(_comp_match(comps[i + k], seq[k], is_glob, True) for k in range(n)):
            continue
        if not any(fnmatch.fnmatchcase(comps[i + k], seq[k]) for k in range(n)):
            continue
        # a task entry is named by the path, not stood for by a bare wildcard (`**`)
        if strict_last and not (fnmatch.fnmatchcase(comps[i + n - 1], seq[-1])
                                or len(literal(comps[i + n - 1])) >= 3):
            continue
        return True
    return False


def _place_hit(place: Place, path: str, comps: list[str], is_glob: bool) -> bool:
    if _named(place, comps, is_glob):
        return True
    if any(_seq_match(comps, seq, is_glob, not place.generic) for seq in place.sequences):
        return True
    return path.startswith("/") and any(_prefix_hit(pre, path, comps, is_glob)
                                        for pre in place.prefixes)


def _named(place: Place, comps: list[str], is_glob: bool) -> bool:
    """A component of the path is one of the place's, or its last one a place name."""
    return any(_comp_match(c, pat, is_glob) for c in comps for pat in place.components) or \
        any(_comp_match(comps[-1], pat, is_glob) for pat in place.names)


def _prefix_hit(pre: str, path: str, comps: list[str], is_glob: bool) -> bool:
    """Is `path` below the prefix, or could a glob path expand into it (every component
    of the prefix matched by the glob's, all but one literally)?"""
    if path == pre or path.startswith(pre.rstrip("/") + "/"):
        return True
    if not is_glob:
        return False
    pc = [c for c in pre.split("/") if c]
    return len(comps) >= len(pc) and all(
        fnmatch.fnmatchcase(pc[k], comps[k]) for k in range(len(pc))) and \
        sum(c == p for c, p in zip(comps, pc, strict=False)) >= len(pc) - 1


def match_place(ctx: Any, path: str, is_glob: bool = False,
                inferred: Sequence[str] = ()) -> Place | None:
    """The forbidden place `path` lies in, or None.

    Inside an explicit workspace (or a task.json own path) only the oracle-map names
    count; inside a workspace inferred from the transcript the generic patterns are
    exempt but the task's own places and --forbid still count.
    """
    comps = _components(path)
    if not comps:
        return None
    if _inside(path, ctx.workspaces) is not None:
        return _workspace_name(ctx, comps[-1], is_glob)
    places = ctx.places if _inside(path, inferred) is None else [
        p for p in ctx.places if not p.generic]
    return next((p for p in places if _place_hit(p, path, comps, is_glob)), None)


def _components(path: str) -> list[str]:
    if path in ("", "-", "/dev/null"):
        return []
    return [c for c in path.split("/") if c and c != "."]


def _workspace_name(ctx: Any, name: str, is_glob: bool) -> Place | None:
    """Inside the workspace: a place whose map name this file carries. A wildcard in the
    agent's own tree (`*test*`) does not stand for a map's name."""
    name_glob = is_glob and len(literal(name)) >= 8
    for place in ctx.places:
        if place.workspace_names and any(_comp_match(name, pat, name_glob)
                                         for pat in place.workspace_names):
            return place
    return None


def forbidden_name(ctx: Any, name: str) -> Place | None:
    """A place whose file-name pattern a `find -name NAME` hunts for (error, like a read).

    Only a concrete name, or a pattern whose literal part (>= 8 characters) is a piece
    of the place's name: `kept_nodeids.txt`, `kept_nodeids*`, not `*.txt`.
    """
    lit = literal(name)
    for place in ctx.places:
        for pat in [*place.names, *place.workspace_names]:
            if not _GLOBCH.search(name):
                if fnmatch.fnmatchcase(name, pat):
                    return place
            elif len(lit) >= 8 and lit in literal(pat):
                return place
    return None
