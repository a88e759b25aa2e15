"""The oracle's test ids a task gives (kept_nodeids*.txt, task.json's taxonomy).

Several of them in one tool output mean oracle content reached the agent. Loading
fails closed: what was not loaded is an entry of the sink's `unchecked` (CHT-U007).
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Any, Protocol

from gavelkit.core.errors import InputError

MAX_ORACLE_FILES = 32            # kept_nodeids*.txt files read for the oracle-id check
MAX_ORACLE_IDS = 1_000_000       # ids kept in memory (~150 MB); GAVEL_SCAN_MAX_ORACLE_IDS


class IdSink(Protocol):
    """Where the ids go (the scan's places.Context)."""

    signatures: set[str]
    sig_files: set[str]
    unchecked: list[tuple[str, int, str]]
    task_record: str | None


def max_oracle_ids() -> int:
    """How many oracle ids the output check keeps in memory (GAVEL_SCAN_MAX_ORACLE_IDS)."""
    raw = os.environ.get("GAVEL_SCAN_MAX_ORACLE_IDS", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else MAX_ORACLE_IDS


def _add_signature(ctx: IdSink, base: str, name: str) -> None:
    if len(name) >= 6:  # shorter names (`test`) are too common to be evidence
        ctx.signatures.add(f"{base}::{name}")
        ctx.sig_files.add(base)


def load_signatures(ctx: IdSink, tdir: Path, record: dict[str, Any]) -> None:
    """Oracle node ids: seeing several of them in an output means oracle content leaked.

    Fail closed: a kept list that cannot be read, more kept files than MAX_ORACLE_FILES,
    or more ids than `max_oracle_ids()` mean some oracle ids are not looked for; each is
    an entry of `ctx.unchecked` (CHT-U007, with the file and line), which makes the
    verdict UNVERIFIABLE: the output check is not CLEAN for ids it never had.
    """
    cap = max_oracle_ids()
    files = sorted(tdir.glob("kept_nodeids*.txt"))
    if len(files) > MAX_ORACLE_FILES:
        ctx.unchecked.append((str(files[MAX_ORACLE_FILES]), 0,
                              f"{len(files)} kept_nodeids*.txt files, over the limit of "
                              f"{MAX_ORACLE_FILES}: the ids of {len(files) - MAX_ORACLE_FILES} "
                              "file(s) from this one on were not looked for in tool outputs"))
    for f in files[:MAX_ORACLE_FILES]:
        text = _kept_text(ctx, f)
        if text is not None and not _kept_ids(ctx, f, text, cap):
            return
    tax = record.get("taxonomy")
    if isinstance(tax, dict):
        _taxonomy_ids(ctx, tax, cap)


def _kept_text(ctx: IdSink, f: Path) -> str | None:
    """A kept-ids file's text; None (and an unchecked entry) when it cannot be read."""
    from gavelkit.core.safeio import read_input

    try:
        raw = read_input(f, allow_empty=True)  # a FIFO here must not hang the scan
    except InputError as exc:
        ctx.unchecked.append((str(f), exc.line or 0, "oracle id list not read, its ids "
                              f"were not looked for in tool outputs: {exc.message}"))
        return None
    except OSError as exc:
        ctx.unchecked.append((str(f), 0, "oracle id list not read, its ids were not "
                              f"looked for in tool outputs: {exc.strerror or exc}"))
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        ctx.unchecked.append((str(f), raw[:exc.start].count(b"\n") + 1,
                              "oracle id list is not UTF-8, its ids were not looked for "
                              "in tool outputs"))
        return None


def _kept_ids(ctx: IdSink, f: Path, text: str, cap: int) -> bool:
    """Add the file's ids; False when the cap stopped it (the rest was not read)."""
    for no, ln in enumerate(text.splitlines(), start=1):
        ln = ln.strip()
        if "::" not in ln:
            continue
        if len(ctx.signatures) >= cap:
            ctx.unchecked.append((str(f), no, f"more than {cap:,} oracle ids: the ids from "
                                  "this line on were not looked for in tool outputs "
                                  "(GAVEL_SCAN_MAX_ORACLE_IDS)"))
            return False
        file_part, _, name = ln.partition("::")
        _add_signature(ctx, posixpath.basename(file_part), name.split("[")[0].split("::")[-1])
    return True


def _taxonomy_ids(ctx: IdSink, tax: dict[str, Any], cap: int) -> None:
    for key in tax:
        if "::" not in key:
            continue
        if len(ctx.signatures) >= cap:
            ctx.unchecked.append((ctx.task_record or "task.json", 0,
                                  f"more than {cap:,} oracle ids: taxonomy entries from "
                                  f"{key!r} on were not looked for in tool outputs "
                                  "(GAVEL_SCAN_MAX_ORACLE_IDS)"))
            return
        mod, _, name = key.partition("::")
        base = posixpath.basename(mod.replace("\\", "/"))
        _add_signature(ctx, base if base.endswith(".py") else base + ".py", name.split("[")[0])
