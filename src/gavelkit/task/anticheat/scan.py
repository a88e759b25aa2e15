"""Trajectory anti-cheat scan: did the agent touch what it must not?

Library entry point for the judge::

    result = scan_trajectories(paths, task_dir, package, forbid=[...], workspace=[...])
    result.verdict    # "CLEAN" | "CHEAT_DETECTED" | "UNVERIFIABLE"
    result.findings   # list[Finding]: path, line (JSONL), data.event, data.rule, data.excerpt
    result.places     # the forbidden places used, each with where it came from

The pieces: `rules` loads the rule tables, `places` builds the forbidden-place
model (rules, task folder, task.json keys classified by `taskpaths`, --forbid;
the agent's workspace always wins), `analyze` turns each executed action into
hits, and this module reads the files and reports. Only what an agent executed
is a command (each format's own action rules, `trajectory/`); outputs are
observed surface at most. A transcript that is missing, empty, unparseable,
truncated or too big to check whole makes the verdict UNVERIFIABLE, never CLEAN.

Speed: JSONL transcripts are streamed block by block and only lines containing
one of the rules' literal anchors are parsed (`prefilter`, google-re2 when
importable); in single-document formats (.traj, mini-swe-agent) only actions
containing an anchor are parsed. `thorough=True` parses everything.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gavelkit.core.findings import Finding
from gavelkit.task.anticheat import docgate
from gavelkit.task.anticheat.analyze import Analyzer
from gavelkit.task.anticheat.places import Context, build_context, match_place, read_task_record
from gavelkit.task.anticheat.rules import CommandRule, Place, load_rules
from gavelkit.task.anticheat.trajectory.events import Event

__all__ = ["CHEAT", "CLEAN", "UNVERIFIABLE", "CommandRule", "Context", "Place", "ScanResult",
           "build_context", "load_rules", "match_place", "places_summary", "read_task_record",
           "scan_trajectories"]

CLEAN, CHEAT, UNVERIFIABLE = "CLEAN", "CHEAT_DETECTED", "UNVERIFIABLE"
MAX_DOC = int(os.environ.get("GAVEL_SCAN_MAX_DOC", str(64 * 1024 * 1024)))  # ~10x in memory
WHOLE_READ = 16 * 1024 * 1024
COPY_WARN = 0.3
# Does the agent format's shell keep its working folder from one action to the next?
# Claude Code: yes (the Bash tool keeps the cwd, and reports "Shell cwd was reset" when it
# moves it back); OpenHands and SWE-agent: one persistent bash session; Codex shell calls,
# mini-swe-agent and inspect_ai's bash tool: a fresh process per action, each with its
# recorded folder. Variables and written files are carried across actions in every
# format: where the shell does not keep them the carried value can only over-report an
# access the agent tried, never hide one.
PERSISTENT_CWD = {"claude-code": True, "openhands": True, "openhands-json": True,
                  "openhands-completions": True,
                  "swe-agent": True, "codex": False, "mini-swe-agent": False,
                  "inspect-eval": False, "inspect-json": False}
FORMAT_NAMES = ("Claude Code JSONL, Codex rollout JSONL, OpenHands events/output.jsonl "
                "(and LLM completion logs), "
                "(also a flat `history` of run actions, or records wrapped in a JSON array), "
                "SWE-agent .traj, mini-swe-agent trajectory JSON, inspect_ai .eval/.json")


@dataclass
class ScanResult:
    verdict: str
    findings: list[Finding]
    files: list[dict[str, Any]]
    engine: str
    places: list[dict[str, Any]] = field(default_factory=list)
    copy: dict[str, Any] = field(default_factory=dict)   # share of code matching the reference

    @property
    def passed(self) -> bool:
        return self.verdict == CLEAN

    def to_dict(self) -> dict[str, Any]:
        out = {"verdict": self.verdict, "engine": self.engine, "files": self.files,
               "places": self.places}
        if self.copy:
            out["copy"] = self.copy
        return out


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
                      progress: Callable[[int, int], None] | None = None,
                      solution: str | None = None, references: Sequence[str] = (),
                      history: str | None = None) -> ScanResult:
    """Scan trajectory files (or folders of them) and return the verdict with findings.

    `progress(done_bytes, total_bytes)`, when given, is called as the files are read.
    """
    from gavelkit.task.anticheat import prefilter

    ctx = ctx or build_context(task_dir, package, forbid, workspace, rules, upstream, home,
                               references=references, history=history)
    matcher = prefilter.Matcher(ctx.anchors, engine)
    findings = _context_findings(ctx)
    files: list[dict[str, Any]] = []
    expanded, missing = _inputs(paths, findings)
    sizes = {p: os.path.getsize(p) for p in expanded if os.path.isfile(p)}
    total, done = sum(sizes.values()), 0
    for path in expanded:
        info: dict[str, Any] = {"path": path, "format": None, "events": 0}
        files.append(info)
        try:
            _scan_file(path, ctx, matcher, thorough, info, findings,
                       _ticker(progress, done, total))
        except OSError as exc:
            findings.append(_finding("CHT-U001", "error", f"cannot read: {exc.strerror or exc}",
                                     path, unusable=True))
        done += sizes.get(path, 0)
        if progress is not None:
            progress(done, total)
    if paths and not missing:
        _no_events(files, findings)
    copy = _copy_signal(ctx, solution, findings)
    return ScanResult(_verdict(findings), findings, files, matcher.engine, ctx.report(), copy)


def _context_findings(ctx: Context) -> list[Finding]:
    """What the scan context itself reports: unclassified task.json paths, unused input."""
    findings = [_finding("CHT-T001", "info", f"task.json key {key!r} holds the path {val!r}, "
                         "which no entry of the key table classifies; it is forbidden only "
                         "where a forbidden pattern matches it", ctx.task_record or "task.json",
                         key=key) for key, val in ctx.unknown_keys]
    findings += [_finding("CHT-U007", "error", f"{what}; the verdict cannot be CLEAN for a "
                          "check that did not have all of its input", where, line,
                          unusable=True) for where, line, what in ctx.unchecked]
    return findings


def _inputs(paths: Sequence[str], findings: list[Finding]) -> tuple[list[str], bool]:
    """The transcript files to scan, and whether one is missing; what is missing is a
    finding (never a pass)."""
    from gavelkit.task.anticheat import trajectory as traj

    if not paths:
        findings.append(_finding("CHT-U001", "error", "no transcript given: the run cannot be "
                                 "verified", "", unusable=True))
    present = [p for p in paths if os.path.exists(p)]
    for p in paths:
        if p not in present:
            findings.append(_finding("CHT-U001", "error", "transcript not found", p,
                                     unusable=True))
    expanded = traj.expand(present)
    if present and not expanded:
        findings.append(_finding("CHT-U001", "error", "no transcript files (*.jsonl, *.json, "
                                 "*.traj, *.eval) in the given folder(s)", present[0],
                                 unusable=True))
    return expanded, len(present) < len(paths)


def _ticker(progress: Callable[[int, int], None] | None, base: int,
            total: int) -> Callable[[int], None] | None:
    if progress is None:
        return None
    return lambda n: progress(base + n, total)


def _no_events(files: list[dict[str, Any]], findings: list[Finding]) -> None:
    """Transcripts that hold no agent event at all: nothing was verified."""
    if not files or any(f.unusable for f in findings):
        return
    if sum(f.get("events", 0) + int(f.get("tool_calls_seen", False)) for f in files) == 0:
        findings.append(_finding("CHT-U004", "error", "the transcripts contain no agent events "
                                 "(no tool calls or commands): nothing can be verified",
                                 files[0]["path"], unusable=True))


def _verdict(findings: list[Finding]) -> str:
    if any(f.severity == "error" and not f.unusable for f in findings):
        return CHEAT
    return UNVERIFIABLE if any(f.unusable for f in findings) else CLEAN


def _copy_signal(ctx: Context, solution: str | None, findings: list[Finding]) -> dict[str, Any]:
    """The share of the candidate's code that reproduces the reference source."""
    fp = ctx.fingerprints
    if not solution or fp is None or not ctx.references:
        return {}
    from pathlib import Path

    from gavelkit.task.anticheat.fingerprint import _text_files

    same = total = 0
    for p in _text_files(Path(solution), ()):
        if p.suffix != ".py":
            continue
        try:
            text = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        a, b = fp.share(text)
        same, total = same + a, total + b
    share = same / total if total else 0.0
    sev = "warning" if share >= COPY_WARN else "info"
    findings.append(_finding("CHT-C001", sev, f"{share:.0%} of the candidate's code lines "
                             f"({same} of {total}) reproduce the reference source"
                             + (": consistent with copying rather than reconstruction "
                                "from the spec" if sev == "warning" else ""), solution,
                             share=round(share, 4), lines=same, total=total))
    return {"share": round(share, 4), "lines": same, "total": total}


def places_summary(places: list[dict[str, Any]]) -> list[str]:
    """Text lines: the forbidden places a scan used and where each came from."""
    lines = ["forbidden places used:"]
    builtin = [p["id"] for p in places if p.get("source") == "built-in rules"]
    if builtin:
        lines.append(f"  built-in rules: {', '.join(builtin)}")
    lines += [_place_line(p) for p in places if p.get("source", "") != "built-in rules"]
    return lines


def _place_line(p: dict[str, Any]) -> str:
    src = p.get("source", "")
    if p.get("overridden_by"):
        return (f"  {p['prefix']} ({src}): not forbidden, inside the workspace "
                f"{p['overridden_by']}")
    where = p.get("prefixes") or p.get("components") or p.get("names") or [
        "/".join(s) for s in p.get("sequences", [])]
    shown = ", ".join(where[:4]) + (f" (+{len(where) - 4} more)" if len(where) > 4 else "")
    return f"  {src}: {shown}"


def _infer_workspace(ev: Event) -> str | None:
    if ev.cwd and ev.cwd.count("/") >= 2 and ev.cwd.rstrip("/") not in ("/root", "/tmp", "/home"):
        return ev.cwd.rstrip("/")
    return None


def _emit(ev: Event, an: Analyzer, path: str, findings: list[Finding], info: dict[str, Any]) -> None:
    info["events"] += 1
    if ev.tool == "output" and not an.check_outputs:
        return          # nothing in this file's outputs can name a forbidden place
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
                     unusable=h.access == "unverifiable",
                     event=None if ev.line else ev.index, where=ev.where, actor=ev.actor,
                     tool=ev.tool, access=h.access, excerpt=excerpt, target=h.target)
        loc = f"line {ev.line}" if ev.line else f"event #{ev.index}"
        f.hint = f"{loc}{' (' + ev.where + ')' if ev.where else ''}: {excerpt}"
        findings.append(f)


def _scan_file(path: str, ctx: Context, matcher: Any, thorough: bool, info: dict[str, Any],
               findings: list[Finding], tick: Callable[[int], None] | None = None) -> None:
    from gavelkit.core.errors import InputError
    from gavelkit.core.safeio import check_input
    from gavelkit.task.anticheat import trajectory as traj

    try:
        check_input(path)  # a FIFO or /dev/zero is not an empty transcript: say what it is
    except InputError as exc:
        findings.append(_finding("CHT-U001", "error", exc.message, path, unusable=True))
        return
    info["bytes"] = os.path.getsize(path)
    raw, size = _read_small(path, info["bytes"])
    if _is_empty(path, raw, size):
        findings.append(_finding("CHT-U001", "error", "transcript is empty", path, unusable=True))
        return
    try:
        fmt = traj.detect_bytes(raw) if raw is not None else traj.detect(path)
        an = Analyzer(ctx, persist_cwd=PERSISTENT_CWD.get(fmt or "", True),
                      fingerprints=ctx.fingerprints)
        if fmt == "inspect-eval":
            _scan_eval(path, an, info, findings)
        elif fmt in traj.JSONL_FORMATS:
            _scan_jsonl(path, fmt, ctx, matcher, thorough, info, findings, tick, an)
        else:
            _scan_document(path, size, ctx, matcher, thorough, info, findings, an, raw)
    except RecursionError:
        # content nested deeper than the parser or the walk follows (the standard json
        # module's limit is Python's, orjson's 1024): what is below was not read, so the
        # file is unverified, never a traceback or CLEAN
        findings.append(_finding("CHT-U002", "error", "content nested too deeply to read "
                                 f"(Python's recursion limit, {sys.getrecursionlimit()})",
                                 path, unusable=True))


def _is_empty(path: str, raw: bytes | None, size: int) -> bool:
    if size == 0:
        return True
    if raw is not None and raw[:1] not in _BLANK:
        return False        # the first byte is content (`strip` would copy the file)
    return not raw.strip(_BLANK) if raw is not None else not _has_content(path)


_BLANK = b" \t\r\n\xef\xbb\xbf"


def _read_small(path: str, size: int) -> tuple[bytes | None, int]:
    """Small files are read whole: one read serves detection and parsing."""
    if size > WHOLE_READ:
        return None, size
    with open(path, "rb") as fh:
        raw = fh.read()       # readall sizes its buffer from fstat
    return raw, len(raw)


def _scan_eval(path: str, an: Analyzer, info: dict[str, Any], findings: list[Finding]) -> None:
    from gavelkit.task.anticheat.trajectory import inspectlog

    info["format"] = "inspect-eval"
    try:
        for ev in inspectlog.eval_archive_events(path):
            _emit(ev, an, path, findings, info)
    except inspectlog.ArchiveError as exc:
        findings.append(_finding("CHT-U002", "error", f"cannot read .eval archive: {exc}",
                                 path, unusable=True))


def _scan_jsonl(path: str, fmt: str, ctx: Context, matcher: Any, thorough: bool,
                info: dict[str, Any], findings: list[Finding],
                tick: Callable[[int], None] | None, an: Analyzer) -> None:
    from gavelkit.task.anticheat import prefilter
    from gavelkit.task.anticheat import trajectory as traj
    from gavelkit.task.anticheat.trajectory.events import loads

    info["format"] = fmt
    norm = traj.normaliser(fmt)
    local = _line_matcher(ctx, norm, matcher.engine)
    # every action line is decoded and every action analysed: in a session log the
    # per-action gate costs more than the analysis it would save (measured in bench.py)
    an.gate = None
    stats = prefilter.LineStats()
    stats.on_block = tick
    every = thorough or ctx.every_line or fmt == "openhands"
    # outputs are checked for surface/content only on lines that contain such a name
    out_matcher = docgate.out_matcher(ctx, matcher.engine)
    bad = 0
    for line_no, raw in prefilter.hit_lines(path, local, every, stats,
                                            markers=getattr(norm, "markers", ())):
        an.check_outputs = (out_matcher is not None and bool(
            out_matcher.line_starts(raw, len(raw)))) or ctx.fingerprints is not None
        try:
            obj = loads(raw)
        except ValueError:
            bad += 1
            findings.append(_bad_line(path, line_no, raw, stats.last_line_unterminated))
            continue
        for ev in norm.feed(obj, line_no):
            _emit(ev, an, path, findings, info)
    _jsonl_summary(path, stats, every, bad, info, findings)


def _line_matcher(ctx: Context, norm: Any, engine: str) -> Any:
    """Every action line is parsed (the gate then decides per action, see gate.py); other
    lines only when they hold an anchor, a fingerprint token or a base64 run."""
    from gavelkit.task.anticheat import prefilter
    from gavelkit.task.anticheat.fingerprint import B64_RUN_JSON

    fp_tokens = [t.encode() for t in ctx.fingerprints.tokens] if ctx.fingerprints else []
    return prefilter.Matcher(list(ctx.anchors) + list(getattr(norm, "anchors", ())) +
                             list(getattr(norm, "markers", ())) + fp_tokens +
                             [b"Shell cwd was reset"], engine,
                             extra=B64_RUN_JSON if ctx.fingerprints else None)


def _bad_line(path: str, line_no: int, raw: bytes, unterminated: bool) -> Finding:
    last = unterminated and line_no >= 1
    return _finding("CHT-U003", "error", "line is not valid JSON (truncated or corrupt); its "
                    "content was not checked" + (" — the file ends mid-line" if last else ""),
                    path, line_no, unusable=True, excerpt=raw[:120].decode("utf-8", "replace"))


def _jsonl_summary(path: str, stats: Any, every: bool, bad: int, info: dict[str, Any],
                   findings: list[Finding]) -> None:
    from gavelkit.task.anticheat import prefilter

    info["lines"] = stats.lines
    for ln in stats.overlong or []:
        findings.append(_finding("CHT-U003", "error", "line longer than the "
                                 f"{prefilter.MAX_LINE}-byte limit was skipped unchecked "
                                 "(GAVEL_SCAN_MAX_LINE)", path, ln, unusable=True))
    if not every:
        # lines without anchors were not normalised; note whether tool calls exist
        info["events_parsed"] = info["events"]
        info["tool_calls_seen"] = bool(info["events"] or stats.markers)
    if stats.lines and bad >= stats.lines:
        findings.append(_finding("CHT-U002", "error", "no line of this JSONL transcript is "
                                 "valid JSON", path, unusable=True))


def _scan_document(path: str, size: int, ctx: Context, matcher: Any, thorough: bool,
                   info: dict[str, Any], findings: list[Finding], an: Analyzer,
                   raw: bytes | None = None) -> None:
    from gavelkit.task.anticheat import trajectory as traj
    from gavelkit.task.anticheat.trajectory import lean
    from gavelkit.task.anticheat.trajectory.events import loads

    if size > MAX_DOC:
        findings.append(_finding("CHT-U002", "error", f"single JSON document of {size} bytes is "
                                 f"over the {MAX_DOC}-byte limit (GAVEL_SCAN_MAX_DOC)", path,
                                 unusable=True))
        return
    if raw is None:
        with open(path, "rb") as fh:
            raw = fh.read()
    gc_was = gc.isenabled()
    gc.disable()        # a parsed document is a tree of fresh containers, never a cycle
    try:
        body = raw.lstrip(b"\xef\xbb\xbf")
        # mini-swe-agent documents without the parts no check reads, when that pays;
        # None: orjson decides as always
        doc = lean.decode(body)
        if doc is None:
            doc = loads(body)
        del body
    except ValueError as exc:
        findings.append(_finding("CHT-U002", "error", f"not valid JSON, and not JSONL of a known "
                                 f"agent format ({exc}); formats tried: {FORMAT_NAMES}", path,
                                 unusable=True))
        return
    finally:
        if gc_was:
            gc.enable()
    dfmt = traj.document_format(doc)
    if dfmt is None:
        findings.append(_finding("CHT-U002", "error", "JSON of no known trajectory format; "
                                 f"formats tried: {FORMAT_NAMES}", path, unusable=True))
        return
    info["format"] = dfmt
    an.persist_cwd = PERSISTENT_CWD.get(dfmt, True)
    del raw
    events = list(traj.document_events(dfmt, doc))
    if not (thorough or ctx.every_line):
        # the gate decides per action (one pass per pattern over the document); outputs
        # are read only when they can name a forbidden place or reproduce protected lines
        docgate.gate_document(ctx, matcher, an, events)
    for ev in events:
        if ev is not docgate.OUTPUT_SKIPPED:
            _emit(ev, an, path, findings, info)
        else:
            info["events"] += 1


def _has_content(path: str) -> bool:
    with open(path, "rb") as fh:
        while True:
            chunk = fh.read(1 << 16)
            if not chunk:
                return False
            if chunk.strip(b" \t\r\n\xef\xbb\xbf"):
                return True
