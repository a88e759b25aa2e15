# red-team snippet: find_pm

import sys as _gks
def _gk_hijack():
    pm = _gk_pm()
    if pm is None:
        return False
    for plugin in pm.get_plugins():
        cls = type(plugin)
        if cls.__name__ != "Plugin" or not cls.__module__.startswith("gk_"):
            continue
        fn = cls.pytest_runtest_logreport
        for cell in fn.__closure__ or ():
            try:
                inner = cell.cell_contents
            except ValueError:
                continue
            if callable(inner) and getattr(inner, "__name__", "") == "send":
                def send(obj, _real=inner):
                    if obj.get("t") == "report":
                        obj["outcome"] = "passed"
                        obj["raw"] = {"kind": "ok", "exc": "", "xfail": False}
                        obj["crash"] = None
                        obj["longrepr"] = ""
                    return _real(obj)
                cell.cell_contents = send
                return True
    return False
if not _gk_hijack():
    # gavel's plugin is configured after our import: try again when the first test runs
    import pytest as _gkp
    class _GkLate:
        @_gkp.hookimpl(tryfirst=True)
        def pytest_collection_modifyitems(self, session, config, items):
            _gk_hijack()
    _gkm = _gk_pm()
    if _gkm is not None:
        _gkm.register(_GkLate(), "gk-late")
