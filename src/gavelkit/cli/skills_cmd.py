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
    """Every file to install; a link out of the skill folder, a FIFO or a device is refused
    (exit 2, naming it): installing it would copy whatever it points at, world-readable."""
    from gavelkit.core.errors import InputError
    from gavelkit.core.safeio import iter_files, read_input

    out = []
    for name in names:
        root = src / name
        if not (root / "SKILL.md").is_file():
            raise UsageError(f"no skill {name!r} in {src}")
        for f, why in iter_files(root):
            if "__pycache__" in f.relative_to(root).parts:
                continue
            if why is not None:
                raise InputError(str(f), f"refusing to install it: {why}", code="GK-IO010")
            out.append((f, dest / name / f.relative_to(root),
                        read_input(f, root=root, allow_empty=True)))
    return out


def install(src: Path, dest: Path, names: list[str], force: bool = False,
            dry_run: bool = False) -> dict[str, list[str]]:
    import os

    from gavelkit.core.safeio import load_json

    record_path = dest / RECORD
    record = load_json(record_path, what="install record") if os.path.lexists(record_path) \
        else {}
    if not isinstance(record, dict) or not all(isinstance(v, str) for v in record.values()):
        from gavelkit.core.errors import InputError

        raise InputError(str(record_path), "install record is not an object of path -> sha256; "
                         "remove it to start over (files it listed are then treated as yours)")
    result: dict[str, list[str]] = {"installed": [], "updated": [], "unchanged": [],
                                    "refused": []}
    todo = plan(src, dest, names)
    for srcfile, target, data in todo:
        key = target.relative_to(dest).as_posix()
        if target.is_file():
            from gavelkit.core.safeio import read_input

            current = read_input(target, limit=max(len(data), 1) * 4 + (1 << 20),
                                 allow_empty=True)
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
