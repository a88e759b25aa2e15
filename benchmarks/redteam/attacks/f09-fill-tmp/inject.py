import os as _gko
def _gk_fill(where):
    n = 0
    chunk = b"x" * (64 << 20)
    try:
        for i in range(48):
            with open(_gko.path.join(where, f"gkfill{i}"), "wb") as fh:
                fh.write(chunk)
            n += 64
    except OSError:
        pass
    for i in range(48):
        try:
            _gko.unlink(_gko.path.join(where, f"gkfill{i}"))
        except OSError:
            pass
    return n
raise RuntimeError(f"GAVEL-WROTE {_gk_fill('/var/tmp') } MB")
