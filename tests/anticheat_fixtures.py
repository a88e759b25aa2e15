"""Builders for small trajectories in every agent format, and a small task package.

Each writer turns a list of steps into a file laid out like the real thing
(reference/task-judge.md §3; Claude Code and SWE-agent shapes copied from the
real samples in tests/data/trajectories). A step is (kind, value, output):
kind "bash" (a shell command), "read"/"write" (a path), or "fetch" (a URL).
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

WS = "/work/ws"
TASKS = "/data/tasks"
TASK = "demo-fullrepro-001"
PKG = "widgetlib"
FORMATS = ["claude-code", "codex", "openhands", "openhands-v1", "swe-agent", "mini-swe-agent",
           "inspect-eval", "inspect-json"]

Step = tuple[str, str, str | None]


def make_task(root: Path) -> Path:
    """A task package shaped like ../shared/corpus/bmk-tasks (BOM in task.json)."""
    t = root / TASK
    (t / "oracle").mkdir(parents=True)
    (t / "spec.md").write_text("# Widgetlib spec\n", encoding="utf-8")
    (t / "oracle" / "test_atomic.py").write_text("def test_widget_parses_header():\n"
                                                 "    assert 1 == 1\n", encoding="utf-8")
    (t / "kept_nodeids.txt").write_text(
        "oracle/test_atomic.py::test_widget_parses_header\n"
        "oracle/test_atomic.py::test_widget_rejects_empty\n"
        "oracle/test_integration.py::test_pipeline_roundtrip[utf8]\n", encoding="utf-8")
    (t / "spec_test_map.md").write_text("| test_nodeid | layer |\n", encoding="utf-8")
    (t / "taxonomy.jsonl").write_text('{"taxonomy_key": "x", "layer": "atomic"}\n',
                                      encoding="utf-8")
    record = {"instance_id": TASK, "status": "QUALIFIED", "repo": "acme/widgetlib",
              "repo_commit": "3f2a9c1d0b7e6f5a4c3b2a19080706050403f2a9",
              "oracle": {"test_files": ["oracle/test_atomic.py", "oracle/test_integration.py"],
                         "nodeid_file": "kept_nodeids.txt", "scorer_isolation": ["--remove-path",
                                                                                  PKG]},
              "candidate_run": "opus-widget-run-007",
              "reference_score": {"evidence": "evidence/reference_score.json"},
              "taxonomy": {"test_atomic::test_widget_parses_header": "atomic"}}
    (t / "task.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(record, indent=2).encode())
    return t


def _claude(steps: list[Step], cwd: str) -> str:
    lines = []
    base = {"isSidechain": False, "userType": "external", "cwd": cwd,
            "sessionId": "9e953218-585f-4692-89df-9e0747a31c68", "version": "2.0.5",
            "gitBranch": "main"}
    for i, (kind, val, out) in enumerate(steps):
        tid = f"toolu_{i:04d}"
        if kind == "bash":
            name, inp = "Bash", {"command": val, "description": "run"}
        elif kind == "read":
            name, inp = "Read", {"file_path": val}
        elif kind == "write":
            name, inp = "Write", {"file_path": val, "content": "x"}
        elif kind == "glob":
            name, inp = "Glob", {"pattern": val}
        else:
            name, inp = "WebFetch", {"url": val, "prompt": "read"}
        lines.append({**base, "type": "assistant", "uuid": f"a{i}",
                      "timestamp": "2025-10-03T23:59:07.774Z",
                      "message": {"id": f"msg_{i}", "type": "message", "role": "assistant",
                                  "model": "claude-sonnet-4-5",
                                  "content": [{"type": "tool_use", "id": tid, "name": name,
                                               "input": inp}]}})
        lines.append({**base, "type": "user", "uuid": f"u{i}", "parentUuid": f"a{i}",
                      "message": {"role": "user", "content": [
                          {"tool_use_id": tid, "type": "tool_result", "content": out or "",
                           "is_error": False}]},
                      "toolUseResult": {"stdout": out or "", "stderr": ""}})
    return "\n".join(json.dumps(x) for x in lines) + "\n"


def _codex(steps: list[Step], cwd: str) -> str:
    lines: list[dict[str, Any]] = [
        {"timestamp": "2025-09-01T10:00:00Z", "type": "session_meta",
         "payload": {"id": "0199", "cwd": cwd, "originator": "codex_cli_rs"}},
        {"timestamp": "2025-09-01T10:00:00Z", "type": "turn_context",
         "payload": {"cwd": cwd, "approval_policy": "never"}}]
    for i, (kind, val, out) in enumerate(steps):
        cid = f"call_{i}"
        if kind == "bash":
            item = {"type": "function_call", "name": "shell", "call_id": cid,
                    "arguments": json.dumps({"command": ["bash", "-lc", val], "workdir": cwd})}
        elif kind == "write":
            item = {"type": "custom_tool_call", "name": "apply_patch", "call_id": cid,
                    "input": f"*** Begin Patch\n*** Add File: {val}\n+x\n*** End Patch\n"}
        elif kind == "read":
            item = {"type": "function_call", "name": "shell", "call_id": cid,
                    "arguments": json.dumps({"command": ["cat", val]})}
        else:
            item = {"type": "function_call", "name": "exec_command", "call_id": cid,
                    "arguments": json.dumps({"cmd": f"curl -sL {val}"})}
        lines.append({"timestamp": "2025-09-01T10:00:01Z", "type": "response_item",
                      "payload": item})
        lines.append({"timestamp": "2025-09-01T10:00:02Z", "type": "response_item",
                      "payload": {"type": "function_call_output", "call_id": cid,
                                  "output": json.dumps({"output": out or "",
                                                        "metadata": {"exit_code": 0}})}})
    return "\n".join(json.dumps(x) for x in lines) + "\n"


def _openhands(steps: list[Step], cwd: str) -> str:
    lines: list[dict[str, Any]] = []
    n = 0
    for kind, val, out in steps:
        if kind == "bash":
            ev = {"action": "run", "args": {"command": val, "thought": ""}}
        elif kind == "read":
            ev = {"action": "read", "args": {"path": val}}
        elif kind == "write":
            ev = {"action": "edit", "args": {"path": val, "command": "create"}}
        else:
            ev = {"action": "browse", "args": {"url": val}}
        lines.append({"id": n, "timestamp": "2025-01-01T00:00:00", "source": "agent",
                      "message": "", **ev})
        lines.append({"id": n + 1, "timestamp": "2025-01-01T00:00:01", "source": "environment",
                      "cause": n, "observation": "run", "content": out or "",
                      "extras": {"command": val, "metadata": {"exit_code": 0,
                                                              "working_dir": cwd}}})
        n += 2
    # the first observation tells the shell's working directory; put one first
    head = {"id": -1, "timestamp": "2025-01-01T00:00:00", "source": "environment",
            "observation": "run", "content": "", "extras": {"command": "pwd", "metadata": {
                "exit_code": 0, "working_dir": cwd}}}
    return "\n".join(json.dumps(x) for x in [head, *lines]) + "\n"


def _openhands_v1(steps: list[Step], cwd: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, (kind, val, res) in enumerate(steps):
        if kind == "bash":
            tool, action = "terminal", {"kind": "TerminalAction", "command": f"cd {cwd} && {val}"}
        elif kind == "read":
            tool, action = "file_editor", {"kind": "FileEditorAction", "command": "view",
                                           "path": val}
        elif kind == "write":
            tool, action = "file_editor", {"kind": "FileEditorAction", "command": "create",
                                           "path": val, "file_text": "x"}
        else:
            tool, action = "browser", {"kind": "BrowserNavigateAction", "url": val}
        out.append({"kind": "ActionEvent", "id": f"e{i}", "tool_name": tool,
                    "tool_call_id": f"c{i}", "action": action, "source": "agent"})
        out.append({"kind": "ObservationEvent", "id": f"o{i}", "tool_call_id": f"c{i}",
                    "observation": {"kind": "TerminalObservation", "content": res or ""}})
    return out


def _swe(steps: list[Step], cwd: str) -> dict[str, Any]:
    traj = []
    for kind, val, out in steps:
        action = {"bash": val, "read": f"open {val}", "write": f"create {val}",
                  "fetch": f"wget {val}"}[kind]
        traj.append({"action": action, "observation": out or "", "response": "",
                     "thought": "", "state": json.dumps({"open_file": "n/a",
                                                         "working_dir": cwd})})
    return {"environment": "swe_main", "trajectory": traj, "history": [],
            "info": {"exit_status": "submitted"}}


def _mini(steps: list[Step], cwd: str) -> dict[str, Any]:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are a helpful assistant."},
                                  {"role": "user", "content": "Please solve this issue."}]
    for kind, val, out in steps:
        cmd = {"bash": val, "read": f"cat {val}", "write": f"touch {val}",
               "fetch": f"curl -sL {val}"}[kind]
        msgs.append({"role": "assistant",
                     "content": f"THOUGHT: next step.\n\n```bash\ncd {cwd} && {cmd}\n```"})
        msgs.append({"role": "user", "content": f"<returncode>0</returncode>\n<output>\n"
                                                f"{out or ''}\n</output>"})
    return {"trajectory_format": "mini-swe-agent-1", "messages": msgs,
            "info": {"exit_status": "Submitted", "submission": "",
                     "config": {"environment": {"cwd": cwd}}}}


def _inspect_sample(steps: list[Step], cwd: str, attach: bool, old_arg: bool) -> dict[str, Any]:
    events: list[dict[str, Any]] = []
    attachments: dict[str, str] = {}
    for i, (kind, val, out) in enumerate(steps):
        if kind == "bash":
            cmd = f"cd {cwd} && {val}"
            if attach:
                attachments[f"h{i}"] = cmd
                cmd = f"attachment://h{i}"
            fn, args = "bash", ({"cmd": cmd} if old_arg else {"command": cmd})
        elif kind == "read":
            fn, args = "text_editor", {"command": "view", "path": val}
        elif kind == "write":
            fn, args = "text_editor", {"command": "create", "path": val, "file_text": "x"}
        else:
            fn, args = "web_browser_go", {"url": val}
        events.append({"event": "tool", "id": f"call_{i}", "function": fn, "arguments": args,
                       "result": out or "", "timestamp": "2025-05-01T00:00:00"})
    return {"id": 1, "epoch": 1, "input": "solve", "messages": [], "events": events,
            "attachments": attachments}


def write_eval(path: Path, sample: dict[str, Any], zstd: bool) -> None:
    """An .eval archive; with zstd the sample member uses zip method 93 like new inspect_ai."""
    data = json.dumps(sample).encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("_journal/start.json", json.dumps({"version": 2, "eval": {"task": "t"}}))
        zf.writestr("header.json", json.dumps({"version": 2, "status": "success"}))
        zf.writestr("samples/1_epoch_1.json", data)
    raw = buf.getvalue()
    if zstd:
        import zstandard

        raw = _recompress_member(raw, "samples/1_epoch_1.json", zstandard.ZstdCompressor().compress(data))
    path.write_bytes(raw)


def _recompress_member(archive: bytes, name: str, payload: bytes) -> bytes:
    """Rebuild the zip with one member stored under compression method 93 (zstd)."""
    import struct
    import zlib

    src = zipfile.ZipFile(io.BytesIO(archive))
    out = io.BytesIO()
    central = []
    for info in src.infolist():
        data = src.read(info)
        if info.filename == name:
            body, method = payload, 93
        else:
            co = zlib.compressobj(6, zlib.DEFLATED, -15)
            body, method = co.compress(data) + co.flush(), 8
        crc = zlib.crc32(data) & 0xFFFFFFFF
        fname = info.filename.encode()
        offset = out.tell()
        out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 63, 0, method, 0, 0x21, crc,
                              len(body), len(data), len(fname), 0) + fname + body)
        central.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 63, 63, 0, method, 0,
                                   0x21, crc, len(body), len(data), len(fname), 0, 0, 0, 0, 0,
                                   offset) + fname)
    cd_start = out.tell()
    for c in central:
        out.write(c)
    cd_size = out.tell() - cd_start
    out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(central), len(central), cd_size,
                          cd_start, 0))
    return out.getvalue()


def write_traj(root: Path, fmt: str, steps: list[Step], cwd: str = WS, name: str = "t",
               zstd: bool = False, attach: bool = False, old_arg: bool = False) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    if fmt == "claude-code":
        p = root / f"{name}.jsonl"
        p.write_text(_claude(steps, cwd), encoding="utf-8")
    elif fmt == "codex":
        p = root / f"rollout-2025-09-01T10-00-00-{name}.jsonl"
        p.write_text(_codex(steps, cwd), encoding="utf-8")
    elif fmt == "openhands":
        p = root / f"{name}.events.jsonl"
        p.write_text(_openhands(steps, cwd), encoding="utf-8")
    elif fmt == "openhands-v1":
        p = root / f"{name}.events.json"
        p.write_text(json.dumps(_openhands_v1(steps, cwd)), encoding="utf-8")
    elif fmt == "swe-agent":
        p = root / f"{name}.traj"
        p.write_text(json.dumps(_swe(steps, cwd), indent=2), encoding="utf-8")
    elif fmt == "mini-swe-agent":
        p = root / f"{name}.trajectory.json"
        p.write_text(json.dumps(_mini(steps, cwd), indent=2), encoding="utf-8")
    elif fmt == "inspect-eval":
        p = root / f"{name}.eval"
        write_eval(p, _inspect_sample(steps, cwd, attach, old_arg), zstd)
    elif fmt == "inspect-json":
        p = root / f"{name}.json"
        p.write_text(json.dumps({"version": 2, "status": "success", "eval": {"task": "t"},
                                 "samples": [_inspect_sample(steps, cwd, attach, old_arg)]}),
                     encoding="utf-8")
    else:
        raise ValueError(fmt)
    return p
