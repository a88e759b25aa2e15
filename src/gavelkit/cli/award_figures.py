"""`gavel award figqa run|self-test`: gate every figure a plotting script makes.

The script runs in a child interpreter (figqa_runner.py, headless Agg) so that
its crash, sys.exit or endless loop is reported as a finding about the script,
never as our traceback.  Collisions come back as JSON and become Findings here.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from gavelkit.core.errors import UsageError
from gavelkit.core.findings import Finding

#: collision kind (figqa.KINDS) -> rule code in data/rules/figqa.toml
KIND_CODES = {
    "text-over-text": "FIG-T001",
    "text-over-axes": "FIG-T002",
    "text-over-line": "FIG-D001",
    "text-over-marker": "FIG-D002",
    "text-over-patch": "FIG-D003",
    "text-over-image": "FIG-D004",
    "arrow-over-data": "FIG-A001",
    "arrow-over-text": "FIG-A002",
    "clipped-by-figure": "FIG-C001",
    "clipped-by-axes": "FIG-C002",
    "missing-glyph": "FIG-G001",
}

RUNNER = Path(__file__).resolve().parents[1] / "award" / "figures" / "runner.py"

_RUN_HELP = """\
usage: gavel award figqa run SCRIPT.py [ARGS...] [--annotate DIR] [--snapshot DIR] [--timeout S]
                              [--tol PT] [--min-area PT2] [--format text|json|sarif] [-q]

Run a plotting script headless (Agg), gate every figure it makes (at savefig,
plt.show and exit) and exit 1 on any collision or clipped text.  Options of
ours may appear anywhere; put `--` before script arguments that look like them.

  --snapshot DIR  write every gated figure as DIR/<script>-fig<N>.png, as drawn
                  (to look at, or label, without the gate's marks)
  --annotate DIR  write each flagged figure as DIR/<script>-fig<N>.png with the
                  colliding regions outlined and numbered
  --timeout S     stop the script after S seconds (default 300; exit 2)
  --tol PT        overlap below which shapes only touch, in points (default 1)
  --min-area PT2  smallest reported overlap, in points^2 (default 1.5)

The script's own stdout is shown after the findings (text format) or given as
"stdout" (json).  The figures are always gated with the figqa the skill ships;
what the script imported as figqa, and a run's code/figqa.py, must be a released
version (FIG-S006 names the difference), and a script that replaces the gate or
the matplotlib methods it measures with is a defeated gate (FIG-S007).

exit codes: 0 clean, 1 collisions (also when the script's own assert_no_overlap
stopped it), 2 the script or a figure could not be checked (missing, crashed,
timed out, usetex without LaTeX) and no collision was found, or usage error
"""


_TAKES = {"--annotate": "annotate", "--snapshot": "snapshot", "--timeout": "timeout",
          "--tol": "tol", "--min-area": "min_area", "--format": "format"}


def _option(argv: list[str], i: int, opts: dict[str, Any]) -> int:
    """Read the option at argv[i] into opts; the index after it, or -1 if it is none."""
    a = argv[i]
    if a in ("-q", "--quiet"):
        opts["quiet"] = True
        return i + 1
    key, val = a.split("=", 1) if a.startswith("--") and "=" in a else (a, None)
    if key not in _TAKES:
        return -1
    if val is None:
        if i + 1 >= len(argv):
            raise UsageError(f"{key} needs a value")
        val = argv[i + 1]
        i += 1
    opts[_TAKES[key]] = val
    return i + 1


def _number(opts: dict[str, Any], k: str) -> None:
    """A finite, non-negative number (the timeout also non-zero)."""
    flag = f"--{k.replace('_', '-')}"
    try:
        v = float(opts[k])
    except ValueError:
        raise UsageError(f"{flag} needs a number, not {opts[k]!r}") from None
    if v != v or v in (float("inf"), float("-inf")):  # NaN, inf
        raise UsageError(f"{flag} must be a finite number")
    if v < 0 or (k == "timeout" and v == 0):
        raise UsageError(f"{flag} must be positive")
    opts[k] = v


def _split(argv: list[str]) -> tuple[dict[str, Any], list[str]]:
    opts: dict[str, Any] = {"annotate": None, "snapshot": None, "timeout": 300.0, "tol": None,
                            "min_area": None, "format": "text", "quiet": False}
    rest: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            rest.extend(argv[i + 1:])
            break
        if a in ("-h", "--help") and not rest:
            print(_RUN_HELP)
            raise SystemExit(0)
        nxt = _option(argv, i, opts)
        if nxt < 0:
            rest.append(a)
            nxt = i + 1
        i = nxt
    if opts["format"] not in ("text", "json", "sarif"):
        raise UsageError(f"--format must be text, json or sarif, not {opts['format']!r}")
    for k in ("timeout", "tol", "min_area"):
        if opts[k] is not None:
            _number(opts, k)
    if not rest:
        raise UsageError("no script given (gavel award figqa run SCRIPT.py [ARGS...])")
    return opts, rest


def _short(s: str, n: int = 40) -> str:
    s = " ".join(str(s).split())
    return s if len(s) <= n else s[: n - 3] + "..."


def _side(d: dict[str, Any]) -> str:
    where = "figure" if d.get("axes", -1) < 0 else f"axes#{d['axes']}"
    role, typ = d.get("role", ""), d.get("type", "")
    name = role if typ.lower().startswith(role) else f"{role} {typ}"
    lab = f" {_short(d['label'])!r}" if d.get("label") else ""
    return f"{name}{lab} ({where})"


def collisions_to_findings(result: dict[str, Any], script: str) -> list[Finding]:
    """Turn the runner's JSON into Findings (one per collision, plus script problems)."""
    out: list[Finding] = []
    for fig in result.get("figures", []):
        out += _figure_findings(fig, script)
    out += _script_findings(result, script)
    if any(f.code in _COLLISION_CODES for f in out):
        for f in out:  # a collision found is a failed gate, whatever else could not be checked
            f.unusable = False
    return out


def _figure_findings(fig: dict[str, Any], script: str) -> list[Finding]:
    """One figure of the result: could it be gated, and each collision on it."""
    out: list[Finding] = []
    n, line = fig["index"], int(fig.get("line") or 0)
    if fig.get("error"):
        err = str(fig["error"])
        why = ("text.usetex needs LaTeX (latex, dvipng), which is not installed: "
               if "latex" in err.lower() else "")
        out.append(Finding("FIG-S004", "error", f"figure {n}: could not be gated: {why}"
                           f"{_short(err, 200)}", path=script, line=line, unusable=True))
    for c in fig.get("collisions", []):
        data = {"figure": n, **c}
        if fig.get("annotated"):
            data["annotated"] = fig["annotated"]
        out.append(Finding(KIND_CODES.get(c["kind"], "FIG-S004"), "error",
                           _collision_message(n, c), path=script, line=line, data=data))
    return out


def _collision_message(n: int, c: dict[str, Any]) -> str:
    if c["kind"] == "missing-glyph":
        return f"figure {n}: {_side(c['a'])}: {c.get('detail', '')}"
    x0, y0, x1, y1 = c["where"]
    msg = (f"figure {n}: {_side(c['a'])} x {_side(c['b'])}: "
           f"{c['area_px']:.1f} px^2 at x={x0:.0f}..{x1:.0f}, y={y0:.0f}..{y1:.0f}")
    return msg + (f" ({c['detail']})" if c.get("detail") else "")


def _failed(result: dict[str, Any], exc: dict[str, Any] | None, script: str) -> Finding:
    """FIG-S001: the script raised or exited non-zero (its traceback's last frame named)."""
    if exc:
        msg = f"script failed: {exc['type']}: {_short(exc['message'], 200)}"
        line = int(exc.get("line") or 0)
    else:
        msg = f"script exited with status {result.get('exit')}"
        line = 0
    tb = (exc or {}).get("traceback", "")
    frames = [x.strip() for x in tb.splitlines() if x.lstrip().startswith("File ")]
    hint = f"the script's traceback ends at {frames[-1]}" if frames else None
    return Finding("FIG-S001", "error", msg, path=script, line=line,
                   unusable=True, hint=hint, data={"traceback": tb} if tb else {})


def _script_findings(result: dict[str, Any], script: str) -> list[Finding]:
    """How the script itself ended: its own gate stopped it, it failed, or made nothing."""
    exc = result.get("exception")
    if exc and exc.get("gate"):
        return [Finding(
            "FIG-S005", "error", f"the script's own figure gate stopped it: {exc['type']}: "
            f"{_short(exc['message'], 200)}", path=script, line=int(exc.get("line") or 0),
            hint="figures after this point were not made; fix the collision and re-run",
            data={"traceback": exc.get("traceback", "")})]
    if exc or result.get("exit", 0) != 0:
        return [_failed(result, exc, script)]
    if not result.get("figures"):
        return [Finding("FIG-S002", "warning", "the script made no matplotlib figure; "
                        "nothing was gated", path=script)]
    return []


_COLLISION_CODES = frozenset(KIND_CODES.values())


def _wait(proc: subprocess.Popen[str], timeout: float, label: str,
          quiet: bool) -> tuple[str, str]:
    """communicate() in short slices so a terminal can show the elapsed time."""
    import time

    from gavelkit.core.progress import Progress

    start = time.monotonic()
    with Progress(label, quiet=quiet) as bar:
        while True:
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                raise subprocess.TimeoutExpired(proc.args, timeout)
            try:
                return proc.communicate(timeout=min(0.5, left))
            except subprocess.TimeoutExpired:
                bar.update(int(time.monotonic() - start), item="s running")


def run_script(script: str, args: list[str], *, annotate: str | None = None,
               snapshot: str | None = None,
               timeout: float = 300.0, tol: float | None = None,
               min_area: float | None = None,
               quiet: bool = True) -> tuple[list[Finding], dict[str, Any]]:
    """Run `script` in a child interpreter and return (findings, raw runner result).

    With quiet=False a terminal shows how long the script has been running.
    """

    from gavelkit.core.safeio import check_input

    p = Path(script)
    check_input(p)  # a regular file: a FIFO or /dev/zero would hang or fill memory
    with tempfile.TemporaryDirectory(prefix="gavel-figqa-") as tmp:
        out = os.path.join(tmp, "result.json")
        cmd = [sys.executable, str(RUNNER), "--out", out, "--parent", str(os.getpid())]
        if annotate:
            cmd += ["--annotate", os.path.abspath(annotate)]
        if snapshot:
            cmd += ["--snapshot", os.path.abspath(snapshot)]
        if tol is not None:
            cmd += ["--tol", repr(tol)]
        if min_area is not None:
            cmd += ["--min-area", repr(min_area)]
        cmd += ["--", str(p), *args]
        env = dict(os.environ, MPLBACKEND="Agg")
        env.pop("PYTHONSTARTUP", None)
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env,
                                start_new_session=True, errors="replace")
        try:
            stdout, stderr = _wait(proc, timeout, f"figqa {p.name}", quiet)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                proc.kill()
            proc.communicate()
            f = Finding("FIG-S003", "error", f"the script did not finish within {timeout:g} s "
                        "and was stopped", path=script, unusable=True)
            return [f], {"figures": [], "timeout": True}
        if not os.path.exists(out):
            # the interpreter itself died (segfault, os._exit, killed): report its own words
            last = (stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
            f = Finding("FIG-S001", "error", f"script failed: {_short(last, 200)}",
                        path=script, unusable=True, data={"stderr": stderr[-4000:],
                                                          "exit": proc.returncode})
            return [f], {"figures": [], "stdout": stdout, "stderr": stderr}
        with open(out, encoding="utf-8") as fh:
            result = json.load(fh)
    result["stdout"], result["stderr"] = stdout, stderr
    return result_findings(result, script), result


def result_findings(result: dict[str, Any], script: str) -> list[Finding]:
    """The findings of a finished runner result: collisions, then the gate's own checks."""
    found = collisions_to_findings(result, script) + gate_findings(result, script)
    if any(f.code in ("FIG-S006", "FIG-S007") for f in found):
        for f in found:  # a defeated gate is a failed gate, whatever else could not be checked
            f.unusable = False
    return found


def _run_copies(script: str) -> list[str]:
    """figqa.py next to the script, and the run's code/figqa.py when the script is in a run."""
    from gavelkit.award.runs.runpaths import run_id_from_location

    out = [os.path.join(os.path.dirname(os.path.abspath(script)), "figqa.py")]
    loc = run_id_from_location(script)
    if loc is not None:
        out.append(str(loc[1] / "code" / "figqa.py"))
    return [os.path.realpath(p) for p in dict.fromkeys(out) if os.path.lexists(p)]


def gate_findings(result: dict[str, Any], script: str) -> list[Finding]:
    """The gate the script relied on: what it imported as figqa and the run's own copy
    must be released versions, and nothing the gate needs may have been replaced."""
    from gavelkit.award.figures.releases import judge

    info = result.get("figqa") or {}
    out = [Finding("FIG-S007", "error", f"the script tampered with the figure gate: {what}; "
                   "the gate cannot vouch for its figures", path=script,
                   hint="leave matplotlib and the gate alone in run_all.py; fix the figures")
           for what in info.get("tampered", [])]
    files: dict[str, str] = {}
    for m in info.get("imported", []):
        if m.get("file") is None:
            out.append(Finding("FIG-S006", "error", f"the script's figure gate {m['name']!r} is "
                               "a module with no file (made in memory): not a released "
                               "figqa.py", path=script))
        else:
            files.setdefault(m["file"], m["name"])
    for copy in _run_copies(script):
        files.setdefault(copy, "the run's copy")
    for path, name in files.items():
        out += _copy_finding(judge(path), path, name, script)
    if not info.get("imported") and _in_run(script):
        out.append(Finding("FIG-S009", "warning", "the script imports no figqa: the gate is not "
                           "wired into it (seed §7: assert_no_overlap in every figure factory "
                           "and in run_all.py)", path=script))
    return out


def _in_run(script: str) -> bool:
    from gavelkit.award.runs.runpaths import run_id_from_location

    return run_id_from_location(script) is not None


def _copy_finding(v: Any, path: str, name: str, script: str) -> list[Finding]:
    where = f"{path} ({name})" if name != "the run's copy" else path
    if v.status == "modified":
        return [Finding("FIG-S006", "error", f"{where} is not a released figqa.py (sha256 "
                        f"{v.sha256[:12]}…): {v.detail}", path=script,
                        hint="copy the skill's scripts/figqa.py into code/ unchanged; the "
                             "critic's re-run gates with the shipped one", data={"file": path})]
    if v.status == "unreadable":
        return [Finding("FIG-S006", "error", f"{where} could not be read to compare it with "
                        f"the released versions: {v.detail}", path=script, data={"file": path})]
    if v.status == "released":
        return [Finding("FIG-S008", "warning", f"{where} is an older released figqa.py (sha256 "
                        f"{v.sha256[:12]}…): the re-run gated with the shipped one; copy the "
                        "current scripts/figqa.py into code/", path=script, data={"file": path})]
    return []


def _run_summary(script: str, figs: list[dict[str, Any]], gate: dict[str, Any]) -> str:
    n_coll = sum(len(f.get("collisions", [])) for f in figs)
    summary = f"figqa: gated {len(figs)} figure(s) from {script}: {n_coll} collision(s)"
    if gate.get("gate"):
        summary += f"\ngate: the shipped figqa ({gate['gate']})"
    used = [m.get("file") or f"{m['name']} (no file)" for m in gate.get("imported", [])]
    if used:
        summary += "\nthe script's own gate: " + ", ".join(used)
    annotated = [f["annotated"] for f in figs if f.get("annotated")]
    if annotated:
        summary += "\nannotated: " + ", ".join(annotated)
    return summary


def run_main(argv: list[str], prog: str) -> int:
    from gavelkit.cli.common import emit

    opts, rest = _split(argv)
    script, args = rest[0], rest[1:]
    findings, result = run_script(script, args, annotate=opts["annotate"],
                                  snapshot=opts["snapshot"],
                                  timeout=opts["timeout"], tol=opts["tol"],
                                  min_area=opts["min_area"], quiet=opts["quiet"])
    figs = result.get("figures", [])
    gate = result.get("figqa") or {}
    summary = _run_summary(script, figs, gate)
    stdout = result.get("stdout") or ""
    if stdout.strip() and opts["format"] == "text" and not opts["quiet"]:
        # what the script printed comes first, as it would in a terminal
        print(f"--- stdout of {script} ---\n{stdout.rstrip()}\n--- end of stdout ---")
    extra = {"figures": [{k: v for k, v in f.items() if k != "collisions"} | {
        "collisions": len(f.get("collisions", []))} for f in figs],
        "figqa": gate, "stdout": stdout[-20_000:]}
    return emit(findings, opts["format"], prog, extra=extra, text=summary, quiet=opts["quiet"])


def selftest_main(argv: list[str], prog: str) -> int:
    from gavelkit.cli.common import add_format, parser

    p = parser(prog, "Prove the figure gate works on built-in colliding and clean figures.")
    add_format(p)
    a = p.parse_args(argv)
    import io

    os.environ.setdefault("MPLBACKEND", "Agg")
    from gavelkit.award.figures import figqa

    buf = io.StringIO()
    ok = figqa.self_test(buf)
    if a.format == "json":
        print(json.dumps({"tool": "gavel", "command": prog, "passed": ok,
                          "cases": buf.getvalue().splitlines()[:-1]}, indent=2))
    else:
        print(buf.getvalue().rstrip())
    return 0 if ok else 1


def figure_findings(fig: Any, path: str = "", line: int = 0, **tolerances: Any) -> list[Finding]:
    """Gate one in-memory figure and return Findings (library use and tests)."""
    from gavelkit.award.figures import figqa

    found = figqa.find_collisions(fig, **tolerances)
    result = {"figures": [{"index": 1, "line": line, "collisions": [c.to_dict() for c in found]}],
              "exit": 0}
    return collisions_to_findings(result, path)
