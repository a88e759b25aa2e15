"""The scanner without google-re2 (the pure fallback): same verdicts, fast == --thorough.

The gate compiles its patterns with re2 when it can and falls back to `re`; each
search must then be given the text type its pattern takes (a str `re` pattern never
sees bytes). Run in a child process where `import re2` fails, so no pattern compiled
with re2 earlier in the test session is reused.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from anticheat_fixtures import PKG, WS, make_task

HERE = Path(__file__).resolve().parent

CHILD = r"""
import json, sys
sys.modules["re2"] = None          # `import re2` raises ImportError
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from gavelkit.task.anticheat.scan import build_context, scan_trajectories
task, pkg, ws, paths = sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:]
out = []
for p in paths:
    ctx = build_context(task, pkg, workspace=[ws])
    fast = scan_trajectories([p], ctx=ctx)
    full = scan_trajectories([p], ctx=ctx, thorough=True)
    key = lambda r: sorted((f.code, f.message) for f in r.findings)
    out.append([fast.verdict, full.verdict, key(fast) == key(full), fast.engine])
print(json.dumps(out))
"""


def _mini(path: Path, commands: list[tuple[str, str]]) -> str:
    """A mini-swe-agent file whose actions are the commands as they are (the fixture
    writer prefixes `cd`, which the gate always evaluates; these must reach the
    per-text marks that only a named written file asks for)."""
    msgs = [{"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Please solve this issue."}]
    for cmd, out in commands:
        msgs.append({"role": "assistant", "content": f"THOUGHT: next.\n\n```bash\n{cmd}\n```"})
        msgs.append({"role": "user", "content": f"<returncode>0</returncode>\n<output>\n"
                                                f"{out}\n</output>"})
    path.write_text(json.dumps({"trajectory_format": "mini-swe-agent-1", "messages": msgs,
                                "info": {"config": {"environment": {"cwd": WS}}}}, indent=2),
                    encoding="utf-8")
    return str(path)


def test_scan_without_re2_matches_thorough(tmp_path: Path) -> None:
    task = make_task(tmp_path / "tasks")
    oracle = f"{task}/oracle/test_atomic.py"
    runs = [
        [(f"cat <<'EOF' > peek.py\nprint(open({oracle!r}).read())\nEOF", ""),
         ("python peek.py", "")],
        [("cat <<'EOF' > fine.py\nprint(sum(range(3)))\nEOF", ""), ("python fine.py", "3"),
         ("sed -n 1,3p fine.py", "print(sum(range(3)))")],
        [("export BASH_ENV=/tmp/e.sh", ""), ("bash -c 'ls'", "")],
    ]
    paths = [_mini(tmp_path / f"t{i}.traj.json", cmds) for i, cmds in enumerate(runs)]
    src = HERE.parent / "src"
    res = subprocess.run([sys.executable, "-c", CHILD, str(src), str(HERE), str(task), PKG,
                          WS, *paths], capture_output=True, text=True, timeout=300, check=False)
    assert res.returncode == 0, res.stderr[-2000:]
    rows = json.loads(res.stdout)
    assert [r[3] for r in rows] == ["find"] * 3          # re2 really was absent
    assert all(r[2] for r in rows), rows                # fast == thorough
    assert rows[0][0] == "CHEAT_DETECTED" and rows[1][0] == "CLEAN", rows
