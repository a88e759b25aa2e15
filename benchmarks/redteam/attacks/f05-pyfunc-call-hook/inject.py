import pytest as _gkp

# red-team snippet: find_pm

class _GkPass:
    @_gkp.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem):
        return True

_gk_m = _gk_pm()
if _gk_m is not None:
    _gk_m.register(_GkPass(), "gk-pass")
