"""Hostile files: what a careless or malicious user may hand any gavel command.

Shared by the property test (tests/test_failclosed_property.py) and the
campaign benchmark (benchmarks/failclosed/campaign.py). `plant(kind, path,
outside)` puts one hostile thing at `path`; `outside` is a folder beyond the
command's root that must never be read or changed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# Kinds that need no root privileges to be meaningful (unreadable files are readable by root).
KINDS = ["empty", "binary", "non_utf8", "broken_yaml", "alias_bomb", "deep_json", "deep_yaml",
         "bigint_yaml", "bigint_json", "nan_json", "huge", "fifo", "devzero", "outside_link", "directory",
         "dangling_link", "link_loop", "unreadable", "file_as_folder"]

# A cap small enough that "huge" stays cheap to create; the commands see it via GAVEL_MAX_BYTES.
HUGE_CAP = 1 << 20


def plant(kind: str, path: Path, outside: Path) -> None:
    """Replace whatever is at `path` with one hostile thing of `kind`."""
    _remove(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "binary":
        path.write_bytes(b"\x00\x01\x02PK\x03\x04" * 64)
    elif kind == "non_utf8":
        path.write_bytes(b"handoff:\n  agent: caf\xe9\n  \xff\xfe: x\n")
    elif kind == "broken_yaml":
        path.write_text("handoff: [unclosed\n  - : : {\n", "utf-8")
    elif kind == "alias_bomb":
        lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
        for i in range(1, 10):
            prev = f"*a{i - 1}"
            lines.append(f"a{i}: &a{i} [{', '.join([prev] * 9)}]")
        path.write_text("\n".join(lines) + "\n", "utf-8")
    elif kind == "deep_json":
        path.write_text("[" * 20000 + "]" * 20000, "utf-8")
    elif kind == "deep_yaml":
        path.write_text("x: " + "[" * 5000 + "]" * 5000 + "\n", "utf-8")
    elif kind == "bigint_yaml":
        path.write_text("x: " + "9" * 5000 + "\n", "utf-8")
    elif kind == "bigint_json":
        path.write_text('{"n": ' + "9" * 5000 + "}\n", "utf-8")
    elif kind == "nan_json":
        path.write_text('{"instance_id": NaN, "timeout": Infinity, "pass_rate": NaN}\n', "utf-8")
    elif kind == "huge":
        with open(path, "wb") as fh:
            fh.write(b"# padding line\n" * ((HUGE_CAP * 2) // 15))
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "devzero":
        path.symlink_to("/dev/zero")
    elif kind == "outside_link":
        secret = outside / "secret.txt"
        if not secret.exists():
            secret.write_text("handoff:\n  agent: secret\n", "utf-8")
        path.symlink_to(secret)
    elif kind == "directory":
        path.mkdir()
        (path / "inner.txt").write_text("x\n", "utf-8")
    elif kind == "dangling_link":
        path.symlink_to(path.parent / "no-such-target-anywhere")
    elif kind == "link_loop":
        path.symlink_to(path)
    elif kind == "unreadable":
        path.write_text("handoff:\n  agent: x\n", "utf-8")
        path.chmod(0)
    elif kind == "file_as_folder":
        # the path's parent is a regular file: "X is a file, not a folder"
        parent = path.parent
        _remove(parent)
        parent.write_text("not a folder\n", "utf-8")
    else:
        raise ValueError(kind)


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file() or _is_special(path):
        path.unlink()
    elif path.is_dir():
        import shutil

        shutil.rmtree(path)


def _is_special(path: Path) -> bool:
    try:
        return path.exists() and not path.is_dir() and not path.is_file()
    except OSError:
        return True


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime_ns) of every regular file under `folder`, links not followed."""
    out: dict[str, tuple[int, int]] = {}
    for dirpath, _dirs, files in os.walk(folder):
        for f in files:
            p = os.path.join(dirpath, f)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            out[p] = (st.st_size, st.st_mtime_ns)
    return out


def limit_memory(mb: int = 1536) -> None:
    """preexec_fn: cap the child's address space so a runaway read fails instead of swapping."""
    import resource

    cap = mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def run_gavel(argv: list[str], cwd: Path, timeout: float = 30.0,
              env_extra: dict[str, str] | None = None) -> tuple[int | str, str, str]:
    """Run `python -m gavelkit ARGV` in a child; ("hang", ...) when it outlives `timeout`."""
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parent.parent / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    env["GAVEL_MAX_BYTES"] = str(HUGE_CAP)
    env.pop("GAVEL_DEBUG", None)
    env["MPLBACKEND"] = "Agg"
    env.update(env_extra or {})
    proc = subprocess.Popen([sys.executable, "-m", "gavelkit", *argv], cwd=cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=limit_memory,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        import signal

        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return "hang", out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


# ---- where each command reads or writes a file ---------------------------------------------
# A slot: (name, relative path planted, argv with {ws} for the workspace). The workspace holds
# run/ (a copy of the bundled award run), task/ (the hand-made tally task), pdf/ (a good PDF),
# cards/ (three seat scorecards), out/ (outputs), and outside/ (never to be read or changed).
RUN = "run/work/20260130-0900-mcm26c"
# `task run` scores sol/ (the tally reference) and is prestarted (task.scoring.warm), whose
# early read of task.json comes before the command's own checks
TASK_RUN = ["task", "run", "{ws}/task", "--solution", "{ws}/sol", "--out", "{ws}/out/run",
            "--package", "tally"]
SLOTS: list[tuple[str, str, list[str]]] = [
    ("award lint handoff", "in/handoff.md", ["award", "lint", "handoff", "{ws}/in/handoff.md"]),
    ("award lint gate", "in/gate.yaml", ["award", "lint", "gate", "{ws}/in/gate.yaml"]),
    ("award lint scorecard", "in/card.yaml", ["award", "lint", "scorecard", "{ws}/in/card.yaml"]),
    ("award lint memo", "in/memo.yaml", ["award", "lint", "memo", "{ws}/in/memo.yaml"]),
    ("award lint variant", "in/variant.yaml", ["award", "lint", "variant",
                                               "{ws}/in/variant.yaml"]),
    ("award lint --config", "in/gavel.toml", ["award", "lint", "gate", "--config",
                                              "{ws}/in/gavel.toml",
                                              f"{{ws}}/{RUN}/gates/phase-0-loop-0.yaml"]),
    ("award aggregate", "in/card.yaml", ["award", "aggregate", "{ws}/in/card.yaml",
                                         "--target", "outstanding"]),
    ("award aggregate --memo", "in/memo.md", ["award", "aggregate",
                                              f"{{ws}}/{RUN}/scorecards/phase7-seat-A-round-1.yaml",
                                              f"{{ws}}/{RUN}/scorecards/phase7-seat-B-round-1.yaml",
                                              f"{{ws}}/{RUN}/scorecards/phase7-seat-C-round-1.yaml",
                                              "--target", "outstanding", "--memo",
                                              "{ws}/in/memo.md"]),
    ("award init --variant", "in/variant.yaml", ["award", "init", "--run-id", "new",
                                                 "--root", "{ws}/out", "--variant",
                                                 "{ws}/in/variant.yaml"]),
    ("award status (gate)", f"{RUN}/gates/phase-2-loop-0.yaml", ["award", "status",
                                                                  f"{{ws}}/{RUN}"]),
    ("award status (variant)", f"{RUN}/phase-logs/phase0.md", ["award", "status",
                                                                   f"{{ws}}/{RUN}"]),
    ("award status --config", "in/gavel.toml", ["award", "status", f"{{ws}}/{RUN}",
                                                "--config", "{ws}/in/gavel.toml"]),
    ("award briefs --check", "in/brief.md", ["award", "briefs", "--check", "{ws}/in/brief.md"]),
    ("award briefs (variant)", f"{RUN}/phase-logs/phase0.md", ["award", "briefs",
                                                                   f"{{ws}}/{RUN}", "--out",
                                                                   "{ws}/out/briefs"]),
    ("award manifest", f"{RUN}/outputs/data/extra.csv", ["award", "manifest", f"{{ws}}/{RUN}"]),
    ("award manifest --check", f"{RUN}/package/manifest.md", ["award", "manifest",
                                                              f"{{ws}}/{RUN}", "--check"]),
    ("award pdfqa", "in/paper.pdf", ["award", "pdfqa", "{ws}/in/paper.pdf"]),
    ("award pdfqa --variant", "in/variant.yaml", ["award", "pdfqa", "{ws}/pdf/good.pdf",
                                                  "--variant", "{ws}/in/variant.yaml"]),
    ("award contact-sheet", "in/paper.pdf", ["award", "contact-sheet", "{ws}/in/paper.pdf",
                                             "-o", "{ws}/out/sheet.png", "--no-qa"]),
    ("award contact-sheet -o", "out/sheet.png", ["award", "contact-sheet", "{ws}/pdf/good.pdf",
                                                 "-o", "{ws}/out/sheet.png", "--no-qa"]),
    ("award report (gate)", f"{RUN}/gates/phase-1-loop-0.yaml", ["award", "report",
                                                                  f"{{ws}}/{RUN}", "--no-pdfqa",
                                                                  "-o", "{ws}/out/r.html"]),
    ("award report -o", "out/r.html", ["award", "report", f"{{ws}}/{RUN}", "--no-pdfqa",
                                       "-o", "{ws}/out/r.html"]),
    ("award figqa run", "in/plot.py", ["award", "figqa", "run", "{ws}/in/plot.py",
                                       "--timeout", "20"]),
    ("task state", "task/PIPELINE_STATE.md", ["task", "state", "{ws}/task"]),
    ("task gates (task.json)", "task/task.json", ["task", "gates", "{ws}/task"]),
    ("task gates (spec.md)", "task/spec.md", ["task", "gates", "{ws}/task"]),
    ("task gates (map)", "task/spec_test_map.md", ["task", "gates", "{ws}/task"]),
    ("task gates (kept ids)", "task/kept_nodeids.txt", ["task", "gates", "{ws}/task"]),
    ("task gates (taxonomy)", "task/taxonomy.jsonl", ["task", "gates", "{ws}/task"]),
    ("task gates (requirements)", "task/oracle/requirements.txt", ["task", "gates", "{ws}/task"]),
    ("task gates (oracle test)", "task/oracle/test_atomic.py", ["task", "gates", "{ws}/task"]),
    ("task gates --config", "in/config.toml", ["task", "gates", "{ws}/task", "--config",
                                               "{ws}/in/config.toml"]),
    ("task gates --ledger", "in/CANDIDATES.md", ["task", "gates", "{ws}/task", "--ledger",
                                                 "{ws}/in/CANDIDATES.md"]),
    ("task check-oracle (digests)", "task/oracle_digests.json", ["task", "check-oracle",
                                                                 "{ws}/task", "--dry-run"]),
    ("task spotcheck --verify", "in/spot.md", ["task", "spotcheck", "{ws}/task", "--verify",
                                               "{ws}/in/spot.md"]),
    ("task spotcheck --out", "out/spot.md", ["task", "spotcheck", "{ws}/task", "--out",
                                             "{ws}/out/spot.md"]),
    ("task scan", "in/traj.jsonl", ["task", "scan", "--task", "{ws}/task", "--package", "tally",
                                    "{ws}/in/traj.jsonl"]),
    ("task scan --rules", "in/rules.toml", ["task", "scan", "--task", "{ws}/task", "--package",
                                            "tally", "--rules", "{ws}/in/rules.toml",
                                            "{ws}/traj/ok.jsonl"]),
    ("task judge (score)", "task/candidate-runs/perfect/score_result.json",
     ["task", "judge", "{ws}/task", "--run", "{ws}/task/candidate-runs/perfect", "--no-state",
      "--date", "2026-01-02"]),
    ("task judge --trajectory", "in/traj.jsonl",
     ["task", "judge", "{ws}/task", "--run", "{ws}/task/candidate-runs/perfect", "--no-state",
      "--date", "2026-01-02", "--trajectory", "{ws}/in/traj.jsonl"]),
    ("task run (task.json)", "task/task.json", TASK_RUN),
    ("task run (kept ids)", "task/kept_nodeids.txt", TASK_RUN),
    ("task run (requirements)", "task/oracle/requirements.txt", TASK_RUN),
    ("task run (oracle test)", "task/oracle/test_atomic.py", TASK_RUN),
    ("task run (solution)", "sol/tally/__init__.py", TASK_RUN),
    ("task run --out", "out/run/score_result.json", TASK_RUN),
    ("task solvability (task.json)", "task/task.json",
     ["task", "solvability", "{ws}/task", "--reference", "{ws}/sol", "--out",
      "{ws}/out/ref", "--package", "tally"]),
    ("task report", "task/task.json", ["task", "report", "{ws}/task", "-o", "{ws}/out/t.html"]),
    ("task report -o", "out/t.html", ["task", "report", "{ws}/task", "-o", "{ws}/out/t.html"]),
    ("skills install --from", "skills/mathodology-award-gates/scripts/extra.py",
     ["skills", "install", "--from", "{ws}/skills", "--dest", "{ws}/out/skills"]),
    ("skills install (record)", "out/skills/.gavel-skills.json",
     ["skills", "install", "--from", "{ws}/skills", "--dest", "{ws}/out/skills"]),
]


def build_workspace(ws: Path, repo: Path, judged_task: Path | None = None) -> None:
    """Lay out the good inputs every slot starts from (each slot then spoils one).

    `judged_task` is a tally task already scored (candidate-runs/perfect and
    judge/reference_run), used instead of the bare task so the judge slots reach a verdict.
    """
    import shutil

    src_run = repo / "examples" / "award-run" / "work" / Path(RUN).name
    shutil.copytree(src_run, ws / RUN, symlinks=False)
    good = judged_task or repo / "tests" / "data" / "taskpack" / "task_good"
    shutil.copytree(good, ws / "task", symlinks=True)
    (ws / "pdf").mkdir()
    shutil.copy2(src_run / "paper" / "solution.pdf", ws / "pdf" / "good.pdf")
    for d in ("in", "out", "outside", "traj"):
        (ws / d).mkdir(exist_ok=True)
    from judge_helpers import REFERENCE

    (ws / "sol" / "tally").mkdir(parents=True)
    (ws / "sol" / "tally" / "__init__.py").write_text(REFERENCE, "utf-8")
    (ws / "traj" / "ok.jsonl").write_text(
        '{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]}}\n', "utf-8")
    skill = ws / "skills" / "mathodology-award-gates"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: mathodology-award-gates\n---\nbody\n", "utf-8")
    (skill / "scripts" / "tool.py").write_text("print('x')\n", "utf-8")
