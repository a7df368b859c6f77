"""Metrics of a results store: game length, swing and fairness per variant or sweep cell.

``summarise`` turns hand and match frames (``simsuite.schema``) into one row per group, every
metric with its 95% interval and sample size; ``format_summary`` prints them side by side.
``docs/metrics.md`` defines each metric exactly, with its unit, interval method and caveats.

Intervals: Wilson for proportions of independent matches; a normal interval for means over
independent matches; a percentile bootstrap that resamples whole matches for anything computed
over hands, because hands within a match are correlated (same teams, levels and clock).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

import numpy as np
import polars as pl

from .report_text import table
from .scoring import declarer_levels, defender_levels
from .stats import Estimate, mean_ci, wilson
from .variant import Variant, load_variant

BOOTSTRAP_REPS = 2000
_BOOT_CELLS = 4_000_000  # resampled indices drawn at once (reps x matches), to bound memory
_MATCH_KEY = ("run", "variant", "cell", "seed", "swapped", "policy_ns", "policy_ew", "match")


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
    Metric("policy_a_win", "fairness", "policy A wins the match (share)"),
    Metric("n_star", "fairness", "N*: matches until skill outweighs luck"),
)
METRIC_KEYS = tuple(m.key for m in METRICS)
_MATCH_METRICS = ("hands_per_match", "minutes_per_match", "clock_share", "lead_changes", "deficit_overcome_mean",
                  "deficit_overcome_max", "first_declarer_win", "ns_win", "seat_balance", "policy_a_win", "n_star")


# --- small transforms, public for tests and for the docs ---------------------------------------


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


def band(variant: Variant, defender_points: int) -> tuple[bool, int]:
    """The scoring band of a hand as its result: (take-over, levels gained by the gaining side)."""
    if defender_points >= variant.takeover:
        return True, defender_levels(variant, defender_points)
    return False, declarer_levels(variant, defender_points)


def capture_crossed(variant: Variant, final_points: int, capture_points: int) -> bool:
    """Whether the last-trick capture moved the hand into another scoring band: the band of the
    final points differs from the band of the final points without the capture."""
    return capture_points != 0 and band(variant, final_points) != band(variant, final_points - capture_points)


def _through_peak(f: Callable[[float], float], est: Estimate, peak: float, peak_value: float) -> Estimate:
    """Map a Wilson interval through f, which is monotone on each side of ``peak`` and reaches
    ``peak_value`` there: an interval that contains the peak reaches ``peak_value``."""
    if est.n == 0:
        return est
    a, b = f(est.low), f(est.high)
    lo, hi = min(a, b), max(a, b)
    if est.low <= peak <= est.high:
        if peak_value > hi:
            hi = peak_value
        else:
            lo = peak_value
    return Estimate(f(est.value), lo, hi, est.n)


# --- the bootstrap by match --------------------------------------------------------------------


def bootstrap_match_sums(sums: np.ndarray, reps: int = BOOTSTRAP_REPS, seed: int = 0) -> np.ndarray:
    """Resample matches with replacement: ``sums`` holds per-match column sums (matches x k);
    the result holds, for each of ``reps`` resamples, the column sums over the drawn matches.

    Draws the same indices as ``stats.bootstrap_mean(values, groups, reps, seed)`` whenever
    reps x matches fits one block, so ratios of these sums match its means.
    """
    sums = np.asarray(sums, dtype=float)
    g, k = sums.shape
    rng = np.random.default_rng(seed)
    out = np.empty((reps, k))
    block = max(1, min(reps, _BOOT_CELLS // max(g, 1)))
    for start in range(0, reps, block):
        c = min(block, reps - start)
        pick = rng.integers(0, g, size=(c, g))
        weights = np.bincount((pick + (np.arange(c) * g)[:, None]).ravel(), minlength=c * g).reshape(c, g)
        out[start:start + c] = weights @ sums
    return out


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
        raise ValueError(f"{name} lacks column(s) {', '.join(missing)} (see simsuite.schema)")


def _out(est: Estimate, note: str | None = None) -> dict[str, Any]:
    def clean(x):
        return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)

    d = {"value": clean(est.value), "low": clean(est.low), "high": clean(est.high), "n": int(est.n)}
    if note:
        d["note"] = note
    return d


def _null(note: str) -> dict[str, Any]:
    return {"value": None, "low": None, "high": None, "n": 0, "note": note}


class _Variants:
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


def summarise(hands, matches, by: str = "variant", variants: Mapping[str, Variant] | None = None,
              seed: int = 0, reps: int = BOOTSTRAP_REPS) -> list[dict]:
    """One row per group (``by`` = "variant" or "cell"), sorted by the group key.

    Each row: the group key, ``n_matches``, ``n_hands`` and every metric of ``METRICS`` as
    ``{"value", "low", "high", "n"}`` (95% interval; ``"note"`` when there is a caveat; all
    None with n = 0 when the metric does not apply). ``variants`` maps a cell or variant id
    to its Variant (needed for cells with overrides); otherwise ids load from the registry.
    Bootstraps draw from ``seed`` per group, so a group's figures do not depend on the others.
    """
    if by not in ("variant", "cell"):
        raise ValueError(f"by must be 'variant' or 'cell', got {by!r}")
    h = _frame(hands, "hands")
    m = _frame(matches, "matches")
    _need(h, "hands", [by, "variant", "match", "levels_ns", "levels_ew", "takeover", "final_points",
                       "capture_points", "minutes"])
    _need(m, "matches", [by, "variant", "match", "hands", "minutes", "winner", "ended_by", "first_declarers",
                         "lead_changes", "max_deficit_ns", "max_deficit_ew", "policy_ns", "policy_ew"])
    resolver = _Variants(variants)
    keys = sorted(set(h[by].unique().to_list()) | set(m[by].unique().to_list()))
    rows = []
    for key in keys:
        hg = h.filter(pl.col(by) == key)
        mg = m.filter(pl.col(by) == key)
        row: dict[str, Any] = {by: key}
        if by == "cell":
            row["variant"] = ",".join(sorted(set(mg["variant"].to_list()) | set(hg["variant"].to_list())))
        row["n_matches"] = mg.height
        row["n_draws"] = int((mg["winner"] < 0).sum())
        row["n_hands"] = hg.height
        row.update(_hand_metrics(hg, resolver, seed, reps))
        row.update(_match_metrics(mg, resolver))
        rows.append({**{k: row[k] for k in row if not isinstance(row[k], dict)},
                     **{k: row[k] for k in METRIC_KEYS}})
    return rows


def _hand_metrics(h: pl.DataFrame, resolver: _Variants, seed: int, reps: int) -> dict[str, dict]:
    key_cols = [c for c in _MATCH_KEY if c in h.columns]
    change = (pl.col("levels_ns").cast(pl.Int64) + pl.col("levels_ew").cast(pl.Int64)).abs().cast(pl.Float64)
    h = h.with_columns(_change=change)
    crossed, cross_note = _crossings(h, resolver)
    h = h.with_columns(_crossed=pl.Series(crossed, dtype=pl.Float64) if crossed is not None else pl.lit(0.0))
    per = (h.group_by(key_cols, maintain_order=False)
           .agg(pl.len().cast(pl.Float64).alias("n"), pl.col("minutes").cast(pl.Float64).sum().alias("minutes"),
                pl.col("_change").sum().alias("c1"), (pl.col("_change") ** 2).sum().alias("c2"),
                (pl.col("_change") >= 2).cast(pl.Float64).sum().alias("big"),
                pl.col("takeover").cast(pl.Float64).sum().alias("to"), pl.col("_crossed").sum().alias("cross"))
           .sort(key_cols))
    cols = ["n", "minutes", "c1", "c2", "big", "to", "cross"]
    sums = per.select(cols).to_numpy().astype(float).reshape(-1, len(cols))
    g = sums.shape[0]
    if g == 0:
        return {k: _null("no hands") for k in ("minutes_per_hand", "level_change_mean", "level_change_sd", "big_swing_share",
                                   "takeover_rate", "capture_band_share", "declarer_hold")}
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


def _crossings(h: pl.DataFrame, resolver: _Variants) -> tuple[np.ndarray | None, str | None]:
    """Per hand, 1.0 where the capture moved the band; None (and why) if a variant is unknown.
    Each distinct (variant, cell, final points, capture points) is scored once."""
    cell = pl.col("cell").fill_null("") if "cell" in h.columns else pl.lit("")
    h = h.select(pl.col("variant"), cell.alias("_cell"), pl.col("final_points").cast(pl.Int64),
                 pl.col("capture_points").cast(pl.Int64)).with_row_index("_i")
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


def _timed(m: pl.DataFrame, resolver: _Variants) -> tuple[np.ndarray | None, str | None]:
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


def _match_metrics(m: pl.DataFrame, resolver: _Variants) -> dict[str, dict]:
    if m.height == 0:
        return {k: _null("no matches") for k in _MATCH_METRICS}
    out: dict[str, dict] = {}
    winner = m["winner"].to_numpy().astype(int)
    decided = winner >= 0
    draw_note = "decided matches only (draws excluded)"
    out["hands_per_match"] = _out(mean_ci(m["hands"].to_numpy()))
    out["minutes_per_match"] = _out(mean_ci(m["minutes"].to_numpy()))

    # timed matches: the variant (or the cell's override) has a match clock
    timed, unknown = _timed(m, resolver)
    clock = np.array([e == "clock" for e in m["ended_by"].to_list()], bool)
    if unknown:
        out["clock_share"] = _null(unknown)
    elif not timed.any():
        out["clock_share"] = _null("untimed (match_minutes = 0): no clock to decide a match")
    else:
        out["clock_share"] = _out(wilson(int((clock & timed).sum()), int(timed.sum())),
                                  None if timed.all() else f"timed matches only; {int((~timed).sum())} untimed excluded")

    out["lead_changes"] = _out(mean_ci(m["lead_changes"].to_numpy()))
    deficit = np.where(winner == 0, m["max_deficit_ns"].to_numpy(), m["max_deficit_ew"].to_numpy())[decided]
    out["deficit_overcome_mean"] = _out(mean_ci(deficit), draw_note)
    if deficit.size:
        out["deficit_overcome_max"] = {"value": float(deficit.max()), "low": None, "high": None,
                                       "n": int(deficit.size), "note": "largest observed; no interval for a maximum"}
    else:
        out["deficit_overcome_max"] = _null("no decided matches")

    first = m["first_declarers"].to_numpy().astype(int)
    out["first_declarer_win"] = _out(wilson(int((decided & (winner == first)).sum()), int(decided.sum())), draw_note)
    ns = wilson(int((winner == 0).sum()), int(decided.sum()))
    # Seats can only be compared when skill is spread evenly over them: the same policy on both
    # sides, or a duplicate run (every match also played with the policies swapped).
    pol_ns, pol_ew = m["policy_ns"].to_list(), m["policy_ew"].to_list()
    swapped = m["swapped"].to_list() if "swapped" in m.columns else [False] * m.height
    even = all(a == b for a, b in zip(pol_ns, pol_ew)) or (any(swapped) and not all(swapped))
    if even:
        out["ns_win"] = _out(ns, draw_note)
        out["seat_balance"] = _out(_through_peak(balance, ns, 0.5, 1.0), "p = team NS win share; " + draw_note)
    else:
        why = "the teams play different policies; seats compare only with equal policies or a --duplicate run"
        out["ns_win"] = _null(why)
        out["seat_balance"] = _null(why)
    out.update(_policy_metrics(m, winner))
    return out


def _policy_metrics(m: pl.DataFrame, winner: np.ndarray) -> dict[str, dict]:
    """Policy A's match win share (A = the NS policy of the unswapped matches) and N*."""
    ns, ew = m["policy_ns"].to_list(), m["policy_ew"].to_list()
    swapped = m["swapped"].to_list() if "swapped" in m.columns else [False] * m.height
    mixed = [i for i in range(m.height) if ns[i] != ew[i]]
    if not mixed:
        return {k: _null("both teams play the same policy") for k in ("policy_a_win", "n_star")}
    first = [ns[i] for i in mixed if not swapped[i]] or [ew[i] for i in mixed if swapped[i]]
    a = _most_common(first)
    b = _most_common([ew[i] if ns[i] == a else ns[i] for i in mixed if a in (ns[i], ew[i])])
    rows = [i for i in mixed if {ns[i], ew[i]} == {a, b}]
    dec = [i for i in rows if winner[i] >= 0]
    wins = sum(1 for i in dec if (winner[i] == 0 and ns[i] == a) or (winner[i] == 1 and ew[i] == a))
    p = wilson(wins, len(dec))
    note = f"A = {a}, B = {b}; decided matches only (draws excluded)"
    if len(rows) < len(mixed):
        note += f"; {len(mixed) - len(rows)} match(es) of other policy pairs excluded"
    if not dec:
        return {k: _null(note) for k in ("policy_a_win", "n_star")}
    return {"policy_a_win": _out(p, note),
            "n_star": _out(_through_peak(n_star, p, 0.5, math.inf),
                           "N* = p(1-p)/(p-1/2)^2 from policy A's win share p; interval from its Wilson bounds")}


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
    "deficit_overcome": pl.when(pl.col("winner") == 0).then(pl.col("max_deficit_ns"))
    .when(pl.col("winner") == 1).then(pl.col("max_deficit_ew")).otherwise(None).cast(pl.Float64),
}
_PAIR_KEY = ("seed", "swapped", "match")


def paired_difference(matches_a, matches_b, metric: str | pl.Expr) -> Estimate:
    """Mean of (A - B) of a per-match metric over matches both frames share, with a normal
    interval on the paired differences (common random numbers: same seed, same match index,
    same deals). ``metric``: a match column, a name in ``DERIVED`` or a polars expression.
    Pairs where either side is null (e.g. the deficit of a draw) are dropped."""
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
    return mean_ci((joined["_x"] - joined["_x_b"]).to_numpy())


# --- the text table ----------------------------------------------------------------------------


def _num(x: float | None) -> str:
    if x is None:
        return "n/a"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    ax = abs(x)
    return f"{x:.1f}" if ax >= 100 else f"{x:.2f}" if ax >= 10 else f"{x:.3f}"


def format_cell(d: dict) -> str:
    """``value [low, high] n=N``; ``n/a`` for a metric that does not apply."""
    if d.get("value") is None:
        return "n/a"
    if d.get("low") is None and d.get("high") is None:
        return f"{_num(d['value'])} n={d['n']:,}"
    return f"{_num(d['value'])} [{_num(d['low'])}, {_num(d['high'])}] n={d['n']:,}"


def format_summary(rows: list[dict]) -> str:
    """A text table: metrics down, groups across (value [95% interval] n), then the notes."""
    if not rows:
        return "no results"
    by = "cell" if "cell" in rows[0] else "variant"
    header = ["metric"] + [str(r[by]) for r in rows]
    body: list[list[str]] = []
    if by == "cell":
        body.append(["variant"] + [str(r.get("variant", "")) for r in rows])
    body.append(["matches"] + [f"{r['n_matches']:,}" for r in rows])
    body.append(["draws"] + [f"{r.get('n_draws', 0):,}" for r in rows])
    body.append(["hands"] + [f"{r['n_hands']:,}" for r in rows])
    section = None
    notes: list[str] = []
    for spec in METRICS:
        if spec.section != section:
            section = spec.section
            body.append([f"[{section}]"] + [""] * len(rows))
        found = [r.get(spec.key) or _null("missing") for r in rows]
        body.append([spec.label] + [format_cell(d) for d in found])
        said = [d.get("note") for d in found]
        if len(rows) > 1 and all(said) and len(set(said)) == 1:
            notes.append(f"{spec.label}: {said[0]}")  # the same for every group: say it once
        else:
            notes += [f"{spec.label} ({r[by]}): {n}" for r, n in zip(rows, said) if n]
    text = table(header, body, max_width=60)
    text += "\n\n95% intervals: Wilson for match shares, normal for per-match means, bootstrap by match for per-hand figures."
    if notes:
        text += "\nNotes:\n" + "\n".join(f"  {n}" for n in notes)
    return text


__all__ = ["METRICS", "METRIC_KEYS", "DERIVED", "summarise", "format_summary", "format_cell", "paired_difference",
           "bootstrap_match_sums", "balance", "n_star", "band", "capture_crossed"]
