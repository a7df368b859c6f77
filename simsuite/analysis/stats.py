"""Intervals for every figure the project prints: Wilson for proportions, normal or bootstrap
for means, BCa bootstrap for skewed statistics. Each function returns the estimate, the interval
and the sample size."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
BOOT_CELLS = 4_000_000  # resampled indices drawn at once (reps x clusters), to bound memory


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


def within(e: Estimate, low: float = -math.inf, high: float = math.inf) -> Estimate:
    """``e`` with its interval kept inside the values the figure can take (a normal interval of a
    small sample reaches past them: a share's difference below -100 points, a mean of |x| below 0)."""
    return Estimate(e.value, max(e.low, low), min(e.high, high), e.n) if e.n else e


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


# --- clustered intervals, paired tests, equivalence and multiplicity ------------------------------


def cluster_sums(values, clusters) -> tuple[np.ndarray, np.ndarray]:
    """Per-cluster sums of ``values`` and counts, clusters in sorted order."""
    values = np.asarray(values, dtype=float)
    _, inv = np.unique(np.asarray(clusters), return_inverse=True)
    g = int(inv.max()) + 1 if inv.size else 0
    return np.bincount(inv, weights=values, minlength=g), np.bincount(inv, minlength=g).astype(float)


def _ratio(values, clusters) -> tuple[int, bool, float, float]:
    """(clusters, one observation each?, the pooled mean, its cluster-robust variance): the ratio
    estimator's linearised variance, g/(g-1) corrected."""
    s, c = cluster_sums(values, clusters)
    g = s.size
    if g == 0:
        return 0, True, float("nan"), float("nan")
    m = float(s.sum() / c.sum())
    var = g / (g - 1) * float(((s - m * c) ** 2).sum()) / float(c.sum()) ** 2 if g > 1 else float("nan")
    return g, bool(np.all(c == 1)), m, var


def cluster_mean_ci(values, clusters, z: float = Z95) -> Estimate:
    """Mean over observations with a cluster-robust normal interval; n = clusters. With one
    observation per cluster it is ``mean_ci``."""
    values = np.asarray(values, dtype=float)
    g, single, m, var = _ratio(values, clusters)
    if single:
        e = mean_ci(values, z)
        return Estimate(e.value, e.low, e.high, g)
    se = math.sqrt(var) if g > 1 else float("nan")
    return Estimate(m, m - z * se, m + z * se, g)


def cluster_share(successes, clusters, reps: int = 2000, seed: int = 0) -> Estimate:
    """A share of observations (0/1) whose independent unit is the cluster (the deal): n =
    clusters. One observation per cluster: Wilson. Otherwise Wilson at the effective sample
    size n_eff = p(1 - p) / v, v the cluster-robust variance of p (Kish's design effect; n_eff =
    clusters where p is 0 or 1), so both tables of a deal are never counted as two units.
    ``reps`` and ``seed`` are accepted for symmetry with the bootstrap helpers (unused)."""
    x = np.asarray(successes, dtype=float)
    g, single, p, v = _ratio(x, clusters)
    if g == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    if single:
        return wilson(float(x.sum()), g)
    n_eff = min(float(x.size), p * (1 - p) / v) if v > 0 else float(g)
    e = wilson(p * max(n_eff, 1.0), max(n_eff, 1.0))
    return Estimate(p, min(p, e.low), max(p, e.high), g)


def bootstrap_match_sums(sums: np.ndarray, reps: int = 2000, seed: int = 0) -> np.ndarray:
    """Resample matches with replacement: ``sums`` holds per-match column sums (matches x k);
    the result holds, for each of ``reps`` resamples, the column sums over the drawn matches.

    Draws the same indices as ``bootstrap_mean(values, groups, reps, seed)`` whenever
    reps x matches fits one block, so ratios of these sums match its means; ``cluster_bootstrap``
    draws its resamples here.
    """
    sums = np.asarray(sums, dtype=float)
    g, k = sums.shape
    rng = np.random.default_rng(seed)
    out = np.empty((reps, k))
    block = max(1, min(reps, BOOT_CELLS // max(g, 1)))
    for start in range(0, reps, block):
        c = min(block, reps - start)
        pick = rng.integers(0, g, size=(c, g))
        weights = np.bincount((pick + (np.arange(c) * g)[:, None]).ravel(), minlength=c * g).reshape(c, g)
        out[start : start + c] = weights @ sums
    return out


def cluster_bootstrap(
    sums, stat, reps: int = 2000, seed: int = 0, method: str = "percentile"
) -> tuple[Estimate, np.ndarray]:
    """Bootstrap over clusters: ``sums`` holds per-cluster column sums (clusters x k), ``stat`` maps
    column totals (shape (..., k)) to the statistic. ``method``: "percentile", or "bca" (bias-corrected
    and accelerated, Efron 1987: for a skewed statistic such as N*; the acceleration from the
    leave-one-cluster-out jackknife, ``bca_bounds``). Returns the estimate (n = clusters) and the
    bootstrap values."""
    if method not in ("percentile", "bca"):
        raise ValueError(f"method {method!r}: one of percentile, bca")
    sums = np.asarray(sums, dtype=float)
    g = sums.shape[0]
    value = float(stat(sums.sum(axis=0)))
    if g < 2:
        return Estimate(value, float("nan"), float("nan"), g), np.zeros(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        boots = np.asarray(stat(bootstrap_match_sums(sums, reps, seed)), float)
    if method == "bca":
        with np.errstate(invalid="ignore", divide="ignore"):
            jack = np.asarray(stat(sums.sum(axis=0)[None, :] - sums), float)
        lo, hi = bca_bounds(boots, value, jack)
    else:
        lo, hi = _quantiles(boots)
    return Estimate(value, lo, hi, g), boots


def through_peak(f: Callable[[float], float], est: Estimate, peak: float, peak_value: float) -> Estimate:
    """Map an interval (Wilson or bootstrap) through f, which is monotone on each side of ``peak`` and reaches
    ``peak_value`` there: an interval that contains the peak reaches ``peak_value``."""
    if est.n == 0:
        return est
    a, b = f(est.low), f(est.high)
    lo, hi = min(a, b), max(a, b)
    if est.low <= peak <= est.high:
        if peak_value >= hi:
            hi = peak_value
        else:
            lo = peak_value
    return Estimate(f(est.value), lo, hi, est.n)


def bca_bounds(boots: np.ndarray, value: float, jack: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """BCa bounds (Efron & Tibshirani 1993, 14.3): the bootstrap values' quantiles at
    Phi(z0 + (z0 + z) / (1 - a (z0 + z))) for z = -/+ z_(level), with the bias correction
    z0 = Phi^-1(share of resamples below the estimate, ties counted half) and the acceleration
    a = sum(d^3) / (6 (sum(d^2))^1.5), d = mean(jack) - jack over the jackknife values. Where either
    cannot be computed (an infinite estimate or jackknife value, every resample on one side) the
    percentile bounds are returned."""
    from statistics import NormalDist

    nd = NormalDist()
    b = np.asarray(boots, float)
    b = b[~np.isnan(b)]
    jack = np.asarray(jack, float)
    if b.size == 0:
        return float("nan"), float("nan")
    z = nd.inv_cdf(0.5 + level / 2)
    below = (np.count_nonzero(b < value) + 0.5 * np.count_nonzero(b == value)) / b.size
    if not math.isfinite(value) or not 0 < below < 1 or not np.all(np.isfinite(jack)) or jack.size < 2:
        return _quantiles(b, (0.5 - level / 2, 0.5 + level / 2))
    z0 = nd.inv_cdf(below)
    d = jack.mean() - jack
    den = 6.0 * float((d * d).sum()) ** 1.5
    a = float((d**3).sum()) / den if den > 0 else 0.0
    q = []
    for zz in (-z, z):
        t = z0 + zz
        q.append(nd.cdf(z0 + t / (1 - a * t)))
    return _quantiles(b, tuple(q))


def _quantiles(boots: np.ndarray, q=(0.025, 0.975)) -> tuple[float, float]:
    """Percentile bounds that tolerate infinite resamples (an unbounded end stays infinite)."""
    b = np.sort(boots[~np.isnan(boots)])
    if b.size == 0:
        return float("nan"), float("nan")
    idx = [min(b.size - 1, max(0, int(round(p * (b.size - 1))))) for p in q]
    return float(b[idx[0]]), float(b[idx[1]])


def _untestable(diff: float, se: float) -> bool:
    """No p-value can be computed: the difference or its standard error is missing or not finite, or the
    standard error is negative (a NaN SE is what one observation or no data gives)."""
    return not (math.isfinite(diff) and math.isfinite(se) and se >= 0)


def normal_p(diff: float, se: float) -> float:
    """Two-sided p-value of ``diff = 0`` from a normal approximation with standard error ``se``.

    NaN (not tested) when ``diff`` or ``se`` is not finite: no data, or one observation, gives no standard
    error and no evidence either way. An SE of exactly 0 with data (every observation gave the same
    difference) gives the limit: 0 for a non-zero difference, 1 for none."""
    if _untestable(diff, se):
        return float("nan")
    if se == 0:
        return 0.0 if diff != 0 else 1.0
    return math.erfc(abs(diff) / se / math.sqrt(2.0))


def tost_p(diff: float, se: float, margin: float) -> float:
    """Two one-sided tests (TOST) of equivalence: the p-value of "|true difference| >= margin"
    (the larger of the two one-sided p-values). Below 0.05: the difference lies within
    ±margin, which is what a claim that something "changes nothing" needs.

    NaN (not tested) when ``diff`` or ``se`` is not finite (no data, or one observation) or no margin is
    given; an SE of exactly 0 with data gives the limit (0 inside the margin, else 1)."""
    if _untestable(diff, se) or margin is None or math.isnan(margin):
        return float("nan")
    if se == 0:
        return 0.0 if abs(diff) < margin else 1.0

    def upper_tail(z):
        return 0.5 * math.erfc(z / math.sqrt(2.0))

    return max(upper_tail((diff + margin) / se), upper_tail((margin - diff) / se))


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error control); reject where < alpha.

    A NaN (or otherwise non-finite) p-value is a test that was not made: it is left out of the family
    (the family size m counts only the finite p-values) and its adjusted p-value is NaN, which callers
    report as "not tested" (NaN < alpha is False, so it never rejects)."""
    p = np.asarray(pvalues, dtype=float).ravel()
    adj = np.full(p.size, np.nan)
    tested = np.flatnonzero(np.isfinite(p))
    m = tested.size
    running = 0.0
    for rank, i in enumerate(tested[np.argsort(p[tested], kind="stable")]):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adj[i] = running
    return adj
