"""``expert-v1`` (policy 4): ``expert`` as it played before its rebuild, frozen as a named reference so
duels can measure the rebuilt ``expert`` against it. Do not change its play.

- **Bury:** like ``basic``, but a short suit's high card is kept only if it is an ace.
- **Lead:** near the end, keep a sure trump unit for a last trick that multiplies the capture;
  sure side-suit winners (biggest unit, most points), thrown together when the throw test is
  safe, never into a suit an opponent is known to trump; as declarer with trump length, draw
  trumps with sure units; else a low card of the longest side suit (a pair if it has one).
- **Follow:** as ``basic``, but it never overtakes a partner who is winning, except on a
  one-card last trick.
"""

from __future__ import annotations

from numba import njit

from .. import core
from ..core import FS_V1_UNSEEN, FS_V1_UNSEEN_BEST, NC, TRUMP, as_int, w_fs, w_units
from ..order import class_count
from ..params import (
    CAPTURE_BASE,
    CAPTURE_BY,
    CAPTURE_BY_EITHER,
    CAPTURE_PER_CARD,
    CAPTURE_SCHEME,
    CAPTURE_SCHEME_LAST_TRICK_POINTS,
    CAPTURE_SCHEME_PER_CARD,
    CAPTURE_SCHEME_POWER,
    THROWS,
)
from ..phases import C_DECL, C_LEFT
from ..trick import best_at
from ..units import build_units
from .common import (
    ABOVE_KEY,
    ANY_SIZE,
    POINTS_FIRST,
    bury_by_key,
    follow_scored,
    lead_lowest,
    put_unit,
    strength,
    unit_is_sure,
    unseen_into,
)
from .expert import safe_throw

OVERTAKE = 50  # what taking a trick from a winning partner costs in the follow score (not on the last trick)
# Its weights and thresholds, its own (not shared with ``expert``, so that tuning expert leaves it alone); all from
# the first compiled engine. The bury key (``bury_by_key``): trumps kept before anything, then point
# cards, then pairs (W_POINT above W_PAIR: points weigh more than in ``basic``); the shortest side suit first
# (W_LENGTH per card, above any position), the lowest card first.
W_TRUMP, W_PAIR, W_POINT = 1 << 30, 1 << 22, 1 << 24
W_LENGTH = 64
# the lead keys, as ``expert``'s: a sure unit by size (SURE_SIZE per card), points (SURE_POINT per point), then
# top; the low lead by points (``POINTS_FIRST`` per point), position (LOW_POSITION per step), the suit's length
# (LOW_LENGTH per card) and a pair (LOW_PAIR)
SURE_SIZE = 1000
SURE_POINT = 4
LOW_POSITION = 4
LOW_LENGTH = 8
LOW_PAIR = 2
KEEP_FOR_LAST = 4  # from this many cards left, keep a sure trump pair for the last trick (when its side can capture)
LAST_POINT = 10  # the lead beside the kept pair: strength plus this per point (a five weighs 50 positions)
# declarers draw trumps while they hold at least 1 / DRAW_SHARE of the unseen trumps and more than DRAW_LEFT
# cards are left in each hand
DRAW_SHARE = 2
DRAW_LEFT = 4


@njit(cache=True)
def bury_expert_v1(left, cls, pos, n, length, out):
    """Shortest side suits first, lowest cards, never a pair; points weigh more than in ``basic``,
    so a short suit's high card is buried before a point card only if it is not an ace."""
    bury_by_key(left, cls, pos, n, W_TRUMP, W_PAIR, W_POINT, 0, W_LENGTH, 0, length, out)


@njit(cache=True)  # not inlined: a reference, compiled once outside the hand loops
def lead_expert_v1(seat, hand, played, voids, cls, pos, P, ctx, W, out):
    """Fill ``out`` with the lead. Returns 1 if it is a throw (several units), else 0."""
    declarers = ctx[C_DECL]
    my_team = seat % 2
    left = ctx[C_LEFT]
    if left <= KEEP_FOR_LAST and _keep_for_last_trick(hand, played, cls, pos, P, my_team, declarers, W, out):
        return 0
    # 1. sure winners in side suits: the biggest unit, then the most points
    U_card, U_w, U_len, U_top, U_size, REC, REC_N, INTS = w_units(W)
    FS = w_fs(W)
    unseen = unseen_into(hand, played, P, FS[FS_V1_UNSEEN][:NC])
    ubest = FS[FS_V1_UNSEEN_BEST]
    best_u = -1
    best_key = -1
    best_k = -1
    for k in range(4):
        if class_count(hand, cls, k) == 0:
            continue
        # an opponent known void in this suit may trump it
        risky = False
        for o in range(4):
            if o % 2 != my_team and voids[o, k] == 1 and voids[o, TRUMP] == 0:
                risky = True
        if risky:
            continue
        nU = build_units(hand, cls, pos, k, P, ANY_SIZE, 1, W)
        hi = best_at(unseen, cls, pos, as_int(k), ubest)
        for u in range(nU):
            if unit_is_sure(W, u, ubest, hi):
                pts = 0
                for st in range(U_len[u]):
                    pts += core.POINTS[U_card[u, st]] * U_w[u, st]
                key = U_size[u] * SURE_SIZE + pts * SURE_POINT + U_top[u]
                if key > best_key:
                    best_key = key
                    best_u = u
                    best_k = k
    if best_u >= 0:
        # throw every sure unit of that suit at once when the throw test is safe
        if P[THROWS] == 1:
            thrown = safe_throw(hand, unseen, cls, pos, P, as_int(best_k), W, out)
            if thrown:
                return 1
        build_units(hand, cls, pos, best_k, P, ANY_SIZE, 1, W)
        put_unit(U_card, U_w, U_len, best_u, out)
        return 0
    n_trump = class_count(hand, cls, TRUMP)
    # 2. declarers draw trumps while they hold many and opponents may still have some
    if my_team == declarers and n_trump >= 2:
        unseen_trump = class_count(unseen, cls, TRUMP)
        opp_void = True
        for o in range(4):
            if o % 2 != my_team and voids[o, TRUMP] == 0:
                opp_void = False
        if not opp_void and n_trump * DRAW_SHARE >= unseen_trump and left > DRAW_LEFT:
            nU = build_units(hand, cls, pos, TRUMP, P, ANY_SIZE, 1, W)
            hi = best_at(unseen, cls, pos, as_int(TRUMP), ubest)
            # the strongest unit that is sure to win, else the lowest single
            pick = -1
            for u in range(nU):
                if unit_is_sure(W, u, ubest, hi):
                    if pick < 0 or U_size[u] > U_size[pick]:
                        pick = u
            if pick >= 0:
                put_unit(U_card, U_w, U_len, pick, out)
                return 0
    # 3. a low card of a side suit: the longest suit, lowest non-point; pairs first (they draw pairs)
    best_c = -1
    low_key = ABOVE_KEY
    for c in range(NC):
        if hand[c] == 0 or cls[c] == TRUMP:
            continue
        key = core.POINTS[c] * POINTS_FIRST + pos[c] * LOW_POSITION - class_count(hand, cls, cls[c]) * LOW_LENGTH
        if hand[c] >= 2:
            key -= LOW_PAIR
        if key < low_key:
            low_key = key
            best_c = c
    if best_c >= 0:
        out[best_c] = hand[best_c] if hand[best_c] >= 2 and core.POINTS[best_c] == 0 else 1
        return 0
    # 4. only trump left: the lowest, keeping the best for the end
    return lead_lowest(hand, cls, pos, out)


@njit(cache=True, inline="always")  # a wrapper: the loops call follow_scored directly
def follow_expert_v1(seat, hand, played, voids, cls, pos, P, ctx, W, LI, lead, win_c, partner_wins, last_trick, out):
    follow_scored(
        core.as_bool(False),
        as_int(OVERTAKE),
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


@njit(cache=True)
def _keep_for_last_trick(hand, played, cls, pos, P, my_team, declarers, W, out):
    """Near the end: when its side can capture and the multiplier grows with the unit,
    keep a sure trump pair (or bigger) for the last trick and lead the cheapest other card now.
    Returns True if ``out`` holds such a lead."""
    U_card, U_w, U_len, U_top, U_size, REC, REC_N, INTS = w_units(W)
    can_capture = my_team != declarers or P[CAPTURE_BY] == CAPTURE_BY_EITHER
    grows = (
        (P[CAPTURE_SCHEME] == CAPTURE_SCHEME_PER_CARD and P[CAPTURE_PER_CARD] > 0)
        or (P[CAPTURE_SCHEME] == CAPTURE_SCHEME_POWER and P[CAPTURE_BASE] > 1)
        or P[CAPTURE_SCHEME] == CAPTURE_SCHEME_LAST_TRICK_POINTS
    )
    if not can_capture or not grows:
        return False
    n = 0
    for c in range(NC):
        n += hand[c]
    FS = w_fs(W)
    unseen = unseen_into(hand, played, P, FS[FS_V1_UNSEEN][:NC])
    ubest = FS[FS_V1_UNSEEN_BEST]
    hi = best_at(unseen, cls, pos, as_int(TRUMP), ubest)
    nU = build_units(hand, cls, pos, TRUMP, P, n - 1, 2, W)
    keep = -1
    for u in range(nU):
        if unit_is_sure(W, u, ubest, hi) and (keep < 0 or U_size[u] > U_size[keep]):
            keep = u
    if keep < 0:
        return False
    rest = hand.copy()
    for st in range(U_len[keep]):
        rest[U_card[keep, st]] -= U_w[keep, st]
    low = -1
    for c in range(NC):
        if rest[c] > 0:
            key = strength(c, cls, pos) + core.POINTS[c] * LAST_POINT
            if low < 0 or key < strength(low, cls, pos) + core.POINTS[low] * LAST_POINT:
                low = c
    if low < 0:
        return False
    for c in range(NC):
        out[c] = 0
    out[low] = 1
    return True
