"""Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).

Lines are `{timestamp, type, payload}` with type session_meta / turn_context
(both carry `cwd`) / response_item / event_msg / compacted. Tool calls are
`response_item` payloads `function_call{name, arguments (JSON string), call_id}`
(`shell` with an argv array, `exec_command` with a `cmd` string, `workdir`),
`local_shell_call{action.command, action.working_directory}`,
`custom_tool_call` (apply_patch); outputs are `function_call_output`. Older
rollouts (before the envelope) put those items directly on each line.
`event_msg` exec_command_begin/end repeat calls already seen; they are used only
for call ids we have not seen. A `compacted` record's summary is scanned like a
tool output (names of forbidden places it mentions were seen earlier).
"""

from __future__ import annotations

import re
from typing import Any

from gavelkit.task.anticheat.trajectory.events import Event, args_dict, text_of, tool_call_event

ITEM_TYPES = {"message", "reasoning", "function_call", "function_call_output", "local_shell_call",
              "custom_tool_call", "custom_tool_call_output", "web_search_call"}
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.M)


def looks_like(obj: Any) -> bool:
    if not isinstance(obj, dict):
        return False
    if "payload" in obj and obj.get("type") in ("session_meta", "response_item", "turn_context",
                                                "event_msg", "compacted"):
        return True
    return ("instructions" in obj and "id" in obj and "timestamp" in obj) or (
        obj.get("record_type") == "state") or ((obj.get("type") in ITEM_TYPES and "role" in obj)
                                               or obj.get("type") in ("function_call",
                                                                      "local_shell_call"))


class Normaliser:
    fmt = "codex"
    markers = (b'"function_call"', b'"local_shell_call"', b'"custom_tool_call"',
               b'"exec_command_begin"')
    anchors = (b'"turn_context"', b'"session_meta"')   # lines that must always be parsed

    def __init__(self) -> None:
        self.index = 0
        self.cwd: str | None = None
        self.seen: set[str] = set()

    def feed(self, obj: Any, line: int) -> list[Event]:
        if not isinstance(obj, dict):
            return []
        time = obj.get("timestamp")
        if "payload" in obj and isinstance(obj.get("payload"), dict):
            kind, item = obj.get("type"), obj["payload"]
        else:
            kind, item = "response_item", obj
        if kind in ("session_meta", "turn_context"):
            cwd = item.get("cwd") or (item.get("meta") or {}).get("cwd")
            if isinstance(cwd, str):
                self.cwd = cwd
            return []
        if kind == "event_msg":
            return self._event_msg(item, line, time)
        if kind == "compacted":
            # the summary that replaced earlier turns: what it mentions was seen
            text = text_of(item.get("message") or item.get("summary") or "")
            ev = Event(self.index, line=line, time=time, actor="harness", tool="output",
                       output=text, cwd=self.cwd, where="compacted history")
            self.index += 1
            return [ev] if text else []
        if kind != "response_item":
            return []
        t = item.get("type")
        ev: Event | None = None
        if t == "function_call":
            cid = item.get("call_id")
            ev = tool_call_event(self.index, str(item.get("name", "")), item.get("arguments"),
                                 line=line, time=time, cwd=self.cwd, call_id=cid)
            if ev.cwd is None:
                ev.cwd = self.cwd
            if cid:
                self.seen.add(cid)
        elif t == "local_shell_call":
            action = item.get("action") or {}
            cmd = action.get("command")
            ev = Event(self.index, line=line, time=time, tool="shell",
                       argv=[str(x) for x in cmd] if isinstance(cmd, list) else None,
                       command=cmd if isinstance(cmd, str) else None,
                       cwd=action.get("working_directory") or self.cwd,
                       call_id=item.get("call_id"))
            if item.get("call_id"):
                self.seen.add(item["call_id"])
        elif t == "custom_tool_call":
            text = str(item.get("input", ""))
            ev = Event(self.index, line=line, time=time, tool=str(item.get("name", "custom")),
                       write=[m.strip() for m in _PATCH_FILE.findall(text)], cwd=self.cwd,
                       call_id=item.get("call_id"), content=text)
        elif t in ("function_call_output", "custom_tool_call_output"):
            out = item.get("output")
            if isinstance(out, str) and out.startswith("{"):
                parsed = args_dict(out)
                out = parsed.get("output", out)
            ev = Event(self.index, line=line, time=time, actor="tool", tool="output",
                       output=text_of(out), cwd=self.cwd, call_id=item.get("call_id"))
        if ev is None:
            return []
        self.index += 1
        return [ev]

    def _event_msg(self, item: dict[str, Any], line: int, time: Any) -> list[Event]:
        t = item.get("type")
        cid = item.get("call_id")
        if t == "exec_command_begin" and cid not in self.seen:
            cmd = item.get("command")
            ev = Event(self.index, line=line, time=time, tool="shell", cwd=item.get("cwd") or self.cwd,
                       argv=[str(x) for x in cmd] if isinstance(cmd, list) else None,
                       command=cmd if isinstance(cmd, str) else None, call_id=cid)
            if cid:
                self.seen.add(cid)
            self.index += 1
            return [ev]
        if t == "exec_command_end" and cid not in self.seen:
            text = item.get("aggregated_output") or item.get("stdout") or ""
            ev = Event(self.index, line=line, time=time, actor="tool", tool="output",
                       output=text_of(text), cwd=item.get("cwd") or self.cwd, call_id=cid)
            self.index += 1
            return [ev]
        return []
