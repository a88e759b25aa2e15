"""SWE-agent `.traj` files and mini-swe-agent `trajectory.json`.

SWE-agent: `trajectory[]` steps with `action` (a shell command or one of the
agent's own tools: `open path`, `create path`, `find_file name dir`,
`search_dir term dir`, `str_replace_editor view /path`, multi-line `edit`),
`observation`, and `state` (a dict or JSON string with `working_dir`).
mini-swe-agent: `messages[]`; an assistant message is executed only when its
content holds exactly one block matching the agent's action regex (```bash …```
in v1, ```mswea_bash_command …``` in v2, or `info.config.agent.action_regex`);
zero or several blocks is a format error and nothing runs. Newer versions use
`tool_calls`. Every command runs in a fresh subprocess, so `cd` does not carry
over. Quoted tracebacks, other fences and prose are never commands.
SWE-agent executes only each step's parsed `action` (never `thought`/`response`).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Iterator
from typing import Any

from gavelkit.task.anticheat.trajectory.events import Event, args_dict, text_of, tool_call_event

ACTION_RX = re.compile(r"```(?:bash|mswea_bash_command)\s*\n(.*?)\n```", re.S)
_SWE_READ = {"open", "goto_file", "cat"}
_SWE_WRITE = {"create"}


def looks_like_swe(doc: Any) -> bool:
    if isinstance(doc, dict) and not doc.get("trajectory") and isinstance(doc.get("history"), list):
        # SWE-agent's history is chat messages (role, message_type); a flat list of
        # {"action": "run", ...} entries is old OpenHands output
        return any(isinstance(h, dict) and ("message_type" in h or "role" in h)
                   for h in doc["history"][:10])
    return isinstance(doc, dict) and isinstance(doc.get("trajectory"), list) and (
        not doc["trajectory"] or (isinstance(doc["trajectory"][0], dict)
        and ("action" in doc["trajectory"][0] or "observation" in doc["trajectory"][0])))


def looks_like_mini(doc: Any) -> bool:
    if looks_like_message_list(doc):
        return True
    return (isinstance(doc, dict) and isinstance(doc.get("messages"), list)
            and ("info" in doc or str(doc.get("trajectory_format", "")).startswith("mini")))


def looks_like_message_list(doc: Any) -> bool:
    """The early mini-swe-agent shape: the trajectory file is the bare list of messages
    (system, user task, then assistant turns with a fenced bash block and user turns
    with the observation)."""
    if not (isinstance(doc, list) and len(doc) >= 2 and all(isinstance(m, dict)
                                                            for m in doc[:20])):
        return False
    roles = [m.get("role") for m in doc[:20]]
    if not all(isinstance(r, str) for r in roles) or "assistant" not in roles:
        return False
    return any(isinstance(m.get("content"), str | list) and "```" in str(m.get("content"))
               for m in doc[:40] if m.get("role") == "assistant")


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


_OPENERS = ("```bash", "```mswea_bash_command")
OUTPUT_SEEN = Event(-1, actor="tool", tool="output")   # stands for outputs not read


def default_actions(text: str) -> list[str]:
    """ACTION_RX.findall(text), fast: most messages hold exactly one opener, so find it
    with str.find and match the regex there instead of scanning the prose with it."""
    n = 0
    at = -1
    for op in _OPENERS:
        c = text.count(op)
        if c:
            n += c
            at = text.find(op)
    if n == 0:
        return []
    if n > 1:
        return ACTION_RX.findall(text)
    m = ACTION_RX.match(text, at)
    return [m.group(1)] if m else []


def _action_rx(cfg: dict[str, Any]) -> re.Pattern[str]:
    agent = cfg.get("agent") if isinstance(cfg.get("agent"), dict) else {}
    rx = agent.get("action_regex")
    if isinstance(rx, str) and rx:
        try:
            return re.compile(rx, re.S)
        except re.error:
            pass
    return ACTION_RX


def mini_events(doc: dict[str, Any],
                outputs: bool | Callable[[str], bool] = True) -> Iterator[Event]:
    """Events of a mini-swe-agent trajectory. `outputs` False (or a predicate that says
    no for an output's text) yields OUTPUT_SEEN instead of reading that output."""
    cwd = None
    if isinstance(doc, list):
        doc = {"messages": doc}
    info = doc.get("info") if isinstance(doc.get("info"), dict) else {}
    cfg = info.get("config") if isinstance(info.get("config"), dict) else {}
    envcfg = cfg.get("environment") if isinstance(cfg.get("environment"), dict) else {}
    action_rx = _action_rx(cfg)
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
            content = msg.get("content")
            text = content if isinstance(content, str) else text_of(content)
            blocks = default_actions(text) if action_rx is ACTION_RX else action_rx.findall(text)
            if len(blocks) == 1:   # the agent runs exactly one block, else nothing
                block = blocks[0] if isinstance(blocks[0], str) else blocks[0][-1]
                yield Event(index, tool="shell", command=block.strip(), cwd=cwd,
                            where=f"messages[{i}]")
                index += 1
        elif role in ("user", "tool") and i > 1:
            content = msg.get("content")
            text = content if isinstance(content, str) else text_of(content)
            if "<returncode>" in text or "<output>" in text or role == "tool":
                if not (outputs is True or (outputs and outputs(text))):
                    yield OUTPUT_SEEN      # counted, never read
                    continue
                yield Event(index, actor="tool", tool="output", output=text_of(text),
                            cwd=cwd, where=f"messages[{i}]")
                index += 1
