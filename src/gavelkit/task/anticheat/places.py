"""The forbidden-place model of one scan: the task record's paths, the task folder's
entries, generic patterns and `--forbid`, compiled; and matching a path against them."""

from __future__ import annotations

import contextlib
import fnmatch
import os
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError

# --------------------------------------------------------------------------- task record
from gavelkit.task.anticheat.rules import _GLOBCH, _URL, TASK_ALLOW, CommandRule, Place, load_rules


def read_task_record(task_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """task.json (or legacy MANIFEST.json) through the shared task.json reader; {} if absent.

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
            return tj.data
    return {}


def _recorded_paths(obj: Any, out: list[str], depth: int = 0) -> None:
    if depth > 8:
        return
    if isinstance(obj, dict):
        for v in obj.values():
            _recorded_paths(v, out, depth + 1)
    elif isinstance(obj, list):
        for v in obj:
            _recorded_paths(v, out, depth + 1)
    elif isinstance(obj, str) and 3 <= len(obj) <= 400 and "\n" not in obj and "::" not in obj \
            and " " not in obj.strip() and not _URL.match(obj) and (
            "/" in obj or "\\" in obj):
        out.append(obj.strip())


# --------------------------------------------------------------------------- context


@dataclass
class Context:
    places: list[Place]
    commands: list[CommandRule]
    targets: set[str] = field(default_factory=set)        # normalised dist/import names
    upstreams: list[tuple[str, str]] = field(default_factory=list)
    commits: set[str] = field(default_factory=set)
    workspaces: list[str] = field(default_factory=list)
    home: str = "/root"
    signatures: set[str] = field(default_factory=set)    # oracle test names (file::name)
    sig_files: set[str] = field(default_factory=set)
    surface_rx: re.Pattern[str] | None = None
    sig_rx: re.Pattern[str] | None = None
    anchors: list[bytes] = field(default_factory=list)
    every_line: bool = False      # a rule without a usable anchor: parse every line
    surface_lits: list[str] = field(default_factory=list)   # cheap pre-check for surface_rx


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _literal(pat: str) -> str:
    return _GLOBCH.sub("", pat.replace("[!", "[").split("[")[0] if "[" in pat else pat)


def build_context(task_dir: str | None, package: str | None, forbid: Sequence[str] = (),
                  workspace: Sequence[str] = (), rules: Sequence[str] = (),
                  upstream: str | None = None, home: str | None = None,
                  aliases: Sequence[str] = ()) -> Context:
    extra = list(rules)
    record: dict[str, Any] = {}
    if task_dir:
        tdir = Path(task_dir)
        if not tdir.is_dir():
            raise InputError(str(task_dir), "task folder not found")
        own = tdir / "anticheat_rules.toml"
        if own.is_file():
            extra.insert(0, str(own))
        record = read_task_record(tdir)
    places, commands = load_rules(extra)
    ctx = Context(places=places, commands=commands)
    names = [n for n in [package, *aliases] if n]
    repo = upstream or record.get("repo") if isinstance(upstream or record.get("repo"), str) else None
    if repo and "/" in repo:
        owner, name = repo.strip().rstrip("/").split("/")[-2:]
        name = name.removesuffix(".git")
        ctx.upstreams.append((owner.lower(), name.lower()))
        names.append(name)
    ctx.targets = {_norm(n) for n in names}
    for key in ("repo_commit", "commit", "base_commit"):
        val = record.get(key)
        if isinstance(val, str) and re.fullmatch(r"[0-9a-fA-F]{7,40}", val):
            ctx.commits.add(val.lower())
    # {pkg} expansion in place patterns
    pkg_forms = sorted({n for raw in names for n in (raw, raw.replace("-", "_"), raw.lower())})
    for place in ctx.places:
        place.sequences = [s2 for seq in place.sequences for s2 in _expand_seq(seq, pkg_forms)]
        place.components = [c2 for c in place.components for c2 in _expand(c, pkg_forms)]
        place.names = [c2 for c in place.names for c2 in _expand(c, pkg_forms)]
    # the task's own folder
    if task_dir:
        tdir = Path(task_dir).resolve()
        ws_real = [os.path.realpath(w) for w in workspace]
        entries = [e.name for e in sorted(tdir.iterdir())
                   if (not any(fnmatch.fnmatchcase(e.name, a) for a in TASK_ALLOW)
                       or e.name == "spec_test_map.md")
                   # the agent's own workspace may live inside the task folder
                   and not any(w == str(e) or w.startswith(str(e) + os.sep) for w in ws_real)]
        recorded: list[str] = []
        _recorded_paths(record, recorded)
        seqs = [[tdir.name, e] for e in entries]
        prefixes = [str(tdir / e) for e in entries]
        for r in recorded:
            rp = r.replace("\\", "/")
            if rp.startswith("/") or re.match(r"^[A-Za-z]:/", rp):
                prefixes.append(posixpath.normpath(rp))
            elif not any(fnmatch.fnmatchcase(rp, a) for a in TASK_ALLOW):
                parts = [p for p in rp.split("/") if p and p != "."]
                if parts and ".." not in parts:
                    seqs.append([tdir.name, *parts])
        ctx.places.append(Place("task", "CHT-R006", f"the task's own package ({tdir.name}/)",
                                sequences=seqs, prefixes=sorted(set(prefixes)), generic=False))
        run = record.get("candidate_run") or (record.get("candidate_score") or {}).get("run_id") \
            if isinstance(record.get("candidate_score") or {}, dict) else None
        if isinstance(run, str) and run.strip() and "/" not in run:
            ctx.places.append(Place("earlier-run", "CHT-R003", f"an earlier attempt ({run})",
                                    components=[run.strip()], generic=False))
        _load_signatures(ctx, tdir, record)
    if forbid:
        ctx.places.append(Place("forbid", "CHT-R007", "a path forbidden on the command line",
                                prefixes=[posixpath.normpath(os.path.abspath(f)) if not
                                          f.startswith("/") else posixpath.normpath(f)
                                          for f in forbid], generic=False))
    ctx.workspaces = [posixpath.normpath(os.path.abspath(w)) for w in workspace]
    ctx.home = home or "/root"
    _compile(ctx)
    return ctx


def _expand(pat: str, forms: list[str]) -> list[str]:
    if "{pkg}" not in pat:
        return [pat]
    return [pat.replace("{pkg}", f) for f in forms]


def _expand_seq(seq: list[str], forms: list[str]) -> list[list[str]]:
    if not any("{pkg}" in s for s in seq):
        return [seq]
    return [[s.replace("{pkg}", f) for s in seq] for f in forms]


def _load_signatures(ctx: Context, tdir: Path, record: dict[str, Any]) -> None:
    """Oracle node ids: seeing several of them in an output means oracle content leaked."""
    files = sorted(tdir.glob("kept_nodeids*.txt"))
    for f in files[:4]:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            for ln in f.read_text(encoding="utf-8-sig").splitlines()[:20000]:
                ln = ln.strip()
                if "::" in ln:
                    file_part, _, name = ln.partition("::")
                    name = name.split("[")[0].split("::")[-1]
                    base = posixpath.basename(file_part)
                    if len(name) >= 6:
                        ctx.signatures.add(f"{base}::{name}")
                        ctx.sig_files.add(base)
    tax = record.get("taxonomy")
    if isinstance(tax, dict):
        for key in list(tax)[:20000]:
            if "::" in key:
                mod, _, name = key.partition("::")
                base = posixpath.basename(mod.replace("\\", "/"))
                base = base if base.endswith(".py") else base + ".py"
                name = name.split("[")[0]
                if len(name) >= 6:
                    ctx.signatures.add(f"{base}::{name}")
                    ctx.sig_files.add(base)


def _compile(ctx: Context) -> None:
    generic_tokens: set[str] = set()
    anchors: set[str] = set()
    for place in ctx.places:
        for c in place.components:
            lit = _literal(c)
            if len(lit) >= 4:
                anchors.add(lit)
                if place.generic:
                    generic_tokens.add(c)
        for n in place.names:
            lit = _literal(n)
            if len(lit) >= 4:
                anchors.add(lit.split("*")[0] if "*" in n else lit)
                if place.generic:
                    generic_tokens.add(n)
        for seq in place.sequences:
            # one anchor per sequence, its longest literal ("site-packages", the task name)
            lit = max((_literal(s) for s in seq), key=len, default="")
            if len(lit) >= 4:
                anchors.add(lit)
        for pre in place.prefixes:
            base = posixpath.basename(pre.rstrip("/"))
            if len(base) >= 3:
                anchors.add(base)
    # fragments that survive globbing (`kept*`, `spec_test*`) still reach the parser
    for frag in ("kept", "nodeid", "spec_test", "taxonomy", "score", "oracle", "repo-pool",
                 "worktree", "candidate-run"):
        anchors.add(frag)
    for rule in ctx.commands:
        if rule.kind in ("install", "probe"):
            # a program name followed by a space (shell text) or a quote (argv arrays)
            for prog in rule.programs:
                anchors.update([f"{prog} ", f'{prog}\\"', f'{prog}"', f"{prog}\t"])
        elif rule.kind == "git":
            anchors.update(["reflog", "cat-file", "rev-list", "fsck", "git show", "--all",
                            "cherry-pick", "git log", "git -C", "git diff", "git checkout"])
            anchors.update(v for v in rule.verbs if len(v) >= 4)
            anchors.update(f"git {v}" for v in (*rule.flag_verbs, *rule.sha_verbs))
        elif rule.kind == "fetch":
            anchors.update(["http", "git@", "git clone", "ssh://"])
        elif rule.kind == "argv" and rule.pattern is not None:
            lits = rule.anchors or re.findall(r"[A-Za-z0-9_./-]{4,}", rule.pattern.pattern)
            anchors.update(lits)
            if not lits:
                ctx.every_line = True
    anchors.update(["__file__", "site-packages", "dist-packages", "find_spec", "getsource"])
    anchors.update(ctx.commits)
    anchors.update(ctx.sig_files)
    anchors.update(f"{o}/{n}" for o, n in ctx.upstreams)
    ctx.anchors = sorted(a.encode() for a in anchors if a)
    toks = sorted(generic_tokens)
    ctx.surface_lits = sorted({max(re.split(r"[*?\[\]]", t), key=len) for t in toks} - {""})
    if toks:
        alts = "|".join(fnmatch.translate(t).removeprefix("(?s:").removesuffix(")\\Z")
                        .replace(".*", r"[\w.-]*") for t in toks)
        ctx.surface_rx = re.compile(rf"(?<![\w.-])(?:{alts})(?![\w-])")
    if ctx.sig_files:
        files = "|".join(re.escape(f) for f in sorted(ctx.sig_files))
        ctx.sig_rx = re.compile(rf"(?<![\w-])({files})::([A-Za-z_]\w*)")


# --------------------------------------------------------------------------- matching


def _comp_match(comp: str, pat: str, is_glob: bool, anchored: bool = False) -> bool:
    """Does a path component match a place pattern? Glob components match the other way
    round, but only when they carry some literal text (`kept*`), or when `anchored`
    (another component of the same sequence matched literally)."""
    if fnmatch.fnmatchcase(comp, pat):
        return True
    if not (is_glob and _GLOBCH.search(comp)):
        return False
    if not anchored and len(_literal(comp)) < 3:
        return False
    return fnmatch.fnmatchcase(_literal(pat) or pat, comp)


def match_place(ctx: Context, path: str, is_glob: bool = False,
                workspace: Sequence[str] = ()) -> Place | None:
    if not path or path in ("-", "/dev/null"):
        return None
    comps = [c for c in path.split("/") if c and c != "."]
    if not comps:
        return None
    in_ws = any(path == w or path.startswith(w.rstrip("/") + "/") for w in workspace)
    for place in ctx.places:
        if place.generic and in_ws:
            continue
        hit = False
        if (place.components and any(_comp_match(c, pat, is_glob) for c in comps
                                     for pat in place.components)) or (place.names and any(_comp_match(comps[-1], pat, is_glob) for pat in place.names)):
            hit = True
        else:
            for seq in place.sequences:
                n = len(seq)
                if any(all(_comp_match(comps[i + k], seq[k], is_glob, True) for k in range(n))
                       and any(fnmatch.fnmatchcase(comps[i + k], seq[k]) for k in range(n))
                       for i in range(0, len(comps) - n + 1)):
                    hit = True
                    break
            if not hit and path.startswith("/"):
                for pre in place.prefixes:
                    if path == pre or path.startswith(pre.rstrip("/") + "/"):
                        hit = True
                        break
                    if is_glob:
                        pc = [c for c in pre.split("/") if c]
                        if len(comps) >= len(pc) and all(
                                fnmatch.fnmatchcase(pc[k], comps[k]) for k in range(len(pc))) and \
                                sum(c == p for c, p in zip(comps, pc, strict=False)) >= len(pc) - 1:
                            hit = True
                            break
        if hit:
            return place
    return None


