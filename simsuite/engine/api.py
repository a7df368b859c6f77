"""Python entry points to the compiled engine: seeds in, hand records out."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import SimsuiteError
from ..rules.variant import Variant
from . import full as F
from . import hand as H
from . import phases as ph
from .core import Work
from .names import policy_codes
from .params import compile_variant
from .policies import full_for
from .rng import hand_state, run_key


def hand_states(seed: int, start: int, count: int) -> np.ndarray:
    """Generator states of hands ``start .. start+count-1`` of a run with root ``seed``: hand i
    always gets the same state, however the work is split."""
    key = run_key(seed)
    out = np.zeros((count, 4), np.int64)
    for i in range(count):
        hand_state(key, start + i, out[i])
    return out


@dataclass
class HandHistory:
    deal: np.ndarray
    bottom: np.ndarray
    bids: np.ndarray  # rows: seat, card, count, kind (1 declare, 2 override, 3 reinforce)
    bury: np.ndarray
    plays: np.ndarray  # rows: trick, seat, kind (0 play, 1 failed throw), winner, 54 counts


@dataclass
class HandResult:
    record: dict
    history: HandHistory | None = field(default=None)


def play_one(variant: Variant, seed: int, policies="basic", level: int | None = None, first_drawer: int = 0,
             first_hand: bool = True, keep: bool = True, hand_index: int = 0) -> HandResult:
    """Play one hand with its full history (for traces and tests)."""
    P = compile_variant(variant)
    pols = policy_codes(policies)
    W = Work().arrays()
    state = hand_states(seed, hand_index, 1)[0]
    rec = np.zeros(H.N_RECORD, np.int64)
    h_deal = np.zeros((4, 54), np.int64)
    h_bottom = np.zeros(54, np.int64)
    h_bids = np.zeros((H.MAX_BIDS, 4), np.int64)
    h_bury = np.zeros(54, np.int64)
    h_plays = np.zeros((H.MAX_PLAYS, H.PLAY_COLS), np.int64)
    h_n = np.zeros(2, np.int64)
    lvl = variant.start_level if level is None else level
    full = full_for(pols)
    H.loop_for(H.play_hand, H.play_hand_full, full)(P, state, ph.new_state(), lvl, first_drawer, first_hand, pols, W,
                                                    rec, keep, h_deal, h_bottom, h_bids, h_bury, h_plays, h_n, full)
    record = dict(zip(H.RECORD_FIELDS, (int(x) for x in rec)))
    if record["error"]:
        raise SimsuiteError(f"the engine stopped on an illegal play (code {record['error']}) in hand seed {seed}")
    hist = HandHistory(h_deal, h_bottom, h_bids[: h_n[0]].copy(), h_bury, h_plays[: h_n[1]].copy()) if keep else None
    return HandResult(record, hist)


def play_batch(variant: Variant, seed: int, n: int, policies="basic", level: int | None = None,
               first_hand: bool = True, start: int = 0) -> np.ndarray:
    """Play hands ``start .. start+n-1`` of a run with root ``seed``; one record row per hand."""
    P = compile_variant(variant)
    pols = policy_codes(policies)
    W = Work().arrays()
    lvl = variant.start_level if level is None else level
    levels = np.full(n, lvl, np.int64)
    drawers = np.arange(start, start + n, dtype=np.int64) % 4
    out = np.zeros((n, H.N_RECORD), np.int64)
    full = full_for(pols)
    H.loop_for(H.play_many, F.play_many_full, full)(P, run_key(seed), start, levels, drawers, first_hand, pols, W, out,
                                                    full)
    if out[:, H.R_ERROR].any():
        bad = int(np.nonzero(out[:, H.R_ERROR])[0][0])
        raise SimsuiteError(f"the engine stopped on an illegal play in hand {start + bad} of seed {seed}")
    return out
