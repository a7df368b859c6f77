"""How the level difference between the two teams evolves over a match: the lead history of a run.

``lead_history(hands)`` gives, per cell and pairing and per hand count h = 1..H, the quantiles 5, 25,
50, 75 and 95% of the level difference after h hands across the matches, the number of matches n and the
share of them still playing. ``simsuite.report.plots.fan_chart`` draws one such history as a fan (the
median, the middle half, nine in ten matches); the report's "How a match unfolds" section shows one panel
per cell. The quantiles are spreads of the matches, not intervals of an estimate.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import polars as pl

from ..errors import SimsuiteError
from .metrics import MATCH_KEY, count_once, policy_pair

QUANTILES = (0.05, 0.25, 0.50, 0.75, 0.95)
Q_COLUMNS = ("q05", "q25", "q50", "q75", "q95")
NEEDED = (
    "cell",
    "match",
    "hand",
    "swapped",
    "policy_ns",
    "policy_ew",
    "level_before_ns",
    "level_before_ew",
    "levels_ns",
    "levels_ew",
)
GROUP = ("cell", "policy_a", "policy_b")  # one history: a cell and a pairing (A = B for an equal pair)
SCHEMA = {
    "cell": pl.String,
    "policy_a": pl.String,
    "policy_b": pl.String,
    "equal": pl.Boolean,
    "hand": pl.Int32,
    "n": pl.Int64,
    "playing": pl.Float64,
    **{q: pl.Float64 for q in Q_COLUMNS},
}


def lead_history(
    hands: pl.DataFrame | pl.LazyFrame,
    max_hands: int | None = None,
    *,
    matches: pl.DataFrame | pl.LazyFrame | None = None,
    first: Mapping[str, str] | None = None,
) -> pl.DataFrame:
    """The level difference after each hand of a match, across the matches of each cell and pairing.

    ``hands``: hand rows of a run (``simsuite.sim.results.load(...).hands``; the columns of ``NEEDED``,
    and ``run``, ``variant``, ``seed`` where present to tell matches apart). Returns one row per cell,
    pairing and hand count ``hand`` = h = 1..H (H: the cell's longest match in that pairing, at most
    ``max_hands``), with columns ``SCHEMA``:

    * ``policy_a``, ``policy_b``, ``equal``: the pairing. For an equal pair (the same policy on both
      teams, ``policy_a == policy_b``) the difference is team N-S's level minus team E-W's. For two
      different policies it is policy A's team minus policy B's, following A's team through the
      swapped (duplicate) tables: A is ``first[cell]`` where given and in the pair, else the cell's policy
      A of ``metrics.policy_pair`` (the N-S policy of its unswapped tables), the first-named policy of
      ``--policies A,B``; a pair without it in a cell of several pairs takes its own ``policy_pair``.
    * ``q05`` … ``q95``: the 5, 25, 50, 75 and 95% quantiles of the difference after h hands (numpy's
      linear interpolation between order statistics), a spread of the matches, not an interval.
    * ``n``: the matches (tables) of the cell and pairing, the same at every h. A match that ended before
      hand h keeps its final difference (carried forward), so every h counts all n matches.
    * ``playing``: the share of the n matches that played an h-th hand (1 at h = 1).

    The level after a hand is the next hand's ``level_before``; after a match's last hand it is the
    match's ``final_level_*`` where ``matches`` (match rows) holds the match, else ``level_before`` plus
    the ``levels_*`` gained, which is the same except where a variant's ``must_defend_end_level`` held a
    team at the end level in the last hand of a match that the clock or the hand cap ended. In an
    equal-policy duplicate run the swapped table, a copy of the first, is counted once
    (``metrics.count_once``).

    Deterministic and vectorised: a cell and pairing is one matrix of matches by hands (tens of thousands of
    matches take a fraction of a second when each match's rows lie together, hand after hand, as a results
    store holds them; other rows are sorted first, which takes longer). An empty frame, missing columns,
    nulls, a ``max_hands`` below 1 and a match whose hands are not 0, 1, … in a row each raise
    ``SimsuiteError`` naming the problem.
    """
    h = _hands(hands)
    if max_hands is not None and (isinstance(max_hands, bool) or not isinstance(max_hands, int) or max_hands < 1):
        raise SimsuiteError(
            f"lead_history: max_hands must be a whole number of hands from 1 up, or None; got {max_hands!r}"
        )
    key = [c for c in MATCH_KEY if c in h.columns]
    h, start = _in_match_order(h, key)
    tables = h.filter(pl.Series(start))  # a match's first row stands for the match
    h, _, dropped = count_once(h, tables)
    if dropped:
        h, start = _in_match_order(h, key)
        tables = h.filter(pl.Series(start))
    n_rows = h.height
    last = np.ones(n_rows, bool)
    last[:-1] = start[1:]
    hand = h["hand"].to_numpy().astype(np.int64)
    row_match = np.cumsum(start) - 1  # each row's match, numbered in the frame's order

    # the levels after each hand: the next hand's levels before; after the last hand the match's final levels
    final = _final_levels(h, key, matches)
    after = {}
    for t in ("ns", "ew"):
        before = h[f"level_before_{t}"].to_numpy().astype(np.int64)
        after[t] = np.where(last, final[t], np.append(before[1:], 0))
    side = tables.join(
        _orientation(tables, first), on=["cell", "policy_ns", "policy_ew"], how="left", maintain_order="left"
    )
    sign = side["_sign"].to_numpy().astype(np.int64)
    diff = (after["ns"] - after["ew"]) * sign[row_match]

    # per match: its length and final difference; the matches of each cell and pairing, in a fixed order
    length = np.bincount(row_match, minlength=tables.height)
    match_final = diff[last]
    order = side.with_row_index("_m").sort([*GROUP, *key])
    gid = order.select(pl.struct(GROUP).rle_id()).to_series().to_numpy().astype(np.int64)
    ordered = order["_m"].to_numpy().astype(np.int64)
    bounds = np.append(np.flatnonzero(np.diff(np.append(-1, gid))), len(gid))
    match_group = np.empty(len(ordered), np.int64)
    match_group[ordered] = gid
    where = np.empty(len(ordered), np.int64)  # a match's row in its group's matrix
    where[ordered] = np.arange(len(ordered)) - bounds[gid]
    row_group = match_group[row_match]
    by_group = np.argsort(row_group, kind="stable")
    row_bounds = np.searchsorted(row_group[by_group], np.arange(len(bounds)))
    parts = []
    for g in range(len(bounds) - 1):
        ms = ordered[bounds[g] : bounds[g + 1]]
        n = len(ms)
        lens = length[ms]
        H = int(lens.max()) if max_hands is None else min(int(lens.max()), max_hands)
        # every match carries its final difference to hand H; its played hands overwrite their columns
        M = np.repeat(match_final[ms, None].astype(np.int32), H, axis=1)
        rows = by_group[row_bounds[g] : row_bounds[g + 1]]
        rows = rows[hand[rows] < H]
        M[where[row_match[rows]], hand[rows]] = diff[rows]
        M.sort(axis=0)
        pos = np.asarray(QUANTILES) * (n - 1)
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, n - 1)
        q = M[lo].astype(np.float64) + (M[hi] - M[lo]) * (pos - lo)[:, None]  # (quantiles, H)
        played = np.bincount(np.minimum(lens, H + 1), minlength=H + 2)[::-1].cumsum()[::-1]  # matches with >= h hands
        cell, a, b = (order[c][int(bounds[g])] for c in GROUP)
        parts.append(
            pl.DataFrame(
                {
                    "cell": [cell] * H,
                    "policy_a": [a] * H,
                    "policy_b": [b] * H,
                    "equal": [a == b] * H,
                    "hand": np.arange(1, H + 1),
                    "n": np.full(H, n),
                    "playing": played[1 : H + 1] / n,
                    **{c: q[i] for i, c in enumerate(Q_COLUMNS)},
                },
                schema=SCHEMA,
            )
        )
    return pl.concat(parts)


def _in_match_order(h: pl.DataFrame, key: list[str]) -> tuple[pl.DataFrame, np.ndarray]:
    """The hand frame with each match's rows together, hands 0, 1, 2, ... in a row (as a results store
    holds them; sorted by match and hand where not), and which rows start a match. A match whose hands
    are not 0, 1, ... without a gap or a repeat raises ``SimsuiteError``."""
    for attempt in range(2):
        mid = h.select(pl.struct(key).rle_id()).to_series().to_numpy()
        hand = h["hand"].to_numpy().astype(np.int64)
        start = np.ones(len(mid), bool)
        start[1:] = mid[1:] != mid[:-1]
        bad = np.flatnonzero(np.where(start, hand != 0, hand != np.append(-1, hand[:-1]) + 1))
        if not bad.size and not h.filter(pl.Series(start)).select(key).is_duplicated().any():
            return h, start
        if attempt == 0:
            h = h.sort([*key, "hand"])
    row = h.row(int(bad[0]), named=True)
    raise SimsuiteError(
        f"lead_history: the hands of match {row['match']} of cell {row['cell']!r} (swapped {row['swapped']}) "
        "are not 0, 1, 2, ... in a row: a hand is missing or repeated"
    )


def _hands(hands) -> pl.DataFrame:
    """The hand frame, checked: a polars frame with the ``NEEDED`` columns, rows, and no nulls in them."""
    if isinstance(hands, pl.LazyFrame):
        hands = hands.collect()
    if not isinstance(hands, pl.DataFrame):
        raise SimsuiteError(f"lead_history: hands must be a polars DataFrame or LazyFrame, got {type(hands).__name__}")
    missing = [c for c in NEEDED if c not in hands.columns]
    if missing:
        raise SimsuiteError(
            f"lead_history: the hand frame lacks column(s) {', '.join(missing)} (the hand table: docs/results.md)"
        )
    if hands.height == 0:
        raise SimsuiteError("lead_history: the hand frame is empty: no hands, so no match to follow")
    nulls = [c for c, k in zip(NEEDED, hands.select(NEEDED).null_count().row(0)) if k]
    if nulls:
        raise SimsuiteError(f"lead_history: column(s) {', '.join(nulls)} of the hand frame hold nulls")
    keep = [c for c in MATCH_KEY if c in hands.columns]
    return hands.select(*dict.fromkeys([*keep, *NEEDED]))


def _orientation(tables: pl.DataFrame, first: Mapping[str, str] | None) -> pl.DataFrame:
    """Per (cell, policy_ns, policy_ew): the pairing's ``policy_a``, ``policy_b`` and ``_sign`` (+1 where A
    sits N-S, -1 where it sits E-W; +1 for an equal pair, read N-S minus E-W)."""
    rows = []
    for (cell,), t in tables.group_by("cell", maintain_order=True):
        pairs = t.select("policy_ns", "policy_ew").unique().rows()
        mixed = t.filter(pl.col("policy_ns") != pl.col("policy_ew"))
        cell_pair = policy_pair(mixed) if mixed.height else None
        for ns, ew in pairs:
            if ns == ew:
                rows.append((cell, ns, ew, ns, ew, 1))
                continue
            pair = {ns, ew}
            if first is not None and first.get(cell) in pair:
                a = first[cell]
            elif cell_pair is not None and cell_pair[0] in pair:
                a = cell_pair[0]
            else:
                own = mixed.filter(pl.col("policy_ns").is_in(list(pair)) & pl.col("policy_ew").is_in(list(pair)))
                a = policy_pair(own)[0]
            b = ew if a == ns else ns
            rows.append((cell, ns, ew, a, b, 1 if a == ns else -1))
    return pl.DataFrame(
        rows,
        schema={
            "cell": pl.String,
            "policy_ns": pl.String,
            "policy_ew": pl.String,
            "policy_a": pl.String,
            "policy_b": pl.String,
            "_sign": pl.Int64,
        },
        orient="row",
    )


def _final_levels(h: pl.DataFrame, key: list[str], matches) -> dict[str, np.ndarray]:
    """Per hand row, the levels after the match's last hand: ``final_level_*`` of ``matches`` where it holds
    the match, else the row's ``level_before`` plus the levels gained (used on each match's last row)."""
    own = {
        t: (h[f"level_before_{t}"].cast(pl.Int64) + h[f"levels_{t}"].cast(pl.Int64)).to_numpy() for t in ("ns", "ew")
    }
    if matches is None:
        return own
    if isinstance(matches, pl.LazyFrame):
        matches = matches.collect()
    if not isinstance(matches, pl.DataFrame):
        raise SimsuiteError(
            f"lead_history: matches must be a polars DataFrame or LazyFrame, got {type(matches).__name__}"
        )
    on = [c for c in key if c in matches.columns]
    missing = [c for c in ("final_level_ns", "final_level_ew") if c not in matches.columns]
    if missing or "match" not in on:
        lacks = missing + ([] if "match" in on else ["match"])
        raise SimsuiteError(f"lead_history: the match frame lacks column(s) {', '.join(lacks)}")
    fin = matches.select(*on, "final_level_ns", "final_level_ew").unique(subset=on, keep="first")
    joined = h.select(on).join(fin, on=on, how="left", maintain_order="left")
    return {
        t: np.where(
            joined[f"final_level_{t}"].is_null().to_numpy(), own[t], joined[f"final_level_{t}"].fill_null(0).to_numpy()
        ).astype(np.int64)
        for t in ("ns", "ew")
    }


__all__ = ["lead_history", "QUANTILES", "Q_COLUMNS", "NEEDED", "SCHEMA"]
