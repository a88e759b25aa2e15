"""Reproduce the recorded reference score of each real Bmk-dev task from a PyPI release.

    python3 benchmarks/realtasks/run.py [--label after] [--only TASK ...] [--corpus DIR]
        -> benchmarks/realtasks/results-<label>.json and results-<label>.md

For every task folder in the corpus (default `/work/shared/corpus/bmk-real`, skipped
when absent) the task is copied to a temporary folder and
`gavel task solvability TASK --reference-package SPEC --format json` is run, where SPEC
is the release picked in RELEASES below (why each one: see NOTES.md). Recorded is the
task's own reference score (task.json `reference_score` or `reference_pass_rate`);
measured is gavel's pass rate of non-skipped tests. When the two differ by more than
2 points the table shows gavel's first diagnosis line: the benchmark's goal is that the
diagnosis then names the true cause.

Needs the package index (PyPI) for the releases and their dependencies the first time;
uv's cache serves later runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = Path("/work/shared/corpus/bmk-real")

# task -> (release spec, why this release). repo_commit dates were read from the upstream
# repositories' history (`git describe --tags COMMIT`); where task.json records no commit
# the release published last before the task's oracle_version date is used.
RELEASES = {
    "anyio-async-runtime-fullrepro-001": ("anyio==4.14.1", "commit 85b8b6e = 4.14.1+10"),
    "attrs-classes-fullrepro-001": ("attrs==26.1.0", "no commit recorded; latest before 2026-07"),
    "cookiecutter-fullrepro-001": ("cookiecutter==2.7.1", "commit c88fbe9 = v2.7.1+1"),
    "dateparser-dates-fullrepro-001": ("dateparser==1.4.1", "commit 273eb23 = v1.4.1+3"),
    "diskcache-cache-fullrepro-001": ("diskcache==5.6.3", "commit ebfa37c = v5.6.3+2"),
    "dynaconf-settings-fullrepro-001": ("dynaconf==3.3.2", "commit not in upstream history; "
                                        "last release before the task date 2026-07-16"),
    "fsspec-filesystem-fullrepro-001": ("fsspec==2026.6.0", "commit 82d24f7 = 2026.6.0+5"),
    "griffe-apimodel-fullrepro-001": ("griffe==2.1.0", "commit e1d7386 = 2.1.0+14"),
    "h2-protocol-fullrepro-001": ("h2==4.3.0", "no commit recorded; last release before "
                                  "the oracle date 2026-07-17"),
}


def recorded(task: Path) -> tuple[float | None, str]:
    try:
        data = json.loads((task / "task.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None, "unreadable task.json"
    rs = data.get("reference_score")
    if isinstance(rs, dict) and rs.get("total"):
        return rs["passed"] / rs["total"], f"{rs['passed']}/{rs['total']}"
    rpr = data.get("reference_pass_rate")
    if isinstance(rpr, (int, float)):
        n = (data.get("oracle") or {}).get("count")
        return float(rpr), f"rate {rpr}" + (f" of {n}" if n else "")
    return None, "none recorded"


def gavel() -> list[str]:
    exe = shutil.which("gavel")
    return [exe] if exe else [sys.executable, "-m", "gavelkit"]


MIRRORS = Path("/work/.mirror")  # `fetch`ed upstream repositories (git dirs), when present
# upstream of tasks whose task.json leaves `repo` empty (the corpus README names them)
UPSTREAM = {"diskcache-cache-fullrepro-001": "grantjenks/python-diskcache",
            "attrs-classes-fullrepro-001": "python-attrs/attrs",
            "h2-protocol-fullrepro-001": "python-hyper/h2"}


def checkout(task: Path, work: Path) -> tuple[Path | None, str, str]:
    """(source tree of the upstream repository at repo_commit, version, why not)."""
    try:
        data = json.loads((task / "task.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None, "", "unreadable task.json"
    repo = data.get("repo") or UPSTREAM.get(task.name, "")
    commit = data.get("repo_commit") or ""
    if not repo or not commit:
        return None, "", "task.json records no repo / repo_commit"
    base = MIRRORS / repo.replace("/", "+")
    gitdir = next((p for p in (base / "repo" / ".git", base / "repo") if (p / "HEAD").is_file()),
                  None)
    if gitdir is None:
        return None, "", f"no local copy of {repo}"
    ok = subprocess.run(["git", "--git-dir", str(gitdir), "cat-file", "-e", commit],
                        capture_output=True, check=False).returncode == 0
    if not ok:
        return None, "", f"commit {commit[:8]} is not in the local copy of {repo}"
    dest = work / (task.name + "-checkout")
    dest.mkdir()
    got = subprocess.run(["git", "--git-dir", str(gitdir), "archive", commit],
                         capture_output=True, check=False)
    if got.returncode != 0:
        return None, "", f"the local copy of {repo} lacks files of {commit[:8]}"
    arch = got.stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=arch, check=True)
    tag = subprocess.run(["git", "--git-dir", str(gitdir), "describe", "--tags", "--abbrev=0",
                          commit], capture_output=True, text=True, check=False).stdout.strip()
    return dest, tag.lstrip("v"), ""


def run_one(task: Path, spec: str, work: Path, extra: list[str],
            source: Path | None = None, version: str = "") -> dict:
    copy = work / task.name
    shutil.copytree(task, copy)
    out = work / (task.name + "-ref")
    ref = ["--reference", str(source)] if source else ["--reference-package", spec]
    cmd = [*gavel(), "task", "solvability", str(copy), *ref,
           "--out", str(out), "--format", "json", "--quiet", *extra]
    env = {**os.environ, "GAVEL_PROGRESS": "0"}
    if version:  # an archive has no .git: version plugins (setuptools-scm, hatch-vcs) need it
        env["SETUPTOOLS_SCM_PRETEND_VERSION"] = version
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    dt = time.monotonic() - t0
    row: dict = {"exit": proc.returncode, "seconds": round(dt, 1)}
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        row["error"] = (proc.stderr.strip() or proc.stdout.strip())[-400:]
        return row
    row["measured"] = doc.get("pass_rate")
    row["summary"] = doc.get("summary")
    row["diagnosis"] = doc.get("diagnosis") or []
    row["findings"] = [f"{f.get('code')} {f.get('message', '')[:200]}"
                       for f in doc.get("findings", []) if f.get("severity") in ("error", "warning")
                       and f.get("code") != "TSK-X006"][:5]
    try:
        score = json.loads((out / "score_result.json").read_text("utf-8"))
        row["install"] = {k: v for k, v in (score["gavel"].get("install") or {}).items()
                          if k in ("kind", "spec", "error", "build_error")}
        prov = (score["gavel"].get("install") or {}).get("provenance") or {}
        if prov:
            row["install"]["provenance"] = {"ok": prov.get("ok"), "matched": prov.get("matched"),
                                            "why": prov.get("why")}
        row["import_root_layout"] = score["gavel"].get("import_root_layout")
    except (OSError, ValueError, KeyError):
        pass
    return row


def fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", default="after")
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--source", choices=["release", "checkout"], default="release",
                    help="release: --reference-package SPEC (default); checkout: the upstream "
                         "source tree at repo_commit (git archive of a local mirror), built and "
                         "installed as a project")
    ap.add_argument("--extra", nargs=argparse.REMAINDER, default=[],
                    help="further arguments for gavel task solvability")
    a = ap.parse_args()
    corpus = Path(a.corpus)
    if not corpus.is_dir():
        print(f"corpus {corpus} absent: nothing to do")
        return 0
    rows = []
    with tempfile.TemporaryDirectory(prefix="gavel-realtasks-") as tmp:
        for task in sorted(p for p in corpus.iterdir() if p.is_dir()):
            if a.only and task.name not in a.only:
                continue
            spec, why = RELEASES.get(task.name, (None, "no release picked"))
            rec, rec_text = recorded(task)
            row = {"task": task.name, "release": spec, "why_release": why,
                   "recorded": rec, "recorded_text": rec_text}
            src, version, why_not = (checkout(task, Path(tmp)) if a.source == "checkout"
                                     else (None, "", ""))
            if a.source == "checkout":
                row["release"] = f"checkout {version}+" if src else None
            if spec is None:
                row["error"] = why
            elif not (task / "oracle").is_dir():
                row["error"] = "task folder has no oracle/ (not copied upstream)"
            elif a.source == "checkout" and src is None:
                row["error"] = why_not
            else:
                row.update(run_one(task, spec, Path(tmp), a.extra, src, version))
            m = row.get("measured")
            row["within_2_points"] = (m is not None and rec is not None
                                      and abs(m - rec) <= 0.02)
            rows.append(row)
            print(json.dumps({k: row.get(k) for k in ("task", "release", "recorded",
                                                      "measured", "seconds", "error")}),
                  flush=True)
    (HERE / f"results-{a.label}.json").write_text(json.dumps(rows, indent=2) + "\n")
    lines = [f"# Real-task reference reproduction ({a.label})", "",
             "| task | release | recorded | measured | passed/total | s | cause when different |",
             "|---|---|---:|---:|---|---:|---|"]
    for r in rows:
        s = r.get("summary") or {}
        cause = ""
        if r.get("error"):
            cause = "not run: " + r["error"][:160]
        elif not r["within_2_points"]:
            cause = " / ".join(d[:260] for d in (r.get("diagnosis") or r.get("findings")
                                                 or ["?"])[:4])
        lines.append(f"| {r['task']} | {r.get('release')} | {fmt(r.get('recorded'))} | "
                     f"{fmt(r.get('measured'))} | {s.get('passed', '')}/{s.get('total', '')}"
                     f"{'; ' + str(s.get('skipped')) + ' skipped' if s.get('skipped') else ''}"
                     f" | {r.get('seconds', '')} | {cause.replace('|', '/')} |")
    ok = sum(1 for r in rows if r["within_2_points"])
    lines += ["", f"{ok}/{len(rows)} tasks within 2 points of the recorded reference score."]
    (HERE / f"results-{a.label}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
