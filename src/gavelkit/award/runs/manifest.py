"""`package/manifest.md`: the inventory the blind seats receive with the PDF (seed §6).

Compiled at Phase 6 close from the tree itself (path, size, sha256 for the rendered
PDF, figures, tables, data and code), and checkable later: anything missing, extra
or changed since compilation is a finding, so seats never judge a stale package.
"""

from __future__ import annotations

import hashlib
import re
import time
from pathlib import Path

from gavelkit.award.runs.layout import layout
from gavelkit.core.findings import Finding
from gavelkit.core.textio import atomic_write, read_text

SECTIONS = (("Figures", "outputs/figures"), ("Tables", "outputs/tables"),
            ("Data", "outputs/data"), ("Code", "code"))
_ROW = re.compile(r"^\|\s*`?([^|`]+?)`?\s*\|\s*(\d+)\s*\|\s*([0-9a-f]{64})\s*\|")
SKIP_DIRS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache", ".git"}


def _sha(p: Path) -> str:
    h = hashlib.sha256()
    with p.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    out = []
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder)
        if any(part in SKIP_DIRS or part.startswith(".") for part in rel.parts):
            continue
        if p.is_file():
            out.append(p)
    return out


def inventory(run: Path) -> dict[str, tuple[int, str]]:
    """work/<id>/... path -> (bytes, sha256) for the PDF and every inventoried file."""
    prefix = f"work/{run.name}/"
    out: dict[str, tuple[int, str]] = {}
    pdf = run / layout()["paper"]
    if pdf.is_file():
        out[prefix + layout()["paper"]] = (pdf.stat().st_size, _sha(pdf))
    for _, sub in SECTIONS:
        for p in _files(run / sub):
            out[prefix + p.relative_to(run).as_posix()] = (p.stat().st_size, _sha(p))
    return out


def render(run: Path) -> str:
    inv = inventory(run)
    prefix = f"work/{run.name}/"
    pdf_key = prefix + layout()["paper"]
    lines = [f"# Package manifest — run {run.name}", "",
             f"Compiled {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by "
             "`gavel award manifest` at Phase 6 close. The judge seats receive this file and "
             "the rendered PDF, nothing else.", ""]
    if pdf_key in inv:
        size, sha = inv[pdf_key]
        lines += ["## Rendered PDF", "", "| path | bytes | sha256 |", "|---|---|---|",
                  f"| `{pdf_key}` | {size} | {sha} |", ""]
    else:
        lines += ["## Rendered PDF", "", f"(missing: `{pdf_key}` has not been compiled)", ""]
    for title, sub in SECTIONS:
        rows = [(k, v) for k, v in inv.items() if k.startswith(prefix + sub + "/")]
        lines += [f"## {title}", ""]
        if not rows:
            lines += ["(none)", ""]
            continue
        lines += ["| path | bytes | sha256 |", "|---|---|---|"]
        lines += [f"| `{k}` | {size} | {sha} |" for k, (size, sha) in rows]
        lines.append("")
    return "\n".join(lines)


def write_manifest(run: Path) -> Path:
    dest = run / layout()["manifest"]
    atomic_write(dest, render(run))
    return dest


def check_manifest(run: Path, manifest: Path | None = None) -> list[Finding]:
    path = manifest or run / layout()["manifest"]
    if not path.is_file():
        return [Finding("AWD-N004", "error", "no manifest: run `gavel award manifest RUN_DIR` at "
                        "Phase 6 close", str(path))]
    text = read_text(path, allow_empty=True)
    listed: dict[str, tuple[int, str, int]] = {}
    for i, line in enumerate(text.split("\n"), 1):
        m = _ROW.match(line)
        if m:
            listed[m.group(1).strip()] = (int(m.group(2)), m.group(3), i)
    if not listed:
        return [Finding("AWD-N004", "error", "the manifest lists no files (no `| path | bytes | "
                        "sha256 |` rows)", str(path), 1, 1)]
    actual = inventory(run)
    out: list[Finding] = []
    for key, (size, sha, line) in listed.items():
        if key not in actual:
            out.append(Finding("AWD-N001", "error", f"{key} is listed but no longer exists",
                               str(path), line, 1))
        elif actual[key][1] != sha:
            out.append(Finding("AWD-N003", "error", f"{key} changed since the manifest was "
                               f"compiled ({size} -> {actual[key][0]} bytes)", str(path), line, 1))
    for key in actual:
        if key not in listed:
            out.append(Finding("AWD-N002", "error", f"{key} exists but is not in the manifest",
                               str(path)))
    return out
