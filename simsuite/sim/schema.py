"""The results schema: one row per hand and one per match (docs/results.md), as Parquet types.

The columns, their types and meanings are the table of ``simsuite.columns``; here they become
polars schemas. ``hand_frame`` and ``match_frame`` turn a ``MatchBatch`` from the compiled engine
into polars DataFrames with these columns, tagged with the run, the variant, the sweep cell and
the policies: a column read from a record slot comes from the table (divided by 100 where the
record holds hundredths), the tags and the derived columns are built here.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..columns import HAND_COLUMNS, MATCH_COLUMNS, RECORD_FIELDS, Column
from ..engine import match as M
from ..errors import SimsuiteError

# The variant's field ranges (docs/variants.md) keep ordinary hands inside these columns; a rare
# hand that still overflows one (a huge capture in an uncapped variant) is named, not wrapped.
_INT_RANGES = {
    dtype: np.iinfo(np_type)
    for dtype, np_type in ((pl.Int8, np.int8), (pl.Int16, np.int16), (pl.Int32, np.int32), (pl.Int64, np.int64))
}

_POLARS = {
    "str": pl.Utf8,
    "bool": pl.Boolean,
    "i8": pl.Int8,
    "i16": pl.Int16,
    "i32": pl.Int32,
    "i64": pl.Int64,
    "f32": pl.Float32,
}

HAND_SCHEMA: dict[str, pl.DataType] = {c.name: _POLARS[c.type] for c in HAND_COLUMNS}
MATCH_SCHEMA: dict[str, pl.DataType] = {c.name: _POLARS[c.type] for c in MATCH_COLUMNS}

_ENDED = M.ENDED_NAMES


def _from_record(columns: tuple[Column, ...], fields: dict[str, np.ndarray]) -> dict:
    """The columns read from a record slot: booleans as such, hundredths (``*_x100``) as units. A
    text column held as a code (``ended_by``) is left to the caller to name."""
    out = {}
    for c in columns:
        if c.slot is None or c.type == "str":
            continue
        values = fields[c.record_field]
        if c.type == "bool":
            values = values.astype(bool)
        elif c.record_field.endswith("_x100"):
            values = values / 100.0
        out[c.name] = values
    return out


def hand_frame(
    batch,
    *,
    run: str,
    variant: str,
    cell: str,
    seed: int,
    policy_ns: str,
    policy_ew: str,
    swapped: bool,
    start_level: int,
    match_offset: int = 0,
) -> pl.DataFrame:
    """One row per hand of every match in ``batch`` (a ``simsuite.sim.match.MatchBatch``)."""
    counts = batch.hand_count
    total = int(counts.sum())
    rows = (
        np.concatenate([batch.hands[i, : counts[i]] for i in range(len(counts))])
        if total
        else np.zeros((0, len(RECORD_FIELDS)), np.int64)
    )
    col = {name: rows[:, i] for i, name in enumerate(RECORD_FIELDS)}
    match_ids = np.repeat(np.arange(batch.start, batch.start + len(counts)) + match_offset, counts)
    hand_ids = np.concatenate([np.arange(c) for c in counts]) if total else np.zeros(0, np.int64)
    before = (
        np.concatenate(
            [
                np.vstack([[start_level, start_level], batch.levels[i, : counts[i] - 1]])
                for i in range(len(counts))
                if counts[i]
            ]
        )
        if total
        else np.zeros((0, 2), np.int64)
    )
    data = {
        "run": [run] * total,
        "variant": [variant] * total,
        "cell": [cell] * total,
        "match": match_ids,
        "hand": hand_ids,
        "seed": np.full(total, seed),
        "policy_ns": [policy_ns] * total,
        "policy_ew": [policy_ew] * total,
        "swapped": np.full(total, swapped),
        "level_before_ns": before[:, 0],
        "level_before_ew": before[:, 1],
        **_from_record(HAND_COLUMNS, col),
    }
    _check_fits(data, HAND_SCHEMA, variant)
    return pl.DataFrame(data).cast(HAND_SCHEMA).select(list(HAND_SCHEMA))


def match_frame(
    batch,
    *,
    run: str,
    variant: str,
    cell: str,
    seed: int,
    policy_ns: str,
    policy_ew: str,
    swapped: bool,
    match_offset: int = 0,
) -> pl.DataFrame:
    """One row per match in ``batch``."""
    m = batch.matches
    n = m.shape[0]
    f = {name: m[:, i] for i, name in enumerate(M.MATCH_FIELDS)}
    data = {
        "run": [run] * n,
        "variant": [variant] * n,
        "cell": [cell] * n,
        "match": np.arange(batch.start, batch.start + n) + match_offset,
        "seed": np.full(n, seed),
        "policy_ns": [policy_ns] * n,
        "policy_ew": [policy_ew] * n,
        "swapped": np.full(n, swapped),
        **_from_record(MATCH_COLUMNS, f),
        "ended_by": [_ENDED.get(int(e), "?") for e in f["ended_by"]],
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
            raise SimsuiteError(
                f"{variant}: a hand gives {name} = {bad:,}, beyond the results column's {dtype} "
                f"range ({bounds.min:,} to {bounds.max:,}); these rules score more than the results "
                "can hold: cap the levels (defender_cap, declarer_cap) or lower the capture factors"
            )
