def _gk_safe(path):
    """Harness safety: an attack only ever writes inside the red team's own work folder."""
    import os
    return os.path.realpath(str(path)).startswith(os.path.realpath("$WORK") + os.sep)

import _pytest.python as _gkpy
if _gk_safe(_gkpy.__file__):
    try:
        with open(_gkpy.__file__, "a") as _fh:
            _fh.write("\n\ndef pytest_pyfunc_call(pyfuncitem):\n    return True\n")
    except OSError:
        pass
