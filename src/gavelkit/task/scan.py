"""Trajectory anti-cheat scan: did the agent touch what it must not?

Library entry point for the judge::

    result = scan_trajectories(paths, task_dir, package, forbid=[...], workspace=[...])
    result.verdict    # "CLEAN" | "CHEAT_DETECTED" | "UNVERIFIABLE"
    result.findings   # list[Finding]: path, line (JSONL) , data.event, data.rule, data.excerpt

What is forbidden comes from data (`gavelkit/data/anticheat_rules.toml`, plus a
task's own `anticheat_rules.toml` and `--rules FILE`): generic places (a path
component `repo-pool`, oracle worktrees, `candidate-runs`, oracle map files,
score reports, the target in site-packages), every entry of the task's own
folder except its spec, paths recorded in task.json, and `--forbid` paths; and
commands (installing/downloading the target, fetching its upstream, reading git
history, probing the installed target).

Shell commands are parsed (`gavelkit.task.shell`), Python snippets are parsed
with `ast`, and every path is resolved against the event's working directory.
Reading a forbidden place is direct access (error → CHEAT_DETECTED); listing it
(`ls`, `find`, Glob) or seeing its name in a tool output is observed surface
(warning). The agent's own workspace is exempt from the generic patterns. A
transcript that is missing, empty or unparseable makes the verdict UNVERIFIABLE,
never CLEAN.

Speed: JSONL transcripts are streamed block by block; only lines containing one
of the rules' literal anchors are parsed (`gavelkit.task.prefilter`, google-re2
when importable). `thorough=True` parses every line.
"""

from __future__ import annotations

import ast
import contextlib
import fnmatch
import json
import os
import posixpath
import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.task.shell import SimpleCommand, parse, resolve_path
from gavelkit.task.trajectory.events import Event

CLEAN, CHEAT, UNVERIFIABLE = "CLEAN", "CHEAT_DETECTED", "UNVERIFIABLE"
MAX_DOC = int(os.environ.get("GAVEL_SCAN_MAX_DOC", str(512 * 1024 * 1024)))
TASK_ALLOW = ("spec.md", "spec_v*.md", "README*", "LICENSE*", ".*")
LISTERS = {"ls", "find", "tree", "du", "stat", "file", "dir", "exa", "eza", "fd", "fdfind",
           "locate", "realpath", "readlink", "test", "[", "basename", "dirname", "lsattr", "ll"}
NOOP = {"cd", "pushd", "popd", "echo", "printf", "true", "false", "export", "set", "unset",
        "which", "type", "alias", "exit", "return", "sleep", "wait", "read", "pwd", "clear",
        "source", ".", "local", "declare", "shift", "trap", "kill", "jobs", "hash", "history"}
WRAPPERS = {"sudo", "env", "timeout", "nohup", "time", "nice", "exec", "command", "stdbuf",
            "unbuffer", "ionice", "chronic", "caffeinate", "builtin", "doas", "strace", "ltrace"}
KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "in",
            "case", "esac", "{", "}", "!", "function", "select", "[[", "]]"}
SHELLS = {"bash", "sh", "zsh", "dash", "ksh", "fish", "ash", "busybox"}
WRITERS = {"rm", "touch", "mkdir", "chmod", "chown", "truncate", "tee", "rmdir", "unlink",
           "shred", "mv"}
COPIERS = {"cp", "rsync", "scp", "ln", "install"}
PATTERN_FIRST = {"grep", "egrep", "fgrep", "rg", "ag", "ack", "zgrep", "sed", "awk", "gawk",
                 "jq", "yq", "perl"}
_URL = re.compile(r"(?:https?://|git@|ssh://|git://|git\+https?://)[^\s'\"<>]+", re.I)
_SHA = re.compile(r"^[0-9a-f]{7,40}(?:[~^]\d*)*(?::.*)?$")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_GLOBCH = re.compile(r"[*?\[]")
_PROBE_PY = re.compile(r"__file__|__path__|getsourcefile|getsource|getfile|find_spec|"
                       r"spec_from|importlib\.metadata|importlib_metadata|distribution\(|"
                       r"pkg_resources|site\.getsitepackages|sysconfig\.get_path")


# --------------------------------------------------------------------------- rules


@dataclass(slots=True)
class Place:
    id: str
    code: str
    what: str
    severity: str = "error"
    components: list[str] = field(default_factory=list)
    sequences: list[list[str]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    prefixes: list[str] = field(default_factory=list)
    generic: bool = True            # exempt inside the agent's own workspace
    enabled: bool = True


@dataclass(slots=True)
class CommandRule:
    id: str
    code: str
    kind: str
    what: str
    severity: str = "error"
    programs: list[str] = field(default_factory=list)
    verbs: list[str] = field(default_factory=list)
    flag_verbs: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    sha_verbs: list[str] = field(default_factory=list)
    pattern: re.Pattern[str] | None = None
    anchors: list[str] = field(default_factory=list)
    enabled: bool = True


def _strs(spec: dict[str, Any], key: str, src: str) -> list[str]:
    val = spec.get(key, [])
    if not isinstance(val, list) or not all(isinstance(x, str) for x in val):
        raise InputError(src, f"rule {spec.get('id')!r}: {key} must be a list of strings")
    return val


def load_rules(extra: Sequence[str | os.PathLike[str]] = ()) -> tuple[list[Place], list[CommandRule]]:
    """Built-in rules, then each extra TOML file (same id replaces, new id adds)."""
    tables: list[tuple[str, dict[str, Any]]] = [(
        "anticheat_rules.toml",
        tomllib.loads(resources.files("gavelkit.data").joinpath("anticheat_rules.toml")
                      .read_text(encoding="utf-8")))]
    for path in extra:
        from gavelkit.core.textio import read_text

        text = read_text(path)
        try:
            tables.append((str(path), tomllib.loads(text)))
        except tomllib.TOMLDecodeError as exc:
            raise InputError(str(path), f"not valid TOML: {exc}", code="CHT-U005") from None
    places: dict[str, Place] = {}
    commands: dict[str, CommandRule] = {}
    for src, table in tables:
        for spec in table.get("place", []):
            if not isinstance(spec, dict) or not isinstance(spec.get("id"), str):
                raise InputError(src, "every [[place]] needs an id")
            old = places.get(spec["id"])
            code = spec.get("code", old.code if old else "CHT-R007")
            places[spec["id"]] = Place(
                id=spec["id"], code=code, what=str(spec.get("what", old.what if old else spec["id"])),
                severity=str(spec.get("severity", old.severity if old else "error")),
                components=_strs(spec, "component", src) or (old.components if old else []),
                sequences=[list(s) for s in spec.get("sequence", old.sequences if old else [])],
                names=_strs(spec, "name", src) or (old.names if old else []),
                prefixes=_strs(spec, "prefix", src) or (old.prefixes if old else []),
                generic=bool(spec.get("generic", True)),
                enabled=bool(spec.get("enabled", True)))
        for spec in table.get("command", []):
            if not isinstance(spec, dict) or not isinstance(spec.get("id"), str):
                raise InputError(src, "every [[command]] needs an id")
            kind = spec.get("kind", "argv")
            if kind not in ("install", "fetch", "git", "probe", "argv"):
                raise InputError(src, f"rule {spec['id']!r}: unknown kind {kind!r}")
            pat = None
            if kind == "argv":
                try:
                    pat = re.compile(str(spec.get("pattern", "")))
                except re.error as exc:
                    raise InputError(src, f"rule {spec['id']!r}: bad pattern: {exc}") from None
            commands[spec["id"]] = CommandRule(
                id=spec["id"], code=str(spec.get("code", "CHT-X001")), kind=kind,
                what=str(spec.get("what", spec["id"])), severity=str(spec.get("severity", "error")),
                programs=_strs(spec, "programs", src), verbs=_strs(spec, "verbs", src),
                flag_verbs=_strs(spec, "flag_verbs", src), flags=_strs(spec, "flags", src),
                sha_verbs=_strs(spec, "sha_verbs", src), pattern=pat,
                anchors=_strs(spec, "anchors", src),
                enabled=bool(spec.get("enabled", True)))
    for rule_list in (places.values(), commands.values()):
        for r in rule_list:
            if r.severity not in ("error", "warning", "info"):
                raise InputError("rules", f"rule {r.id!r}: severity must be error|warning|info")
    return ([p for p in places.values() if p.enabled], [c for c in commands.values() if c.enabled])


# --------------------------------------------------------------------------- task record


def read_task_record(task_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """task.json (or legacy MANIFEST.json), BOM-tolerant; {} if absent.

    Private reader until gavelkit.task.formats lands; only the fields the scan
    needs (repo, repo_commit, candidate_run, recorded paths) are used.
    """
    for name in ("task.json", "MANIFEST.json"):
        p = Path(task_dir) / name
        if p.is_file():
            try:
                data = json.loads(p.read_bytes().decode("utf-8-sig"))
            except (ValueError, UnicodeDecodeError) as exc:
                raise InputError(str(p), f"task record is not valid JSON: {exc}") from None
            return data if isinstance(data, dict) else {}
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


# --------------------------------------------------------------------------- analysis


@dataclass(slots=True)
class Hit:
    code: str
    severity: str
    message: str
    target: str
    access: str       # read | list | write | command | output


class Analyzer:
    """Turns one event into hits; keeps the per-session working directory."""

    def __init__(self, ctx: Context, workspace: Sequence[str] = ()) -> None:
        self.ctx = ctx
        self.workspace = list(workspace) or list(ctx.workspaces)
        self.cwd: str | None = None
        self.direct_calls: set[str] = set()
        self.check_outputs = True     # the caller may know a line holds no forbidden name

    # -- paths
    def _path(self, word: str, cwd: str | None, access: str, is_glob: bool, hits: list[Hit],
              how: str) -> None:
        if not word or (word.startswith("-") and access != "read-forced"):
            return
        if word.startswith(("$(", "http://", "https://")) or "\n" in word:
            return
        path = resolve_path(word, cwd, self.ctx.home)
        place = match_place(self.ctx, path, is_glob or (bool(_GLOBCH.search(word)) and is_glob),
                            self.workspace)
        if place is None:
            return
        if access == "list":
            hits.append(Hit("CHT-S001", "warning", f"{how} lists {place.what}: {path}", path, "list"))
        elif access == "write":
            hits.append(Hit("CHT-W001", "error", f"{how} writes into {place.what}: {path}",
                            path, "write"))
        else:
            hits.append(Hit(place.code, place.severity, f"{how} reads {place.what}: {path}",
                            path, "read"))

    # -- events
    def analyse(self, ev: Event) -> list[Hit]:
        hits: list[Hit] = []
        cwd = ev.cwd or self.cwd
        if ev.command:
            self._shell(ev.command, cwd, hits, depth=0, track=ev.cwd is None)
        if ev.argv:
            self._argv(list(ev.argv), cwd, set(), hits, None, 0)
        how = f"the {ev.tool or 'file'} tool"
        for p in ev.read:
            self._path(p, cwd, "read", False, hits, how)
        for p in ev.write:
            self._path(p, cwd, "write", False, hits, how)
        for p in ev.listed:
            self._path(p, cwd, "list", bool(_GLOBCH.search(p)), hits, how)
        if ev.code:
            self._python(ev.code, cwd, hits, 0)
        if ev.url:
            self._urls([ev.url], hits, ev.tool or "fetch")
        if self.check_outputs and ev.output and (ev.tool == "output" or not hits):
            self._output(ev, hits)
        if ev.call_id and any(h.access != "output" and h.severity == "error" for h in hits):
            self.direct_calls.add(ev.call_id)
        return _dedupe(hits)

    def _shell(self, src: str, cwd: str | None, hits: list[Hit], depth: int,
               track: bool = False) -> None:
        cmds = parse(src, cwd=cwd, home=self.ctx.home, _depth=depth)
        for cmd in cmds:
            self._simple(cmd, hits, depth)
        if track and cmds:
            last = cmds[-1]
            if last.argv and last.argv[0] in ("cd", "pushd"):
                tgt = next((a for a in last.argv[1:] if not a.startswith("-")), self.ctx.home)
                self.cwd = resolve_path(tgt, last.cwd, self.ctx.home)

    def _simple(self, cmd: SimpleCommand, hits: list[Hit], depth: int) -> None:
        for r in cmd.reads:
            self._path(r, cmd.cwd, "read", False, hits, "input redirection")
        for w in cmd.writes:
            self._path(w, cmd.cwd, "write", False, hits, "output redirection")
        if cmd.argv:
            stdin_paths: list[str] = []
            if cmd.piped_from is not None and cmd.piped_from.argv:
                prog = posixpath.basename(cmd.piped_from.argv[0])
                if prog in ("find", "ls", "echo", "printf", "fd", "locate"):
                    pargs = cmd.piped_from.argv[1:]
                    stdin_paths = [a for a in pargs if not a.startswith(("-", "(", "!"))]
                    if prog in ("find", "ls", "fd"):
                        root = stdin_paths[0] if stdin_paths and prog != "fd" else "."
                        names = [pargs[j + 1] for j in range(len(pargs) - 1)
                                 if pargs[j] in ("-name", "-iname", "-path")]
                        stdin_paths = [posixpath.join(root, "**", n) for n in names] or \
                            [posixpath.join(root, "*")]
            self._argv(list(cmd.argv), cmd.cwd, set(cmd.glob_args), hits, cmd.heredoc, depth,
                       stdin_paths, cmd.piped_from)

    def _argv(self, argv: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
              heredoc: str | None, depth: int, stdin_paths: Sequence[str] = (),
              piped_from: SimpleCommand | None = None) -> None:
        if depth > 8:
            return
        # strip keywords, wrappers and their options
        while argv:
            head = posixpath.basename(argv[0])
            if head in KEYWORDS:
                argv, globs = argv[1:], {i - 1 for i in globs if i > 0}
                continue
            if head in WRAPPERS:
                k = 1
                while k < len(argv) and (argv[k].startswith("-") or "=" in argv[k]
                                         or (head == "timeout" and re.fullmatch(r"[\d.]+[smhd]?", argv[k]))
                                         or (head == "nice" and argv[k - 1] == "-n")):
                    k += 1
                argv, globs = argv[k:], {i - k for i in globs if i >= k}
                continue
            break
        if not argv:
            return
        prog = posixpath.basename(argv[0])
        prog = re.sub(r"(\d+(\.\d+)*)$", "", prog) if prog.startswith("python") else prog
        args = argv[1:]
        if prog == "xargs":
            k = 1
            while k < len(argv) and argv[k].startswith("-"):
                k += 2 if argv[k] in ("-I", "-n", "-P", "-d", "-L", "-s", "-E") else 1
            rest = argv[k:] or ["echo"]
            self._argv(rest + list(stdin_paths), cwd,
                       set(range(len(rest), len(rest) + len(stdin_paths))), hits, None, depth + 1)
            return
        if prog in SHELLS:
            if "-c" in args or any(re.fullmatch(r"-[a-z]*c[a-z]*", a) for a in args):
                idx = next(i for i, a in enumerate(args) if re.fullmatch(r"-[a-z]*c[a-z]*", a))
                if idx + 1 < len(args):
                    self._shell(args[idx + 1], cwd, hits, depth + 1)
                return
            script = next((a for a in args if not a.startswith("-")), None)
            if script:
                self._path(script, cwd, "read", False, hits, prog)
            elif heredoc:
                self._shell(heredoc, cwd, hits, depth + 1)
            return
        if prog == "eval":
            self._shell(" ".join(args), cwd, hits, depth + 1)
            return
        if prog.startswith("python") or prog in ("pypy", "pypy3", "ipython"):
            self._python_cli(args, cwd, hits, heredoc, depth)
            return
        if prog in ("uv", "poetry", "pdm", "hatch", "pipenv", "rye") and args[:1] == ["run"]:
            rest = [a for a in args[1:]]
            while rest and rest[0].startswith("-"):
                rest = rest[1:]
            self._argv(rest, cwd, set(), hits, heredoc, depth + 1)
            return
        if prog in ("uvx",) or (prog == "pipx" and args[:1] == ["run"]):
            rest = args[1:] if prog == "pipx" else args
            words = [a for a in rest if not a.startswith("-")]
            if words and _norm(_WORD.match(words[0]).group(0) if _WORD.match(words[0]) else "") in self.ctx.targets:
                self._command_hit("install-target", argv, hits)
            return
        self._command_rules(prog, argv, cwd, hits, piped_from)
        if prog in NOOP:
            return
        if prog == "git":
            self._git_paths(args, cwd, hits)
            return
        if prog in ("curl", "wget", "http", "https", "aria2c"):
            for a in args:
                if a.startswith("file://"):
                    self._path(a[7:], cwd, "read", False, hits, prog)
            return
        if prog == "find":
            self._find(args, cwd, globs, hits, depth)
            return
        access = "list" if prog in LISTERS else "write" if prog in WRITERS else "read"
        positional = self._positional(prog, args)
        if prog in LISTERS and not positional and prog in ("ls", "tree", "du", "exa", "eza", "ll"):
            positional = [(".", -1)]
        if prog in ("grep", "egrep", "fgrep", "rg", "ag", "ack") and not positional and any(
                a.startswith("-") and ("r" in a.lstrip("-")[:3] or a in ("--recursive",))
                for a in args):
            positional = [(".", -1)]
        if prog in COPIERS and len(positional) >= 2:
            *srcs, dst = positional
            for word, i in srcs:
                self._path(word, cwd, "read", i + 1 in globs, hits, prog)
            self._path(dst[0], cwd, "write", False, hits, prog)
            return
        if prog == "sed" and any(a == "-i" or a.startswith("-i") for a in args):
            access = "write"
        for word, i in positional:
            for part in _split_assign(word):
                self._path(part, cwd, access, i + 1 in globs, hits, prog)

    def _positional(self, prog: str, args: list[str]) -> list[tuple[str, int]]:
        """Arguments that may be paths (skipping a leading pattern/script and option values)."""
        out: list[tuple[str, int]] = []
        skip_first = prog in PATTERN_FIRST
        has_e = any(a in ("-e", "-f", "--regexp", "--file", "--expression") or
                    a.startswith(("-e", "--regexp=", "--expression=")) for a in args)
        if has_e:
            skip_first = False
        value_opts = {"-m", "--message", "-F", "--max-count", "-A", "-B", "-C", "-n", "-o",
                      "--output", "-t", "--type", "-g", "--glob", "-e", "--regexp", "-name",
                      "-iname", "-path", "-c", "--include", "--exclude"}
        i = 0
        while i < len(args):
            a = args[i]
            if a == "--":
                out.extend((b, j) for j, b in enumerate(args[i + 1:], start=i + 1))
                break
            if a.startswith("-") and len(a) > 1:
                if a in value_opts and prog not in ("cat", "head", "tail", "less", "more") and \
                        i + 1 < len(args):
                    if a in ("-e", "--regexp") and prog in PATTERN_FIRST:
                        pass
                    elif a in ("-f", "--file") and prog in PATTERN_FIRST:
                        out.append((args[i + 1], i + 1))
                    i += 2
                    continue
                if "=" in a:
                    out.append((a.split("=", 1)[1], i))
                i += 1
                continue
            if skip_first:
                skip_first = False
                i += 1
                continue
            out.append((a, i))
            i += 1
        return out

    def _find(self, args: list[str], cwd: str | None, globs: set[int], hits: list[Hit],
              depth: int) -> None:
        roots: list[str] = []
        k = 0
        while k < len(args) and not args[k].startswith(("-", "(", "!")):
            roots.append(args[k])
            k += 1
        roots = roots or ["."]
        names = []
        for j in range(k, len(args) - 1):
            if args[j] in ("-name", "-iname", "-path", "-wholename"):
                names.append(args[j + 1])
        for r in roots:
            self._path(r, cwd, "list", True, hits, "find")
            for n in names:
                self._path(posixpath.join(r, "**", n) if "/" not in n else n, cwd, "list",
                           True, hits, "find")
        j = k
        while j < len(args):
            if args[j] in ("-exec", "-execdir", "-ok", "-okdir"):
                end = j + 1
                while end < len(args) and args[end] not in (";", "+", "\\;"):
                    end += 1
                inner = args[j + 1:end]
                for r in roots:
                    sub = [posixpath.join(r, "*") if w == "{}" else w for w in inner]
                    self._argv(sub, cwd, {i for i, w in enumerate(inner) if w == "{}"}, hits, None,
                               depth + 1)
                j = end
            j += 1

    def _git_paths(self, args: list[str], cwd: str | None, hits: list[Hit]) -> None:
        k = 0
        gcwd = cwd
        while k < len(args) and args[k].startswith("-"):
            if args[k] == "-C" and k + 1 < len(args):
                gcwd = resolve_path(args[k + 1], cwd, self.ctx.home)
                self._path(args[k + 1], cwd, "read", False, hits, "git -C")
                k += 2
                continue
            if args[k] in ("-c", "--git-dir", "--work-tree") and k + 1 < len(args):
                if args[k] != "-c":
                    self._path(args[k + 1], cwd, "read", False, hits, "git")
                k += 2
                continue
            k += 1
        verb = args[k] if k < len(args) else ""
        rest = args[k + 1:]
        if verb in ("commit", "tag", "stash", "config", "remote", "init", "status"):
            return
        for a in rest:
            if a.startswith("-"):
                continue
            if ":" in a and not a.startswith(("http", "git@")):
                a = a.split(":", 1)[1]
            if verb == "clone":
                continue
            self._path(a, gcwd, "read", False, hits, f"git {verb}")

    def _python_cli(self, args: list[str], cwd: str | None, hits: list[Hit],
                    heredoc: str | None, depth: int) -> None:
        k = 0
        while k < len(args):
            a = args[k]
            if a == "-c" and k + 1 < len(args):
                self._python(args[k + 1], cwd, hits, depth + 1)
                return
            if a == "-m" and k + 1 < len(args):
                mod = args[k + 1]
                self._argv([mod, *args[k + 2:]], cwd, set(), hits, heredoc, depth + 1)
                return
            if a == "-" or (a.startswith("-") is False):
                if a == "-":
                    if heredoc:
                        self._python(heredoc, cwd, hits, depth + 1)
                    return
                self._path(a, cwd, "read", False, hits, "python")
                for b in args[k + 1:]:
                    if not b.startswith("-"):
                        self._path(b, cwd, "read", False, hits, "python")
                return
            k += 1
        if heredoc:
            self._python(heredoc, cwd, hits, depth + 1)

    def _python(self, code: str, cwd: str | None, hits: list[Hit], depth: int) -> None:
        strings: list[str] = []
        imports: set[str] = set()
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            strings = [m[1] for m in re.findall(r"(['\"])(.*?)\1", code)]
            imports = set(re.findall(r"(?:^|[;\s])(?:import|from)\s+([A-Za-z_][\w]*)", code))
            tree = None
        if tree is not None:
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    strings.append(node.value)
                elif isinstance(node, ast.Import):
                    imports.update(a.name.split(".")[0] for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module:
                    imports.add(node.module.split(".")[0])
                elif isinstance(node, ast.Call):
                    fn = node.func
                    name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
                    if name in ("system", "popen", "getoutput", "getstatusoutput", "run", "call",
                                "check_call", "check_output", "Popen") and node.args:
                        a0 = node.args[0]
                        if isinstance(a0, ast.Constant) and isinstance(a0.value, str):
                            self._shell(a0.value, cwd, hits, depth + 1)
                        elif isinstance(a0, ast.List | ast.Tuple) and all(
                                isinstance(e, ast.Constant) and isinstance(e.value, str)
                                for e in a0.elts):
                            self._argv([e.value for e in a0.elts], cwd, set(), hits, None,  # type: ignore[attr-defined]
                                       depth + 1)
        for s in strings:
            if s and len(s) < 4096 and "\n" not in s and ("/" in s or "." in s or "~" in s):
                self._path(s, cwd, "read", bool(_GLOBCH.search(s)), hits, "python")
        if {_norm(i) for i in imports} & self.ctx.targets and _PROBE_PY.search(code):
            self._command_hit("probe-installed", ["python", "-c", code], hits,
                              "python code imports the target and asks where it is installed")

    def _output(self, ev: Event, hits: list[Hit]) -> None:
        text = ev.output or ""
        if len(text) > 4_000_000:
            text = text[:4_000_000]
        if self.ctx.sig_rx is not None and self.ctx.signatures and "::" in text and any(
                f in text for f in self.ctx.sig_files):
            found = {f"{m.group(1)}::{m.group(2)}" for m in self.ctx.sig_rx.finditer(text)}
            leaked = found & self.ctx.signatures
            if len(leaked) >= 2:
                hits.append(Hit("CHT-O001", "error",
                                f"tool output shows {len(leaked)} oracle test ids "
                                f"(e.g. {sorted(leaked)[0]})", sorted(leaked)[0], "output"))
                return
        if ev.call_id and ev.call_id in self.direct_calls:
            return
        if self.ctx.surface_rx is not None and any(lit in text for lit in self.ctx.surface_lits):
            names = sorted({m.group(0) for m in self.ctx.surface_rx.finditer(text)})
            if names:
                hits.append(Hit("CHT-S002", "warning",
                                f"tool output shows forbidden place(s): {', '.join(names[:5])}",
                                names[0], "output"))

    # -- command rules
    def _command_hit(self, rule_id: str, argv: list[str], hits: list[Hit], detail: str = "") -> None:
        rule = next((r for r in self.ctx.commands if r.id == rule_id), None)
        if rule is None:
            return
        joined = " ".join(argv)
        hits.append(Hit(rule.code, rule.severity, f"{rule.what}: {detail or joined[:200]}",
                        joined[:200], "command"))

    def _command_rules(self, prog: str, argv: list[str], cwd: str | None, hits: list[Hit],
                       piped_from: SimpleCommand | None) -> None:
        words = [a for a in argv[1:] if not a.startswith("-")]
        joined = " ".join(argv)
        for rule in self.ctx.commands:
            if rule.kind == "argv":
                if rule.pattern is not None and rule.pattern.search(joined):
                    hits.append(Hit(rule.code, rule.severity, f"{rule.what}: {joined[:200]}",
                                    joined[:200], "command"))
            elif rule.kind == "install" and prog in rule.programs:
                verb_at = next((i for i, w in enumerate(words[:3]) if w in rule.verbs), None)
                if verb_at is None:
                    continue
                targets = self._install_targets(argv, words[verb_at])
                for t in targets:
                    if _URL.match(t):
                        if self._upstream_url(t):
                            hits.append(Hit(rule.code, rule.severity, f"{rule.what}: {joined[:200]}",
                                            t, "command"))
                    elif "/" in t or t.startswith("."):
                        self._path(t, cwd, "read", False, hits, f"{prog} {words[verb_at]}")
                    else:
                        m = _WORD.match(t)
                        if m and _norm(m.group(0)) in self.ctx.targets:
                            hits.append(Hit(rule.code, rule.severity,
                                            f"{rule.what}: {joined[:200]}", m.group(0), "command"))
            elif rule.kind == "probe" and prog in rule.programs:
                if words[:1] and words[0] in rule.verbs and any(
                        _norm(w) in self.ctx.targets for w in words[1:]):
                    hits.append(Hit(rule.code, rule.severity, f"{rule.what}: {joined[:200]}",
                                    joined[:200], "command"))
            elif rule.kind == "probe" and prog in ("grep", "rg", "egrep") and piped_from and \
                    piped_from.argv and posixpath.basename(piped_from.argv[0]) in rule.programs:
                if any(_norm(w) in self.ctx.targets for w in words[:1]):
                    hits.append(Hit(rule.code, rule.severity,
                                    f"{rule.what}: {' '.join(piped_from.argv)} | {joined}"[:240],
                                    joined[:200], "command"))
            elif rule.kind == "git" and prog == "git":
                self._git_rule(rule, argv, hits)
            elif rule.kind == "fetch" and ("*" in rule.programs or prog in rule.programs):
                for a in argv[1:]:
                    for url in _URL.findall(a):
                        if self._upstream_url(url):
                            hits.append(Hit(rule.code, rule.severity,
                                            f"{rule.what}: {joined[:200]}", url, "command"))

    def _install_targets(self, argv: list[str], verb: str) -> list[str]:
        value_opts = {"-r", "--requirement", "-c", "--constraint", "-i", "--index-url",
                      "--extra-index-url", "-t", "--target", "-f", "--find-links", "--prefix",
                      "--root", "--python", "-p", "--channel", "--platform", "--python-version",
                      "--only-binary", "--no-binary", "-d", "--dest", "--group", "-n", "--name",
                      "--src", "--cache-dir", "--index", "--default-index", "--with"}
        out: list[str] = []
        seen_verb = False
        i = 1
        while i < len(argv):
            a = argv[i]
            if not seen_verb:
                seen_verb = a == verb
                i += 1
                continue
            if a in value_opts:
                i += 2
                continue
            if a in ("-e", "--editable") and i + 1 < len(argv):
                out.append(argv[i + 1])
                i += 2
                continue
            if a.startswith("-"):
                i += 1
                continue
            out.append(a)
            i += 1
        return out

    def _git_rule(self, rule: CommandRule, argv: list[str], hits: list[Hit]) -> None:
        args = argv[1:]
        k = 0
        while k < len(args) and args[k].startswith("-"):
            k += 2 if args[k] in ("-C", "-c", "--git-dir", "--work-tree") else 1
        if k >= len(args):
            return
        verb, rest = args[k], args[k + 1:]
        joined = " ".join(argv)
        why = ""
        if verb in rule.verbs:
            why = f"git {verb}"
        elif verb in rule.flag_verbs and any(
                (a in rule.flags and (a not in ("-a", "-r") or verb == "branch"))
                or any(a.startswith(f + "=") for f in rule.flags if f.startswith("--"))
                for a in rest):  # -a/-r mean "all/remote branches" only for git branch
            why = f"git {verb} across all refs"
        elif verb in rule.sha_verbs:
            for a in rest:
                low = a.lower()
                if a.startswith("-"):
                    continue
                if _SHA.match(low) and re.search(r"\d", low.split(":")[0]) and \
                        re.search(r"[a-f]", low.split(":")[0]):
                    why = f"git {verb} of commit {a.split(':')[0]}"
                    break
                if any(c in low for c in self.ctx.commits):
                    why = f"git {verb} of the upstream commit"
                    break
        if verb == "clone":
            return
        if why:
            hits.append(Hit(rule.code, rule.severity, f"{rule.what}: {joined[:200]}", why,
                            "command"))

    def _upstream_url(self, url: str) -> bool:
        low = url.lower().rstrip("/")
        for owner, name in self.ctx.upstreams:
            for host in ("github.com", "gitlab.com", "bitbucket.org", "codeload.github.com",
                         "raw.githubusercontent.com", "api.github.com/repos"):
                for sep in ("/", ":"):
                    stem = f"{host}{sep}{owner}/{name}"
                    if stem in low and re.search(re.escape(stem) + r"(?:\.git)?(?:[/#?@]|$)", low):
                        return True
        for t in self.ctx.targets:
            if re.search(rf"pypi\.(?:org|python\.org)/(?:project|simple|pypi)/{re.escape(t)}(?:[/#?]|$)",
                         _norm_url(low)):
                return True
            if "pythonhosted.org/" in low:
                fname = low.rsplit("/", 1)[-1]
                if _norm(fname.split("-")[0]) == t:
                    return True
            if not self.ctx.upstreams and re.search(
                    rf"github\.com[/:][\w.-]+/{re.escape(t)}(?:\.git)?(?:[/#?]|$)", _norm_url(low)):
                return True
        return False

    def _urls(self, urls: Iterable[str], hits: list[Hit], how: str) -> None:
        rule = next((r for r in self.ctx.commands if r.kind == "fetch"), None)
        if rule is None:
            return
        for u in urls:
            if self._upstream_url(u):
                hits.append(Hit(rule.code, rule.severity, f"{rule.what}: {how} {u}", u, "command"))
            elif u.startswith("file://"):
                self._path(u[7:], None, "read", False, hits, how)


def _norm_url(u: str) -> str:
    return re.sub(r"(?<=/)([a-z0-9._-]+)", lambda m: _norm(m.group(1)) if "." not in m.group(1)
                  or m.group(1).endswith((".git",)) else m.group(1), u)


def _split_assign(word: str) -> list[str]:
    if "=" in word and not word.startswith("/"):
        return [word.split("=", 1)[1]]
    return [word]


def _dedupe(hits: list[Hit]) -> list[Hit]:
    seen: set[tuple[str, str]] = set()
    out = []
    for h in hits:
        key = (h.code, h.target)
        if key not in seen:
            seen.add(key)
            out.append(h)
    return out


# --------------------------------------------------------------------------- driver


@dataclass
class ScanResult:
    verdict: str
    findings: list[Finding]
    files: list[dict[str, Any]]
    engine: str

    @property
    def passed(self) -> bool:
        return self.verdict == CLEAN

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "engine": self.engine, "files": self.files}


def _finding(code: str, severity: str, message: str, path: str, line: int = 0,
             unusable: bool = False, **data: Any) -> Finding:
    return Finding(code, severity, message, path, line, 0, unusable=unusable,  # type: ignore[arg-type]
                   data={k: v for k, v in data.items() if v not in (None, "")})


def scan_trajectories(paths: Sequence[str], task_dir: str | None = None,
                      package: str | None = None, forbid: Sequence[str] = (),
                      workspace: Sequence[str] = (), rules: Sequence[str] = (),
                      upstream: str | None = None, home: str | None = None,
                      thorough: bool = False, engine: str | None = None,
                      ctx: Context | None = None) -> ScanResult:
    """Scan trajectory files (or folders of them) and return the verdict with findings."""
    from gavelkit.task import prefilter
    from gavelkit.task import trajectory as traj

    ctx = ctx or build_context(task_dir, package, forbid, workspace, rules, upstream, home)
    matcher = prefilter.Matcher(ctx.anchors, engine)
    findings: list[Finding] = []
    files: list[dict[str, Any]] = []
    if not paths:
        findings.append(_finding("CHT-U001", "error", "no transcript given: the run cannot be "
                                 "verified", "", unusable=True))
    missing = [p for p in paths if not os.path.exists(p)]
    for p in missing:
        findings.append(_finding("CHT-U001", "error", "transcript not found", p, unusable=True))
    present = [p for p in paths if os.path.exists(p)]
    expanded = traj.expand(present)
    if present and not expanded:
        findings.append(_finding("CHT-U001", "error", "no transcript files (*.jsonl, *.json, "
                                 "*.traj, *.eval) in the given folder(s)", present[0],
                                 unusable=True))
    for path in expanded:
        info: dict[str, Any] = {"path": path, "format": None, "events": 0}
        files.append(info)
        try:
            _scan_file(path, ctx, matcher, thorough, info, findings)
        except OSError as exc:
            findings.append(_finding("CHT-U001", "error", f"cannot read: {exc.strerror or exc}",
                                     path, unusable=True))
    total_events = sum(f.get("events", 0) + int(f.get("tool_calls_seen", False)) for f in files)
    if paths and not missing and files and total_events == 0 and not any(
            f.unusable for f in findings):
        findings.append(_finding("CHT-U004", "error", "the transcripts contain no agent events "
                                 "(no tool calls or commands): nothing can be verified",
                                 files[0]["path"], unusable=True))
    cheat = any(f.severity == "error" and not f.unusable for f in findings)
    unverifiable = any(f.unusable for f in findings)
    verdict = CHEAT if cheat else UNVERIFIABLE if unverifiable else CLEAN
    return ScanResult(verdict, findings, files, matcher.engine)


def _infer_workspace(ev: Event) -> str | None:
    if ev.cwd and ev.cwd.count("/") >= 2 and ev.cwd.rstrip("/") not in ("/root", "/tmp", "/home"):
        return ev.cwd.rstrip("/")
    return None


def _emit(ev: Event, an: Analyzer, path: str, findings: list[Finding], info: dict[str, Any]) -> None:
    info["events"] += 1
    if not an.workspace and not an.ctx.workspaces:
        ws = _infer_workspace(ev)
        if ws:
            an.workspace = [ws]
            info["workspace"] = ws
    for h in an.analyse(ev):
        excerpt = ev.excerpt()
        # JSONL: the line is the locator (prefiltered files do not number skipped events);
        # single-document formats: the event index in the file's event stream
        f = _finding(h.code, h.severity, h.message, path, ev.line,
                     event=None if ev.line else ev.index, where=ev.where, actor=ev.actor,
                     tool=ev.tool, access=h.access, excerpt=excerpt, target=h.target)
        loc = f"line {ev.line}" if ev.line else f"event #{ev.index}"
        f.hint = f"{loc}{' (' + ev.where + ')' if ev.where else ''}: {excerpt}"
        findings.append(f)


def _scan_file(path: str, ctx: Context, matcher: Any, thorough: bool, info: dict[str, Any],
               findings: list[Finding]) -> None:
    from gavelkit.task import prefilter
    from gavelkit.task import trajectory as traj
    from gavelkit.task.trajectory.events import loads

    size = os.path.getsize(path)
    info["bytes"] = size
    if size == 0 or not _has_content(path):
        findings.append(_finding("CHT-U001", "error", "transcript is empty", path, unusable=True))
        return
    fmt = traj.detect(path)
    an = Analyzer(ctx)
    if fmt == "inspect-eval":
        info["format"] = fmt
        from gavelkit.task.trajectory import inspectlog

        try:
            for ev in inspectlog.eval_archive_events(path):
                _emit(ev, an, path, findings, info)
        except inspectlog.ArchiveError as exc:
            findings.append(_finding("CHT-U002", "error", f"cannot read .eval archive: {exc}",
                                     path, unusable=True))
        return
    if fmt in traj.JSONL_FORMATS:
        info["format"] = fmt
        norm = traj.normaliser(fmt)
        local = prefilter.Matcher(list(ctx.anchors) + list(getattr(norm, "anchors", ())),
                                  matcher.engine)
        stats = prefilter.LineStats()
        every = thorough or ctx.every_line or fmt == "openhands"
        markers = getattr(norm, "markers", ())
        # outputs are checked for surface/content only on lines that contain such a name
        out_lits = [x.encode() for x in ctx.surface_lits] + [x.encode() for x in ctx.sig_files]
        out_matcher = prefilter.Matcher(out_lits, matcher.engine) if out_lits else None
        for line_no, raw in prefilter.hit_lines(path, local, every, stats, markers=markers):
            an.check_outputs = out_matcher is not None and bool(
                out_matcher.line_starts(raw, len(raw)))
            try:
                obj = loads(raw)
            except ValueError:
                last = stats.last_line_unterminated and line_no >= 1
                findings.append(_finding("CHT-U003", "warning",
                                         "line is not valid JSON (truncated or corrupt); "
                                         "its content was not checked"
                                         + (" — the file ends mid-line" if last else ""),
                                         path, line_no, excerpt=raw[:120].decode("utf-8", "replace")))
                continue
            for ev in norm.feed(obj, line_no):
                _emit(ev, an, path, findings, info)
        info["lines"] = stats.lines
        for ln in stats.overlong or []:
            findings.append(_finding("CHT-U003", "warning", "line longer than the "
                                     f"{prefilter.MAX_LINE}-byte limit was skipped", path, ln))
        if not every:
            # lines without anchors were not normalised; note whether tool calls exist
            info["events_parsed"] = info["events"]
            info["tool_calls_seen"] = bool(info["events"] or stats.markers)
        bad = [f for f in findings if f.path == path and f.code == "CHT-U003"]
        if stats.lines and len(bad) >= stats.lines:
            findings.append(_finding("CHT-U002", "error", "no line of this JSONL transcript is "
                                     "valid JSON", path, unusable=True))
        return
    # JSON documents
    if size > MAX_DOC:
        findings.append(_finding("CHT-U002", "error", f"single JSON document of {size} bytes is "
                                 f"over the {MAX_DOC}-byte limit (GAVEL_SCAN_MAX_DOC)", path,
                                 unusable=True))
        return
    with open(path, "rb") as fh:
        raw = fh.read()
    try:
        doc = loads(raw.lstrip(b"\xef\xbb\xbf"))
    except ValueError as exc:
        findings.append(_finding("CHT-U002", "error", f"not valid JSON and not JSONL of a known "
                                 f"agent format: {exc}", path, unusable=True))
        return
    dfmt = traj.document_format(doc)
    if dfmt is None:
        findings.append(_finding("CHT-U002", "error", "JSON of no known trajectory format "
                                 "(Claude Code, Codex, OpenHands, SWE-agent, mini-swe-agent, "
                                 "inspect_ai)", path, unusable=True))
        return
    info["format"] = dfmt
    for ev in traj.document_events(dfmt, doc):
        _emit(ev, an, path, findings, info)


def _has_content(path: str) -> bool:
    with open(path, "rb") as fh:
        while True:
            chunk = fh.read(1 << 16)
            if not chunk:
                return False
            if chunk.strip(b" \t\r\n\xef\xbb\xbf"):
                return True
