"""Rebuild every table and figure of the paper from outputs/data (exit 1 on a figure collision)."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
RUN = HERE.parent
sys.path.insert(0, str(HERE))
from model import design, fit, forecast  # noqa: E402

try:
    from figqa import assert_no_overlap  # copied next to this file by the coder
except ImportError:  # the gate is optional when regenerating outside the package
    def assert_no_overlap(fig, **_):  # type: ignore[no-untyped-def]
        return None


def load() -> dict[str, np.ndarray]:
    with (RUN / "outputs/data/visitors.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    return {k: np.array([float(r[k]) for r in rows]) for k in rows[0]}


def main() -> int:
    d = load()
    x = design(d["month"], d["mean_temp_c"], d["shock"])
    beta = fit(x, d["visitors"])
    fitted = x @ beta
    future = np.arange(120, 144)
    temp_f = 14 + 9 * np.sin(2 * np.pi * (future - 4) / 12) + 0.02 * future
    pred = forecast(beta, future, temp_f, np.zeros_like(future), d["mean_temp_c"])
    resid = d["visitors"] - fitted
    sigma = float(resid.std(ddof=x.shape[1]))

    tables = RUN / "outputs/tables"
    with (tables / "coefficients.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["term", "estimate"])
        for name, b in zip(["intercept", "trend", "sin12", "cos12", "temp_anomaly", "shock"],
                           beta, strict=True):
            w.writerow([name, f"{b:.2f}"])
    with (tables / "forecast.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["month", "forecast", "lo95", "hi95"])
        for m, p in zip(future, pred, strict=True):
            w.writerow([int(m), round(p), round(p - 1.96 * sigma), round(p + 1.96 * sigma)])

    figs = RUN / "outputs/figures"
    fig, ax = plt.subplots(figsize=(7, 3.6), layout="constrained")
    ax.plot(d["month"], d["visitors"] / 1000, color="0.4", lw=1, label="observed")
    ax.plot(d["month"], fitted / 1000, color="C0", lw=1.5, label="fitted")
    ax.plot(future, pred / 1000, color="C1", lw=1.5, label="forecast")
    ax.fill_between(future, (pred - 1.96 * sigma) / 1000, (pred + 1.96 * sigma) / 1000,
                    color="C1", alpha=0.25, label="95% band")
    ax.set_xlabel("month since Jan 2016")
    ax.set_ylabel("visitors (thousands)")
    ax.set_ylim(0, (pred.max() + 3 * sigma) / 1000 * 1.25)
    ax.legend(loc="upper left", ncols=4, frameon=False)
    assert_no_overlap(fig)
    fig.savefig(figs / "demand_forecast.png", dpi=120)
    plt.close(fig)

    shares = np.linspace(-0.2, 0.2, 9)
    effect = [float(beta[4] * s * 9 / 1000) for s in shares]
    fig, ax = plt.subplots(figsize=(5, 3.4), layout="constrained")
    ax.bar(shares * 100, effect, width=3.5, color="C2")
    ax.axhline(0, color="0.3", lw=0.8)
    ax.set_xlabel("temperature amplitude change (%)")
    ax.set_ylabel("peak-month effect (thousands)")
    assert_no_overlap(fig)
    fig.savefig(figs / "sensitivity.png", dpi=120)
    plt.close(fig)
    print(f"ok: beta={np.round(beta, 1).tolist()} sigma={sigma:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
