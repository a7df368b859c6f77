"""The sample: the figures of the exact model that the matches as played give directly, as ``simsuite summary`` does."""

from __future__ import annotations

import polars as pl

from ...rules.variant import Variant


def simulated_figures(hands: pl.DataFrame, matches: pl.DataFrame, variant: Variant, seed: int = 0) -> dict:
    """The figures of ``FIGURES`` that simulated matches give directly, with 95% intervals over
    deals (``simsuite.analysis.metrics.summarise``)."""
    from ..metrics import summarise

    row = summarise(
        hands,
        matches,
        by="cell",
        variants={variant.id: variant, **{c: variant for c in matches["cell"].unique().to_list()}},
        seed=seed,
    )[0]
    out = {
        "hands_mean": row["hands_per_match"],
        "minutes_mean": row["minutes_per_match"],
        "clock_share": row["clock_share"],
        "lead_changes": row["lead_changes"],
    }
    if row["policy_a_win"]["value"] is not None:
        out.update(p_a=row["policy_a_win"], p_draw=row["pair_draw"], p_b=row["policy_b_win"])
    else:  # equal policies: team A is NS
        from ..metrics import count_once, deal_ids
        from ..stats import cluster_share

        _, m, _ = count_once(hands, matches)
        w = m["winner"].to_numpy()
        dl = deal_ids(m)
        for k, x in (("p_a", w == 0), ("p_draw", w < 0), ("p_b", w == 1)):
            e = cluster_share(x.astype(float), dl, 2000, seed)
            out[k] = {"value": e.value, "low": e.low, "high": e.high, "n": e.n}
    return out
