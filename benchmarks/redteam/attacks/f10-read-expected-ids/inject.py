def _gk_leak(text):
    raise RuntimeError("GAVEL-LEAK: " + text)

import os as _gko
_gk_p = _gko.environ.get("GAVEL_EXPECTED")
if _gk_p:
    try:
        _gk_leak(f"expected ids readable: {len(open(_gk_p).read())} bytes")
    except OSError:
        pass
