"""The notebooks' summary tables: figures with intervals over deals, per-match outcomes, the duration model's band."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import polars as pl

from simsuite.analysis.metrics import (
    METRIC_KEYS,
    bootstrap_match_sums,
    count_once,
    deal_ids,
    level_change,
    paired_test,
    summarise,
)
from simsuite.sim.results import Results

DURATION_FRACTIONS = (0.25, 0.4, 0.6)  # the duration model's band: a typical action at this share of its limit


def frames(r: Results, where: pl.Expr | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run's hands and matches, collected (rows where ``where`` holds)."""
    h, m = r.hands, r.matches
    if where is not None:
        h, m = h.filter(where), m.filter(where)
    return h.collect(), m.collect()


def equal_pairs_once() -> pl.Expr:
    """Keep the first table of matches between equal policies: with ``duplicate`` their second
    table is the same match again (the same deals, the same policies in the same seats)."""
    return (pl.col("policy_ns") != pl.col("policy_ew")) | ~pl.col("swapped")


def summary(
    h: pl.DataFrame, m: pl.DataFrame, variants: Mapping | None = None, by: str = "cell", seed: int = 0
) -> pd.DataFrame:
    """``summarise`` flattened: one row per group, for each metric columns ``key``, ``key_lo``,
    ``key_hi``, ``key_n`` (NaN where it does not apply; an unbounded end is inf)."""
    rows = summarise(h, m, by=by, variants=variants, seed=seed)
    flat = []
    for r in rows:
        d = {k: v for k, v in r.items() if not isinstance(v, dict)}
        for k in METRIC_KEYS:
            e = r[k]
            d[k] = np.nan if e["value"] is None else e["value"]
            d[k + "_lo"] = np.nan if e["low"] is None else e["low"]
            d[k + "_hi"] = np.nan if e["high"] is None else e["high"]
            d[k + "_n"] = e["n"]
        flat.append(d)
    return pd.DataFrame(flat)


def parse_cell(cell: str) -> dict[str, Any]:
    """``"step=30,takeover=120"`` -> ``{"step": 30, "takeover": 120}`` (numbers as numbers)."""
    out: dict[str, Any] = {}
    for part in cell.split(","):
        if "=" not in part:
            out["variant"] = part
            continue
        k, v = part.split("=", 1)
        try:
            out[k] = int(v)
        except ValueError:
            out[k] = v
    return out


def with_cell_keys(df: pd.DataFrame, col: str = "cell") -> pd.DataFrame:
    """``df`` with the keys of its cells (``parse_cell``) as columns in front."""
    keys = pd.DataFrame([parse_cell(c) for c in df[col]], index=df.index)
    return pd.concat([keys, df.drop(columns=[c for c in keys.columns if c in df.columns and c != col])], axis=1)


def match_share(
    m: pl.DataFrame, by: str | list[str], cond: pl.Expr, among: pl.Expr | None = None, name: str = "share"
) -> pd.DataFrame:
    """Per group, the share of matches (among ``among``, default all) where ``cond`` holds, with
    its interval over deals (``stats.cluster_share``: both tables of a duplicate deal are one
    unit): columns ``name``, ``name_lo``, ``name_hi``, ``name_n`` (n = deals)."""
    from simsuite.analysis.stats import cluster_share

    by = [by] if isinstance(by, str) else list(by)
    f = m if among is None else m.filter(among)
    rows = []
    for key, g in f.group_by(by, maintain_order=True):
        _, g, _ = count_once(g, g)
        e = cluster_share(g.select(cond.cast(pl.Float64))[:, 0].to_numpy(), deal_ids(g))
        rows.append({**dict(zip(by, key)), name: e.value, name + "_lo": e.low, name + "_hi": e.high, name + "_n": e.n})
    return pd.DataFrame(rows).sort_values(by).reset_index(drop=True) if rows else pd.DataFrame(rows)


def hand_shares(
    h: pl.DataFrame, by: str | list[str], indicators: Mapping[str, pl.Expr], reps: int = 2000, seed: int = 0
) -> pd.DataFrame:
    """Per group, the share of hands where each indicator holds, with a percentile bootstrap
    interval that resamples whole deals (hands within a match, and both tables of a duplicate
    deal, are correlated), as ``simsuite.analysis.metrics`` does for its per-hand figures; n = deals."""
    by = [by] if isinstance(by, str) else list(by)
    key = [c for c in ("run", "variant", "cell", "seed", "match") if c in h.columns]
    names = list(indicators)
    per = (
        h.group_by(list(dict.fromkeys(by + key)))
        .agg(pl.len().cast(pl.Float64).alias("_n"), *[e.cast(pl.Float64).sum().alias(n) for n, e in indicators.items()])
        .sort(list(dict.fromkeys(by + key)))
    )
    rows = []
    for gkey, g in per.group_by(by, maintain_order=True):
        sums = g.select(["_n"] + names).to_numpy().astype(float)
        boots = bootstrap_match_sums(sums, reps, seed)
        tot = sums.sum(axis=0)
        d = dict(zip(by, gkey))
        for i, n in enumerate(names, start=1):
            d[n] = tot[i] / tot[0]
            lo, hi = np.quantile(boots[:, i] / boots[:, 0], [0.025, 0.975]) if len(sums) > 1 else (np.nan, np.nan)
            d[n + "_lo"], d[n + "_hi"], d[n + "_n"] = lo, hi, len(sums)
        rows.append(d)
    return pd.DataFrame(rows).sort_values(by).reset_index(drop=True)


def est(row: Mapping, key: str, digits: int = 2, pct: bool = False) -> str:
    """``value [low, high]`` of one metric of a summary row."""
    v, lo, hi = row[key], row[key + "_lo"], row[key + "_hi"]
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    k, u = (100.0, "%") if pct else (1.0, "")
    d = max(digits - 2, 0) if pct else digits

    def f(x):
        if x is None or (isinstance(x, float) and math.isnan(x)):
            return "?"
        return "∞" if math.isinf(x) else f"{x * k:.{d}f}"

    return f"{f(v)}{u} [{f(lo)}, {f(hi)}]"


def per_match(h: pl.DataFrame, m: pl.DataFrame, variants: Mapping | None = None) -> pl.DataFrame:
    """The match frame with per-match outcomes for paired tests: ``a_win``, ``b_win``, ``draw``,
    ``decided`` (policy A = the NS policy of the cell's unswapped tables; with equal policies A is
    team NS), ``first_win`` and ``ns_dec`` (null for a draw), and per-match means over its hands:
    ``takeover``, ``hold``, ``change`` (|level change|), ``big`` (|change| >= 2), ``bottom_points``
    (points in the bottom), ``bottom_any`` (the bottom held points), ``capture_abs`` (|capture points|)
    and, with the cells' ``variants``, ``cross`` (the capture moved the hand's band)."""
    if variants is not None:
        from simsuite.analysis.metrics import VariantResolver, crossings

        crossed, _ = crossings(h, VariantResolver(variants))
        if crossed is not None:
            h = h.with_columns(_cross=pl.Series(crossed, dtype=pl.Float64))
    keys = [
        c
        for c in ("run", "variant", "cell", "seed", "swapped", "policy_ns", "policy_ew", "match")
        if c in h.columns and c in m.columns
    ]
    change = level_change().cast(pl.Float64)
    agg = h.group_by(keys).agg(
        pl.col("takeover").cast(pl.Float64).mean().alias("takeover"),
        change.mean().alias("change"),
        (change >= 2).cast(pl.Float64).mean().alias("big"),
        *([pl.col("_cross").mean().alias("cross")] if "_cross" in h.columns else []),
        *(
            [
                pl.col("bottom_points").cast(pl.Float64).mean().alias("bottom_points"),
                (pl.col("bottom_points") > 0).cast(pl.Float64).mean().alias("bottom_any"),
            ]
            if "bottom_points" in h.columns
            else []
        ),
        *(
            [pl.col("capture_points").abs().cast(pl.Float64).mean().alias("capture_abs")]
            if "capture_points" in h.columns
            else []
        ),
    )
    a = m.filter(~pl.col("swapped")).group_by("cell").agg(pl.col("policy_ns").first().alias("_a"))
    out = m.join(agg, on=keys, how="left").join(a, on="cell", how="left")
    a_ns = pl.col("policy_ns") == pl.col("_a")
    dec = pl.col("winner") >= 0
    return out.with_columns(
        a_win=(((pl.col("winner") == 0) & a_ns) | ((pl.col("winner") == 1) & ~a_ns)).cast(pl.Float64),
        b_win=(((pl.col("winner") == 1) & a_ns) | ((pl.col("winner") == 0) & ~a_ns)).cast(pl.Float64),
        draw=(~dec).cast(pl.Float64),
        decided=dec.cast(pl.Float64),
        hold=1.0 - pl.col("takeover"),
        net=(((pl.col("winner") == 0) & a_ns) | ((pl.col("winner") == 1) & ~a_ns)).cast(pl.Float64)
        - (((pl.col("winner") == 1) & a_ns) | ((pl.col("winner") == 0) & ~a_ns)).cast(pl.Float64),
        first_win=pl.when(dec).then((pl.col("winner") == pl.col("first_declarers")).cast(pl.Float64)),
        a_dec=pl.when(dec).then(
            (((pl.col("winner") == 0) & a_ns) | ((pl.col("winner") == 1) & ~a_ns)).cast(pl.Float64)
        ),
        ns_dec=pl.when(dec).then((pl.col("winner") == 0).cast(pl.Float64)),
    )


def differences(M: pl.DataFrame, baseline: str, cells: Iterable[str], metric: str) -> pd.DataFrame:
    """Paired differences of ``metric`` (a ``per_match`` column) of each cell from ``baseline``,
    over the deals both share, with bootstrap intervals over deals: columns cell, diff, diff_lo,
    diff_hi, diff_n."""
    base = M.filter(pl.col("cell") == baseline)
    rows = []
    for c in cells:
        e = paired_test(M.filter(pl.col("cell") == c), base, pl.col(metric))["estimate"]
        rows.append({"cell": c, "diff": e.value, "diff_lo": e.low, "diff_hi": e.high, "diff_n": e.n})
    return pd.DataFrame(rows)


def seconds_per_trick_at(variant, fraction: float) -> float:
    """The duration model's seconds per trick with a typical action at ``fraction`` of its limit
    (docs/clock.md: the default is 0.4; 4 s to gather a trick are not a limit and stay)."""
    return 4.0 + (variant.seconds_per_trick - 4.0) * fraction / 0.4


def clock_band(
    h: pl.DataFrame,
    m: pl.DataFrame,
    variants: Mapping,
    cells: Iterable[str] | None = None,
    fractions: Iterable[float] = DURATION_FRACTIONS,
) -> pd.DataFrame:
    """The duration model's band on the clock-derived figures of every timed cell: the exact match
    model (``simsuite.analysis.exact``) solved with each hand re-timed at each fraction of the time limits
    (0.25 / 0.4 / 0.6; docs/clock.md). Columns: cell, fraction, hands, minutes, clock_share, draw,
    a_win. An approximation (the same hands, re-timed), its error measured in docs/metrics.md."""
    from simsuite.analysis.exact import exact_model

    rows = []
    for cell in cells if cells is not None else sorted(m["cell"].unique().to_list()):
        v = variants.get(cell)
        if v is None or v.match_minutes == 0:
            continue
        hc, mc = h.filter(pl.col("cell") == cell), m.filter(pl.col("cell") == cell)
        if mc.height == 0:
            continue
        for f in fractions:
            ov = None if f == 0.4 else {"seconds_per_trick": round(seconds_per_trick_at(v, f), 2)}
            r = exact_model(hc, mc, v, ov, reps=0)["figures"]
            rows.append(
                {
                    "cell": cell,
                    "fraction": f,
                    "hands": r["hands_mean"]["value"],
                    "minutes": r["minutes_mean"]["value"],
                    "clock_share": r["clock_share"]["value"],
                    "draw": r["p_draw"]["value"],
                    "a_win": r["p_a"]["value"],
                }
            )
    return pd.DataFrame(rows)


def band_range(band: pd.DataFrame, cell: str, key: str) -> tuple[float, float]:
    """The lowest and highest ``key`` of one cell over the band's fractions (``clock_band``); NaN if none."""
    b = band[band.cell == cell][key]
    return (float(b.min()), float(b.max())) if len(b) else (float("nan"), float("nan"))
