"""L2 logistic regression by Newton's method with each group and each class of equal total weight: the fit behind the
reader's "answerable" (bench/reader_fit.py) and the claim check's verdict (bench/verdict_fit.py)."""

from __future__ import annotations

import numpy as np


def fit(X: np.ndarray, y: np.ndarray, groups: np.ndarray, *, l2: float, steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(beta on standardised features with the intercept last, the features' mean, their scale)."""
    weight = np.zeros(len(y))
    for k in np.unique(groups):
        for label in (0, 1):
            rows = (groups == k) & (y == label)
            weight[rows] = 1.0 / max(1, rows.sum())
    weight /= weight.sum()
    mean, scale = X.mean(0), X.std(0)
    scale[scale < 1e-9] = 1.0
    Z = np.hstack([(X - mean) / scale, np.ones((len(X), 1))])
    beta = np.zeros(Z.shape[1])
    for _ in range(steps):
        p = probability(Z, beta)
        grad = Z.T @ (weight * (p - y)) + 2 * l2 * np.r_[beta[:-1], 0]
        H = (Z * (weight * p * (1 - p))[:, None]).T @ Z + 2 * l2 * np.eye(len(beta))
        beta -= np.linalg.solve(H, grad)
    return beta, mean, scale


def probability(Z: np.ndarray, beta: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(Z @ beta, -30, 30)))
