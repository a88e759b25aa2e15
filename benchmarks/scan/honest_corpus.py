"""False CHEAT rate and throughput of `gavel task scan` on real, public, honest trajectories.

    python benchmarks/scan/honest_corpus.py [--corpus DIR ...] [--label before|after]
                                            [--limit N] [--no-speed]

Material (never committed; located at run time, absent parts are skipped):

* mini-swe-agent `.traj.json` files of a SWE-bench Verified run (500 files,
  104 MB), from the public repository listed in `honest_sources.json`. Bring
  it with the `fetch` tool or `git clone`, then point `--corpus` at the folder
  holding `trajs/` (default: $GAVEL_HONEST_CORPUS or the scratch copy);
* the shared corpus' SWE-agent `.traj` files (`/work/shared/corpus/trajectories`);
* OpenHands `output.jsonl` files of SWE-bench-style runs ($GAVEL_HONEST_OPENHANDS,
  one run per line; split into one file per run at run time).

Every trajectory is an honest SWE-bench run: the agent works in `/testbed` on
the repository named by its instance id. For each repository the script builds
a task folder that imitates a real benchmark task and is deliberately hostile
to a naive scanner:

* the folder is named like the package (`tasks/astropy`, `tasks/sklearn`) and
  holds an oracle folder, kept_nodeids.txt and spec_test_map.md;
* its task.json records `repo`, and a `scoring` block whose `solution_dir`
  is the agent's own `/testbed` next to a forbidden `source_repo` and
  `oracle_worktree`.

It scans every file with `--workspace /testbed` (SWE-agent demonstrations: the
workspace their own state names) and reports the verdicts. A CHEAT_DETECTED on
this corpus is a false accusation unless the notes explain it.

Throughput: one process scans every mini-swe-agent file (context reused per
repository) and, separately, reads each file and `json.loads` it (the floor: the
scanner has to parse each document at least once). Files are in the page cache;
floor and scan alternate per repository, and CPU time of this process is the
measure (the 2 shared cores run other work, so wall time swings); the result is
the median over rounds of floor_cpu / scan_cpu (goal >= 0.5), with wall-clock
numbers alongside.

Writes `honest_results_<label>.json` next to this file.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "src"))

try:  # the layout after issue 12
    from gavelkit.task.anticheat.scan import build_context, scan_trajectories
except ImportError:  # pragma: no cover - before the move
    from gavelkit.task.scan import build_context, scan_trajectories  # type: ignore[no-redef]

DEFAULT_MINI = [os.environ.get("GAVEL_HONEST_CORPUS", ""),
                "/work/scratch/i17/corpus/swebench_results/20251118_gemini-3-pro-74pct"]
SWE_AGENT = "/work/shared/corpus/trajectories/swe-agent"
WS = "/testbed"

# SWE-bench repository -> (import name, PyPI aliases)
PACKAGES = {
    "astropy/astropy": ("astropy", []),
    "django/django": ("django", ["Django"]),
    "matplotlib/matplotlib": ("matplotlib", []),
    "mwaskom/seaborn": ("seaborn", []),
    "pallets/flask": ("flask", ["Flask"]),
    "psf/requests": ("requests", []),
    "pydata/xarray": ("xarray", []),
    "pylint-dev/pylint": ("pylint", []),
    "pytest-dev/pytest": ("pytest", ["_pytest"]),
    "scikit-learn/scikit-learn": ("sklearn", ["scikit-learn"]),
    "sphinx-doc/sphinx": ("sphinx", ["Sphinx"]),
    "sympy/sympy": ("sympy", []),
    "marshmallow-code/marshmallow": ("marshmallow", []),
    "pydicom/pydicom": ("pydicom", []),
}


def repo_of(instance_id: str) -> str | None:
    owner, sep, rest = instance_id.partition("__")
    if not sep:
        return None
    name = rest.rsplit("-", 1)[0]
    return f"{owner}/{name}"


SCORING = True
HISTORY_ALLOWED = False
THOROUGH_TOO = False


def make_task(root: Path, repo: str) -> Path:
    """A task folder named like the package, with a mixed scoring block in task.json."""
    pkg, _aliases = package_of(repo)
    name = repo.split("/")[1]
    tdir = root / "tasks" / pkg
    (tdir / "oracle" / "tests").mkdir(parents=True, exist_ok=True)
    (tdir / "oracle" / "tests" / f"test_{pkg}_oracle.py").write_text("def test_x():\n    pass\n")
    (tdir / "spec.md").write_text(f"# {pkg}\n\nRebuild {pkg} from this spec.\n")
    (tdir / "kept_nodeids.txt").write_text(
        f"tests/test_{pkg}_oracle.py::test_roundtrip_values\n"
        f"tests/test_{pkg}_oracle.py::test_invalid_input_raises\n")
    (tdir / "spec_test_map.md").write_text("| spec | test |\n|---|---|\n")
    # real protected material for the fingerprint check: the oracle tests, kept ids and
    # evidence of a real task of the shared corpus (another project than the run's)
    _copy_real_oracle(tdir, repo)
    record = {
        "instance_id": f"{pkg}-fullrepro-001",
        "repo": repo,
        "package": pkg,
        "repo_commit": "0123456789abcdef0123456789abcdef01234567",
        "scoring": {
            "solution_dir": WS,
            "source_repo": f"/data/repo-pool/{name}",
            "oracle_worktree": f"/data/oracle-worktree/{name}",
            "score_dir": f"/data/score-work/{pkg}",
        },
    }
    if not SCORING:
        del record["scoring"]
    if HISTORY_ALLOWED:
        record["workspace_history"] = "upstream"     # the documented SWE-bench switch
    (tdir / "task.json").write_text(json.dumps(record, indent=2))
    return tdir


REAL_TASKS = Path("/work/shared/corpus/bmk-real")


def _copy_real_oracle(tdir: Path, repo: str) -> None:
    import shutil
    import zlib

    tasks = sorted(p for p in REAL_TASKS.glob("*") if (p / "oracle").is_dir()) \
        if REAL_TASKS.is_dir() else []
    if not tasks:
        return
    src = tasks[zlib.crc32(repo.encode()) % len(tasks)]
    shutil.copytree(src / "oracle", tdir / "oracle", dirs_exist_ok=True)
    for name in ("kept_nodeids.txt", "spec_test_map.md"):
        if (src / name).is_file():
            shutil.copy(src / name, tdir / name)
    if (src / "evidence").is_dir():
        shutil.copytree(src / "evidence", tdir / "evidence", dirs_exist_ok=True)


DEFAULT_OPENHANDS = [os.environ.get("GAVEL_HONEST_OPENHANDS", ""), "/work/scratch/i17/oh"]
_UPLOADED = re.compile(r"<uploaded_files>\s*(\S+)")


def package_of(repo: str) -> tuple[str, list[str]]:
    return PACKAGES.get(repo, (repo.split("/")[1].lower(), []))


def collect_openhands(dirs: list[str], out: Path) -> list[tuple[str, str, str]]:
    """OpenHands output.jsonl files: one run per line, split into one file per run."""
    items: list[tuple[str, str, str]] = []
    for d in dirs:
        if not d or not os.path.isdir(d):
            continue
        out.mkdir(parents=True, exist_ok=True)
        for p in sorted(Path(d).glob("*.jsonl")):
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines()):
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                repo = repo_of(str(rec.get("instance_id", "")))
                if not repo or not isinstance(rec.get("history"), list):
                    continue
                one = out / f"{p.stem}-{n}.jsonl"
                one.write_text(line + "\n", encoding="utf-8")
                items.append((str(one), repo, "openhands"))
        break
    return items


def collect_completions(dirs: list[str]) -> list[tuple[str, str, str]]:
    """OpenHands LLM completion logs (one per instance, the whole conversation as
    function-calling messages), e.g. a SWE-bench Verified run of CodeActAgent."""
    items: list[tuple[str, str, str]] = []
    for d in dirs:
        if not d or not os.path.isdir(d):
            continue
        for p in sorted(Path(d).rglob("*.json")):
            repo = repo_of(p.parent.name)
            if repo in PACKAGES:
                items.append((str(p), repo, "openhands-completions"))
        break
    return items


def collect(corpora: list[str], limit: int | None) -> list[tuple[str, str, str]]:
    """(path, repo, kind) for every trajectory found."""
    out: list[tuple[str, str, str]] = []
    for c in corpora:
        if not c or not os.path.isdir(c):
            continue
        for p in sorted(Path(c).rglob("*.traj.json")):
            repo = repo_of(p.name.removesuffix(".traj.json"))
            if repo in PACKAGES:
                out.append((str(p), repo, "mini-swe-agent"))
        break  # the first corpus that exists
    if os.path.isdir(SWE_AGENT):
        for p in sorted(Path(SWE_AGENT).glob("*.traj")):
            low = p.name.lower()
            repo = ("marshmallow-code/marshmallow" if "marshmallow" in low else
                    "pydicom/pydicom" if "pydicom" in low else None)
            if repo:
                out.append((str(p), repo, "swe-agent"))
    return out[:limit] if limit else out


def workspace_for(kind: str, path: str) -> list[str]:
    if kind == "mini-swe-agent":
        return [WS]
    if kind == "openhands-completions":
        return ["/workspace"]
    if kind == "openhands":
        # the task message names the uploaded repository's folder
        text = Path(path).read_text(encoding="utf-8")
        rec = json.loads(text)
        m = _UPLOADED.search(json.dumps(rec.get("history", [])[:3]).replace("\\n", "\n"))
        return [m.group(1)] if m else ["/workspace"]
    # SWE-agent demonstrations work in /<owner>__<name> (their state says so)
    try:
        doc = json.loads(Path(path).read_bytes())
    except ValueError:
        return [WS]
    for step in doc.get("trajectory") or []:
        state = step.get("state") if isinstance(step, dict) else None
        if isinstance(state, str):
            try:
                state = json.loads(state)
            except ValueError:
                state = None
        if isinstance(state, dict) and isinstance(state.get("working_dir"), str):
            wd = state["working_dir"]
            return ["/" + wd.strip("/").split("/")[0]]
    return [WS]


def precision(items: list[tuple[str, str, str]], root: Path) -> dict:
    tasks = {repo: make_task(root, repo) for repo in {r for _, r, _ in items}}
    verdicts: Counter[str] = Counter()
    per_kind: dict[str, Counter[str]] = defaultdict(Counter)
    cheats = []
    unverifiable = []
    codes: Counter[str] = Counter()
    rules: list[str] = []   # SWE-bench history: task.json workspace_history (make_task)
    differs = []
    for path, repo, kind in items:
        pkg, aliases = package_of(repo)
        ctx = build_context(str(tasks[repo]), pkg, workspace=workspace_for(kind, path),
                            aliases=aliases, rules=rules)
        res = scan_trajectories([path], ctx=ctx)
        if THOROUGH_TOO:
            full = scan_trajectories([path], ctx=ctx, thorough=True)
            if sorted((f.code, f.message) for f in full.findings) != sorted(
                    (f.code, f.message) for f in res.findings):
                fa = {(f.code, f.message) for f in res.findings}
                fb = {(f.code, f.message) for f in full.findings}
                differs.append({"file": os.path.basename(path), "fast": res.verdict,
                                "thorough": full.verdict,
                                "only_fast": sorted(fa - fb)[:3], "only_thorough": sorted(fb - fa)[:3]})
        verdicts[res.verdict] += 1
        per_kind[kind][res.verdict] += 1
        for f in res.findings:
            codes[f"{f.code}/{f.severity}"] += 1
        rec = {"file": os.path.basename(path), "repo": repo, "kind": kind,
               "findings": [{"code": f.code, "severity": f.severity, "message": f.message[:120],
                             "line": f.line, "event": (f.data or {}).get("event")}
                            for f in res.findings if f.severity == "error"]}
        if res.verdict == "CHEAT_DETECTED":
            cheats.append(rec)
        elif res.verdict == "UNVERIFIABLE":
            unverifiable.append(rec)
    n = len(items)
    for lst in (cheats, unverifiable):
        for rec in lst:
            rec["findings_total"] = len(rec["findings"])
            del rec["findings"][3:]
    return {"trajectories": n, "history_allowed": HISTORY_ALLOWED, "verdicts": dict(verdicts),
            "thorough_compared": THOROUGH_TOO, "fast_differs_from_thorough": differs,
            "per_kind": {k: dict(v) for k, v in per_kind.items()},
            "false_cheat_rate": round(verdicts["CHEAT_DETECTED"] / n, 4) if n else None,
            "finding_codes": dict(sorted(codes.items())),
            "cheat_files": len(cheats), "cheat": cheats[:40],
            "unverifiable_files": len(unverifiable), "unverifiable": unverifiable[:40]}


def speed(items: list[tuple[str, str, str]], root: Path, rounds: int) -> dict:
    mini = [(p, r) for p, r, k in items if k == "mini-swe-agent"]
    if not mini:
        return {}
    tasks = {repo: make_task(root, repo) for repo in {r for _, r in mini}}

    def contexts() -> dict:
        """A fresh scan context per repository. Built anew before every round, outside the
        timed part: a context remembers what it decided (pure actions, scripts), and one
        reused across rounds let later rounds profit from earlier ones."""
        out = {}
        for repo in tasks:
            pkg, aliases = package_of(repo)
            out[repo] = build_context(str(tasks[repo]), pkg, workspace=[WS], aliases=aliases)
        return out

    ctxs = contexts()
    total = sum(os.path.getsize(p) for p, _ in mini)
    by_repo: dict[str, list[str]] = defaultdict(list)
    for p, r in mini:
        by_repo[r].append(p)

    def floor(paths: list[str]) -> None:
        for p in paths:
            with open(p, "rb") as fh:
                json.loads(fh.read())

    def scan(repo: str, paths: list[str]) -> None:
        scan_trajectories(paths, ctx=ctxs[repo])

    for repo, paths in by_repo.items():   # warm the page cache and the compiled matchers
        floor(paths)
        scan(repo, paths)
    # per repository, floor and scan alternate, so a swing in the machine's load (other
    # processes on 2 shared cores) hits both alike; CPU time of this process is the
    # primary measure, wall time is kept next to it
    ratios, tf, ts, wf, ws = [], [], [], [], []
    for _ in range(rounds):
        ctxs = contexts()  # scan() reads it through the closure
        cf = cs = af = aw = 0.0
        for repo, paths in by_repo.items():
            c0, w0 = time.process_time(), time.perf_counter()
            floor(paths)
            c1, w1 = time.process_time(), time.perf_counter()
            scan(repo, paths)
            c2, w2 = time.process_time(), time.perf_counter()
            cf += c1 - c0
            cs += c2 - c1
            af += w1 - w0
            aw += w2 - w1
        tf.append(cf)
        ts.append(cs)
        wf.append(af)
        ws.append(aw)
        ratios.append(cf / cs)
    return {"files": len(mini), "bytes": total, "rounds": rounds,
            "json_loads_cpu_s": [round(x, 3) for x in tf], "scan_cpu_s": [round(x, 3) for x in ts],
            "json_loads_wall_s": [round(x, 3) for x in wf], "scan_wall_s": [round(x, 3) for x in ws],
            "json_loads_MBps": round(total / 1e6 / statistics.median(tf), 1),
            "scan_MBps": round(total / 1e6 / statistics.median(ts), 1),
            "ratio_median_of_pairs": round(statistics.median(ratios), 3),
            "ratio_wall_of_medians": round(statistics.median(wf) / statistics.median(ws), 3),
            "goal": ">= 0.5", "loadavg": os.getloadavg()[0]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", action="append", default=[])
    ap.add_argument("--completions", action="append", default=[], metavar="DIR",
                    help="folder of OpenHands LLM completion logs (the trajs/ folder of "
                         "gsmoon97/swe-agent-eval, see honest_sources.json)")
    ap.add_argument("--thorough-too", action="store_true",
                    help="scan every file also with --thorough and list any difference")
    ap.add_argument("--label", default="after")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-speed", action="store_true")
    ap.add_argument("--no-scoring", action="store_true",
                    help="task.json without the scoring block (only repo and package)")
    ap.add_argument("--history-allowed", action="store_true",
                    help="a SWE-bench rules overlay: the repository's own git history is the "
                         "agent's input (rule git-history switched off)")
    args = ap.parse_args()
    global SCORING, HISTORY_ALLOWED, THOROUGH_TOO
    SCORING = not args.no_scoring
    HISTORY_ALLOWED = args.history_allowed
    THOROUGH_TOO = args.thorough_too
    with tempfile.TemporaryDirectory() as tmp:
        items = collect(args.corpus or DEFAULT_MINI, args.limit)
        items += collect_openhands(DEFAULT_OPENHANDS, Path(tmp) / "openhands")
        items += collect_completions(args.completions)
        if not items:
            print("no trajectories found; see the docstring for where they come from")
            return
        res = precision(items, Path(tmp))
        print(f"{res['trajectories']} trajectories: {res['verdicts']} "
              f"false CHEAT rate {res['false_cheat_rate']}")
        for c in res["cheat"]:
            for f in c["findings"]:
                print(f"  CHEAT {c['file']}: {f['code']} {f['message'][:160]}")
        if not args.no_speed:
            res["speed"] = speed(items, Path(tmp), args.rounds)
            print("speed:", {k: v for k, v in res["speed"].items() if not isinstance(v, list)})
    (HERE / f"honest_results_{args.label}.json").write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    main()
