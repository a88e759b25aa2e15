"""Does the static tamper scan flag honest libraries? Runs it on real, installed releases.

    PYTHONPATH=src python3 benchmarks/redteam/scan_libraries.py [--envs DIR] [--label L]
        -> benchmarks/redteam/scan-libraries-<label>.json and .md

The libraries are the ones the benchmarks already installed into gavel's environment
cache (`~/.cache/gavelkit/envs`, or --envs): the references of benchmarks/realtasks and
the packages they depend on, plus the example task's reference (semver). Each library's
package folder is scanned as a candidate solution would be (`tamperscan.scan(root,
package)`): the goal is zero hits. The results name each distribution and version; no
library code is copied.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

# the real task references (benchmarks/realtasks) and the example's, then popular
# PyPI libraries (by download rank), as import names
REFERENCES = ["anyio", "attr", "cookiecutter", "dateparser", "diskcache", "dynaconf",
              "fsspec", "griffe", "h2", "semver"]
POPULAR = ["requests", "urllib3", "idna", "certifi", "charset_normalizer", "six",
           "dateutil", "yaml", "packaging", "pygments", "click", "jinja2", "markupsafe",
           "pydantic", "rich", "typing_extensions", "platformdirs", "filelock", "tomlkit",
           "pyparsing", "attrs", "jsonschema", "werkzeug", "flask", "itsdangerous",
           "sqlalchemy", "networkx", "tornado", "structlog", "trio", "httpx", "httpcore",
           "h11", "cryptography", "markdown", "babel", "pytz", "tzlocal", "regex",
           "virtualenv", "tox", "celery", "kombu", "dulwich", "pluggy", "iniconfig",
           "coverage", "mkdocs", "prompt_toolkit", "cattrs", "marshmallow", "arrow",
           "sniffio", "wcwidth", "multidict", "yarl", "aiohttp", "psutil", "greenlet",
           "transitions", "cleo", "invoke", "boltons", "parso", "traitlets", "webob",
           "jsonpickle", "sqlparse", "whoosh", "cerberus", "deal", "lark", "schematics"]


def wanted_versions() -> dict[str, str]:
    """The exact releases benchmarks/realtasks scores as references (import name: version)."""
    sys.path.insert(0, str(ROOT / "benchmarks" / "realtasks"))
    try:
        from run import RELEASES
    except ImportError:
        return {}
    out = {}
    for spec, _ in RELEASES.values():
        name, _, ver = spec.partition("==")
        out[{"attrs": "attr"}.get(name, name).replace("-", "_")] = ver
    return out


def find_packages(envs: Path) -> dict[str, tuple[Path, str]]:
    """{import name: (package folder, 'dist==version')} from every cached environment
    (for a task reference, its exact release when one is installed)."""
    want = wanted_versions()
    out: dict[str, tuple[Path, str]] = {}
    for sp in sorted(envs.glob("*/lib/python3*/site-packages")):
        for info in sorted(sp.glob("*.dist-info")):
            dist, _, ver = info.name[:-len(".dist-info")].partition("-")
            tops = []
            tl = info / "top_level.txt"
            if tl.is_file():
                tops = [t.strip() for t in tl.read_text().splitlines() if t.strip()]
            else:
                rec = info / "RECORD"
                if rec.is_file():
                    tops = sorted({line.split("/", 1)[0] for line in rec.read_text().splitlines()
                                   if "/" in line.split(",", 1)[0]
                                   and not line.startswith(info.name)})
            for t in tops:
                p = sp / t
                exact = want.get(t) == ver
                if (p / "__init__.py").is_file() and (t not in out or (exact and
                                                      not out[t][1].endswith("==" + ver))):
                    out[t] = (p, f"{dist}=={ver}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--envs", type=Path, default=Path.home() / ".cache" / "gavelkit" / "envs")
    ap.add_argument("--label", default="latest")
    a = ap.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    from gavelkit.task.scoring.tamperscan import scan

    have = find_packages(a.envs)
    rows = []
    for group, names in (("reference", REFERENCES), ("popular", POPULAR)):
        for name in names:
            if name not in have or any(r["package"] == name for r in rows):
                continue
            folder, dist = have[name]
            hits = scan_package(scan, folder, name)
            files = sum(1 for _ in folder.rglob("*.py"))
            rows.append({"group": group, "package": name, "distribution": dist,
                         "files": files, "hits": len(hits),
                         "examples": [f"{h.rule} {h.file}:{h.line} {h.text[:100]}"
                                      for h in hits[:5]]})
            print(f"{group:9} {dist:40} {files:5} files  {len(hits)} hit(s)", flush=True)
    refs = [r for r in rows if r["group"] == "reference"]
    pop = [r for r in rows if r["group"] == "popular"]
    doc = {"label": a.label, "libraries": len(rows), "references": len(refs),
           "popular": len(pop), "flagged": [r["distribution"] for r in rows if r["hits"]],
           "rows": rows}
    (HERE / f"scan-libraries-{a.label}.json").write_text(json.dumps(doc, indent=1) + "\n")
    lines = [f"# Static tamper scan on honest libraries ({a.label})", "",
             f"{len(refs)} task references and {len(pop)} popular libraries, "
             f"{sum(r['files'] for r in rows)} files: "
             f"**{len(doc['flagged'])} flagged**.", "",
             "| group | distribution | .py files | hits | first hits |", "|---|---|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['group']} | {r['distribution']} | {r['files']} | {r['hits']} | "
                     + "; ".join(e.replace("|", "\\|") for e in r["examples"][:2]) + " |")
    (HERE / f"scan-libraries-{a.label}.md").write_text("\n".join(lines) + "\n")
    return 0 if not doc["flagged"] else 1


def scan_package(scan, folder: Path, name: str):  # type: ignore[no-untyped-def]
    """The package folder as a candidate's solution: its parent is the import root, and
    only the package itself is scanned."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shutil.copytree(folder, root / name, ignore=shutil.ignore_patterns("__pycache__"),
                        symlinks=True)
        return scan(root, name)


if __name__ == "__main__":
    raise SystemExit(main())
