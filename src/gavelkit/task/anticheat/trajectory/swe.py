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
from collections.abc import Iterator
from typing import Any

from gavelkit.task.anticheat.trajectory.events import Event, args_dict, text_of, tool_call_event

ACTION_RX = re.compile(r"```(?:bash|mswea_bash_command)\s*\n(.*?)\n```", re.S)
_OPEN_RX = re.compile(r"```(?:bash|mswea_bash_command)\s*\n")


def looks_like_swe(doc: Any) -> bool:
    if not isinstance(doc, dict):
        return False
    if not doc.get("trajectory") and isinstance(doc.get("history"), list):
        return _chat_history(doc["history"])
    traj = doc.get("trajectory")
    return isinstance(traj, list) and (not traj or _step_like(traj[0]))


def _chat_history(history: list[Any]) -> bool:
    """SWE-agent's history is chat messages (role, message_type); a flat list of
    {"action": "run", ...} entries is old OpenHands output."""
    return any(isinstance(h, dict) and ("message_type" in h or "role" in h)
               for h in history[:10])


def _step_like(step: Any) -> bool:
    return isinstance(step, dict) and ("action" in step or "observation" in step)


def looks_like_mini(doc: Any) -> bool:
    if looks_like_message_list(doc):
        return True
    return (isinstance(doc, dict) and isinstance(doc.get("messages"), list)
            and ("info" in doc or str(doc.get("trajectory_format", "")).startswith("mini")))


def looks_like_message_list(doc: Any) -> bool:
    """The early mini-swe-agent shape: the trajectory file is the bare list of messages
    (system, user task, then assistant turns with a fenced bash block and user turns
    with the observation)."""
    if not (isinstance(doc, list) and len(doc) >= 2 and _roles_ok(doc[:20])):
        return False
    return any(_fenced(m.get("content")) for m in doc[:40] if m.get("role") == "assistant")


def _roles_ok(head: list[Any]) -> bool:
    """Every message a dict with a string role, one of them the assistant's."""
    if not all(isinstance(m, dict) for m in head):
        return False
    roles = [m.get("role") for m in head]
    return all(isinstance(r, str) for r in roles) and "assistant" in roles


def _fenced(content: Any) -> bool:
    return isinstance(content, str | list) and "```" in str(content)


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
    tool = _SWE_TOOLS.get(words[0])
    if tool is None or not tool(ev, words):
        ev.command = action
    return ev


# -- SWE-agent's own tools: fill the event from the words; False: a shell line after all


def _swe_open(ev: Event, words: list[str]) -> bool:
    if len(words) > 1:
        ev.read.append(words[1])
        ev.tool = "read"
        return True
    return False


def _swe_create(ev: Event, words: list[str]) -> bool:
    if len(words) > 1:
        ev.write.append(words[1])
        ev.tool = "write"
        return True
    return False


def _swe_edit(ev: Event, words: list[str]) -> bool:
    ev.tool = "edit"
    return True


def _swe_find_file(ev: Event, words: list[str]) -> bool:
    if len(words) > 1:
        ev.listed.append(words[2] if len(words) > 2 else ".")
        ev.tool = "list"
        return True
    return False


def _swe_search_dir(ev: Event, words: list[str]) -> bool:
    if len(words) > 1:
        ev.read.append(words[2] if len(words) > 2 else ".")
        ev.tool = "search"
        return True
    return False


def _swe_search_file(ev: Event, words: list[str]) -> bool:
    if len(words) > 2:
        ev.read.append(words[2])
        ev.tool = "search"
        return True
    return False


def _swe_editor(ev: Event, words: list[str]) -> bool:
    if len(words) > 2:
        view = words[1] == "view"
        (ev.read if view else ev.write).append(words[2])
        ev.tool = "read" if view else "write"
        return True
    return False


def _swe_control(ev: Event, words: list[str]) -> bool:
    ev.tool = words[0]
    return True


_SWE_TOOLS = {"open": _swe_open, "goto_file": _swe_open, "create": _swe_create,
              "edit": _swe_edit, "insert": _swe_edit, "append": _swe_edit,
              "find_file": _swe_find_file, "search_dir": _swe_search_dir,
              "search_file": _swe_search_file, "str_replace_editor": _swe_editor,
              **dict.fromkeys(("submit", "scroll_up", "scroll_down", "goto", "exit_forfeit",
                               "exit_cost"), _swe_control)}


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
    for i, step in enumerate(doc.get("trajectory") or []):
        if not isinstance(step, dict):
            continue
        cwd = _step_cwd(step, cwd)
        action = step.get("action")
        if not isinstance(action, str):
            continue
        ev = swe_action_event(i, action, cwd, text_of(step.get("observation")))
        ev.where = f"trajectory[{i}]"
        yield ev


def _step_cwd(step: dict[str, Any], cwd: str | None) -> str | None:
    """The folder a step runs in: its state's, else the last one, else the one its
    observation reports."""
    cwd = _state_cwd(step.get("state")) or cwd
    if cwd is None:
        m = _CURDIR.search(text_of(step.get("observation")))
        cwd = m.group(1).strip() if m else None
    return cwd


_OPENERS = ("```bash", "```mswea_bash_command")


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
    # ACTION_RX.match(text, at), its common case without the lazy group: the greedy
    # `\s*\n` ends at the blank run's last newline (what _OPEN_RX matches), and the body
    # then ends at the first "\n```" after it; only when there is none does the pattern
    # back off to an earlier newline, so then the pattern itself decides
    op = _OPEN_RX.match(text, at)
    if op is not None:
        close = text.find("\n```", op.end())
        if close != -1:
            return [text[op.end():close]]
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


def _dict(d: dict[str, Any], key: str) -> dict[str, Any]:
    val = d.get(key)
    return val if isinstance(val, dict) else {}


def mini_events(doc: dict[str, Any] | list[Any]) -> Iterator[Event]:
    """Events of a mini-swe-agent trajectory: each executed action, each observation."""
    if isinstance(doc, list):
        doc = {"messages": doc}
    cfg = _dict(_dict(doc, "info"), "config")
    envcfg = _dict(cfg, "environment")
    cwd = envcfg["cwd"] if isinstance(envcfg.get("cwd"), str) and envcfg["cwd"] else None
    walk = _MiniWalk(_action_rx(cfg), cwd)
    return iter(walk.events(doc.get("messages") or []))


class _MiniWalk:
    """The message walk of `mini_events`: numbers the events as it goes, into one list
    (one loop over the messages, no generator per message)."""

    def __init__(self, action_rx: re.Pattern[str], cwd: str | None) -> None:
        self.rx = action_rx
        self.cwd = cwd
        self.index = 0
        self.out: list[Event] = []

    def events(self, messages: list[Any]) -> list[Event]:
        for i, msg in enumerate(messages):
            if not isinstance(msg, dict):
                continue
            role = msg.get("role")
            if role == "assistant":
                calls = msg.get("tool_calls")
                if isinstance(calls, list) and calls:
                    self.calls(i, calls)
                else:
                    self.block(i, msg.get("content"))
            elif (role == "user" or role == "tool") and i > 1:
                self.observation(i, role, msg.get("content"))
        return self.out

    def observation(self, i: int, role: str, content: Any) -> None:
        text = content if isinstance(content, str) else text_of(content)
        if "<returncode>" in text or "<output>" in text or role == "tool":
            self.out.append(Event(self.index, actor="tool", tool="output", output=text,
                                  cwd=self.cwd, where=f"messages[{i}]"))
            self.index += 1

    def calls(self, i: int, calls: list[Any]) -> None:
        for call in calls:
            fn = call.get("function") if isinstance(call, dict) else None
            if isinstance(fn, dict):
                ev = tool_call_event(self.index, str(fn.get("name", "bash")),
                                     args_dict(fn.get("arguments")), cwd=self.cwd,
                                     call_id=call.get("id"))
                ev.where = f"messages[{i}]"
                self.index += 1
                self.out.append(ev)

    def block(self, i: int, content: Any) -> None:
        text = content if isinstance(content, str) else text_of(content)
        blocks = default_actions(text) if self.rx is ACTION_RX else self.rx.findall(text)
        if len(blocks) == 1:   # the agent runs exactly one block, else nothing
            block = blocks[0] if isinstance(blocks[0], str) else blocks[0][-1]
            self.out.append(Event(self.index, tool="shell", command=block.strip(),
                                  cwd=self.cwd, where=f"messages[{i}]"))
            self.index += 1
