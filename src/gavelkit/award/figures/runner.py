"""Child side of `gavel award figqa run`: run a plotting script headless and gate its figures.

Runs in its own interpreter (so a crashing or exiting script cannot take the
caller with it) and imports only figqa, matplotlib and the standard library.
Every figure is gated when the script saves it, at ``plt.show()``, and at exit
(figures never shown or saved, or changed after their last gate).  The result
is one JSON file for the parent; the script's own stdout/stderr stay its own.

The gate is the figqa the critic would run: a run's own copy next to the script
(``code/figqa.py``, imported by ``run_all.py``) when there is one, else ours,
loaded under a private name so that it never stands in for the script's import.

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
                            "snapshot": None}
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
    try:
        _ORIG_SAVEFIG(fig, tmp, dpi=fig.dpi, format="png")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    fig.stale = False
    return path


_ORIG_SAVEFIG: Any = None


def _load_gate(script: str) -> tuple[Any, dict[str, Any]]:
    """The run's copy of figqa.py next to the script, else gavelkit's (privately named)."""
    import importlib.util

    def load(name: str, path: str) -> Any:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        try:
            spec.loader.exec_module(mod)
        except BaseException:
            del sys.modules[name]
            raise
        return mod

    info: dict[str, Any] = {}
    copy = os.path.join(os.path.dirname(os.path.abspath(script)), "figqa.py")
    if os.path.isfile(copy):
        info["path"] = copy
        try:
            mod = load("figqa", copy)  # the very module the script's `import figqa` gets
            if callable(getattr(mod, "find_collisions", None)):
                info["source"] = "run copy"
                return mod, info
            info["error"] = "it has no find_collisions()"
        except Exception as exc:
            info["error"] = f"{type(exc).__name__}: {exc}"
    ours = os.path.join(_HERE, "figqa.py")
    info.update({"source": "gavelkit", "gate": ours})
    return load("_gavelkit_figqa", ours), info


def _gate_exception(exc: BaseException) -> bool:
    """The script's own assert_no_overlap (any figqa copy) raised: a failed gate."""
    return isinstance(exc, AssertionError) and (
        type(exc).__name__ == "FigqaError" or hasattr(exc, "collisions"))


def main(argv: list[str]) -> int:
    global _ORIG_SAVEFIG
    opts, script_argv = _parse(argv)
    if not script_argv:
        raise SystemExit("figqa_runner: no script")
    os.environ["MPLBACKEND"] = "Agg"
    # Python put this file's folder first on sys.path: the script must not find our
    # figqa.py there when it does `import figqa`
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    figqa, gate_info = _load_gate(script_argv[0])
    import matplotlib
    matplotlib.use("Agg", force=True)
    import matplotlib.figure as mfigure
    import matplotlib.pyplot as plt

    script = script_argv[0]
    state = _State(script, opts)
    orig_init = mfigure.Figure.__init__
    _ORIG_SAVEFIG = orig_save = mfigure.Figure.savefig

    def init(self: Any, *a: Any, **k: Any) -> None:
        orig_init(self, *a, **k)
        state.creation_line(state.record(self))

    def savefig(self: Any, fname: Any, *a: Any, **k: Any) -> Any:
        rec = state.record(self)
        rec["saved_to"].append(str(fname) if isinstance(fname, str | os.PathLike) else "<stream>")
        _gate(state, figqa, self, "savefig", _tight(k))
        return orig_save(self, fname, *a, **k)

    def show(*a: Any, **k: Any) -> None:
        # an interactive show() returns once its windows are closed: gate, then close,
        # so a script that plots again after show() starts on a fresh figure
        for num in plt.get_fignums():
            _gate(state, figqa, plt.figure(num), "show", None)
        if k.get("block", True) is not False:
            plt.close("all")

    mfigure.Figure.__init__ = init  # type: ignore[method-assign]
    mfigure.Figure.savefig = savefig  # type: ignore[method-assign]
    plt.show = show
    # headless: a script asking for an interactive backend, or pausing for a GUI
    # event loop, keeps running on Agg without waiting
    matplotlib.use = lambda *a, **k: None
    orig_switch = plt.switch_backend
    plt.switch_backend = lambda *a, **k: orig_switch("agg")
    plt.pause = lambda *a, **k: None

    result: dict[str, Any] = {"exit": 0, "exception": None, "figures": [], "figqa": gate_info}
    sys.argv = list(script_argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    import runpy
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        code = exc.code
        result["exit"] = code if isinstance(code, int) else (0 if code is None else 1)
        if code not in (None, 0) and not isinstance(code, int):
            result["exception"] = {"type": "SystemExit", "message": str(code), "line": 0,
                                   "traceback": ""}
    except BaseException as exc:
        tb = traceback.extract_tb(exc.__traceback__)
        line = 0
        for fr in tb:
            if os.path.realpath(fr.filename) == state.script:
                line = fr.lineno or 0
        result["exit"] = 1
        result["exception"] = {
            "type": type(exc).__name__, "message": str(exc), "line": line,
            "traceback": "".join(traceback.format_exception(exc)[-12:]),
            "gate": _gate_exception(exc)}
    finally:
        sys.stdout.flush()
    # figures still alive that were never gated, or changed since
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
    for rec in state.records:
        if rec["gated"]:
            rec.pop("gated", None)
            rec.pop("tight", None)
            result["figures"].append(rec)
    tmp = opts["out"] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(result, fh)
    os.replace(tmp, opts["out"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
