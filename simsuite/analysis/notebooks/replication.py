"""Replication on a second seed: each figure's equivalence (TOST) test against its stated margin, and their table."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from simsuite.analysis.notebooks.summaries import est
from simsuite.analysis.stats import holm, normal_p, tost_p
from simsuite.errors import SimsuiteError

REPLICATES = "replicates"
NOT_SHOWN = "not shown (equivalence not established)"
DIFFERS = "does not replicate (the seeds differ)"
NOT_TESTED = "not tested"


def parse_margin(spec: float | str | None) -> tuple[float, bool] | None:
    """A replication margin: a number (absolute, in the figure's units) or ``"25%"`` (relative: the
    ratio of the two seeds' values within 1/1.25 .. 1.25, tested on the log scale)."""
    if spec is None:
        return None
    bad = SimsuiteError(f"replication margin {spec!r}: a positive number or a positive percentage such as '25%'")
    rel = isinstance(spec, str)
    if isinstance(spec, bool) or not (rel and spec.strip().endswith("%") or isinstance(spec, (int, float))):
        raise bad
    try:
        x = float(spec.strip()[:-1]) if rel else float(spec)
    except ValueError:
        raise bad from None
    if not (x > 0 and math.isfinite(x)):
        raise bad
    return (math.log1p(x / 100.0), True) if rel else (x, False)


def replication_test(
    a: float, a_lo: float, a_hi: float, b: float, b_lo: float, b_hi: float, margin: float | str | None
) -> dict:
    """One figure on two independent seeds: the difference a - b (or, with a relative margin, log a - log b),
    its SE from the two 95% intervals, the two-sided p of "they differ" and the TOST p of "they differ by
    at least the margin". ``reason`` says why it could not be tested (then the p-values are NaN): a missing
    value or interval end, an unbounded interval, no margin, or a non-positive value with a relative margin."""
    nan = float("nan")
    out = {"diff": nan, "se": nan, "p_differ": nan, "p_equivalent": nan, "reason": None}
    m = parse_margin(margin)
    vals = [a, a_lo, a_hi, b, b_lo, b_hi]
    if m is None:
        out["reason"] = "no margin stated"
    elif any(x is None or (isinstance(x, float) and math.isnan(x)) for x in vals):
        out["reason"] = "a value or an interval end is missing"
    elif not all(math.isfinite(float(x)) for x in vals):
        out["reason"] = "an interval is unbounded"
    elif m[1] and min(vals) <= 0:
        out["reason"] = "a relative margin needs positive values"
    if out["reason"]:
        return out
    f = math.log if m[1] else float
    se = math.hypot((f(a_hi) - f(a_lo)) / 3.92, (f(b_hi) - f(b_lo)) / 3.92)
    if not se > 0:
        out["reason"] = "the intervals have no width"
        return out
    d = f(a) - f(b)
    out.update(diff=d, se=se, p_differ=normal_p(d, se), p_equivalent=tost_p(d, se, m[0]))
    return out


def replication_table(
    first: pd.DataFrame,
    second: pd.DataFrame,
    keys: list[str],
    index: str,
    labels: Mapping[str, str] | None = None,
    pct: Iterable[str] = (),
    margins: Mapping[str, float | str] | None = None,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Two seeds' summary rows side by side (``key`` with interval, n = deals) and whether each figure
    replicates: an equivalence test (TOST) of the two seeds' difference against the figure's stated
    ``margins[key]`` (a number in the figure's units, or ``"25%"`` for a ratio within 1/1.25..1.25 on the
    log scale), with Holm's correction over the table. Independent seeds: the SE of the difference
    combines the two intervals' widths.

    ``verdict``: **replicates** when the Holm-adjusted TOST p is below ``alpha``; **does not replicate**
    when the two seeds differ (two-sided p below ``alpha``, uncorrected: the stricter side for a claim of
    replication); **not shown** otherwise (the samples cannot tell); **not tested** (with the reason) when
    a value or interval end is missing or unbounded or no margin is stated. Agreement within 1.96 SE is
    not a replication: it is the absence of evidence of a difference."""
    pct, margins = set(pct), dict(margins or {})
    a, b = first.set_index(index), second.set_index(index)
    rows = []
    for i in a.index:
        if i not in b.index:
            continue
        for k in keys:
            ra, rb = a.loc[i], b.loc[i]
            t = replication_test(
                ra[k], ra[k + "_lo"], ra[k + "_hi"], rb[k], rb[k + "_lo"], rb[k + "_hi"], margins.get(k)
            )
            rel = isinstance(margins.get(k), str)
            rows.append(
                {
                    index: i,
                    "figure": (labels or {}).get(k, k),
                    "first seed": est(ra, k, 3, pct=k in pct) + f" n={int(ra[k + '_n']):,}",
                    "second seed": est(rb, k, 3, pct=k in pct) + f" n={int(rb[k + '_n']):,}",
                    "difference (SE)": (
                        f"{'log ratio ' if rel else ''}{t['diff']:+.4g} (SE {t['se']:.3g})"
                        if t["reason"] is None
                        else "n/a"
                    ),
                    "margin": (f"±{margins[k]}" if rel else f"±{margins[k]:g}") if k in margins else "none",
                    "_p_eq": t["p_equivalent"],
                    "_p_diff": t["p_differ"],
                    "_reason": t["reason"],
                }
            )
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    tested = df["_reason"].isna()
    df["TOST p (Holm)"] = np.nan
    if tested.any():
        df.loc[tested, "TOST p (Holm)"] = holm(df.loc[tested, "_p_eq"].to_numpy())

    def verdict(r):
        if r["_reason"] is not None and not (isinstance(r["_reason"], float) and math.isnan(r["_reason"])):
            return f"{NOT_TESTED} ({r['_reason']})"
        if not math.isfinite(r["TOST p (Holm)"]):  # a p-value that could not be computed: no verdict either way
            return f"{NOT_TESTED} (no p-value: the standard error is not finite)"
        if r["TOST p (Holm)"] < alpha:
            return REPLICATES
        if r["_p_diff"] < alpha:
            return DIFFERS
        return NOT_SHOWN

    df["verdict"] = [verdict(r) for _, r in df.iterrows()]
    df["TOST p (Holm)"] = df["TOST p (Holm)"].round(4)
    return df.drop(columns=["_p_eq", "_p_diff", "_reason"])


def replication_summary(table: pd.DataFrame) -> str:
    """One line for a conclusion: how many figures replicate, differ, are not shown, not tested."""
    if table.empty:
        return "no figure to replicate"
    v = table["verdict"]
    n_rep, n_diff, n_not = int((v == REPLICATES).sum()), int((v == DIFFERS).sum()), int((v == NOT_SHOWN).sum())
    n_untested = int(v.str.startswith(NOT_TESTED).sum())
    return (
        f"{n_rep} of {len(v)} figures replicate (TOST within the stated margins, Holm), {n_diff} differ, "
        f"{n_not} not shown either way, {n_untested} not tested"
    )
