"""The two figure kinds issue 27 found missed, in variants, with clean twins.

usage: python benchmarks/figqa/missed_kinds27.py [--out benchmarks/figqa/missed_kinds27_results.json]

1. a suptitle overprinting an axes title (fig.suptitle(y=...) pulled down, or a
   subplots_adjust(top=...) that lifts the axes into it);
2. text on a fill_between band in the data area (a confidence band, the text
   inside the band, translucent or opaque, with and without the mean line).

Each case is labelled by construction (`collision` or `clean`: the same figure with
the text moved clear), and the summary gives precision and recall over the cases.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src"))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from gavelkit.award.figures import figqa  # noqa: E402


def _suptitle(sup_y: float, top: float, title: str, size: float) -> Callable[[], Any]:
    def make() -> Any:
        fig, axs = plt.subplots(1, 2, figsize=(7, 3.2))
        for a in axs:
            a.plot(np.arange(10), np.arange(10) ** 1.5)
            a.set_title(title)
        fig.suptitle("Overall comparison of the two scenarios", y=sup_y, fontsize=size)
        fig.subplots_adjust(top=top)
        return fig
    return make


def _band(alpha: float, text_y: float, with_mean: bool, width: float) -> Callable[[], Any]:
    def make() -> Any:
        fig, ax = plt.subplots(figsize=(5, 3.2))
        x = np.linspace(0, 10, 200)
        m = np.sin(x) * 2 + x
        ax.fill_between(x, m - width, m + width, alpha=alpha, color="tab:blue",
                        label="95% CI")
        if with_mean:
            ax.plot(x, m, color="tab:blue", label="mean")
        ax.text(5.0, text_y, "95% confidence band", ha="center", va="center")
        ax.set_ylim(-4, 16)
        return fig
    return make


def cases() -> list[tuple[str, str, Callable[[], Any]]]:
    out: list[tuple[str, str, Callable[[], Any]]] = []
    for size in (12, 16):
        for title in ("Scenario A", "Scenario B: demand"):
            out.append((f"suptitle y=0.93 over titles ({size} pt, {title!r})", "collision",
                        _suptitle(0.93, 0.88, title, size)))
            out.append((f"suptitle top=0.98 axes lifted into it ({size} pt, {title!r})",
                        "collision", _suptitle(0.98, 0.97, title, size)))
            out.append((f"suptitle clear (y=0.99, top=0.78; {size} pt, {title!r})", "clean",
                        _suptitle(0.99, 0.78, title, size)))
    for alpha in (0.2, 0.35, 1.0):
        for with_mean in (False, True):
            for width in (1.0, 2.5):
                name = f"alpha={alpha} mean={with_mean} half-width={width}"
                # the text centre on the band (x=5: m = 2 sin 5 + 5 = 3.08)
                out.append((f"text on band, {name}", "collision",
                            _band(alpha, 3.08 + (0.0 if not with_mean else width * 0.6),
                                  with_mean, width)))
                out.append((f"text clear of band, {name}", "clean",
                            _band(alpha, 14.5, with_mean, width)))
    return out


def run() -> dict[str, Any]:
    rows, tally = [], {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    for name, label, make in cases():
        fig = make()
        found = figqa.find_collisions(fig)
        plt.close(fig)
        kinds = sorted({c.kind for c in found})
        hit = bool(found)
        key = ("tp" if hit else "fn") if label == "collision" else ("fp" if hit else "tn")
        tally[key] += 1
        rows.append({"case": name, "label": label, "reported": kinds, "verdict": key})
    tp, fp, fn = tally["tp"], tally["fp"], tally["fn"]
    return {"matplotlib": matplotlib.__version__, "cases": len(rows), **tally,
            "precision": round(tp / (tp + fp), 3) if tp + fp else None,
            "recall": round(tp / (tp + fn), 3) if tp + fn else None, "detail": rows}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "missed_kinds27_results.json"))
    a = ap.parse_args()
    res = run()
    with open(a.out, "w", encoding="utf-8") as fh:
        json.dump(res, fh, indent=1)
        fh.write("\n")
    print(json.dumps({k: v for k, v in res.items() if k != "detail"}, indent=1))
    for r in res["detail"]:
        if r["verdict"] in ("fp", "fn"):
            print(r["verdict"], r["case"], r["reported"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
