"""Gate E's checks on spec.md: required sections, forbidden terms, the Environment section.

Which sections are required and whether the Environment template applies
depend on the spec standard the task was written to (gates/standard.py); the
forbidden-term list is QUALITY_GATE 2a.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gavelkit.core.findings import Finding
from gavelkit.task.formats.spec import Spec, norm_heading
from gavelkit.task.gates.standard import Standard, detect

_INLINE_CODE = re.compile(r"`+[^`]*`+")


def _find_required(spec: Spec, entry: dict[str, Any]) -> Any:
    names = [entry["name"], *entry.get("aliases", [])]
    keys = {norm_heading(n) for n in names}
    for s in spec.sections:
        if s.key in keys:
            return s
    return None


def check_structure(spec: Spec, cfg: dict[str, Any], path: str,
                    std: Standard | None = None) -> tuple[list[Finding], dict[str, Any]]:
    """Required sections (and, for six layers, their order) of the standard `std`."""
    if std is None:
        std, why = detect(spec, cfg)
    else:
        why = "requested"
    profile = std.profile
    info: dict[str, Any] = {"profile": profile, "standard": std.id, "detected_by": why}
    table = list(std.required) if profile == "legacy" else cfg["spec"]["six_layer"]
    where = (f"standard {std.id}: {std.source}" if profile == "legacy"
             else f"standard {std.id}: SPEC_STANDARD six layers")
    out, found = _required_sections(spec, table, where, path)
    if profile == "six_layer":
        out += _six_layers(spec, cfg, table, found, info, path)
    return out, info


def _required_sections(spec: Spec, table: list[dict[str, Any]], where: str, path: str
                       ) -> tuple[list[Finding], list[tuple[int, str, str]]]:
    """TSK-E001 per missing section; the (line, layer, name) of each one found."""
    out: list[Finding] = []
    found: list[tuple[int, str, str]] = []
    for entry in table:
        s = _find_required(spec, entry)
        if s is not None:
            found.append((s.line, entry.get("layer", ""), entry["name"]))
            continue
        alias = f" (or {', '.join(entry['aliases'])})" if entry.get("aliases") else ""
        out.append(Finding("TSK-E001", "error",
                           f"required section '{entry['name']}'{alias} is missing ({where})",
                           path, 0, 0))
    return out, found


def _six_layers(spec: Spec, cfg: dict[str, Any], table: list[dict[str, Any]],
                found: list[tuple[int, str, str]], info: dict[str, Any], path: str
                ) -> list[Finding]:
    """Enough behavior sections, the layers in order, no stale section names."""
    out: list[Finding] = []
    behavior = _behavior_sections(spec, cfg, table)
    info["behavior_sections"] = [s.text for s in behavior]
    need = int(cfg["spec"]["layers"]["min_behavior_sections"])
    if len(behavior) < need:
        out.append(Finding("TSK-E002", "error",
                           f"{len(behavior)} behavior section(s); the six-layer structure "
                           f"needs at least {need}", path, 0, 0))
    placed = sorted(found + [(s.line, "Behavior", s.text) for s in behavior])
    out += _layer_order(placed, cfg["spec"]["layers"]["order"], path)
    return out + _stale_names(spec, cfg, path)


def _behavior_sections(spec: Spec, cfg: dict[str, Any], table: list[dict[str, Any]]) -> list[Any]:
    """H2 sections that are neither a required layer nor a listed non-behavior section."""
    fixed = {norm_heading(n) for e in table for n in [e["name"], *e.get("aliases", [])]}
    fixed |= {norm_heading(n) for n in cfg["spec"]["non_behavior"]["names"]}
    return [s for s in spec.sections if s.level == 2 and s.key not in fixed]


def _stale_names(spec: Spec, cfg: dict[str, Any], path: str) -> list[Finding]:
    stale = {norm_heading(n) for n in cfg["spec"]["stale_names"]}
    return [Finding("TSK-E003", "warning", f"stale section name '{s.text}' in a six-layer spec "
                    "(spec-writer validation #4)", path, s.line, 1)
            for s in spec.sections if s.level == 2 and s.key in stale]


def _layer_order(placed: list[tuple[int, str, str]], order: list[str], path: str
                 ) -> list[Finding]:
    out: list[Finding] = []
    rank = -1
    prev = ""
    for line, layer, name in placed:
        r = order.index(layer) if layer in order else rank
        if r < rank:
            out.append(Finding("TSK-E002", "error",
                               f"'{name}' ({layer} layer) comes after '{prev}'; layers must "
                               f"run {' -> '.join(order)}", path, line, 1))
        else:
            rank, prev = r, name
    return out


def _proper_name(text: str, m: re.Match[str], names: list[dict[str, Any]]) -> bool:
    """The term used as a proper name of the domain (Oracle the database), by data."""
    for n in names:
        if m.group(1).lower() != n["term"].lower() or m.group(0) != n["spelling"]:
            continue
        start = max(text.rfind(".", 0, m.start()), text.rfind(";", 0, m.start())) + 1
        ends = [i for i in (text.find(".", m.end()), text.find(";", m.end())) if i >= 0]
        sentence = text[start:min(ends) if ends else len(text)]
        rest = sentence.replace(m.group(0), " ", 1)
        if any(re.search(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", rest) for w in n["near"]):
            return True
    return False


@dataclass(frozen=True, slots=True)
class _Terms:
    """The forbidden-term rule of one spec: the pattern, the notes lines and their soft terms."""

    pattern: re.Pattern[str]
    notes_lines: frozenset[int]
    soft: frozenset[str]
    names: list[dict[str, Any]]
    path: str


def _terms_rule(spec: Spec, cfg: dict[str, Any], path: str) -> _Terms:
    terms = cfg["spec"]["forbidden_terms"]
    notes_keys = {norm_heading(n) for n in cfg["spec"]["notes_sections"]}
    return _Terms(
        re.compile(r"(?<![\w-])(" + "|".join(re.escape(t) for t in terms) + r")(?:s|es)?(?![\w-])",
                   re.I),
        frozenset(ln for s in spec.sections if s.key in notes_keys
                  for ln in range(s.line, s.end + 1)),
        frozenset(t.lower() for t in cfg["spec"]["notes_allowed_terms"]),
        cfg["spec"].get("term_proper_names", []), path)


def check_terms(spec: Spec, cfg: dict[str, Any], path: str) -> list[Finding]:
    """QUALITY_GATE 2a terms; `scoring` inside the notes section is a warning, since
    spec-writer (lines 78, 217) puts the description of how scoring works exactly there."""
    rule = _terms_rule(spec, cfg, path)
    out: list[Finding] = []
    internal_line = 0
    for i, line in enumerate(spec.lines, start=1):
        if not spec.mask[i - 1]:
            out += _line_terms(rule, i, line)
        elif "<!-- INTERNAL" in line and not internal_line:
            internal_line = i
    if internal_line:
        out.append(Finding("TSK-E004", "warning",
                           "the INTERNAL header is still in spec.md; strip it before the spec "
                           "reaches a candidate", path, internal_line, 1))
    return out


def _line_terms(rule: _Terms, i: int, line: str) -> list[Finding]:
    out: list[Finding] = []
    text = _INLINE_CODE.sub(" ", line)
    for m in rule.pattern.finditer(text):
        if _proper_name(text, m, rule.names):
            continue
        if i in rule.notes_lines and m.group(1).lower() in rule.soft:
            out.append(Finding("TSK-E004", "warning",
                               f"'{m.group(1)}' in the notes section, where spec-writer asks "
                               "for the scoring approach but QUALITY_GATE 2a lists the term: "
                               f"review: {line.strip()[:160]!r}", rule.path, i, m.start() + 1))
        else:
            out.append(Finding("TSK-E004", "error",
                               f"forbidden term '{m.group(1)}' in the spec body: "
                               f"{line.strip()[:160]!r}", rule.path, i, m.start() + 1))
    return out


def check_environment(task: Any, cfg: dict[str, Any], std: Standard | None = None) -> list[Finding]:
    """QUALITY_GATE 2d: packages of oracle/requirements.txt named, network policy stated.

    Only under a standard whose Environment template asks for that; the 2026-07-13
    template itself promised "any third-party packages available on PyPI".
    """
    spec = task.spec
    std = std or detect(spec, cfg, task)[0]
    if std.environment != "quality_gate":
        return []
    ge = cfg["gate_e"]
    keys = [norm_heading(n) for n in ge["environment_sections"]]
    sec = next((s for k in keys for s in spec.sections if s.key == k), None)
    if sec is None:
        return []  # a missing section is TSK-E001
    path = str(task.paths["spec"])
    body = spec.body(sec)
    low = " ".join(t for _, t in body).lower()
    return _env_promises(sec, body, low, ge, path) + _env_packages(task, sec, low, ge, path)


def _env_promises(sec: Any, body: list[tuple[int, str]], low: str, ge: dict[str, Any],
                  path: str) -> list[Finding]:
    """No open-ended dependency promise; every policy word (network ...) stated."""
    out = [Finding("TSK-E013", "error", f"open-ended dependency promise in '{sec.text}': "
                   f"{t.strip()[:160]!r} (list the preinstalled packages instead)", path, ln, 1)
           for phrase in ge["environment_forbidden"] for ln, t in body
           if phrase.lower() in t.lower()]
    return out + [Finding("TSK-E013", "error", f"'{sec.text}' does not state the {word} policy",
                          path, sec.line, 1)
                  for word in ge["environment_must_mention"] if word.lower() not in low]


def _env_packages(task: Any, sec: Any, low: str, ge: dict[str, Any], path: str
                  ) -> list[Finding]:
    """Every package of the oracle's requirements file named in the section."""
    req = _requirements_file(task)
    if not req.is_file():
        return []
    ignore = {p.lower() for p in ge["environment_ignore_packages"]}
    return [Finding("TSK-E013", "error", f"'{sec.text}' does not list the preinstalled "
                    f"package {name} from {task.rel(req)}", path, sec.line, 1)
            for name in _requirement_names(req)
            if name.lower() not in ignore and not _mentions(low, name)]


def _requirements_file(task: Any) -> Path:
    """task.json's oracle requirements when that file exists, else oracle/requirements.txt."""
    req = None
    if task.task_json and isinstance(task.task_json.oracle.get("requirements"), str):
        req = task.resolve(task.task_json.oracle["requirements"])
    if req is None or not req.is_file():
        req = task.resolve("oracle/requirements.txt")
    return req


def _requirement_names(req: Path) -> list[str]:
    """Distribution names of a requirements file (options and comments skipped)."""
    from gavelkit.core.safeio import read_input

    names = []
    for line in read_input(req, allow_empty=True).decode("utf-8", "replace").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        name = re.split(r"[<>=!~;\[\s@]", line, maxsplit=1)[0].strip()
        if name:
            names.append(name)
    return names


def _mentions(low: str, name: str) -> bool:
    """The lower-cased section text names the package (`-` and `_` alike)."""
    pat = r"(?<![\w-])" + re.escape(name.lower()).replace(r"\-", "[-_]") + r"(?![\w-])"
    return re.search(pat, low) is not None
