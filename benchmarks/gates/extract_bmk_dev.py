"""Extract every task folder of every branch of E2E-Bmk/Bmk-dev for the gate benchmark.

    python benchmarks/gates/extract_bmk_dev.py [GIT_DIR] [OUT_DIR]

GIT_DIR defaults to the `fetch` tool's mirror (/work/.mirror/E2E-Bmk+Bmk-dev/repo);
OUT_DIR to /work/scratch/i14/tasks. A task folder is `tasks/<name>/` holding
spec.md, task.json or MANIFEST.json; it lands in OUT_DIR/<branch>/<name>
(`/` in branch names becomes `__`). Writes OUT_DIR/sources.json (branch, commit,
path per task) so a run can be reproduced; the extracted files are third-party
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
        for t in tasks:
            data = git(repo, "archive", "--format=tar", commit, f"tasks/{t}")
            dest = bdir / t
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                for m in tar.getmembers():
                    if not m.isfile():
                        continue
                    rel = Path(*Path(m.name).parts[2:])
                    target = dest / rel
                    target.parent.mkdir(parents=True, exist_ok=True)
                    f = tar.extractfile(m)
                    target.write_bytes(f.read() if f else b"")
            sources.append({"branch": branch, "commit": commit, "path": f"tasks/{t}",
                            "dir": str(dest.relative_to(out))})
        print(f"{branch} @ {commit[:7]}: {len(tasks)} task folders", file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    (out / "sources.json").write_text(json.dumps(sources, indent=1) + "\n", "utf-8")
    print(f"{len(sources)} task folders -> {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
