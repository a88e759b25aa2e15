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


class Message(msgspec.Struct, gc=False):
    """One message: what `swe._MiniWalk` reads of it, with the dict's `get`."""

    role: Any = None
    content: Any = None
    tool_calls: Any = None

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default)


class Agent(TypedDict, total=False):
    action_regex: Any


class Environment(TypedDict, total=False):
    cwd: Any


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
