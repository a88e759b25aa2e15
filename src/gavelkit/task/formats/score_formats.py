"""Other scorers' result files, read into gavel's score shape (`summary`, `cases`, `by_layer`).

A maintainer's recorded runs come from other scorers: the Bmk-dev harness (gavel's shape,
but summaries that omit zero counts and crashes recorded in `setup`/`teardown`),
pytest-json-report (`tests[]`, zero counts omitted), JUnit XML, and files that carry only
counts (`summary`, `pytest_summary`, a `candidate`/`reference` block, or top-level
`passed`/`total`), sometimes with a list of the failures alone. Each is normalised once,
and says what it derived (`notes`) and what it could not (`gaps`): a file with gaps is not
a complete measurement, and nothing downstream has to guess why.

gavel's own files (with a `gavel` record) are not normalised: they are read strictly, as
written by the runner.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Format = Literal["gavel", "harness", "pytest-json-report", "junit-xml", "counts"]
# gavel's summary categories; every other outcome counts as failed
CATEGORIES = ("passed", "failed", "error", "skipped", "timeout", "collection_error",
              "not_collected")
# outcome spellings of other scorers -> gavel's outcome names
OUTCOME_ALIASES = {"xfailed": "xfail", "xpassed": "xpass", "errors": "error",
                   "erred": "error", "skip": "skipped", "pass": "passed", "fail": "failed",
                   "failure": "failed"}
PASSING = ("passed", "xfail", "xpass")
# summary keys of other scorers -> gavel's summary category
COUNT_KEYS = {"passed": "passed", "xfailed": "passed", "xpassed": "passed", "xfail": "passed",
              "xpass": "passed", "failed": "failed", "error": "error", "errors": "error",
              "skipped": "skipped", "timeout": "timeout", "collection_error": "collection_error",
              "not_collected": "not_collected"}


@dataclass(frozen=True, slots=True)
class Normalised:
    data: dict[str, Any]  # gavel's shape
    format: Format
    notes: tuple[str, ...] = ()  # what was derived, and from what
    gaps: tuple[str, ...] = ()  # what could not be derived: not a complete measurement


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def detect(data: Mapping[str, Any]) -> Format:
    if isinstance(data.get("gavel"), dict):
        return "gavel"
    if isinstance(data.get("tests"), list):
        return "pytest-json-report"
    if isinstance(data.get("cases"), list):
        return "harness"
    return "counts"


def outcome_of(raw: Any) -> str:
    """gavel's outcome name for another scorer's spelling (pytest-subtests reports a test's
    own result as "subtests passed" / "subtests failed")."""
    o = str(raw or "").strip().lower().removeprefix("subtests ")
    return OUTCOME_ALIASES.get(o, o)


def counted(outcome: str) -> str:
    """The summary category an outcome counts in (gavel's runner's rule)."""
    if outcome in PASSING:
        return "passed"
    return outcome if outcome in CATEGORIES else "failed"


def _failing_phase(c: Mapping[str, Any]) -> dict[str, Any] | None:
    """The phase that decided a failing case, as gavel's `call` record (`phase` named): a
    setup error's crash is in `setup`, not `call`."""
    for name in ("call", "setup", "teardown"):
        ph = c.get(name)
        if isinstance(ph, dict) and (ph.get("crash") or ph.get("longrepr")
                                     or outcome_of(ph.get("outcome")) not in ("", *PASSING,
                                                                              "skipped")):
            return {**ph, "phase": ph.get("phase", name)}
    return None


def case(c: Any) -> dict[str, Any] | None:
    """One test of another scorer in gavel's case shape (None: not a test record)."""
    if not isinstance(c, Mapping) or not isinstance(c.get("nodeid"), str) or not c["nodeid"]:
        return None
    o = outcome_of(c.get("outcome"))
    out: dict[str, Any] = {"nodeid": c["nodeid"], "outcome": o, "counted_as": counted(o),
                           "layer": str(c.get("layer") or "")}
    if isinstance(c.get("base_nodeid"), str):
        out["base_nodeid"] = c["base_nodeid"]
    phase = _failing_phase(c) if out["counted_as"] not in ("passed", "skipped") else None
    if phase is not None:
        out["call"] = phase
    elif isinstance(c.get("call"), dict):
        out["call"] = dict(c["call"])
    return out


def block_counts(block: Mapping[str, Any]) -> tuple[dict[str, int], int | None]:
    counts: dict[str, int] = {}
    for key, val in block.items():
        cat = COUNT_KEYS.get(str(key))
        if cat is not None and _int(val) is not None:
            counts[cat] = counts.get(cat, 0) + val
    return counts, _int(block.get("total"))


def _case_counts(cases: list[dict[str, Any]]) -> dict[str, int]:
    counts = dict.fromkeys(CATEGORIES, 0)
    for c in cases:
        counts[c["counted_as"]] += 1
    return counts


class _Reading:
    """Notes and gaps while one file is normalised (local to one call)."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.gaps: list[str] = []


def summary_from(counts: dict[str, int], total: int | None, cases: list[dict[str, Any]],
                 r: _Reading) -> dict[str, int] | None:
    """gavel's summary from stated counts, checked against the cases (or from the cases)."""
    if not counts and total is None:
        return _from_cases(cases, r)
    if total is None:
        total = sum(counts.values())
        r.notes.append("no total: the sum of its counts")
    if sum(counts.values()) != total:
        return _counts_off(counts, total, cases, r)
    missing = [k for k in ("passed", "failed") if k not in counts]
    if missing:
        r.notes.append(f"its summary omits zero counts ({', '.join(missing)}): read as 0")
    summary = {**dict.fromkeys(CATEGORIES, 0), **counts, "total": total}
    if cases and len(cases) == total:
        _cross_check(summary, _case_counts(cases), r)
    return summary


def _from_cases(cases: list[dict[str, Any]], r: _Reading) -> dict[str, int] | None:
    if not cases:
        r.gaps.append("no counts and no per-test outcomes")
        return None
    r.notes.append(f"no summary: counts derived from its {len(cases)} test records")
    return {**_case_counts(cases), "total": len(cases)}


def _counts_off(counts: dict[str, int], total: int, cases: list[dict[str, Any]],
                r: _Reading) -> dict[str, int]:
    """Counts that do not add up to the total: the test records decide when they are all
    there, else the file is not a complete measurement."""
    if not cases or len(cases) != total:
        r.gaps.append(f"its counts add up to {sum(counts.values())}, its total says {total}")
        return {**counts, "total": total}
    r.notes.append(f"its counts add up to {sum(counts.values())}, not its total {total}: "
                   f"counts derived from its {len(cases)} test records")
    return {**_case_counts(cases), "total": total}


def _cross_check(summary: dict[str, int], derived: dict[str, int], r: _Reading) -> None:
    off = [f"{k} {summary[k]} vs {derived[k]}" for k in CATEGORIES if derived[k] != summary[k]]
    if off:
        r.gaps.append("its summary disagrees with its own test records (" + ", ".join(off) + ")")


def _stated_rate(*blocks: Any) -> float | None:
    for b in blocks:
        if not isinstance(b, Mapping):
            continue
        for key in ("pass_rate_excluding_skips", "pass_rate"):
            v = b.get(key)
            if isinstance(v, int | float) and not isinstance(v, bool):
                return float(v)
    return None


def _by_layer(data: Mapping[str, Any], cases: list[dict[str, Any]]) -> dict[str, Any]:
    bl = data.get("by_layer")
    if isinstance(bl, dict):
        return bl
    out: dict[str, dict[str, int]] = {}
    for c in cases:
        if c["layer"]:
            d = out.setdefault(c["layer"], {"total": 0})
            d[c["counted_as"]] = d.get(c["counted_as"], 0) + 1
            d["total"] += 1
    return out


def _shape(summary: dict[str, int] | None, cases: list[dict[str, Any]], stated: float | None,
           by_layer: dict[str, Any], fmt: Format) -> dict[str, Any]:
    data: dict[str, Any] = {"summary": summary, "cases": cases, "by_layer": by_layer,
                            "source_format": fmt}
    if stated is not None:
        data["pass_rate_excluding_skips"] = stated
    return data


def _cases_gap(cases: list[dict[str, Any]], summary: dict[str, int] | None, r: _Reading,
               what: str) -> None:
    total = summary.get("total") if summary else None
    if not cases:
        r.gaps.append(f"no per-test outcomes ({what})")
    elif total is not None and len(cases) != total:
        r.gaps.append(f"per-test outcomes for {len(cases)} of its {total} tests")


def from_test_list(data: Mapping[str, Any], fmt: Format) -> Normalised:
    """The Bmk-dev harness (`cases`) and pytest-json-report (`tests`)."""
    r = _Reading()
    raw = data.get("cases" if fmt == "harness" else "tests") or []
    cases = [c for c in (case(x) for x in raw) if c is not None]
    if len(cases) != len(raw):
        r.notes.append(f"{len(raw) - len(cases)} test record(s) without a node id left out")
    s = data.get("summary")
    counts, total = block_counts(s) if isinstance(s, dict) else ({}, None)
    summary = summary_from(counts, total, cases, r)
    _cases_gap(cases, summary, r, "empty test list")
    return Normalised(_shape(summary, cases, _stated_rate(data, s), _by_layer(data, cases),
                             fmt), fmt, tuple(r.notes), tuple(r.gaps))


def from_counts(data: Mapping[str, Any], role: str) -> Normalised:
    """Counts only (a summary block, a role's block, or top-level counts), perhaps with a
    list of the failures alone."""
    r = _Reading()
    block = _counts_block(data, role, r)
    counts, total = block_counts(block)
    fails = _failures(data, block)
    summary = summary_from(counts, total, [], r)
    if fails:
        r.gaps.append(f"per-test outcomes are recorded for its {len(fails)} failure(s) only, "
                      "not for the tests that passed")
    elif summary is not None:
        r.gaps.append("no per-test outcomes (counts only)")
    return Normalised(_shape(summary, fails, _stated_rate(block, data), _by_layer(data, fails),
                             "counts"), "counts", tuple(r.notes), tuple(r.gaps))


def _counts_block(data: Mapping[str, Any], role: str, r: _Reading) -> Mapping[str, Any]:
    """Where the counts are: `summary`, `pytest_summary`, the role's own block, else the top."""
    for key in ("summary", "pytest_summary", role):
        b = data.get(key)
        if isinstance(b, dict) and any(block_counts(b)[i] not in ({}, None) for i in (0, 1)):
            if key != "summary":
                r.notes.append(f"counts from its '{key}' record")
            return b
    return data


def _failures(data: Mapping[str, Any], block: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A list of failures, when it belongs to the counts read (the file's one run, or its
    candidate block: a reference block's failures are not listed)."""
    if block is data.get("reference") and isinstance(data.get("candidate"), dict):
        return []
    failures = next((v for k in ("cases", "failures", "failed_cases")
                     if isinstance(v := data.get(k), list)), [])
    cases = (case({**x, "outcome": x.get("outcome") or "failed"}) for x in failures
             if isinstance(x, Mapping))
    return [c for c in cases if c is not None]


def normalise(data: Mapping[str, Any], role: str = "candidate") -> Normalised:
    fmt = detect(data)
    if fmt == "gavel":
        return Normalised(dict(data), fmt)
    if fmt == "counts":
        return from_counts(data, role)
    return from_test_list(data, fmt)


def _tag(el: Any) -> str:
    return str(el.tag).rsplit("}", 1)[-1]


def _junit_nodeid(tc: Any) -> tuple[str, bool]:
    """pytest's node id for a <testcase>; True when it had to be rebuilt from `classname`
    (JUnit records no file path unless the writer adds `file`)."""
    parts = [p for p in (tc.get("classname") or "").split(".") if p]
    classes = [p for p in parts if p[:1].isupper()]
    f = tc.get("file")
    if not f:
        mods = parts[:len(parts) - len(classes)]
        f = "/".join(mods) + ".py" if mods else ""
    return "::".join(x for x in (f, *classes, tc.get("name") or "") if x), not tc.get("file")


def _junit_outcome(tc: Any) -> tuple[str, Any]:
    """(outcome, the element that says why): failure/error first, then skipped (an xfail
    is written as a skip of type pytest.xfail)."""
    found: tuple[str, Any] = ("passed", None)
    for child in tc:
        tag = _tag(child)
        if tag in ("failure", "error"):
            return ("failed" if tag == "failure" else "error"), child
        if tag == "skipped":
            found = ("xfail" if "xfail" in (child.get("type") or "") else "skipped"), child
    return found


def _junit_case(tc: Any) -> tuple[dict[str, Any], bool]:
    nid, rebuilt = _junit_nodeid(tc)
    outcome, detail = _junit_outcome(tc)
    c: dict[str, Any] = {"nodeid": nid, "outcome": outcome, "counted_as": counted(outcome),
                         "layer": ""}
    if detail is not None and c["counted_as"] not in ("passed", "skipped"):
        c["call"] = {"outcome": outcome, "phase": "call",
                     "crash": {"message": detail.get("message") or ""},
                     "longrepr": (detail.text or "").strip()[:20000]}
    return c, rebuilt


def from_junit(text: str, path: str) -> Normalised:
    """JUnit XML (pytest --junitxml and others). A DOCTYPE is refused: JUnit needs none, and
    entity declarations are how XML expands a small file into a huge one."""
    import xml.etree.ElementTree as ET

    from gavelkit.core.errors import InputError

    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        raise InputError(path, "XML with a DOCTYPE or entity declarations: not read (a JUnit "
                         "report needs neither)", code="TSK-R006")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line, col = getattr(exc, "position", (0, 0))
        raise InputError(path, f"not well-formed XML: {exc}", line, col + 1,
                         code="TSK-R006") from None
    r = _Reading()
    pairs = [_junit_case(tc) for tc in root.iter() if _tag(tc) == "testcase"]
    cases = [c for c, _ in pairs]
    if any(rebuilt for _, rebuilt in pairs):
        r.notes.append("node ids rebuilt from JUnit classname and name (no file recorded)")
    summary = summary_from({}, None, cases, r)
    stated = _junit_stated(root, len(cases))
    if stated is not None:
        r.gaps.append(stated)
    _cases_gap(cases, summary, r, "no <testcase> element")
    return Normalised(_shape(summary, cases, None, _by_layer({}, cases), "junit-xml"),
                      "junit-xml", tuple(r.notes), tuple(r.gaps))


def _junit_stated(root: Any, n: int) -> str | None:
    """The suites' own `tests` attributes must count the test cases read."""
    stated = [s.get("tests") or "" for s in root.iter() if _tag(s) == "testsuite"]
    if not stated or not all(x.isdigit() for x in stated) or sum(map(int, stated)) == n:
        return None
    return (f"its <testsuite tests=...> attributes count {sum(map(int, stated))}, it holds "
            f"{n} <testcase> elements")
