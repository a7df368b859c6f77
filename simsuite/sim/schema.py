"""The results schema, in one place: one row per hand and one per match (docs/results.md).

``hand_frame`` and ``match_frame`` turn a ``MatchBatch`` from the compiled engine into polars
DataFrames with these columns, tagged with the run, the variant, the sweep cell and the policies.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..engine import match as M
from ..engine.hand import RECORD_FIELDS
from ..errors import SimsuiteError

# The variant's field ranges (docs/variants.md) keep ordinary hands inside these columns; a rare
# hand that still overflows one (a huge capture in an uncapped variant) is named, not wrapped.
_INT_RANGES = {dtype: np.iinfo(np_type) for dtype, np_type in
               ((pl.Int8, np.int8), (pl.Int16, np.int16), (pl.Int32, np.int32), (pl.Int64, np.int64))}

HAND_SCHEMA: dict[str, pl.DataType] = {
    "run": pl.Utf8, "variant": pl.Utf8, "cell": pl.Utf8, "match": pl.Int64, "hand": pl.Int32, "seed": pl.Int64,
    "policy_ns": pl.Utf8, "policy_ew": pl.Utf8, "swapped": pl.Boolean,
    "dealer": pl.Int8, "declarers": pl.Int8, "declarer_seat": pl.Int8, "level": pl.Int8, "trump": pl.Int8,
    "level_before_ns": pl.Int8, "level_before_ew": pl.Int8,
    "trick_points": pl.Int32, "capture_multiplier": pl.Int32, "capture_points": pl.Int32, "capture_by": pl.Int8,
    "penalties": pl.Int32, "final_points": pl.Int32, "bottom_points": pl.Int32,
    "takeover": pl.Boolean, "levels_ns": pl.Int8, "levels_ew": pl.Int8, "next_declarers": pl.Int8,
    "next_dealer": pl.Int8, "tricks": pl.Int16, "throws": pl.Int16, "throws_failed": pl.Int16,
    "minutes": pl.Float32, "declared": pl.Boolean, "redeals": pl.Int16, "forfeit": pl.Boolean,
}

MATCH_SCHEMA: dict[str, pl.DataType] = {
    "run": pl.Utf8, "variant": pl.Utf8, "cell": pl.Utf8, "match": pl.Int64, "seed": pl.Int64,
    "policy_ns": pl.Utf8, "policy_ew": pl.Utf8, "swapped": pl.Boolean,
    "first_declarers": pl.Int8, "first_dealer": pl.Int8, "hands": pl.Int32, "minutes": pl.Float32,
    "final_level_ns": pl.Int8, "final_level_ew": pl.Int8, "winner": pl.Int8, "ended_by": pl.Utf8,
    "lead_changes": pl.Int16, "max_deficit_ns": pl.Int8, "max_deficit_ew": pl.Int8,
}

_ENDED = {M.ENDED_LEVEL: "level", M.ENDED_CLOCK: "clock", M.ENDED_CAP: "hand cap"}


def hand_frame(batch, *, run: str, variant: str, cell: str, seed: int, policy_ns: str, policy_ew: str,
               swapped: bool, start_level: int, match_offset: int = 0) -> pl.DataFrame:
    """One row per hand of every match in ``batch`` (a ``simsuite.compete.match.MatchBatch``)."""
    counts = batch.hand_count
    total = int(counts.sum())
    rows = np.concatenate([batch.hands[i, : counts[i]] for i in range(len(counts))]) if total else np.zeros((0, len(RECORD_FIELDS)), np.int64)
    col = {name: rows[:, i] for i, name in enumerate(RECORD_FIELDS)}
    match_ids = np.repeat(np.arange(batch.start, batch.start + len(counts)) + match_offset, counts)
    hand_ids = np.concatenate([np.arange(c) for c in counts]) if total else np.zeros(0, np.int64)
    before = np.concatenate([np.vstack([[start_level, start_level], batch.levels[i, : counts[i] - 1]])
                             for i in range(len(counts)) if counts[i]]) if total else np.zeros((0, 2), np.int64)
    data = {
        "run": [run] * total, "variant": [variant] * total, "cell": [cell] * total,
        "match": match_ids, "hand": hand_ids, "seed": np.full(total, seed),
        "policy_ns": [policy_ns] * total, "policy_ew": [policy_ew] * total, "swapped": np.full(total, swapped),
        "dealer": col["dealer"], "declarers": col["declarers"], "declarer_seat": col["declarer_seat"],
        "level": col["level"], "trump": col["trump"],
        "level_before_ns": before[:, 0], "level_before_ew": before[:, 1],
        "trick_points": col["trick_points"], "capture_multiplier": col["capture_multiplier"],
        "capture_points": col["capture_points"], "capture_by": col["capture_by"], "penalties": col["penalties"],
        "final_points": col["final_points"], "bottom_points": col["bottom_points"],
        "takeover": col["takeover"].astype(bool), "levels_ns": col["levels_ns"], "levels_ew": col["levels_ew"],
        "next_declarers": col["next_declarers"], "next_dealer": col["next_dealer"], "tricks": col["tricks"],
        "throws": col["throws"], "throws_failed": col["throws_failed"], "minutes": col["minutes_x100"] / 100.0,
        "declared": col["declared"].astype(bool), "redeals": col["redeals"], "forfeit": col["forfeit"].astype(bool),
    }
    _check_fits(data, HAND_SCHEMA, variant)
    return pl.DataFrame(data).cast(HAND_SCHEMA).select(list(HAND_SCHEMA))


def match_frame(batch, *, run: str, variant: str, cell: str, seed: int, policy_ns: str, policy_ew: str,
                swapped: bool, match_offset: int = 0) -> pl.DataFrame:
    """One row per match in ``batch``."""
    m = batch.matches
    n = m.shape[0]
    f = {name: m[:, i] for i, name in enumerate(M.MATCH_FIELDS)}
    data = {
        "run": [run] * n, "variant": [variant] * n, "cell": [cell] * n,
        "match": np.arange(batch.start, batch.start + n) + match_offset, "seed": np.full(n, seed),
        "policy_ns": [policy_ns] * n, "policy_ew": [policy_ew] * n, "swapped": np.full(n, swapped),
        "first_declarers": f["first_declarers"], "first_dealer": f["first_dealer"], "hands": f["hands"],
        "minutes": f["minutes_x100"] / 100.0, "final_level_ns": f["final_level_ns"],
        "final_level_ew": f["final_level_ew"], "winner": f["winner"],
        "ended_by": [_ENDED.get(int(e), "?") for e in f["ended_by"]], "lead_changes": f["lead_changes"],
        "max_deficit_ns": f["max_deficit_ns"], "max_deficit_ew": f["max_deficit_ew"],
    }
    _check_fits(data, MATCH_SCHEMA, variant)
    return pl.DataFrame(data).cast(MATCH_SCHEMA).select(list(MATCH_SCHEMA))


def _check_fits(data: dict, schema: dict, variant: str) -> None:
    """Every integer column's values inside its type, else one line naming the column."""
    for name, dtype in schema.items():
        bounds = _INT_RANGES.get(dtype)
        values = data[name]
        if bounds is None or not isinstance(values, np.ndarray) or not values.size:
            continue
        low, high = int(values.min()), int(values.max())
        if low < bounds.min or high > bounds.max:
            bad = high if high > bounds.max else low
            raise SimsuiteError(f"{variant}: a hand gives {name} = {bad:,}, beyond the results column's {dtype} "
                                f"range ({bounds.min:,} to {bounds.max:,}); these rules score more than the results "
                                "can hold: cap the levels (defender_cap, declarer_cap) or lower the capture factors")
