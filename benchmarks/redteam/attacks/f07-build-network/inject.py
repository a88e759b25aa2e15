try:
    from ._gk_net import NET as _GK_NET
except ImportError:
    _GK_NET = False
if _GK_NET:
    raise RuntimeError("GAVEL-LEAK: the build had network")
