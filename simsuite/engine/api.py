"""Python entry points to the compiled engine: seeds in, hand records out."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import SimsuiteError
from ..rules.variant import Variant
from . import full as F
from . import hand as H
from . import lean as L
from . import phases as ph
from .names import policy_codes
from .params import compile_variant
from .policies import LEARNED_SET, full_for
from .policies.model import work_for
from .rng import hand_state, run_key

# --- the compiled loops, from Python ----------------------------------------------------------------
# ``full`` (``policies.full_for``) picks the policy set: None, random, basic and expert only
# (``engine.lean.run``); ``LEARNED_SET``, those and learned (``engine.lean.run_learned``); else every
# built-in policy (``engine.full.run``). Each ``run`` takes every
# operation's arguments; those of the other operations are placeholders of the same types
# (``lean.arguments``), so that it compiles once whoever calls it.


def _run(op, full, **given) -> None:
    if full is None:
        L.run(op, *L.arguments(L.ARGS, **given))
    elif full == LEARNED_SET:
        L.run_learned(op, *L.arguments(L.ARGS, **given))
    else:
        F.run(op, *L.arguments(L.FULL_ARGS, **given))


def play_matches(P, clock, key, start, count, pols, max_hands, W, recs, hand_recs, hand_count, levels_after, full):
    """``engine.match.play_matches``, compiled for the policy set ``full``."""
    _run(
        L.OP_MATCHES,
        full,
        P=P,
        clock=clock,
        key=key,
        start=start,
        count=count,
        pols=pols,
        max_hands=max_hands,
        W=W,
        recs=recs,
        hand_recs=hand_recs,
        hand_count=hand_count,
        levels_after=levels_after,
    )


def play_many(P, key, start, levels, first_drawers, first_hand, pols, W, out, full):
    """``engine.hand.play_many``, compiled for the policy set ``full``."""
    _run(
        L.OP_HANDS,
        full,
        P=P,
        key=key,
        start=start,
        levels=levels,
        first_drawers=first_drawers,
        first_hand=first_hand,
        pols=pols,
        W=W,
        out=out,
    )


def bury_many(P, key, start, levels, first_drawers, pols, W, out, full):
    """``engine.hand.bury_many``, compiled for the policy set ``full``."""
    _run(
        L.OP_BURY, full, P=P, key=key, start=start, levels=levels, first_drawers=first_drawers, pols=pols, W=W, out=out
    )


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
    bids: np.ndarray  # rows: ``hand.HB_*`` columns: seat, card, count, kind (``phases.BID_*``)
    bury: np.ndarray
    plays: np.ndarray  # rows: trick, seat, kind (0 play, 1 failed throw), winner, 54 counts


@dataclass
class HandResult:
    record: dict
    history: HandHistory | None = field(default=None)


def play_one(
    variant: Variant,
    seed: int,
    policies="basic",
    level: int | None = None,
    first_drawer: int = 0,
    first_hand: bool = True,
    keep: bool = True,
    hand_index: int = 0,
) -> HandResult:
    """Play one hand with its full history (for traces and tests)."""
    P = compile_variant(variant)
    pols = policy_codes(policies)
    W = work_for(pols)
    state = hand_states(seed, hand_index, 1)[0]
    rec = np.zeros(H.N_RECORD, np.int64)
    h_deal = np.zeros((4, 54), np.int64)
    h_bottom = np.zeros(54, np.int64)
    h_bids = np.zeros((H.MAX_BIDS, H.BID_COLS), np.int64)
    h_bury = np.zeros(54, np.int64)
    h_plays = np.zeros((H.MAX_PLAYS, H.PLAY_COLS), np.int64)
    h_n = np.zeros(2, np.int64)
    lvl = variant.start_level if level is None else level
    full = full_for(pols)
    # compiled on their own, and called by the runs
    hand = H.play_hand if full is None else H.play_hand_learned if full == LEARNED_SET else H.play_hand_full
    hand(
        P,
        state,
        ph.new_state(),
        lvl,
        first_drawer,
        first_hand,
        pols,
        W,
        rec,
        keep,
        h_deal,
        h_bottom,
        h_bids,
        h_bury,
        h_plays,
        h_n,
        full,
    )
    record = dict(zip(H.RECORD_FIELDS, (int(x) for x in rec)))
    if record["error"]:
        raise SimsuiteError(f"the engine stopped on an illegal play (code {record['error']}) in hand seed {seed}")
    hist = (
        HandHistory(h_deal, h_bottom, h_bids[: h_n[H.HN_BIDS]].copy(), h_bury, h_plays[: h_n[H.HN_PLAYS]].copy())
        if keep
        else None
    )
    return HandResult(record, hist)


def play_batch(
    variant: Variant,
    seed: int,
    n: int,
    policies="basic",
    level: int | None = None,
    first_hand: bool = True,
    start: int = 0,
    work: np.ndarray | None = None,
) -> np.ndarray:
    """Play hands ``start .. start+n-1`` of a run with root ``seed``; one record row per hand.
    ``work``: the work buffer to play with (default ``work_for`` the policies: the active model)."""
    P = compile_variant(variant)
    pols = policy_codes(policies)
    W = work_for(pols) if work is None else work
    lvl = variant.start_level if level is None else level
    levels = np.full(n, lvl, np.int64)
    drawers = np.arange(start, start + n, dtype=np.int64) % 4
    out = np.zeros((n, H.N_RECORD), np.int64)
    full = full_for(pols)
    play_many(P, run_key(seed), start, levels, drawers, first_hand, pols, W, out, full)
    if out[:, H.R_ERROR].any():
        bad = int(np.nonzero(out[:, H.R_ERROR])[0][0])
        raise SimsuiteError(f"the engine stopped on an illegal play in hand {start + bad} of seed {seed}")
    return out
