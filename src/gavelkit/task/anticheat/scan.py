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

Shell commands are parsed (`gavelkit.task.anticheat.shell`), Python snippets are parsed
with `ast`, and every path is resolved against the event's working directory.
Reading a forbidden place is direct access (error → CHEAT_DETECTED); listing it
(`ls`, `find`, Glob) or seeing its name in a tool output is observed surface
(warning). The agent's own workspace is exempt from the generic patterns. A
transcript that is missing, empty or unparseable makes the verdict UNVERIFIABLE,
never CLEAN.

Speed: JSONL transcripts are streamed block by block; only lines containing one
of the rules' literal anchors are parsed (`gavelkit.task.anticheat.prefilter`, google-re2
when importable). `thorough=True` parses every line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gavelkit.core.findings import Finding

# --------------------------------------------------------------------------- driver
from gavelkit.task.anticheat.analyzer import Analyzer
from gavelkit.task.anticheat.places import Context, build_context
from gavelkit.task.anticheat.rules import CHEAT, CLEAN, MAX_DOC, UNVERIFIABLE
from gavelkit.task.anticheat.trajectory.events import Event


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
                      ctx: Context | None = None,
                      progress: Callable[[int, int], None] | None = None) -> ScanResult:
    """Scan trajectory files (or folders of them) and return the verdict with findings.

    `progress(done_bytes, total_bytes)`, when given, is called as the files are read.
    """
    from gavelkit.task.anticheat import prefilter
    from gavelkit.task.anticheat import trajectory as traj

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
    sizes = {p: os.path.getsize(p) for p in expanded if os.path.isfile(p)}
    total, done = sum(sizes.values()), 0
    for path in expanded:
        info: dict[str, Any] = {"path": path, "format": None, "events": 0}
        files.append(info)
        tick = None
        if progress is not None:
            base = done

            def tick(n: int, base: int = base) -> None:
                progress(base + n, total)
        try:
            _scan_file(path, ctx, matcher, thorough, info, findings, tick)
        except OSError as exc:
            findings.append(_finding("CHT-U001", "error", f"cannot read: {exc.strerror or exc}",
                                     path, unusable=True))
        done += sizes.get(path, 0)
        if progress is not None:
            progress(done, total)
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
               findings: list[Finding], tick: Callable[[int], None] | None = None) -> None:
    from gavelkit.task.anticheat import prefilter
    from gavelkit.task.anticheat import trajectory as traj
    from gavelkit.task.anticheat.trajectory.events import loads

    size = os.path.getsize(path)
    info["bytes"] = size
    if size == 0 or not _has_content(path):
        findings.append(_finding("CHT-U001", "error", "transcript is empty", path, unusable=True))
        return
    fmt = traj.detect(path)
    an = Analyzer(ctx)
    if fmt == "inspect-eval":
        info["format"] = fmt
        from gavelkit.task.anticheat.trajectory import inspectlog

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
        stats.on_block = tick
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
