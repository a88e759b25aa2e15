def _gk_leak(text):
    raise RuntimeError("GAVEL-LEAK: " + text)

try:
    _gk_got = open("$CANARY_TASK").read()
except OSError:
    _gk_got = ""
if _gk_got:
    _gk_leak(_gk_got)
