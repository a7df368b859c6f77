"""simsuite/analysis/stats.py: the BCa bounds against their formula (Efron & Tibshirani 1993, 14.3)."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest

from simsuite.analysis.stats import _quantiles, bca_bounds, cluster_bootstrap

ND = NormalDist()


def _normal_boots(n=20001, shift=0.0):
    """Bootstrap values at the normal quantiles, shifted: the share below 0 is Phi(shift)."""
    return np.array([ND.inv_cdf((i + 0.5) / n) for i in range(n)]) - shift


def test_bca_without_bias_or_acceleration_is_the_percentile_interval():
    boots = _normal_boots()
    jack = np.array([-1.0, 0.0, 1.0])  # symmetric: acceleration 0
    assert bca_bounds(boots, 0.0, jack) == _quantiles(boots, (0.025, 0.975))


def test_bca_bias_correction_moves_the_quantiles():
    """About 84% of the resamples below the estimate: z0 = Phi^-1(that share), about 1, and the bounds
    are the quantiles at Phi(2 z0 -/+ 1.96), about Phi(0.04) and Phi(3.96)."""
    boots = _normal_boots(shift=1.0)
    lo, hi = bca_bounds(boots, 0.0, np.array([-1.0, 0.0, 1.0]))
    z0 = ND.inv_cdf(np.count_nonzero(boots < 0) / boots.size)
    assert z0 == pytest.approx(1.0, abs=1e-3)
    z = ND.inv_cdf(0.975)
    assert (lo, hi) == _quantiles(boots, (ND.cdf(2 * z0 - z), ND.cdf(2 * z0 + z)))
    assert lo > np.quantile(boots, 0.4)


def test_bca_acceleration_from_the_jackknife():
    """Jackknife values 0, 0, 3: d = 1, 1, -2, a = (1 + 1 - 8) / (6 * 6^1.5) = -1 / 14.70."""
    boots = _normal_boots()
    jack = np.array([0.0, 0.0, 3.0])
    a = -6 / (6 * 6**1.5)
    z = ND.inv_cdf(0.975)
    q = [ND.cdf(t / (1 - a * t)) for t in (-z, z)]
    assert bca_bounds(boots, 0.0, jack) == _quantiles(boots, tuple(q))


def test_bca_falls_back_to_percentile_where_undefined():
    boots = _normal_boots(n=1001)
    assert bca_bounds(boots, float("inf"), np.zeros(3)) == _quantiles(boots, (0.025, 0.975))
    assert bca_bounds(boots, 10.0, np.zeros(3)) == _quantiles(boots, (0.025, 0.975))  # every resample below


def test_cluster_bootstrap_bca_uses_the_leave_one_cluster_out_jackknife():
    rng = np.random.default_rng(3)
    x = rng.exponential(size=40) ** 2  # skewed
    sums = np.column_stack([np.ones(40), x])
    stat = lambda t: t[..., 1] / t[..., 0]  # noqa: E731
    est, boots = cluster_bootstrap(sums, stat, 2000, 5, method="bca")
    jack = (x.sum() - x) / 39
    assert (est.low, est.high) == bca_bounds(boots, x.mean(), jack)
    pct, _ = cluster_bootstrap(sums, stat, 2000, 5)
    assert est.low > pct.low and est.high > pct.high  # right skew: BCa moves both bounds up
    with pytest.raises(ValueError, match="method 'bogus'"):
        cluster_bootstrap(sums, stat, 10, 0, method="bogus")
