"""Files the agent wrote, kept per path, for when it later runs or installs them.

Why: a script saved with the Write tool and run a step later, or a requirements
file written with apply_patch and then `pip install -r`, moves the forbidden part
out of the command that runs it. Every write the scan sees (Write/Edit tools,
apply_patch, heredocs, `echo >`) records its text in the session's store (the
shell state's `files`), and the analyser reads it back at execution time.
"""

from __future__ import annotations

import re

_PATCH_HEAD = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$")
_MOVE = re.compile(r"^\*\*\* Move to: (.+?)\s*$")


def patch_files(text: str) -> list[tuple[str, str | None]]:
    """apply_patch text -> (path, text the patch adds there); Delete gives None."""
    out: list[tuple[str, str | None]] = []
    path: str | None = None
    added: list[str] = []
    deleted = False

    def close() -> None:
        if path is not None:
            out.append((path, None if deleted else "\n".join(added) + "\n"))

    for line in text.splitlines():
        m = _PATCH_HEAD.match(line)
        if m:
            close()
            path, added, deleted = m.group(2), [], m.group(1) == "Delete"
            continue
        mv = _MOVE.match(line)
        if mv and path is not None:
            path = mv.group(1)
            continue
        if (path is not None and line.startswith("+")) or (path is not None and line.startswith(" ")):
            added.append(line[1:])
    close()
    return out


MAX_KEPT = 1 << 20     # text kept per written file: the most recent MiB


def merge(old: str | None, new: str | None, whole: bool) -> str | None:
    """The store's text after a write: a whole-file write replaces, an edit adds its text
    to what is known (the analysis reads every piece the agent put there). Memory is
    bounded: past MAX_KEPT the oldest text goes (edits repeat what the file holds)."""
    if new is None:
        return None if whole else old
    if whole or old is None:
        return new[-MAX_KEPT:]
    if new in old:
        return old
    out = old + ("" if old.endswith("\n") else "\n") + new
    return out[-MAX_KEPT:]


def requirement_names(text: str) -> list[tuple[str, str]]:
    """Requirement lines -> (kind, value): ("req", name spec), ("file", -r path),
    ("url", link), ("path", local path)."""
    out: list[tuple[str, str]] = []
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"^(-r|--requirement|-c|--constraint)\s*=?\s*(\S+)", line)
        if m:
            out.append(("file", m.group(2)))
            continue
        m = re.match(r"^(-e|--editable)\s*=?\s*(\S+)", line)
        if m:
            line = m.group(2)
        if line.startswith("-"):
            continue
        if re.match(r"^[a-z+]+://", line) or line.startswith("git+"):
            out.append(("url", line))
        elif line.startswith((".", "/", "~")):
            out.append(("path", line))
        else:
            out.append(("req", re.split(r"\s*@\s*", line, maxsplit=1)[-1]
                        if " @ " in line and "://" in line else line))
            if " @ " in line:
                out.append(("url", line.split("@", 1)[1].strip()))
    return out
