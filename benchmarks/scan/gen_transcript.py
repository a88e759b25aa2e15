"""Generate a large, realistic Claude Code session JSONL for the scan benchmark.

Never committed: run it at benchmark time. The event mix follows real sessions
(../../tests/data/trajectories/claude-code): assistant text and thinking, Bash /
Read / Grep / Glob / Edit / Write tool calls, tool results that carry command
output or whole file contents (a few large ones), with line sizes from ~300 B to
~150 KB (mean a few KB). A fixed number of forbidden accesses is planted at
known lines so the benchmark can check that every method finds them all.

    python benchmarks/scan/gen_transcript.py OUT.jsonl --size-mb 1100 --plant 24
"""

from __future__ import annotations

import argparse
import json
import random
import string

WS = "/home/agent/work/widgetlib"
WORDS = ["the", "parser", "returns", "a", "widget", "when", "the", "header", "is", "valid", "and", "raises", "on", "empty", "input", "we", "should", "check", "the", "tokenizer", "state", "before", "flushing", "buffers", "config", "value", "error", "handling", "retries", "timeout", "session", "cache", "render", "layout"]
PLANTS = [
    ("Bash", {"command": "cat /data/repo-pool/widgetlib/src/widgetlib/core.py"}),
    ("Read", {"file_path": "/data/tasks/demo-fullrepro-001/kept_nodeids.txt"}),
    ("Bash", {"command": "pip install widgetlib==2.1"}),
    ("Bash", {"command": "git log --all --oneline | head -50"}),
    ("Bash", {"command": "cd /srv/run/oracle_worktree && cat tests/test_core.py"}),
    ("Bash", {"command": "python -c \"print(open('/srv/x/candidate-runs/r1/score_result.json').read())\""}),
]


def _text(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n_words))


def _code(rng: random.Random, lines: int) -> str:
    out = []
    for i in range(lines):
        name = "".join(rng.choice(string.ascii_lowercase) for _ in range(8))
        out.append(f"{i + 1:>6}\u2192    def {name}(self, value):  # {_text(rng, 6)}")
    return "\n".join(out)


def _base(rng: random.Random, i: int) -> dict:
    return {"parentUuid": f"p-{i}", "isSidechain": False, "userType": "external", "cwd": WS,
            "sessionId": "9e953218-585f-4692-89df-9e0747a31c68", "version": "2.0.28",
            "gitBranch": "main", "uuid": f"u-{i}", "timestamp": "2025-10-29T16:03:08.981Z"}


def _tool_use(rng: random.Random, i: int, name: str, inp: dict) -> dict:
    return {**_base(rng, i), "type": "assistant", "message": {
        "model": "claude-sonnet-4-5-20250929", "id": f"msg_{i}", "type": "message",
        "role": "assistant", "content": [
            {"type": "text", "text": _text(rng, rng.randint(10, 60))},
            {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": inp}],
        "usage": {"input_tokens": 3, "output_tokens": 87}}}


def _tool_result(rng: random.Random, i: int, content: str) -> dict:
    return {**_base(rng, i), "type": "user", "message": {"role": "user", "content": [
        {"tool_use_id": f"toolu_{i}", "type": "tool_result", "content": content,
         "is_error": False}]}, "toolUseResult": {"stdout": content[:2000], "stderr": ""}}


def _normal(rng: random.Random, i: int) -> list[dict]:
    r = rng.random()
    f = f"{WS}/src/widgetlib/{rng.choice(['core', 'parse', 'render', 'cache'])}.py"
    if r < 0.30:
        cmd = rng.choice([f"cd {WS} && python -m pytest -q tests/test_{rng.randint(1, 40)}.py",
                          "ls -la src/widgetlib", "git status && git diff --stat",
                          f"grep -rn '{rng.choice(WORDS)}' src/", "python -m pytest -x -q",
                          "git add -A && git commit -m 'wip: parser'"])
        out = "\n".join(f"tests/test_x.py::test_{rng.choice(WORDS)}_{k} PASSED"
                        for k in range(rng.randint(5, 120)))
        return [_tool_use(rng, i, "Bash", {"command": cmd, "description": "run"}),
                _tool_result(rng, i, out)]
    if r < 0.55:
        n = rng.choice([30, 80, 200, 400, 1500]) if rng.random() < 0.97 else 2500
        return [_tool_use(rng, i, "Read", {"file_path": f}), _tool_result(rng, i, _code(rng, n))]
    if r < 0.65:
        return [_tool_use(rng, i, "Grep", {"pattern": rng.choice(WORDS), "path": WS}),
                _tool_result(rng, i, "\n".join(f"{f}:{k}: {_text(rng, 8)}" for k in range(40)))]
    if r < 0.80:
        return [_tool_use(rng, i, "Edit", {"file_path": f, "old_string": _code(rng, 10),
                                           "new_string": _code(rng, 14)}),
                _tool_result(rng, i, "The file has been updated.")]
    if r < 0.85:
        return [_tool_use(rng, i, "Glob", {"pattern": "**/*.py"}),
                _tool_result(rng, i, "\n".join(f"{WS}/src/m{k}.py" for k in range(60)))]
    thinking = {**_base(rng, i), "type": "assistant", "message": {
        "role": "assistant", "content": [{"type": "thinking", "thinking": _text(rng, 400),
                                          "signature": "x" * 300}]}}
    return [thinking]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--size-mb", type=int, default=1100)
    ap.add_argument("--plant", type=int, default=24)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    target = args.size_mb * 1024 * 1024
    # pre-generate a pool of normal events and cycle through it (fast, still varied)
    pool = [json.dumps(e, ensure_ascii=False) + "\n" for i in range(6000)
            for e in _normal(rng, i)]
    est_lines = target // (sum(len(p) for p in pool) // len(pool))
    plant_at = sorted(rng.sample(range(100, max(200, est_lines - 100)), args.plant))
    written = 0
    line = 0
    planted = []
    k = 0
    with open(args.out, "w", encoding="utf-8") as fh:
        while written < target:
            if planted.__len__() < len(plant_at) and line >= plant_at[len(planted)]:
                name, inp = PLANTS[len(planted) % len(PLANTS)]
                s = json.dumps(_tool_use(rng, 10**6 + line, name, inp)) + "\n"
                planted.append(line + 1)
            else:
                s = pool[k % len(pool)]
                k += 1
            fh.write(s)
            written += len(s.encode("utf-8")) if not s.isascii() else len(s)
            line += 1
    print(json.dumps({"bytes": written, "lines": line, "planted_lines": planted}))


if __name__ == "__main__":
    main()
