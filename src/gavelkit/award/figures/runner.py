"""Child side of `gavel award figqa run`: run a plotting script headless and gate its figures.

Runs in its own interpreter (so a crashing or exiting script cannot take the
caller with it) and imports only figqa, matplotlib and the standard library.
Every figure is gated when the script saves it (savefig, or the canvas's
print_figure called directly), at ``plt.show()``, and at exit (figures never shown
or saved, or changed after their last gate).  The result is one JSON file for the
parent; the script's own stdout/stderr stay its own.

The gate is always the figqa this runner ships with, loaded under a private name
before the script runs: the critic's re-run must run the gate the skill ships, never
a copy the coder could have replaced. What the script itself imported as figqa (the
run's code/figqa.py, or one from elsewhere on sys.path, or one made in memory) is
reported, so the parent can compare it with the released versions. Hooks and the
gate module are checked for tampering at every gate and at exit; a script that
replaced them is reported as such (a defeated gate, never a pass).

usage: python figqa_runner.py --out RESULT.json [--annotate DIR] [--tol PT]
       [--min-area PT2] -- SCRIPT [ARGS...]
"""

from __future__ import annotations

import json
import os
import sys
import traceback
import weakref
from typing import Any

_HERE = os.path.dirname(os.path.abspath(__file__))


def _parse(argv: list[str]) -> tuple[dict[str, Any], list[str]]:
    opts: dict[str, Any] = {"out": None, "annotate": None, "tol": None, "min_area": None,
                            "snapshot": None, "parent": None}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return opts, argv[i + 1:]
        key = a[2:].replace("-", "_")
        if key not in opts or i + 1 >= len(argv):
            raise SystemExit(f"figqa_runner: bad argument {a!r}")
        opts[key] = argv[i + 1]
        i += 2
    raise SystemExit("figqa_runner: missing -- SCRIPT")


class _State:
    def __init__(self, script: str, opts: dict[str, Any]):
        self.script = os.path.realpath(script)
        self.opts = opts
        self.records: list[dict[str, Any]] = []
        self.by_id: dict[int, dict[str, Any]] = {}
        self.refs: dict[int, Any] = {}

    def record(self, fig: Any) -> dict[str, Any]:
        rec = self.by_id.get(id(fig))
        if rec is not None and self.refs.get(id(fig)) is not None and self.refs[id(fig)]() is fig:
            return rec
        rec = {"index": len(self.records) + 1, "line": 0, "events": [], "saved_to": [],
               "collisions": [], "error": None, "gated": False, "annotated": None}
        self.records.append(rec)
        self.by_id[id(fig)] = rec
        self.refs[id(fig)] = weakref.ref(fig)
        return rec

    def creation_line(self, rec: dict[str, Any]) -> None:
        f = sys._getframe(2)
        while f is not None:
            if os.path.realpath(f.f_code.co_filename) == self.script:
                rec["line"] = f.f_lineno
                return
            f = f.f_back


def _tight(kwargs: dict[str, Any]) -> bool | None:
    if "bbox_inches" in kwargs:
        return str(kwargs["bbox_inches"]) == "tight"
    return None


def _gate(state: _State, figqa: Any, fig: Any, event: str, tight: bool | None) -> None:
    rec = state.record(fig)
    if event in ("savefig", "print_figure"):
        rec["save_tight"] = tight
    elif tight is None and rec["saved_to"]:
        # shown or alive at exit after a save: what the paper gets is the file, cut as
        # the script's own save cut it (bbox_inches="tight" or not)
        tight = rec.get("save_tight")
    if rec["gated"] and not fig.stale and rec.get("tight") == tight:
        return
    rec["events"].append(event)
    kw: dict[str, Any] = {"tight": tight}
    if state.opts["tol"] is not None:
        kw["tol"] = float(state.opts["tol"])
    if state.opts["min_area"] is not None:
        kw["min_area"] = float(state.opts["min_area"])
    try:
        found = figqa.find_collisions(fig, **kw)
    except Exception as exc:
        rec["error"] = f"{type(exc).__name__}: {exc}"
        rec["gated"] = True
        return
    rec["gated"], rec["tight"] = True, tight
    fig.stale = False  # measuring touched tick caches; the drawing itself is current
    seen = {(c["kind"], json.dumps(c["a"]), json.dumps(c["b"])) for c in rec["collisions"]}
    for c in found:
        d = c.to_dict()
        key = (d["kind"], json.dumps(d["a"]), json.dumps(d["b"]))
        if key not in seen:
            seen.add(key)
            rec["collisions"].append(d)
    if state.opts["snapshot"]:
        try:
            rec["snapshot"] = _save(fig, state.opts["snapshot"], state, rec, "")
        except Exception as exc:
            rec["snapshot_error"] = f"{type(exc).__name__}: {exc}"
    if found and state.opts["annotate"]:
        try:
            rec["annotated"] = _annotate(fig, found, state, rec)
        except Exception as exc:
            rec["annotate_error"] = f"{type(exc).__name__}: {exc}"


def _annotate(fig: Any, found: list[Any], state: _State, rec: dict[str, Any]) -> str:
    """Save the figure with every colliding region outlined and numbered."""
    from matplotlib.patches import Rectangle
    from matplotlib.transforms import IdentityTransform

    added = []
    for n, c in enumerate(found, 1):
        if c.a_box is not None:  # the whole label, dashed, so the reader finds it
            bx0, by0, bx1, by1 = c.a_box
            ra = Rectangle((bx0, by0), bx1 - bx0, by1 - by0, transform=IdentityTransform(),
                           fill=False, edgecolor="orange", linewidth=1.0, linestyle="--",
                           zorder=9_999)
            ra.set_in_layout(False)
            fig.add_artist(ra)
            added.append(ra)
        x0, y0, x1, y1 = c.where
        pad = 2.0
        r = Rectangle((x0 - pad, y0 - pad), x1 - x0 + 2 * pad, y1 - y0 + 2 * pad,
                      transform=IdentityTransform(), fill=False, edgecolor="red",
                      linewidth=1.5, zorder=10_000)
        t = fig.text(x1 + pad, y1 + pad, str(n), transform=IdentityTransform(), color="white",
                     fontsize=7, zorder=10_001,
                     bbox={"boxstyle": "round,pad=0.15", "facecolor": "red", "edgecolor": "none"})
        for a in (r, t):
            a.set_in_layout(False)
        fig.add_artist(r)
        added += [r, t]
    try:
        return _save(fig, state.opts["annotate"], state, rec, "")
    finally:
        for a in added:
            a.remove()
        fig.stale = False


def _save(fig: Any, out_dir: str, state: _State, rec: dict[str, Any], suffix: str) -> str:
    """Write the figure as drawn on its canvas (figure dpi, no tight box), atomically."""
    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.splitext(os.path.basename(state.script))[0]
    path = os.path.join(out_dir, f"{stem}-fig{rec['index']}{suffix}.png")
    tmp = path + ".tmp.png"
    _OWN_SAVES.append(fig)  # our own writes are not the script's: not gated or recorded
    try:
        _ORIG_SAVEFIG(fig, tmp, dpi=fig.dpi, format="png")
        os.replace(tmp, path)
    finally:
        _OWN_SAVES.pop()
        if os.path.exists(tmp):
            os.remove(tmp)
    fig.stale = False
    return path


_ORIG_SAVEFIG: Any = None
_OWN_SAVES: list[Any] = []


def _load_gate() -> Any:
    """gavelkit's own figqa (the gate the skill ships), under a private name so that it
    never stands in for, nor is found by, the script's `import figqa`."""
    import importlib.util

    ours = os.path.join(_HERE, "figqa.py")
    spec = importlib.util.spec_from_file_location("_gavelkit_figqa", ours)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["_gavelkit_figqa"] = mod
    spec.loader.exec_module(mod)
    return mod


def _imported_figqa(gate: Any, before: dict[str, Any]) -> list[dict[str, Any]]:
    """Every module the script loaded that it could have used as its figure gate: named
    figqa (or *.figqa), loaded from a file named figqa.py, or exposing assert_no_overlap.
    Modules loaded before the script ran are the runner's own."""
    out = []
    for name, mod in list(sys.modules.items()):
        if mod is None or mod is gate or before.get(name) is mod:
            continue
        file = getattr(mod, "__file__", None)
        try:  # vars(): a module's own __getattr__ must not run (it may import things)
            has_gate = callable(vars(mod).get("assert_no_overlap"))
        except TypeError:
            has_gate = False
        looks = (name == "figqa" or name.endswith(".figqa") or has_gate
                 or (isinstance(file, str) and os.path.basename(file) == "figqa.py"))
        if looks:
            out.append({"name": name, "file": os.path.realpath(file) if isinstance(file, str)
                        else None})
    return out


class _Seal:
    """What the gate relies on, as it was before the script ran: the hooks, the canvas
    class's print_figure, and every function of the gate module (with its code)."""

    def __init__(self, gate: Any, hooks: dict[str, tuple[Any, str, Any]]) -> None:
        self.gate = gate
        self.hooks = hooks  # name -> (owner object, attribute, our function)
        self.funcs = {k: (v, getattr(v, "__code__", None)) for k, v in vars(gate).items()
                      if callable(v)}

    def broken(self) -> list[str]:
        out = [f"{name} was replaced" for name, (owner, attr, fn) in self.hooks.items()
               if getattr(owner, attr, None) is not fn]
        if sys.modules.get("_gavelkit_figqa") is not self.gate:
            out.append("the gate module was swapped in sys.modules")
        for k, (fn, code) in self.funcs.items():
            now = vars(self.gate).get(k)
            if now is not fn or getattr(now, "__code__", None) is not code:
                out.append(f"the gate's {k} was replaced")
        return out


def _gate_exception(exc: BaseException) -> bool:
    """The script's own assert_no_overlap (any figqa copy) raised: a failed gate."""
    return isinstance(exc, AssertionError) and (
        type(exc).__name__ == "FigqaError" or hasattr(exc, "collisions"))


def _sealed_classes() -> list[Any]:
    """The matplotlib classes whose methods the gate measures with."""
    import matplotlib.artist
    import matplotlib.axes
    import matplotlib.backend_bases
    import matplotlib.backends.backend_agg
    import matplotlib.collections
    import matplotlib.figure
    import matplotlib.legend
    import matplotlib.lines
    import matplotlib.patches
    import matplotlib.path
    import matplotlib.text
    import matplotlib.transforms

    return [matplotlib.artist.Artist, matplotlib.text.Text, matplotlib.text.Annotation,
            matplotlib.figure.FigureBase, matplotlib.figure.Figure, matplotlib.axes.Axes,
            matplotlib.lines.Line2D, matplotlib.collections.Collection,
            matplotlib.patches.Patch, matplotlib.legend.Legend,
            matplotlib.backend_bases.FigureCanvasBase,
            matplotlib.backends.backend_agg.FigureCanvasAgg,
            matplotlib.transforms.BboxBase, matplotlib.transforms.Transform,
            matplotlib.path.Path]


class _Guard:
    """Notes, at every gate and at exit, anything the script replaced that the gate needs:
    our hooks, the gate module, or a method of the matplotlib classes it measures with."""

    def __init__(self, seal: _Seal) -> None:
        self.seal = seal
        self.classes = {c: {k: v for k, v in vars(c).items() if callable(v)}
                        for c in _sealed_classes()}
        self.found: list[str] = []

    def check(self) -> None:
        for what in self.seal.broken() + self._methods():
            if what not in self.found:
                self.found.append(what)

    def _methods(self) -> list[str]:
        out = []
        for cls, funcs in self.classes.items():
            now = vars(cls)
            out += [f"{cls.__module__}.{cls.__name__}.{k} was replaced" for k, fn in funcs.items()
                    if now.get(k) is not fn]
        return out


def _hooks(state: _State, figqa: Any, guard_box: list[Any]) -> dict[str, tuple[Any, str, Any]]:
    """Install the gates at savefig, print_figure, plt.show and figure creation."""
    import matplotlib
    import matplotlib.backend_bases as mbb
    import matplotlib.figure as mfigure
    import matplotlib.pyplot as plt

    global _ORIG_SAVEFIG
    orig_init = mfigure.Figure.__init__
    _ORIG_SAVEFIG = orig_save = mfigure.Figure.savefig
    orig_print = mbb.FigureCanvasBase.print_figure
    saving: list[Any] = []

    def gate(fig: Any, event: str, tight: bool | None) -> None:
        if guard_box:
            guard_box[0].check()
        _gate(state, figqa, fig, event, tight)

    def init(self: Any, *a: Any, **k: Any) -> None:
        orig_init(self, *a, **k)
        state.creation_line(state.record(self))

    def savefig(self: Any, fname: Any, *a: Any, **k: Any) -> Any:
        rec = state.record(self)
        before = rec.get("save_tight")
        rec["saved_to"].append(str(fname) if isinstance(fname, str | os.PathLike) else "<stream>")
        gate(self, "savefig", _tight(k))
        saving.append(self)
        try:
            return orig_save(self, fname, *a, **k)
        except BaseException:
            rec["save_tight"] = before  # nothing was written: the save cut nothing
            raise
        finally:
            saving.pop()

    def print_figure(self: Any, filename: Any, *a: Any, **k: Any) -> Any:
        fig = self.figure
        if fig in _OWN_SAVES:
            return orig_print(self, filename, *a, **k)
        if not saving or saving[-1] is not fig:  # written without savefig: gate it too
            rec = state.record(fig)
            rec["saved_to"].append(str(filename) if isinstance(filename, str | os.PathLike)
                                   else "<stream>")
            gate(fig, "print_figure", _tight(k))
        return orig_print(self, filename, *a, **k)

    def show(*a: Any, **k: Any) -> None:
        # an interactive show() returns once its windows are closed: gate, then close,
        # so a script that plots again after show() starts on a fresh figure
        for num in plt.get_fignums():
            gate(plt.figure(num), "show", None)
        if k.get("block", True) is not False:
            plt.close("all")

    mfigure.Figure.__init__ = init  # type: ignore[method-assign]
    mfigure.Figure.savefig = savefig  # type: ignore[method-assign]
    mbb.FigureCanvasBase.print_figure = print_figure  # type: ignore[method-assign]
    plt.show = show
    # headless: a script asking for an interactive backend, or pausing for a GUI
    # event loop, keeps running on Agg without waiting
    matplotlib.use = lambda *a, **k: None
    orig_switch = plt.switch_backend
    plt.switch_backend = lambda *a, **k: orig_switch("agg")
    plt.pause = lambda *a, **k: None
    return {"Figure.__init__": (mfigure.Figure, "__init__", init),
            "Figure.savefig": (mfigure.Figure, "savefig", savefig),
            "FigureCanvasBase.print_figure": (mbb.FigureCanvasBase, "print_figure", print_figure),
            "pyplot.show": (plt, "show", show)}


def _run(script: str, state: _State) -> dict[str, Any]:
    """Run the script as __main__; how it ended."""
    import runpy

    result: dict[str, Any] = {"exit": 0, "exception": None}
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        code = exc.code
        result["exit"] = code if isinstance(code, int) else (0 if code is None else 1)
        if code not in (None, 0) and not isinstance(code, int):
            result["exception"] = {"type": "SystemExit", "message": str(code), "line": 0,
                                   "traceback": ""}
    except BaseException as exc:
        line = 0
        for fr in traceback.extract_tb(exc.__traceback__):
            if os.path.realpath(fr.filename) == state.script:
                line = fr.lineno or 0
        result["exit"] = 1
        result["exception"] = {
            "type": type(exc).__name__, "message": str(exc), "line": line,
            "traceback": "".join(traceback.format_exception(exc)[-12:]),
            "gate": _gate_exception(exc)}
    finally:
        sys.stdout.flush()
    return result


def _gate_the_rest(state: _State, figqa: Any) -> None:
    """Figures still alive that were never gated, or changed since."""
    import matplotlib.pyplot as plt

    for fid, ref in list(state.refs.items()):
        fig = ref()
        if fig is None:
            continue
        rec = state.by_id[fid]
        if rec["gated"] and not fig.stale:
            continue
        num = getattr(fig, "number", None)
        if not rec["gated"] and num is not None and num not in plt.get_fignums():
            continue  # closed with plt.close() before anyone saved or showed it
        _gate(state, figqa, fig, "exit", None)


def _end_group(*_: Any) -> None:
    """Kill this runner's whole process group (the script and whatever it started): the
    runner leads its own session, so the parent's death reaches none of them by itself."""
    import signal

    os.killpg(os.getpgrp(), signal.SIGKILL)


def _die_with_parent(parent: int) -> None:
    """End with the `gavel` that started us, even when it was killed (SIGKILL leaves it
    no chance to clean up). On Linux the kernel sends SIGTERM when the parent dies
    (PR_SET_PDEATHSIG); everywhere a watchdog thread polls the parent pid, which also
    covers a script that replaced the SIGTERM handler."""
    import signal
    import threading
    import time

    signal.signal(signal.SIGTERM, _end_group)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        _end_group()

    if os.getppid() != parent:  # died before we got here
        _end_group()
    threading.Thread(target=watch, name="figqa-parent-watchdog", daemon=True).start()


def main(argv: list[str]) -> int:
    opts, script_argv = _parse(argv)
    if not script_argv:
        raise SystemExit("figqa_runner: no script")
    if opts["parent"]:
        _die_with_parent(int(opts["parent"]))
    os.environ["MPLBACKEND"] = "Agg"
    # Python put this file's folder first on sys.path: the script must not find our
    # figqa.py there when it does `import figqa`
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    figqa = _load_gate()
    import matplotlib
    matplotlib.use("Agg", force=True)

    script = script_argv[0]
    state = _State(script, opts)
    guard_box: list[Any] = []
    hooks = _hooks(state, figqa, guard_box)
    guard = _Guard(_Seal(figqa, hooks))
    guard_box.append(guard)
    sys.argv = list(script_argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    before = dict(sys.modules)
    result = _run(script, state)
    guard.check()
    _gate_the_rest(state, figqa)
    guard.check()
    result["figures"] = []
    for rec in state.records:
        if rec["gated"]:
            for key in ("gated", "tight", "save_tight"):
                rec.pop(key, None)
            result["figures"].append(rec)
    result["figqa"] = {"source": "gavelkit", "gate": os.path.join(_HERE, "figqa.py"),
                       "imported": _imported_figqa(figqa, before), "tampered": guard.found}
    tmp = opts["out"] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(result, fh)
    os.replace(tmp, opts["out"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
