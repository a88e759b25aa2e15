"""A tiny realistic library project for the scoring tests, fully offline.

`tally` declares a runtime dependency (`gkdep`, a wheel written here and served from a
local folder through UV_FIND_LINKS) and an entry point (`tally.formats` -> `bars`) that
the library loads by its short name, like real extension registries do. The project
builds with an in-tree PEP 517 backend (no build requirements, so no index is needed).
Its oracle task checks the three things a copied folder gets wrong: the dependency, the
entry point and the installed metadata.
"""

from __future__ import annotations

import base64
import hashlib
import json
import textwrap
import zipfile
from pathlib import Path

BACKEND = r'''
"""Minimal PEP 517 backend: packages src/<pkg> (or <pkg>) into a wheel."""
import base64, hashlib, os, pathlib, zipfile

NAME, VERSION, PKG = "tally", "0.1", "tally"
REQUIRES = ["gkdep>=1.0"]
ENTRY = "[tally.formats]\nbars = tally.formats:Bars\n"


def _files():
    root = pathlib.Path(".")
    base = root / "src" if (root / "src" / PKG).is_dir() else root
    for p in sorted((base / PKG).rglob("*.py")):
        yield p, str(p.relative_to(base)).replace(os.sep, "/")


def _meta():
    lines = ["Metadata-Version: 2.1", f"Name: {NAME}", f"Version: {VERSION}"]
    lines += [f"Requires-Dist: {r}" for r in REQUIRES]
    return "\n".join(lines) + "\n"


def _record_line(arc, data):
    d = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arc},sha256={d},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = f"{NAME}-{VERSION}-py3-none-any.whl"
    di = f"{NAME}-{VERSION}.dist-info"
    rec = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
        for p, arc in _files():
            data = p.read_bytes()
            z.writestr(arc, data)
            rec.append(_record_line(arc, data))
        for arc, text in ((f"{di}/METADATA", _meta()),
                          (f"{di}/WHEEL", "Wheel-Version: 1.0\nGenerator: gk\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
                          (f"{di}/entry_points.txt", ENTRY)):
            z.writestr(arc, text)
            rec.append(_record_line(arc, text.encode()))
        rec.append(f"{di}/RECORD,,")
        z.writestr(f"{di}/RECORD", "\n".join(rec) + "\n")
    return name
'''

PYPROJECT = """
[build-system]
requires = []
build-backend = "gk_backend"
backend-path = ["."]

[project]
name = "tally"
version = "0.1"
dependencies = ["gkdep>=1.0"]

[project.entry-points."tally.formats"]
bars = "tally.formats:Bars"
"""

INIT = '''
from importlib.metadata import entry_points, version

import gkdep


def total(text):
    return gkdep.count(text, "|")


def load_format(name):
    """Formats are registered as entry points and loaded by their short name."""
    for ep in entry_points(group="tally.formats"):
        if ep.name == name:
            return ep.load()
    raise LookupError(f"no format {name!r}")


def installed_version():
    return version("tally")
'''

FORMATS = '''
class Bars:
    def render(self, n):
        return "|" * n
'''

TESTS = '''
import tally


def test_total_uses_the_dependency():
    assert tally.total("|| |") == 3


def test_format_found_by_entry_point():
    assert tally.load_format("bars")().render(2) == "||"


def test_version_from_metadata():
    assert tally.installed_version() == "0.1"
'''

NODE_IDS = ["oracle/test_atomic.py::test_total_uses_the_dependency",
            "oracle/test_atomic.py::test_format_found_by_entry_point",
            "oracle/test_atomic.py::test_version_from_metadata"]


def _w(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), "utf-8")


def dep_wheel(folder: Path, name: str = "gkdep", version: str = "1.0",
              package: dict[str, str] | None = None, requires: tuple[str, ...] = ()) -> Path:
    """A hand-written wheel for UV_FIND_LINKS: by default the dependency (`gkdep.count`);
    `package` gives other files ({} for none), `requires` its Requires-Dist lines."""
    folder.mkdir(parents=True, exist_ok=True)
    whl = folder / f"{name}-{version}-py3-none-any.whl"
    di = f"{name}-{version}.dist-info"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(
        f"Requires-Dist: {r}\n" for r in requires)
    body = ({f"{name}/__init__.py": "def count(text, ch):\n    return text.count(ch)\n"}
            if package is None else package)
    files = {**body, f"{di}/METADATA": meta,
             f"{di}/WHEEL": "Wheel-Version: 1.0\nGenerator: gk\nRoot-Is-Purelib: true\n"
                            "Tag: py3-none-any\n"}
    rec = []
    with zipfile.ZipFile(whl, "w") as z:
        for arc, text in files.items():
            data = text.encode()
            z.writestr(arc, data)
            d = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            rec.append(f"{arc},sha256={d},{len(data)}")
        rec.append(f"{di}/RECORD,,")
        z.writestr(f"{di}/RECORD", "\n".join(rec) + "\n")
    return whl


def project(folder: Path, layout: str = "src", dep: str = "gkdep>=1.0") -> Path:
    """The tally project checkout: src/tally (layout "src") or tally/ at the root ("flat")."""
    base = folder / "src" if layout == "src" else folder
    _w(folder / "gk_backend.py", BACKEND.replace('"gkdep>=1.0"', repr(dep)))
    _w(folder / "pyproject.toml", PYPROJECT.replace('"gkdep>=1.0"', repr(dep)))
    _w(base / "tally" / "__init__.py", INIT)
    _w(base / "tally" / "formats.py", FORMATS)
    return folder


def plain_folder(folder: Path, gkdep_inline: bool = True) -> Path:
    """The same package as a plain folder (no packaging metadata), dependency vendored."""
    _w(folder / "tally" / "__init__.py", INIT.replace("import gkdep", "from tally import _dep as gkdep")
       .replace('return version("tally")', 'return "0.1"').replace(
           'for ep in entry_points(group="tally.formats"):', 'from tally.formats import Bars\n'
           '    if name == "bars":\n        return Bars\n    for ep in entry_points(group="x"):'))
    _w(folder / "tally" / "_dep.py", "def count(text, ch):\n    return text.count(ch)\n")
    _w(folder / "tally" / "formats.py", FORMATS)
    return folder


def task(folder: Path, pytest_args: list[str] | None = None) -> Path:
    """An oracle task for `tally` with three node ids in one file."""
    _w(folder / "oracle" / "test_atomic.py", TESTS)
    _w(folder / "oracle" / "requirements.txt", "pytest\n")
    (folder / "kept_nodeids.txt").write_text("\n".join(NODE_IDS) + "\n", "utf-8")
    oracle: dict = {"test_files": ["oracle/test_atomic.py"], "count": 3}
    if pytest_args is not None:
        oracle["pytest_args"] = pytest_args
    data = {"instance_id": folder.name, "status": "SELECTED", "repo": "example/tally",
            "package": "tally", "oracle": oracle,
            "taxonomy": {n: "atomic" for n in NODE_IDS}}
    (folder / "task.json").write_text(json.dumps(data, indent=2), "utf-8")
    return folder
