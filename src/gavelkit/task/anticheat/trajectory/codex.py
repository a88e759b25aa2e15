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
        handler = _KINDS.get(kind) if isinstance(kind, str) else None
        return handler(self, item, line, time) if handler is not None else []

    def _emit(self, ev: Event | None) -> list[Event]:
        if ev is None:
            return []
        self.index += 1
        return [ev]

    def _compacted(self, item: dict[str, Any], line: int, time: Any) -> list[Event]:
        # the summary that replaced earlier turns: what it mentions was seen
        text = text_of(item.get("message") or item.get("summary") or "")
        if not text:
            return []
        return self._emit(Event(self.index, line=line, time=time, actor="harness",
                                tool="output", output=text, cwd=self.cwd,
                                where="compacted history"))

    def _response(self, item: dict[str, Any], line: int, time: Any) -> list[Event]:
        handler = _ITEMS.get(item.get("type"))   # type: ignore[arg-type]
        return self._emit(handler(self, item, line, time) if handler is not None else None)

    def _seen(self, cid: Any) -> None:
        if cid:
            self.seen.add(cid)

    def _function_call(self, item: dict[str, Any], line: int, time: Any) -> Event:
        cid = item.get("call_id")
        ev = tool_call_event(self.index, str(item.get("name", "")), item.get("arguments"),
                             line=line, time=time, cwd=self.cwd, call_id=cid)
        if ev.cwd is None:
            ev.cwd = self.cwd
        self._seen(cid)
        return ev

    def _local_shell(self, item: dict[str, Any], line: int, time: Any) -> Event:
        action = item.get("action") or {}
        cmd = action.get("command")
        self._seen(item.get("call_id"))
        return Event(self.index, line=line, time=time, tool="shell",
                     argv=[str(x) for x in cmd] if isinstance(cmd, list) else None,
                     command=cmd if isinstance(cmd, str) else None,
                     cwd=action.get("working_directory") or self.cwd,
                     call_id=item.get("call_id"))

    def _custom_tool(self, item: dict[str, Any], line: int, time: Any) -> Event:
        text = str(item.get("input", ""))
        return Event(self.index, line=line, time=time, tool=str(item.get("name", "custom")),
                     write=[m.strip() for m in _PATCH_FILE.findall(text)], cwd=self.cwd,
                     call_id=item.get("call_id"), content=text)

    def _call_output(self, item: dict[str, Any], line: int, time: Any) -> Event:
        out = item.get("output")
        if isinstance(out, str) and out.startswith("{"):
            out = args_dict(out).get("output", out)
        return Event(self.index, line=line, time=time, actor="tool", tool="output",
                     output=text_of(out), cwd=self.cwd, call_id=item.get("call_id"))

    def _event_msg(self, item: dict[str, Any], line: int, time: Any) -> list[Event]:
        t = item.get("type")
        cid = item.get("call_id")
        if cid in self.seen or t not in ("exec_command_begin", "exec_command_end"):
            return []
        cwd = item.get("cwd") or self.cwd
        if t == "exec_command_begin":
            cmd = item.get("command")
            self._seen(cid)
            return self._emit(Event(
                self.index, line=line, time=time, tool="shell", cwd=cwd,
                argv=[str(x) for x in cmd] if isinstance(cmd, list) else None,
                command=cmd if isinstance(cmd, str) else None, call_id=cid))
        text = item.get("aggregated_output") or item.get("stdout") or ""
        return self._emit(Event(self.index, line=line, time=time, actor="tool",
                                tool="output", output=text_of(text), cwd=cwd, call_id=cid))


_KINDS = {"event_msg": Normaliser._event_msg, "compacted": Normaliser._compacted,
          "response_item": Normaliser._response}
_ITEMS = {"function_call": Normaliser._function_call,
          "local_shell_call": Normaliser._local_shell,
          "custom_tool_call": Normaliser._custom_tool,
          "function_call_output": Normaliser._call_output,
          "custom_tool_call_output": Normaliser._call_output}
