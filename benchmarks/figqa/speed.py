"""Speed of find_collisions: 100k scatter points, 20 lines, 50 labels, and growth in points.

usage: python benchmarks/figqa/speed.py [OUT.json]

Times the gate alone (the figure is drawn once before timing, so the number is
the gate's own cost plus its re-draw) and the full call on a never-drawn figure.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time

os.environ.setdefault("MPLBACKEND", "Agg")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "src"))

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from gavelkit.award.figures.figqa import find_collisions


def build(n_points: int, n_lines: int = 20, n_labels: int = 50, seed: int = 0) -> Figure:
    rng = np.random.default_rng(seed)
    fig = Figure(figsize=(8, 6), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.scatter(rng.random(n_points), rng.random(n_points), s=4, alpha=0.3)
    x = np.linspace(0, 1, 500)
    for k in range(n_lines):
        ax.plot(x, 0.5 + 0.4 * np.sin(2 * np.pi * (x + k / n_lines)), lw=1)
    for k in range(n_labels):
        ax.text(rng.random(), rng.random(), f"label {k}", fontsize=8)
    ax.set_title("speed")
    return fig


def timed(n_points: int, repeat: int = 3, drawn: bool = True) -> float:
    times = []
    for _ in range(repeat):
        fig = build(n_points)
        if drawn:
            fig.canvas.draw()
        t0 = time.perf_counter()
        find_collisions(fig)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    out = sys.argv[1] if len(sys.argv) > 1 else None
    timed(1000, 1)  # warm caches (fonts)
    headline = timed(100_000)
    cold = timed(100_000, drawn=False)
    growth = {n: timed(n) for n in (10_000, 50_000, 100_000, 200_000, 400_000)}
    fig = build(100_000)
    n_coll = len(find_collisions(fig))
    res = {
        "machine": f"{platform.machine()} {os.cpu_count()} cpu, Python {platform.python_version()}",
        "figure": "100000 scatter points, 20 lines x 500 points, 50 labels",
        "seconds_gate_after_draw": round(headline, 3),
        "seconds_gate_never_drawn": round(cold, 3),
        "collisions_found": n_coll,
        "growth_seconds_by_points": {str(k): round(v, 3) for k, v in growth.items()},
        "per_100k_points_marginal_s": round((growth[400_000] - growth[100_000]) / 3, 3),
    }
    print(json.dumps(res, indent=2))
    if out:
        with open(out, "w", encoding="utf-8") as fh:
            json.dump(res, fh, indent=2)
            fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
