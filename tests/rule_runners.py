"""How the tests run a rule example: in this process, as `gavel` would in a fresh one.

`gavelkit.cli.rule_examples.run_case` calls the example's command function in this
process. Commands that would start another interpreter per example get an
in-process stand-in here, registered by their command words:

Identical inputs (most near misses of one fixture are that fixture) run once.

- `award figqa run` runs its child's own code (figures/runner.py `main`) here, with
  every matplotlib and interpreter hook it installs put back afterwards, and turns
  the result into findings with the command's own `result_findings`. Only a
  `--timeout` below the default keeps the child, since only a child can be stopped.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from gavelkit.cli.rule_examples import Command, Outcome, materialize, run_in
from gavelkit.core.rules import Case

DEFAULT_TIMEOUT = 300.0


@contextlib.contextmanager
def _hooks_put_back(folder: str) -> Iterator[None]:
    """What runner.main patches (matplotlib, argv, path, env) and imports, restored."""
    import matplotlib
    import matplotlib.backend_bases as mbb
    import matplotlib.figure as mfigure
    import matplotlib.pyplot as plt

    from gavelkit.award.figures import runner

    # the classes the gate measures with: a FIG-S007 example replaces one of their methods
    classes = {cls: dict(vars(cls)) for cls in runner._sealed_classes()}
    saved = [(mfigure.Figure, "__init__"), (mfigure.Figure, "savefig"), (plt, "show"),
             (mbb.FigureCanvasBase, "print_figure"),
             (plt, "switch_backend"), (plt, "pause"), (matplotlib, "use"),
             (runner, "_ORIG_SAVEFIG")]
    values = [getattr(o, a, None) for o, a in saved]
    argv, path, env = list(sys.argv), list(sys.path), os.environ.get("MPLBACKEND")
    modules = set(sys.modules)
    try:
        with matplotlib.rc_context():
            yield
    finally:
        plt.close("all")
        for (obj, attr), value in zip(saved, values, strict=True):
            setattr(obj, attr, value)
        for cls, before in classes.items():
            for name in set(vars(cls)) - set(before):
                delattr(cls, name)
            for name, value in before.items():
                if vars(cls).get(name) is not value:
                    setattr(cls, name, value)
        sys.argv[:], sys.path[:] = argv, path
        if env is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = env
        for name in set(sys.modules) - modules:  # the script's own modules, the gate copy
            file = str(getattr(sys.modules[name], "__file__", "") or "")
            if name.startswith("_gavelkit_figqa") or file.startswith(folder):
                del sys.modules[name]


def _run_script_here(real: Callable[..., Any], script: str, args: list[str], *,
                     annotate: str | None = None, snapshot: str | None = None,
                     timeout: float = DEFAULT_TIMEOUT,
                     tol: float | None = None, min_area: float | None = None,
                     quiet: bool = True) -> tuple[list[Any], dict[str, Any]]:
    if timeout < DEFAULT_TIMEOUT:
        return real(script, args, annotate=annotate, snapshot=snapshot, timeout=timeout, tol=tol,
                    min_area=min_area, quiet=quiet)
    from gavelkit.award.figures import runner
    from gavelkit.cli.award_figures import result_findings
    from gavelkit.core.safeio import check_input

    check_input(Path(script))
    argv = [*(["--annotate", os.path.abspath(annotate)] if annotate else []),
            *(["--snapshot", os.path.abspath(snapshot)] if snapshot else []),
            *(["--tol", repr(tol)] if tol is not None else []),
            *(["--min-area", repr(min_area)] if min_area is not None else [])]
    out, err = io.StringIO(), io.StringIO()
    folder = os.path.dirname(os.path.abspath(script))
    with tempfile.TemporaryDirectory(prefix="gavel-figqa-") as tmp, _hooks_put_back(folder):
        result_path = os.path.join(tmp, "result.json")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            runner.main(["--out", result_path, *argv, "--", script, *args])
        with open(result_path, encoding="utf-8") as fh:
            result = json.load(fh)
    result["stdout"], result["stderr"] = out.getvalue(), err.getvalue()
    return result_findings(result, script), result


def _figqa_run(argv: list[str], prog: str) -> int:
    import functools

    from gavelkit.cli import award_figures

    real = award_figures.run_script
    award_figures.run_script = functools.partial(_run_script_here, real)
    try:
        return award_figures.run_main(argv, prog)
    finally:
        award_figures.run_script = real


IN_PROCESS: dict[tuple[str, ...], Command] = {("award", "figqa", "run"): _figqa_run}


_SEEN: dict[tuple[str, ...], Outcome] = {}


def run(case: Case, where: Path) -> Outcome:
    """Many near misses are the same input (the firing case's base): such a case runs once
    per session, keyed by everything it is made of (its listing: command, env, files)."""
    from dataclasses import replace

    lines = materialize(case, where)
    key = tuple(lines)
    if key in _SEEN:
        return replace(_SEEN[key], listing=lines)
    command = next((c for words, c in IN_PROCESS.items() if case.run[: len(words)] == words),
                   None)
    out = _SEEN[key] = run_in(case, where, lines, command)
    return out
