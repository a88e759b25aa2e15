"""Forbidden commands whatever path they touch: install, fetch, git history, probes.

Each check takes the parsed argv of one simple command and appends hits; the
rules themselves (programs, verbs, flags) are data in anticheat_rules.toml.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gavelkit.task.anticheat.places import Context, norm
from gavelkit.task.anticheat.rules import CommandRule
from gavelkit.task.anticheat.sheval import SimpleCommand

URL = re.compile(r"(?:https?://|git@|ssh://|git://|git\+https?://)[^\s'\"<>]+", re.I)
_SHA = re.compile(r"^[0-9a-f]{7,40}(?:[~^]\d*)*(?::.*)?$")
_ARCHIVE = re.compile(r"^([a-z0-9_.]+?)-v?\d[\w.!+-]*\.(?:tar\.gz|tgz|zip|whl|tar\.bz2|tar\.xz|"
                      r"egg)$")
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_INSTALL_VALUE_OPTS = {
    "-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url", "-t",
    "--target", "-f", "--find-links", "--prefix", "--root", "--python", "-p", "--channel",
    "--platform", "--python-version", "--only-binary", "--no-binary", "-d", "--dest",
    "--group", "-n", "--name", "--src", "--cache-dir", "--index", "--default-index", "--with"}


@dataclass(slots=True)
class Hit:
    code: str
    severity: str
    message: str
    target: str
    access: str       # read | list | write | command | output | unverifiable


PathFn = Callable[[str, "str | None", str, bool, "list[Hit]", str], None]


def command_hit(ctx: Context, rule_id: str, argv: list[str], hits: list[Hit],
                detail: str = "") -> None:
    rule = next((r for r in ctx.commands if r.id == rule_id), None)
    if rule is None:
        return
    joined = " ".join(argv)
    hits.append(Hit(rule.code, rule.severity, f"{rule.what}: {detail or joined[:200]}",
                    joined[:200], "command"))


def check(ctx: Context, prog: str, argv: list[str], cwd: str | None, hits: list[Hit],
          piped_from: SimpleCommand | None, path_fn: PathFn) -> None:
    """Apply every command rule to one simple command."""
    words = [a for a in argv[1:] if not a.startswith("-")]
    joined = " ".join(argv)
    for rule in ctx.commands:
        if rule.kind == "argv":
            if rule.pattern is not None and rule.pattern.search(joined):
                hits.append(Hit(rule.code, rule.severity, f"{rule.what}: {joined[:200]}",
                                joined[:200], "command"))
        elif rule.kind == "install" and prog in rule.programs:
            _install(ctx, rule, prog, argv, words, cwd, hits, path_fn)
        elif rule.kind == "probe" and prog in rule.programs:
            if words[:1] and words[0] in rule.verbs and any(
                    norm(w) in ctx.targets for w in words[1:]) and (
                    not rule.flags or any(a in rule.flags for a in argv[1:])):
                hits.append(Hit(rule.code, rule.severity, f"{rule.what}: {joined[:200]}",
                                joined[:200], "command"))
        elif rule.kind == "probe" and not rule.flags and prog in ("grep", "rg", "egrep") and \
                piped_from and piped_from.argv and \
                posixpath.basename(piped_from.argv[0]) in rule.programs:
            if any(norm(w) in ctx.targets for w in words[:1]):
                hits.append(Hit(rule.code, rule.severity,
                                f"{rule.what}: {' '.join(piped_from.argv)} | {joined}"[:240],
                                joined[:200], "command"))
        elif rule.kind == "git" and prog == "git":
            _git(ctx, rule, argv, hits)
        elif rule.kind == "fetch" and ("*" in rule.programs or prog in rule.programs):
            for a in argv[1:]:
                for url in URL.findall(a):
                    if upstream_url(ctx, url):
                        hits.append(Hit(rule.code, rule.severity,
                                        f"{rule.what}: {joined[:200]}", url, "command"))


def _install(ctx: Context, rule: CommandRule, prog: str, argv: list[str], words: list[str],
             cwd: str | None, hits: list[Hit], path_fn: PathFn) -> None:
    verb_at = next((i for i, w in enumerate(words[:3]) if w in rule.verbs), None)
    if verb_at is None:
        return
    joined = " ".join(argv)
    for t in _install_targets(argv, words[verb_at]):
        if URL.match(t):
            if upstream_url(ctx, t):
                hits.append(Hit(rule.code, rule.severity, f"{rule.what}: {joined[:200]}", t,
                                "command"))
        elif "/" in t or t.startswith("."):
            path_fn(t, cwd, "read", False, hits, f"{prog} {words[verb_at]}")
        else:
            m = WORD.match(t)
            if m and norm(m.group(0)) in ctx.targets:
                hits.append(Hit(rule.code, rule.severity, f"{rule.what}: {joined[:200]}",
                                m.group(0), "command"))


def _install_targets(argv: list[str], verb: str) -> list[str]:
    out: list[str] = []
    seen_verb = False
    i = 1
    while i < len(argv):
        a = argv[i]
        if not seen_verb:
            seen_verb = a == verb
            i += 1
            continue
        if a in _INSTALL_VALUE_OPTS:
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


def _git(ctx: Context, rule: CommandRule, argv: list[str], hits: list[Hit]) -> None:
    args = argv[1:]
    k = 0
    while k < len(args) and args[k].startswith("-"):
        k += 2 if args[k] in ("-C", "-c", "--git-dir", "--work-tree") else 1
    if k >= len(args):
        return
    verb, rest = args[k], args[k + 1:]
    why = ""
    if verb in rule.verbs:
        why = f"git {verb}"
    elif verb in rule.flag_verbs and any(_git_flag(a, rule.flags, verb) for a in rest):
        why = f"git {verb} across all refs"
    elif verb in rule.sha_verbs:
        for a in rest:
            low = a.lower()
            if a.startswith("-"):
                continue
            head = low.split(":")[0]
            if _SHA.match(low) and re.search(r"\d", head) and re.search(r"[a-f]", head):
                why = f"git {verb} of commit {a.split(':')[0]}"
                break
            if any(c in low for c in ctx.commits):
                why = f"git {verb} of the upstream commit"
                break
    if why and verb != "clone":
        hits.append(Hit(rule.code, rule.severity, f"{rule.what}: {' '.join(argv)[:200]}", why,
                        "command"))


def _git_flag(a: str, flags: list[str], verb: str) -> bool:
    """Is `a` one of the history flags? -a/-r mean "all/remote branches" only for git
    branch; the pickaxe takes its string attached (`-Sname`) or as `--grep=x`."""
    if a in flags:
        return a not in ("-a", "-r") or verb == "branch"
    if any(a.startswith(f + "=") for f in flags if f.startswith("--")):
        return True
    return a[:2] in ("-S", "-G") and len(a) > 2 and a[:2] in flags and verb in ("log", "show",
                                                                                "diff")


def _norm_url(u: str) -> str:
    return re.sub(r"(?<=/)([a-z0-9._-]+)", lambda m: norm(m.group(1)) if "." not in m.group(1)
                  or m.group(1).endswith((".git",)) else m.group(1), u)


def upstream_url(ctx: Context, url: str) -> bool:
    low = url.lower().rstrip("/")
    for owner, name in ctx.upstreams:
        for host in ("github.com", "gitlab.com", "bitbucket.org", "codeload.github.com",
                     "raw.githubusercontent.com", "api.github.com/repos"):
            for sep in ("/", ":"):
                stem = f"{host}{sep}{owner}/{name}"
                if stem in low and re.search(re.escape(stem) + r"(?:\.git)?(?:[/#?@]|$)", low):
                    return True
    for t in ctx.targets:
        if re.search(rf"pypi\.(?:org|python\.org)/(?:project|simple|pypi)/{re.escape(t)}(?:[/#?]|$)",
                     _norm_url(low)):
            return True
        if "pythonhosted.org/" in low:
            fname = low.rsplit("/", 1)[-1]
            if norm(fname.split("-")[0]) == t:
                return True
        m = _ARCHIVE.match(low.split("?", 1)[0].split("#", 1)[0].rsplit("/", 1)[-1])
        if m and norm(m.group(1)) == t:
            return True         # the target's sdist or wheel, from whatever host
        if not ctx.upstreams and re.search(
                rf"github\.com[/:][\w.-]+/{re.escape(t)}(?:\.git)?(?:[/#?]|$)", _norm_url(low)):
            return True
    return False


def urls(ctx: Context, found: Iterable[str], hits: list[Hit], how: str, path_fn: PathFn) -> None:
    rule = next((r for r in ctx.commands if r.kind == "fetch"), None)
    if rule is None:
        return
    for u in found:
        if upstream_url(ctx, u):
            hits.append(Hit(rule.code, rule.severity, f"{rule.what}: {how} {u}", u, "command"))
        elif u.startswith("file://"):
            path_fn(u[7:], None, "read", False, hits, how)
