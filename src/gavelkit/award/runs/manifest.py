"""`package/manifest.md`: the inventory the blind seats receive with the PDF (seed §6).

Compiled at Phase 6 close from the tree itself (path, size, sha256 for the rendered
PDF, figures, tables, data and code), and checkable later: anything missing, extra
or changed since compilation is a finding, so seats never judge a stale package.
PDFs and PNGs also carry a timestamp-blind digest (`stable_digest`): a file whose only
change is its embedded date (the critic's own `run_all.py` or pdflatex re-run) is a
warning that says so, not a stale package.
"""

from __future__ import annotations

import hashlib
import re
import time
from pathlib import Path
from typing import NamedTuple

from gavelkit.award.runs.layout import layout
from gavelkit.core.findings import Finding
from gavelkit.core.textio import atomic_write, read_text

SECTIONS = (("Figures", "outputs/figures"), ("Tables", "outputs/tables"),
            ("Data", "outputs/data"), ("Code", "code"))
_ROW = re.compile(r"^\|\s*`?([^|`]+?)`?\s*\|\s*(\d+)\s*\|\s*([0-9a-f]{64})\s*\|"
                  r"(?:\s*([0-9a-f]{64}|-)\s*\|)?")
HEADER = ["| path | bytes | sha256 | sha256 without embedded timestamps |", "|---|---|---|---|"]
SKIP_DIRS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache", ".git"}


def _sha(p: Path) -> str:
    import os

    h = hashlib.sha256()
    with open(os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _walk(folder: Path, run: Path) -> list[tuple[Path, str | None]]:
    from gavelkit.core.safeio import iter_files

    if not folder.is_dir():
        return []
    out = []
    for p, why in iter_files(folder, root=run):
        rel = p.relative_to(folder)
        if any(part in SKIP_DIRS or part.startswith(".") for part in rel.parts):
            continue
        out.append((p, why))
    return out


def _files(folder: Path, run: Path | None = None) -> list[Path]:
    return [p for p, why in _walk(folder, run or folder) if why is None]


def refused(run: Path) -> list[Finding]:
    """Entries of the inventoried folders that are never listed: links out of the run,
    FIFOs, devices, loops. Listing them would publish (size, sha256) of what lies
    outside the run, or hang on a pipe."""
    out = []
    pdf = run / layout()["paper"]
    from gavelkit.core.safeio import inside

    if pdf.is_symlink() and not inside(run, pdf):
        out.append(Finding("AWD-N005", "error", f"{layout()['paper']}: symbolic link leads "
                           "outside the run; not listed", str(pdf)))
    for _, sub in SECTIONS:
        for p, why in _walk(run / sub, run):
            if why is not None:
                out.append(Finding("AWD-N005", "error",
                                   f"{p.relative_to(run).as_posix()}: {why}; not listed",
                                   str(p)))
    return out


class Entry(NamedTuple):
    size: int
    sha256: str
    stable: str | None  # timestamp-blind sha256 (PDF, PNG), else None


def _entry(p: Path) -> Entry:
    from gavelkit.award.runs.stable_digest import stable_sha256

    return Entry(p.stat().st_size, _sha(p), stable_sha256(p))


def inventory(run: Path) -> dict[str, Entry]:
    """work/<id>/... path -> Entry for the PDF and every inventoried file."""
    prefix = f"work/{run.name}/"
    out: dict[str, Entry] = {}
    pdf = run / layout()["paper"]
    from gavelkit.core.safeio import inside

    if pdf.is_file() and inside(run, pdf):
        out[prefix + layout()["paper"]] = _entry(pdf)
    for _, sub in SECTIONS:
        for p in _files(run / sub, run):
            out[prefix + p.relative_to(run).as_posix()] = _entry(p)
    return out


def _row(key: str, e: Entry) -> str:
    return f"| `{key}` | {e.size} | {e.sha256} | {e.stable or '-'} |"


def render(run: Path) -> str:
    inv = inventory(run)
    prefix = f"work/{run.name}/"
    pdf_key = prefix + layout()["paper"]
    lines = [f"# Package manifest — run {run.name}", "",
             f"Compiled {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by "
             "`gavel award manifest` at Phase 6 close. The judge seats receive this file and "
             "the rendered PDF, nothing else.", ""]
    if pdf_key in inv:
        lines += ["## Rendered PDF", "", *HEADER, _row(pdf_key, inv[pdf_key]), ""]
    else:
        lines += ["## Rendered PDF", "", f"(missing: `{pdf_key}` has not been compiled)", ""]
    for title, sub in SECTIONS:
        rows = [(k, v) for k, v in inv.items() if k.startswith(prefix + sub + "/")]
        lines += [f"## {title}", ""]
        if not rows:
            lines += ["(none)", ""]
            continue
        lines += HEADER
        lines += [_row(k, e) for k, e in rows]
        lines.append("")
    return "\n".join(lines)


def write_manifest(run: Path) -> Path:
    dest = run / layout()["manifest"]
    atomic_write(dest, render(run))
    return dest


def _listed(text: str) -> dict[str, tuple[Entry, int]]:
    out: dict[str, tuple[Entry, int]] = {}
    for i, line in enumerate(text.split("\n"), 1):
        m = _ROW.match(line)
        if m:
            stable = m.group(4) if m.group(4) not in (None, "-") else None
            out[m.group(1).strip()] = (Entry(int(m.group(2)), m.group(3), stable), i)
    return out


def _changed(key: str, was: Entry, now: Entry, path: str, line: int) -> Finding:
    """Say what changed by digest; a timestamp-only change of a PDF/PNG is a warning."""
    size = (f"{was.size} -> {now.size} bytes" if was.size != now.size
            else f"same size, {now.size} bytes")
    if was.stable is not None and was.stable == now.stable:
        return Finding("AWD-N006", "warning", f"{key}: only its embedded timestamps changed "
                       f"since the manifest was compiled (sha256 {was.sha256[:12]}… -> "
                       f"{now.sha256[:12]}…, content digest {now.stable[:12]}… unchanged)",
                       path, line, 1, hint="recompile the manifest, or pin SOURCE_DATE_EPOCH "
                       "when re-running run_all.py and pdflatex so re-runs are byte-identical")
    return Finding("AWD-N003", "error", f"{key} changed since the manifest was compiled: "
                   f"sha256 {was.sha256[:12]}… -> {now.sha256[:12]}… ({size})", path, line, 1)


def check_manifest(run: Path, manifest: Path | None = None) -> list[Finding]:
    path = manifest or run / layout()["manifest"]
    if not path.is_file():
        return [Finding("AWD-N004", "error", "no manifest: run `gavel award manifest "
                        f"{run}` at Phase 6 close", str(path))]
    listed = _listed(read_text(path, allow_empty=True))
    if not listed:
        return [Finding("AWD-N004", "error", "the manifest lists no files (no `| path | bytes | "
                        "sha256 |` rows)", str(path), 1, 1)]
    actual = inventory(run)
    out: list[Finding] = refused(run)
    for key, (was, line) in listed.items():
        if key not in actual:
            out.append(Finding("AWD-N001", "error", f"{key} is listed but no longer exists",
                               str(path), line, 1))
        elif actual[key].sha256 != was.sha256:
            out.append(_changed(key, was, actual[key], str(path), line))
    for key in actual:
        if key not in listed:
            out.append(Finding("AWD-N002", "error", f"{key} exists but is not in the manifest",
                               str(path)))
    return out
