"""Per-program knowledge: which arguments of find, git, python and others are paths,
and the command rules (installing or fetching the target, git history, probes)."""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Iterable
from typing import Any

from gavelkit.task.anticheat.places import _norm
from gavelkit.task.anticheat.rules import (
    _GLOBCH,
    _PROBE_PY,
    _SHA,
    _URL,
    _WORD,
    PATTERN_FIRST,
    CommandRule,
    Hit,
)
from gavelkit.task.anticheat.shell import SimpleCommand, resolve_path


class ProgramPaths:
    """Mixin of Analyzer: the path arguments of find, git and python, and python -c."""

    ctx: Any
    cwd: str | None

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


class CommandRules:
    """Mixin of Analyzer: the command rules of the data file."""

    ctx: Any

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
