"""Intervals for every figure the project prints: Wilson for proportions, normal or bootstrap
for means. Each function returns the estimate, the interval and the sample size."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float
    n: int

    def fmt(self, digits: int = 3, pct: bool = False) -> str:
        if self.n == 0:
            return "n/a (n = 0)"
        k = 100.0 if pct else 1.0
        unit = "%" if pct else ""
        d = max(digits - 2, 1) if pct else digits
        return f"{self.value * k:.{d}f}{unit} [{self.low * k:.{d}f}, {self.high * k:.{d}f}] (n = {self.n:,})"

    def as_dict(self) -> dict:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n}


def wilson(successes: float, n: int, z: float = Z95) -> Estimate:
    """Wilson score interval for a proportion (good near 0 and 1, unlike the normal one)."""
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return Estimate(p, min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)), n)


def mean_ci(x, z: float = Z95) -> Estimate:
    """Mean with a normal-approximation interval (independent observations)."""
    x = np.asarray(x, dtype=float)
    n = x.size
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    m = float(x.mean())
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
    return Estimate(m, m - z * se, m + z * se, n)


def bootstrap_mean(values, groups=None, reps: int = 2000, seed: int = 0, stat=np.mean) -> Estimate:
    """Percentile bootstrap of a statistic; with ``groups`` the resampling unit is the group
    (for example the match, since hands within a match are correlated)."""
    values = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    est = float(stat(values)) if values.size else float("nan")
    if groups is None:
        n = values.size
        if n < 2:
            return Estimate(est, float("nan"), float("nan"), n)
        idx = rng.integers(0, n, size=(reps, n))
        boots = np.array([stat(values[i]) for i in idx])
        return Estimate(est, float(np.quantile(boots, 0.025)), float(np.quantile(boots, 0.975)), n)
    groups = np.asarray(groups)
    uniq, inv = np.unique(groups, return_inverse=True)
    g = uniq.size
    if g < 2:
        return Estimate(est, float("nan"), float("nan"), g)
    sums = np.bincount(inv, weights=values, minlength=g)
    counts = np.bincount(inv, minlength=g).astype(float)
    pick = rng.integers(0, g, size=(reps, g))
    if stat is np.mean:
        boots = sums[pick].sum(axis=1) / counts[pick].sum(axis=1)
    else:  # pragma: no cover - other statistics resample whole groups the slow way
        members = [np.nonzero(inv == i)[0] for i in range(g)]
        boots = np.array([stat(values[np.concatenate([members[j] for j in row])]) for row in pick])
    return Estimate(est, float(np.quantile(boots, 0.025)), float(np.quantile(boots, 0.975)), g)
