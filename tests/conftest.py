"""Test-wide fixtures and the end-of-run check that every rule is tested both ways."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
if str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))
# pytest loads the figqa plugin (a pytest11 entry point of whatever gavelkit is installed,
# e.g. the editable install of another checkout) before this file runs: drop those modules
# so that every test imports this tree's sources.
for _name in [m for m in sys.modules if m == "gavelkit" or m.startswith("gavelkit.")]:
    _file = getattr(sys.modules[_name], "__file__", None) or ""
    if not os.path.realpath(_file).startswith(os.path.realpath(SRC) + os.sep):
        del sys.modules[_name]
os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture
def subprocess_env() -> dict[str, str]:
    """Environment for `python -m gavelkit` subprocesses that sees this tree's sources."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _full_run(config: pytest.Config) -> bool:
    opt = config.option
    if getattr(opt, "keyword", "") or getattr(opt, "markexpr", "") or getattr(opt, "lf", False):
        return False
    args = [a for a in config.args if not a.startswith("-")]
    roots = {str(ROOT), str(ROOT / "tests"), "tests", "."}
    return not args or all(a.rstrip("/") in roots for a in args)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if exitstatus != 0 or not _full_run(session.config):
        return
    from gavelkit.core.rules import catalog
    from rule_allowlist import without_examples

    import gk_testing

    transitional = without_examples()  # rules not yet given examples: old tests still count
    missing = []
    for code in sorted(catalog()):
        near = gk_testing.CLEAN | (gk_testing.CLEAN_EMPTY if code in transitional else set())
        gaps = [w for w, seen in (("firing", gk_testing.FIRED), ("as a near miss", near))
                if code not in seen]
        if gaps:
            missing.append(f"{code}: no test shows it {' or '.join(gaps)}")
    skipped = sorted(c for c in gk_testing.UNRUNNABLE if any(m.startswith(c + ":") for m in missing))
    if skipped:  # a machine without bubblewrap cannot run those examples: said, not failed
        sys.stderr.write("\nrule coverage: not checked here (a program the example needs is "
                         "missing): " + ", ".join(skipped) + "\n")
        missing = [m for m in missing if m.split(":")[0] not in skipped]
    if missing:
        sys.stderr.write(
            "\nrule coverage: every rule needs a test that fires it and a near miss that does "
            "not (input with other findings, or one step from firing; give the rule fires/near "
            "examples, CONTRIBUTING.md 'Adding a rule'):\n  " + "\n  ".join(missing) + "\n")
        session.exitstatus = 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `sandbox` need bubblewrap: a verdict of QUALIFIED rests on a score
    taken in the sandbox, so without one (not installed, namespaces refused, or
    GAVEL_NO_BWRAP set) they are skipped with the reason, never failed. bubblewrap comes
    from Debian and is optional (.ci/run installs it best-effort)."""
    marked = [i for i in items if i.get_closest_marker("sandbox")]
    if not marked:
        return
    from gavelkit.task.scoring.sandbox import bwrap_available

    ok, why = bwrap_available()
    if ok:
        return
    skip = pytest.mark.skip(reason=f"needs bubblewrap: {why}")
    for item in marked:
        item.add_marker(skip)
