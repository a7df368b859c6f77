"""Metrics of a results store: game length, swing and fairness per variant or sweep cell.

``summarise`` turns hand and match frames (``simsuite.sim.schema``) into one row per group, every
metric with its 95% interval and sample size (``report.summary_text`` prints them side by side).
``docs/metrics.md`` defines each metric exactly, with its unit, interval method and caveats.

The independent unit is the **deal**: match ``m`` of seed ``s`` in one cell. A duplicate run
plays every deal at two tables (the policies swapped); the two tables share their cards, so they
are one unit, never two. Intervals: Wilson for shares of matches (n = deals; with two tables per
deal, at the design-effect-adjusted effective sample size); a cluster-robust normal interval for
means over matches; a percentile bootstrap over deals for anything computed over hands (hands of
a match, and both tables of a deal, are correlated); a BCa bootstrap over deals for N* (skewed,
unbounded where skill is even). In a duplicate run between *equal* policies
the second table is an exact copy of the first: it is dropped (``count_once``) and a note says so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ..rules.scoring import declarer_levels, defender_levels
from ..rules.variant import Variant, load_variant
from .stats import Estimate, bootstrap_match_sums, cluster_bootstrap, cluster_mean_ci, cluster_share, through_peak

BOOTSTRAP_REPS = 2000
MATCH_KEY = ("run", "variant", "cell", "seed", "swapped", "policy_ns", "policy_ew", "match")
DEAL_KEY = ("run", "variant", "cell", "seed", "match")  # the independent unit: one deal, all its tables


@dataclass(frozen=True)
class Metric:
    key: str
    section: str
    label: str  # with its unit


METRICS: tuple[Metric, ...] = (
    Metric("hands_per_match", "game length", "hands per match"),
    Metric("minutes_per_hand", "game length", "minutes per hand"),
    Metric("minutes_per_match", "game length", "minutes per match"),
    Metric("clock_share", "game length", "timed matches ended by the clock (share)"),
    Metric("level_change_mean", "swing", "level change per hand, mean |change| (levels)"),
    Metric("level_change_sd", "swing", "level change per hand, SD (levels)"),
    Metric("big_swing_share", "swing", "hands with |change| >= 2 (share)"),
    Metric("takeover_rate", "swing", "take-over rate (share of hands)"),
    Metric("capture_band_share", "swing", "capture moved the band (share of hands)"),
    Metric("lead_changes", "swing", "lead changes per match"),
    Metric("deficit_overcome_mean", "swing", "deficit overcome by the winner, mean (levels)"),
    Metric("deficit_overcome_max", "swing", "deficit overcome by the winner, max (levels)"),
    Metric("declarer_hold", "fairness", "declarers hold (share of hands)"),
    Metric("first_declarer_win", "fairness", "first declarers win the match (share)"),
    Metric("ns_win", "fairness", "team NS wins the match (share)"),
    Metric("seat_balance", "fairness", "seat balance 1-|2p-1|"),
    Metric("policy_a_win", "fairness", "policy A wins the match (share, draws counted)"),
    Metric("pair_draw", "fairness", "A against B: drawn (share)"),
    Metric("policy_b_win", "fairness", "policy B wins the match (share, draws counted)"),
    Metric("n_star", "fairness", "N*: matches until skill outweighs luck (net outcome)"),
)
METRIC_KEYS = tuple(m.key for m in METRICS)
_MATCH_METRICS = (
    "hands_per_match",
    "minutes_per_match",
    "clock_share",
    "lead_changes",
    "deficit_overcome_mean",
    "deficit_overcome_max",
    "first_declarer_win",
    "ns_win",
    "seat_balance",
    "policy_a_win",
    "pair_draw",
    "policy_b_win",
    "n_star",
)


# --- small transforms, public for tests and for the docs ---------------------------------------


def level_change() -> pl.Expr:
    """A hand's level change, |levels_ns + levels_ew|: the levels its gaining team went up (at most one
    team gains in a hand), as an integer expression over the hands table (``columns.py``)."""
    return (pl.col("levels_ns").cast(pl.Int64) + pl.col("levels_ew").cast(pl.Int64)).abs()


def balance(p: float) -> float:
    """Ludii's Balance for two sides with win shares p and 1 - p: 1 - |2p - 1| (1 = even)."""
    return 1.0 - abs(2.0 * p - 1.0)


def n_star(p: float) -> float:
    """Matches after which skill outweighs luck: N* = p(1 - p) / var(talent), var(talent) = (p - 1/2)^2.

    Two sides whose true match win shares are p and 1 - p have talent variance (p - 1/2)^2 around
    1/2; luck adds p(1 - p)/N to the variance of a side's observed win share over N matches.
    N* is the N at which the two are equal (Tango's "regression to the mean" point); there the
    stronger side's expected margin is one standard deviation of luck, and it wins a majority
    of the N* matches with probability about Phi(1) = 0.84. Symmetric in p and 1 - p; infinite
    at p = 1/2, 0 at p = 0 or 1.
    """
    d = (p - 0.5) ** 2
    return math.inf if d == 0 else p * (1.0 - p) / d


def n_star_net(win: float, lose: float) -> float:
    """N* from the net outcome of a match, draws counted: X = +1 (A wins), 0 (draw), -1 (B wins).

    Skill is the mean mu = P(A) - P(B); one match's luck has variance s2 = P(A) + P(B) - mu^2.
    Over N matches the luck in the mean net outcome has variance s2 / N; N* = s2 / mu^2 is the
    N at which it equals skill's mu^2. Without draws this is ``n_star(p)``. A value below 1 says
    that the skill gap exceeds one standard deviation of a *single* match's luck: the stronger
    side's expected net margin in one match is already more than one SD of luck (its win share
    is far from 1/2); it does not mean "less than one match is needed".
    """
    mu = win - lose
    s2 = win + lose - mu * mu
    return math.inf if mu == 0 else max(s2, 0.0) / (mu * mu)


def band(variant: Variant, defender_points: int) -> tuple[bool, int]:
    """The scoring band of a hand as its result: (take-over, levels gained by the gaining side)."""
    if defender_points >= variant.takeover:
        return True, defender_levels(variant, defender_points)
    return False, declarer_levels(variant, defender_points)


def capture_crossed(variant: Variant, final_points: int, capture_points: int) -> bool:
    """Whether the last-trick capture moved the hand into another scoring band: the band of the
    final points differs from the band of the final points without the capture."""
    return capture_points != 0 and band(variant, final_points) != band(variant, final_points - capture_points)


# --- the bootstrap by match (stats.bootstrap_match_sums draws it) -------------------------------


def _boot_estimate(value: float, boots: np.ndarray, n: int) -> Estimate:
    if n < 2:
        return Estimate(value, float("nan"), float("nan"), n)
    lo, hi = np.quantile(boots, [0.025, 0.975])
    return Estimate(value, float(lo), float(hi), n)


# --- summarise ---------------------------------------------------------------------------------


def _frame(data, name: str) -> pl.DataFrame:
    if isinstance(data, pl.LazyFrame):
        return data.collect()
    if isinstance(data, pl.DataFrame):
        return data
    raise TypeError(f"{name} must be a polars DataFrame or LazyFrame, got {type(data).__name__}")


def _need(frame: pl.DataFrame, name: str, columns: Iterable[str]) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{name} lacks column(s) {', '.join(missing)} (see simsuite.sim.schema)")


def _out(est: Estimate, note: str | None = None) -> dict[str, Any]:
    def clean(x):
        return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)

    d = {"value": clean(est.value), "low": clean(est.low), "high": clean(est.high), "n": int(est.n)}
    if note:
        d["note"] = note
    return d


def _null(note: str) -> dict[str, Any]:
    return {"value": None, "low": None, "high": None, "n": 0, "note": note}


class VariantResolver:
    """The Variant of a (variant id, cell): the caller's (by cell, then by id) or the registry's."""

    def __init__(self, given: Mapping[str, Variant] | None):
        self.given = dict(given or {})
        self.cache: dict[tuple[str, str], Variant | str] = {}

    def get(self, vid: str, cell: str | None) -> Variant | str:
        """The Variant, or a message saying why there is none."""
        key = (vid, cell or "")
        if key not in self.cache:
            if cell and cell in self.given:
                self.cache[key] = self.given[cell]
            elif vid in self.given:
                self.cache[key] = self.given[vid]
            else:
                try:
                    self.cache[key] = load_variant(vid)
                except (ValueError, OSError) as exc:
                    self.cache[key] = f"variant {vid!r} not found ({exc}); pass it in variants="
        return self.cache[key]


def count_once(hands, matches) -> tuple[pl.DataFrame, pl.DataFrame, int]:
    """Drop the second table of every equal-policy duplicate deal.

    A duplicate run plays each deal again with the policies swapped; when both teams play the
    same policy the swapped table is the same match again (the same deals, the same policies in
    the same seats), so counting it would count one match twice. Returns the frames without those
    tables and how many matches were dropped. Tables between different policies are kept: both
    are played, and they form one unit (the deal) for every interval."""
    h, m = _frame(hands, "hands"), _frame(matches, "matches")
    if "swapped" not in m.columns or m.height == 0:
        return h, m, 0
    deal = [c for c in DEAL_KEY if c in m.columns]
    equal = pl.col("policy_ns") == pl.col("policy_ew")
    firsts = m.filter(equal & ~pl.col("swapped")).select(deal).unique()
    copies = m.filter(equal & pl.col("swapped")).select(deal).unique().join(firsts, on=deal, how="inner")
    if copies.height == 0:
        return h, m, 0
    copies = copies.with_columns(_copy=pl.lit(True))

    def drop(f):
        on = [c for c in deal if c in f.columns]
        f2 = f.join(copies.select(*on, "_copy").unique(), on=on, how="left")
        keep = ~(f2["_copy"].fill_null(False) & f2["swapped"] & (f2["policy_ns"] == f2["policy_ew"]))
        return f.filter(keep)

    m2 = drop(m)
    h2 = drop(h) if {"swapped", "policy_ns", "policy_ew"} <= set(h.columns) else h
    return h2, m2, m.height - m2.height


def deal_ids(frame: pl.DataFrame) -> np.ndarray:
    """An integer per row naming its deal (the independent unit: all tables of one deal)."""
    cols = [c for c in DEAL_KEY if c in frame.columns]
    if not cols or frame.height == 0:
        return np.arange(frame.height)
    key = pl.concat_str([pl.col(c).cast(pl.Utf8).fill_null("") for c in cols], separator="\x1f")
    return frame.select(key.alias("_k"))["_k"].rank("dense").to_numpy().astype(np.int64)


COPY_NOTE = (
    "equal-policy duplicate run: each match counted once ({n} swapped table(s) dropped: the same deals "
    "with the same policies in the same seats are a copy, not a second unit)"
)


def summarise(
    hands,
    matches,
    by: str = "variant",
    variants: Mapping[str, Variant] | None = None,
    seed: int = 0,
    reps: int = BOOTSTRAP_REPS,
) -> list[dict]:
    """One row per group (``by`` = "variant" or "cell"), sorted by the group key.

    Each row: the group key, ``n_matches`` (tables counted), ``n_deals`` (independent units),
    ``n_draws``, ``n_hands``, ``note`` (when equal-policy duplicate tables were dropped) and every
    metric of ``METRICS`` as ``{"value", "low", "high", "n"}`` (95% interval, n = deals; ``"note"``
    when there is a caveat; all None with n = 0 when the metric does not apply). ``variants``
    maps a cell or variant id to its Variant (needed for cells with overrides); otherwise ids
    load from the registry. Bootstraps draw from ``seed`` per group, so a group's figures do not
    depend on the others.
    """
    if by not in ("variant", "cell"):
        raise ValueError(f"by must be 'variant' or 'cell', got {by!r}")
    h = _frame(hands, "hands")
    m = _frame(matches, "matches")
    _need(
        h,
        "hands",
        [by, "variant", "match", "levels_ns", "levels_ew", "takeover", "final_points", "capture_points", "minutes"],
    )
    _need(
        m,
        "matches",
        [
            by,
            "variant",
            "match",
            "hands",
            "minutes",
            "winner",
            "ended_by",
            "first_declarers",
            "lead_changes",
            "max_deficit_ns",
            "max_deficit_ew",
            "policy_ns",
            "policy_ew",
        ],
    )
    resolver = VariantResolver(variants)
    keys = sorted(set(h[by].unique().to_list()) | set(m[by].unique().to_list()))
    rows = []
    for key in keys:
        hg, mg, dropped = count_once(h.filter(pl.col(by) == key), m.filter(pl.col(by) == key))
        row: dict[str, Any] = {by: key}
        if by == "cell":
            row["variant"] = ",".join(sorted(set(mg["variant"].to_list()) | set(hg["variant"].to_list())))
        row["n_matches"] = mg.height
        row["n_deals"] = int(deal_ids(mg).max()) if mg.height else 0
        row["n_draws"] = int((mg["winner"] < 0).sum())
        row["n_hands"] = hg.height
        if dropped:
            row["note"] = COPY_NOTE.format(n=dropped)
        row.update(_hand_metrics(hg, resolver, seed, reps))
        row.update(_match_metrics(mg, resolver, seed, reps))
        rows.append({**{k: row[k] for k in row if not isinstance(row[k], dict)}, **{k: row[k] for k in METRIC_KEYS}})
    return rows


def _hand_metrics(h: pl.DataFrame, resolver: VariantResolver, seed: int, reps: int) -> dict[str, dict]:
    key_cols = [c for c in DEAL_KEY if c in h.columns]  # resample deals: both tables of a deal together
    change = level_change().cast(pl.Float64)
    h = h.with_columns(_change=change)
    crossed, cross_note = crossings(h, resolver)
    h = h.with_columns(_crossed=pl.Series(crossed, dtype=pl.Float64) if crossed is not None else pl.lit(0.0))
    per = (
        h.group_by(key_cols, maintain_order=False)
        .agg(
            pl.len().cast(pl.Float64).alias("n"),
            pl.col("minutes").cast(pl.Float64).sum().alias("minutes"),
            pl.col("_change").sum().alias("c1"),
            (pl.col("_change") ** 2).sum().alias("c2"),
            (pl.col("_change") >= 2).cast(pl.Float64).sum().alias("big"),
            pl.col("takeover").cast(pl.Float64).sum().alias("to"),
            pl.col("_crossed").sum().alias("cross"),
        )
        .sort(key_cols)
    )
    cols = ["n", "minutes", "c1", "c2", "big", "to", "cross"]
    sums = per.select(cols).to_numpy().astype(float).reshape(-1, len(cols))
    g = sums.shape[0]
    if g == 0:
        return {
            k: _null("no hands")
            for k in (
                "minutes_per_hand",
                "level_change_mean",
                "level_change_sd",
                "big_swing_share",
                "takeover_rate",
                "capture_band_share",
                "declarer_hold",
            )
        }
    boots = bootstrap_match_sums(sums, reps, seed) if g >= 2 else np.zeros((0, len(cols)))
    tot = sums.sum(axis=0)
    n, bn = tot[0], boots[:, 0]

    def ratio(i):
        return _boot_estimate(tot[i] / n, boots[:, i] / bn, g)

    def sd(c1, c2, nn):  # sample SD over hands, from the sums of x and x^2
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.sqrt(np.maximum(c2 - c1 * c1 / nn, 0.0) / (nn - 1))

    sd_value = float(sd(tot[2], tot[3], n)) if n > 1 else float("nan")
    sd_boots = sd(boots[:, 2], boots[:, 3], bn)
    takeover = ratio(5)
    hold = Estimate(1.0 - takeover.value, 1.0 - takeover.high, 1.0 - takeover.low, takeover.n)
    return {
        "minutes_per_hand": _out(ratio(1)),
        "level_change_mean": _out(ratio(2)),
        "level_change_sd": _out(_boot_estimate(sd_value, sd_boots, g)),
        "big_swing_share": _out(ratio(4)),
        "takeover_rate": _out(takeover),
        "capture_band_share": _out(ratio(6)) if crossed is not None else _null(cross_note),
        "declarer_hold": _out(hold),
    }


def crossings(h: pl.DataFrame, resolver: VariantResolver) -> tuple[np.ndarray | None, str | None]:
    """Per hand, 1.0 where the capture moved the band; None (and why) if a variant is unknown.
    Each distinct (variant, cell, final points, capture points) is scored once."""
    cell = pl.col("cell").fill_null("") if "cell" in h.columns else pl.lit("")
    h = h.select(
        pl.col("variant"),
        cell.alias("_cell"),
        pl.col("final_points").cast(pl.Int64),
        pl.col("capture_points").cast(pl.Int64),
    ).with_row_index("_i")
    cap = h.filter(pl.col("capture_points") != 0)
    out = np.zeros(h.height)
    if cap.height == 0:
        return out, None
    combos = cap.select("variant", "_cell", "final_points", "capture_points").unique()
    flags = []
    for vid, c, p, k in combos.iter_rows():
        v = resolver.get(vid, c)
        if isinstance(v, str):
            return None, v
        flags.append(capture_crossed(v, p, k))
    combos = combos.with_columns(_x=pl.Series(flags, dtype=pl.Float64))
    joined = cap.join(combos, on=["variant", "_cell", "final_points", "capture_points"], how="left")
    out[joined["_i"].to_numpy()] = joined["_x"].to_numpy()
    return out, None


def _timed(m: pl.DataFrame, resolver: VariantResolver) -> tuple[np.ndarray | None, str | None]:
    """Per match, whether its variant (or its cell's override) has a match clock."""
    cell = m["cell"] if "cell" in m.columns else pl.Series([None] * m.height, dtype=pl.Utf8)
    pairs = list(zip(m["variant"].to_list(), cell.to_list()))
    clock: dict[tuple, bool] = {}
    for pair in set(pairs):
        v = resolver.get(*pair)
        if isinstance(v, str):
            return None, v
        clock[pair] = v.match_minutes > 0
    return np.array([clock[pair] for pair in pairs], bool), None


def _match_metrics(
    m: pl.DataFrame, resolver: VariantResolver, seed: int = 0, reps: int = BOOTSTRAP_REPS
) -> dict[str, dict]:
    if m.height == 0:
        return {k: _null("no matches") for k in _MATCH_METRICS}
    out: dict[str, dict] = {}
    deal = deal_ids(m)
    winner = m["winner"].to_numpy().astype(int)
    decided = winner >= 0
    draw_note = "decided matches only (draws excluded)"

    def share(x, mask=None):
        if mask is None:
            return cluster_share(x, deal, reps, seed)
        return cluster_share(np.asarray(x)[mask], deal[mask], reps, seed)

    def mean(x, mask=None):
        x = np.asarray(x, float)
        return cluster_mean_ci(x, deal) if mask is None else cluster_mean_ci(x[mask], deal[mask])

    out["hands_per_match"] = _out(mean(m["hands"].to_numpy()))
    out["minutes_per_match"] = _out(mean(m["minutes"].to_numpy()))

    # timed matches: the variant (or the cell's override) has a match clock
    timed, unknown = _timed(m, resolver)
    clock = np.array([e == "clock" for e in m["ended_by"].to_list()], bool)
    if unknown:
        out["clock_share"] = _null(unknown)
    elif not timed.any():
        out["clock_share"] = _null("untimed (match_minutes = 0): no clock to decide a match")
    else:
        out["clock_share"] = _out(
            share(clock, timed), None if timed.all() else f"timed matches only; {int((~timed).sum())} untimed excluded"
        )

    out["lead_changes"] = _out(mean(m["lead_changes"].to_numpy()))
    deficit_all = np.where(winner == 0, m["max_deficit_ns"].to_numpy(), m["max_deficit_ew"].to_numpy())
    out["deficit_overcome_mean"] = (
        _out(mean(deficit_all, decided), draw_note) if decided.any() else _null("no decided matches")
    )
    if decided.any():
        deficit = deficit_all[decided]
        out["deficit_overcome_max"] = {
            "value": float(deficit.max()),
            "low": None,
            "high": None,
            "n": int(np.unique(deal[decided]).size),
            "note": "largest observed; no interval for a maximum",
        }
    else:
        out["deficit_overcome_max"] = _null("no decided matches")

    first = m["first_declarers"].to_numpy().astype(int)
    out["first_declarer_win"] = (
        _out(share(winner == first, decided), draw_note) if decided.any() else _null("no decided matches")
    )
    # Seats can only be compared when skill is spread evenly over them: the same policy on both
    # sides, or a duplicate run (every match also played with the policies swapped).
    pol_ns, pol_ew = m["policy_ns"].to_list(), m["policy_ew"].to_list()
    swapped = m["swapped"].to_list() if "swapped" in m.columns else [False] * m.height
    even = all(a == b for a, b in zip(pol_ns, pol_ew)) or (any(swapped) and not all(swapped))
    if even and decided.any():
        ns = share(winner == 0, decided)
        out["ns_win"] = _out(ns, draw_note)
        out["seat_balance"] = _out(through_peak(balance, ns, 0.5, 1.0), "p = team NS win share; " + draw_note)
    else:
        why = (
            "the teams play different policies; seats compare only with equal policies or a --duplicate run"
            if not even
            else "no decided matches"
        )
        out["ns_win"] = _null(why)
        out["seat_balance"] = _null(why)
    out.update(_policy_metrics(m, winner, deal, seed, reps))
    return out


def _policy_metrics(
    m: pl.DataFrame, winner: np.ndarray, deal: np.ndarray | None = None, seed: int = 0, reps: int = BOOTSTRAP_REPS
) -> dict[str, dict]:
    """Decisiveness between policies A and B (A = the NS policy of the unswapped matches) as a
    three-way outcome over all their matches: A wins, draw, B wins; and N* from the net outcome."""
    keys3 = ("policy_a_win", "pair_draw", "policy_b_win", "n_star")
    ns, ew = m["policy_ns"].to_list(), m["policy_ew"].to_list()
    deal = np.arange(m.height) if deal is None else deal
    mixed = [i for i in range(m.height) if ns[i] != ew[i]]
    pair = policy_pair(m)
    if pair is None:
        return {k: _null("both teams play the same policy") for k in keys3}
    a, b = pair
    rows = np.array([i for i in mixed if {ns[i], ew[i]} == {a, b}], int)
    a_won = np.array([(winner[i] == 0 and ns[i] == a) or (winner[i] == 1 and ew[i] == a) for i in rows], float)
    drawn = np.array([winner[i] < 0 for i in rows], float)
    b_won = 1.0 - a_won - drawn
    d = deal[rows]
    note = f"A = {a}, B = {b}; all matches of the pair, draws counted (A wins + draw + B wins = 1)"
    if len(rows) < len(mixed):
        note += f"; {len(mixed) - len(rows)} match(es) of other policy pairs excluded"
    res = {
        "policy_a_win": _out(cluster_share(a_won, d, reps, seed), note),
        "pair_draw": _out(cluster_share(drawn, d, reps, seed), note),
        "policy_b_win": _out(cluster_share(b_won, d, reps, seed), note),
    }
    # N* from the net outcome X = A win - B win, bootstrapped over deals
    _, inv = np.unique(d, return_inverse=True)
    g = int(inv.max()) + 1
    sums = np.column_stack(
        [
            np.bincount(inv, minlength=g).astype(float),
            np.bincount(inv, weights=a_won, minlength=g),
            np.bincount(inv, weights=b_won, minlength=g),
        ]
    )

    def nstar(t):
        with np.errstate(invalid="ignore", divide="ignore"):
            pa, pb = t[..., 1] / t[..., 0], t[..., 2] / t[..., 0]
            mu = pa - pb
            s2 = np.maximum(pa + pb - mu * mu, 0.0)
            return np.where(mu == 0, np.inf, s2 / np.where(mu == 0, 1.0, mu * mu))

    est, _ = cluster_bootstrap(sums, nstar, reps, seed, method="bca")
    res["n_star"] = _out(
        est,
        "N* = var(X)/E[X]^2 of the net outcome X = +1 A wins, 0 draw, -1 B wins "
        "(draws counted); BCa bootstrap over deals; below 1: the gap exceeds one match's luck",
    )
    return res


def policy_pair(m: pl.DataFrame) -> tuple[str, str] | None:
    """The policies (A, B) the ``policy_*`` metrics compare in these matches: A is the NS policy of
    the unswapped matches between different policies (the most common), B the most common policy
    A meets; None when both teams play the same policy in every match."""
    ns, ew = m["policy_ns"].to_list(), m["policy_ew"].to_list()
    swapped = m["swapped"].to_list() if "swapped" in m.columns else [False] * m.height
    mixed = [i for i in range(m.height) if ns[i] != ew[i]]
    if not mixed:
        return None
    first = [ns[i] for i in mixed if not swapped[i]] or [ew[i] for i in mixed if swapped[i]]
    a = _most_common(first)
    b = _most_common([ew[i] if ns[i] == a else ns[i] for i in mixed if a in (ns[i], ew[i])])
    return a, b


def policy_pairs(matches, by: str = "variant") -> dict[str, tuple[str, str] | None]:
    """Per group (as ``summarise`` groups them), the policy pair (A, B) of its ``policy_*`` metrics."""
    m = _frame(matches, "matches")
    return {key: policy_pair(m.filter(pl.col(by) == key)) for key in sorted(set(m[by].unique().to_list()))}


def _most_common(items: list[str]) -> str:
    counts: dict[str, int] = {}
    for x in items:
        counts[x] = counts.get(x, 0) + 1
    return min(counts, key=lambda x: (-counts[x], x))


# --- paired comparisons ------------------------------------------------------------------------

DERIVED: dict[str, pl.Expr] = {
    "ns_win": (pl.col("winner") == 0).cast(pl.Float64),
    "decided": (pl.col("winner") >= 0).cast(pl.Float64),
    "decided_by_clock": (pl.col("ended_by") == "clock").cast(pl.Float64),
    "level_diff": pl.col("final_level_ns").cast(pl.Float64) - pl.col("final_level_ew").cast(pl.Float64),
    "deficit_overcome": pl.when(pl.col("winner") == 0)
    .then(pl.col("max_deficit_ns"))
    .when(pl.col("winner") == 1)
    .then(pl.col("max_deficit_ew"))
    .otherwise(None)
    .cast(pl.Float64),
}
_PAIR_KEY = ("seed", "swapped", "match")


def _paired_frame(matches_a, matches_b, metric) -> pl.DataFrame:
    expr = DERIVED.get(metric, pl.col(metric)) if isinstance(metric, str) else metric
    a, b = _frame(matches_a, "matches_a"), _frame(matches_b, "matches_b")
    keys = [c for c in _PAIR_KEY if c in a.columns and c in b.columns]
    if "match" not in keys:
        raise ValueError("paired_difference needs a match column in both frames")
    sides = []
    for name, f in (("matches_a", a), ("matches_b", b)):
        f = f.select(*keys, expr.cast(pl.Float64).alias("_x"))
        if f.select(keys).is_duplicated().any():
            raise ValueError(f"{name} repeats a ({', '.join(keys)}); pass one cell per frame")
        sides.append(f)
    joined = sides[0].join(sides[1], on=keys, how="inner", suffix="_b").drop_nulls(["_x", "_x_b"])
    deal = [c for c in ("seed", "match") if c in keys]
    return (
        joined.with_columns(_d=pl.col("_x") - pl.col("_x_b"))
        .sort(keys)
        .with_columns(_deal=pl.concat_str([pl.col(c).cast(pl.Utf8) for c in deal], separator="/"))
    )


def paired_difference(
    matches_a, matches_b, metric: str | pl.Expr, reps: int = BOOTSTRAP_REPS, seed: int = 0
) -> Estimate:
    """Mean of (A - B) of a per-match metric over the tables both frames share (common random
    numbers: same seed, same match index, same deals), with a percentile bootstrap interval that
    resamples deals (both tables of a duplicate deal go together); n = deals. ``metric``: a match
    column, a name in ``DERIVED`` or a polars expression. Pairs where either side is null (e.g.
    the deficit of a draw) are dropped."""
    return paired_test(matches_a, matches_b, metric, reps=reps, seed=seed)["estimate"]


def paired_test(
    matches_a, matches_b, metric: str | pl.Expr, margin: float | None = None, reps: int = BOOTSTRAP_REPS, seed: int = 0
) -> dict:
    """``paired_difference`` with its tests: ``estimate`` (Estimate, bootstrap over deals),
    ``se`` (the bootstrap standard error), ``p`` (two-sided, H0: no difference, normal with that
    SE) and, with a ``margin``, ``p_equivalent`` (TOST, H0: |difference| >= margin)."""
    from .stats import normal_p, tost_p

    j = _paired_frame(matches_a, matches_b, metric)
    if j.height == 0:
        nan = float("nan")
        return {"estimate": Estimate(nan, nan, nan, 0), "se": nan, "p": nan, "p_equivalent": nan, "margin": margin}
    _, inv = np.unique(j["_deal"].to_numpy(), return_inverse=True)
    g = int(inv.max()) + 1
    d = j["_d"].to_numpy()
    sums = np.column_stack([np.bincount(inv, minlength=g).astype(float), np.bincount(inv, weights=d, minlength=g)])
    est, boots = cluster_bootstrap(sums, lambda t: t[..., 1] / t[..., 0], reps, seed)
    se = float(np.std(boots, ddof=1)) if boots.size > 1 else float("nan")
    out = {"estimate": est, "se": se, "p": normal_p(est.value, se), "margin": margin}
    out["p_equivalent"] = tost_p(est.value, se, margin) if margin is not None else None
    return out


__all__ = [
    "METRICS",
    "METRIC_KEYS",
    "DERIVED",
    "DEAL_KEY",
    "MATCH_KEY",
    "summarise",
    "policy_pair",
    "policy_pairs",
    "paired_difference",
    "paired_test",
    "count_once",
    "deal_ids",
    "bootstrap_match_sums",
    "balance",
    "n_star",
    "n_star_net",
    "band",
    "capture_crossed",
]
