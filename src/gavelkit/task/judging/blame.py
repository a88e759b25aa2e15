"""Who is to blame when the reference fails: environment, reference version, or the oracle.

Solvability's diagnosis (seed "Solvability", step 1: the environment first). A judge that
scores a correct library 0 % and then tells the user to fix the oracle is worse than none,
so the order is strict:

1. environment: the reference cannot import a third-party module it depends on (name the
   distribution to install), finds no installed metadata or entry point (install it as a
   project), the environment could not be built or the interpreter never started;
2. reference version: the reference lacks a name of its own package that the oracle uses
   (use the release or commit the task was made from);
3. infrastructure: killed, out of memory, gavel's own command line rejected;
4. the oracle: only failures of a reference that imports cleanly point there. While 1-3
   are present, the remaining failures are reported as not conclusive.

Each line carries its evidence: the message that decided it and one node id.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

# What a group of reference failures points at. `environment`, `infrastructure`, a wrong
# `reference-version`, `nothing-scored` and `unrecorded` (failures counted but not listed:
# re-run the reference to see them) route solvability to S4_SETUP (the environment first);
# the others to test-filter.
Cause = Literal["environment", "infrastructure", "reference-version", "oracle",
                "inconclusive", "nothing-scored", "unrecorded", "note"]
ENV_CAUSES = frozenset({"environment", "infrastructure", "reference-version", "nothing-scored",
                        "unrecorded"})
_ENV_RULES = {"reference-dependency", "missing-requirement", "reference-metadata",
              "environment-build"}


@dataclass(frozen=True, slots=True)
class Blame:
    """One line of the reference diagnosis: its typed cause and the text that says why."""

    cause: Cause
    text: str


def points_at_environment(diagnosis: tuple[Blame, ...]) -> bool:
    return any(b.cause in ENV_CAUSES for b in diagnosis)

_MNF = re.compile(r"No module named '([\w.]+)'")
_CANNOT = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")
_ATTR = re.compile(r"module '([\w.]+)' has no attribute '(\w+)'")
# import name -> distribution name where they differ (the common cases)
DIST_OF = {"yaml": "pyyaml", "dateutil": "python-dateutil", "bs4": "beautifulsoup4",
           "PIL": "pillow", "sklearn": "scikit-learn", "attr": "attrs", "jwt": "pyjwt",
           "dotenv": "python-dotenv", "google": "protobuf", "cv2": "opencv-python",
           "OpenSSL": "pyopenssl", "Crypto": "pycryptodome", "magic": "python-magic",
           "serial": "pyserial", "zmq": "pyzmq", "git": "gitpython", "hpack": "hpack",
           "hyperframe": "hyperframe", "markupsafe": "markupsafe", "six": "six"}
PASSING = ("passed", "xfail", "xpass", "skipped")
BLOCKING = ("environment", "infrastructure")


def distribution_of(module: str) -> str:
    top = module.split(".")[0]
    return DIST_OF.get(top, top.replace("_", "-"))


def _evidence(case: Mapping[str, Any]) -> str:
    """The line that decided the class, led by the exception message when that differs."""
    call = case.get("call") or {}
    head = _first_line((call.get("crash") or {}).get("message"))
    ev = str((case.get("classification") or {}).get("evidence") or "") or _last_line(
        call.get("longrepr"))
    if head and head not in ev:
        ev = f"{head} ({ev})" if ev else head
    return " ".join(ev.split())[:240]


def _first_line(text: Any) -> str:
    lines = str(text or "").strip().splitlines()
    return lines[0] if lines else ""


def _last_line(text: Any) -> str:
    lines = str(text or "").strip().splitlines()
    return lines[-1] if lines else ""


def _upstream(ref: Mapping[str, Any]) -> str:
    up = ((ref.get("gavel") or {}).get("upstream") or {})
    if up.get("repo_commit"):
        return (f"{up.get('repo') or 'upstream'} at commit {up['repo_commit']} (task.json "
                "repo_commit), or the release nearest it")
    return "the release or commit the task was made from (task.json repo / repo_commit)"


def _cause(klass: str, rule: str, clean: bool) -> Cause:
    """The cause `_advice` names, in its order."""
    if rule == "reference-version":
        return "reference-version"
    if rule in _ENV_RULES:
        return "environment"
    if rule == "gavel-command-line":
        return "infrastructure"
    if klass in ("environment", "infrastructure"):
        return klass  # type: ignore[return-value]
    return "oracle" if clean or klass == "verifier" else "inconclusive"


_RULE_ADVICE = {
    "reference-metadata": "environment: the reference has no installed metadata (entry points, "
                          "importlib.metadata); install it as a package, not a copied folder",
    "environment-build": "environment: the scoring environment could not be built; fix it and "
                         "re-run",
    "gavel-command-line": "infrastructure: gavel's own pytest command line was rejected (a "
                          "gavel defect)",
}
_CLASS_ADVICE = {"environment": "environment: fix the environment and re-run",
                 "infrastructure": "infrastructure: raise the resource limits / re-run",
                 "verifier": "oracle defect: return to test-filter"}


def _advice(klass: str, rule: str, evidence: str, ref: Mapping[str, Any], clean: bool) -> str:
    if rule in ("reference-dependency", "missing-requirement"):
        m = _MNF.search(evidence)
        return (f"environment: the distribution {distribution_of(m.group(1)) if m else '?'!r} "
                "is not installed; install the reference with its dependencies (a project "
                "folder or --reference-package is installed with them)")
    if rule == "reference-version":
        return f"reference version: it lacks names of its own package; use {_upstream(ref)}"
    if rule == "oracle-file-missing":
        return (f"{evidence or 'oracle file missing'}: add the file to the task or drop its "
                "node ids (return to test-filter)")
    fixed = _RULE_ADVICE.get(rule) or _CLASS_ADVICE.get(klass)
    if fixed:
        return fixed
    if not clean:
        return ("not conclusive: the reference does not import cleanly in this run; fix the "
                "failures above first and re-run")
    return ("the reference imports cleanly and still fails: the oracle expects other "
            "behaviour (oracle defect, or the wrong reference version: "
            f"{_upstream(ref)})")


def reference_diagnosis(ref: Mapping[str, Any]) -> list[str]:
    """The diagnosis as text lines (solvability's report and findings)."""
    return [b.text for b in diagnose(ref)]


def diagnose(ref: Mapping[str, Any]) -> tuple[Blame, ...]:
    """One line per (class, rule) of the reference's failures, blocking causes first."""
    groups = _groups(ref)
    clean = not any(k in BLOCKING or r == "reference-version" for k, r in groups)
    out = [_blame(klass, rule, cases, ref, clean)
           for (klass, rule), cases in sorted(groups.items(), key=_precedence)]
    out += _plain_folder_note(ref, groups) if out else []
    return tuple(out) or (_no_cases(ref),)


def _no_cases(ref: Mapping[str, Any]) -> Blame:
    """No failing case to read: a run that scored nothing, or one whose file counts its
    failures without listing them (a counts-only summary: 6/7 is not 0/0)."""
    summary = ref.get("summary")
    summary = summary if isinstance(summary, Mapping) else {}
    passed, total = summary.get("passed"), summary.get("total")
    if isinstance(total, int) and total > 0 and isinstance(passed, int):
        return Blame("unrecorded", f"the reference run records {passed}/{total} passed but "
                     "lists no failing test: the cause cannot be read from it; re-run the "
                     "reference with `gavel task solvability` to see each failure")
    return Blame("nothing-scored", "the reference run scored nothing (0/0): environment or "
                 "node-id drift")


_CLASS_ORDER = {"environment": 0, "infrastructure": 1, "verifier": 2, "candidate": 3}


def _precedence(kv: tuple[tuple[str, str], list[Any]]) -> tuple[int, int, int]:
    """A wrong reference version first, then environment, infrastructure, the oracle."""
    (klass, rule), cases = kv
    return (0 if rule == "reference-version" else 1, _CLASS_ORDER.get(klass, 4), -len(cases))


def _plain_folder_note(ref: Mapping[str, Any], groups: dict[tuple[str, str], Any]) -> list[Blame]:
    inst = ((ref.get("gavel") or {}).get("install") or {})
    if inst.get("kind") != "none" or not any(k == "candidate" for k, _ in groups):
        return []
    return [Blame("note", "note: the reference ran as a plain folder without installed "
                  "metadata; failures that look up entry points or importlib.metadata come "
                  "from that")]


def _groups(ref: Mapping[str, Any]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The reference's failures by (class, rule)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for c in ref.get("cases", []):
        if isinstance(c, dict) and c.get("counted_as", c.get("outcome")) not in PASSING:
            cls = c.get("classification") or {}
            groups.setdefault((cls.get("class", "unclassified"), cls.get("rule", "?")),
                              []).append(c)
    return groups


def _blame(klass: str, rule: str, cases: list[dict[str, Any]], ref: Mapping[str, Any],
           clean: bool) -> Blame:
    first = cases[0]
    ev = _evidence(first)
    signal = (first.get("classification") or {}).get("signal", "")
    # the scorer calls a non-environment failure "candidate"; in a reference run it is the
    # reference that fails, so it is named as such
    name = "reference behaviour" if klass == "candidate" else klass
    return Blame(_cause(klass, rule, clean),
                 f"{len(cases)} {name} failure(s) [{rule}: {signal}] -> "
                 f"{_advice(klass, rule, ev, ref, clean)}; evidence: {ev!r} in "
                 f"{first.get('nodeid')}")
