"""Upstream-test oracles scored by gavel and by plain pytest, instance by instance (issue 26 items 5-6).

    python3 benchmarks/gates/extract_bmk_dev.py               # once: the task folders
    nice -n 10 python3 benchmarks/realtasks/upstream_tests.py [--only TASK ...]
        -> benchmarks/realtasks/upstream-tests.json and .md

Some Bmk-dev tasks keep node ids of their upstream's own tests (`tests/test_cli.py::...`)
without carrying those files (results-bmk-dev.md: "oracle file missing"). For each task
in SOURCES the script takes the upstream repository's `tests/` folder at the release tag
(a local mirror from the `fetch` tool under /work/.mirror, else a bare clone from GitHub
made at run time; third-party code, never committed) into a scratch copy of the task,
then scores the PyPI release (or, for a row whose release is "checkout", the upstream
tree at that commit, built by gavel):

1. `gavel task solvability --reference-package RELEASE`, sandboxed (bubblewrap), on the
   copy as it is, and on the copy with the upstream's declared test dependencies in
   oracle/requirements.txt (the task declares none);
2. plain pytest (`python -m pytest -v IDS`, no gavel plugin, no sandbox) with the
   interpreter of the environment gavel built for run 1b, in a fresh copy, cwd at the
   copy's top as an upstream checkout runs its tests; IDS are the task's scoring ids as
   it names them (kept_nodeids.txt, else the map), with the file resolved by gavel's
   formats/scoring_ids.py (base ids of parametrised tests are left for pytest to expand).

The two runs are compared per collected instance; every difference is listed by name.
Goal: gavel's rate of non-skipped tests equals plain pytest's.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent.parent / "src"
TASKS = Path("/work/scratch/i14/tasks")
MIRRORS = Path("/work/.mirror")
UPLOAD, BETA = "upload__native-batch-16-20260720", "beta"


@dataclass(frozen=True)
class Source:
    """Where a task's upstream tests come from and what they need."""

    task: str  # folder under TASKS
    repo: str  # upstream owner/name on GitHub
    ref: str  # the release tag
    release: str  # the reference: that release on PyPI
    test_deps: tuple[str, ...]  # upstream's declared test dependencies the task lacks
    deps_from: str  # where the upstream declares them
    folders: tuple[str, ...] = ("tests",)
    # "checkout": the reference is the upstream tree at `ref` (built by gavel), not a release
    label: str = ""


COOKIECUTTER_DEPS = ("pytest-mock", "freezegun")
COOKIECUTTER_WHY = ("pyproject.toml [dependency-groups] test (pytest-cov left out: only "
                    "the upstream's addopts `--cov`, not taken, uses it)")
# release: the one of results-bmk-dev.json (newest before the task folder's first commit;
# for cookiecutter also task c88fbe9 = v2.7.1+1, NOTES.md)
SOURCES = (
    Source(f"{UPLOAD}/cookiecutter-fullrepro-001", "cookiecutter/cookiecutter", "v2.7.1",
           "cookiecutter==2.7.1", COOKIECUTTER_DEPS, COOKIECUTTER_WHY),
    Source(f"{BETA}/cookiecutter-fullrepro-001", "cookiecutter/cookiecutter", "v2.7.1",
           "cookiecutter==2.7.1", COOKIECUTTER_DEPS, COOKIECUTTER_WHY),
    Source(f"{BETA}/packaging-core-fullrepro-001", "pypa/packaging", "26.2", "packaging==26.2",
           ("pretend", "tomli_w", "hypothesis", "pip"),
           "pyproject.toml [dependency-groups] test (coverage left out)"),
    # the task keeps 7 ids of tests added upstream after 26.2 (e.g. test_python_prerelease,
    # 58aaa7f of 2026-04-27): the tree at the last upstream commit before the task folder's
    # first commit (2026-07-02), tests and code alike
    Source(f"{BETA}/packaging-core-fullrepro-001", "pypa/packaging", "dcac24cc0a37",
           "checkout", ("pretend", "tomli_w", "hypothesis", "pip"),
           "pyproject.toml [dependency-groups] test (coverage left out)",
           label="main before 2026-07-02"),
    Source(f"{UPLOAD}/boltons-coreutils-fullrepro-001", "mahmoud/boltons", "26.0.0",
           "boltons==26.0.0", (), "the upstream's tests need pytest only"),
)
OUTCOME = {"PASSED": "passed", "FAILED": "failed", "ERROR": "error", "SKIPPED": "skipped",
           "XFAIL": "skipped", "XPASS": "passed"}
WORSE = ("passed", "skipped", "failed", "error")  # a teardown error after a pass is an error
_NOT_FOUND = re.compile(r"^ERROR: not found: (\S.*?)$", re.M)
_LINE = re.compile(r"^(\S.*?::.*?) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b")


def gitdir(repo: str, cache: Path) -> tuple[Path | None, str]:
    """The upstream's git directory: the `fetch` tool's mirror, else a bare clone."""
    base = MIRRORS / repo.replace("/", "+")
    for p in (base / "repo" / ".git", base / "repo"):
        if (p / "HEAD").is_file():
            return p, f"mirror {p}"
    dest = cache / repo.replace("/", "+")
    proc = subprocess.run(["git", "clone", "--bare", "--quiet", "--filter=blob:none",
                           f"https://github.com/{repo}", str(dest)], capture_output=True,
                          text=True, check=False, timeout=600)
    if proc.returncode:
        return None, f"no mirror of {repo} and no clone ({proc.stderr.strip()[-200:]})"
    return dest, f"clone of https://github.com/{repo}"


def git(gd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "--git-dir", str(gd), *args], capture_output=True,
                          check=False)


def scratch_copy(src: Source, gd: Path, dest: Path) -> dict:
    """The task folder with the upstream's test folders at the tag; what was placed."""
    shutil.copytree(TASKS / src.task, dest)
    commit = git(gd, "rev-parse", f"{src.ref}^{{commit}}").stdout.decode().strip()
    arch = git(gd, "archive", commit, *src.folders)
    if arch.returncode:
        raise RuntimeError(f"git archive {src.ref} {src.folders}: {arch.stderr.decode()[-200:]}")
    subprocess.run(["tar", "-x", "-C", str(dest)], input=arch.stdout, check=True)
    placed = []
    for f in missing(dest):  # beta keeps filter/generated_tests.py at the folder's top
        top = dest / Path(f).name
        if top.is_file() and not (dest / f).exists():
            (dest / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(top, dest / f)
            placed.append(f"{Path(f).name} -> {f}")
    return {"commit": commit, "placed": placed, "still_missing": sorted(missing(dest))}


def missing(task: Path) -> list[str]:
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.formats.scoring_ids import missing_files

    return list(missing_files(load_task(task)))


def scoring_ids(task: Path) -> list[str]:
    from gavelkit.task.formats.load import load_task
    from gavelkit.task.formats.scoring_ids import named_ids, resolve_ids

    t = load_task(task)
    return resolve_ids(t, named_ids(t))


def with_deps(task: Path, deps: tuple[str, ...]) -> None:
    req = task / "oracle" / "requirements.txt"
    req.parent.mkdir(exist_ok=True)
    old = req.read_text("utf-8") if req.is_file() else ""
    req.write_text(old + ("" if not old or old.endswith("\n") else "\n") + "\n".join(deps) + "\n")


def gavel_run(task: Path, release: str | Path, out: Path) -> dict:
    ref = (["--reference", str(release)] if isinstance(release, Path)
           else ["--reference-package", release])
    cmd = [sys.executable, "-m", "gavelkit", "task", "solvability", str(task), *ref,
           "--out", str(out), "--format", "json", "--quiet"]
    env = {**os.environ, "GAVEL_PROGRESS": "0",
           "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    row: dict = {"exit": proc.returncode, "seconds": round(time.monotonic() - t0, 1)}
    try:
        doc = json.loads(proc.stdout)
        score = json.loads((out / "score_result.json").read_text("utf-8"))
    except (OSError, ValueError):
        row["error"] = (proc.stderr.strip() or proc.stdout.strip())[-400:]
        return row
    g = score.get("gavel") or {}
    row.update(rate=doc.get("pass_rate"), summary=doc.get("summary"),
               diagnosis=(doc.get("diagnosis") or [])[:6],
               isolation=(g.get("isolation") or {}).get("mechanism")
               if (g.get("isolation") or {}).get("active") else "none",
               python=(g.get("environment") or {}).get("python"),
               outcomes={c["nodeid"]: c.get("outcome") for c in score.get("cases", [])},
               evidence={c["nodeid"]: first_line(c) for c in score.get("cases", [])
                         if c.get("outcome") not in ("passed", "skipped")})
    return row


def first_line(case: dict) -> str:
    for phase in ("setup", "call", "teardown"):
        text = (case.get(phase) or {}).get("longrepr") or ""
        lines = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("E ")]
        if lines:
            return lines[0][:200]
    return str(case.get("message") or "")[:200]


def plain_pytest(python: str, task: Path, ids: list[str], work: Path) -> dict:
    """pytest as a maintainer runs it: no gavel plugin, no sandbox, cwd at the task's top."""
    copy = work / "plain"
    shutil.copytree(task, copy)
    home = work / "plain-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST", "GAVEL"))}
    env.update(HOME=str(home), TMPDIR=str(home), PYTHONDONTWRITEBYTECODE="1")
    t0 = time.monotonic()
    cmd = [python, "-m", "pytest", "-p", "no:cacheprovider", "-v", "-rN", "--color=no"]
    proc = subprocess.run([*cmd, *ids], cwd=copy, env=env, capture_output=True, text=True,
                          check=False, timeout=3600)
    # pytest refuses the whole command line when one id names nothing ("ERROR: not found:
    # ID"); a maintainer drops those ids and runs the rest, which is what is recorded
    prefix = str(copy) + os.sep
    gone = [m.group(1).strip().removeprefix(prefix)
            for m in _NOT_FOUND.finditer(proc.stdout + proc.stderr)]
    if gone:
        proc = subprocess.run([*cmd, *(i for i in ids if i not in set(gone))], cwd=copy,
                              env=env, capture_output=True, text=True, check=False,
                              timeout=3600)
    outcomes: dict[str, str] = dict.fromkeys(gone, "not_collected")
    for line in proc.stdout.splitlines():
        m = _LINE.match(line)
        if m:
            new, old = OUTCOME[m.group(2)], outcomes.get(m.group(1), "passed")
            old = "passed" if old == "not_collected" else old
            outcomes[m.group(1)] = max(new, old, key=WORSE.index)
    tail = [ln for ln in proc.stdout.splitlines() if ln.startswith("=")][-1:]
    s = {k: sum(1 for v in outcomes.values() if v == k) for k in (*WORSE, "not_collected")}
    ran = len(outcomes) - s["skipped"]
    return {"exit": proc.returncode, "seconds": round(time.monotonic() - t0, 1),
            "summary": s, "rate": s["passed"] / ran if ran else None, "outcomes": outcomes,
            "pytest_line": tail[0].strip("= ") if tail else proc.stderr.strip()[-300:]}


def differences(g: dict, p: dict) -> list[dict]:
    go, po = g.get("outcomes") or {}, p.get("outcomes") or {}
    out = []
    for nid in sorted(set(go) | set(po)):
        a, b = go.get(nid, "absent"), po.get(nid, "absent")
        if a != b:
            out.append({"nodeid": nid, "gavel": a, "pytest": b,
                        "gavel_evidence": (g.get("evidence") or {}).get(nid, "")})
    return out


def run_task(src: Source, tmp: Path) -> dict:
    row: dict = {"task": src.task, "label": src.label, "repo": src.repo, "ref": src.ref,
                 "release": src.release,
                 "test_deps": list(src.test_deps), "deps_from": src.deps_from}
    if not (TASKS / src.task).is_dir():
        return {**row, "skipped": f"{TASKS / src.task} absent (extract_bmk_dev.py)"}
    gd, where = gitdir(src.repo, tmp / "clones")
    row["upstream"] = where
    if gd is None:
        return {**row, "skipped": where}
    work = tmp / (src.task.replace("/", "__") + (f"-{src.ref}" if src.label else ""))
    work.mkdir(parents=True)
    task = work / "task"
    row.update(scratch_copy(src, gd, task))
    row["scoring_ids"] = len(scoring_ids(task))
    reference: str | Path = src.release
    if src.release == "checkout":
        reference = work / "checkout"
        reference.mkdir()
        arch = git(gd, "archive", row["commit"])
        subprocess.run(["tar", "-x", "-C", str(reference)], input=arch.stdout, check=True)
    row["gavel_as_is"] = slim(gavel_run(task, reference, work / "ref-as-is"))
    if src.test_deps:
        with_deps(task, src.test_deps)
    g = gavel_run(task, reference, work / "ref")
    row["gavel"] = g
    if g.get("python"):
        row["pytest"] = plain_pytest(g["python"], task, scoring_ids(task), work)
        row["differences"] = differences(g, row["pytest"])
    return row


def slim(run: dict) -> dict:
    return {k: v for k, v in run.items() if k not in ("outcomes", "evidence")}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", help="task names (or branch/task)")
    ap.add_argument("--md-only", action="store_true", help="rewrite the .md from the .json")
    a = ap.parse_args()
    out_json = HERE / "upstream-tests.json"
    if a.md_only:
        write_md(json.loads(out_json.read_text()), HERE / "upstream-tests.md")
        return 0
    sys.path.insert(0, str(SRC))
    rows = json.loads(out_json.read_text()) if out_json.is_file() and a.only else []
    chosen = [s for s in SOURCES if not a.only or s.task in a.only
              or s.task.split("/")[-1] in a.only]
    rows = [r for r in rows if (r["task"], r.get("label", "")) not in
            {(s.task, s.label) for s in chosen}]
    with tempfile.TemporaryDirectory(prefix="gavel-upstream-") as tmp:
        for src in chosen:
            row = run_task(src, Path(tmp))
            for side in ("gavel", "pytest"):  # per-instance outcomes: in differences only
                if side in row:
                    row[side] = slim(row[side])
            rows.append(row)
            print(json.dumps({k: row.get(k) for k in ("task", "skipped")}
                             | {s: (row.get(s) or {}).get("summary") for s in
                                ("gavel_as_is", "gavel", "pytest")}), flush=True)
    order = {(s.task, s.label): i for i, s in enumerate(SOURCES)}
    rows.sort(key=lambda r: order.get((r["task"], r.get("label", "")), len(order)))
    out_json.write_text(json.dumps(rows, indent=1) + "\n")
    write_md(rows, HERE / "upstream-tests.md")
    return 0


def pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.1f}"


def counts(s: dict | None) -> str:
    if not s:
        return ""
    keys = ("passed", "failed", "error", "skipped", "collection_error", "not_collected")
    return ", ".join(f"{s[k]} {k.replace('_', ' ')}" for k in keys if s.get(k))


def write_md(rows: list[dict], path: Path) -> None:
    lines = ["# Upstream-test oracles: gavel vs plain pytest (issue 26 items 5-6)", "",
             "`benchmarks/realtasks/upstream_tests.py`: the upstream's `tests/` at the release "
             "tag added to a scratch copy of the task; the PyPI release scored by gavel "
             "(sandboxed) and by plain pytest in the environment gavel built. Rate: passed of "
             "non-skipped instances. NOTES.md names the cause of every failure.", "",
             "| task | upstream @ tag (commit) | release | gavel, task as is | gavel, + upstream "
             "test deps | plain pytest, same env and ids | differences |",
             "|---|---|---|---|---|---|---:|"]
    lines += [table_row(r) for r in rows]
    lines += sections(rows)
    path.write_text("\n".join(ln.replace("|", "/") if ln.startswith("- ") else ln
                              for ln in lines) + "\n")


def table_row(r: dict) -> str:
    if r.get("skipped"):
        return (f"| {r['task']} | {r['repo']} @ {r['ref']} | {r['release']} | "
                f"not run: {r['skipped']} | | | |")
    cells = []
    for side in ("gavel_as_is", "gavel", "pytest"):
        s = r.get(side) or {}
        cells.append(f"{pct(s.get('rate'))} % ({counts(s.get('summary'))})"
                     if s.get("summary") else s.get("error", "")[:120])
    return (f"| {r['task']} | {r['repo']} @ {r['ref']} ({r['commit'][:8]}"
            f"{', ' + r['label'] if r.get('label') else ''}) | "
            f"{r['release']} | {' | '.join(cells)} | {len(r.get('differences', []))} |")


def sections(rows: list[dict]) -> list[str]:
    """Dependencies added, the differences by name, the failures both runs share."""
    lines = ["", "Test dependencies added (run 2 and 3) and where the upstream declares them:",
             ""]
    lines += [f"- {r['task']}: {', '.join(r['test_deps']) or 'none'} ({r['deps_from']})"
              + (f"; placed in the copy: {', '.join(r['placed'])}" if r.get("placed") else "")
              + (f"; still missing: {', '.join(r['still_missing'])}" if r.get("still_missing")
                 else "") for r in rows]
    diffs = [(r["task"], d) for r in rows for d in r.get("differences", [])]
    lines += ["", "## Differences, instance by instance", ""]
    lines += [f"- {t}: `{d['nodeid']}` gavel {d['gavel']}, pytest {d['pytest']}"
              + (f" ({d['gavel_evidence']})" if d["gavel_evidence"] else "")
              for t, d in diffs[:60]]
    if len(diffs) > 60:
        lines.append(f"- ... and {len(diffs) - 60} more (upstream-tests.json)")
    if not diffs:
        lines.append("None: gavel and plain pytest agree on every instance of every task.")
    lines += ["", "## Failures common to both (gavel's evidence line)", ""]
    for r in rows:
        g = r.get("gavel") or {}
        lines += [f"- {r['task']}: {d[:400]}" for d in g.get("diagnosis", [])]
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
