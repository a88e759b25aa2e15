"""Claude Code session JSONL (`~/.claude/projects/<dir>/<session>.jsonl`, sub-agent files).

One JSON object per line: `type` user/assistant/system/summary/...; assistant
`message.content[]` holds `tool_use` items (Bash → input.command, Read →
input.file_path, Grep/Glob → pattern+path, Edit/Write → file_path, WebFetch →
url); the next user line carries `tool_result` items (and, in newer versions, a
top-level `toolUseResult`). `cwd` is on every line; `isSidechain` marks Task
sub-agent turns. `<bash-input>` user lines are commands the user ran via `!`.
"""

from __future__ import annotations

import re
from typing import Any

from gavelkit.task.anticheat.trajectory.events import Event, text_of, unknown_tool

TYPES = {"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation",
         "progress", "result"}
_BASH_INPUT = re.compile(r"<bash-input>(.*?)</bash-input>", re.S)


def looks_like(obj: Any) -> bool:
    return (isinstance(obj, dict) and obj.get("type") in TYPES
            and any(k in obj for k in ("sessionId", "uuid", "leafUuid", "parentUuid", "message",
                                       "snapshot", "operation")))


class Normaliser:
    fmt = "claude-code"
    markers = (b'"tool_use"', b"<bash-input>")

    def __init__(self) -> None:
        self.index = 0

    def _ev(self, **kw: Any) -> Event:
        ev = Event(index=self.index, **kw)
        self.index += 1
        return ev

    def feed(self, obj: Any, line: int) -> list[Event]:
        if not isinstance(obj, dict):
            return []
        msg = obj.get("message")
        if not isinstance(msg, dict):
            return []
        cwd = obj.get("cwd") if isinstance(obj.get("cwd"), str) else None
        time = obj.get("timestamp")
        content = msg.get("content")
        role = msg.get("role") or obj.get("type")
        if role == "user" and isinstance(content, str):
            m = _BASH_INPUT.search(content)
            return [self._ev(line=line, time=time, actor="user", tool="shell",
                             command=m.group(1).strip(), cwd=cwd)] if m else []
        if not isinstance(content, list):
            return []
        side = bool(obj.get("isSidechain")) or bool(obj.get("agentId"))
        return self._items(obj, content, role, line, time, cwd, side)

    def _items(self, obj: dict[str, Any], content: list[Any], role: Any, line: int,
               time: Any, cwd: str | None, side: bool) -> list[Event]:
        out: list[Event] = []
        for item in content:
            if not isinstance(item, dict):
                continue
            kind = item.get("type")
            if kind == "tool_use" and role == "assistant":
                out.append(self._tool_use(item, line, time, cwd, side))
            elif kind == "tool_result":
                out.append(self._tool_result(obj, item, line, time, cwd))
        return out

    def _tool_result(self, obj: dict[str, Any], item: dict[str, Any], line: int, time: Any,
                     cwd: str | None) -> Event:
        res = obj.get("toolUseResult")
        text = text_of(item.get("content"))
        if isinstance(res, dict) and not text:
            text = text_of(res.get("stdout") or res.get("file") or "")
        return self._ev(line=line, time=time, actor="tool", tool="output", output=text,
                        cwd=cwd, call_id=item.get("tool_use_id"))

    def _tool_use(self, item: dict[str, Any], line: int, time: Any, cwd: str | None,
                  side: bool) -> Event:
        name = str(item.get("name", ""))
        inp = item.get("input") if isinstance(item.get("input"), dict) else {}
        ev = self._ev(line=line, time=time, actor="subagent" if side else "agent",
                      tool=name.lower(), cwd=cwd, call_id=item.get("id"))
        handler = _TOOLS.get(name.lower())
        if handler is not None:
            handler(ev, inp)
        else:                       # an MCP or custom tool: the generic reading of it
            unknown_tool(ev, inp)
        ev.read = [p for p in ev.read if p]
        ev.write = [p for p in ev.write if p]
        return ev


# -- one handler per tool: fill the event from the tool's input


def _bash(ev: Event, inp: dict[str, Any]) -> None:
    if isinstance(inp.get("command"), str):
        ev.command = inp["command"]
        ev.tool = "shell"


def _read(ev: Event, inp: dict[str, Any]) -> None:
    ev.read.append(str(inp.get("file_path") or inp.get("notebook_path") or ""))
    ev.tool = "read"


def _write(ev: Event, inp: dict[str, Any]) -> None:
    ev.write.append(str(inp.get("file_path") or inp.get("notebook_path") or ""))
    whole = ev.tool == "write"
    ev.tool = "write"
    edits = inp.get("edits") if isinstance(inp.get("edits"), list) else []
    texts = [inp.get(k) for k in ("content", "new_string", "new_source")] + [
        e.get("new_string") for e in edits if isinstance(e, dict)]
    ev.content = "\n".join(t for t in texts if isinstance(t, str)) or None
    ev.whole = whole


def _grep(ev: Event, inp: dict[str, Any]) -> None:
    ev.read.append(str(inp.get("path") or "."))
    if inp.get("glob"):
        ev.listed.append(str(inp.get("glob")))
    ev.tool = "search"


def _glob(ev: Event, inp: dict[str, Any]) -> None:
    base = str(inp.get("path") or "")
    pat = str(inp.get("pattern") or "")
    ev.listed.append(f"{base.rstrip('/')}/{pat}" if base else pat)
    ev.tool = "list"


def _ls(ev: Event, inp: dict[str, Any]) -> None:
    ev.listed.append(str(inp.get("path") or "."))
    ev.tool = "list"


def _fetch(ev: Event, inp: dict[str, Any]) -> None:
    ev.url = str(inp.get("url") or "")
    ev.tool = "fetch"


def _task(ev: Event, inp: dict[str, Any]) -> None:
    ev.tool = "task"


_TOOLS = {"bash": _bash, "bashoutput": _bash, "read": _read, "notebookread": _read,
          "write": _write, "edit": _write, "multiedit": _write, "notebookedit": _write,
          "grep": _grep, "glob": _glob, "ls": _ls, "webfetch": _fetch, "fetch": _fetch,
          "task": _task}
