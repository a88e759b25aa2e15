"""SWE-agent `.traj` files and mini-swe-agent `trajectory.json`.

SWE-agent: `trajectory[]` steps with `action` (a shell command or one of the
agent's own tools: `open path`, `create path`, `find_file name dir`,
`search_dir term dir`, `str_replace_editor view /path`, multi-line `edit`),
`observation`, and `state` (a dict or JSON string with `working_dir`).
mini-swe-agent: `messages[]`; each assistant message carries one fenced bash block
(or `tool_calls` in newer versions) and the next user/tool message its output;
every command runs in a fresh subprocess, so `cd` does not carry over.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from typing import Any

from gavelkit.task.anticheat.trajectory.events import Event, args_dict, text_of, tool_call_event

_FENCE = re.compile(r"```(?:bash|sh|shell|mswea_bash_command)?[ \t]*\n(.*?)```", re.S)
_SWE_READ = {"open", "goto_file", "cat"}
_SWE_WRITE = {"create"}


def looks_like_swe(doc: Any) -> bool:
    if isinstance(doc, dict) and not doc.get("trajectory") and isinstance(doc.get("history"), list):
        return any(isinstance(h, dict) and ("message_type" in h or "action" in h)
                   for h in doc["history"][:10])
    return isinstance(doc, dict) and isinstance(doc.get("trajectory"), list) and (
        not doc["trajectory"] or (isinstance(doc["trajectory"][0], dict)
        and ("action" in doc["trajectory"][0] or "observation" in doc["trajectory"][0])))


def looks_like_mini(doc: Any) -> bool:
    return (isinstance(doc, dict) and isinstance(doc.get("messages"), list)
            and ("info" in doc or str(doc.get("trajectory_format", "")).startswith("mini")))


def _state_cwd(state: Any) -> str | None:
    if isinstance(state, str):
        try:
            state = json.loads(state)
        except ValueError:
            return None
    if isinstance(state, dict):
        wd = state.get("working_dir")
        return wd if isinstance(wd, str) and wd else None
    return None


def swe_action_event(index: int, action: str, cwd: str | None, output: str | None) -> Event:
    """SWE-agent actions are shell lines unless the first word is one of its own tools."""
    first_line = action.split("\n", 1)[0].strip()
    try:
        words = shlex.split(first_line)
    except ValueError:
        words = first_line.split()
    ev = Event(index, tool="shell", cwd=cwd, output=output)
    if not words:
        return ev
    head = words[0]
    if head in _SWE_READ and len(words) > 1 and head != "cat":
        ev.read.append(words[1])
        ev.tool = "read"
    elif head in _SWE_WRITE and len(words) > 1:
        ev.write.append(words[1])
        ev.tool = "write"
    elif head in ("edit", "insert", "append"):
        ev.tool = "edit"
    elif head == "find_file" and len(words) > 1:
        ev.listed.append(words[2] if len(words) > 2 else ".")
        ev.tool = "list"
    elif head == "search_dir" and len(words) > 1:
        ev.read.append(words[2] if len(words) > 2 else ".")
        ev.tool = "search"
    elif head == "search_file" and len(words) > 2:
        ev.read.append(words[2])
        ev.tool = "search"
    elif head == "str_replace_editor" and len(words) > 2:
        (ev.read if words[1] == "view" else ev.write).append(words[2])
        ev.tool = "read" if words[1] == "view" else "write"
    elif head in ("submit", "scroll_up", "scroll_down", "goto", "exit_forfeit", "exit_cost"):
        ev.tool = head
    else:
        ev.command = action
    return ev


_CURDIR = re.compile(r"\(Current directory: ([^)\n]+)\)")


def _history_events(history: list[Any]) -> Iterator[Event]:
    """SWE-agent files that keep only `history` (chat messages with `action` fields)."""
    cwd = None
    index = 0
    for i, msg in enumerate(history):
        if not isinstance(msg, dict):
            continue
        if msg.get("role") == "assistant" and isinstance(msg.get("action"), str):
            ev = swe_action_event(index, msg["action"], cwd, None)
            ev.where = f"history[{i}]"
            index += 1
            yield ev
        elif msg.get("role") in ("tool", "user") and msg.get("message_type") == "observation":
            text = text_of(msg.get("content"))
            yield Event(index, actor="tool", tool="output", output=text, cwd=cwd,
                        where=f"history[{i}]")
            index += 1
            m = _CURDIR.search(text)
            if m:
                cwd = m.group(1).strip()


def swe_events(doc: dict[str, Any]) -> Iterator[Event]:
    if not doc.get("trajectory"):
        yield from _history_events(doc.get("history") or [])
        return
    cwd = None
    env = doc.get("environment")
    for i, step in enumerate(doc.get("trajectory") or []):
        if not isinstance(step, dict):
            continue
        cwd = _state_cwd(step.get("state")) or cwd
        if cwd is None:
            m = _CURDIR.search(text_of(step.get("observation")))
            cwd = m.group(1).strip() if m else None
        action = step.get("action")
        if not isinstance(action, str):
            continue
        ev = swe_action_event(i, action, cwd, text_of(step.get("observation")))
        ev.where = f"trajectory[{i}]"
        if isinstance(env, str):
            ev.actor = "agent"
        yield ev


def mini_events(doc: dict[str, Any]) -> Iterator[Event]:
    cwd = None
    info = doc.get("info") if isinstance(doc.get("info"), dict) else {}
    cfg = info.get("config") if isinstance(info.get("config"), dict) else {}
    envcfg = cfg.get("environment") if isinstance(cfg.get("environment"), dict) else {}
    if isinstance(envcfg.get("cwd"), str) and envcfg["cwd"]:
        cwd = envcfg["cwd"]
    index = 0
    for i, msg in enumerate(doc.get("messages") or []):
        if not isinstance(msg, dict):
            continue
        role = msg.get("role")
        if role == "assistant":
            calls = msg.get("tool_calls")
            if isinstance(calls, list) and calls:
                for call in calls:
                    fn = call.get("function") if isinstance(call, dict) else None
                    if isinstance(fn, dict):
                        ev = tool_call_event(index, str(fn.get("name", "bash")),
                                             args_dict(fn.get("arguments")), cwd=cwd,
                                             call_id=call.get("id"))
                        ev.where = f"messages[{i}]"
                        index += 1
                        yield ev
                continue
            for block in _FENCE.findall(text_of(msg.get("content"))):
                ev = Event(index, tool="shell", command=block.strip(), cwd=cwd,
                           where=f"messages[{i}]")
                index += 1
                yield ev
        elif role in ("user", "tool") and i > 1:
            text = text_of(msg.get("content"))
            if "<returncode>" in text or "<output>" in text or role == "tool":
                yield Event(index, actor="tool", tool="output", output=text, cwd=cwd,
                            where=f"messages[{i}]")
                index += 1
