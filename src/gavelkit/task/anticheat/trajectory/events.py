"""The one event shape every agent format is normalised into.

The scanner only ever sees `Event`s: who acted, with which tool, which command
ran (shell text or argv), which paths were read, written or listed, which URL
was fetched, what Python code ran, and what came back. Formats differ only in
where those fields live (reference/task-judge.md §3).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

try:  # orjson is 2-3x faster on big logs; optional
    import orjson as _orjson

    def loads(data: bytes | str) -> Any:
        return _orjson.loads(data)
except ImportError:  # pragma: no cover - depends on the machine
    def loads(data: bytes | str) -> Any:
        return json.loads(data)


@dataclass(slots=True)
class Event:
    index: int                       # position in this file's event stream (0-based)
    line: int = 0                    # physical line (1-based) for JSONL formats, else 0
    time: str | None = None
    actor: str = "agent"             # agent | subagent | user | tool | harness
    tool: str = ""                   # shell | read | write | list | search | python | fetch | output | ...
    command: str | None = None       # shell script text
    argv: list[str] | None = None    # a command given as an argv array (Codex, inspect sandbox)
    read: list[str] = field(default_factory=list)
    write: list[str] = field(default_factory=list)
    listed: list[str] = field(default_factory=list)   # paths or glob patterns listed
    url: str | None = None
    code: str | None = None          # Python source the agent ran
    output: str | None = None        # tool output / observation text
    cwd: str | None = None
    call_id: str | None = None
    where: str = ""                  # extra locator, e.g. "sample 3 epoch 1" in an .eval
    content: str | None = None       # text a write/edit tool put into `write` (or a patch)
    whole: bool = False              # `content` is the whole file (a create), not an edit

    def excerpt(self, limit: int = 160) -> str:
        for text in (self.command, " ".join(self.argv) if self.argv else None, self.code,
                     self.url, " ".join(self.read + self.write + self.listed), self.output):
            if text:
                flat = " ".join(str(text).split())
                return flat if len(flat) <= limit else flat[: limit - 1] + "…"
        return ""


def text_of(content: Any, limit: int | None = None) -> str:
    """Flatten message content (str, list of parts, dicts) into text.

    Not cut by default: a check that reads only the start of an output would pass
    what it never saw (memory is bounded by the line and document limits instead)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content[:limit]
    if isinstance(content, list):
        parts = [_part_text(item, limit) for item in content]
        return "\n".join(p for p in parts if p)[:limit]
    if isinstance(content, dict):
        for key in ("text", "content", "output", "stdout", "result"):
            if key in content:
                return text_of(content[key], limit)
        return ""
    return str(content)[:limit]


def _part_text(item: Any, limit: int | None) -> str:
    if not isinstance(item, dict):
        return text_of(item, limit)
    if item.get("type") in ("image", "image_url", "input_image"):
        return ""
    return text_of(item.get("text", item.get("content", item.get("output"))), limit)


def args_dict(arguments: Any) -> dict[str, Any]:
    """Tool arguments arrive as dicts or as JSON strings; always give a dict."""
    if isinstance(arguments, dict):
        return arguments
    if isinstance(arguments, str):
        try:
            val = json.loads(arguments)
        except ValueError:
            return {"_raw": arguments}
        return val if isinstance(val, dict) else {"_raw": arguments}
    return {}


SHELL_TOOLS = {"bash", "shell", "exec_command", "run", "execute_bash", "terminal", "cmd",
               "run_command", "shell_command", "local_shell", "container.exec", "execute",
               "bash_tool", "run_shell_command", "exec"}
PY_TOOLS = {"python", "run_ipython", "ipython", "execute_python", "python_exec"}


_EDITORS = ("str_replace_editor", "text_editor", "file_editor", "edit")
_READERS = ("read", "read_file", "view", "cat", "open_file")
_WRITERS = ("write", "write_file", "create", "edit", "apply_patch", "insert")
_BODIES = ("file_text", "content", "new_str", "new_string", "text", "insert_text")


def tool_call_event(index: int, name: str, arguments: Any, **kw: Any) -> Event:
    """Normalise one generic function-call style tool use (Codex, inspect, OpenHands V1)."""
    args = args_dict(arguments)
    lname = (name or "").lower()
    ev = Event(index=index, tool=lname or "tool", **kw)
    _command(ev, args, lname)
    if lname in PY_TOOLS or ("code" in args and isinstance(args.get("code"), str)):
        ev.code = str(args.get("code", args.get("_raw", "")))
        ev.tool = "python"
    path = args.get("path", args.get("file_path", args.get("filename")))
    if isinstance(path, str) and path:
        _file_call(ev, args, lname, path)
    _url_raw_workdir(ev, args, lname)
    if not _acts(ev):
        ev.read.extend(_path_leaves(args, 64))      # a tool it does not know: `unknown_tool`
    return ev


def _acts(ev: Event) -> bool:
    """Did the generic reading find anything the call does?"""
    return bool(ev.command or ev.argv or ev.code or ev.read or ev.write or ev.url)


_NOT_PATHS = frozenset({*_BODIES, "command", "cmd", "code", "workdir", "cwd", "description",
                        "prompt", "thought", "message", "old_str", "old_string"})


def unknown_tool(ev: Event, args: dict[str, Any]) -> None:
    """A tool no normaliser knows (an MCP server's `read_multiple_files`, a custom
    tool): what it does with its input is unknown, so every absolute path among its
    input's values (nested, at most 64) is taken as read, and a `command`/`cmd` as shell
    (`_command`, what the function-call formats already did); a text body is content,
    not a path."""
    _command(ev, args, ev.tool)
    ev.read.extend(_path_leaves(args, 64))


def _path_leaves(value: Any, limit: int, key: str = "") -> list[str]:
    out: list[str] = []
    stack: list[tuple[str, Any]] = [(key, value)]
    while stack and len(out) < limit:
        k, v = stack.pop()
        if isinstance(v, str):
            if k not in _NOT_PATHS and v.startswith(("/", "file:/", "~/")) and "\n" not in v:
                out.append(v)
        elif isinstance(v, dict):
            stack.extend((str(kk), vv) for kk, vv in v.items())
        elif isinstance(v, list):
            stack.extend((k, vv) for vv in v)
    return out


def _url_raw_workdir(ev: Event, args: dict[str, Any], lname: str) -> None:
    url = args.get("url")
    if isinstance(url, str):
        ev.url = url
        ev.tool = "fetch"
    if ev.tool == lname and "_raw" in args and lname in SHELL_TOOLS:
        ev.command = args["_raw"]
        ev.tool = "shell"
    if "workdir" in args and isinstance(args["workdir"], str):
        ev.cwd = args["workdir"]


def _command(ev: Event, args: dict[str, Any], lname: str) -> None:
    cmd = args.get("command", args.get("cmd"))
    if isinstance(cmd, list):
        ev.argv = [str(x) for x in cmd]
        ev.tool = "shell"
    elif isinstance(cmd, str) and (lname in SHELL_TOOLS or lname not in _EDITORS):
        ev.command = cmd
        ev.tool = "shell"


def _file_call(ev: Event, args: dict[str, Any], lname: str, path: str) -> None:
    """A call naming a file: a view/read, or a write/edit with the text it puts there."""
    sub = str(args.get("command", "")).lower()
    if sub in ("view", "read") or lname in _READERS:
        ev.read.append(path)
        ev.tool = "read"
    elif sub or lname in _WRITERS:
        ev.write.append(path)
        ev.tool = "write"
        ev.content = next((args[k] for k in _BODIES if isinstance(args.get(k), str)), None)
        ev.whole = sub == "create" or lname in ("write", "write_file", "create")
    else:
        ev.read.append(path)
