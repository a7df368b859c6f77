"""Hands and matches tables of a few matches played by the engine, tagged as a run stores them, for the
tests of what reads those tables (metrics, distributions)."""

from __future__ import annotations

import polars as pl

from simsuite.rules.variant import load_variant
from simsuite.sim.match import play_match_batch
from simsuite.sim.schema import hand_frame, match_frame


def played(vid: str, pairs, deals: int, seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``deals`` matches of variant ``vid`` per (swapped, (policy NS, policy EW)) of ``pairs``, on the
    same deals (seed ``seed``): the hands table and the matches table."""
    v = load_variant(vid)
    hands, matches = [], []
    for swapped, (pns, pew) in pairs:
        batch = play_match_batch(v, seed, 0, deals, f"{pns},{pew}")
        tags = dict(run="t", variant=vid, cell=vid, seed=seed, policy_ns=pns, policy_ew=pew, swapped=swapped)
        hands.append(hand_frame(batch, start_level=v.start_level, **tags))
        matches.append(match_frame(batch, **tags))
    return pl.concat(hands), pl.concat(matches)
