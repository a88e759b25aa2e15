"""gavelkit as users get it: a wheel, a skill folder copied on its own, a pre-commit hook.

Everything here installs from the package index (pip, in fresh virtualenvs), so it is not in
the default test run; CI runs it after the test suite (.ci/run). Steps:

1. build the sdist and the wheel (`python -m build`), `twine check` both, and look inside
   the wheel (skills and examples bundled, no byte code, no run outputs);
2. install the wheel, non-editable, into a fresh venv and, from an empty folder, run
   `gavel demo` end to end and `gavel award lint`, `award pdfqa`, `task solvability`,
   `task run` and `task judge` (QUALIFIED, as the demo judges it) on a user's own copies;
3. from that install, `gavel skills install --only mathodology-award-gates`, copy the folder
   into another project, delete the first, and run seed 000 §7's five invocations and each
   script's --self-test in a venv that has only PyYAML, matplotlib, numpy, pypdfium2 and
   Pillow pip-installed; in a venv with only PyYAML, the PDF scripts name the exact pip
   command, which is then run as printed and the scripts work;
4. `pre-commit try-repo` with this checkout's .pre-commit-hooks.yaml as users get it
   (language: python: pre-commit builds the hook's venv from the package index) on a
   scratch contest repository: a good run passes, a bad scorecard fails with path:line:col.

    python3 benchmarks/package/check_install.py [--out results.json] [--keep]

Exit 0 when every check holds; the results (each step's verdict and seconds) are written
to benchmarks/package/results.json unless --out says otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN_ID = "20260130-0900-mcm26c"
SKILL = "mathodology-award-gates"
PREREQS = ["PyYAML", "matplotlib", "numpy", "pypdfium2", "Pillow"]
SELF_TESTS = ["python3 .claude/skills/mathodology-award-gates/scripts/figqa.py --self-test",
              "python3 .claude/skills/mathodology-award-gates/scripts/lint_run.py --self-test",
              "bash .claude/skills/mathodology-award-gates/scripts/pdf_qa.sh --self-test",
              "python3 .claude/skills/mathodology-award-gates/scripts/make_contact_sheet.py "
              "--self-test"]


@dataclass
class Step:
    name: str
    ok: bool
    seconds: float
    detail: str = ""


@dataclass
class Report:
    python: str = platform.python_version()
    steps: list[Step] = field(default_factory=list)

    def check(self, name: str, fn: Callable[[], str]) -> bool:
        t0 = time.perf_counter()
        try:
            detail, ok = fn(), True
        except Exception as exc:  # a failed check, reported with what it saw
            detail, ok = f"{type(exc).__name__}: {exc}", False
        step = Step(name, ok, round(time.perf_counter() - t0, 1), detail[-3000:])
        self.steps.append(step)
        print(f"[{'ok' if ok else 'FAIL'}] {name} ({step.seconds} s)\n    "
              + step.detail.replace("\n", "\n    ")[:1500], flush=True)
        return ok


class Failed(Exception):
    pass


def sh(cmd: str | list[str], cwd: Path, env: dict[str, str], want: set[int] | None = None,
       timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    argv = ["bash", "-c", cmd] if isinstance(cmd, str) else cmd
    r = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if want is not None and r.returncode not in want:
        raise Failed(f"{cmd!r} exited {r.returncode}, wanted {sorted(want)}\n"
                     f"stdout: {r.stdout[-1500:]}\nstderr: {r.stderr[-1500:]}")
    return r


def venv(where: Path, *packages: str) -> Path:
    """A fresh virtualenv (no system site-packages) with `packages` pip-installed; its bin/."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, capture_output=True)
    if packages:
        pip = [str(where / "bin" / "python"), "-m", "pip", "install", "-q",
               "--disable-pip-version-check", *packages]
        r = subprocess.run(pip, capture_output=True, text=True, timeout=1800)
        if r.returncode:
            raise Failed(f"pip install {' '.join(packages)}: {r.stderr[-2000:]}")
    return where / "bin"


def user_env(bin_dir: Path, home: Path | None = None) -> dict[str, str]:
    """A shell as a user of that venv has it: its bin/ first, nothing of this checkout."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PYENV"))}
    env.update(PATH=f"{bin_dir}{os.pathsep}/usr/local/bin{os.pathsep}/usr/bin{os.pathsep}/bin",
               MPLBACKEND="Agg", PYTHONNOUSERSITE="1")
    if home is not None:
        env["HOME"] = str(home)
    return env


# ------------------------------------------------------------------ 1. build

def build(tmp: Path) -> tuple[Path, Path]:
    tools = venv(tmp / "tools", "build", "twine")
    src = tmp / "src"  # a clean tree: what git tracks, as a fresh clone has it
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        if (ROOT / rel).is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, src / rel)
    dist = tmp / "dist"
    sh([str(tools / "python"), "-m", "build", "--outdir", str(dist), str(src)], tmp, os.environ,
       {0})
    sh([str(tools / "twine"), "check", "--strict", *map(str, sorted(dist.iterdir()))], tmp,
       os.environ, {0})
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    return wheel, sdist


def inspect_wheel(wheel: Path) -> str:
    names = zipfile.ZipFile(wheel).namelist()
    must = [f"gavelkit/_bundle/examples/award-run/work/{RUN_ID}/paper/solution.pdf",
            "gavelkit/_bundle/examples/task-semver/judge/spotcheck.md",
            f"gavelkit/_bundle/skills/{SKILL}/scripts/lint_run.py",
            f"gavelkit/_bundle/skills/{SKILL}/scripts/_gavel.py",
            "gavelkit/_bundle/skills/task-judge/SKILL.md", "gavelkit/data/rules/core.toml"]
    missing = [m for m in must if m not in names]
    junk = [n for n in names if "__pycache__" in n or n.endswith((".pyc", "score_result.json"))
            or "/_gavelkit/" in n]
    if missing or junk:
        raise Failed(f"missing {missing}; should not ship {junk[:5]}")
    return f"{wheel.name}: {len(names)} files, skills and examples bundled"


# ------------------------------------------------------------------ 2. the wheel

def wheel_steps(rep: Report, tmp: Path, wheel: Path) -> Path | None:
    bin_dir: list[Path] = []

    def install() -> str:
        bin_dir.append(venv(tmp / "wheel-venv", str(wheel)))
        r = sh("python -c 'import gavelkit, sys; print(gavelkit.__file__)'", tmp,
               user_env(bin_dir[0]), {0})
        if "/wheel-venv/lib/" not in r.stdout:
            raise Failed(f"gavelkit imported from {r.stdout.strip()}")
        return r.stdout.strip()

    if not rep.check("install the wheel into a fresh venv (non-editable)", install):
        return None
    env = user_env(bin_dir[0])
    user = tmp / "user"
    user.mkdir()

    def demo() -> str:
        r = sh(["gavel", "demo", "--format", "json", "--out", str(tmp / "demo-out")], user, env,
               {0}, timeout=1800)
        doc = json.loads(r.stdout)
        bad = [s["step"] for steps in doc["demos"].values() for s in steps if not s["ok"]]
        if not doc["ok"] or bad:
            raise Failed(f"unexpected demo steps: {bad}")
        return f"{sum(len(v) for v in doc['demos'].values())} demo steps as expected"

    rep.check("gavel demo end to end from the wheel, in an empty folder", demo)

    def user_files() -> str:
        shutil.copytree(ROOT / "examples" / "award-run" / "work", user / "work")
        task = "tasks/task-semver"
        shutil.copytree(ROOT / "examples" / "task-semver", user / task,
                        ignore=shutil.ignore_patterns("score_result.json", "run_meta.json"))
        run = f"work/{RUN_ID}"
        out = []
        r = sh(f"gavel award lint scorecard {run}/scorecards/phase7-seat-*-round-1.yaml", user,
               env, {0})
        out.append(r.stdout.strip().splitlines()[-1])
        r = sh(f"gavel award pdfqa {run}/paper/solution.pdf --max-pages 25 --anonymous", user,
               env, {0})
        out.append(r.stdout.strip().splitlines()[-1])
        r = sh(f"gavel task solvability {task} --reference {task}/reference", user, env, {0},
               timeout=1800)
        out.append(r.stdout.strip().splitlines()[-1])
        cand = f"{task}/candidate-runs/broken-001"
        sh(f"gavel task run {task} --solution {cand}/solution --out {cand}", user, env, {0, 1},
           timeout=1800)
        r = sh(f"gavel task judge {task} --run {cand} --trajectory {cand}/trajectory.jsonl",
               user, env, {0}, timeout=1800)
        verdict = next((ln for ln in r.stdout.splitlines() if ln.startswith("verdict:")), "")
        if verdict != "verdict: QUALIFIED":  # as gavel demo judges the same task
            raise Failed(f"wanted QUALIFIED: {r.stdout[-800:]}")
        out.append(verdict)
        return "\n".join(out)

    rep.check("award lint, award pdfqa, task solvability, run and judge on a user's files",
              user_files)
    return bin_dir[0]


# ------------------------------------------------------------------ 3. the skill on its own

def skill_steps(rep: Report, tmp: Path, gavel_bin: Path) -> None:
    proj = tmp / "contest"
    prereq: list[Path] = []

    def install_and_copy() -> str:
        first = tmp / "first-project"
        sh(["gavel", "skills", "install", "--only", SKILL, "--dest",
            str(first / ".claude" / "skills")], tmp, user_env(gavel_bin), {0})
        got = sorted(os.listdir(first / ".claude" / "skills"))
        if got != [".gavel-skills.json", SKILL]:
            raise Failed(f"--only installed {got}")
        shutil.copytree(ROOT / "examples" / "award-run" / "work", proj / "work")
        shutil.copytree(first / ".claude" / "skills" / SKILL,
                        proj / ".claude" / "skills" / SKILL, symlinks=True)
        shutil.rmtree(first)
        prereq.append(venv(tmp / "prereq-venv", *PREREQS))
        r = sh("python3 -c 'import gavelkit'", tmp, user_env(prereq[0]), {1})
        return "copied; the prerequisites venv has no gavelkit: " + r.stderr.strip()[-60:]

    if not rep.check(f"skills install --only {SKILL} from the wheel; copy it alone",
                     install_and_copy):
        return
    env = user_env(prereq[0])

    def seed_lines() -> str:
        out = []
        sys.path.insert(0, str(ROOT / "tests"))
        # seed 000 §7, verbatim (the seed, or its committed copy)
        from prereq_python import seed_invocations

        seed = seed_invocations()
        if len(seed) != 5:
            raise Failed(f"seed 000 §7 should name 5 invocations, found: {seed}")
        for line in [*seed, *SELF_TESTS]:
            cmd = line.replace("<run-id>", RUN_ID)
            want = {1} if "aggregate" in cmd else {0}  # round 1 has a 26-point conflict
            r = sh(cmd, proj, env, want)
            if "Traceback" in r.stderr:
                raise Failed(f"{cmd}: {r.stderr[-800:]}")
            out.append(f"exit {r.returncode}: {cmd}")
        if not (proj / "work" / RUN_ID / "outputs/figures/contact_sheet.png").is_file():
            raise Failed("no contact sheet written")
        return "\n".join(out)

    rep.check("seed 000 §7's five invocations and four self-tests, prerequisites only",
              seed_lines)

    def missing_pdf_libs() -> str:
        bare = venv(tmp / "yaml-only-venv", "PyYAML")
        env2 = user_env(bare)
        pdf = f"work/{RUN_ID}/paper/solution.pdf"
        cmd = f"bash .claude/skills/{SKILL}/scripts/pdf_qa.sh {pdf} --max-pages 25 --anonymous"
        r = sh(cmd, proj, env2, {2})
        fix = r.stderr.strip().splitlines()[-1].strip()
        if "<" in r.stderr or "pip install pypdfium2 Pillow" not in fix:
            raise Failed(f"message: {r.stderr}")
        sh(shlex.split(fix), proj, env2, {0})  # pasted exactly as printed
        sh(cmd, proj, env2, {0})
        return f"printed and ran: {fix}"

    rep.check("missing PDF libraries: the printed pip command, run as printed, fixes it",
              missing_pdf_libs)


# ------------------------------------------------------------------ 4. pre-commit

def precommit_steps(rep: Report, tmp: Path) -> None:
    def try_repo() -> str:
        tools = venv(tmp / "precommit-venv", "pre-commit")
        env = user_env(tools)
        env["PRE_COMMIT_HOME"] = str(tmp / "pre-commit-cache")
        env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org")
        hook_repo = tmp / "hook-repo"  # a clean clone: what users' pre-commit fetches
        sh(["git", "clone", "-q", str(ROOT), str(hook_repo)], tmp, env, {0})
        dirty = subprocess.run(["git", "diff", "HEAD", "--binary"], cwd=ROOT,
                               capture_output=True, check=True).stdout
        if dirty:  # uncommitted work of this checkout, as try-repo would use it
            subprocess.run(["git", "apply"], cwd=hook_repo, input=dirty, check=True)
            sh("git add -A && git commit -qm wip", hook_repo, env, {0})
        contest = tmp / "contest-repo"
        shutil.copytree(ROOT / "examples" / "award-run" / "work", contest / "work")
        sh("git init -q && git add -A", contest, env, {0})
        run = ["pre-commit", "try-repo", "--verbose", str(hook_repo), "gavel-award-lint"]
        good = sh(run, contest, env, {0}, timeout=1800)
        card = contest / "work" / RUN_ID / "scorecards" / "phase7-seat-A-round-1.yaml"
        card.write_text(card.read_text().replace("weight: 0.25, score: 84",
                                                 "weight: 0.35, score: 84", 1))
        sh("git add -A", contest, env, {0})
        bad = sh(run, contest, env, {1})
        want = f"work/{RUN_ID}/scorecards/phase7-seat-A-round-1.yaml:6:5: AWD-S008 error"
        if want not in bad.stdout:
            raise Failed(bad.stdout[-1500:])
        return (f"good run: {good.stdout.strip().splitlines()[-1]}\nbad scorecard: {want}")

    rep.check("pre-commit try-repo, hook venv built from the package index", try_repo)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(Path(__file__).with_name("results.json")))
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gavel-package-"))
    rep = Report()
    try:
        built: list[Path] = []

        def do_build() -> str:
            built.extend(build(tmp))
            return inspect_wheel(built[0]) + f"; {built[1].name}; twine check --strict passed"

        if rep.check("build sdist and wheel, twine check", do_build):
            gavel_bin = wheel_steps(rep, tmp, built[0])
            if gavel_bin is not None:
                skill_steps(rep, tmp, gavel_bin)
        precommit_steps(rep, tmp)
    finally:
        if args.keep:
            print(f"scratch folder kept: {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    ok = all(s.ok for s in rep.steps)
    doc = {"ok": ok, "python": rep.python, "when": time.strftime("%Y-%m-%d"),
           "steps": [asdict(s) for s in rep.steps]}
    Path(args.out).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    print(f"package checks: {sum(s.ok for s in rep.steps)} of {len(rep.steps)} hold "
          f"({sum(s.seconds for s in rep.steps):.0f} s); results in {args.out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
