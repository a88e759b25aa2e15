"""Seasonal trend model with a climate-shock term for monthly visitor counts."""

from __future__ import annotations

import numpy as np


def design(months: np.ndarray, temp: np.ndarray, shock: np.ndarray) -> np.ndarray:
    """Columns: intercept, trend, annual sine/cosine, temperature anomaly, shock dummy."""
    t = months.astype(float)
    anomaly = temp - temp.mean()
    return np.column_stack([np.ones_like(t), t, np.sin(2 * np.pi * t / 12),
                            np.cos(2 * np.pi * t / 12), anomaly, shock.astype(float)])


def fit(x: np.ndarray, y: np.ndarray, ridge: float = 1e-6) -> np.ndarray:
    """Ridge-regularised least squares (ridge only guards against a singular design)."""
    return np.linalg.solve(x.T @ x + ridge * np.eye(x.shape[1]), x.T @ y)


def forecast(beta: np.ndarray, months: np.ndarray, temp: np.ndarray, shock: np.ndarray,
             temp_ref: np.ndarray) -> np.ndarray:
    t = months.astype(float)
    anomaly = temp - temp_ref.mean()
    x = np.column_stack([np.ones_like(t), t, np.sin(2 * np.pi * t / 12),
                         np.cos(2 * np.pi * t / 12), anomaly, shock.astype(float)])
    return x @ beta
