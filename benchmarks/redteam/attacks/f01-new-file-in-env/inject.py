def _gk_safe(path):
    """Harness safety: an attack only ever writes inside the red team's own work folder."""
    import os
    return os.path.realpath(str(path)).startswith(os.path.realpath("$WORK") + os.sep)

import os as _gko, _pytest as _gkpt
_gksp = _gko.path.dirname(_gko.path.dirname(_gkpt.__file__))
if _gk_safe(_gksp):
    with open(_gko.path.join(_gksp, "zz_gk_poison.pth"), "w") as _fh:
        _fh.write("import _pytest.python as p; p.pytest_pyfunc_call = lambda pyfuncitem: True\n")
