"""`gavel skills install`: copy the skill folders into an agent's skills directory.

Files this command installed earlier (recorded with their sha256 in
`.gavel-skills.json`) are updated freely; a file someone changed since, or one that
was there before us, is never overwritten unless --force is given.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from gavelkit.cli.common import parser
from gavelkit.core.errors import UsageError
from gavelkit.core.textio import atomic_write

RECORD = ".gavel-skills.json"


def find_skills(explicit: str | None = None) -> Path | None:
    if explicit:
        return Path(explicit)
    for parent in Path(__file__).resolve().parents:
        cand = parent / "skills"
        if (cand / "mathodology-award-gates" / "SKILL.md").is_file():
            return cand
    return None


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def plan(src: Path, dest: Path, names: list[str]) -> list[tuple[Path, Path, bytes]]:
    out = []
    for name in names:
        root = src / name
        if not (root / "SKILL.md").is_file():
            raise UsageError(f"no skill {name!r} in {src}")
        for f in sorted(root.rglob("*")):
            if f.is_file() and "__pycache__" not in f.parts:
                out.append((f, dest / name / f.relative_to(root), f.read_bytes()))
    return out


def install(src: Path, dest: Path, names: list[str], force: bool = False,
            dry_run: bool = False) -> dict[str, list[str]]:
    record_path = dest / RECORD
    try:
        record = json.loads(record_path.read_text(encoding="utf-8")) if record_path.is_file() else {}
    except (OSError, ValueError):
        record = {}
    result: dict[str, list[str]] = {"installed": [], "updated": [], "unchanged": [],
                                    "refused": []}
    todo = plan(src, dest, names)
    for srcfile, target, data in todo:
        key = target.relative_to(dest).as_posix()
        if target.is_file():
            current = target.read_bytes()
            if current == data:
                result["unchanged"].append(key)
                record[key] = _sha(data)
                continue
            ours = record.get(key) == _sha(current)
            if not ours and not force:
                result["refused"].append(key)
                continue
            result["updated"].append(key)
        else:
            result["installed"].append(key)
        if not dry_run:
            mode = 0o755 if srcfile.stat().st_mode & 0o111 else 0o644
            atomic_write(target, data, mode=mode)
            record[key] = _sha(data)
    if not dry_run and (result["installed"] or result["updated"] or result["unchanged"]):
        atomic_write(record_path, json.dumps(record, indent=2, sort_keys=True) + "\n")
    return result


def main(argv: list[str], prog: str) -> int:
    p = parser(prog, "Install the gavel skill folders (SKILL.md + scripts) for an agent.")
    p.add_argument("action", choices=["install", "list"])
    p.add_argument("--dest", default=".claude/skills", help="default: .claude/skills")
    p.add_argument("--skill", action="append", help="only this skill (repeatable)")
    p.add_argument("--from", dest="src", help="skills folder to copy from (default: bundled)")
    p.add_argument("--force", action="store_true", help="overwrite files changed since install")
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--format", choices=["text", "json"], default="text")
    args = p.parse_args(argv)
    src = find_skills(args.src)
    if src is None or not src.is_dir():
        raise UsageError("skill folders not found; pass --from <gavelkit checkout>/skills")
    names = args.skill or sorted(d.name for d in src.iterdir() if (d / "SKILL.md").is_file())
    if args.action == "list":
        for n in names:
            print(n)
        return 0
    res = install(src, Path(args.dest), names, args.force, args.dry_run)
    if args.format == "json":
        print(json.dumps(res, indent=2))
    else:
        for k in ("installed", "updated", "refused"):
            for f in res[k]:
                print(f"{k:<9} {Path(args.dest) / f}")
        print(f"{len(res['installed'])} installed, {len(res['updated'])} updated, "
              f"{len(res['unchanged'])} unchanged, {len(res['refused'])} refused")
    if res["refused"]:
        print(f"{prog}: refused to overwrite files changed since they were installed "
              "(use --force)", file=sys.stderr)
        return 1
    return 0
