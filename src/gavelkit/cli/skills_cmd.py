"""`gavel skills install`: copy the skill folders into an agent's skills directory.

Each installed skill carries its own copy of gavelkit in `scripts/_gavelkit/`, made from
the gavelkit running the install, so the folder works on its own when copied anywhere:
its scripts need only Python 3.11+ and the seed's pip prerequisites. The repository keeps
one copy of the code; the copy is an install artifact.

Files this command installed earlier (recorded with their sha256 in
`.gavel-skills.json`) are updated freely, and removed when a newer install no longer has
them; a file someone changed since, or one that was there before us, is never
overwritten unless --force is given.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from gavelkit.cli.common import parser
from gavelkit.core.errors import InputError, UsageError
from gavelkit.core.textio import atomic_write

RECORD = ".gavel-skills.json"
#: where in a skill folder its gavelkit copy goes (what scripts/_gavel.py looks for)
VENDOR = "scripts/_gavelkit"
#: parts of the package that a copy leaves out: byte code, and the wheel's bundle
SKIP_PARTS = {"__pycache__", "_bundle"}
CATEGORIES = ("installed", "updated", "unchanged", "refused", "removed", "kept")


@dataclass(frozen=True, slots=True)
class Item:
    """One file to install: its path under the destination, its bytes, its mode."""

    key: str
    data: bytes
    executable: bool


@dataclass(slots=True)
class Result:
    installed: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # no longer ours to remove: changed since

    def as_dict(self) -> dict[str, list[str]]:
        return {c: getattr(self, c) for c in CATEGORIES}


def find_skills(explicit: str | None = None) -> Path | None:
    if explicit:
        return Path(explicit)
    from gavelkit.cli.bundled import bundled

    return bundled("skills")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _runs(key: str, data: bytes) -> bool:
    """A script the seed's invocations run (`scripts/X` with a #! line) is installed 0755,
    whatever mode the source file had (a wheel does not keep modes)."""
    parts = key.split("/")
    return len(parts) == 3 and parts[1] == "scripts" and data.startswith(b"#!")


def skill_items(src: Path, name: str) -> list[Item]:
    """The skill folder's own files; a link out of it, a FIFO or a device is refused
    (exit 2, naming it): installing it would copy whatever it points at, world-readable."""
    from gavelkit.core.safeio import iter_files, read_input

    root = src / name
    if not (root / "SKILL.md").is_file():
        have = sorted(d.name for d in src.iterdir() if (d / "SKILL.md").is_file()) \
            if src.is_dir() else []
        raise UsageError(f"no skill {name!r} in {src}"
                         + (f"; one of: {', '.join(have)}" if have else ""))
    out = []
    for f, why in iter_files(root):
        rel = f.relative_to(root)
        if "__pycache__" in rel.parts or rel.as_posix().startswith(VENDOR + "/"):
            continue
        if why is not None:
            raise InputError(str(f), f"refusing to install it: {why}", code="GK-IO010")
        key = f"{name}/{rel.as_posix()}"
        data = read_input(f, root=root, allow_empty=True)
        out.append(Item(key, data, _runs(key, data)))
    return out


def vendor_items(name: str) -> list[Item]:
    """This gavelkit, copied under the skill's scripts/_gavelkit/ (plus a note saying so)."""
    from gavelkit import __version__
    from gavelkit.cli.bundled import package_dir
    from gavelkit.core.safeio import iter_files, read_input

    pkg = package_dir()
    base = f"{name}/{VENDOR}"
    out = []
    for f, why in iter_files(pkg):
        rel = f.relative_to(pkg)
        if SKIP_PARTS & set(rel.parts) or f.suffix in (".pyc", ".pyo"):
            continue
        if why is not None:
            raise InputError(str(f), f"refusing to copy it into the skill: {why}",
                             code="GK-IO010")
        out.append(Item(f"{base}/gavelkit/{rel.as_posix()}",
                        read_input(f, root=pkg, allow_empty=True), False))
    note = (f"gavelkit {__version__}, copied here by `gavel skills install` so that this skill\n"
            "folder runs on its own: the scripts in ../ import it (see ../_gavel.py). It is\n"
            "an install artifact; do not edit it. To refresh it, run from the folder that\n"
            f"holds this skill folder:\n\n    gavel skills install --only {name} --dest .\n")
    out.append(Item(f"{base}/ABOUT.txt", note.encode("utf-8"), False))
    return out


def plan(src: Path, names: list[str]) -> list[Item]:
    out: list[Item] = []
    for name in names:
        out.extend(skill_items(src, name))
        out.extend(vendor_items(name))
    return out


def _load_record(record_path: Path) -> dict[str, str]:
    from gavelkit.core.safeio import load_json

    record = load_json(record_path, what="install record") if os.path.lexists(record_path) \
        else {}
    if not isinstance(record, dict) or not all(isinstance(v, str) for v in record.values()):
        raise InputError(str(record_path), "install record is not an object of path -> sha256; "
                         "remove it to start over (files it listed are then treated as yours)")
    return record


def _place(dest: Path, item: Item, record: dict[str, str], force: bool,
           res: Result) -> bool:
    """Sort one item into the result; True when it must be written."""
    from gavelkit.core.safeio import read_input

    target = dest / item.key
    if not target.is_file():
        res.installed.append(item.key)
        return True
    current = read_input(target, limit=max(len(item.data), 1) * 4 + (1 << 20),
                         allow_empty=True)
    mode_ok = bool(target.stat().st_mode & 0o100) == item.executable
    if current == item.data:
        record[item.key] = _sha(item.data)
        if mode_ok:
            res.unchanged.append(item.key)
            return False
        res.updated.append(item.key)
        return True
    if record.get(item.key) != _sha(current) and not force:
        res.refused.append(item.key)
        return False
    res.updated.append(item.key)
    return True


def _remove_stale(dest: Path, names: list[str], wanted: set[str], record: dict[str, str],
                  res: Result, dry_run: bool) -> None:
    """Files an earlier install of these skills put here that this one no longer has."""
    from gavelkit.core.safeio import read_input

    for key in sorted(k for k in record if k.split("/", 1)[0] in names and k not in wanted):
        target = dest / key
        if not target.is_file() or target.is_symlink():
            record.pop(key)
            continue
        if _sha(read_input(target, allow_empty=True)) != record[key]:
            res.kept.append(key)
            record.pop(key)
            continue
        res.removed.append(key)
        if not dry_run:
            target.unlink()
            record.pop(key)
            _prune_empty(target.parent, dest / key.split("/", 1)[0])


def _is_copy(key: str) -> bool:
    return key.partition("/")[2].startswith(VENDOR + "/")


def _write_copy(target: Path, data: bytes, mode: int) -> None:
    """A file of the gavelkit copy: replaced atomically like every output, but without an
    fsync each (two hundred of them made an install take seconds); the install record,
    written last with atomic_write, is what says the copy is complete."""
    from gavelkit.core.safeio import check_output

    check_output(target)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as exc:
        from gavelkit.core.safeio import os_reason

        with contextlib.suppress(OSError):
            tmp.unlink()
        raise InputError(str(target), f"cannot write: {os_reason(exc)}",
                         code="GK-IO009") from None


def _prune_empty(folder: Path, stop: Path) -> None:
    while folder != stop and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def install(src: Path, dest: Path, names: list[str], force: bool = False,
            dry_run: bool = False) -> Result:
    record_path = dest / RECORD
    record = _load_record(record_path)
    res = Result()
    todo = plan(src, names)
    for item in todo:
        if _place(dest, item, record, force, res) and not dry_run:
            _write(dest, item)
            record[item.key] = _sha(item.data)
    _remove_stale(dest, names, {i.key for i in todo}, record, res, dry_run)
    touched = res.installed or res.updated or res.unchanged or res.removed
    if touched and not dry_run:
        atomic_write(record_path, json.dumps(record, indent=2, sort_keys=True) + "\n")
    return res


def _write(dest: Path, item: Item) -> None:
    mode = 0o755 if item.executable else 0o644
    if _is_copy(item.key):
        _write_copy(dest / item.key, item.data, mode)
    else:
        atomic_write(dest / item.key, item.data, mode=mode)


def summarize(keys: list[str]) -> list[str]:
    """Keys for a person: a skill's gavelkit copy is one line, not two hundred."""
    out: list[str] = []
    copies: dict[str, int] = {}
    for k in keys:
        name = k.partition("/")[0]
        if _is_copy(k):
            copies[f"{name}/{VENDOR}/"] = copies.get(f"{name}/{VENDOR}/", 0) + 1
        else:
            out.append(k)
    out.extend(f"{folder} ({n} file{'s' if n != 1 else ''})" for folder, n in copies.items())
    return out


def _print_text(res: Result, dest: Path) -> None:
    for k in ("installed", "updated", "removed", "refused", "kept"):
        for line in summarize(getattr(res, k)):
            print(f"{k:<9} {dest / line}")
    print(", ".join(f"{len(getattr(res, k))} {k}" for k in CATEGORIES
                    if getattr(res, k) or k in ("installed", "updated", "unchanged", "refused")))


def main(argv: list[str], prog: str) -> int:
    p = parser(prog, "Install the gavel skill folders (SKILL.md, scripts and their own copy "
               "of gavelkit) for an agent.")
    p.add_argument("action", choices=["install", "list"])
    p.add_argument("--dest", default=".claude/skills", help="default: .claude/skills")
    p.add_argument("--only", "--skill", dest="only", action="append", metavar="NAME",
                   help="install only this skill (repeatable); `gavel skills list` names them")
    p.add_argument("--from", dest="src", help="skills folder to copy from (default: the one "
                   "shipped with gavelkit)")
    p.add_argument("--force", action="store_true", help="overwrite files changed since install")
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--format", choices=["text", "json"], default="text")
    args = p.parse_args(argv)
    src = find_skills(args.src)
    if src is None or not src.is_dir():
        raise UsageError("skill folders not found: this gavelkit was installed without them; "
                         "pass the skills/ folder of a gavelkit checkout with --from")
    names = args.only or sorted(d.name for d in src.iterdir() if (d / "SKILL.md").is_file())
    if args.action == "list":
        for n in names:
            print(n)
        return 0
    dest = Path(args.dest)
    res = install(src, dest, list(dict.fromkeys(names)), args.force, args.dry_run)
    if args.format == "json":
        print(json.dumps(res.as_dict(), indent=2))
    else:
        _print_text(res, dest)
    if res.refused:
        print(f"{prog}: refused to overwrite files changed since they were installed "
              "(use --force)", file=sys.stderr)
        return 1
    return 0
