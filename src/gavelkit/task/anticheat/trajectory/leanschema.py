"""The msgspec schema of `lean`: the parts of a mini-swe-agent document its walk reads.

Imported only by `lean.decode` (msgspec is optional and its import costs milliseconds).
Every key not declared here (per-message `extra`, `info` beyond the two config values)
is skipped by the decoder without building a Python object.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

import msgspec

# The value of a key that makes `_doc_format` choose another format (SWE-agent's
# `trajectory`/`history`, an OpenHands completion log's `fncall_messages`) or that only
# other formats have (inspect's `eval`): no document holds this string there, so
# validation fails the moment such a key is met and the document goes to orjson.
Elsewhere = Literal["\x00not a mini-swe-agent document"]


class Function(TypedDict, total=False):
    name: str | None
    arguments: str | None     # OpenAI's JSON text; an object: left to orjson


class ToolCall(TypedDict, total=False):
    id: str | None
    function: Function


class Message(TypedDict, total=False):
    """One message: what `swe._MiniWalk` reads of it. A dict as orjson's is (absent
    keys stay absent), so the walk is the same code (a Struct with a `get` decodes
    faster, but its Python-level `get` costs the walk as much). Only text and null
    where the walk turns a value into an event: msgspec gives an integer past 64 bits
    as an int where orjson gives a float, so a number there must not pass."""

    role: Any                 # only compared with "assistant", "user", "tool"
    content: str | None       # a list of parts: left to orjson
    tool_calls: list[ToolCall] | None


class Agent(TypedDict, total=False):
    action_regex: Any         # used only when it is a string


class Environment(TypedDict, total=False):
    cwd: Any                  # used only when it is a string


class Config(TypedDict, total=False):
    agent: Agent
    environment: Environment


class Info(TypedDict, total=False):
    config: Config


class Document(msgspec.Struct, gc=False):
    messages: list[Message]
    info: Info | msgspec.UnsetType = msgspec.UNSET
    trajectory_format: str | msgspec.UnsetType = msgspec.UNSET
    trajectory: Elsewhere | msgspec.UnsetType = msgspec.UNSET
    history: Elsewhere | msgspec.UnsetType = msgspec.UNSET
    fncall_messages: Elsewhere | msgspec.UnsetType = msgspec.UNSET
    eval: Elsewhere | msgspec.UnsetType = msgspec.UNSET


DECODER = msgspec.json.Decoder(Document)
UNTYPED = msgspec.json.Decoder()      # lean._depth_capped's probe
ERRORS = (msgspec.MsgspecError, RecursionError, ValueError)
UNSET = msgspec.UNSET
