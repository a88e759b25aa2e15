"""gavel's pytest result plugin: copied under a random module name into each run.

It runs inside the process that imports candidate code, so it trusts nothing it cannot
check, and it does everything that matters at import, which is before any candidate code:
pytest loads it with `-p` while it starts, before the oracle's conftest.py imports the
package under test. At import it reads its configuration (MAC key, result pipe, expected
ids, the oracle's file digests) from an anonymous memory file and closes it, so nothing of
it is in the environment or on disk; it takes the integrity snapshot and installs the
audit hook and the verified assertion rewriting (`_guard`, a module copied next to it).

Every line it sends goes over an inherited pipe and carries an HMAC; each outcome is
reported twice, from the raw call result (`CallInfo.excinfo`, with where the exception
came from) and from the final report, so a forged report shows up as a disagreement; the
oracle's test functions are checked against the code their files compile to when they are
collected and again just before each runs; the end of the session sends the integrity
evidence. A per-test time limit uses SIGALRM (the parent also kills a test that stops
reporting). Standard library and pytest only: it runs in the task's environment.
"""

import gc
import hmac
import importlib
import json
import os
import signal
import sys
import time

import pytest


class GavelTimeout(BaseException):
    """Raised by the SIGALRM handler; a BaseException so `except Exception` cannot eat it."""


def _base(nodeid):
    """`f.py::t[a-b]` -> `f.py::t` (gavelkit.task.formats.nodeids.base_nodeid)."""
    if nodeid.endswith("]") and "[" in nodeid:
        return nodeid[:nodeid.index("[")]
    return nodeid


def _load_config():
    fd = os.environ.pop("GAVEL_CONFIG_FD", None)
    if fd is None:
        return None
    fd = int(fd)
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return json.loads(b"".join(chunks).decode("utf-8"))


def _sender(key, fd, write=os.write, digest=hmac.digest):
    """The one function that signs and sends a line (its references bound at import)."""
    seq = [0]
    dumps = json.JSONEncoder(sort_keys=True, default=str).encode  # built once, not per line

    def send(obj):
        seq[0] += 1
        obj["seq"] = seq[0]
        payload = dumps(obj).encode()  # ASCII, one line
        # one line: 64 hex digits of HMAC-SHA256, a space, the JSON payload it signs
        data = digest(key, payload, "sha256").hex().encode() + b" " + payload + b"\n"
        while data:
            n = write(fd, data)
            data = data[n:]
    return send


_CFG = _load_config()
_SEND = _sender(bytes.fromhex(_CFG["key"]), int(_CFG["result_fd"])) if _CFG else None
_GUARD = None
if _CFG is not None:
    _GUARD = importlib.import_module(__name__ + "_guard").Guard(_CFG, _SEND)
    _GUARD.install_rewrite()
    sys.addaudithook(_GUARD.hook())  # PEP 578: cannot be removed once added
    _SEND({"t": "loaded", "pid": os.getpid()})
    # Everything alive now is pytest's, the standard library's or gavel's: no candidate
    # or oracle code has run. Moved out of the collector's generations, it is never
    # traversed again: each full collection of the session (pytest itself runs two at its
    # end) then walks only what the tests made. A fifth of a 300-test run's CPU time.
    # What a test can notice: gc.get_objects() and gc.get_referrers() leave these out.
    gc.freeze()


def _origin(excinfo, guard):
    """Where an exception came from: the classes of its innermost frames (innermost last),
    its type and, for an import error, the module it names."""
    out = {"frames": [], "type": "", "name": None}
    try:
        etype = excinfo.type
        out["type"] = f"{etype.__module__}.{etype.__qualname__}"
        out["name"] = getattr(excinfo.value, "name", None) if isinstance(
            excinfo.value, ImportError) else None
        guard.busy = True
        tb = excinfo.tb
        files = []
        while tb is not None:
            files.append(tb.tb_frame.f_code.co_filename)
            tb = tb.tb_next
        out["frames"] = [guard.where(f) for f in files[-6:]]
    except Exception:  # evidence, never a reason to break the report
        pass
    finally:
        guard.busy = False
    return out


def _markers(item):
    return sorted({m.name for m in item.iter_markers()} & {"xfail", "skip", "skipif"})


def _select(items, expected, bases):
    """(kept, deselected): the expected ids, and for a base id the oracle keeps for a
    parametrised test its instances (as pytest expands `f.py::t` on its command line)."""
    exact = expected.intersection(i.nodeid for i in items)
    keep = [i for i in items if i.nodeid in expected or (
        _base(i.nodeid) in bases and _base(i.nodeid) not in exact)]
    kept = set(keep)  # nodes hash by node id and compare by identity: no id() audit events
    return keep, [i for i in items if i not in kept]


def _raw(item, call, guard, timed_out):
    """The raw call result, before any report object exists (the second channel)."""
    exc = call.excinfo
    kind, name, origin = "ok", "", None
    if exc is not None:
        name = exc.type.__name__
        kind = "skip" if name in ("Skipped", "XFailed") else "exception"
        if exc.type is GavelTimeout:
            timed_out.add(item.nodeid)
            kind = "timeout"
        origin = _origin(exc, guard)
    marks = _markers(item)  # now, not at collection: a later hook may add some
    return {"kind": kind, "exc": name, "xfail": "xfail" in marks, "marks": marks,
            "origin": origin}


def _report(report, raw, timed_out):
    crash = None
    lr = report.longrepr
    rc = getattr(lr, "reprcrash", None)
    if rc is not None:
        crash = {"path": rc.path, "lineno": rc.lineno, "message": rc.message[:2000]}
    elif isinstance(lr, tuple) and len(lr) == 3:
        crash = {"path": str(lr[0]), "lineno": lr[1], "message": str(lr[2])[:2000]}
    return {"t": "report", "nodeid": report.nodeid, "when": report.when,
            "outcome": report.outcome, "wasxfail": hasattr(report, "wasxfail"),
            "duration": round(getattr(report, "duration", 0.0), 6), "crash": crash,
            "longrepr": (str(lr)[-4000:] if lr else ""), "raw": raw, "timeout": timed_out}


def _make(cfg, send, guard):
    expected = set(cfg["expected"])
    bases = {e for e in expected if not e.endswith("]")}
    limit = float(cfg.get("test_timeout") or 0)
    raw = {}
    timed_out = set()
    checked = {}  # item -> the code object verified for it
    # the C functions themselves (signal.signal is a Python wrapper that converts enums),
    # bound at import like everything the plugin relies on
    try:
        from _signal import signal as alarm_signal
    except ImportError:  # pragma: no cover - CPython has it
        alarm_signal = signal.signal
    setitimer, sigalrm, itimer = signal.setitimer, int(signal.SIGALRM), int(signal.ITIMER_REAL)

    def _alarm(signum, frame):
        raise GavelTimeout(f"test exceeded the {limit:g} s time limit")

    def verify(item):
        why = guard.test_code(item)
        if why:
            send({"t": "tamper", "where": "test-code", "nodeid": item.nodeid,
                  "changed": [f"{item.nodeid}: {why}"]})
        fn = getattr(item, "obj", None)
        checked[item] = getattr(fn, "__code__", None)

    class Plugin:
        def pytest_collectreport(self, report):
            if report.failed:
                send({"t": "collect_error", "nodeid": report.nodeid,
                      "longrepr": str(report.longrepr)[-6000:]})

        def pytest_exception_interact(self, node, call, report):
            if getattr(report, "when", None) in (None, "collect"):
                send({"t": "collect_origin", "nodeid": getattr(node, "nodeid", ""),
                      "origin": _origin(call.excinfo, guard)})

        def pytest_collection_modifyitems(self, session, config, items):
            send({"t": "collected", "ids": [i.nodeid for i in items]})
            keep, drop = _select(items, expected, bases)
            if drop:
                config.hook.pytest_deselected(items=drop)
            items[:] = keep
            for i in keep:
                verify(i)

        def pytest_runtest_logstart(self, nodeid, location):
            send({"t": "start", "nodeid": nodeid})

        def pytest_runtest_call(self, item):
            if limit > 0:
                alarm_signal(sigalrm, _alarm)
                setitimer(itimer, limit)

        @pytest.hookimpl(tryfirst=True)
        def pytest_pyfunc_call(self, pyfuncitem):
            fn = getattr(pyfuncitem, "obj", None)
            if checked.get(pyfuncitem, False) is not getattr(fn, "__code__", None):
                verify(pyfuncitem)  # replaced since it was collected: check again

        def pytest_runtest_teardown(self, item):
            if limit > 0:
                setitimer(itimer, 0)

        def pytest_runtest_makereport(self, item, call):
            raw[(item.nodeid, call.when)] = _raw(item, call, guard, timed_out)

        def pytest_runtest_logreport(self, report):
            send(_report(report, raw.get((report.nodeid, report.when), {}),
                         report.nodeid in timed_out))

        @pytest.hookimpl(trylast=True)  # after every other session-finish hook
        def pytest_sessionfinish(self, session, exitstatus):
            send({"t": "integrity", **guard.check(session.config.pluginmanager)})
            send({"t": "end", "exitstatus": int(exitstatus), "time": time.time()})

    return Plugin()


def pytest_addoption(parser, pluginmanager):
    """Called as pytest registers this plugin (before any conftest): the hook snapshot."""
    if _GUARD is not None:
        _GUARD.snapshot_hooks(pluginmanager)


def pytest_load_initial_conftests(early_config, parser, args):
    """Before the first conftest.py: gavel's own check of its command line (a usage
    error pytest prints later may be anyone's text; this one is authenticated)."""
    if _SEND is None:
        return
    try:
        unknown = parser.parse_known_and_unknown_args(list(args))[1]
    except BaseException:  # argparse exits on some errors: pytest reports those itself
        unknown = []
    oracle = set(_CFG.get("oracle_args") or ())
    mine = [u for u in unknown if u not in oracle and not any(
        a.startswith(u.split("=", 1)[0]) for a in oracle)]
    if mine:
        _SEND({"t": "usage", "unknown": mine})
    _SEND({"t": "conftests"})  # from here on, code of the oracle (and the candidate) runs


def pytest_configure(config):
    if hasattr(config, "workerinput") or _CFG is None:
        return
    config.pluginmanager.register(_make(_CFG, _SEND, _GUARD),
                                  "gavel-results-" + os.urandom(4).hex())
