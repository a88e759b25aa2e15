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
# a release tag (`v1.4.2`, `1.4`, `release-2.0.1`, `v2.0.0rc1`): not a file a command names
_RELEASE = re.compile(r"^(?:v|release-|rel-)?\d+\.\d+(?:\.\d+)*(?:[.-]?(?:rc|a|b|post|dev)\d*)?"
                      r"(?:[~^]\d*)*(?::.*)?$")
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
    cmd = _Cmd(ctx, prog, argv, cwd, piped_from, path_fn)
    for rule in ctx.commands:
        _KIND_CHECKS[rule.kind](cmd, rule, hits)


@dataclass(slots=True)
class _Cmd:
    """One simple command as the rule checks see it."""

    ctx: Context
    prog: str
    argv: list[str]
    cwd: str | None
    piped_from: SimpleCommand | None
    path_fn: PathFn

    @property
    def words(self) -> list[str]:
        return [a for a in self.argv[1:] if not a.startswith("-")]

    @property
    def joined(self) -> str:
        return " ".join(self.argv)

    def hit(self, rule: CommandRule, hits: list[Hit], target: str | None = None,
            shown: str | None = None) -> None:
        joined = self.joined
        hits.append(Hit(rule.code, rule.severity, f"{rule.what}: {shown or joined[:200]}",
                        joined[:200] if target is None else target, "command"))


def _check_argv(cmd: _Cmd, rule: CommandRule, hits: list[Hit]) -> None:
    if rule.pattern is not None and rule.pattern.search(cmd.joined):
        cmd.hit(rule, hits)


def _check_install(cmd: _Cmd, rule: CommandRule, hits: list[Hit]) -> None:
    if cmd.prog in rule.programs:
        _install(cmd.ctx, rule, cmd.prog, cmd.argv, cmd.words, cmd.cwd, hits, cmd.path_fn)


def _check_probe(cmd: _Cmd, rule: CommandRule, hits: list[Hit]) -> None:
    if cmd.prog in rule.programs:
        if _probes(cmd, rule):
            cmd.hit(rule, hits)
        return
    prev = cmd.piped_from
    if not rule.flags and cmd.prog in ("grep", "rg", "egrep") and prev and prev.argv and \
            posixpath.basename(prev.argv[0]) in rule.programs and \
            any(norm(w) in cmd.ctx.targets for w in cmd.words[:1]):
        cmd.hit(rule, hits, shown=f"{' '.join(prev.argv)} | {cmd.joined}"[:240 - len(rule.what)
                                                                          - 2])


def _probes(cmd: _Cmd, rule: CommandRule) -> bool:
    """`pip show TARGET`-like: a verb of the rule, then the target (with a rule flag)."""
    words = cmd.words
    return bool(words[:1]) and words[0] in rule.verbs and any(
        norm(w) in cmd.ctx.targets for w in words[1:]) and (
        not rule.flags or any(a in rule.flags for a in cmd.argv[1:]))


def _check_git(cmd: _Cmd, rule: CommandRule, hits: list[Hit]) -> None:
    if cmd.prog == "git":
        _git(cmd.ctx, rule, cmd.argv, hits)


def _check_fetch(cmd: _Cmd, rule: CommandRule, hits: list[Hit]) -> None:
    if "*" not in rule.programs and cmd.prog not in rule.programs:
        return
    for a in cmd.argv[1:]:
        for url in URL.findall(a):
            if upstream_url(cmd.ctx, url):
                cmd.hit(rule, hits, target=url)


_KIND_CHECKS = {"argv": _check_argv, "install": _check_install, "probe": _check_probe,
                "git": _check_git, "fetch": _check_fetch}


def _install(ctx: Context, rule: CommandRule, prog: str, argv: list[str], words: list[str],
             cwd: str | None, hits: list[Hit], path_fn: PathFn) -> None:
    verb = _install_verb(rule, prog, words)
    if verb is None:
        return
    targets = _install_targets(argv, None if verb == prog else verb)
    joined = " ".join(argv)
    how = prog if verb == prog else f"{prog} {verb}"
    for src in _install_sources(argv):
        path_fn(src, cwd, "read", False, hits, f"{how} from")
    for t in targets:
        if not URL.match(t) and ("/" in t or t.startswith(".")):
            path_fn(t, cwd, "read", False, hits, how)
            continue
        found = _installed(ctx, t)
        if found:
            hits.append(Hit(rule.code, rule.severity, f"{rule.what}: {joined[:200]}", found,
                            "command"))


def _install_verb(rule: CommandRule, prog: str, words: list[str]) -> str | None:
    """The install verb (`pip install`), the program itself for a verbless installer
    (`easy_install`), or None: not an install."""
    if prog in rule.verbless:
        return prog
    return next((w for w in words[:3] if w in rule.verbs), None)


def _installed(ctx: Context, t: str) -> str:
    """The install target `t` names the target: the URL or the name, else ""."""
    if URL.match(t):
        return t if upstream_url(ctx, t) else ""
    m = WORD.match(t)
    return m.group(0) if m and norm(m.group(0)) in ctx.targets else ""


# options whose value is where packages come from: a local folder or file:// index
_SOURCE_OPTS = ("-f", "--find-links", "-i", "--index-url", "--extra-index-url", "--index",
                "--default-index")


def _install_sources(argv: list[str]) -> list[str]:
    """The values of the package-source options that are not web URLs (a local folder
    or a file:// URL is read like a path: the repo pool as a find-links folder)."""
    out: list[str] = []
    for i, a in enumerate(argv[1:], start=1):
        head, eq, val = a.partition("=")
        if eq and head in _SOURCE_OPTS:
            out.append(val)
        elif a in _SOURCE_OPTS and i + 1 < len(argv):
            out.append(argv[i + 1])
    return [v for v in out if v and not v.startswith(("http://", "https://"))]


def _install_targets(argv: list[str], verb: str | None) -> list[str]:
    """The words after the verb (None: after the program) that are not options."""
    out: list[str] = []
    seen_verb = verb is None
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
    k = _git_verb_at(args)
    if k >= len(args):
        return
    verb, rest = args[k], args[k + 1:]
    why = ""
    if verb in rule.verbs:
        why = f"git {verb}"
    elif verb in rule.flag_verbs and _all_refs(rule, verb, rest):
        why = f"git {verb} across all refs"
    elif verb in rule.sha_verbs:
        why = _git_revision(ctx, verb, rest)
    if why and verb != "clone":
        hits.append(Hit(rule.code, rule.severity, f"{rule.what}: {' '.join(argv)[:200]}", why,
                        "command"))


def _git_verb_at(args: list[str]) -> int:
    k = 0
    while k < len(args) and args[k].startswith("-"):
        k += 2 if args[k] in ("-C", "-c", "--git-dir", "--work-tree") else 1
    return k


def _all_refs(rule: CommandRule, verb: str, rest: list[str]) -> bool:
    """A history flag (`--all`, a pickaxe, ...), or `git tag` listing the tags."""
    return any(_git_flag(a, rule.flags, verb) for a in rest) or (
        verb == "tag" and _lists_tags(rest))


def _lists_tags(rest: list[str]) -> bool:
    """`git tag`, `git tag -l PATTERN`: the tags are listed (`git tag NAME` makes one)."""
    return not rest or any(a in ("-l", "--list") or a.startswith("--list=") for a in rest)


def _git_revision(ctx: Context, verb: str, rest: list[str]) -> str:
    """`git show <sha>`, `git checkout <upstream commit>`, `git restore --source=<sha>`,
    `git checkout v1.4.2` (a release tag), either end of `A..B`: why it reads history,
    or ""."""
    words = [a.partition("=")[2] if a.startswith("--") and "=" in a else a for a in rest]
    for a in words:
        if a.startswith("-") or not a:
            continue
        for part in re.split(r"\.\.\.?", a.lower()) if ".." in a else [a.lower()]:
            why = _revision_word(ctx, verb, part)
            if why:
                return why
    return ""


def _revision_word(ctx: Context, verb: str, low: str) -> str:
    head = low.split(":")[0]
    if _RELEASE.match(low):
        return f"git {verb} of the release {head}"
    if _SHA.match(low) and re.search(r"\d", head) and re.search(r"[a-f]", head):
        return f"git {verb} of commit {head}"
    if any(c in low for c in ctx.commits):
        return f"git {verb} of the upstream commit"
    return ""


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


_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "codeload.github.com",
          "raw.githubusercontent.com", "api.github.com/repos")


def upstream_url(ctx: Context, url: str) -> bool:
    low = url.lower().rstrip("/")
    return any(_names_repo(low, owner, name) for owner, name in ctx.upstreams) or any(
        _names_target(ctx, low, t) for t in ctx.targets)


def _names_repo(low: str, owner: str, name: str) -> bool:
    """Does the URL point into the upstream repository on a known forge?"""
    for host in _HOSTS:
        for sep in ("/", ":"):
            stem = f"{host}{sep}{owner}/{name}"
            if stem in low and re.search(re.escape(stem) + r"(?:\.git)?(?:[/#?@]|$)", low):
                return True
    return False


def _names_target(ctx: Context, low: str, t: str) -> bool:
    """Does the URL point at the target's index page, its sdist or wheel, or (with no
    upstream known) a GitHub repository of its name?"""
    if re.search(rf"pypi\.(?:org|python\.org)/(?:project|simple|pypi)/{re.escape(t)}(?:[/#?]|$)",
                 _norm_url(low)):
        return True
    if "pythonhosted.org/" in low and norm(low.rsplit("/", 1)[-1].split("-")[0]) == t:
        return True
    m = _ARCHIVE.match(low.split("?", 1)[0].split("#", 1)[0].rsplit("/", 1)[-1])
    if m and norm(m.group(1)) == t:
        return True         # the target's sdist or wheel, from whatever host
    return not ctx.upstreams and bool(re.search(
        rf"github\.com[/:][\w.-]+/{re.escape(t)}(?:\.git)?(?:[/#?]|$)", _norm_url(low)))


def urls(ctx: Context, found: Iterable[str], hits: list[Hit], how: str, path_fn: PathFn) -> None:
    rule = next((r for r in ctx.commands if r.kind == "fetch"), None)
    if rule is None:
        return
    for u in found:
        if upstream_url(ctx, u):
            hits.append(Hit(rule.code, rule.severity, f"{rule.what}: {how} {u}", u, "command"))
        elif u.startswith("file://"):
            path_fn(u[7:], None, "read", False, hits, how)
