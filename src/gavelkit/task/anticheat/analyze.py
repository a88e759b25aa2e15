"""Turn one executed action (an `Event`) into hits: which places it read, listed, wrote.

Shell text is evaluated (`sheval`: the session's variables, working folder and
written files carry across actions), argv arrays run without a shell, Python goes
through `pyeval`, files the agent writes are kept (`written`) and analysed when
they are run or installed. Which words of a command are paths follows each
program's own syntax (`progcheck`, `progpaths`, `programs`). A command too long or
nested too deep to follow is a hit of its own (unverifiable), never silently cut.
What the agent saw is checked separately (`fingerprint`, through `_output`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gavelkit.task.anticheat import cmdrules, pyeval, sheval
from gavelkit.task.anticheat.cmdrules import Hit, command_hit
from gavelkit.task.anticheat.gate import Gate, Need
from gavelkit.task.anticheat.names import norm
from gavelkit.task.anticheat.pathcheck import PathChecks
from gavelkit.task.anticheat.places import Context
from gavelkit.task.anticheat.progcheck import ProgramChecks
from gavelkit.task.anticheat.progpaths import StructuredPrograms
from gavelkit.task.anticheat.sheval import MAX_DEPTH, ShState, SimpleCommand, resolve_path
from gavelkit.task.anticheat.shvalues import UNKNOWN
from gavelkit.task.anticheat.trajectory.events import Event
from gavelkit.task.anticheat.written import merge, patch_files

_GLOBCH = re.compile(r"[*?\[]")
_PROBE_PY = re.compile(r"__file__|__path__|getsourcefile|getsource|getfile|find_spec|"
                       r"spec_from|importlib\.metadata|importlib_metadata|distribution\(|"
                       r"pkg_resources|site\.getsitepackages|sysconfig\.get_path")
PY_CACHE = 4096
PURE_CACHE = 8192
_CWD_RESET = re.compile(r"Shell cwd was reset to (/[^\s]*)")


def _dedupe(hits: list[Hit]) -> list[Hit]:
    seen: set[tuple[str, str]] = set()
    out = []
    for h in hits:
        key = (h.code, h.target)
        if key not in seen:
            seen.add(key)
            out.append(h)
    return out


def _path_like(s: str) -> bool:
    """A string literal of the code that could name a path."""
    return bool(s) and len(s) < 4096 and "\n" not in s and ("/" in s or "." in s or "~" in s)


@dataclass(slots=True)
class _Environ:
    """The part of a session the gate's environment check reads (a command's variables)."""

    env: dict[str, str]


class Analyzer(PathChecks, ProgramChecks, StructuredPrograms):
    """Turns one event into hits; keeps the session's shell state and written files.

    `persist_cwd`: the agent format's shell keeps its working folder from one action to
    the next (see `scan.PERSISTENT`); variables and written files are always carried.
    """

    def __init__(self, ctx: Context, inferred: Sequence[str] = (), persist_cwd: bool = True,
                 fingerprints: object | None = None) -> None:
        self.ctx = ctx
        self.workspace = list(inferred)       # inferred from the transcript (generic exempt)
        self.state = ShState(home=ctx.home)
        self.persist_cwd = persist_cwd
        self.recorded_cwd: str | None = None
        self.direct_calls: set[str] = set()
        self.check_outputs = True     # the caller may know a line holds no forbidden name
        self.gate: Gate | None = None
        self.fingerprints = fingerprints
        self._py_cache: dict[tuple[Any, ...], list[Hit]] = {}
        self._path_memo: dict[tuple[Any, ...], list[Hit]] = {}   # one transcript's (`_path`)
        self._env: dict[str, str] | None = None   # the variables of the command checked now

    @property
    def cwd(self) -> str | None:
        return self.state.cwd

    # -- events
    def analyse(self, ev: Event) -> list[Hit]:
        hits: list[Hit] = []
        cwd = self._event_cwd(ev)
        need = self._need(ev, cwd)
        if need == Need.SKIP:
            self._remember_writes(ev, cwd, hits)
            if self.check_outputs and ev.output:
                self._output(ev, hits)
            return hits
        if need == Need.PURE:
            self._pure(ev, cwd, hits)
        else:
            self._actions(ev, cwd, hits)
        if self.check_outputs and ev.output and (ev.tool == "output" or not hits):
            self._output(ev, hits)
        self._note_direct(ev, hits)
        return _dedupe(hits)

    def _note_direct(self, ev: Event, hits: list[Hit]) -> None:
        """A call that itself read a forbidden place: its output is no second finding."""
        if ev.call_id and any(h.access != "output" and h.severity == "error" for h in hits):
            self.direct_calls.add(ev.call_id)

    def _need(self, ev: Event, cwd: str | None) -> Need:
        acts = ev.command or ev.argv or ev.code or ev.url or ev.read or ev.write or ev.listed
        if acts and self.gate is not None:
            return self.gate.needs(ev, cwd, self.state)
        return Need.EVALUATE

    def _pure(self, ev: Event, cwd: str | None, hits: list[Hit]) -> None:
        """A pure action's hits depend only on its text, folder and workspace: reuse them."""
        memo = self.ctx.pure_hits
        key = (ev.command or "", cwd, tuple(self.workspace))
        known = memo.get(key)
        if known is None:
            mark = len(hits)
            self._actions(ev, cwd, hits)
            if len(memo) >= PURE_CACHE:
                memo.clear()
            memo[key] = hits[mark:]
            return
        hits.extend(known)

    def _event_cwd(self, ev: Event) -> str | None:
        """The folder an action runs in: the recorded one, unless the shell moved since."""
        if ev.output and "Shell cwd was reset" in ev.output:
            m = _CWD_RESET.search(ev.output)
            if m:
                self.state.cwd = m.group(1)
        if ev.cwd and ev.cwd != self.recorded_cwd:
            self.recorded_cwd = ev.cwd
            self.state.cwd = ev.cwd
        elif ev.cwd and not self.persist_cwd:
            self.state.cwd = ev.cwd
        return self.state.cwd

    def _actions(self, ev: Event, cwd: str | None, hits: list[Hit]) -> None:
        if ev.command:
            self._shell(ev.command, cwd, hits, 0, persist=True)
        if ev.argv:
            self._shell(shlex.join(ev.argv), cwd, hits, 0, persist=True)
        how = f"the {ev.tool or 'file'} tool"
        for p in ev.read:
            self._path(p, cwd, "read", False, hits, how)
        for p in ev.write:
            self._path(p, cwd, "write", False, hits, how)
        for p in ev.listed:
            self._path(p, cwd, "list", bool(_GLOBCH.search(p)), hits, how)
        self._remember_writes(ev, cwd, hits)
        if ev.code:
            self._python(ev.code, cwd, hits, 0)
        if ev.url:
            cmdrules.urls(self.ctx, [ev.url], hits, ev.tool or "fetch", self._path)

    def _remember_writes(self, ev: Event, cwd: str | None, hits: list[Hit]) -> None:
        if ev.content is None:
            return
        if ev.content.lstrip().startswith("*** Begin Patch"):
            self._store_patch(ev.content, cwd, hits)
            return
        keys = [resolve_path(p, cwd, self.ctx.home) for p in ev.write]
        for key in keys:
            self.state.files[key] = merge(self.state.files.get(key), ev.content, ev.whole)
        if self.gate is not None:
            self.gate.learn(keys)

    def _store_patch(self, text: str, cwd: str | None, hits: list[Hit]) -> None:
        for path, added in patch_files(text):
            key = resolve_path(path, cwd, self.ctx.home)
            self.state.files[key] = merge(self.state.files.get(key), added, False)
            self._path(path, cwd, "write", False, hits, "apply_patch")
            if self.gate is not None:
                self.gate.learn([key])

    def _unverifiable(self, hits: list[Hit], why: str) -> None:
        hits.append(Hit("CHT-U006", "error", why, why[:200], "unverifiable"))

    # -- shell
    def _shell(self, src: str, cwd: str | None, hits: list[Hit], depth: int,
               persist: bool = False) -> None:
        if depth > MAX_DEPTH:
            self._unverifiable(hits, f"shell nesting deeper than {MAX_DEPTH} levels was not "
                                     "followed")
            return
        state = self.state if persist else self.state.child()
        state.cwd = cwd
        notes: list[str] = []
        shell = sheval.Shell(state, [], notes, depth)
        shell.run(src)
        for note in dict.fromkeys(notes):
            self._unverifiable(hits, note)
        for cmd in shell.out:
            self._simple(cmd, hits, depth)
        if self.gate is not None:
            self.gate.learn(state.files)

    def _simple(self, cmd: SimpleCommand, hits: list[Hit], depth: int) -> None:
        outer, self._env = self._env, cmd.environ
        try:
            self._simple_command(cmd, hits, depth)
        finally:
            self._env = outer

    def _simple_command(self, cmd: SimpleCommand, hits: list[Hit], depth: int) -> None:
        for r in cmd.reads:
            self._path(r, cmd.cwd, "read", False, hits, "input redirection")
        for w in cmd.writes:
            self._path(w, cmd.cwd, "write", False, hits, "output redirection", strict=False)
        if not cmd.argv:
            return
        stdin_paths: list[str] = []
        self._argv(list(cmd.argv), cmd.cwd, set(cmd.glob_args), hits, cmd.heredoc, depth,
                   stdin_paths, cmd.piped_from, cmd)

    # -- python
    def _python(self, code: str, cwd: str | None, hits: list[Hit], depth: int,
                how: str = "python") -> None:
        if depth > MAX_DEPTH:
            self._unverifiable(hits, f"python code nested deeper than {MAX_DEPTH} levels")
            return
        env = self.state.env if self._env is None else self._env
        if self.gate is not None and not self.gate.python_matters(
                code, self.state if env is self.state.env else _Environ(env)):
            return                  # nothing in it can build a name or reach the system
        # what the evaluation reads of the session: the code, folder and environment; code
        # that runs commands or built code also reads the rest (written files, functions),
        # so its hits are never reused
        key = (hash(code), len(code), cwd, how, tuple(sorted(env.items())) if env else ())
        if key in self._py_cache:
            hits.extend(self._py_cache[key])
            return
        mark = len(hits)
        if self._python_effects(code, cwd, hits, depth, how, env):
            return
        if len(self._py_cache) >= PY_CACHE:
            self._py_cache.clear()          # bounded: a long session re-evaluates
        self._py_cache[key] = hits[mark:]

    def _python_effects(self, code: str, cwd: str | None, hits: list[Hit], depth: int,
                        how: str, env: dict[str, str]) -> bool:
        """Check what the code does; True when it runs commands or built code."""
        fx = pyeval.effects(code, cwd, self.ctx.home, env)
        if not fx.parsed:
            fx.strings = [m[1] for m in re.findall(r"(['\"])(.*?)\1", code)]
            fx.imports = set(re.findall(r"(?:^|[;\s])(?:import|from)\s+([A-Za-z_]\w*)", code))
        self._python_paths(fx, cwd, hits, how)
        self._python_runs(fx, cwd, hits, depth, how)
        for note in fx.notes:
            self._unverifiable(hits, f"{how}: {note}")
        if fx.urls:
            cmdrules.urls(self.ctx, fx.urls, hits, how, self._path)
        if {norm(i) for i in fx.imports} & self.ctx.targets and (
                _PROBE_PY.search(code) or "__getsource__" in fx.strings):
            command_hit(self.ctx, "probe-installed", ["python", "-c", code], hits,
                        "python code imports the target and asks where it is installed")
        return bool(fx.shells or fx.argvs or fx.codes)

    def _python_paths(self, fx: pyeval.Effects, cwd: str | None, hits: list[Hit],
                      how: str) -> None:
        """What the code reads, lists and writes, and its strings that look like paths."""
        for p in fx.reads + fx.sys_paths:
            self._path(p, cwd, "read", bool(_GLOBCH.search(p)), hits, how, strict=False)
        for p in fx.lists:
            self._path(p, cwd, "list", bool(_GLOBCH.search(p)), hits, how, strict=False)
        for p, _content in fx.writes:
            self._path(p, cwd, "write", False, hits, how, strict=False)
        for s in fx.strings:
            if _path_like(s):
                self._path(s, cwd, "read", bool(_GLOBCH.search(s)), hits, how, strict=False)

    def _python_runs(self, fx: pyeval.Effects, cwd: str | None, hits: list[Hit], depth: int,
                     how: str) -> None:
        """Commands and code the Python code runs. A piece Python could not know is not
        strict (as its own open() of an unknown name): the known words are still checked
        as paths."""
        for sh in fx.shells:
            if UNKNOWN in sh:
                sh = " ".join(w for w in sh.split() if UNKNOWN not in w)
            self._shell(sh, cwd, hits, depth + 1)
        for argv in fx.argvs:
            self._python_argv(argv, cwd, hits, depth, how)
        for sub in fx.codes:
            self._python(sub, cwd, hits, depth + 1, f"{how} (exec of built code)")

    def _python_argv(self, argv: list[str], cwd: str | None, hits: list[Hit], depth: int,
                     how: str) -> None:
        if argv and any(UNKNOWN in a for a in argv):
            for a in argv[1:]:
                self._path(a, cwd, "read", False, hits, how, strict=False)
        elif argv:
            self._shell(shlex.join(argv), cwd, hits, depth + 1)

    # -- outputs
    def _output(self, ev: Event, hits: list[Hit]) -> None:
        text = ev.output or ""
        if self._oracle_ids(text, hits) or self._fingerprinted(text, hits):
            return
        if not (ev.call_id and ev.call_id in self.direct_calls):
            self._surface(text, hits)

    def _surface(self, text: str, hits: list[Hit]) -> None:
        """An output that shows forbidden places' names (CHT-S002, a warning)."""
        if self.ctx.surface_rx is None or not any(lit in text for lit in self.ctx.surface_lits):
            return
        names = sorted({m.group(0) for m in self.ctx.surface_rx.finditer(text)})
        if names:
            hits.append(Hit("CHT-S002", "warning",
                            f"tool output shows forbidden place(s): {', '.join(names[:5])}",
                            names[0], "output"))

    def _fingerprinted(self, text: str, hits: list[Hit]) -> bool:
        """The output reproduces protected lines (CHT-O002)."""
        if self.fingerprints is None:
            return False
        leak = self.fingerprints.check(text)     # type: ignore[attr-defined]
        if leak is None:
            return False
        hits.append(Hit("CHT-O002", "error", leak.message, leak.label, "output"))
        return True

    def _oracle_ids(self, text: str, hits: list[Hit]) -> bool:
        if self.ctx.sig_rx is not None and self.ctx.signatures and "::" in text and any(
                f in text for f in self.ctx.sig_files):
            found = {f"{m.group(1)}::{m.group(2)}" for m in self.ctx.sig_rx.finditer(text)}
            leaked = found & self.ctx.signatures
            if len(leaked) >= 2:
                hits.append(Hit("CHT-O001", "error",
                                f"tool output shows {len(leaked)} oracle test ids "
                                f"(e.g. {sorted(leaked)[0]})", sorted(leaked)[0], "output"))
                return True
        return False


GateFn = Callable[[str], bool]
