"""Gate F: the six spec phrasing rules (spec-writer validation #21-#25 and the API catalog).

1. Non-Goals bullets start with "This specification does not require|define";
   "outside this design" appears nowhere.
2. Product Overview opens with a descriptive sentence (`X` is a ...), never
   an imperative (Build/Create/Implement ...).
3. Pure libraries state CLI Entry Points in prose ("There is no console
   script ..."), not as a `Console script name: none` bullet list.
4. Each behavior section has an opening narrative sentence and bold
   sub-headers (H3 subsections also count as structure).
5. The API Catalog is a `Name | Kind | Role` table with no signatures.
6. No can/may/might/should in mandatory contract sentences (behavior and
   contract sections).
Every finding quotes the offending line.

The phrasing rules arrived with the 2026-07-23 standard (gates/standard.py). A
spec written to an earlier standard is not failed by them: Gate F says N/A and
the report's one-line summary counts what the current standard would flag.
Where the documents mark an item *(review)* or disagree, the rule is a warning:
signatures outside the API Catalog (QUALITY_GATE 2c is *(review)*, spec-writer
line 68 calls signatures contract vocabulary) and modal words outside
Cross-View Invariants (whether a sentence is a mandatory contract is a reviewer's
call; spec-writer line 117 is explicit only for invariants).
"""

from __future__ import annotations

import re
from typing import Any

from gavelkit.core.findings import Finding
from gavelkit.task.formats._md import find_tables, norm_key
from gavelkit.task.formats.spec import Section, Spec, norm_heading
from gavelkit.task.gates import GateResult
from gavelkit.task.gates.standard import detect

_INLINE_CODE = re.compile(r"`+[^`]*`+")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_SIGNATURE = re.compile(r"\w\s*\([^()]*(?::\s*[\w\[\]|.]+|->|=)[^()]*\)|\)\s*->")


def _q(line: str, at: int | None = None) -> str:
    """The line, or a 160-character window of it that shows column `at` (0-based in
    `line`), so a flagged word past the first 160 characters is still quoted."""
    s = line.strip()
    if len(s) <= 160:
        return s
    if at is None:
        return s[:159] + "…"
    at = max(0, at - (len(line) - len(line.lstrip())))
    start = max(0, min(at - 60, len(s) - 158))
    head = "…" if start > 0 else ""
    tail = "…" if start + 158 < len(s) else ""
    return head + s[start:start + 158] + tail


def _sections(spec: Spec, names: list[str]) -> list[Section]:
    keys = {norm_heading(n) for n in names}
    return [s for s in spec.sections if s.key in keys]


def _prose(line: str) -> bool:
    s = line.strip()
    return bool(s) and not s.startswith(("|", "#", ">", "```", "~~~", "<!--")) and not _BULLET.match(s) \
        and not re.match(r"^\*\*[^*]+\*\*\s*$", s)


def rule1(spec: Spec, cfg: dict[str, Any], path: str) -> list[Finding]:
    out = []
    gf = cfg["gate_f"]
    prefixes = tuple(p.lower() for p in gf["non_goal_prefixes"])
    for sec in _sections(spec, ["Non-Goals"]):
        for ln, text in spec.body(sec):
            m = _BULLET.match(text)
            if m and not m.group(1).strip().lower().startswith(prefixes):
                out.append(Finding("TSK-F001", "error",
                                   "Non-Goals bullet does not start with \"This specification does "
                                   f"not require|define\": {_q(text)!r}", path, ln, 1))
    banned = gf["banned_phrase"].lower()
    for i, text in enumerate(spec.lines, start=1):
        if not spec.mask[i - 1] and banned in text.lower():
            out.append(Finding("TSK-F002", "error",
                               f"'{gf['banned_phrase']}' is forbidden anywhere in the spec: "
                               f"{_q(text, text.lower().index(banned))!r}",
                               path, i, text.lower().index(banned) + 1))
    return out


def rule2(spec: Spec, cfg: dict[str, Any], path: str) -> list[Finding]:
    out = []
    for sec in _sections(spec, ["Product Overview"])[:1]:
        first = next(((ln, t) for ln, t in spec.body(sec, own_only=True) if _prose(t)), None)
        if first is None:
            out.append(Finding("TSK-F003", "error", "Product Overview has no opening sentence",
                               path, sec.line, 1))
            continue
        ln, text = first
        sentence = re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0]
        word = re.sub(r"[^\w-]", "", sentence.split()[0]) if sentence.split() else ""
        if word in cfg["gate_f"]["imperative_openers"]:
            out.append(Finding("TSK-F003", "error",
                               f"Product Overview opens with an imperative ('{word}'); write "
                               f"\"`name` is a <category> that ...\": {_q(sentence)!r}", path, ln, 1))
        elif not re.match(r"^(?:`[^`]+`|[\w.\-]+(?:\s+[\w.\-]+){0,4}|The\s+[^.]{1,60}?)\s+(?:is|are)\s+",
                          sentence):
            out.append(Finding("TSK-F003", "warning",
                               "Product Overview's first sentence is not in the descriptive "
                               f"\"`name` is a <category> that ...\" form: {_q(sentence)!r}",
                               path, ln, 1))
    return out


def rule3(spec: Spec, cfg: dict[str, Any], path: str) -> list[Finding]:
    out = []
    gf = cfg["gate_f"]
    nones = {v.lower() for v in gf["no_console_values"]}
    for sec in _sections(spec, gf["cli_sections"]):
        body = spec.body(sec, own_only=True)
        none_bullet = [(ln, t) for ln, t in body if _no_console_bullet(t, nones)]
        out += [Finding("TSK-F004", "error", "pure library CLI entry points must be prose "
                        "(\"There is no console script for this package ...\"), not a bullet: "
                        f"{_q(t)!r}", path, ln, 1) for ln, t in none_bullet]
        if not none_bullet:
            out += _no_console_opening(body, path)
    return out


def _no_console_bullet(t: str, nones: set[str]) -> bool:
    """`- console_scripts: none`: a bullet saying there is no console script."""
    m = _BULLET.match(t)
    kv = m and re.match(r"^console[ _-]?scripts?(?: name)?\s*:\s*(.+)$", m.group(1).strip(), re.I)
    return bool(kv) and kv.group(1).strip().strip("`*_ ").lower() in nones


def _no_console_opening(body: list[tuple[int, str]], path: str) -> list[Finding]:
    """A section saying 'no console script' opens with the standard sentence."""
    if not re.search(r"no console script", " ".join(t for _, t in body).lower()):
        return []
    first = next(((ln, t) for ln, t in body if t.strip()), None)
    if not first or first[1].strip().lower().startswith("there is no console script"):
        return []
    return [Finding("TSK-F004", "error", "pure library: CLI Entry Points should open with "
                    f"\"There is no console script for this package.\": {_q(first[1])!r}",
                    path, first[0], 1)]


def behavior_sections(spec: Spec, cfg: dict[str, Any]) -> list[Section]:
    fixed = {norm_heading(n) for n in cfg["spec"]["non_behavior"]["names"]}
    for table in ("legacy", "six_layer"):
        for e in cfg["spec"][table]:
            fixed |= {norm_heading(n) for n in [e["name"], *e.get("aliases", [])]}
    return [s for s in spec.sections if s.level == 2 and s.key not in fixed]


def rule4(spec: Spec, cfg: dict[str, Any], path: str) -> list[Finding]:
    out = []
    for sec in behavior_sections(spec, cfg):
        own = [(ln, t) for ln, t in spec.body(sec, own_only=True) if t.strip()]
        if not own or not _prose(own[0][1]):
            where, text = own[0] if own else (sec.line, sec.raw)
            out.append(Finding("TSK-F005", "error",
                               f"behavior section '{sec.text}' has no opening narrative sentence "
                               f"(starts with: {_q(text)!r})", path, where, 1))
        bold = any(re.match(r"^\s*\*\*[^*]+\*\*", t) for _, t in spec.body(sec))
        if not bold and not sec.children:
            out.append(Finding("TSK-F005", "error",
                               f"behavior section '{sec.text}' has no bold sub-headers "
                               "(**Subsection.**) grouping its behaviors", path, sec.line, 1))
    return out


def rule5(spec: Spec, cfg: dict[str, Any], path: str) -> list[Finding]:
    out = []
    gf = cfg["gate_f"]
    for sec in _sections(spec, gf["api_catalog_sections"]):
        out += _catalog_tables(spec, sec, path)
    catalog = {norm_heading(n) for n in gf["api_catalog_sections"]}
    seen: set[int] = set()
    secs = sorted(_sections(spec, gf["signature_free_sections"]), key=lambda x: x.key not in catalog)
    for sec in secs:  # the API Catalog first: its lines are errors, not review warnings
        for ln, t in spec.body(sec):
            code = None if ln in seen else next(
                (c for c in _INLINE_CODE.finditer(t) if _SIGNATURE.search(c.group(0))), None)
            if code is not None:
                seen.add(ln)
                out.append(_signature_finding(sec, sec.key in catalog, code, ln, t, path))
    return out


def _catalog_tables(spec: Spec, sec: Section, path: str) -> list[Finding]:
    """The API Catalog has a table, and each of its tables is exactly Name | Kind | Role."""
    tables = find_tables("\n".join(t for _, t in spec.raw_body(sec)))
    if not tables:
        return [Finding("TSK-F006", "error", "API Catalog has no `Name | Kind | Role` table",
                        path, sec.line, 1)]
    return [Finding("TSK-F006", "error", "API Catalog table must have exactly the columns "
                    f"Name | Kind | Role: {_q(spec.lines[sec.line + t.header_line - 1])!r}",
                    path, sec.line + t.header_line, 1)
            for t in tables if [norm_key(h) for h in t.header] != ["name", "kind", "role"]]


def _signature_finding(sec: Section, strict: bool, code: re.Match[str], ln: int, t: str,
                       path: str) -> Finding:
    """A Python signature in a signature-free section: an error in the API Catalog, else a
    review warning."""
    if strict:
        return Finding("TSK-F006", "error", f"'{sec.text}' carries a Python signature "
                       f"({code.group(0)}: types, defaults or return annotation); the API "
                       f"Catalog is Name | Kind | Role only: {_q(t)!r}", path, ln,
                       code.start() + 1)
    return Finding("TSK-F006", "warning", f"review: '{sec.text}' carries a Python signature "
                   f"({code.group(0)}); QUALITY_GATE 2c (review) asks for behavior prose "
                   f"instead: {_q(t)!r}", path, ln, code.start() + 1)


def rule6(spec: Spec, cfg: dict[str, Any], path: str) -> list[Finding]:
    out = []
    gf = cfg["gate_f"]
    pat = re.compile(r"\b(" + "|".join(map(re.escape, gf["modal_words"])) + r")\b", re.I)
    exempt = {norm_heading(n) for n in gf["modal_exempt_sections"]}
    strict = {norm_heading(n) for n in gf["modal_strict_sections"]}
    for sec in spec.sections:
        if sec.level != 2 or sec.key in exempt:
            continue
        for ln, text in spec.body(sec):
            clean = _INLINE_CODE.sub(" ", text)
            m = pat.search(clean)
            if m:
                hits = dict.fromkeys(h.lower() for h in pat.findall(clean))
                at = max(0, text.lower().find(m.group(1).lower()))
                if sec.key in strict:
                    out.append(Finding("TSK-F007", "error",
                                       f"'{'/'.join(hits)}' in '{sec.text}' (invariants use "
                                       f"must/returns, never can/may): {_q(text, at)!r}", path, ln,
                                       m.start() + 1))
                else:
                    out.append(Finding("TSK-F007", "warning",
                                       f"review: '{'/'.join(hits)}' - if this sentence states "
                                       f"required behavior, use must/returns/raises: {_q(text, at)!r}",
                                       path, ln, m.start() + 1))
    return out


def phrasing_findings(spec: Spec, cfg: dict[str, Any], path: str) -> list[Finding]:
    """All six rules, as the current standard applies them."""
    out: list[Finding] = []
    for rule in (rule1, rule2, rule3, rule4, rule5, rule6):
        out += rule(spec, cfg, path)
    return out


def check(task: Any) -> GateResult:
    res = GateResult("F", "PASS")
    if task.spec is None:
        res.verdict = "UNKNOWN"
        res.findings.append(Finding("TSK-F008", "error", "Gate F needs spec.md; not found or "
                                    "unreadable", str(task.dir), 0, 0))
        return res
    spec, cfg = task.spec, task.config
    path = str(task.paths["spec"])
    std, why = detect(spec, cfg, task)
    res.data["standard"] = std.id
    found = phrasing_findings(spec, cfg, path)
    counts: dict[str, int] = {}
    for f in found:
        counts[f.code] = counts.get(f.code, 0) + (f.severity == "error")
    res.data["errors_by_rule"] = counts
    if not std.phrasing_rules:
        res.verdict = "N/A"
        res.data["not_applied"] = (f"written to standard {std.id} ({why}), which had no phrasing "
                                   "rules; the current standard's count is in the report summary")
        return res
    res.findings += found
    if any(f.severity == "error" for f in res.findings):
        res.verdict = "FAIL"
    return res
