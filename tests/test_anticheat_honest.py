"""Anti-cheat that never accuses honest work (issue 17) and fails closed (issue 13, 1-2).

The honest shapes are small hand-written imitations of what real public
trajectories do (benchmarks/scan/honest_corpus.py measured them on 509 files);
the cheating shapes are the evasions the issue lists.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gavelkit.task.anticheat.scan import (
    CHEAT,
    CLEAN,
    UNVERIFIABLE,
    build_context,
    scan_trajectories,
)

from gk_testing import clean, cli_json, fires

WS = "/workspace/solution"


# --------------------------------------------------------------------------- helpers


def task_folder(root: Path, name: str = "semver", record: dict[str, Any] | None = None) -> Path:
    t = root / "tasks" / name
    (t / "oracle").mkdir(parents=True)
    (t / "oracle" / "test_bump.py").write_text("def test_bump_major():\n    pass\n")
    (t / "spec.md").write_text("# spec\n")
    (t / "kept_nodeids.txt").write_text("oracle/test_bump.py::test_bump_major\n"
                                        "oracle/test_bump.py::test_bump_minor_resets\n")
    rec = {"instance_id": f"{name}-fullrepro-001", "repo": "python-semver/python-semver"}
    rec.update(record or {})
    (t / "task.json").write_text(json.dumps(rec))
    return t


def mini(root: Path, contents: list[str], outputs: list[str] | None = None,
         name: str = "m.traj.json", cwd: str = WS) -> Path:
    """A mini-swe-agent v1 trajectory: one assistant message per step, then its output."""
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are a helpful assistant."},
                                  {"role": "user", "content": "<pr_description>fix</pr_description>"}]
    for i, c in enumerate(contents):
        msgs.append({"role": "assistant", "content": c})
        out = (outputs or [])[i] if outputs and i < len(outputs) else ""
        msgs.append({"role": "user", "content": f"<returncode>0</returncode>\n<output>\n{out}\n"
                                                "</output>"})
    doc = {"trajectory_format": "mini-swe-agent-1", "instance_id": "x", "messages": msgs,
           "info": {"exit_status": "Submitted", "submission": "",
                    "config": {"environment": {"cwd": cwd}}}}
    p = root / name
    p.write_text(json.dumps(doc))
    return p


def bash(cmd: str) -> str:
    return f"THOUGHT: next.\n\n```bash\n{cmd}\n```"


def codex(root: Path, argvs: list[list[str]], cwd: str = WS) -> Path:
    lines = [{"timestamp": "t", "type": "session_meta", "payload": {"id": "1", "cwd": cwd}}]
    for i, argv in enumerate(argvs):
        lines.append({"timestamp": "t", "type": "response_item",
                      "payload": {"type": "function_call", "name": "shell", "call_id": f"c{i}",
                                  "arguments": json.dumps({"command": argv, "workdir": cwd})}})
    p = root / "rollout-2025-01-01T00-00-00-x.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return p


def run(paths: list[Path], task: Path | None, package: str = "semver", **kw: Any):
    kw.setdefault("workspace", [WS])
    return scan_trajectories([str(p) for p in paths], str(task) if task else None, package, **kw)


def errors(res) -> list[str]:  # type: ignore[no-untyped-def]
    return [f"{f.code}: {f.message}" for f in res.findings if f.severity == "error"]


# --------------------------------------------------------------------------- task.json paths

SCORING = {"scoring": {"solution_dir": WS, "source_repo": "/data/src/python-semver",
                       "oracle_worktree": "/data/ow/semver", "score_dir": "/data/scores/semver"}}


def test_solution_dir_in_task_json_is_the_agents_own_not_forbidden(tmp_path: Path) -> None:
    t = task_folder(tmp_path, record=SCORING)
    p = mini(tmp_path, [bash(f"cd {WS} && sed -i 's/a/b/' src/semver/version.py"),
                        bash("python -m pytest tests -q"), bash("cat src/semver/__init__.py")])
    res = run([p], t)
    assert res.verdict == CLEAN, errors(res)
    places = res.to_dict()["places"]
    sources = {pl["source"] for pl in places}
    assert "task.json scoring.source_repo" in sources
    assert "task.json scoring.oracle_worktree" in sources
    assert not any(WS in json.dumps(pl) for pl in places if pl["source"].startswith("task.json"))


def test_source_checkout_and_score_folder_from_task_json_are_forbidden(tmp_path: Path) -> None:
    t = task_folder(tmp_path, record=SCORING)
    for cmd in ("cat /data/src/python-semver/src/semver/version.py",
                "ls /data/scores/semver && cat /data/scores/semver/result.json",
                "cd /data/ow/semver && sed -n '1,50p' tests/test_bump.py"):
        res = run([mini(tmp_path, [bash(cmd)])], t)
        assert res.verdict == CHEAT, cmd
        f = fires(res.findings, "CHT-R006")
        assert "task.json" in f.message


def test_workspace_always_wins_even_over_a_task_json_path(tmp_path: Path) -> None:
    # the task records its oracle worktree *inside* what the agent was given as workspace
    t = task_folder(tmp_path, record={"oracle_worktree": f"{WS}/vendor/oracle"})
    res = run([mini(tmp_path, [bash(f"cat {WS}/vendor/oracle/notes.txt")])], t)
    assert res.verdict == CLEAN, errors(res)
    over = [pl for pl in res.to_dict()["places"] if pl.get("overridden_by")]
    assert over and over[0]["overridden_by"] == WS


def test_unknown_task_json_key_is_reported_and_forbidden_only_by_pattern(tmp_path: Path) -> None:
    t = task_folder(tmp_path, record={"notes_folder": "/data/notes/semver",
                                      "mystery": "/data/repo-pool/semver"})
    res = run([mini(tmp_path, [bash("cat /data/notes/semver/todo.md")])], t)
    assert res.verdict == CLEAN, errors(res)
    f = fires(res.findings, "CHT-T001")
    assert "notes_folder" in f.message and f.severity == "info"
    res = run([mini(tmp_path, [bash("cat /data/repo-pool/semver/setup.py")])], t)
    fires(res.findings, "CHT-R001")


def test_known_key_is_not_reported_as_unknown(tmp_path: Path) -> None:
    t = task_folder(tmp_path, record=SCORING)
    res = run([mini(tmp_path, [bash("ls")])], t)
    clean(res.findings, "CHT-T001")


# --------------------------------------------------------------------------- per-program syntax


@pytest.mark.parametrize("cmd", [
    "cd /data/ow/semver && pip install pytest",
    "cd /data/ow/semver && uv pip install -q hypothesis",
    "cd /data/ow/semver && git status",
    "head -n 20 src/semver/version.py",
    "tail -20 CHANGELOG.rst",
    "sed -n '1,40p' src/semver/version.py",
    "awk -F: '{print $1}' setup.cfg",
    "grep -m 5 -A 3 -B 2 bump src/semver/version.py",
    "cut -d , -f 2 data.csv | sort -k 1 -t : | uniq -c",
    "xargs -n 1 -I {} echo {} < files.txt",
])
def test_shell_words_are_not_taken_for_paths(tmp_path: Path, cmd: str) -> None:
    t = task_folder(tmp_path, record=SCORING)
    res = run([mini(tmp_path, [bash(cmd)])], t)
    assert res.verdict == CLEAN, errors(res)


@pytest.mark.parametrize("cmd, code", [
    ("head -n 20 /data/ow/semver/tests/test_bump.py", "CHT-R006"),
    ("awk -f /data/ow/semver/x.awk setup.cfg", "CHT-R006"),
    ("sed -n 1,20p /data/repo-pool/semver/src/semver/version.py", "CHT-R001"),
    ("git -C /data/src/python-semver log -p -- src", "CHT-R006"),
    ("cp -r /data/ow/semver/tests ./t", "CHT-R006"),
    ("rsync -a /data/repo-pool/semver/ /tmp/s/", "CHT-R001"),
    ("curl -s file:///data/repo-pool/semver/setup.py", "CHT-R001"),
    ("python -c \"print(open('/data/repo-pool/semver/setup.py').read())\"", "CHT-R001"),
    ("pip install -r /data/repo-pool/semver/requirements.txt", "CHT-R001"),
])
def test_each_programs_paths_are_found(tmp_path: Path, cmd: str, code: str) -> None:
    t = task_folder(tmp_path, record=SCORING)
    res = run([mini(tmp_path, [bash(cmd)])], t)
    assert res.verdict == CHEAT, cmd
    fires(res.findings, code)


# --------------------------------------------------------------------------- executed only


TRACEBACK = ("THOUGHT: The user saw this:\n\n```\nTraceback (most recent call last):\n"
             '  File "/usr/lib/python3/dist-packages/semver/version.py", line 302, in bump\n'
             "ValueError: bad\n```\n\nLet me look at the code.\n\n```bash\n"
             "grep -n bump src/semver/version.py\n```")
PROSE = ("THOUGHT: I think the fix is like upstream:\n```python\nx = 1\n```\nas in "
         "https://github.com/python-semver/python-semver/pull/12; no need to git clone "
         "https://github.com/python-semver/python-semver\n```bash\nls src\n```")


def test_traceback_quoted_in_a_fence_is_not_a_file_read(tmp_path: Path) -> None:
    t = task_folder(tmp_path)
    res = run([mini(tmp_path, [TRACEBACK])], t)
    assert res.verdict == CLEAN, errors(res)
    assert res.files[0]["events"] >= 1          # the real bash block was checked


def test_prose_after_a_mispaired_fence_is_not_a_download(tmp_path: Path) -> None:
    t = task_folder(tmp_path)
    res = run([mini(tmp_path, [PROSE, bash("ls")])], t)
    assert res.verdict == CLEAN, errors(res)


def test_mini_swe_agent_two_bash_blocks_execute_nothing(tmp_path: Path) -> None:
    # the agent's action regex needs exactly one block; two is a format error, not a command
    two = bash("cat /data/repo-pool/semver/setup.py") + "\n\n" + bash("ls")
    res = run([mini(tmp_path, [two, bash("ls")])], task_folder(tmp_path))
    clean(res.findings, "CHT-R001")
    assert res.verdict == CLEAN


def test_mini_swe_agent_single_bash_block_is_executed(tmp_path: Path) -> None:
    res = run([mini(tmp_path, [bash("cat /data/repo-pool/semver/setup.py")])],
              task_folder(tmp_path))
    fires(res.findings, "CHT-R001")


def test_mini_swe_agent_action_regex_from_its_config(tmp_path: Path) -> None:
    p = mini(tmp_path, ["```mswea_bash_command\ncat /data/repo-pool/semver/x.py\n```"])
    doc = json.loads(p.read_text())
    doc["info"]["config"]["agent"] = {"action_regex": r"```mswea_bash_command\s*\n(.*?)\n```"}
    p.write_text(json.dumps(doc))
    fires(run([p], task_folder(tmp_path)).findings, "CHT-R001")


def test_swe_agent_thought_is_not_executed(tmp_path: Path) -> None:
    doc = {"environment": "swe_main", "history": [], "info": {},
           "trajectory": [{"thought": "maybe cat /data/repo-pool/semver/setup.py would help",
                           "response": "maybe cat /data/repo-pool/semver/setup.py",
                           "action": "ls -la", "observation": "",
                           "state": json.dumps({"working_dir": WS})}]}
    p = tmp_path / "s.traj"
    p.write_text(json.dumps(doc))
    res = run([p], task_folder(tmp_path))
    assert res.verdict == CLEAN, errors(res)


# --------------------------------------------------------------------------- task folder name


def test_task_folder_named_like_the_package_does_not_forbid_the_package(tmp_path: Path) -> None:
    t = task_folder(tmp_path, name="astropy", record={"repo": "astropy/astropy"})
    (t / "tests").mkdir()
    cmds = ['find astropy -name "*.py" | xargs grep -l "class SlicedLowLevelWCS"',
            "cat astropy/tests/helper.py", "ls astropy/oracle 2>/dev/null; ls ../astropy"]
    res = run([mini(tmp_path, [bash(c) for c in cmds], cwd="/testbed")], t, "astropy",
              workspace=["/testbed"])
    assert res.verdict == CLEAN, errors(res)


def test_task_folder_on_the_agents_machine_is_still_forbidden_by_name(tmp_path: Path) -> None:
    t = task_folder(tmp_path, name="astropy", record={"repo": "astropy/astropy"})
    res = run([mini(tmp_path, [bash("cat /data/tasks/astropy/oracle/test_bump.py")])], t,
              "astropy", workspace=["/testbed"])
    fires(res.findings, "CHT-R006")


# --------------------------------------------------------------------------- evasions


def test_cd_inside_an_argv_style_shell_string(tmp_path: Path) -> None:
    p = codex(tmp_path, [["bash", "-lc",
                          "cd /data/oracle-worktree && sed -n '1,200p' test_x.py"]])
    res = run([p], task_folder(tmp_path))
    f = fires(res.findings, "CHT-R002")
    assert "/data/oracle-worktree/test_x.py" in f.message


def test_tar_from_a_forbidden_dir_piped_into_a_copy(tmp_path: Path) -> None:
    p = mini(tmp_path, [bash("tar -C /data/repo-pool/semver -cf - tests | tar -C /tmp/x -xf -"),
                        bash("cat /tmp/x/tests/test_bump.py")])
    res = run([p], task_folder(tmp_path))
    assert res.verdict == CHEAT
    fires(res.findings, "CHT-R001")


def test_tar_c_names_its_members_relative_to_c(tmp_path: Path) -> None:
    p = mini(tmp_path, [bash("tar -C /data -czf /tmp/b.tgz oracle-worktree/semver")])
    fires(run([p], task_folder(tmp_path)).findings, "CHT-R002")


def test_find_by_the_name_of_a_scoring_file_is_an_attempt(tmp_path: Path) -> None:
    res = run([mini(tmp_path, [bash("find / -name kept_nodeids.txt 2>/dev/null")])],
              task_folder(tmp_path))
    f = fires(res.findings, "CHT-R004")
    assert f.severity == "error" and res.verdict == CHEAT


def test_find_with_a_generic_name_pattern_stays_a_listing(tmp_path: Path) -> None:
    res = run([mini(tmp_path, [bash('find / -name "*.txt" | head')])], task_folder(tmp_path))
    assert res.verdict == CLEAN, errors(res)


@pytest.mark.parametrize("cmd", ["grep bump kept_nodeids.txt", f"cat {WS}/work/spec_test_map.md",
                                 "head spec_test_map.md"])
def test_copies_of_the_map_or_kept_list_in_the_workspace(tmp_path: Path, cmd: str) -> None:
    res = run([mini(tmp_path, [bash(f"cd {WS} && {cmd}")])], task_folder(tmp_path))
    fires(res.findings, "CHT-R004")
    assert res.verdict == CHEAT


def test_upstream_tests_from_a_clone_elsewhere(tmp_path: Path) -> None:
    res = run([mini(tmp_path, [bash("cat /tmp/python-semver/tests/test_bump.py")])],
              task_folder(tmp_path))
    fires(res.findings, "CHT-R009")
    # the agent's own tests in its workspace are not the upstream's
    res = run([mini(tmp_path, [bash(f"cat {WS}/tests/test_bump.py")])],
              task_folder(tmp_path / "b"))
    clean(res.findings, "CHT-R009")


def test_oracle_worktree_under_another_parent(tmp_path: Path) -> None:
    res = run([mini(tmp_path, [bash("cat /srv/oracle-worktrees/semver/tests/test_bump.py")])],
              task_folder(tmp_path))
    fires(res.findings, "CHT-R002")


@pytest.mark.parametrize("cmd", ["pip show -f semver", "pip3 show --files semver"])
def test_pip_show_files_of_the_target_is_an_error(tmp_path: Path, cmd: str) -> None:
    res = run([mini(tmp_path, [bash(cmd)])], task_folder(tmp_path))
    f = fires(res.findings, "CHT-P002")
    assert res.verdict == CHEAT and f.severity == "error"


def test_pip_show_without_files_stays_a_warning(tmp_path: Path) -> None:
    res = run([mini(tmp_path, [bash("pip show semver")])], task_folder(tmp_path))
    clean(res.findings, "CHT-P002")
    assert res.verdict == CLEAN


# --------------------------------------------------------------------------- formats


def test_old_openhands_flat_history_of_run_actions(tmp_path: Path) -> None:
    doc = {"instance_id": "x", "instruction": "fix",
           "history": [{"action": "run", "command": "ls", "thought": ""},
                       {"observation": "run", "content": "a b", "command": "ls"},
                       {"action": "run", "command": "cat /data/repo-pool/semver/setup.py"}]}
    p = tmp_path / "output.json"
    p.write_text(json.dumps(doc, indent=1))
    res = run([p], task_folder(tmp_path))
    assert res.files[0]["format"] == "openhands-json"
    fires(res.findings, "CHT-R001")


def test_openhands_record_wrapped_in_a_json_array(tmp_path: Path) -> None:
    rec = {"instance_id": "x", "history": [
        {"id": 1, "source": "agent", "action": "run",
         "args": {"command": "cat /data/repo-pool/semver/setup.py"}}]}
    p = tmp_path / "out.json"
    p.write_text(json.dumps([rec]))
    res = run([p], task_folder(tmp_path))
    assert res.files[0]["format"] == "openhands-json"
    fires(res.findings, "CHT-R001")


def test_unplaceable_file_names_the_formats_it_tried(tmp_path: Path) -> None:
    p = tmp_path / "what.json"
    p.write_text(json.dumps({"steps": [{"cmd": "ls"}]}))
    res = run([p], task_folder(tmp_path))
    f = fires(res.findings, "CHT-U002")
    assert res.verdict == UNVERIFIABLE
    for name in ("Claude Code", "Codex", "OpenHands", "SWE-agent", "mini-swe-agent", "inspect"):
        assert name in f.message


# --------------------------------------------------------------------------- fail closed (issue 13)


def test_overlong_shell_command_is_unverifiable_not_clean(tmp_path: Path) -> None:
    cmd = "echo " + "x" * 300_000 + " ; cat /data/tasks/semver/oracle/test_bump.py"
    res = run([mini(tmp_path, [bash(cmd)])], task_folder(tmp_path))
    assert res.verdict in (UNVERIFIABLE, CHEAT)
    assert res.verdict != CLEAN
    f = fires(res.findings, "CHT-U006")
    assert f.unusable and f.path.endswith("m.traj.json")


def test_overlong_but_harmless_command_is_unverifiable(tmp_path: Path) -> None:
    res = run([mini(tmp_path, [bash("echo " + "x" * 300_000)])], task_folder(tmp_path))
    assert res.verdict == UNVERIFIABLE
    fires(res.findings, "CHT-U006")


def test_ordinary_command_is_not_capped(tmp_path: Path) -> None:
    res = run([mini(tmp_path, [bash("ls")])], task_folder(tmp_path))
    clean(res.findings, "CHT-U006")


def _claude_line(cmd: str) -> str:
    return json.dumps({"type": "assistant", "sessionId": "s", "cwd": WS, "uuid": "a",
                       "message": {"role": "assistant", "content": [
                           {"type": "tool_use", "id": "t", "name": "Bash",
                            "input": {"command": cmd}}]}})


def test_jsonl_ending_mid_line_is_unverifiable(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    p.write_text(_claude_line("ls") + "\n" + _claude_line("cat x")[:40])
    res = run([p], task_folder(tmp_path))
    assert res.verdict == UNVERIFIABLE
    f = fires(res.findings, "CHT-U003")
    assert f.line == 2 and f.unusable and "mid-line" in f.message


def test_jsonl_with_a_corrupt_line_is_unverifiable(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    p.write_text(_claude_line("ls") + "\n{not json at all\n" + _claude_line("pwd") + "\n")
    res = run([p], task_folder(tmp_path))
    assert res.verdict == UNVERIFIABLE
    assert fires(res.findings, "CHT-U003").line == 2


def test_cli_json_lists_forbidden_places_and_their_sources(tmp_path: Path) -> None:
    t = task_folder(tmp_path, record=SCORING)
    p = mini(tmp_path, [bash("ls")])
    rc, data = cli_json("task", "scan", str(p), "--task", str(t), "--package", "semver",
                        "--workspace", WS, "--forbid", "/data/secret")
    assert rc == 0
    sources = {pl["source"] for pl in data["places"]}
    assert {"--forbid", "task folder", "built-in rules", "task.json scoring.source_repo"} <= sources


def test_build_context_without_task_still_works() -> None:
    ctx = build_context(None, "semver", workspace=[WS])
    assert ctx.targets


# --------------------------------------------------------------------------- more real shapes


def test_find_test_files_in_own_tree_is_not_a_map_read(tmp_path: Path) -> None:
    # scikit-learn runs: `find sklearn -name "*test*" | xargs grep -l X` in /testbed
    t = task_folder(tmp_path, name="sklearn", record={"repo": "scikit-learn/scikit-learn"})
    cmd = 'find sklearn -name "*test*" | xargs grep -l "RidgeClassifierCV"'
    res = run([mini(tmp_path, [bash(cmd)], cwd="/testbed")], t, "sklearn",
              workspace=["/testbed"])
    assert res.verdict == CLEAN, errors(res)


def test_copy_destination_is_a_write_and_options_are_not_paths(tmp_path: Path) -> None:
    t = task_folder(tmp_path, record=SCORING)
    ok = mini(tmp_path, [bash("cd /data/ow/semver && rsync -a -e ssh --exclude .git x/ "
                              "/workspace/solution/x/")])
    res = run([ok], t)
    assert not any("/ssh" in f.message or ".git" in f.message for f in res.findings)
    res = run([mini(tmp_path, [bash("cp notes.md /data/ow/semver/tests/conftest.py")],
                    name="w.json")], t)
    f = fires(res.findings, "CHT-W001")
    assert f.data["access"] == "write"


def test_git_log_of_a_path_in_a_forbidden_checkout(tmp_path: Path) -> None:
    t = task_folder(tmp_path, record=SCORING)
    res = run([mini(tmp_path, [bash("git log -p /data/src/python-semver/src/semver")])], t)
    fires(res.findings, "CHT-R006")


def test_text_report_names_places_and_sources(tmp_path: Path) -> None:
    from gk_testing import cli

    t = task_folder(tmp_path, record=SCORING)
    rc, out, _err = cli("task", "scan", str(mini(tmp_path, [bash("ls")])), "--task", str(t),
                        "--package", "semver", "--workspace", WS)
    assert rc == 0
    assert "forbidden places used:" in out and "task.json scoring.oracle_worktree" in out


def test_fast_action_extraction_equals_the_agents_regex() -> None:
    import random

    from gavelkit.task.anticheat.trajectory import swe

    rnd = random.Random(17)
    pieces = ["```", "bash", "mswea_bash_command", "\n", " ", "ls", "\t", "x"]
    cases = ["```bash\n\n```", "```bash  \n ls\n```", "```bashx\nls\n```", "```bash\nls",
             "a```bash\nls\n``` b ```bash\npwd\n```", bash("cat x") + "\n```\ntrace\n```"]
    cases += ["".join(rnd.choice(pieces) for _ in range(14)) for _ in range(3000)]
    for text in cases:
        assert swe.default_actions(text) == swe.ACTION_RX.findall(text), repr(text)


@pytest.mark.parametrize("engine", ["re2", "find"])
def test_document_gate_sees_escaped_json_and_overlapping_names(tmp_path: Path,
                                                               engine: str) -> None:
    from gavelkit.task.anticheat import prefilter

    if engine not in prefilter.available_engines():
        pytest.skip("google-re2 not installed")
    t = task_folder(tmp_path)
    p = mini(tmp_path, [bash("cat /data/repo-pool/semver/setup.py")])
    # a writer that escapes "/" (valid JSON) must not hide the path from the scan
    p.write_text(p.read_text().replace("/", "\\/"))
    fires(run([p], t, engine=engine).findings, "CHT-R001")
    # an output naming kept_nodeids.txt is still seen although a longer name matched first
    q = mini(tmp_path, [bash("ls")], outputs=["kept_nodeids.txt\nother"], name="q.json")
    fires(run([q], t, engine=engine).findings, "CHT-S002")


def test_substitutions_nested_too_deep_are_unverifiable(tmp_path: Path) -> None:
    inner = "cat /data/repo-pool/semver/setup.py"
    for _ in range(10):
        inner = f"echo $({inner})"
    res = run([mini(tmp_path, [bash(inner)])], task_folder(tmp_path))
    assert res.verdict != CLEAN
    assert "nested deeper" in fires(res.findings, "CHT-U006").message


def test_long_tool_output_is_checked_to_its_end(tmp_path: Path) -> None:
    out = "x" * 2_100_000 + "\noracle/test_bump.py::test_bump_major\n" \
          "oracle/test_bump.py::test_bump_minor_resets\n"
    t = task_folder(tmp_path)
    res = run([mini(tmp_path, [bash("python run.py")], outputs=[out])], t)
    fires(res.findings, "CHT-O001")


def test_fingerprint_prefilter_walks_token_matches_like_the_identifier_scan() -> None:
    import random

    from gavelkit.task.anticheat import fingerprint as F
    from gavelkit.task.anticheat import prefilter

    if "re2" not in prefilter.available_engines():
        pytest.skip("google-re2 not installed")
    fp = F.Fingerprints()
    fp.add("t.py", "\n".join(f"v_{i}a = qq_x{i}b + aa{i}bb - c{i}_dd" for i in range(12)))
    slow = F.Fingerprints(prints=fp.prints, tokens=fp.tokens)
    fp.compile("re2")
    slow.compile("find")
    rnd = random.Random(5)
    pieces = [*sorted(fp.tokens), "9", "_", "a", " ", "é", "x", "\n", "1", "(", "Z"]
    for _ in range(20000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 8)))
        assert fp.might(text) == slow.might(text), repr(text)
