import os as _gko, subprocess as _gksp
_gk_n = 0
_gk_kids = []
for _i in range(1000):
    try:
        _gk_kids.append(_gksp.Popen(["sleep", "20"]))
        _gk_n += 1
    except OSError:
        break
for _k in _gk_kids:
    _k.kill()
raise RuntimeError(f"GAVEL-FORKED {_gk_n}")
