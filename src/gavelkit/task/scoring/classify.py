"""Classify each failing node: environment / verifier / infrastructure / candidate.

The decision table (task-judge.md §4.2) is data (`data/judge/failure_classes.toml`);
this module extracts the signals it needs from a case (outcome, phase, crash
message, longrepr, stderr tail, which module a failing import names) and
returns the first matching rule's class with the signal that decided it, so
the report can say *why* a failure was not counted against the candidate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gavelkit.task.judgedata import for_task
from gavelkit.task.scoring.envbuild import norm, read_requirements

_MNF = re.compile(r"No module named '([\w.]+)'")
_CANNOT = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")
_ATTR = re.compile(r"module '([\w.]+)' has no attribute '(\w+)'")

# import name -> distribution name, for the common cases where they differ
_DIST_ALIASES = {"yaml": "pyyaml", "dateutil": "python-dateutil", "bs4": "beautifulsoup4",
                 "PIL": "pillow", "sklearn": "scikit-learn", "attr": "attrs",
                 "google.protobuf": "protobuf", "jwt": "pyjwt", "dotenv": "python-dotenv"}


@dataclass(slots=True)
class Context:
    package: str | None
    requirements: set[str] = field(default_factory=set)
    public_names: set[str] = field(default_factory=set)
    rules: list[dict[str, Any]] = field(default_factory=list)
    role: str = "candidate"  # rules with `role = "reference"` apply to reference runs only
    env_modules: set[str] | None = None  # top-level names the scoring environment has
    defined: set[str] | None = None  # `stem.Class.func` keys the oracle files define


def context_for(task: Any, opts: Any = None) -> Context:
    from gavelkit.task.scoring.target import target_package

    pkg = target_package(task, getattr(opts, "package", None))
    req = task.dir / "oracle" / "requirements.txt"
    reqs = {norm(r) for r in read_requirements(req if req.is_file() else None)}
    names: set[str] = set()
    if task.spec is not None:
        body = "\n".join(task.spec.lines)
        names = set(re.findall(r"`([A-Za-z_][\w.]*)`", body))
        names |= {n.rsplit(".", 1)[-1] for n in names}
    rules = list(for_task("failure_classes", task)["rule"])
    return Context(pkg, reqs, names, rules, str(getattr(opts, "role", None) or "candidate"))


def _module_kind(text: str, ctx: Context) -> str | None:
    m = _MNF.search(text)
    if m:
        mod = m.group(1)
        top = mod.split(".")[0]
        if ctx.package and top == ctx.package.split(".")[0]:
            # `No module named 'pkg.sub'` with pkg importable: a missing submodule
            if mod == ctx.package:
                return "target"
            private = any(part.startswith("_") for part in mod.split(".")[1:])
            return "target-attr-private" if private else "target-attr-public"
        dist = norm(_DIST_ALIASES.get(top, top))
        if dist in ctx.requirements or norm(top) in ctx.requirements:
            return "requirement"
        return "other"
    for rx in (_CANNOT, _ATTR):
        m = rx.search(text)
        if m:
            name, mod = (m.group(1), m.group(2)) if rx is _CANNOT else (m.group(2), m.group(1))
            if ctx.package and mod.split(".")[0] == ctx.package.split(".")[0]:
                if name.startswith("_") or (ctx.public_names and name not in ctx.public_names):
                    return "target-attr-private"
                return "target-attr-public"
    return None


def _line_of(text: str, m: re.Match[str]) -> str:
    """The whole line a match sits on: the evidence a reader can act on."""
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.end())
    return text[start:end if end >= 0 else len(text)].strip()


def classify_text(outcome: str, phase: str, text: str, ctx: Context,
                  imports: bool = True) -> dict[str, str]:
    """First rule of the table that matches; `rule` and `signal` say which and why.

    `imports=False` when the failure is an assertion: a module name quoted in an assertion
    message (a test checking an error text) is not a failed import."""
    mod_kind = _module_kind(text, ctx) if imports else None
    for rule in ctx.rules:
        if "outcome" in rule and outcome not in rule["outcome"]:
            continue
        if "phase" in rule and phase not in rule["phase"]:
            continue
        if "role" in rule and rule["role"] != ctx.role:
            continue
        if "module" in rule and mod_kind not in (
                rule["module"] if isinstance(rule["module"], list) else [rule["module"]]):
            continue
        if "regex" in rule and not re.search(rule["regex"], text, re.I):
            continue
        evidence = ""
        if "regex" in rule:
            m = re.search(rule["regex"], text, re.I)
            evidence = _line_of(text, m) if m else ""
        elif "module" in rule:
            m = _MNF.search(text) or _CANNOT.search(text) or _ATTR.search(text)
            evidence = m.group(0) if m else ""
        return {"class": rule["class"], "rule": rule["id"], "signal": rule["signal"],
                "evidence": evidence[:200]}
    return {"class": "candidate", "rule": "default", "signal": "no rule matched", "evidence": ""}


def classify_case(case: dict[str, Any], detail: dict[str, Any], ctx: Context) -> dict[str, str]:
    crash = (detail.get("crash") or {}).get("message", "") if detail.get("crash") else ""
    text = "\n".join(x for x in (crash, str(detail.get("longrepr", "")),
                                 str(detail.get("stderr_tail", "")) if case["outcome"] in (
                                     "not_collected", "collection_error", "error") else "",
                                 f"(exit {detail.get('returncode')})"
                                 if detail.get("returncode", 0) < 0 or
                                 detail.get("returncode") == 137 else "") if x)
    outcome = case["outcome"]
    if case.get("counted_as") == "failed" and outcome in ("skipped", "xfail", "xpass"):
        return {"class": "candidate", "rule": "candidate-skip",
                "signal": "skip or expected failure neither the reference nor the oracle "
                "declares (caused by the candidate)", "evidence": crash[:200]}
    asserted = bool(re.match(r"\s*(AssertionError\b|assert\b)", crash))
    got = classify_text(outcome, str(detail.get("phase") or ""), text, ctx,
                        imports=not asserted)
    if ctx.role == "candidate" and got["class"] != "candidate":
        # text said someone else: for a candidate only gavel's own evidence may say so
        return _candidate_evidence(case, detail, ctx) or got
    return got


def _candidate_evidence(case: dict[str, Any], detail: dict[str, Any],
                        ctx: Context) -> dict[str, str] | None:
    """A candidate's failure decided from gavel's own evidence, before any text rule: the
    exception passed through the candidate's code (the plugin's traceback record), or the
    oracle file defines a test the candidate's process did not collect. An import error
    names the environment only when the module it names is a requirement the scoring
    environment really lacks."""
    origin = detail.get("origin") or {}
    frames = origin.get("frames") or []
    if "candidate" in frames:
        name = str(origin.get("name") or "")
        top = name.split(".")[0]
        if top and ctx.env_modules is not None and top not in ctx.env_modules \
                and norm(_DIST_ALIASES.get(top, top)) in ctx.requirements:
            return {"class": "environment", "rule": "missing-requirement",
                    "signal": "imports a module listed in oracle/requirements.txt that the "
                    "scoring environment does not have (checked in the environment)",
                    "evidence": name}
        return {"class": "candidate", "rule": "candidate-code",
                "signal": "the exception came from or through the candidate's code "
                "(gavel's traceback evidence, not the message)",
                "evidence": str(origin.get("type") or "")[:200]}
    if case["outcome"] == "not_collected" and detail.get("phase") == "collect" \
            and ctx.defined is not None and not case["nodeid"].endswith("]"):
        from gavelkit.task.formats.nodeids import func_key

        if func_key(case["nodeid"]) in ctx.defined:
            return {"class": "candidate", "rule": "collectable-not-collected",
                    "signal": "the oracle file defines this test, but the candidate's test "
                    "process did not collect it", "evidence": case["nodeid"]}
    return None
