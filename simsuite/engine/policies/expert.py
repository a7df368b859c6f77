"""``expert`` (policy 2): the strongest heuristic, and the play-out policy of ``search``.

- **Bury:** like ``basic``, but a short suit's high card is kept only if it is an ace.
- **Lead:** near the end, keep a sure trump unit for a last trick that multiplies the capture;
  sure side-suit winners (biggest unit, most points), thrown together when the throw test is
  safe, never into a suit an opponent is known to trump; as declarer with trump length, draw
  trumps with sure units; else a low card of the longest side suit (a pair if it has one).
- **Follow:** as ``basic``, but it never overtakes a partner who is winning, except on the last
  trick.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...rules.cards import BIG_JOKER, SMALL_JOKER
from .. import core
from ..core import (
    FS_LENGTH,
    FS_REST,
    FS_THROW_LEFT,
    FS_THROW_ORDER,
    FS_THROW_TMP,
    FS_UNSEEN,
    FS_UNSEEN_BEST,
    NC,
    TRUMP,
    as_int,
    copy1,
    insert_sorted,
    w_fs,
    w_units,
)
from ..order import class_count, class_span
from ..params import (
    CAPTURE_BASE,
    CAPTURE_PER_CARD,
    CAPTURE_SCHEME,
    CAPTURE_SCHEME_PER_CARD,
    CAPTURE_SCHEME_POWER,
    DECKS,
    SINGLE_CAPTURES,
    THROW_TEST,
    THROW_TEST_ABSOLUTE_MAX,
    THROWS,
)
from ..phases import C_DECL, C_LEFT
from ..trick import best_at
from ..units import build_units
from .common import (
    ABOVE_BURY_KEY,
    ABOVE_KEY,
    ABOVE_POSITION,
    ANY_SIZE,
    POINTS_FIRST,
    follow_scored,
    lead_lowest,
    put_unit,
    unit_is_sure,
    unseen_into,
)

# --- burying -----------------------------------------------------------------------------------------
#
# Void short side suits with low cards; keep trumps, pairs and side aces; bury points up to a
# budget. The budget follows Enoch's kitty discipline (tgoh-ots/shengji-tractor, the strategy
# notes behind ``enoch_point_budget``): points are safe in the bottom only when the declarers
# expect to win the last trick, which depends on jokers and trump length. For two decks and a
# bottom doubled on capture it allows: a dominant hand (every joker, twelve or more trumps)
# anything; one joker and ten trumps, 30 points; eight trumps, 5; a weaker hand none. "Eight to
# ten trumps is average" there, for a 25-card hand; we scale the trump counts to the hand size
# and the trump share of the deck and the points with the decks, and step a tier down for a
# capture multiplier above x2 (two tiers above x4). Measured: dividing the budget by the
# multiplier instead left school-2016 and huizhou (x3 per card) declarers about 5 points a hand
# worse off than burying none (benchmarks/expert_check.py).
BUDGET_ANY = 1 << 20
BUDGET_GOOD = 15  # per deck: 30 at two decks
BUDGET_FAIR2 = 5  # per two decks: 5 at two decks
TRUMP_DOMINANT = 1.45  # twelve of an average 8.3 (25 cards, a third of them trump)
TRUMP_GOOD = 1.2  # ten of 8.3
TRUMP_FAIR = 0.96  # eight of 8.3
JOKERS_DOMINANT_EXTRA = 2  # "every joker" at two decks: decks + 2, so 5 of 6 and 6 of 8 with more decks
REFERENCE_MULTIPLIER = 2  # the budget's bottom: doubled on capture
OVERTAKE = 50  # what taking a trick from a winning partner costs in the follow score (not on the last trick)
KEEP_FOR_LAST = 8  # from this many cards left, keep a sure trump pair for a last trick that multiplies more with it
# the bury key's weights: a trump is kept before anything, then pairs, then side aces, then
# points over the budget; within those, the shortest side suit goes first, lowest card first,
# points first while the budget lasts
W_TRUMP, W_PAIR, W_ACE, W_OVER_BUDGET = 1 << 30, 1 << 22, 1 << 21, 1 << 20
W_LENGTH = 64  # per card left in the class (more than any position)
POINT_PULL = 3  # per point, while the budget lasts (a king or ten before a low card of the suit)


@njit(cache=True)
def capture_multiplier(P, cards):
    """The bottom's multiplier when the defenders win the last trick with a trump unit of
    ``cards`` cards (0 if that does not capture)."""
    if cards == 1 and P[SINGLE_CAPTURES] == 0:
        return 0
    if P[CAPTURE_SCHEME] == CAPTURE_SCHEME_PER_CARD:
        return P[CAPTURE_BASE] + P[CAPTURE_PER_CARD] * cards
    if P[CAPTURE_SCHEME] == CAPTURE_SCHEME_POWER:
        m = 1
        for _ in range(cards):
            m *= P[CAPTURE_BASE]
        return m
    return cards


@njit(cache=True)
def bury_budget(hand, cls, P, n):
    """The points the expert will bury from ``hand`` (bottom included; ``n`` cards to bury)."""
    size = 0
    trumps = 0
    kinds = 0
    for c in range(NC):
        size += hand[c]
        if cls[c] == TRUMP:
            trumps += hand[c]
            kinds += 1
    if capture_multiplier(P, as_int(1)) == 0 and capture_multiplier(P, as_int(2)) == 0:
        return BUDGET_ANY  # nothing captures the bottom: its points are safe
    decks = P[DECKS]
    average = (size - n) * kinds / NC
    jokers = hand[SMALL_JOKER] + hand[BIG_JOKER]
    tier = 0
    if jokers >= decks + JOKERS_DOMINANT_EXTRA and trumps >= TRUMP_DOMINANT * average:
        tier = 3
    elif jokers >= 1 and trumps >= TRUMP_GOOD * average:
        tier = 2
    elif trumps >= TRUMP_FAIR * average:
        tier = 1
    # a bigger multiplier than the reference's x2 makes a capture dearer: one tier down up to x4,
    # two beyond (burying pays while the multiplier times the chance of a capture stays below
    # the chance that the points, kept in hand, would fall to the defenders anyway)
    m = capture_multiplier(P, as_int(1))
    if m == 0:
        m = capture_multiplier(P, as_int(2)) // 2
    if m > REFERENCE_MULTIPLIER:
        tier -= 1 if m <= 2 * REFERENCE_MULTIPLIER else 2
    if tier >= 3:
        return BUDGET_ANY
    if tier == 2:
        return BUDGET_GOOD * decks
    if tier == 1:
        return BUDGET_FAIR2 * decks // 2
    return 0


@njit(cache=True)
def bury_expert(left, cls, pos, P, n, length, out):
    """Bury ``n`` cards of ``left`` (a copy of the hand, taken from) into ``out``, one at a time,
    each the card of least key; ``length``: scratch for the cards per class."""
    budget = bury_budget(left, cls, P, n)
    for k in range(5):
        length[k] = 0
    for c in range(NC):
        length[cls[c]] += left[c]
    buried = 0
    for _ in range(n):
        best = -1
        best_key = ABOVE_BURY_KEY
        for c in range(NC):
            if left[c] == 0:
                continue
            k = cls[c]
            pts = core.POINTS[c]
            key = pos[c] + W_LENGTH * length[k]
            if k == TRUMP:
                key += W_TRUMP
            elif c % 13 == 12:
                key += W_ACE
            if left[c] >= 2:
                key += W_PAIR
            if pts > 0:
                key += W_OVER_BUDGET if buried + pts > budget else -POINT_PULL * pts
            if key < best_key:
                best_key = key
                best = c
        left[best] -= 1
        out[best] += 1
        length[cls[best]] -= 1
        buried += core.POINTS[best]


# --- leading ------------------------------------------------------------------------------------------
#
# The lead's keys (the first compiled engine's, kept by the rebuild). A sure winner: the biggest unit
# first (SURE_SIZE per card, where its points add SURE_POINT per point, at most 40 a card, and its position less
# than 64), then the most points, then the highest. The low lead when there is none: the fewest
# points first (``POINTS_FIRST`` per point), then the lowest card (LOW_POSITION per step) of the longest suit
# (LOW_LENGTH per card held in it: one more card weighs two steps of position); a pair first among equals
# (LOW_PAIR, less than one step).
SURE_SIZE = 1000
SURE_POINT = 4
LOW_POSITION = 4
LOW_LENGTH = 8
LOW_PAIR = 2
# declarers draw trumps with sure units while they hold at least 1 / DRAW_SHARE of the trumps they have not
# seen and more than DRAW_LEFT cards are left in each hand (the first compiled engine's thresholds)
DRAW_SHARE = 2
DRAW_LEFT = 4
# ``safe_throw``'s order: units by size (THROW_SIZE per card, above any position), then top; up to
# INSERTION_MAX units sorted in place as ``np.argsort`` would (numba's quicksort is an insertion sort below 16
# items), each item packing its unit's index in the low bits (the row holds ORDER_SLOTS units)
THROW_SIZE = 100
INSERTION_MAX = 15
ORDER_SLOTS = 64
ORDER_MASK = ORDER_SLOTS - 1


@njit(cache=True)
def lead_expert(seat, hand, played, voids, cls, pos, P, ctx, W, out):
    """Fill ``out`` with the lead. Returns 1 if it is a throw (several units), else 0."""
    declarers = ctx[C_DECL]
    my_team = seat % 2
    left = ctx[C_LEFT]
    FS = w_fs(W)
    unseen = unseen_into(hand, played, P, FS[FS_UNSEEN][:NC])
    if left <= KEEP_FOR_LAST:
        # 0. near the end, a sure trump pair or bigger is kept for the last trick (when that
        #    multiplies more than a single); the lead comes from the other cards
        rest = FS[FS_REST][:NC]
        copy1(rest, hand)
        if reserve_for_last_trick(hand, unseen, cls, pos, P, W, rest):
            hand = rest
    # 1. sure winners in side suits: the biggest unit, then the most points
    U_card, U_w, U_len, U_top, U_size, REC, REC_N, INTS = w_units(W)
    ubest = FS[FS_UNSEEN_BEST]
    best_u = -1
    best_key = -1
    best_k = as_int(-1)  # a literal would compile a second safe_throw
    built_k = -1  # the suit whose units the table holds
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
        hi = best_at(unseen, cls, pos, k, ubest)
        # single cards below the highest unseen card of the suit: no sure unit (skip the table)
        top = -1
        multi = False
        lo, hi_id = class_span(k)
        for c in range(lo, hi_id):
            if hand[c] > 0 and cls[c] == k:
                if hand[c] >= 2:
                    multi = True
                if pos[c] > top:
                    top = pos[c]
        if not multi and top < hi:
            continue
        nU = build_units(hand, cls, pos, k, P, ANY_SIZE, 1, W)
        built_k = k
        for u in range(nU):
            pts = 0
            for st in range(U_len[u]):
                pts += core.POINTS[U_card[u, st]] * U_w[u, st]
            key = U_size[u] * SURE_SIZE + pts * SURE_POINT + U_top[u]
            if key > best_key and unit_is_sure(W, u, ubest, hi):
                best_key = key
                best_u = u
                best_k = k
    if best_u >= 0:
        # throw every sure unit of that suit at once when the throw test is safe
        if P[THROWS] == 1:
            thrown = safe_throw(hand, unseen, cls, pos, P, best_k, W, out)
            if thrown:
                return 1
            built_k = best_k  # safe_throw built the same table
        if built_k != best_k:
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
    length = FS[FS_LENGTH][:5]  # cards held per class
    length[:] = 0
    for c in range(NC):
        length[cls[c]] += hand[c]
    best_c = -1
    low_key = ABOVE_KEY
    for c in range(NC):
        if hand[c] == 0 or cls[c] == TRUMP:
            continue
        key = core.POINTS[c] * POINTS_FIRST + pos[c] * LOW_POSITION - length[cls[c]] * LOW_LENGTH
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
def follow_expert(seat, hand, played, voids, cls, pos, P, ctx, W, LI, lead, win_c, partner_wins, last_trick, out):
    follow_scored(
        core.as_bool(True),
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
def reserve_for_last_trick(hand, unseen, cls, pos, P, W, rest):
    """When the last trick's multiplier grows with the unit that wins it, the biggest sure trump
    unit of two cards or more is worth keeping for the last trick: defenders capture with it,
    declarers deny the capture (nothing can beat it there) and capture where they may. Removes it
    from ``rest`` (a copy of ``hand``) and returns True, unless it is all the hand holds."""
    if capture_multiplier(P, as_int(2)) <= capture_multiplier(P, as_int(1)):
        return False
    U_card, U_w, U_len, U_top, U_size, REC, REC_N, INTS = w_units(W)
    n = 0
    for c in range(NC):
        n += hand[c]
    ubest = w_fs(W)[FS_UNSEEN_BEST]
    hi = best_at(unseen, cls, pos, as_int(TRUMP), ubest)
    nU = build_units(hand, cls, pos, TRUMP, P, n - 1, 2, W)
    keep = -1
    for u in range(nU):
        if unit_is_sure(W, u, ubest, hi) and (keep < 0 or U_size[u] > U_size[keep]):
            keep = u
    if keep < 0:
        return False
    for st in range(U_len[keep]):
        rest[U_card[keep, st]] -= U_w[keep, st]
    return True


@njit(cache=True)
def safe_throw(hand, unseen, cls, pos, P, k, W, out):
    """Expert: throw all units of suit ``k`` that are sure winners, if there are at least two and
    the variant's throw test passes against every unseen card. Returns True if ``out`` is set."""
    U_card, U_w, U_len, U_top, U_size, REC, REC_N, INTS = w_units(W)
    nU = build_units(hand, cls, pos, k, P, ANY_SIZE, 1, W)
    FS = w_fs(W)
    ubest = FS[FS_UNSEEN_BEST]
    hi = best_at(unseen, cls, pos, k, ubest)
    tmp = FS[FS_THROW_TMP][:NC]
    tmp[:] = 0
    left = FS[FS_THROW_LEFT][:NC]
    copy1(left, hand)
    n_units = 0
    # greedy: biggest sure units first, then the highest; ties in unit order. Up to INSERTION_MAX units
    # np.argsort is an insertion sort (numba's quicksort below 16 items), which ``FS_THROW_ORDER`` repeats
    # without allocating: each item is -(size * THROW_SIZE + top) * ORDER_SLOTS + u, distinct, sorted ascending.
    # More units (a long suit of three or four decks lists dozens) are sorted by argsort itself,
    # into an array of their own: the row holds ORDER_SLOTS
    order = FS[FS_THROW_ORDER]
    if nU > INSERTION_MAX:
        order = np.argsort(-U_size[:nU] * THROW_SIZE - U_top[:nU])
    else:
        for u in range(nU):
            insert_sorted(order, 0, u, -(U_size[u] * THROW_SIZE + U_top[u]) * ORDER_SLOTS + u)
        for i in range(nU):
            order[i] &= ORDER_MASK
    for i in range(nU):
        u = order[i]
        ok = True
        for st in range(U_len[u]):
            if left[U_card[u, st]] < U_w[u, st]:
                ok = False
        if not ok or not unit_is_sure(W, u, ubest, hi):
            continue
        for st in range(U_len[u]):
            left[U_card[u, st]] -= U_w[u, st]
            tmp[U_card[u, st]] += U_w[u, st]
        n_units += 1
    if n_units < 2:
        return False
    if P[THROW_TEST] == THROW_TEST_ABSOLUTE_MAX:
        # absolute max: the smallest card must be at least every unseen card of the suit
        low = ABOVE_POSITION
        for c in range(NC):
            if tmp[c] > 0 and pos[c] < low:
                low = pos[c]
        for c in range(NC):
            if unseen[c] > 0 and cls[c] == k and pos[c] > low:
                return False
    for c in range(NC):
        out[c] = tmp[c]
    return True


# --- following --------------------------------------------------------------------------------------
