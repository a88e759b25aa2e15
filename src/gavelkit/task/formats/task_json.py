"""task.json: read the drifting key set, rewrite without losing anything.

Real files carry a UTF-8 BOM or not, 2- or 4-space indents, and dozens of
keys nobody standardised. A rewrite keeps every unknown key, the key order,
the BOM and the indent; only the keys the caller sets change. Writes are
atomic and locked, so a judge and a human editing the same file never leave a
half-written record.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.core.safeio import parse_json
from gavelkit.core.textio import atomic_write, decode_text, locked, read_bytes


@dataclass(slots=True)
class TaskJson:
    path: str
    data: dict[str, Any] = field(default_factory=dict)
    bom: bool = False
    indent: int = 2
    ascii_escapes: bool = False
    trailing_newline: bool = True

    # --- accessors for the key variants seen in real packets ---
    @property
    def instance_id(self) -> str | None:
        v = self.data.get("instance_id", self.data.get("task_id"))
        return v if isinstance(v, str) else None

    @property
    def status(self) -> str | None:
        v = self.data.get("status")
        return v if isinstance(v, str) else None

    @property
    def oracle(self) -> dict[str, Any]:
        v = self.data.get("oracle")
        return v if isinstance(v, dict) else {}

    @property
    def stats(self) -> dict[str, Any] | None:
        v = self.data.get("stats")
        return v if isinstance(v, dict) else None

    @property
    def oracle_count(self) -> int | None:
        v = self.oracle.get("count", self.oracle.get("total"))
        return v if isinstance(v, int) and not isinstance(v, bool) else None

    @property
    def test_files(self) -> list[str]:
        v = self.oracle.get("test_files")
        return [x for x in v if isinstance(x, str)] if isinstance(v, list) else []

    @property
    def taxonomy(self) -> dict[str, str]:
        """key -> layer, from `{key: layer}` or `{"entries": [{taxonomy_key, layer}], counts...}`."""
        v = self.data.get("taxonomy")
        if not isinstance(v, dict):
            return {}
        out = {k: x for k, x in v.items() if isinstance(x, str) and k != "file"}
        entries = v.get("entries")
        if isinstance(entries, list):
            for e in entries:
                if isinstance(e, dict):
                    key = e.get("taxonomy_key", e.get("key", e.get("nodeid")))
                    if isinstance(key, str) and isinstance(e.get("layer"), str):
                        out[key] = e["layer"]
        return out

    @property
    def taxonomy_file(self) -> str | None:
        """`{"file": "taxonomy.jsonl", "atomic": 18, ...}`: the layers live in that file."""
        v = self.data.get("taxonomy")
        f = v.get("file") if isinstance(v, dict) else None
        if not isinstance(f, str):
            f = self.oracle.get("taxonomy_file")
        return f if isinstance(f, str) and f else None

    @property
    def mapping_file(self) -> str | None:
        """oracle.mapping_file (e.g. source_nodeid_map.json): node id -> spec section records."""
        v = self.oracle.get("mapping_file")
        return v if isinstance(v, str) and v else None

    @property
    def coverage(self) -> dict[str, Any] | None:
        """The coverage the authors recorded (`coverage.verdict`, uncovered sections ...)."""
        v = self.data.get("coverage")
        return v if isinstance(v, dict) else None

    @property
    def coverage_gap(self) -> Any:
        """task-judge: an accepted GAP is recorded under `coverage_gap` with its reason
        (`coverage-gap`, the spelling of a real MANIFEST.json, is read too)."""
        return self.data.get("coverage_gap", self.data.get("coverage-gap"))

    def coverage_gap_entries(self) -> tuple[list[tuple[str, str]], list[str]]:
        """((section, reason) pairs, problems) of the recorded coverage_gap; see read_coverage_gap."""
        return read_coverage_gap(self.coverage_gap)

    @property
    def oracle_source(self) -> str | None:
        v = self.oracle.get("source")
        return v if isinstance(v, str) else None

    @property
    def oracle_version(self) -> str | None:
        for v in (self.data.get("oracle_version"), self.oracle.get("oracle_version")):
            if isinstance(v, str) and v:
                return v
        return None

    def set(self, key: str, value: Any) -> None:
        """Set a top-level key, in place if it exists, appended at the end if not."""
        self.data[key] = value

    def dumps(self) -> str:
        text = json.dumps(self.data, ensure_ascii=self.ascii_escapes, indent=self.indent)
        if self.trailing_newline:
            text += "\n"
        return ("\ufeff" if self.bom else "") + text


def parse_task_json(raw: bytes, path: str = "task.json") -> tuple[TaskJson | None, list[Finding]]:
    try:
        text = decode_text(raw, path)
    except InputError as exc:
        return None, [exc.to_finding()]
    tj = TaskJson(path, bom=raw.startswith(b"\xef\xbb\xbf"))
    try:
        data = parse_json(text, path, "JSON")
    except InputError as exc:
        return None, [Finding("TSK-R005", "error", f"task.json is not usable: {exc.message}",
                              path, exc.line, exc.col, unusable=True)]
    if not isinstance(data, dict):
        return None, [Finding("TSK-R005", "error", "task.json is not a JSON object", path, 1, 1,
                              unusable=True)]
    if not data:
        return None, [Finding("TSK-R005", "error", "task.json is an empty object: no "
                              "instance_id, no oracle; nothing in it can be judged", path, 1, 1,
                              unusable=True)]
    tj.data = data
    _keep_style(tj, text)
    return tj, _id_problems(tj, text) + _shape_problems(tj, text)


def _keep_style(tj: TaskJson, text: str) -> None:
    """Indent, escapes and the final newline as written, so a rewrite keeps them."""
    m = re.search(r"\n( +)\"", text)
    tj.indent = len(m.group(1)) if m else 2
    tj.ascii_escapes = bool(re.search(r"\\u[0-9a-fA-F]{4}", text)) and not any(
        ord(c) > 127 for c in text)
    tj.trailing_newline = text.endswith("\n")


def _id_problems(tj: TaskJson, text: str) -> list[Finding]:
    if tj.instance_id is not None:
        return []
    bad_id = next((k for k in ("instance_id", "task_id") if k in tj.data), None)
    if bad_id is None:
        return [Finding("TSK-R005", "warning", "no instance_id (or task_id) key", tj.path, 1, 1)]
    # present but not text: the record cannot be trusted
    return [Finding("TSK-R005", "error", f"'{bad_id}' should be a JSON string, not "
                    f"{type(tj.data[bad_id]).__name__}", tj.path, _key_line(text, bad_id), 1,
                    unusable=True)]


def _shape_problems(tj: TaskJson, text: str) -> list[Finding]:
    """Keys of the wrong JSON type; a broken oracle or test_files makes the record unusable."""
    out: list[Finding] = []
    for key, kind in (("oracle", dict), ("stats", dict), ("taxonomy", dict), ("labels", list),
                      ("weaknesses", list)):
        if key in tj.data and not isinstance(tj.data[key], kind):
            what = "object" if kind is dict else "array"
            out.append(Finding("TSK-R005", "error", f"'{key}' should be a JSON {what}",
                               tj.path, _key_line(text, key), 1, unusable=key == "oracle"))
    tf = tj.oracle.get("test_files")
    if tf is not None and not (isinstance(tf, list) and all(isinstance(x, str) for x in tf)):
        out.append(Finding("TSK-R005", "error", "'oracle.test_files' should be a JSON "
                           "array of paths", tj.path, _key_line(text, "test_files"), 1,
                           unusable=True))
    return out


def _key_line(text: str, key: str) -> int:
    m = re.search(r'^\s*"' + re.escape(key) + r'"\s*:', text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else 1


def read_task_json(path: str | Path) -> tuple[TaskJson | None, list[Finding]]:
    try:
        raw = read_bytes(path)
    except InputError as exc:
        return None, [exc.to_finding()]
    return parse_task_json(raw, str(path))


def write_task_json(tj: TaskJson) -> None:
    """Atomic rewrite keeping BOM, indent, key order and every unknown key."""
    atomic_write(tj.path, tj.dumps())


def update_task_json(path: str | Path, updates: dict[str, Any]) -> TaskJson:
    """Locked read-modify-write of top-level keys; raises InputError if unreadable."""
    with locked(path):
        tj, findings = read_task_json(path)
        if tj is None:
            f = findings[0]
            raise InputError(str(path), f.message, f.line, f.col)
        for k, v in updates.items():
            tj.set(k, v)
        write_task_json(tj)
    return tj


COVERAGE_GAP_SHAPE = ('coverage_gap {"sections": ["<exact spec heading>", ...], "reason": '
                      '"<why test-filter could derive no further tests>"}')


def read_coverage_gap(value: Any) -> tuple[list[tuple[str, str]], list[str]]:
    """The accepted-GAP caveats a task.json `coverage_gap` records, and what cannot be used.

    One reader for Gate D and the judge, so they never disagree on what is accepted.
    Shapes read: `{"sections": [...] | "A; B", "reason": "..."}` (the documented one) and
    `[{"section": ..., "reason": ...}, ...]` (one reason per section; real MANIFEST.json
    files use it). A section without a reason is a problem, not an acceptance: the seed
    accepts a GAP only with the exception stated.
    """
    if value is None:
        return [], []
    items, problems = _gap_items(value)
    entries: list[tuple[str, str]] = []
    for sec, why in items:
        if not isinstance(sec, str) or not sec.strip():
            problems.append("a coverage_gap entry names no section")
        elif not isinstance(why, str) or not why.strip():
            problems.append(f"coverage_gap names '{sec.strip()}' without a reason")
        else:
            entries.append((sec.strip(), why.strip()))
    if problems:
        problems.append("record " + COVERAGE_GAP_SHAPE)
    return entries, problems


def _gap_items(value: Any) -> tuple[list[tuple[Any, Any]], list[str]]:
    """(section, reason) pairs as written, of either shape, and the shape's problems."""
    if isinstance(value, dict) and "sections" in value:
        secs = value["sections"]
        secs = [x.strip() for x in secs.split(";")] if isinstance(secs, str) else secs
        if not isinstance(secs, list):
            return [], ["coverage_gap.sections is not a list of headings"]
        return [(x, value.get("reason")) for x in secs], []
    if not isinstance(value, list):
        return [], ["coverage_gap is not in a shape the judge reads"]
    items: list[tuple[Any, Any]] = []
    problems: list[str] = []
    for i, e in enumerate(value):
        if isinstance(e, dict):
            items.append((e.get("section", e.get("spec_section")), e.get("reason")))
        else:
            problems.append(f"coverage_gap[{i}] is not a {{section, reason}} object")
    return items, problems
