"""Distributions of a run's hands: the share of hands at each level change, with intervals by deal."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from .metrics import BOOTSTRAP_REPS, count_once, deal_ids, level_change
from .stats import cluster_bootstrap

CHANGE_MAX = 4  # level changes 0..CHANGE_MAX-1 are categories of their own; CHANGE_MAX and more share one


def change_categories() -> list[str]:
    """The level-change categories: "0", "1", ..., f"{CHANGE_MAX}+"."""
    return [str(i) for i in range(CHANGE_MAX)] + [f"{CHANGE_MAX}+"]


def level_change_shares(
    hands: pl.DataFrame,
    by: str,
    groups: Sequence[str],
    matches: pl.DataFrame | None = None,
    reps: int = BOOTSTRAP_REPS,
    seed: int = 0,
) -> tuple[list[str], dict[str, list[dict]]]:
    """Per group, the share of hands with each level change (0, 1, ..., CHANGE_MAX+), with
    percentile bootstrap intervals that resample whole deals (hands of a match, and both tables
    of a duplicate deal, are correlated); n = deals. Equal-policy duplicate copies count once.

    Returns the categories (``change_categories()``) and, per group, one ``{"value", "low",
    "high", "n"}`` per category (None where there is no figure)."""
    change = level_change()
    cats = change_categories()
    out: dict[str, list[dict]] = {}
    none = {"value": None, "low": None, "high": None, "n": 0}
    for g in groups:
        hg = hands.filter(pl.col(by) == g)
        if matches is not None:
            hg, _, _ = count_once(hg, matches.filter(pl.col(by) == g))
        if hg.height == 0:
            out[g] = [dict(none) for _ in range(CHANGE_MAX + 1)]
            continue
        deal = deal_ids(hg) - 1
        c = hg.select(change.clip(upper_bound=CHANGE_MAX))[:, 0].to_numpy()
        k = int(deal.max()) + 1
        sums = np.column_stack(
            [np.bincount(deal, minlength=k).astype(float)]
            + [np.bincount(deal, weights=(c == i).astype(float), minlength=k) for i in range(CHANGE_MAX + 1)]
        )
        row = []
        for i in range(CHANGE_MAX + 1):
            est, _ = cluster_bootstrap(sums, lambda t, i=i: t[..., i + 1] / t[..., 0], reps, seed)
            d = est.as_dict()
            row.append({kk: (None if isinstance(v, float) and math.isnan(v) else v) for kk, v in d.items()})
        out[g] = row
    return cats, out


__all__ = ["CHANGE_MAX", "change_categories", "level_change_shares"]
