"""gavel's pytest result plugin: copied under a random module name into each run.

It runs inside the process that imports candidate code, so it trusts nothing it
cannot check: every line it sends goes over an inherited pipe (not a file the
tests could rewrite) and carries an HMAC keyed by a secret read from a second
pipe and never stored in the environment; each test outcome is reported twice,
from the raw call result (`CallInfo.excinfo`, before any report object exists)
and from the final TestReport, so a candidate that forges reports shows up as a
disagreement; the identities of pytest's reporting functions are recorded when
the plugin loads (before any candidate import) and compared at the end. A
per-test time limit uses SIGALRM (pytest-timeout's thread method loses results).
Standard library and pytest only: it runs in the task's environment.
"""

import hmac
import json
import os
import signal
import sys
import time


class GavelTimeout(BaseException):
    """Raised by the SIGALRM handler; a BaseException so `except Exception` cannot eat it."""


def _watched():
    import _pytest.python
    import _pytest.reports
    import _pytest.runner

    out = {
        "TestReport.from_item_and_call": _pytest.reports.TestReport.__dict__.get(
            "from_item_and_call"),
        "CallInfo.from_call": _pytest.runner.CallInfo.__dict__.get("from_call"),
        "runner.call_and_report": getattr(_pytest.runner, "call_and_report", None),
        "runner.runtestprotocol": getattr(_pytest.runner, "runtestprotocol", None),
        "runner.call_runtest_hook": getattr(_pytest.runner, "call_runtest_hook", None),
        "python.pytest_pyfunc_call": getattr(_pytest.python, "pytest_pyfunc_call", None),
        "os._exit": os._exit,
        "os.write": os.write,
        "sys.exit": sys.exit,
        "signal.signal": signal.signal,
        "signal.setitimer": signal.setitimer,
    }
    try:
        import _pytest.terminal as term

        out["TerminalReporter.pytest_runtest_logreport"] = \
            term.TerminalReporter.__dict__.get("pytest_runtest_logreport")
    except Exception:  # pragma: no cover
        pass
    return {k: id(v) for k, v in out.items()}


def _base(nodeid):
    """`f.py::t[a-b]` -> `f.py::t` (gavelkit.task.formats.nodeids.base_nodeid)."""
    if nodeid.endswith("]") and "[" in nodeid:
        return nodeid[:nodeid.index("[")]
    return nodeid


def _make():
    fd = int(os.environ.pop("GAVEL_RESULT_FD"))
    kfd = int(os.environ.pop("GAVEL_KEY_FD"))
    key = b""
    while True:
        chunk = os.read(kfd, 64)
        if not chunk:
            break
        key += chunk
    os.close(kfd)
    with open(os.environ.pop("GAVEL_EXPECTED"), encoding="utf-8") as fh:
        expected = set(json.load(fh))
    bases = {e for e in expected if not e.endswith("]")}
    limit = float(os.environ.pop("GAVEL_TEST_TIMEOUT", "0") or 0)
    write = os.write
    dumps = json.dumps
    digest = hmac.digest  # one C call per line (hmac.new builds a Python object each time)
    seq = [0]
    raw = {}
    timed_out = set()
    snapshot = _watched()

    def send(obj):
        seq[0] += 1
        obj["seq"] = seq[0]
        payload = dumps(obj, sort_keys=True, default=str).encode()  # ASCII, one line
        # one line: 64 hex digits of HMAC-SHA256, a space, the JSON payload it signs
        data = digest(key, payload, "sha256").hex().encode() + b" " + payload + b"\n"
        while data:
            n = write(fd, data)
            data = data[n:]

    def check(where):
        now = _watched()
        changed = sorted(k for k in snapshot if now.get(k) != snapshot[k])
        if changed:
            send({"t": "tamper", "where": where, "changed": changed})

    def _alarm(signum, frame):
        raise GavelTimeout(f"test exceeded the {limit:g} s time limit")

    class Plugin:
        def pytest_collectreport(self, report):
            if report.failed:
                send({"t": "collect_error", "nodeid": report.nodeid,
                      "longrepr": str(report.longrepr)[-6000:]})

        def pytest_collection_modifyitems(self, session, config, items):
            ids = [i.nodeid for i in items]
            send({"t": "collected", "ids": ids})
            exact = expected.intersection(ids)
            # a base id the oracle keeps for a parametrised test stands for its instances
            # (as pytest expands `f.py::t` given on its command line)
            wanted = [i for i in items if i.nodeid in expected or (
                _base(i.nodeid) in bases and _base(i.nodeid) not in exact)]
            keep_ids = {id(i) for i in wanted}
            keep = wanted
            drop = [i for i in items if id(i) not in keep_ids]
            if drop:
                config.hook.pytest_deselected(items=drop)
            items[:] = keep
            check("collection")

        def pytest_runtest_call(self, item):
            if limit > 0:
                signal.signal(signal.SIGALRM, _alarm)
                signal.setitimer(signal.ITIMER_REAL, limit)

        def pytest_runtest_teardown(self, item):
            if limit > 0:
                signal.setitimer(signal.ITIMER_REAL, 0)

        def pytest_runtest_makereport(self, item, call):
            exc = call.excinfo
            kind = "ok"
            name = ""
            if exc is not None:
                name = exc.type.__name__
                kind = "skip" if name in ("Skipped", "XFailed") else "exception"
                if exc.type is GavelTimeout:
                    timed_out.add(item.nodeid)
                    kind = "timeout"
            xfail = any(m.name == "xfail" for m in item.iter_markers())
            raw[(item.nodeid, call.when)] = {"kind": kind, "exc": name, "xfail": xfail}

        def pytest_runtest_logreport(self, report):
            r = raw.get((report.nodeid, report.when), {})
            crash = None
            lr = report.longrepr
            rc = getattr(lr, "reprcrash", None)
            if rc is not None:
                crash = {"path": rc.path, "lineno": rc.lineno, "message": rc.message[:2000]}
            elif isinstance(lr, tuple) and len(lr) == 3:
                crash = {"path": str(lr[0]), "lineno": lr[1], "message": str(lr[2])[:2000]}
            send({"t": "report", "nodeid": report.nodeid, "when": report.when,
                  "outcome": report.outcome, "wasxfail": hasattr(report, "wasxfail"),
                  "duration": round(getattr(report, "duration", 0.0), 6), "crash": crash,
                  "longrepr": (str(lr)[-4000:] if lr else ""), "raw": r,
                  "timeout": report.nodeid in timed_out})

        def pytest_sessionfinish(self, session, exitstatus):
            check("end")
            send({"t": "end", "exitstatus": int(exitstatus), "time": time.time()})

    return Plugin()


def pytest_configure(config):
    if hasattr(config, "workerinput") or "GAVEL_RESULT_FD" not in os.environ:
        return
    config.pluginmanager.register(_make(), "gavel-results-" + os.urandom(4).hex())
