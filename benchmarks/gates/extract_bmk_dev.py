"""Extract every task folder of every branch of E2E-Bmk/Bmk-dev for the gate benchmark.

    python benchmarks/gates/extract_bmk_dev.py [GIT_DIR] [OUT_DIR]

GIT_DIR defaults to the `fetch` tool's mirror (/work/.mirror/E2E-Bmk+Bmk-dev/repo);
OUT_DIR to /work/scratch/i14/tasks. A task folder is `tasks/<name>/` holding
spec.md, task.json or MANIFEST.json; it lands in OUT_DIR/<branch>/<name>
(`/` in branch names becomes `__`). Where a branch keeps the oracle at the
repository level (`oracle/<name>/`, QUALITY_GATE Gate 0; main and repo_status)
and the task folder has no `oracle/`, those files are copied into
`<name>/oracle/`, so every extracted folder is complete (as in
../shared/corpus/bmk-real). Writes OUT_DIR/sources.json (branch, commit, paths
per task) so a run can be reproduced; the extracted files are third-party
material and are never committed.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

MARKERS = ("spec.md", "task.json", "MANIFEST.json")


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", str(repo), *args], check=True,
                          capture_output=True).stdout


def _untar(data: bytes, dest: Path, strip: int) -> int:
    n = 0
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for m in tar.getmembers():
            if not m.isfile():
                continue
            target = dest / Path(*Path(m.name).parts[strip:])
            target.parent.mkdir(parents=True, exist_ok=True)
            f = tar.extractfile(m)
            target.write_bytes(f.read() if f else b"")
            n += 1
    return n


def main() -> int:
    repo = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror/E2E-Bmk+Bmk-dev/repo")
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "/work/scratch/i14/tasks")
    if not repo.exists():
        print(f"{repo}: not found (run the fetch tool for github:E2E-Bmk/Bmk-dev)", file=sys.stderr)
        return 2
    refs = git(repo, "for-each-ref", "--format=%(refname:short) %(objectname)",
               "refs/heads").decode().split("\n")
    sources = []
    for line in filter(None, refs):
        branch, commit = line.split()
        names = git(repo, "ls-tree", "-r", "--name-only", commit, "--", "tasks").decode().split("\n")
        tasks = sorted({p.split("/")[1] for p in names
                        if p.count("/") == 2 and p.rsplit("/", 1)[1] in MARKERS})
        bdir = out / branch.replace("/", "__")
        repo_oracles = {p.split("/")[1] for p in git(repo, "ls-tree", "-r", "--name-only", commit,
                                                    "--", "oracle").decode().split("\n")
                        if p.count("/") >= 2}
        for t in tasks:
            dest = bdir / t
            _untar(git(repo, "archive", "--format=tar", commit, f"tasks/{t}"), dest, 2)
            rec = {"branch": branch, "commit": commit, "path": f"tasks/{t}",
                   "dir": str(dest.relative_to(out))}
            if t in repo_oracles and not (dest / "oracle").exists():
                _untar(git(repo, "archive", "--format=tar", commit, f"oracle/{t}"),
                       dest / "oracle", 2)
                rec["oracle_from"] = f"oracle/{t}"
            sources.append(rec)
        print(f"{branch} @ {commit[:7]}: {len(tasks)} task folders", file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    (out / "sources.json").write_text(json.dumps(sources, indent=1) + "\n", "utf-8")
    print(f"{len(sources)} task folders -> {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
