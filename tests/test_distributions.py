"""The level-change distribution (analysis.distributions): shares of hands by |level change|, with
intervals by deal, equal-policy duplicate copies counted once."""

from __future__ import annotations

import numpy as np
import pytest
from played import played

from simsuite.analysis import distributions as D
from simsuite.analysis.metrics import level_change


def _played(vid, pairs, deals=10, seed=3):
    return played(vid, pairs, deals, seed)


def test_shares_by_level_change_add_up_and_count_deals():
    h, m = _played("school-2016", [(False, ("expert", "basic")), (True, ("basic", "expert"))])
    cats, table = D.level_change_shares(h, "variant", ["school-2016"], m, reps=200)
    assert cats == ["0", "1", "2", "3", f"{D.CHANGE_MAX}+"] == D.change_categories()
    row = table["school-2016"]
    assert len(row) == D.CHANGE_MAX + 1
    assert sum(e["value"] for e in row) == pytest.approx(1.0)
    change = h.select(level_change().clip(upper_bound=D.CHANGE_MAX))[:, 0].to_numpy()
    for i, e in enumerate(row):
        assert e["value"] == pytest.approx(np.mean(change == i))  # the share of hands, the top category pooled
        assert e["n"] == 10  # deals: both tables of a deal are one unit
        assert e["low"] is None or e["low"] <= e["value"] <= e["high"]


def test_an_equal_policy_copy_counts_once_and_an_empty_group_has_no_figure():
    one_h, one_m = _played("school-2016", [(False, ("basic", "basic"))])
    two_h, two_m = _played("school-2016", [(False, ("basic", "basic")), (True, ("basic", "basic"))])
    groups = ["school-2016", "huizhou"]
    _, single = D.level_change_shares(one_h, "variant", groups, one_m, reps=200)
    _, dup = D.level_change_shares(two_h, "variant", groups, two_m, reps=200)
    assert dup["school-2016"] == single["school-2016"]
    assert dup["huizhou"] == [{"value": None, "low": None, "high": None, "n": 0}] * (D.CHANGE_MAX + 1)
