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

from gavelkit.task.anticheat.trajectory.events import Event, text_of

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
        side = bool(obj.get("isSidechain")) or bool(obj.get("agentId"))
        out: list[Event] = []
        content = msg.get("content")
        role = msg.get("role") or obj.get("type")
        if role == "user" and isinstance(content, str):
            m = _BASH_INPUT.search(content)
            if m:
                out.append(self._ev(line=line, time=time, actor="user", tool="shell",
                                    command=m.group(1).strip(), cwd=cwd))
            return out
        if not isinstance(content, list):
            return out
        for item in content:
            if not isinstance(item, dict):
                continue
            kind = item.get("type")
            if kind == "tool_use" and role == "assistant":
                out.append(self._tool_use(item, line, time, cwd, side))
            elif kind == "tool_result":
                res = obj.get("toolUseResult")
                text = text_of(item.get("content"))
                if isinstance(res, dict) and not text:
                    text = text_of(res.get("stdout") or res.get("file") or "")
                out.append(self._ev(line=line, time=time, actor="tool", tool="output",
                                    output=text, cwd=cwd, call_id=item.get("tool_use_id")))
        return out

    def _tool_use(self, item: dict[str, Any], line: int, time: Any, cwd: str | None,
                  side: bool) -> Event:
        name = str(item.get("name", ""))
        inp = item.get("input") if isinstance(item.get("input"), dict) else {}
        ev = self._ev(line=line, time=time, actor="subagent" if side else "agent",
                      tool=name.lower(), cwd=cwd, call_id=item.get("id"))
        lname = name.lower()
        if lname in ("bash", "bashoutput") and isinstance(inp.get("command"), str):
            ev.command = inp["command"]
            ev.tool = "shell"
        elif lname in ("read", "notebookread"):
            ev.read.append(str(inp.get("file_path") or inp.get("notebook_path") or ""))
            ev.tool = "read"
        elif lname in ("write", "edit", "multiedit", "notebookedit"):
            ev.write.append(str(inp.get("file_path") or inp.get("notebook_path") or ""))
            ev.tool = "write"
            edits = inp.get("edits") if isinstance(inp.get("edits"), list) else []
            texts = [inp.get(k) for k in ("content", "new_string", "new_source")] + [
                e.get("new_string") for e in edits if isinstance(e, dict)]
            ev.content = "\n".join(t for t in texts if isinstance(t, str)) or None
            ev.whole = lname == "write"
        elif lname == "grep":
            ev.read.append(str(inp.get("path") or "."))
            if inp.get("glob"):
                ev.listed.append(str(inp.get("glob")))
            ev.tool = "search"
        elif lname == "glob":
            base = str(inp.get("path") or "")
            pat = str(inp.get("pattern") or "")
            ev.listed.append(f"{base.rstrip('/')}/{pat}" if base else pat)
            ev.tool = "list"
        elif lname == "ls":
            ev.listed.append(str(inp.get("path") or "."))
            ev.tool = "list"
        elif lname in ("webfetch", "fetch"):
            ev.url = str(inp.get("url") or "")
            ev.tool = "fetch"
        elif lname == "task":
            ev.tool = "task"
        ev.read = [p for p in ev.read if p]
        ev.write = [p for p in ev.write if p]
        return ev
