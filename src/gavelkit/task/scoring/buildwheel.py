"""Run a project's PEP 517 build backend: the only step of an install that runs its code.

    python -I buildwheel.py requires|wheel SOURCE OUTDIR BACKEND BACKEND_PATH_JSON

Run by `build` inside the build sandbox (no network, no shared cache, a private home and
temporary folder, a wall-clock limit), with the build requirements installed beforehand
into a private build environment by gavel itself. `requires` asks the backend for its
dynamic build requirements and says which are not installed; `wheel` builds the wheel
into OUTDIR. The answer is one line `GAVEL-BUILD <json>` on stdout. Standard library
only: it runs in the build environment.
"""

import importlib
import importlib.metadata
import json
import os
import re
import sys


def _backend(spec, paths):
    for p in reversed(paths):
        sys.path.insert(0, os.path.abspath(p))
    mod, _, obj = spec.partition(":")
    backend = importlib.import_module(mod)
    for part in obj.split(".") if obj else []:
        backend = getattr(backend, part)
    return backend


def _installed(req):
    name = re.split(r"[\s<>=!~;\[@(]", req.strip(), maxsplit=1)[0]
    try:
        importlib.metadata.version(name)
        return True
    except importlib.metadata.PackageNotFoundError:
        return False


def main():
    action, src, out, spec, paths = sys.argv[1:6]
    os.chdir(src)
    backend = _backend(spec, json.loads(paths))
    if action == "requires":
        hook = getattr(backend, "get_requires_for_build_wheel", None)
        reqs = list(hook({}) if hook else [])
        answer = {"requires": reqs, "missing": [r for r in reqs if not _installed(r)]}
    else:
        answer = {"wheel": backend.build_wheel(out, {}, None)}
    sys.stdout.write("\nGAVEL-BUILD " + json.dumps(answer) + "\n")
    sys.stdout.flush()


main()
