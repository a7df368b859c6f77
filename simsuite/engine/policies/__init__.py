"""The built-in policies, compiled: the heuristics ``random`` (0), ``basic`` (1) and ``expert`` (2),
one module each; ``search`` (3, ``search``) plays through them, and ``learned`` (5, ``learned``) scores
search's candidates with a trained model (``features``, ``model``). The codes and the decision kinds,
with their names, are defined in ``codes``.

Each policy answers four questions: whether to bid while drawing, what to bury, what to lead
and what to follow with. They see only what a player sees: their own hand, the cards played so
far, the current trick; ``expert`` also infers voids from who failed to follow suit.

Legality never depends on a policy: follows are built from the unit sets that reach the best
follow profile (``follow.best_sets``), leads are single units, and a throw is only attempted when
the policy judges it safe; the hand loop applies the rules to whatever is chosen.

``expert-v1`` (4) is ``expert`` as it was before its rebuild, frozen as a reference for duels.

This module is the dispatcher: ``choose_bury``, ``choose_lead`` and ``choose_follow`` pick the
policy's function by code, with the hand loop's arguments.
"""

from __future__ import annotations

from numba import njit

from ..core import FS_BURY_LEFT, FS_BURY_LENGTH, LI_CARDS, NC, w_fs
from ..phases import C_DEALER, C_DECL, C_LEFT, C_LEVEL, C_TRUMP
from .basic import bury_basic, follow_basic, lead_basic
from .codes import BASIC, EXPERT_V1, RANDOM
from .common import (
    FULL,
    LEARNED_IN_FULL,
    LEARNED_SET,
    bid_wish,
    bury_by_key,
    fill,
    full_for,
    may_bid,
    put_unit,
    split_by_class,
    strength,
    try_trump,
)
from .expert import bury_expert, follow_expert, lead_expert
from .expert_v1 import bury_expert_v1, follow_expert_v1, lead_expert_v1
from .random_play import bury_random, follow_random, lead_random

__all__ = [
    "C_DEALER",
    "C_DECL",
    "C_LEFT",
    "C_LEVEL",
    "C_TRUMP",
    "FULL",
    "LEARNED_IN_FULL",
    "LEARNED_SET",
    "bid_wish",
    "bury_by_key",
    "bury_three",
    "choose_bury",
    "choose_follow",
    "choose_lead",
    "fill",
    "follow_once",
    "follow_three",
    "full_for",
    "lead_three",
    "lead_once",
    "may_bid",
    "put_unit",
    "split_by_class",
    "strength",
    "try_trump",
]


@njit(cache=True)
def choose_bury(pol, hand, cls, pos, P, s, n, W, out):
    """Choose ``n`` cards of ``hand`` to bury into ``out`` (a count vector). The policies work on a
    copy of the hand in ``W``'s row ``FS_BURY_LEFT`` and count cards per class in ``FS_BURY_LENGTH``."""
    if pol == EXPERT_V1:
        _bury_start(hand, W, out)
        FS = w_fs(W)
        bury_expert_v1(FS[FS_BURY_LEFT][:NC], cls, pos, n, FS[FS_BURY_LENGTH][:5], out)
    else:
        bury_three(pol, hand, cls, pos, P, s, n, W, out)


@njit(cache=True, inline="always")
def _bury_start(hand, W, out):
    for c in range(NC):
        out[c] = 0
    FS = w_fs(W)
    left = FS[FS_BURY_LEFT][:NC]
    for c in range(NC):
        left[c] = hand[c]


# The three heuristics alone (random, basic, expert; any other code plays expert): the loops that
# play no search and no expert-v1 call these, so that those two are never compiled into them
# (``common.full_for``; docs/performance.md, "Compilation").
@njit(cache=True)
def bury_three(pol, hand, cls, pos, P, s, n, W, out):
    """``choose_bury`` for random, basic and expert."""
    _bury_start(hand, W, out)
    FS = w_fs(W)
    left = FS[FS_BURY_LEFT][:NC]
    length = FS[FS_BURY_LENGTH][:5]
    if pol == RANDOM:
        bury_random(left, n, s, out)
    elif pol == BASIC:
        bury_basic(left, cls, pos, n, length, out)
    else:
        bury_expert(left, cls, pos, P, n, length, out)


@njit(cache=True, inline="always")
def choose_lead(pol, seat, hands, played, voids, cls, pos, P, ctx, W, s, out):
    """Fill ``out`` with the lead of ``seat``. Returns 1 if it is a throw (several units), else 0."""
    if pol == EXPERT_V1:
        for c in range(NC):
            out[c] = 0
        return lead_expert_v1(seat, hands[seat], played, voids, cls, pos, P, ctx, W, out)
    return lead_three(pol, seat, hands, played, voids, cls, pos, P, ctx, W, s, out)


@njit(cache=True, inline="always")
def lead_three(pol, seat, hands, played, voids, cls, pos, P, ctx, W, s, out):
    """``choose_lead`` for random, basic and expert."""
    for c in range(NC):
        out[c] = 0
    hand = hands[seat]
    if pol == RANDOM:
        return lead_random(hand, cls, pos, P, W, s, out)
    if pol == BASIC:
        return lead_basic(hand, played, cls, pos, P, out)
    return lead_expert(seat, hand, played, voids, cls, pos, P, ctx, W, out)


@njit(cache=True, inline="always")
def choose_follow(pol, seat, hands, played, voids, cls, pos, P, ctx, W, s, LI, lead, win_c, winner, out):
    """Fill ``out`` with a legal follow of ``seat`` to the lead ``LI`` (the trick's current best
    claim is ``win_c``, held by seat ``winner``)."""
    if pol == EXPERT_V1:
        follow_expert_v1(
            seat,
            hands[seat],
            played,
            voids,
            cls,
            pos,
            P,
            ctx,
            W,
            LI,
            lead,
            win_c,
            winner % 2 == seat % 2,
            ctx[C_LEFT] == 1,
            out,
        )
    else:
        follow_three(pol, seat, hands, played, voids, cls, pos, P, ctx, W, s, LI, lead, win_c, winner, out)


@njit(cache=True, inline="always")
def follow_three(pol, seat, hands, played, voids, cls, pos, P, ctx, W, s, LI, lead, win_c, winner, out):
    """``choose_follow`` for random, basic and expert."""
    hand = hands[seat]
    if pol == RANDOM:
        follow_random(hand, cls, pos, P, W, s, LI, out)
        return
    partner_wins = winner % 2 == seat % 2
    if pol == BASIC:
        follow_basic(
            seat, hand, played, voids, cls, pos, P, ctx, W, LI, lead, win_c, partner_wins, ctx[C_LEFT] == 1, out
        )
    else:
        # the last trick: every hand holds exactly the lead's cards
        follow_expert(
            seat,
            hand,
            played,
            voids,
            cls,
            pos,
            P,
            ctx,
            W,
            LI,
            lead,
            win_c,
            partner_wins,
            ctx[C_LEFT] == LI[LI_CARDS],
            out,
        )


# One decision of random, basic or expert (any other code plays expert), called rather than
# inlined: the search's roll-outs and candidate lists, which play ``search.ROLLOUT_POLICY``. One
# compiled copy each, without ``expert-v1``, where the lean hand loop inlines ``lead_three`` and
# ``follow_three`` for speed.
@njit(cache=True)
def lead_once(pol, seat, hands, played, voids, cls, pos, P, ctx, W, s, out):
    return lead_three(pol, seat, hands, played, voids, cls, pos, P, ctx, W, s, out)


@njit(cache=True)
def follow_once(pol, seat, hands, played, voids, cls, pos, P, ctx, W, s, LI, lead, win_c, winner, out):
    follow_three(pol, seat, hands, played, voids, cls, pos, P, ctx, W, s, LI, lead, win_c, winner, out)
