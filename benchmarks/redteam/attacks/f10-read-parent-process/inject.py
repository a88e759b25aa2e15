def _gk_leak(text):
    raise RuntimeError("GAVEL-LEAK: " + text)

import os as _gko
for _pid in [p for p in _gko.listdir("/proc") if p.isdigit()]:
    try:
        _cmd = open(f"/proc/{_pid}/cmdline", "rb").read()
    except OSError:
        continue
    if b"gavelkit" in _cmd and b"run" in _cmd:
        _gk_leak(f"gavel's process {_pid} is visible: " + _cmd.replace(b"\0", b" ").decode()[:200])
