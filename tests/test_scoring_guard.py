"""Issue 24: a score the candidate cannot inflate. One test per defence, each first an
attack that worked on the code before it (benchmarks/redteam has the full campaign), with
a near miss where an honest library does something close."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gavelkit.task.scoring.options import RunOptions
from gavelkit.task.scoring.runner import run_solution
from gavelkit.task.scoring.sandbox import bwrap_available
from judge_helpers import BROKEN, REFERENCE, make_task, solution

from gk_testing import clean, fires

BWRAP = bwrap_available()[0]
needs_bwrap = pytest.mark.skipif(not BWRAP, reason="bubblewrap is not usable here")
# The plugin manager, found from the package's import (the oracle's conftest imports it)
# by walking up the frames: pytest's own objects are frozen out of the collector before any
# conftest, so gc.get_objects() no longer finds them (test_the_heap_walk_finds_nothing).
PM = '''
import sys
import pytest as _p
def _pm():
    f = sys._getframe()
    while f is not None:
        for v in list(f.f_locals.values()):
            for o in (v, getattr(v, "pluginmanager", None)):
                if type(o).__name__ == "PytestPluginManager":
                    return o
        f = f.f_back
'''
HEAP_PM = '''
import gc
import pytest as _p
def _pm():
    for o in gc.get_objects():
        if type(o).__name__ == "PytestPluginManager":
            return o
'''


def score(tmp: Path, files: dict[str, str], name: str = "sol", **kw):  # type: ignore[no-untyped-def]
    task = kw.pop("task", None) or make_task(tmp, atomic_only=True)
    sol = solution(tmp, name, {"tally/__init__.py": BROKEN, **files})
    return run_solution(task, RunOptions(solution=sol, out=tmp / f"out-{name}", package="tally",
                                         **kw))


def passed(res) -> set[str]:  # type: ignore[no-untyped-def]
    return {c["nodeid"].split("::")[1] for c in res.score["cases"] if c["counted_as"] == "passed"}


HONEST = {"test_parse_counts_strokes[a]", "test_parse_counts_strokes[b]",
          "test_tally_total_is_fixed"}


def tampered(res) -> str:  # type: ignore[no-untyped-def]
    return " ".join(f.message for f in res.findings if f.code == "TSK-X010")


# ---- runner tampering, caught by the integrity check ---------------------------------
@pytest.mark.parametrize("attack,evidence", [
    (PM + '''
class _Pass:
    @_p.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem):
        return True
_pm().register(_Pass(), "pass")
''', "hook implementation"),
    ('''
import _pytest.python
_pytest.python.Function.runtest = lambda self: None
''', "Function.runtest"),
    ('''
import _pytest.runner as r
_orig = r.CallInfo.from_call.__func__
def _quiet(cls, func, when, reraise=None):
    ci = _orig(cls, func, when, reraise)
    ci.excinfo = None
    return ci
r.CallInfo.from_call = classmethod(_quiet)
''', "CallInfo.from_call"),
])
def test_the_runner_replaced_at_import_is_caught(tmp_path: Path, attack: str,
                                                 evidence: str) -> None:
    """Before the plugin's snapshot moved to its import, CallInfo.from_call patched by
    code the oracle's conftest imported was never seen."""
    res = score(tmp_path, {"tally/__init__.py": BROKEN + attack})
    assert evidence in tampered(res), [f.message for f in res.findings]


def test_the_heap_walk_finds_nothing(tmp_path: Path) -> None:
    """The plugin manager looked for on the heap (how the first attacks found it): frozen
    out of the collector before any conftest, pytest's objects are not there, the hook is
    never registered, nothing is inflated, and the heap walk itself is evidence."""
    attack = BROKEN + HEAP_PM + '''
class _Pass:
    @_p.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem):
        return True
_FOUND = _pm()
if _FOUND is not None:
    _FOUND.register(_Pass(), "pass")
'''
    task = make_task(tmp_path, atomic_only=True)
    res = score(tmp_path, {"tally/__init__.py": attack}, task=task)
    honest = score(tmp_path, {}, name="honest", task=task)
    assert passed(res) <= passed(honest) == HONEST
    assert any("walked the heap (gc.get_objects)" in f.message for f in res.findings)


def test_test_functions_hollowed_by_an_import_hook_are_caught(tmp_path: Path) -> None:
    hollow = BROKEN + '''
import sys, types, inspect
class _H:
    def find_spec(self, name, path=None, target=None):
        if not name.startswith("test_"):
            return None
        for f in sys.meta_path:
            if f is self:
                continue
            spec = f.find_spec(name, path, target)
            if spec is not None:
                real = spec.loader
                class L:
                    def create_module(self, s):
                        return None
                    def exec_module(self, mod):
                        real.exec_module(mod)
                        for k, v in list(vars(mod).items()):
                            if k.startswith("test_") and isinstance(v, types.FunctionType):
                                ns = {}
                                exec(f"def {k}({', '.join(inspect.signature(v).parameters)}): pass", ns)
                                v.__code__ = ns[k].__code__
                spec.loader = L()
                return spec
sys.meta_path.insert(0, _H())
'''
    task = make_task(tmp_path, atomic_only=True)
    # as the example's oracle does: its conftest imports the package before the tests
    (task / "oracle" / "conftest.py").write_text("import tally  # noqa: F401\n")
    res = score(tmp_path, {"tally/__init__.py": hollow}, task=task)
    assert "test function replaced" in tampered(res) or "__code__" in tampered(res), \
        [f.message for f in res.findings]


def test_the_signing_function_replaced_is_caught(tmp_path: Path) -> None:
    steal = BROKEN + PM + '''
def _hijack(session, config, items):
    for plugin in config.pluginmanager.get_plugins():
        fn = getattr(type(plugin), "pytest_runtest_logreport", None)
        for cell in getattr(fn, "__closure__", None) or ():
            try:
                inner = cell.cell_contents
            except ValueError:
                continue
            if getattr(inner, "__name__", "") == "send":
                def send(obj, _real=inner):
                    if obj.get("t") == "report":
                        obj.update(outcome="passed", raw={"kind": "ok"}, crash=None)
                    return _real(obj)
                cell.cell_contents = send
class _Late:
    @_p.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        _hijack(session, config, items)
_pm().register(_Late(), "late")
'''
    res = score(tmp_path, {"tally/__init__.py": steal})
    assert passed(res) <= HONEST | {"test_render_digits", "test_parse_rejects_letters"}
    assert tampered(res), [f.message for f in res.findings]


def test_a_trace_function_is_caught(tmp_path: Path) -> None:
    trace = BROKEN + '''
import sys
sys.settrace(lambda *a: None)
'''
    res = score(tmp_path, {"tally/__init__.py": trace})
    assert "trace" in tampered(res), [f.message for f in res.findings]


def test_an_honest_run_has_verified_integrity(tmp_path: Path) -> None:
    res = score(tmp_path, {"tally/__init__.py": REFERENCE})
    ev = res.score["gavel"]["integrity"]["evidence"]
    assert ev["verified"] and ev["processes"] == 1, ev
    clean(res.findings, "TSK-X010")
    clean(res.findings, "TSK-X026")


def test_a_process_that_reports_but_never_checks_is_unverifiable(tmp_path: Path) -> None:
    """The candidate ends the session before gavel's plugin sends its integrity check."""
    quit_early = BROKEN + PM + '''
import os
class _Bye:
    @_p.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session, exitstatus):
        os._exit(0)
_pm().register(_Bye(), "bye")
'''
    res = score(tmp_path, {"tally/__init__.py": quit_early})
    fires(res.findings, "TSK-X026")


# ---- the result channel -----------------------------------------------------------------
def test_the_channel_configuration_is_nowhere_the_candidate_can_read(tmp_path: Path) -> None:
    """The MAC key, the result pipe and the expected ids used to be named in the test
    process's environment, where code imported by the conftest read them first."""
    probe = BROKEN + '''
import os
_secret = ("GAVEL_KEY", "GAVEL_RESULT", "GAVEL_EXPECTED", "GAVEL_CONFIG")
_seen = {k for k in os.environ if k.startswith(_secret)}
_seen |= {x.split(b"=")[0].decode() for x in open("/proc/self/environ", "rb").read().split(b"\\0")
          if x.decode(errors="replace").startswith(_secret)}
if _seen:
    raise RuntimeError("LEAK " + " ".join(sorted(_seen)))
'''
    res = score(tmp_path, {"tally/__init__.py": probe})
    assert "LEAK" not in json.dumps(res.score), json.dumps(res.score)[:2000]
    assert passed(res) == HONEST


# ---- outcomes the oracle did not declare ------------------------------------------------
def test_xfail_marks_added_at_run_time_count_as_failures(tmp_path: Path) -> None:
    xfail = BROKEN + PM + '''
class _X:
    @_p.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        for it in items:
            it.add_marker(_p.mark.xfail(strict=False))
_pm().register(_X(), "x")
'''
    res = score(tmp_path, {"tally/__init__.py": xfail})
    assert passed(res) <= HONEST, passed(res)
    by = {c["nodeid"].split("::")[1]: c for c in res.score["cases"]}
    assert by["test_render_digits"]["outcome"] == "xfail"
    assert by["test_render_digits"]["counted_as"] == "failed"
    assert "marks the oracle does not declare" in tampered(res)


def test_an_imperative_xfail_from_the_candidate_counts_as_a_failure(tmp_path: Path) -> None:
    lazy = BROKEN.replace("def render(t):\n", "def render(t):\n    import pytest\n"
                          "    pytest.xfail('later')\n")
    res = score(tmp_path, {"tally/__init__.py": lazy})
    case = next(c for c in res.score["cases"] if "render_digits" in c["nodeid"])
    assert case["outcome"] == "xfail" and case["counted_as"] == "failed", case


def test_an_xfail_the_oracle_declares_still_counts_as_passed(tmp_path: Path) -> None:
    task = make_task(tmp_path, atomic_only=True)
    test = task / "oracle" / "test_atomic.py"
    test.write_text(test.read_text().replace("def test_render_digits():",
                                             "@pytest.mark.xfail(strict=False)\n"
                                             "def test_render_digits():"))
    res = score(tmp_path, {}, task=task)
    case = next(c for c in res.score["cases"] if "render_digits" in c["nodeid"])
    assert case["outcome"] == "xfail" and case["counted_as"] == "passed", case
    clean(res.findings, "TSK-X010")


# ---- blame ----------------------------------------------------------------------------
def test_a_printed_usage_error_is_the_candidates_failure(tmp_path: Path) -> None:
    fake = BROKEN + '''
import os, sys
sys.stderr.write("ERROR: usage: __main__.py [options]\\n__main__.py: error: unrecognized "
                 "arguments: --gavel-x\\n")
sys.stderr.flush()
os._exit(4)
'''
    res = score(tmp_path, {"tally/__init__.py": fake})
    classes = {c["classification"]["class"] for c in res.score["cases"]}
    assert classes == {"candidate"}, [c["classification"] for c in res.score["cases"]]
    clean(res.findings, "TSK-X009")


def test_os_exit_at_import_is_a_measured_zero_not_an_invalid_run(tmp_path: Path) -> None:
    res = score(tmp_path, {"tally/__init__.py": BROKEN + "\nimport os\nos._exit(0)\n"})
    assert res.summary["passed"] == 0
    assert {c["classification"]["rule"] for c in res.score["cases"]} == {"candidate-crash"}
    clean(res.findings, "TSK-X009")


def test_environment_looking_messages_from_candidate_code_stay_the_candidates(
        tmp_path: Path) -> None:
    env_text = BROKEN.replace("def render(t):\n", "def render(t):\n    raise OSError(30, "
                              "'Read-only file system')\n")
    res = score(tmp_path, {"tally/__init__.py": env_text})
    case = next(c for c in res.score["cases"] if "render_digits" in c["nodeid"])
    assert case["classification"]["class"] == "candidate", case["classification"]
    # the same text from a reference run is read as the reference's environment
    ref = score(tmp_path / "r", {"tally/__init__.py": env_text}, role="reference")
    case = next(c for c in ref.score["cases"] if "render_digits" in c["nodeid"])
    assert case["classification"]["class"] == "environment"


# ---- frame peeking ----------------------------------------------------------------------
PEEK = BROKEN + '''
import sys
def _peek(fn):
    def inner(*a, **k):
        f = sys._getframe(1)
        loc = f.f_locals
        if "total" in loc:
            return loc["total"]
        return fn(*a, **k)
    return inner
class _T:
    def __init__(self, n):
        self.total = _peek(lambda: n)()
Tally = _T
'''


def test_frame_peeking_into_the_tests_locals_is_caught(tmp_path: Path) -> None:
    res = score(tmp_path, {"tally/__init__.py": PEEK})
    assert "a frame's locals" in tampered(res), [f.message for f in res.findings]


PEEK_SRC = 'import sys\ndef peek():\n    f = sys._getframe(1)\n    return f.{}["expected"]\n'


@pytest.mark.parametrize("body", [
    "# coding: utf-8\n" + PEEK_SRC.format("\uff46_locals"),  # NFKC folds it to f_locals
    "# coding: utf-7\n" + PEEK_SRC.format("+AGY-_locals"),  # PEP 263: what runs is f_locals
])
def test_frame_peeking_spelled_past_a_text_search_is_still_seen(tmp_path: Path,
                                                                 body: str) -> None:
    """The frame check and the static scan read the program Python runs, not the bytes as
    UTF-8 (both spellings import and return the caller's local)."""
    from gavelkit.task.scoring.integrity import reads_frame_locals
    from gavelkit.task.scoring.tamperscan import scan

    enc = "utf-7" if "utf-7" in body else "utf-8"
    (tmp_path / "pkg").mkdir()
    f = tmp_path / "pkg" / "__init__.py"
    f.write_bytes(body.encode(enc) if enc == "utf-8" else body.encode("ascii"))
    assert reads_frame_locals(f, 4)
    assert "caller-locals-value" in {h.rule for h in scan(tmp_path, "pkg")}


def test_a_file_that_reads_a_frame_but_no_locals_is_no_peeking(tmp_path: Path) -> None:
    """Near miss: the same function returning the caller's line number."""
    from gavelkit.task.scoring.integrity import reads_frame_locals
    from gavelkit.task.scoring.tamperscan import scan

    (tmp_path / "pkg").mkdir()
    f = tmp_path / "pkg" / "__init__.py"
    f.write_text("# coding: utf-7\n" + PEEK_SRC.replace('.{}["expected"]', ".f_lineno"))
    assert not reads_frame_locals(f, 4)
    assert "caller-locals-value" not in {h.rule for h in scan(tmp_path, "pkg")}


def test_reading_the_callers_module_name_is_no_frame_peeking(tmp_path: Path) -> None:
    """What attrs and logging do: the caller's frame, for its module name (no finding at
    all: neither tampering nor a warning)."""
    honest = REFERENCE + '''
import sys
def _caller_module():
    return sys._getframe(2).f_globals.get("__name__")
_orig_parse = parse
def parse(text):
    _caller_module()
    return _orig_parse(text)
'''
    res = score(tmp_path, {"tally/__init__.py": honest})
    clean(res.findings, "TSK-X010")
    clean(res.findings, "TSK-X004")
    assert res.summary["passed"] == 5


# ---- the sandbox's view ---------------------------------------------------------------------
@needs_bwrap
def test_the_test_process_sees_neither_home_nor_other_checkouts(tmp_path: Path) -> None:
    canary = Path.home() / ".cache" / "gavel-test-canary"
    canary.write_text("secret-canary\n")
    try:
        reader = BROKEN + f'''
import os
for p in ({str(canary)!r}, {str(Path(__file__).resolve())!r}, "/etc/shadow"):
    if os.path.exists(p):
        raise RuntimeError("VISIBLE " + p)
'''
        res = score(tmp_path, {"tally/__init__.py": reader})
    finally:
        canary.unlink()
    assert "VISIBLE" not in json.dumps(res.score)
    assert passed(res) == HONEST


@needs_bwrap
def test_the_sandbox_has_no_capabilities_and_a_read_only_root(tmp_path: Path) -> None:
    probe = BROKEN + '''
caps = [l for l in open("/proc/self/status") if l.startswith("CapEff")][0].split()[1]
if int(caps, 16):
    raise RuntimeError("CAPS " + caps)
try:
    open("/gavel-root-write", "w")
    raise RuntimeError("ROOT WRITABLE")
except OSError:
    pass
'''
    res = score(tmp_path, {"tally/__init__.py": probe})
    assert "CAPS" not in json.dumps(res.score) and "ROOT WRITABLE" not in json.dumps(res.score)
    assert passed(res) == HONEST


# ---- code before gavel's plugin ---------------------------------------------------------------
RUNS = '''
import os
open(os.environ.get("GAVEL_MARK", "/tmp/gavel-mark"), "w").write("ran")
'''


@pytest.mark.parametrize("rel", ["sitecustomize/__init__.py", "usercustomize.py",
                                 "fnmatch.py", "iniconfig.py"])
def test_nothing_of_the_solution_runs_before_the_plugin(tmp_path: Path, rel: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The folder form of sitecustomize, usercustomize, a standard-library name and a
    runner module: none is imported (-S, and the solution after the standard library and
    site-packages on sys.path)."""
    monkeypatch.setenv("GAVEL_NO_PRESTART", "1")
    mark = tmp_path / "mark"
    res = score(tmp_path, {rel: RUNS.replace('"/tmp/gavel-mark"', repr(str(mark)))},
                isolation="none")
    assert not mark.exists(), f"{rel} ran"
    assert passed(res) == HONEST


# ---- resources -------------------------------------------------------------------------------
def test_a_test_that_blocks_its_alarm_is_killed_by_the_parent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gavelkit.task.scoring import sandbox

    monkeypatch.setattr(sandbox, "WATCHDOG_GRACE", 1.0)
    hang = BROKEN.replace("def render(t):\n", "def render(t):\n    import signal, time\n"
                          "    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n"
                          "    while True:\n        time.sleep(0.1)\n")
    res = score(tmp_path, {"tally/__init__.py": hang}, test_timeout=1.0, group="run")
    case = next(c for c in res.score["cases"] if "render_digits" in c["nodeid"])
    assert case["outcome"] == "timeout", case
    assert "watchdog" in case["call"]["longrepr"]
    assert res.score["grouped_results"]["oracle/test_atomic.py"]["seconds"] < 30


@pytest.mark.skipif(os.getuid() != 0 and not BWRAP, reason="no process limit here")
def test_the_process_count_is_capped(tmp_path: Path) -> None:
    bomb = BROKEN + '''
import subprocess
kids = []
try:
    for _ in range(600):
        kids.append(subprocess.Popen(["sleep", "10"]))
except OSError:
    pass
for k in kids:
    k.kill()
raise RuntimeError(f"STARTED {len(kids)}")
'''
    res = score(tmp_path, {"tally/__init__.py": bomb})
    import re

    m = re.search(r"STARTED (\d+)", json.dumps(res.score))
    assert m and int(m.group(1)) < 300, m and m.group(0)


def test_a_result_line_without_end_cannot_grow_the_parents_memory() -> None:
    """A test process writing gigabytes without a newline to the result pipe: the reader
    drops what is longer than any line of gavel's and counts it as garbage."""
    from gavelkit.task.scoring.sandbox import MAX_LINE, _Messages

    sink = _Messages(b"k" * 32)
    for _ in range(3):
        sink.feed(b"x" * (MAX_LINE // 2 + 1))
    assert len(sink._rest) <= MAX_LINE and sink.bad >= 1


def test_a_collection_that_hangs_is_killed_by_the_parent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The candidate hangs while the oracle imports it, its alarm blocked: no test has
    started, so only the collection deadline ends it."""
    from gavelkit.task.scoring import sandbox

    monkeypatch.setattr(sandbox, "COLLECT_FLOOR", 2.0)
    hang = BROKEN + '''
import signal, time
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
while True:
    time.sleep(0.1)
'''
    res = score(tmp_path, {"tally/__init__.py": hang}, test_timeout=0.5, group="run")
    assert res.score["grouped_results"]["oracle/test_atomic.py"]["seconds"] < 30
    assert {c["outcome"] for c in res.score["cases"]} == {"timeout"}


@pytest.mark.parametrize("reader", [
    "for k, v in f.f_locals.items():\n        if k == 'expected':\n            return v\n",
    "ns = dict(f.f_locals)\n    got = ns.get('expected')\n    return got\n",
    "return next(v for k, v in f.f_locals.items() if k == 'expected')\n",
    "d = getattr(f, 'f_locals')\n    return d['expected'] or None\n",
    "self.total = f.f_locals['expected']\n",  # stored on the object it builds
    "yield f.f_locals['expected']\n",
])
def test_frame_locals_handed_out_through_names_loops_and_copies_are_seen(
        tmp_path: Path, reader: str) -> None:
    """Neighbours of the plain `return f.f_locals[k]`: the static rule follows names bound
    to the locals or to an item, copies, loops over `.items()`, `next(...)`, `or`."""
    from gavelkit.task.scoring.tamperscan import scan

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text(
        "import sys\ndef peek():\n    f = sys._getframe(1)\n    " + reader)
    assert "caller-locals-value" in {h.rule for h in scan(tmp_path, "pkg")}


def test_a_value_derived_from_a_frame_local_is_no_peeking(tmp_path: Path) -> None:
    """Near miss, what coverage and hydra do: the caller's `self`, for its class name; the
    caller's namespace whole; billiard's copy of one marker into a container."""
    from gavelkit.task.scoring.tamperscan import scan

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text(
        "import sys\ndef caller_class():\n    f = sys._getframe(1)\n"
        "    self = f.f_locals.get('self')\n    cls = self.__class__\n"
        "    return f'{cls.__module__}.{cls.__name__}'\n"
        "def namespace():\n    return dict(sys._getframe(1).f_locals)\n"
        "def picklable(f, out):\n    out['__traceback_hide__'] = f.f_locals['__traceback_hide__']\n")
    assert "caller-locals-value" not in {h.rule for h in scan(tmp_path, "pkg")}


SPLIT_PEEK = {"tally/_answers.py": '''
def answer(frame):
    loc = frame.f_locals
    return loc["total"] if "total" in loc else None
''', "tally/__init__.py": BROKEN + '''
import sys
from tally._answers import answer
class _T:
    def __init__(self, n):
        got = answer(sys._getframe(1))
        self.total = got if got is not None else n
Tally = _T
'''}


def test_frame_taken_in_one_module_and_read_in_another_is_caught(tmp_path: Path) -> None:
    """The file that took the frame need not be the one that reads its locals (evidence
    is required: this peek finds no answer in these tests, so nothing is gained)."""
    res = score(tmp_path, SPLIT_PEEK)
    assert "a frame's locals" in tampered(res), [f.message for f in res.findings]


def test_nothing_of_the_candidate_runs_after_the_session(tmp_path: Path) -> None:
    """The test process leaves with os._exit once pytest returns: an atexit handler the
    candidate registered (here one that would hollow an oracle file after the integrity
    check was sent) never runs. Near miss: the same write done during the session is
    caught by the worktree hashes (tests/test_judge_tamper.py::test_rewriting_test_files)."""
    late = BROKEN + '''
import atexit, os
def _late():
    with open(os.path.join(os.getcwd(), "oracle", "test_atomic.py"), "w") as fh:
        fh.write("def test_parse_counts_strokes():\\n    pass\\n")
atexit.register(_late)
'''
    res = score(tmp_path, {"tally/__init__.py": late})
    clean(res.findings, "TSK-X008")
    assert res.score["gavel"]["integrity"]["worktree_unchanged"]


def test_the_plugin_is_compiled_by_gavel_only_for_the_same_interpreter(tmp_path: Path) -> None:
    """Checked-hash .pyc beside the plugin copy when the environment's CPython is this
    one's minor version; for another version (near miss) none, and the module is compiled
    at import as before."""
    import sys

    from gavelkit.task.scoring.sandbox import copy_plugin

    def env(version: str) -> Path:
        e = tmp_path / f"env-{version}"
        e.mkdir()
        (e / "pyvenv.cfg").write_text(f"home = /x\nimplementation = CPython\n"
                                      f"version_info = {version}\n")
        return e

    same = ".".join(map(str, sys.version_info[:3]))
    other = f"{sys.version_info[0]}.{sys.version_info[1] + 1}.0"
    for version, want in ((same, 2), (other, 0)):
        plug = tmp_path / f"plug-{version}"
        plug.mkdir()
        copy_plugin(plug, "gk_test", env(version))
        pycs = sorted((plug / "__pycache__").glob("*.pyc")) if (plug / "__pycache__").is_dir() \
            else []
        assert len(pycs) == want, (version, pycs)
        if want:
            flags = int.from_bytes(pycs[0].read_bytes()[4:8], "little")
            assert flags == 0b11  # hash-based and checked against the source
