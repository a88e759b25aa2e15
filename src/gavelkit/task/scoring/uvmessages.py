"""What uv's error output says is missing, in one sentence that names the requirement.

An offline run, a sandbox without network or an index without the release all end in a
long resolver message; the user needs the distribution's name and why it could not be had.
"""

from __future__ import annotations

import re

_MISSING = (
    re.compile(r"Because ([A-Za-z0-9][\w.\-]*(?:\[[^\]]*\])?)[^\n]*? was not found in the "
               r"(?:cache|package registry)"),
    re.compile(r"Because ([A-Za-z0-9][\w.\-]*) was not found in the "),
    re.compile(r"there (?:are|is) no versions? of ([A-Za-z0-9][\w.\-]*)"),
    re.compile(r"Failed to fetch: `[^`]*/simple/([A-Za-z0-9][\w.\-]*)/?`"),
    re.compile(r"Failed to download (?:and build )?`([A-Za-z0-9][\w.\-]*)"),
    re.compile(r"([A-Za-z0-9][\w.\-]*) was not found in the cache"),
)


def missing_requirements(stderr: str) -> list[str]:
    """Distribution names uv could not get (offline, unreachable index or no such release)."""
    out: list[str] = []
    for rx in _MISSING:
        for m in rx.finditer(stderr):
            name = m.group(1).rstrip(".,")
            if name not in out and name.lower() not in ("your", "you", "the"):
                out.append(name)
    return out


def install_failure(what: str, stderr: str, offline: bool) -> str:
    """One message naming the requirement that could not be installed, when uv says which."""
    names = missing_requirements(stderr)
    unreachable = bool(re.search(r"network was disabled|Failed to fetch|dns error|Could not "
                                 r"connect|Connection refused|timed out|offline", stderr, re.I))
    if names:
        where = ("the package index cannot be reached (offline or sandboxed) and uv's cache "
                 "does not hold it" if unreachable or offline else "the index has no matching "
                 "release")
        return (f"installing {what} failed: requirement {', '.join(repr(n) for n in names)} "
                f"is missing ({where})")
    tail = stderr.strip()[-900:]
    return f"installing {what} failed: {tail}"
