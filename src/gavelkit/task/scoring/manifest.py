"""A manifest of every file of a scoring environment, taken when it is built, checked
before each run that uses it.

Environments are installed as copies (UV_LINK_MODE=copy: no file shares an inode with
uv's cache, which a solution's build once wrote into), and their files are read-only to
every sandboxed process. A run without the sandbox, or anything else on the machine,
can still change them; the next run would then score on a poisoned pytest. So the
manifest (`<env>.manifest.json`, beside the environment, never inside it) records each
file's size, modification and change times and sha256; a run compares sizes and times of
every file (the change time cannot be set back) and re-hashes those that differ, while
its first test process runs; a changed environment is rebuilt and the run done again.
(Bytecode caches are files of the environment too: a poisoned .pyc counts.)
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path


def path_of(env: Path) -> Path:
    return env.parent / f"{env.name}.manifest.json"


def _walk(env: Path) -> dict[str, os.stat_result]:
    """{relative path: lstat} of every file, as os.walk lists them (links not followed; a
    link to a folder is neither followed nor listed)."""
    out: dict[str, os.stat_result] = {}
    todo = [("", str(env))]
    while todo:
        rel, path = todo.pop()
        try:
            entries = list(os.scandir(path))
        except OSError:
            continue
        for e in entries:
            name = rel + e.name
            try:
                if e.is_dir(follow_symlinks=False):
                    todo.append((name + os.sep, e.path))
                elif e.is_dir():  # a link to a folder
                    continue
                elif name != "gavel-env.json":  # gavel's own record, written last
                    out[name] = e.stat(follow_symlinks=False)
            except OSError:
                continue
    return out


def _sha(p: str) -> str:
    h = hashlib.sha256()
    try:
        with open(p, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return ""
    return h.hexdigest()


def record(env: Path) -> Path:
    """Write the manifest of a freshly built environment."""
    from gavelkit.core.textio import atomic_write

    files = {rel: [st.st_size, st.st_mtime_ns, st.st_ctime_ns, _sha(os.path.join(env, rel))]
             for rel, st in _walk(env).items()}
    out = path_of(env)
    atomic_write(out, json.dumps({"format": 1, "files": files}, sort_keys=True) + "\n")
    return out


def changes(env: Path) -> list[str]:
    """What differs from the manifest ([] when the environment is as built). A missing
    or unreadable manifest is a difference: the environment cannot be vouched for."""
    try:
        data = json.loads(path_of(env).read_text("utf-8"))
        files = data["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return ["no readable manifest"]
    now = _walk(env)
    out = [f"added {rel}" for rel in sorted(set(now) - set(files))]
    out += [f"removed {rel}" for rel in sorted(set(files) - set(now))]
    for rel, st in now.items():
        want = files.get(rel)
        if want is None:
            continue
        # the change time moves with every write and every utime: it cannot be put back
        if [st.st_size, st.st_mtime_ns, st.st_ctime_ns] != list(want[:3]) and \
                _sha(os.path.join(env, rel)) != want[3]:
            out.append(f"changed {rel}")
    return out
