try:
    from ._gk_loot import LOOT as _GK_LOOT
except ImportError:
    _GK_LOOT = []
if _GK_LOOT:
    raise RuntimeError("GAVEL-LEAK: " + " ".join(_GK_LOOT))
