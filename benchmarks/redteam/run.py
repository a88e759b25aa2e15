"""Red team: candidates that try to raise their own score, read what they must not, or
poison later runs; each is scored and judged by gavel and reported held or not.

    PYTHONPATH=src python3 benchmarks/redteam/run.py [--target semver|fsspec] [--only ID ...]
        [--label LABEL]  -> benchmarks/redteam/results-<label>.json and .md

An attack is a folder in `attacks/`: `attack.toml` (family, goal, the check that decides
it, environment, timeout), `inject.py` (code appended to the target package's
`__init__.py`; `$PKG` is replaced by the package name, `$CANARY_*` by the paths of the
canaries) and optionally `files/` (added to the solution; a `__PKG__` folder is the
package) and `setup.py` (the solution becomes a project that gavel builds). An attack
that differs from another only in its options or build names it as `code_from` and takes
the parts it has none of (inject.py, files/, setup.py) from there. Code several attacks
share (finding pytest's plugin manager) is kept once in `attacks/_snippets/NAME.py` and
stands in their files as a line `# red-team snippet: NAME`.

Targets: `semver` is the example task (examples/task-semver) with its broken candidate
(honest 215/295); `fsspec` is the real corpus task fsspec-filesystem-fullrepro-001 with a
broken copy of fsspec 2026.6.0 (the release its reference run installed) as candidate.
Each target is first scored honestly (the baseline); then every attack.

Checks (`check` in attack.toml):
- inflate: held when the candidate passes no test the honest candidate fails, or the run
  is refused: an error-level tamper finding (what the judge turns into CHEAT_DETECTED) or
  inactive isolation; on the example the judge's verdict is recorded too, and a QUALIFIED
  verdict with an inflated score is never held.
- leak: held when no canary text reaches anything the run wrote (the attack raises
  what it read into the test reports);
- poison: held when the honest candidate and the reference score exactly as before,
  after the attack ran;
- finish: held when gavel ends within the attack's timeout and nothing is inflated;
- blame: held when no failure of the candidate is put on the environment, the
  infrastructure or gavel, and the run is not declared invalid (TSK-X009).
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SNIPPET = re.compile(r"^# red-team snippet: (\w+)\n", re.M)  # attacks/_snippets/NAME.py
ROOT = HERE.parent.parent
EXAMPLE = ROOT / "examples" / "task-semver"
CORPUS = Path("/work/shared/corpus/bmk-real")
TAMPER = {"TSK-X002", "TSK-X008", "TSK-X010", "TSK-X012", "TSK-X021", "TSK-X026", "TSK-X027"}
WORK: list[Path] = []  # the red team's own folder: private caches, and all an attack may write
REFUSED_VERDICTS = {"CHEAT_DETECTED", "BROKEN", "PENDING", "UNVERIFIABLE"}


@dataclass
class Attack:
    id: str
    family: str
    goal: str
    check: str
    folder: Path
    env: dict[str, str] = field(default_factory=dict)
    timeout: float = 300.0
    targets: list[str] = field(default_factory=lambda: ["semver", "fsspec"])
    args: list[str] = field(default_factory=list)  # extra `gavel task run` options
    code_from: Path | None = None  # another attack's folder: its code where this has none

    def part(self, name: str) -> Path:
        """inject.py, files/ or setup.py: this attack's own, else `code_from`'s (two
        attacks that differ only in their options or build keep the code once)."""
        own = self.folder / name
        return own if own.exists() or self.code_from is None else self.code_from / name


@dataclass
class Target:
    name: str
    task: Path  # the prepared template task (with its reference run)
    solution: Path  # the honest, broken candidate
    package: str
    trajectory: Path | None
    judge: bool
    honest: dict[str, Any] = field(default_factory=dict)
    reference: dict[str, Any] = field(default_factory=dict)


SRC = [ROOT / "src"]  # the gavelkit sources under test (--src: another checkout's)


def gavel(*args: str, env: dict[str, str] | None = None, timeout: float = 600,
          cwd: Path | None = None) -> tuple[int, str, str, float]:
    cmd = [sys.executable, "-m", "gavelkit", *args]
    full = {**os.environ, "PYTHONPATH": str(SRC[0]), "GAVEL_PROGRESS": "0",
            **(env or {})}
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=full, timeout=timeout,
                           check=False, cwd=cwd)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        return -999, out, f"timed out after {timeout:g} s", time.monotonic() - t0


def load_attacks(only: list[str] | None) -> list[Attack]:
    out = []
    for d in sorted((HERE / "attacks").iterdir()):
        if not (d / "attack.toml").is_file() or (only and d.name not in only):
            continue
        meta = tomllib.loads((d / "attack.toml").read_text("utf-8"))
        out.append(Attack(d.name, meta["family"], meta["goal"], meta.get("check", "inflate"),
                          d, dict(meta.get("env", {})), float(meta.get("timeout", 300)),
                          list(meta.get("targets", ["semver", "fsspec"])),
                          list(meta.get("args", [])),
                          d.parent / meta["code_from"] if "code_from" in meta else None))
    return out


# ---- targets --------------------------------------------------------------------------

def _fsspec_source() -> Path | None:
    """fsspec as the reference run installed it (the derived environment in gavel's cache)."""
    from gavelkit.task.scoring.envkeys import cache_root

    for env in sorted((cache_root() / "envs").glob("sol-*")):
        for sp in env.glob("lib/python3*/site-packages/fsspec-2026.6.0.dist-info"):
            return sp.parent / "fsspec"
    return None


def _break_fsspec(pkg: Path) -> None:
    """An honest but incomplete candidate: two features missing, one bug (overridden at
    the end of their modules, so the package still imports)."""
    for rel, tail in (("mapping.py", "\n\ndef get_mapper(*args, **kwargs):\n"
                       "    raise NotImplementedError('get_mapper')\n"),
                      ("utils.py", "\n\ndef stringify_path(filepath):\n    return filepath\n"),
                      ("core.py", "\n\ndef expand_paths_if_needed(*args, **kwargs):\n"
                       "    raise NotImplementedError('expand_paths_if_needed')\n")):
        f = pkg / rel
        f.write_text(f.read_text("utf-8") + tail, "utf-8")


STUBS = """

# --- honest stubs: the names this candidate does not implement exist and raise ---
def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    def _not_implemented(*args, **kwargs):
        raise NotImplementedError(name)
    _not_implemented.__name__ = name
    return _not_implemented
"""


def _stub_missing(init: Path, pkg: str) -> None:
    """The honest baseline names what it lacks (so its test files collect): an attack
    that only adds such names gains nothing over it."""
    init.write_text(init.read_text("utf-8") + STUBS, "utf-8")


def prepare(name: str, work: Path) -> Target | None:
    work.mkdir(parents=True, exist_ok=True)
    if name == "semver":
        task = work / "task-semver"
        shutil.copytree(EXAMPLE, task, ignore=shutil.ignore_patterns("candidate-runs"))
        sol = work / "honest" / "solution"
        shutil.copytree(EXAMPLE / "candidate-runs" / "broken-001" / "solution", sol)
        _stub_missing(sol / "semver" / "__init__.py", "semver")
        traj = EXAMPLE / "candidate-runs" / "broken-001" / "trajectory.jsonl"
        gavel("task", "solvability", str(task), "--reference", str(task / "reference"),
              "--out", str(task / "judge" / "reference_run"), "--format", "json")
        return Target(name, task, sol, "semver", traj, True,
                      reference=_summary(task / "judge" / "reference_run"))
    if name == "fsspec":
        corpus_task = CORPUS / "fsspec-filesystem-fullrepro-001"
        if not corpus_task.is_dir():
            print(f"fsspec target skipped: no task {corpus_task}", file=sys.stderr)
            return None
        task = work / corpus_task.name
        shutil.copytree(corpus_task, task)
        ref = work / "reference"
        gavel("task", "solvability", str(task), "--reference-package", "fsspec==2026.6.0",
              "--out", str(ref), "--format", "json")
        src = _fsspec_source()  # the release the reference run just installed
        if src is None:
            print("fsspec target skipped: fsspec 2026.6.0 not installed", file=sys.stderr)
            return None
        sol = work / "honest" / "solution"
        shutil.copytree(src, sol / "fsspec", ignore=shutil.ignore_patterns("__pycache__"))
        _break_fsspec(sol / "fsspec")
        _stub_missing(sol / "fsspec" / "__init__.py", "fsspec")
        return Target(name, task, sol, "fsspec", None, False, reference=_summary(ref))
    raise SystemExit(f"unknown target {name}")


def _summary(out: Path) -> dict[str, Any]:
    try:
        score = json.loads((out / "score_result.json").read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return {"summary": score.get("summary"),
            "passing": sorted(c["nodeid"] for c in score.get("cases", [])
                              if c.get("counted_as") == "passed"),
            "classes": sorted({(c.get("classification") or {}).get("class", "")
                               for c in score.get("cases", []) if c.get("classification")}),
            "findings": [(f.get("code"), f.get("severity"), f.get("message", "")[:200])
                         for f in (score.get("gavel") or {}).get("findings", [])],
            "isolation": ((score.get("gavel") or {}).get("isolation") or {}).get("active")}


# ---- canaries -------------------------------------------------------------------------

class Canaries:
    """Secrets planted where a test process must not read: the real home folder, another
    run's private folder, a copy of the task's kept ids outside the task."""

    def __init__(self, work: Path) -> None:
        home = Path(pwd.getpwuid(os.getuid()).pw_dir)
        self.token = "GAVEL-CANARY-" + os.urandom(8).hex()
        tag = work.name  # one set per red-team run: two runs may share the machine
        self.home = home / ".cache" / f"gavel-redteam-{tag}" / "secret.txt"
        self.other_run = Path(tempfile.gettempdir()) / f"gavel-run-redteamvictim-{tag}" / \
            "secret.txt"
        # another checkout of the task, outside /tmp (the test process's /tmp is private)
        self.other_task = HERE / f".canary-{tag}" / "other-checkout" / "kept_nodeids.txt"
        for p in (self.home, self.other_run, self.other_task):
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(self.token + "\n", "utf-8")

    def values(self) -> dict[str, str]:
        return {"$CANARY_HOME": str(self.home), "$CANARY_RUN": str(self.other_run),
                "$CANARY_TASK": str(self.other_task), "$CANARY_TOKEN_PREFIX": "GAVEL-CANARY-"}

    def found_in(self, folder: Path, marks: tuple[str, ...] = ("GAVEL-LEAK:",)) -> list[str]:
        """Files of a run that hold a canary, or an attack's own mark of what it read."""
        hits = []
        for p in folder.rglob("*"):
            if p.is_file():
                try:
                    text = p.read_text("utf-8", "replace")
                    if self.token in text or any(m in text for m in marks):
                        hits.append(str(p.relative_to(folder)))
                except OSError:
                    continue
        return hits

    def remove(self) -> None:
        for p in (self.home, self.other_run):
            shutil.rmtree(p.parent, ignore_errors=True)
        shutil.rmtree(self.other_task.parent.parent, ignore_errors=True)


# ---- one attack -----------------------------------------------------------------------

def build_candidate(att: Attack, tgt: Target, dest: Path, subst: dict[str, str]) -> Path:
    sol = dest / "solution"
    shutil.copytree(tgt.solution, sol)

    def fill(text: str) -> str:
        text = SNIPPET.sub(lambda m: (HERE / "attacks" / "_snippets" / f"{m[1]}.py")
                           .read_text("utf-8"), text)
        text = text.replace("$PKG", tgt.package)
        for k, v in subst.items():
            text = text.replace(k, v)
        return text
    inject = att.part("inject.py")
    if inject.is_file():
        init = sol / tgt.package / "__init__.py"
        init.write_text(init.read_text("utf-8") + "\n\n# --- red-team attack " + att.id
                        + " ---\n" + fill(inject.read_text("utf-8")), "utf-8")
    files = att.part("files")
    if files.is_dir():
        for p in sorted(files.rglob("*")):
            if p.is_file():
                rel = str(p.relative_to(files)).replace("__PKG__", tgt.package)
                q = sol / rel
                q.parent.mkdir(parents=True, exist_ok=True)
                q.write_bytes(fill(p.read_text("utf-8")).encode() if p.suffix != ".pyc"
                              else p.read_bytes())
    if att.part("setup.py").is_file():
        (sol / "setup.py").write_text(fill(att.part("setup.py").read_text("utf-8")), "utf-8")
    return sol


def judge(task: Path, run: Path, traj: Path | None, env: dict[str, str]) -> str:
    args = ["task", "judge", str(task), "--run", str(run), "--format", "json"]
    if traj is not None:
        args += ["--trajectory", str(traj)]
    rc, out, err, _ = gavel(*args, env=env, timeout=600)
    try:
        doc = json.loads(out)
        return str((doc.get("judge") or {}).get("verdict") or doc.get("verdict"))
    except ValueError:
        return f"(judge exit {rc}: {(err or out).strip()[-160:]})"


def evaluate(att: Attack, tgt: Target, res: dict[str, Any], canaries: Canaries,
             run: Path, seconds: float, work: Path) -> dict[str, Any]:
    honest_pass = set(tgt.honest.get("passing", []))
    passing = set(res.get("passing", []))
    gained = sorted(passing - honest_pass)
    errors = [f for f in res.get("findings", []) if f[1] == "error"]
    tamper = [f for f in errors if f[0] in TAMPER]
    refused = bool(tamper) or res.get("isolation") is False
    verdict = res.get("verdict")
    row: dict[str, Any] = {"gained": len(gained), "gained_examples": gained[:3],
                           "summary": res.get("summary"), "seconds": round(seconds, 1),
                           "tamper_findings": [f"{c} {m[:120]}" for c, _, m in tamper],
                           "verdict": verdict}
    if att.check == "leak":
        hits = canaries.found_in(run)
        row.update(held=not hits, how="blocked" if not hits else "LEAKED",
                   leaked_into=hits[:5])
        return row
    if att.check == "poison":
        again = score_once(tgt, tgt.solution, work / "after-honest", caches(att))
        ref_again = _reference_again(tgt, work, caches(att))
        same = (again.get("passing") == tgt.honest.get("passing")
                and ref_again == tgt.reference.get("summary"))
        row.update(held=same and not gained, how="blocked" if same else "POISONED",
                   honest_after=again.get("summary"), reference_after=ref_again)
        return row
    if att.check == "blame":
        classes = set(res.get("classes", []))
        bad = sorted(classes & {"environment", "infrastructure"})
        invalid = any(f[0] == "TSK-X009" for f in errors)
        ok = not bad and not invalid and not gained
        row.update(held=ok, how="candidate blamed" if ok else
                   f"BLAME SHIFTED ({', '.join(bad) or 'TSK-X009 invalid run'})")
        return row
    if att.check == "cap":
        n = _counted_mark(run)
        row.update(held=n is not None and n <= CAPS[att.id.split("-", 1)[1].split("-")[0]],
                   how=f"capped at {n}" if n is not None and n <= CAPS[
                       att.id.split("-", 1)[1].split("-")[0]] else f"NOT CAPPED ({n})")
        return row
    if att.check == "finish" and seconds >= att.timeout:
        row.update(held=False, how=f"HUNG (> {att.timeout:g} s)")
        return row
    certified_inflation = gained and verdict == "QUALIFIED"
    held = not gained or (refused and not certified_inflation)
    how = ("blocked" if not gained else "flagged (" + (
        "tamper finding" if tamper else "isolation inactive") + ")" if held else "INFLATED")
    if gained and verdict is not None and verdict not in REFUSED_VERDICTS:
        held, how = False, f"INFLATED and {verdict}"
    row.update(held=held, how=how)
    return row


CAPS = {"fill": 1100, "fork": 300}  # MB written (tmpfs cap 1024), processes started


def _counted_mark(run: Path) -> int | None:
    """The number an attack reported: `GAVEL-WROTE N MB` or `GAVEL-FORKED N`."""
    import re

    for p in run.rglob("*"):
        if p.is_file():
            m = re.search(r"GAVEL-(?:WROTE|FORKED) (\d+)", p.read_text("utf-8", "replace"))
            if m:
                return int(m.group(1))
    return None


def caches(att: Attack) -> dict[str, str]:
    """The attack's own caches, without the rest of its environment (a later honest run is
    sandboxed as usual)."""
    return {k: v for k, v in att.env.items() if k in ("UV_CACHE_DIR", "GAVEL_CACHE_DIR")}


def _reference_again(tgt: Target, work: Path, env: dict[str, str]) -> dict[str, Any] | None:
    out = work / "ref-again"
    if tgt.name == "semver":
        gavel("task", "solvability", str(tgt.task), "--reference", str(tgt.task / "reference"),
              "--out", str(out), "--format", "json", env=env)
    else:
        gavel("task", "solvability", str(tgt.task), "--reference-package", "fsspec==2026.6.0",
              "--out", str(out), "--format", "json", env=env)
    return _summary(out).get("summary")


def score_once(tgt: Target, sol: Path, out: Path, env: dict[str, str],
               timeout: float = 600, task: Path | None = None,
               args: list[str] = ()) -> dict[str, Any]:
    rc, _, e, dt = gavel("task", "run", str(task or tgt.task), "--solution", str(sol),
                         "--out", str(out), "--format", "json", *args, env=env,
                         timeout=timeout)
    res = _summary(out)
    res.update(exit=rc, stderr=e.strip()[-300:], seconds=dt)
    return res


def snapshot_caches(work: Path) -> None:
    """The caches once the targets are prepared; every attack gets its own copy, so one
    that poisons a cache poisons only its own run (one `cp -a`: uv's hard links between
    its cache and the environments stay links, as on a real machine)."""
    snap = work / "cache-snapshot"
    snap.mkdir()
    subprocess.run(["cp", "-a", os.environ["UV_CACHE_DIR"], os.environ["GAVEL_CACHE_DIR"],
                    str(snap)], check=True)


def own_caches(here: Path, work: Path) -> dict[str, str]:
    dest = here / "caches"
    dest.mkdir()
    snap = work / "cache-snapshot"
    subprocess.run(["cp", "-a", *[str(p) for p in snap.iterdir()], str(dest)], check=True)
    return {"UV_CACHE_DIR": str(dest / "uv-cache"), "GAVEL_CACHE_DIR": str(dest / "gavel-cache")}


def run_attack(att: Attack, tgt: Target, canaries: Canaries, work: Path) -> dict[str, Any]:
    here = work / att.id
    shutil.rmtree(here, ignore_errors=True)
    here.mkdir(parents=True)
    att.env = {**att.env, **own_caches(here, WORK[0])}
    task = here / tgt.task.name
    shutil.copytree(tgt.task, task)
    sol = build_candidate(att, tgt, here, {**canaries.values(), "$WORK": str(WORK[0])})
    run = task / "candidate-runs" / "attack"  # where the judge looks for a candidate run
    res = score_once(tgt, sol, run, att.env, timeout=att.timeout, task=task, args=att.args)
    if tgt.judge and run.joinpath("score_result.json").is_file():
        res["verdict"] = judge(task, run, tgt.trajectory, att.env)
    row = evaluate(att, tgt, res, canaries, run, res["seconds"], here)
    row.update(id=att.id, family=att.family, goal=att.goal, check=att.check,
               target=tgt.name, exit=res.get("exit"))
    return row


def markdown(rows: list[dict[str, Any]], targets: list[Target], label: str) -> str:
    lines = [f"# Red-team results ({label})", ""]
    for t in targets:
        lines.append(f"- baseline `{t.name}`: honest candidate {t.honest.get('summary')}, "
                     f"reference {t.reference.get('summary')}")
    held = sum(1 for r in rows if r["held"])
    lines += ["", f"**{held} of {len(rows)} attack runs held** "
              f"({len({r['id'] for r in rows})} distinct attacks).", "",
              "| attack | family | target | check | held | how | gained | verdict | s |",
              "|---|---|---|---|---|---|---:|---|---:|"]
    for r in rows:
        lines.append(f"| {r['id']} | {r['family']} | {r['target']} | {r['check']} | "
                     f"{'yes' if r['held'] else '**NO**'} | {r['how']} | {r['gained']} | "
                     f"{r.get('verdict') or '-'} | {r['seconds']} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", action="append", choices=["semver", "fsspec"])
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--label", default="latest")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    ap.add_argument("--src", type=Path, help="gavelkit sources to attack (default: this "
                    "checkout's src/), e.g. /work/main/src for the code on main")
    a = ap.parse_args()
    if a.src:
        SRC[0] = a.src.resolve()
    sys.path.insert(0, str(SRC[0]))
    attacks = load_attacks(a.only)
    work = Path(tempfile.mkdtemp(prefix="gavel-redteam-"))
    WORK.append(work)
    # private caches: an attack that poisons uv's or gavel's cache poisons only these
    os.environ["UV_CACHE_DIR"] = str(work / "uv-cache")
    os.environ["GAVEL_CACHE_DIR"] = str(work / "gavel-cache")
    canaries = Canaries(work)
    rows: list[dict[str, Any]] = []
    targets: list[Target] = []
    try:
        for name in a.target or ["semver", "fsspec"]:
            tgt = prepare(name, work / name)
            if tgt is not None:
                tgt.honest = score_once(tgt, tgt.solution, work / name / "honest-run", {})
                targets.append(tgt)
        snapshot_caches(work)
        for tgt in targets:
            for att in attacks:
                if tgt.name not in att.targets:
                    continue
                row = run_attack(att, tgt, canaries, work / tgt.name / "attacks")
                rows.append(row)
                print(f"{tgt.name:7} {att.id:40} {'held' if row['held'] else 'NOT HELD':9} "
                      f"{row['how']}", flush=True)
    finally:
        canaries.remove()
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work folder kept: {work}")
    doc = {"label": label_doc(a.label), "targets": [
        {"name": t.name, "honest": t.honest.get("summary"), "reference": t.reference.get(
            "summary")} for t in targets], "rows": rows}
    (HERE / f"results-{a.label}.json").write_text(json.dumps(doc, indent=1) + "\n", "utf-8")
    (HERE / f"results-{a.label}.md").write_text(markdown(rows, targets, a.label), "utf-8")
    held = sum(1 for r in rows if r["held"])
    print(f"{held}/{len(rows)} held")
    return 0 if held == len(rows) else 1


def label_doc(label: str) -> dict[str, str]:
    commit = subprocess.run(["git", "-C", str(SRC[0]), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True, check=False).stdout.strip()
    return {"label": label, "commit": commit, "src": str(SRC[0]),
            "python": sys.version.split()[0], "uid": str(os.getuid())}


if __name__ == "__main__":
    raise SystemExit(main())
