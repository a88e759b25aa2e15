"""pytest plugin: gate every matplotlib figure a project's tests make.

Installed with gavelkit (entry point ``pytest11``) but dormant until asked::

    pytest --figqa                       # or: [pytest] figqa = true  in the ini file
    pytest -p gavelkit.award.figures.pytest_plugin --figqa    # when entry points are disabled

While a test runs, every figure it creates or saves is gated (at ``savefig`` and
when the test body ends); any collision fails that test with the readable list
of ``figqa.assert_no_overlap``.  Per test::

    @pytest.mark.figqa(skip=True)        # do not gate this test's figures
    @pytest.mark.figqa(tol=2.0)          # tolerances passed to find_collisions

The ``figqa_gate`` fixture gates one figure explicitly, plugin on or off:
``figqa_gate(fig)``.
"""

from __future__ import annotations

import weakref
from typing import Any

import pytest


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("figqa", "figure overlap gate (gavelkit)")
    group.addoption("--figqa", action="store_true", default=None,
                    help="fail tests whose matplotlib figures have overlaps or clipped text")
    group.addoption("--no-figqa", action="store_false", dest="figqa",
                    help="turn the figure gate off even if the ini file turns it on")
    parser.addini("figqa", "gate every figure the tests make (true/false)", type="bool",
                  default=False)


def pytest_configure(config: Any) -> None:
    config.addinivalue_line("markers", "figqa(skip=False, **tolerances): figure gate options")
    on = config.getoption("figqa")
    if on is None:
        on = config.getini("figqa")
    if on:
        config.pluginmanager.register(_Gate(), "gavelkit-figqa-gate")


class _Tracker:
    """Patches Figure while one test runs; remembers what to gate."""

    def __init__(self, tolerances: dict[str, Any]):
        self.tolerances = tolerances
        self.figs: list[Any] = []
        self.found: dict[int, list[Any]] = {}
        self.gated: set[int] = set()

    def start(self) -> None:
        import matplotlib.figure as mfigure

        self.mod = mfigure
        self.orig_init = mfigure.Figure.__init__
        self.orig_save = mfigure.Figure.savefig
        tracker = self

        def init(fig: Any, *a: Any, **k: Any) -> None:
            tracker.orig_init(fig, *a, **k)
            tracker.figs.append(weakref.ref(fig))

        def savefig(fig: Any, fname: Any, *a: Any, **k: Any) -> Any:
            tight = str(k["bbox_inches"]) == "tight" if "bbox_inches" in k else None
            tracker.gate(fig, tight)
            return tracker.orig_save(fig, fname, *a, **k)

        mfigure.Figure.__init__ = init  # type: ignore[method-assign]
        mfigure.Figure.savefig = savefig  # type: ignore[method-assign]

    def stop(self) -> None:
        self.mod.Figure.__init__ = self.orig_init  # type: ignore[method-assign]
        self.mod.Figure.savefig = self.orig_save  # type: ignore[method-assign]

    def gate(self, fig: Any, tight: bool | None = None) -> None:
        from gavelkit.award.figures import figqa

        if not any(r() is fig for r in self.figs):
            self.figs.append(weakref.ref(fig))
        found = figqa.find_collisions(fig, tight=tight, **self.tolerances)
        self.found[id(fig)] = found
        self.gated.add(id(fig))
        fig.stale = False

    def finish(self) -> list[str]:
        for ref in self.figs:
            fig = ref()
            if fig is not None and (id(fig) not in self.gated or fig.stale):
                self.gate(fig)
        lines = []
        for n, ref in enumerate(self.figs, 1):
            fig = ref()
            hits = self.found.get(id(fig), []) if fig is not None else []
            lines += [f"  - figure {n}: {c}" for c in hits]
        return lines


class _Gate:
    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: Any) -> Any:
        mark = item.get_closest_marker("figqa")
        kw = dict(mark.kwargs) if mark else {}
        if kw.pop("skip", False):
            return (yield)
        tracker = _Tracker(kw)
        tracker.start()
        try:
            result = yield
        finally:
            tracker.stop()
        lines = tracker.finish()
        if lines:
            from gavelkit.award.figures.figqa import FigqaError

            raise FigqaError(f"figqa: {len(lines)} figure collision(s) detected:\n"
                             + "\n".join(lines), [])
        return result


@pytest.fixture
def figqa_gate() -> Any:
    """Call with a figure (and tolerances) to assert it has no collisions."""
    from gavelkit.award.figures.figqa import assert_no_overlap

    return assert_no_overlap
