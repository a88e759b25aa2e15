"""Gap metrics and failure clustering over a scored run (seed "Integration Gap Metrics").

    m = compute(task, score, reference_score=None, solution_dir=None)
    m.layers            # {layer: {passed, total, rate}}
    m.integration_gap   # {atomic_rate, integration_e2e_rate, rate_gap}
    m.negative_gap      # diagnostic when atomic < integration
    m.true_gap_events   # integration/e2e failures whose depended atomic tests all pass
    m.clusters          # failures grouped under a root cause (cascade analysis)
    m.saturation        # the 100 %-with-few-files heuristic
    m.labels            # evidence-derived task labels

Only failures classified `candidate` count as model evidence; environment,
verifier and infrastructure failures are reported beside the rates, never
folded into them silently.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gavelkit.task.formats.nodeids import func_key
from gavelkit.task.judgedata import for_task
from gavelkit.task.judging.failures import (  # noqa: F401 - re-exported for callers
    CASCADE_ROOTS,
    behaviour_signature,
    crash_message,
    failing_phase,
    first_call,
    root_signature,
    unpromised_wording,
)
from gavelkit.task.judging.saturation import saturation

GAP_LAYERS = ("integration", "system_e2e")
@dataclass(slots=True)
class Cluster:
    id: str
    signature: str
    klass: str
    tests: list[str] = field(default_factory=list)
    layers: dict[str, int] = field(default_factory=dict)
    sections: list[str] = field(default_factory=list)
    dimension: str = ""
    reference_passes: bool | None = None
    traced_to_spec: bool = True
    example: str = ""
    rule: str = ""
    entry: str = ""  # public entry point first reached ("tox list", "copier.run_copy")
    exception: str = ""
    trigger: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "root_cause": self.signature, "class": self.klass,
                "entry": self.entry, "exception": self.exception, "trigger": self.trigger,
                "size": len(self.tests), "tests": self.tests, "layers": self.layers,
                "spec_sections": self.sections, "dimension": self.dimension,
                "reference_passes": self.reference_passes,
                "traced_to_spec": self.traced_to_spec, "example": self.example,
                "rule": self.rule}


@dataclass(slots=True)
class Metrics:
    layers: dict[str, dict[str, Any]]
    integration_gap: dict[str, Any]
    negative_gap: dict[str, Any]
    true_gap_events: list[dict[str, Any]]
    clusters: list[Cluster]
    classes: dict[str, int]
    saturation: dict[str, Any]
    labels: list[dict[str, str]]
    pass_rate: float | None

    @property
    def root_failures(self) -> int:
        return sum(1 for c in self.clusters if c.klass == "candidate")

    @property
    def candidate_failures(self) -> int:
        return sum(len(c.tests) for c in self.clusters if c.klass == "candidate")

    def to_dict(self) -> dict[str, Any]:
        return {"layers": self.layers, "integration_gap": self.integration_gap,
                "negative_gap": self.negative_gap, "true_gap_events": self.true_gap_events,
                "clusters": [c.to_dict() for c in self.clusters], "classes": self.classes,
                "cascade": {"failures": self.candidate_failures,
                            "root_causes": self.root_failures,
                            "cascaded": self.candidate_failures - self.root_failures},
                "saturation": self.saturation, "labels": self.labels,
                "pass_rate": self.pass_rate}


def _rate(p: int, t: int) -> float | None:
    return round(p / t, 4) if t else None


def layer_rates(cases: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for c in cases:
        if c.get("counted_as") == "skipped":
            continue
        d = out.setdefault(c.get("layer") or "unknown", {"passed": 0, "total": 0})
        d["total"] += 1
        d["passed"] += c.get("counted_as") == "passed"
    for d in out.values():
        d["rate"] = _rate(d["passed"], d["total"])
    return out


def integration_gap(layers: dict[str, dict[str, Any]]) -> dict[str, Any]:
    a = layers.get("atomic", {"passed": 0, "total": 0})
    ip = sum(layers.get(x, {}).get("passed", 0) for x in GAP_LAYERS)
    it = sum(layers.get(x, {}).get("total", 0) for x in GAP_LAYERS)
    ar, ir = _rate(a["passed"], a["total"]), _rate(ip, it)
    gap = round(ar - ir, 4) if ar is not None and ir is not None else None
    return {"atomic_rate": ar, "integration_e2e_rate": ir, "rate_gap": gap}


def _sections(task: Any) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    if task.map:
        for r in task.map.rows:
            if r.covered:
                out.setdefault(r.nodeid, list(r.sections))
                out.setdefault(func_key(r.nodeid), list(r.sections))
    return out


def _depends(task: Any) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    if task.taxonomy:
        for e in task.taxonomy.entries:
            dep = e.extra.get("depends_on")
            if isinstance(dep, list):
                out[func_key(e.key)] = [str(x) for x in dep]
    return out


def dimension_for(signature: str, sections: list[str], layers: dict[str, int],
                  rules: list[dict[str, Any]]) -> str:
    """First rule matching the root cause itself; else the spec sections and layers."""
    for hay in (signature, " | ".join([*sections, *layers])):
        for r in rules:
            if r["regex"] != ".*" and re.search(r["regex"], hay, re.I):
                return str(r["dimension"])
    return "atomic-behavior"


def normalise(cases: list[Any]) -> list[dict[str, Any]]:
    """Cases of any scorer (ours or the public harness) with `counted_as` and `layer` set."""
    out = []
    for c in cases:
        if not isinstance(c, dict) or not isinstance(c.get("nodeid"), str):
            continue
        if not c.get("counted_as"):
            o = str(c.get("outcome", ""))
            c = {**c, "counted_as": "passed" if o in ("passed", "xfail", "xpass") else
                 "skipped" if o == "skipped" else o or "failed"}
        if not c.get("layer"):
            c = {**c, "layer": "unknown"}
        if not c.get("file"):
            c = {**c, "file": c["nodeid"].split("::", 1)[0]}
        out.append(c)
    return out


@dataclass(slots=True)
class _Context:
    """What clustering needs of the task, read once."""
    secs: dict[str, list[str]]
    spec_text: str
    package: str | None
    public: frozenset[str]
    helpers: frozenset[str]

    def sections(self, nodeid: str) -> list[str]:
        return self.secs.get(nodeid) or self.secs.get(func_key(nodeid)) or []


def _context(task: Any, package: str | None) -> _Context:
    from gavelkit.task.judging.rootcause import module_names

    sources = []
    for p in getattr(task, "test_files", {}).values():
        try:
            sources.append(p.read_text("utf-8", "replace"))
        except OSError:
            continue
    public, helpers = module_names(sources, package)
    spec_text = "\n".join(task.spec.lines) if getattr(task, "spec", None) is not None else ""
    return _Context(_sections(task), spec_text, package, public, helpers)


def _root(c: dict[str, Any], ctx: _Context, section: str, wording: bool) -> tuple[str, str, Any]:
    """(cluster key, description, Root or None) of one failing case."""
    from gavelkit.task.judging.rootcause import describe, root_of

    sig = root_signature(c, ctx.package)
    if wording:
        text = f"{section or '(unmapped)'}: message wording not promised by the spec"
        return text, text, None
    if CASCADE_ROOTS.match(sig) or sig == "timeout":
        return sig, sig, None
    root = root_of(c, failing_phase(c), crash_message(c), ctx.package, ctx.public, ctx.helpers)
    if not root.entry:
        text = behaviour_signature(c, ctx.package, section)
        return text, text, root
    return " | ".join(root.key), describe(root, section), root


def _clusters(cases: list[dict[str, Any]], ctx: _Context) -> tuple[list[Cluster], dict[str, int]]:
    classes: dict[str, int] = {}
    clusters: dict[tuple[str, str], Cluster] = {}
    for c in cases:
        if c.get("counted_as") in ("passed", "skipped"):
            continue
        klass, rule, wording = _case_class(c, ctx)
        classes[klass] = classes.get(klass, 0) + 1
        s = ctx.sections(c["nodeid"])
        key, desc, root = _root(c, ctx, s[0] if s else "", wording)
        cl = clusters.get((klass, key))
        if cl is None:
            cl = clusters[(klass, key)] = Cluster(
                f"C{len(clusters) + 1}", desc, klass, example=crash_message(c)[:300], rule=rule,
                entry=root.entry if root else "", exception=root.exception if root else "",
                trigger=root.trigger if root else "")
        _add_case(cl, c, s)
    return sorted(clusters.values(), key=lambda x: (-len(x.tests), x.signature)), classes


def _case_class(c: dict[str, Any], ctx: _Context) -> tuple[str, str, bool]:
    """(class, rule, asserts unpromised wording) of a failing case: a candidate failure that
    asserts wording the spec does not promise is the verifier's."""
    cls = c.get("classification") if isinstance(c.get("classification"), dict) else {}
    klass, rule = cls.get("class", "candidate"), str(cls.get("rule", ""))
    wording = bool(unpromised_wording(c, ctx.spec_text)) if klass == "candidate" else False
    if wording:
        return "verifier", "unpromised-wording", True
    return klass, rule, False


def _add_case(cl: Cluster, c: dict[str, Any], sections: list[str]) -> None:
    cl.tests.append(c["nodeid"])
    layer = c.get("layer", "unknown")
    cl.layers[layer] = cl.layers.get(layer, 0) + 1
    cl.traced_to_spec = cl.traced_to_spec and bool(sections)
    cl.sections += [x for x in sections if x not in cl.sections]


def compute(task: Any, score: dict[str, Any], reference: dict[str, Any] | None = None,
            solution_dir: str | Path | None = None,
            copy: Mapping[str, Any] | None = None) -> Metrics:
    cases = normalise(score.get("cases", []))
    package = (score.get("gavel") or {}).get("package") or _task_package(task)
    layers = layer_rates(cases)
    gap = integration_gap(layers)
    ctx = _context(task, package)
    dims = for_task("dimensions", task)["rule"]
    ref_pass = {c["nodeid"]: c["counted_as"] == "passed"
                for c in normalise((reference or {}).get("cases", []))}
    ordered, classes = _clusters(cases, ctx)
    _number(ordered, dims, ref_pass)
    passed = {c["nodeid"] for c in cases if c.get("counted_as") == "passed"}
    events = true_gap_events(task, cases, passed, ctx.secs, ordered, ctx.public)
    neg = negative_gap(task, cases, gap)
    rate = score.get("pass_rate_excluding_skips")
    sat = saturation(task, rate, solution_dir, copy)
    m = Metrics(layers, gap, neg, events, ordered, classes, sat, [], rate)
    m.labels = labels(task, m)
    return m


def _number(ordered: list[Cluster], dims: list[dict[str, Any]], ref_pass: dict[str, bool]) -> None:
    """Cluster ids in order, each cluster's dimension and whether the reference passes it."""
    for i, cl in enumerate(ordered, 1):
        cl.id = f"C{i}"
        # the behaviour's own section (the key), not every section its tests also touch
        cl.dimension = dimension_for(" ".join((cl.signature, cl.exception)), cl.sections[:1],
                                     cl.layers, dims)
        if ref_pass:
            vals = [ref_pass.get(t) for t in cl.tests if t in ref_pass]
            cl.reference_passes = all(vals) if vals else None


def _task_package(task: Any) -> str | None:
    """The target package when the score file does not name it (a recorded run): the
    task's record, else the task id's first word (`tox-envrunner-fullrepro-001` -> tox).
    Used only to name entry points in clusters, never for provenance."""
    from gavelkit.task.scoring.target import target_package

    name = target_package(task)
    if name:
        return name
    word = re.split(r"[-_.]", str(getattr(task, "id", "") or ""), maxsplit=1)[0]
    return word if re.fullmatch(r"[a-z]\w*", word) else None


def _depended(c: dict[str, Any], deps: dict[str, list[str]], by_func: dict[str, list[str]],
              calls: dict[str, frozenset[str]], atomic: list[str],
              atomic_by_section: dict[str, list[str]], secs: list[str]) -> tuple[list[str], str]:
    """The atomic tests an integration test depends on, and on what basis: the taxonomy's
    depends_on, else the public names both call, else spec-section overlap."""
    dep = deps.get(func_key(c["nodeid"]))
    if dep:
        return [n for d in dep for n in by_func.get(func_key(d), [d])], "depends_on"
    mine = calls.get(c["nodeid"], frozenset())
    shared = _sharing(atomic, calls, mine)
    if shared:
        return shared, "calls: " + ", ".join(sorted(mine)[:6])
    out: list[str] = []
    for s in secs:
        out += [n for n in atomic_by_section.get(s, []) if n not in out]
    return out, "spec_section overlap"


def _sharing(atomic: list[str], calls: dict[str, frozenset[str]], mine: frozenset[str]
             ) -> list[str]:
    """The atomic tests calling a public name the integration test calls too."""
    return [a for a in atomic if calls.get(a, frozenset()) & mine] if mine else []


def _gap_candidate(c: dict[str, Any], sig_of: dict[str, str]) -> bool:
    """A failed integration/e2e candidate case that no missing primitive explains."""
    if c.get("layer") not in GAP_LAYERS or c.get("counted_as") in ("passed", "skipped"):
        return False
    if (c.get("classification") or {}).get("class", "candidate") != "candidate":
        return False
    return not CASCADE_ROOTS.match(sig_of.get(c["nodeid"], ""))  # cascade, not composition


def _atomic_index(cases: list[dict[str, Any]], secs: dict[str, list[str]]
                  ) -> tuple[list[str], dict[str, list[str]], dict[str, list[str]]]:
    """(atomic ids, section -> atomic ids, function -> case ids)."""
    atomic = [c["nodeid"] for c in cases if c.get("layer") == "atomic"]
    by_section: dict[str, list[str]] = {}
    for n in atomic:
        for s in secs.get(n) or secs.get(func_key(n)) or []:
            by_section.setdefault(s, []).append(n)
    by_func: dict[str, list[str]] = {}
    for c in cases:
        by_func.setdefault(func_key(c["nodeid"]), []).append(c["nodeid"])
    return atomic, by_section, by_func


def true_gap_events(task: Any, cases: list[dict[str, Any]], passed: set[str],
                    secs: dict[str, list[str]], clusters: list[Cluster],
                    public: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """Integration/e2e candidate failures whose depended atomic tests all pass."""
    from gavelkit.task.judging.rootcause import test_calls

    deps = _depends(task)
    atomic, by_section, by_func = _atomic_index(cases, secs)
    calls = test_calls(task, [c["nodeid"] for c in cases], public)
    dim_of, sig_of = _by_test(clusters)
    out = []
    for c in (c for c in cases if _gap_candidate(c, sig_of)):
        depended, basis = _depended(c, deps, by_func, calls, atomic, by_section,
                                    _case_sections(secs, c["nodeid"]))
        if depended and all(n in passed for n in depended):
            out.append({"failed_test": c["nodeid"], "layer": c["layer"],
                        "depended_atomic_tests": depended, "all_depended_pass": True,
                        "root_cause_dimension": dim_of.get(c["nodeid"], "cross-view-consistency"),
                        "basis": basis})
    return out


def _by_test(clusters: list[Cluster]) -> tuple[dict[str, str], dict[str, str]]:
    """Test -> its cluster's dimension, test -> its cluster's signature."""
    return ({t: cl.dimension for cl in clusters for t in cl.tests},
            {t: cl.signature for cl in clusters for t in cl.tests})


def _case_sections(secs: dict[str, list[str]], nodeid: str) -> list[str]:
    return secs.get(nodeid) or secs.get(func_key(nodeid)) or []


def negative_gap(task: Any, cases: list[dict[str, Any]], gap: dict[str, Any]) -> dict[str, Any]:
    ar, ir = gap["atomic_rate"], gap["integration_e2e_rate"]
    if ar is None or ir is None or ar >= ir:
        return {"applies": False}
    importish, assertion = _atomic_failures(cases)
    weak = weak_passing_integration(task, cases)
    return {"applies": True, "atomic_rate": ar, "integration_e2e_rate": ir,
            "atomic_import_failures": importish, "atomic_assertion_failures": assertion,
            "weak_integration_passes": weak, "diagnosis": _negative_causes(importish, assertion,
                                                                           weak),
            "route": "S3_ORACLE_MERGE" if importish or weak else None}


def _atomic_failures(cases: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """Failed atomic cases: (import or collection errors, the others)."""
    failed_atomic = [c for c in cases if c.get("layer") == "atomic"
                     and c.get("counted_as") not in ("passed", "skipped")]
    importish = [c["nodeid"] for c in failed_atomic if _import_failure(c)]
    return importish, [c["nodeid"] for c in failed_atomic if c["nodeid"] not in importish]


def _import_failure(c: dict[str, Any]) -> bool:
    if c["outcome"] in ("collection_error", "not_collected"):
        return True
    return re.search(r"ImportError|ModuleNotFoundError|cannot import name",
                     str(failing_phase(c).get("longrepr", ""))) is not None


def _negative_causes(importish: list[str], assertion: list[str], weak: list[str]) -> list[str]:
    causes = []
    if importish:
        causes.append(f"{len(importish)} atomic failure(s) are import/collection errors: check "
                      "they import only spec paths (Q1); if not, return to Stage 3 for cleanup")
    if assertion:
        causes.append(f"{len(assertion)} atomic failure(s) are behaviour errors (normal model "
                      "weakness)")
    if weak:
        causes.append(f"{len(weak)} passing integration test(s) assert nothing beyond 'no "
                      "exception' (too weak: test quality issue, return to Stage 3)")
    return causes


def weak_passing_integration(task: Any, cases: list[dict[str, Any]]) -> list[str]:
    mods: dict[str, Any] = {}
    out = []
    for c in cases:
        if c.get("layer") not in GAP_LAYERS or c.get("counted_as") != "passed":
            continue
        mod = _module(task, mods, c.get("file") or "")
        if mod is not None and _asserts_nothing(mod, func_key(c["nodeid"]).split(".", 1)[-1]):
            out.append(c["nodeid"])
    return out


def _module(task: Any, mods: dict[str, Any], f: str) -> Any:
    """The parsed test module of file f (cached in mods), None when it is not there."""
    from gavelkit.task.formats.testsrc import read_module

    if f not in mods:
        p = task.dir / f
        mods[f] = read_module(p)[0] if p.is_file() else None
    return mods[f]


def _asserts_nothing(mod: Any, name: str) -> bool:
    """The test has no check of its own and calls no helper that has one."""
    tf = mod.find(name)
    if tf is None or tf.checks:
        return False
    return not any(h is not None and h.checks for h in (mod.helpers.get(x) for x in tf.calls))


def labels(task: Any, m: Metrics) -> list[dict[str, str]]:
    th = for_task("labels", task)["thresholds"]
    out = _rate_labels(m, th)
    cand = [c for c in m.clusters if c.klass == "candidate"]
    nfail = sum(len(c.tests) for c in cand)
    if nfail >= th["min_cascade_failures"]:
        top = sum(len(c.tests) for c in cand[:3])
        if top / nfail >= th["cascade_share"] and len(cand) < nfail:
            out.append({"label": "cascade-dominated", "evidence": f"{top} of {nfail} failures "
                        f"root in the top {min(3, len(cand))} cause(s)"})
    if m.true_gap_events:
        out.append({"label": "composition-signal", "evidence": f"{len(m.true_gap_events)} "
                    "true integration gap event(s)"})
    return out + _noise_labels(m.classes)


def _rate_labels(m: Metrics, th: dict[str, Any]) -> list[dict[str, str]]:
    r = m.pass_rate
    if r is None:
        return []
    if r >= th["trivially_solved_rate"]:
        out = [{"label": "saturated-candidate-score", "evidence": "candidate pass rate is 100 %"}]
        if m.saturation.get("applies"):
            out.append({"label": "trivially-solved", "evidence": m.saturation["reason"]})
        return out
    if r <= th["too_hard_rate"]:
        return [{"label": "too-hard", "evidence": f"candidate pass rate {r:.1%}"}]
    if th["discriminating_low"] < r < th["discriminating_high"]:
        return [{"label": "discriminating", "evidence": f"candidate pass rate {r:.1%} "
                 "is between floor and ceiling"}]
    return []


def _noise_labels(classes: dict[str, int]) -> list[dict[str, str]]:
    out = []
    if classes.get("environment") or classes.get("infrastructure"):
        out.append({"label": "environment-noise", "evidence": f"{classes.get('environment', 0)}"
                    f" environment and {classes.get('infrastructure', 0)} infrastructure "
                    "failure(s) kept out of the model evidence"})
    if classes.get("verifier"):
        out.append({"label": "verifier-suspect", "evidence": f"{classes['verifier']} failure(s)"
                    " classified as verifier problems"})
    return out
