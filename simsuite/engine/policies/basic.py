"""``basic`` (policy 1): the habits of a careful beginner.

- **Bury:** void the shortest side suits with low cards; never a point card or a pair.
- **Lead:** a side-suit card or pair that no unseen card can beat (it looks only at the top of
  each suit and at copies); else its lowest side card, points last; else the lowest trump.
- **Follow:** win the trick as cheaply as possible; feed points to a partner who is winning;
  otherwise give as little as possible. A void follower trumps when that wins.
"""

from __future__ import annotations

from numba import njit

from .. import core
from ..params import DECKS
from .common import ABOVE_KEY, POINTS_FIRST, bury_by_key, follow_scored, lead_lowest

# The bury key's weights (``bury_by_key``; the first compiled engine's): trumps are kept before
# anything, then pairs, then point cards; within those the shortest side suit goes first (W_LENGTH per card
# left in its class), the lowest card first. Each weight is above all that the lower ones can add: W_LENGTH
# above any position (below 64), W_POINT above a class's length times W_LENGTH.
W_TRUMP, W_PAIR, W_POINT = 1 << 30, 1 << 22, 1 << 20
W_LENGTH = 64
# The lead's keys. A sure winner: the most copies first (SURE_COPY per copy, above what its points and position
# add: SURE_POINT x 10 points x 4 copies plus a position, below 256), then the most points, then the highest. The
# low lead when there is none: the fewest points first (``POINTS_FIRST`` per point), then the lowest position
# (LOW_POSITION per step, below POINTS_FIRST for any position).
SURE_COPY = 1000
SURE_POINT = 4
LOW_POSITION = 4


@njit(cache=True)
def bury_basic(left, cls, pos, n, length, out):
    """Shortest side suits first (to make voids), lowest cards, no points, never a pair or better.
    ``left``: a copy of the hand, taken from; ``length``: scratch for 5 counts."""
    bury_by_key(left, cls, pos, n, W_TRUMP, W_PAIR, W_POINT, 0, W_LENGTH, 0, length, out)


@njit(cache=True)
def lead_basic(hand, played, cls, pos, P, out):
    """Fill ``out`` with the lead; basic never throws (returns 0)."""
    # One pass over each side suit, from its top rank down (positions in a side suit rise with the
    # rank; the level and permanent ranks are trump and skipped). ``above`` is the most copies of
    # one card above this one that this player has not seen, so a unit of ``w`` copies is sure when
    # ``above < w``. The suits go in card order, so that ties fall as a pass in card order would.
    # 1. a sure winner: the biggest, then most points, then the highest
    # 2. else the lowest non-point side card
    decks = P[DECKS]
    best_key = -1
    pick_c = -1
    pick_w = 0
    low_c = -1
    low_key = ABOVE_KEY
    for k in range(4):
        above = 0
        is_top = True
        for r in range(12, -1, -1):
            c = k * 13 + r
            if cls[c] != k:
                continue
            h = hand[c]
            if h > 0:
                # a unit of w copies is sure when above < w; its key grows with w, so of this
                # card's sure units the widest (all h copies) is the one that can win the pick
                if h > above and h >= (1 if is_top else 2):
                    key = h * SURE_COPY + core.POINTS[c] * h * SURE_POINT + pos[c]
                    if key > best_key:
                        best_key = key
                        pick_c = c
                        pick_w = h
                is_top = False
                key = core.POINTS[c] * POINTS_FIRST + pos[c] * LOW_POSITION
                if key < low_key:
                    low_key = key
                    low_c = c
            u = decks - h - played[c]
            if u > above:
                above = u
    if pick_c >= 0:
        out[pick_c] = pick_w
        return 0
    if low_c >= 0:
        out[low_c] = 1
        return 0
    # 3. only trump left: the lowest
    return lead_lowest(hand, cls, pos, out)


@njit(cache=True, inline="always")  # a wrapper: the loops call follow_scored directly
def follow_basic(seat, hand, played, voids, cls, pos, P, ctx, W, LI, lead, win_c, partner_wins, last_trick, out):
    follow_scored(
        core.as_bool(False),
        core.as_int(0),
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
        last_trick,
        out,
    )
