"""The lean mini-swe-agent decoder (trajectory/lean.py) against the orjson path.

Every case compares outcomes: the lean path either declines (None, the scanner then
uses orjson as before) or gives the format and every event orjson's document gives.
The one documented exception (a number too big for a double in a skipped part) is
pinned against `json.loads`.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gavelkit.task.anticheat import trajectory as traj
from gavelkit.task.anticheat.scan import scan_trajectories
from gavelkit.task.anticheat.trajectory import events as events_module
from gavelkit.task.anticheat.trajectory import lean
from gavelkit.task.anticheat.trajectory.events import loads

try:
    import msgspec  # noqa: F401
except ImportError:
    HAVE_MSGSPEC = False
else:
    HAVE_MSGSPEC = True
needs_msgspec = pytest.mark.skipif(not HAVE_MSGSPEC, reason="msgspec is not installed")
# the scanner's decoder is orjson when installed, else json.loads (which reads NaN, lone
# surrogates, 1e309): what orjson rejects is asserted only where orjson decodes
ORJSON = hasattr(events_module, "_orjson")
SRC = str(Path(__file__).resolve().parent.parent / "src")


@pytest.fixture
def always(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lean path whatever the size (the threshold is tested on its own)."""
    monkeypatch.setattr(lean, "LEAN_AFTER", 0)


def events_of(doc: Any) -> tuple[str | None, list[traj.Event]]:
    fmt = traj.document_format(doc)
    return fmt, (list(traj.document_events(fmt, doc)) if fmt else [])


def orjson_outcome(raw: bytes) -> Any:
    """What the scanner's own path reads: the format and events, or "rejected"."""
    try:
        doc = loads(raw)
    except (ValueError, RecursionError):    # RecursionError: json.loads, too deep
        return "rejected"
    return events_of(doc)


def rejected(raw: bytes) -> bool:
    """orjson rejects `raw` (vacuously true where json.loads is the decoder)."""
    if not ORJSON:
        return True
    try:
        loads(raw)
    except ValueError:
        return True
    return False


def too_big_for_a_double(raw: bytes) -> bool:
    """orjson rejects the document for the one reason lean.py accepts it (documented)."""
    try:
        loads(raw)
    except ValueError as exc:
        return "number is infinity when parsed as double" in str(exc)
    return False


def same(raw: bytes) -> bool:
    """The lean outcome equals the orjson one; True when lean gave a document, False when
    it declined (either way a difference fails the test). Where orjson rejects a number
    too big for a double, the lean events must be `json.loads`' (lean.py's docstring)."""
    got = lean.decode(raw)
    if got is None:
        return False
    want = orjson_outcome(raw)
    if want == "rejected" and too_big_for_a_double(raw):
        want = events_of(json.loads(raw))
    assert events_of(got) == want
    return True


def doc_bytes(msgs: list[Any], **top: Any) -> bytes:
    doc = {"trajectory_format": "mini-swe-agent-1", "messages": msgs,
           "info": {"exit_status": "Submitted",
                    "config": {"agent": {"step_limit": 250},
                               "environment": {"cwd": "/testbed", "timeout": 60}}}}
    doc.update(top)
    return json.dumps(doc).encode()


def real_shaped() -> bytes:
    """What a mini-swe-agent v1.15 run writes: provider responses under each message's
    `extra`, templates and stats under `info`."""
    resp = {"id": "r1", "choices": [{"message": {"content": "x", "reasoning": "y" * 300},
                                     "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1234, "completion_tokens": 56}, "created": 1763456789}
    msgs: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a helpful assistant.", "extra": {}},
        {"role": "user", "content": "<pr_description>fix the bug</pr_description>"}]
    for i, cmd in enumerate(["ls -la /testbed", "cat setup.py | head -n 20",
                             "grep -rn 'def parse' src/", "python -m pytest -q tests/"]):
        msgs.append({"role": "assistant", "content": f"THOUGHT: step {i}.\n\n```bash\n{cmd}\n```",
                     "extra": {"response": resp}})
        msgs.append({"role": "user", "content": f"<returncode>0</returncode>\n<output>\nout {i}\n"
                                                "</output>", "extra": {}})
    msgs.append({"role": "assistant", "content": "Two blocks:\n```bash\nls\n```\n```bash\npwd\n```"})
    msgs.append({"role": "user", "content": "Please always provide EXACTLY ONE action"})
    info = {"exit_status": "Submitted", "submission": "diff --git a/x b/x\n",
            "model_stats": {"instance_cost": 0.12, "api_calls": 5}, "mini_version": "1.15.0",
            "config": {"agent": {"system_template": "s", "instance_template": "i",
                                 "step_limit": 250, "cost_limit": 3.0},
                       "model": {"model_name": "gemini-3-pro"},
                       "environment": {"image": "img", "cwd": "/testbed", "env": {"PAGER": "cat"},
                                       "timeout": 60},
                       "agent_type": "a", "model_type": "m", "environment_type": "e"}}
    return json.dumps({"info": info, "messages": msgs, "trajectory_format": "mini-swe-agent-1",
                       "instance_id": "django__django-11099"}, indent=1).encode()


# --------------------------------------------------------------------------- equal documents


@needs_msgspec
def test_real_shaped_document_gives_the_same_events(always: None) -> None:
    raw = real_shaped()
    assert same(raw)
    fmt, evs = events_of(lean.decode(raw))
    assert fmt == "mini-swe-agent" and [e.command for e in evs if e.tool == "shell"] == [
        "ls -la /testbed", "cat setup.py | head -n 20", "grep -rn 'def parse' src/",
        "python -m pytest -q tests/"]
    assert all(e.cwd == "/testbed" for e in evs)


TOOL_CALLS = [
    {"role": "system", "content": "s"}, {"role": "user", "content": "u"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "bash", "arguments": '{"command": "ls /x"}'}},
        {"function": {"arguments": '{"command": ["cat", "/y"], "n": 3}'}},
        {"id": None, "function": {"name": None}}, {"id": "c4"}]},
    {"role": "tool", "content": "out", "tool_call_id": "c1"},
    {"role": "assistant", "tool_calls": []}, {"role": "assistant", "tool_calls": None},
    {"content": "no role"}, {"role": None, "content": "```bash\nls\n```"}]


@needs_msgspec
@pytest.mark.parametrize("msgs,top", [
    (TOOL_CALLS, {}),       # tool_calls (newer versions and tool-calling models)
    # the agent's own action regex and no cwd
    ([{"role": "system", "content": "s"}, {"role": "user", "content": "u"},
      {"role": "assistant", "content": "<cmd>ls /etc</cmd>"}],
     {"info": {"config": {"agent": {"action_regex": "<cmd>(.*?)</cmd>"}}}}),
    # info values the walk ignores unless they are text
    ([{"role": "system"}, {"role": "user"}, {"role": "assistant", "content": "```bash\nls\n```"}],
     {"info": {"config": {"agent": {"action_regex": 10 ** 30},
                          "environment": {"cwd": 2 ** 70}}}}),
    ([{"role": "system"}, {"role": "user"}, {"role": "assistant", "content": "```bash\nls\n```"}],
     {"info": {"config": {"agent": {"action_regex": "("}, "environment": {"cwd": ""}}}}),
])
def test_other_shapes_give_the_same_events(always: None, msgs: list[Any],
                                           top: dict[str, Any]) -> None:
    assert same(doc_bytes(msgs, **top))


@needs_msgspec
def test_without_info_the_trajectory_format_decides_and_unicode_is_read(always: None) -> None:
    msgs = [{"role": "system", "content": "é"}, {"role": "user", "content": "ü"},
            {"role": "assistant", "content": "```bash\necho ☃ \\ud83d\n```", "extra": {"é": "ö"}}]
    raw = json.dumps({"trajectory_format": "mini-swe-agent-1", "messages": msgs},
                     ensure_ascii=False).encode()
    assert not raw.isascii()
    assert same(raw)


@needs_msgspec
@pytest.mark.parametrize("msg", [
    {"role": "user", "content": [{"type": "text", "text": "<output>x</output>"}]},
    {"role": "assistant", "content": {"text": "```bash\nls\n```"}},
    {"role": "assistant", "content": 5},
    {"role": "assistant", "tool_calls": ["x", 1, None]},
    {"role": "assistant", "tool_calls": {"id": "c"}},
    {"role": "assistant", "tool_calls": [{"id": 7, "function": {"name": "bash"}}]},
    {"role": "assistant", "tool_calls": [{"function": {"name": "bash",
                                                       "arguments": {"command": "ls"}}}]},
    {"role": "assistant", "tool_calls": [{"function": "bash"}]},
])
def test_values_other_than_text_where_the_walk_reads_are_left_to_orjson(always: None,
                                                                       msg: Any) -> None:
    """Lists of parts, objects, numbers: orjson reads them (a big integer as a float,
    msgspec as an int), the lean path declines."""
    raw = doc_bytes([{"role": "system"}, {"role": "user"}, msg])
    assert orjson_outcome(raw) != "rejected"
    assert lean.decode(raw) is None


@needs_msgspec
def test_escaped_key_names_are_the_keys_they_spell(always: None) -> None:
    raw = (b'{"info":{"c\\u006fnfig":{"environment":{"cwd":"/w"}}},"m\\u0065ssages":['
           b'{"role":"system"},{"role":"user"},{"rol\\u0065":"assistant","c\\u006fntent":'
           b'"```bash\\nls\\n```"}]}')
    assert same(raw)
    assert events_of(lean.decode(raw))[1][0].cwd == "/w"


@needs_msgspec
@pytest.mark.parametrize("raw", [
    # the last of two keys wins, at the top, in a message, in info and in content
    b'{"messages":[{"role":"assistant","content":"```bash\\nrm -rf /a\\n```"}],"info":{},'
    b'"messages":[{"role":"s"},{"role":"u"},{"role":"assistant","content":"```bash\\nls\\n```"}]}',
    b'{"info":{},"messages":[{},{},{"role":"user","content":"```bash\\nls\\n```",'
    b'"role":"assistant","content":"```bash\\ncat /b\\n```","content":"```bash\\npwd\\n```"}]}',
    b'{"info":{"config":{"environment":{"cwd":"/a"}},"config":{"environment":{"cwd":"/b"}}},'
    b'"info":{"config":{"environment":{"cwd":"/c","cwd":"/d"}}},"messages":[{},{},'
    b'{"role":"assistant","content":"```bash\\nls\\n```"}]}',
    b'{"info":{},"messages":[{},{},{"role":"assistant","tool_calls":[{"id":"a","function":'
    b'{"arguments":"{\\"command\\":\\"ls\\"}","name":"x","arguments":'
    b'"{\\"command\\":\\"cat /e\\"}"},"id":"b"}]}]}',
])
def test_duplicate_keys_keep_the_last_value_as_orjson_does(always: None, raw: bytes) -> None:
    assert same(raw)


@needs_msgspec
def test_trailing_whitespace_is_fine_trailing_bytes_are_declined(always: None) -> None:
    base = doc_bytes([{"role": "system"}, {"role": "user"}])
    assert same(base + b" \n\t\r\n")
    for tail in (b"x", b"{}", b"\x00", b"\n{}\n"):
        assert lean.decode(base + tail) is None and rejected(base + tail)


@needs_msgspec
def test_integers_past_64_bits_in_skipped_parts_are_read_like_orjson(always: None) -> None:
    """orjson reads them as floats, msgspec skips them: the events are the same."""
    for big in (2 ** 64, -(2 ** 63) - 1, 10 ** 40):
        raw = doc_bytes([{"role": "system"}, {"role": "user", "extra": {"n": big}},
                         {"role": "assistant", "content": "```bash\nls\n```"}], usage=big)
        assert same(raw)


@needs_msgspec
@pytest.mark.parametrize("value", [2 ** 64, -(2 ** 63) - 1, 10 ** 40, 0.5, 1e300])
def test_numbers_in_read_values_are_left_to_orjson(always: None, value: Any) -> None:
    """A big integer is a float to orjson and an int to msgspec (str() differs)."""
    for msg in ({"role": "assistant", "content": [{"type": "text", "text": value}]},
                {"role": "assistant", "content": value},
                {"role": "assistant", "tool_calls": [
                    {"id": value, "function": {"name": "bash", "arguments": "{}"}}]}):
        raw = doc_bytes([{"role": "system"}, {"role": "user"}, msg])
        assert lean.decode(raw) is None
        assert orjson_outcome(raw) != "rejected"


@needs_msgspec
@pytest.mark.parametrize("number", [b"1e309", b"-1.8e308", b"1" * 310])
def test_a_number_too_big_for_a_double_in_a_skipped_part_is_accepted(always: None,
                                                                     number: bytes) -> None:
    """The documented difference (lean.py's docstring): orjson rejects the document, the
    lean path reads what the scan reads exactly as `json.loads` (gavelkit without orjson)
    does."""
    raw = (b'{"info":{"model_stats":{"cost":' + number + b'}},"messages":[{"role":"system"},'
           b'{"role":"user"},{"role":"assistant","content":"```bash\\nls\\n```","extra":{"x":'
           + number + b'}}]}')
    assert rejected(raw)
    got = lean.decode(raw)
    assert got is not None
    assert events_of(got) == events_of(json.loads(raw))


# --------------------------------------------------------------------------- declined documents


def _declined(raw: bytes) -> None:
    assert lean.decode(raw) is None


@needs_msgspec
@pytest.mark.parametrize("bad", [b"\xff\xfe", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
                                 b"\xe2\x82"])
@pytest.mark.parametrize("where", ["extra", "key", "info", "content"])
def test_invalid_utf8_anywhere_is_left_to_orjson(always: None, bad: bytes, where: str) -> None:
    """msgspec does not check the strings it skips; orjson rejects the document."""
    inner = {"extra": b'"extra":"a' + bad + b'"', "key": b'"' + bad + b'":1',
             "info": b'"extra":1', "content": b'"content":"' + bad + b'"'}[where]
    info = b'{"stats":"' + bad + b'"}' if where == "info" else b"{}"
    raw = (b'{"info":' + info + b',"messages":[{"role":"system"},{"role":"user",' + inner
           + b'},{"role":"assistant","content":"```bash\\nls\\n```"}]}')
    assert rejected(raw)
    _declined(raw)


@needs_msgspec
@pytest.mark.parametrize("value", [b'"\\ud800"', b'"\\udc00"', b'"a\\ud800b"', b'"\\ud800\\u0041"',
                                   b"NaN", b"Infinity", b"-Infinity", b'"a\x01b"', b'"\\q"',
                                   b"01", b"1.", b".5", b"tru", b"[1,]", b'{"a":1,}', b"'a'"])
@pytest.mark.parametrize("field", ["extra", "content"])
def test_invalid_json_in_any_part_is_declined(always: None, value: bytes, field: str) -> None:
    raw = (b'{"info":{},"messages":[{"role":"system"},{"role":"user"},{"role":"assistant","'
           + field.encode() + b'":' + value + b"}]}")
    assert rejected(raw)
    _declined(raw)


@needs_msgspec
def test_a_valid_surrogate_pair_is_read(always: None) -> None:
    assert same(b'{"info":{},"messages":[{},{},{"role":"assistant","content":'
                b'"```bash\\necho \\ud83d\\ude00\\n```","extra":"\\ud83d\\ude00"}]}')


def _nested(depth: int, field: str) -> bytes:
    # top-level object, messages array, message object: 3 levels before the value
    return (b'{"info":{},"messages":[{"role":"system"},{"role":"user"},{"role":"assistant",'
            b'"content":"```bash\\nls\\n```","' + field.encode() + b'":' + b"[" * depth
            + b"]" * depth + b"}]}")


@needs_msgspec
@pytest.mark.parametrize("field", ["extra", "content"])
def test_deep_nesting_is_declined_where_orjson_could_differ(always: None, field: str) -> None:
    assert same(_nested(300, "extra"))
    for depth in (lean.ORJSON_DEPTH - 3, lean.ORJSON_DEPTH - 2, 5000):
        raw = _nested(depth, field)
        assert rejected(raw) == (not ORJSON or depth > lean.ORJSON_DEPTH - 3)
        assert lean.decode(raw) is None     # msgspec stops sooner: orjson decides


@needs_msgspec
def test_a_raised_recursion_limit_turns_the_lean_path_off(always: None) -> None:
    """msgspec could then nest deeper than orjson's 1024 levels and accept what orjson
    rejects (on 3.11 the rule is the limit itself, later versions are probed)."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(5000)
    try:
        raw = _nested(lean.ORJSON_DEPTH + 10, "extra")
        assert rejected(raw)
        _declined(raw)
        if sys.version_info < (3, 12):
            _declined(real_shaped())
    finally:
        sys.setrecursionlimit(old)
    assert lean.decode(real_shaped()) is not None


@needs_msgspec
@pytest.mark.parametrize("raw", [
    b'\xef\xbb\xbf{"info":{},"messages":[]}',        # a BOM: the caller strips it
    b'[{"role":"system"},{"role":"user"},{"role":"assistant","content":"```bash\\nls\\n```"}]',
    b'{"info":{},"messages":[{"role":"system"},1,{"role":"assistant"}]}',
    b'{"info":{},"messages":null}',
    b'{"info":{}}',
    b'{"messages":[{"role":"system"}]}',             # no info, no trajectory_format
    b'{"messages":[],"trajectory_format":"swe"}',
    b'{"messages":[],"trajectory_format":1}',
    b'{"messages":[],"info":null}',
    b'{"messages":[],"info":{"config":[]}}',
    b'{"messages":[],"info":{},"trajectory":[]}',     # SWE-agent
    b'{"messages":[],"info":{},"history":[{"role":"assistant","action":"ls"}]}',
    b'{"messages":[{"role":"user"}],"fncall_messages":[]}',     # OpenHands completions
    b'{"messages":[],"info":{},"eval":{},"samples":[]}',
    b'"messages"', b"", b"null",
])
def test_other_shapes_and_formats_are_left_to_orjson(always: None, raw: bytes) -> None:
    _declined(raw)


@needs_msgspec
def test_random_corruptions_never_give_other_events(always: None) -> None:
    """Single and double byte mutations of a real-shaped document: whatever msgspec
    accepts, orjson must accept and read into the same events."""
    base = real_shaped()
    rng = random.Random(20251118)
    alphabet = b'"\\{}[],: 0123456789eE+-.ntrufalsx\xff\xc3\x00\n'
    accepted = 0
    for _ in range(1500):
        raw = bytearray(base)
        for _ in range(rng.choice((1, 2))):
            at = rng.randrange(len(raw))
            op = rng.random()
            if op < 0.4:
                raw[at] = rng.choice(alphabet)
            elif op < 0.7:
                del raw[at]
            else:
                raw.insert(at, rng.choice(alphabet))
        accepted += same(bytes(raw))
    assert accepted > 300       # most mutations land in text and stay valid


# --------------------------------------------------------------------------- the threshold


def _scan_in_subprocess(tmp_path: Path, sizes: list[int], after: str | None) -> dict[str, Any]:
    paths = []
    for n, size in enumerate(sizes):
        pad = "x" * max(0, size - 400)
        p = tmp_path / f"{n}.traj.json"
        p.write_bytes(doc_bytes([{"role": "system", "content": "s"},
                                 {"role": "user", "content": "u", "extra": {"pad": pad}},
                                 {"role": "assistant", "content": "```bash\nls /tmp\n```"}]))
        paths.append(str(p))
    code = ("import json, sys\n"
            "from gavelkit.task.anticheat.scan import scan_trajectories\n"
            "from gavelkit.task.anticheat.trajectory import lean\n"
            "seen = []\n"
            "for p in sys.argv[1:]:\n"
            "    r = scan_trajectories([p], workspace=['/testbed'])\n"
            "    seen.append([r.verdict, 'msgspec' in sys.modules, lean._seen])\n"
            "print(json.dumps(seen))\n")
    env = {k: v for k, v in os.environ.items() if k != "GAVEL_SCAN_LEAN_AFTER"}
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    if after is not None:
        env["GAVEL_SCAN_LEAN_AFTER"] = after
    out = subprocess.run([sys.executable, "-c", code, *paths], env=env, capture_output=True,
                         text=True, check=True, timeout=120)
    return json.loads(out.stdout)


def test_below_the_threshold_msgspec_is_not_imported(tmp_path: Path) -> None:
    """A small scan (the agent checking one file) never pays for msgspec's import."""
    seen = _scan_in_subprocess(tmp_path, [2000, 50_000], None)
    assert [s[:2] for s in seen] == [["CLEAN", False], ["CLEAN", False]]
    assert seen[-1][2] < lean.LEAN_AFTER


@needs_msgspec
def test_the_lean_path_starts_once_the_decoded_bytes_reach_the_threshold(tmp_path: Path) -> None:
    seen = _scan_in_subprocess(tmp_path, [30_000, 30_000, 30_000, 2000], "50000")
    assert [s[:2] for s in seen] == [["CLEAN", False], ["CLEAN", True], ["CLEAN", True],
                                     ["CLEAN", True]]
    assert [s[:2] for s in _scan_in_subprocess(tmp_path, [2000], "0")] == [["CLEAN", True]]
    assert [s[:2] for s in _scan_in_subprocess(tmp_path, [90_000], "-1")] == [["CLEAN", False]]


@needs_msgspec
def test_threshold_counts_bytes_and_off_stays_off(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = real_shaped()
    monkeypatch.setattr(lean, "_seen", 0)
    monkeypatch.setattr(lean, "_schema", None)
    monkeypatch.setattr(lean, "LEAN_AFTER", 2 * len(raw))
    assert lean.decode(raw) is None and lean._seen == len(raw)
    assert lean.decode(raw) is not None         # the bytes so far pay for the import
    monkeypatch.setattr(lean, "LEAN_AFTER", -1)
    assert lean.decode(raw) is None


def test_without_msgspec_the_orjson_path_decides(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lean, "_schema", False)      # as after a failed import
    monkeypatch.setattr(lean, "LEAN_AFTER", 0)
    assert lean.decode(real_shaped()) is None
    p = tmp_path / "m.traj.json"
    p.write_bytes(real_shaped())
    assert scan_trajectories([str(p)], workspace=["/testbed"]).verdict == "CLEAN"


@needs_msgspec
def test_scans_agree_both_ways_also_with_a_bom(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "m.traj.json"
    p.write_bytes(b"\xef\xbb\xbf" + real_shaped().replace(b"ls -la /testbed", b"cat /data/x"))
    results = []
    for after in (0, -1):
        monkeypatch.setattr(lean, "LEAN_AFTER", after)
        r = scan_trajectories([str(p)], workspace=["/testbed"], forbid=["/data"])
        results.append((r.verdict, [f.to_dict() for f in r.findings], r.files))
    assert results[0] == results[1] and results[0][0] == "CHEAT_DETECTED"
