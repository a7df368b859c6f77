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
from ..core import NC, TRUMP, W_PS
from ..params import DECKS
from .common import bury_by_key, follow_scored, lead_lowest

@njit(cache=True)
def bury_basic(hand, cls, pos, n, out):
    """Shortest side suits first (to make voids), lowest cards, no points, never a pair or better."""
    bury_by_key(hand.copy(), cls, pos, n, 1 << 30, 1 << 22, 1 << 20, 0, 64, 0, out)


@njit(cache=True)
def lead_basic(hand, played, cls, pos, P, W, out):
    """Fill ``out`` with the lead; basic never throws (returns 0)."""
    # 1. a sure winner in a side suit: a unit is sure when no unseen card above it has as many
    #    copies (suffix maxima over positions, one pass per array); the biggest, then most points
    PS = W[W_PS]
    sufmax = PS[:5]
    for k in range(5):
        for t in range(32):
            sufmax[k, t] = 0
    top = PS[5]
    for k in range(5):
        top[k] = -1
    decks = P[DECKS]
    for c in range(NC):
        k = cls[c]
        u = decks - hand[c] - played[c]
        if k != TRUMP and u > sufmax[k, pos[c]]:
            sufmax[k, pos[c]] = u
        if hand[c] > 0 and (top[k] < 0 or pos[c] > pos[top[k]]):
            top[k] = c
    for k in range(4):
        for t in range(30, -1, -1):  # side-suit positions stay below 27
            if sufmax[k, t + 1] > sufmax[k, t]:
                sufmax[k, t] = sufmax[k, t + 1]
    best_key = -1
    pick_c = -1
    pick_w = 0
    for c in range(NC):
        k = cls[c]
        if hand[c] == 0 or k == TRUMP or (c != top[k] and hand[c] < 2):
            continue
        above = sufmax[k, pos[c] + 1]
        for w in range(2 if c != top[k] else 1, hand[c] + 1):
            if above < w:
                key = w * 1000 + core.POINTS[c] * w * 4 + pos[c]
                if key > best_key:
                    best_key = key
                    pick_c = c
                    pick_w = w
    if pick_c >= 0:
        out[pick_c] = pick_w
        return 0
    # 2. the lowest non-point card of a side suit
    best_c = -1
    low_key = 1 << 40
    for c in range(NC):
        if hand[c] == 0 or cls[c] == TRUMP:
            continue
        key = core.POINTS[c] * 1000 + pos[c] * 4
        if key < low_key:
            low_key = key
            best_c = c
    if best_c >= 0:
        out[best_c] = 1
        return 0
    # 3. only trump left: the lowest
    return lead_lowest(hand, cls, pos, out)


@njit(cache=True)
def follow_basic(seat, hand, played, voids, cls, pos, P, ctx, W, LI, lead, win_c, partner_wins, last_trick, out):
    follow_scored(False, 0, seat, hand, played, voids, cls, pos, P, ctx, W, LI, lead, win_c, partner_wins, last_trick,
                  out)
