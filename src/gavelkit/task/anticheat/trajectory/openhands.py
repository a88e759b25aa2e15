"""OpenHands event streams: V0 events (`action`/`observation` + `args`/`extras`),
`output.jsonl` instances (`history` list of events; older builds keep a flat
list of `{"action": "run", "command": …}` entries; records may come wrapped in a
JSON array), and V1 SDK events
(`ActionEvent` with `tool_name` and an `action` object; `ObservationEvent`).

`run` → args.command; `read` → args.path (str_replace_editor `view` is a read);
`write`/`edit` → args.path; `run_ipython` → args.code; `browse` → args.url.
Observations give the output, and newer builds report the shell's working
directory in `extras.metadata.working_dir`, which later commands run in.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gavelkit.task.anticheat.trajectory.events import Event, text_of, tool_call_event


def looks_like_event(obj: Any) -> bool:
    return isinstance(obj, dict) and (
        (("action" in obj or "observation" in obj) and ("source" in obj or "id" in obj))
        or obj.get("kind") in ("ActionEvent", "ObservationEvent", "MessageEvent"))


def looks_like_instance(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("history"), list) and (
        "instance_id" in obj or "instance" in obj or "test_result" in obj)


class Normaliser:
    fmt = "openhands"

    def __init__(self) -> None:
        self.index = 0
        self.cwd: str | None = None

    def feed(self, obj: Any, line: int) -> list[Event]:
        if looks_like_instance(obj):
            out: list[Event] = []
            for ev in obj["history"]:
                out.extend(self.feed(ev, line))
            return out
        if isinstance(obj, list):  # a history list, or (old) [action, observation] pairs
            out = []
            for ev in obj:
                out.extend(self.feed(ev, line))
            return out
        if not isinstance(obj, dict):
            return []
        ev = self._one(obj, line)
        if ev is None:
            return []
        self.index += 1
        return [ev]

    def _one(self, obj: dict[str, Any], line: int) -> Event | None:
        if obj.get("kind") == "ActionEvent":
            action = obj.get("action") if isinstance(obj.get("action"), dict) else {}
            return tool_call_event(self.index, str(obj.get("tool_name", action.get("kind", ""))),
                                   action, line=line, time=obj.get("timestamp"), cwd=self.cwd,
                                   call_id=obj.get("tool_call_id"))
        if obj.get("kind") == "ObservationEvent":
            obs = obj.get("observation") if isinstance(obj.get("observation"), dict) else {}
            return Event(self.index, line=line, time=obj.get("timestamp"), actor="tool",
                         tool="output",
                         output=text_of(obs.get("content") or obs.get("output") or obs),
                         cwd=self.cwd, call_id=obj.get("tool_call_id"))
        if "observation" in obj:
            return self._observation(obj, line)
        return self._action(obj, line)

    def _observation(self, obj: dict[str, Any], line: int) -> Event:
        extras = obj.get("extras") if isinstance(obj.get("extras"), dict) else {}
        meta = extras.get("metadata") if isinstance(extras.get("metadata"), dict) else {}
        wd = meta.get("working_dir")
        ev = Event(self.index, line=line, time=obj.get("timestamp"), actor="tool",
                   tool="output", output=text_of(obj.get("content") or obj.get("message")),
                   cwd=self.cwd, call_id=str(obj.get("cause", "")) or None)
        if isinstance(wd, str) and wd:
            self.cwd = wd
        return ev

    def _action(self, obj: dict[str, Any], line: int) -> Event | None:
        action = obj.get("action")
        # old flat entries carry the arguments next to "action" ({"action": "run",
        # "command": ...}); newer ones under "args"
        args = obj.get("args") if isinstance(obj.get("args"), dict) else obj
        if not isinstance(action, str):
            return None
        ev = Event(self.index, line=line, time=obj.get("timestamp"),
                   actor=str(obj.get("source", "agent")), tool=action,
                   cwd=args.get("cwd") or self.cwd, call_id=str(obj.get("id", "")) or None)
        handler = _ACTIONS.get(action)
        if handler is None:
            return None if action in _NOT_ACTIONS else ev
        handler(ev, args, action)
        return ev


# -- one handler per OpenHands action: fill the event from the action's arguments
# (False: the action carries nothing to check, the event stays as it is)


def _run(ev: Event, args: dict[str, Any], action: str) -> bool:
    if not isinstance(args.get("command"), str):
        return False
    ev.command = args["command"]
    ev.tool = "shell"
    return True


def _ipython(ev: Event, args: dict[str, Any], action: str) -> bool:
    ev.code = str(args.get("code", ""))
    ev.tool = "python"
    return True


def _path(args: dict[str, Any]) -> list[str]:
    p = str(args.get("path", ""))
    return [p] if p else []


def _read(ev: Event, args: dict[str, Any], action: str) -> bool:
    ev.read.extend(_path(args))
    ev.tool = "read"
    return True


def _write(ev: Event, args: dict[str, Any], action: str) -> bool:
    if str(args.get("command", "")) == "view":
        return _read(ev, args, action)
    ev.write.extend(_path(args))
    ev.tool = "write"
    ev.content = next((str(args[k]) for k in ("content", "file_text", "new_str")
                       if isinstance(args.get(k), str)), None)
    ev.whole = str(args.get("command", "create")) == "create" or action == "write"
    return True


def _browse(ev: Event, args: dict[str, Any], action: str) -> bool:
    ev.url = str(args.get("url", "") or args.get("browser_actions", ""))
    ev.tool = "fetch"
    return True


_ACTIONS = {"run": _run, "run_ipython": _ipython, "read": _read, "write": _write,
            "edit": _write, "browse": _browse, "browse_interactive": _browse}
_NOT_ACTIONS = frozenset({"message", "system", "finish", "think", "recall",
                          "change_agent_state", "null"})


def events_from_document(doc: Any) -> Iterator[Event]:
    norm = Normaliser()
    yield from norm.feed(doc, 0)
