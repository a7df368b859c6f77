"""The candidates a decision weighs: the heuristic's own choice and the other plays a strong player would
consider, every one legal by construction. ``search`` weighs them by playing each out; ``learned`` scores
them with its model (the same lists, so the model is trained and played on the same candidates).
"""

from __future__ import annotations

from numba import njit

from .. import core
from ..core import (
    CLAIM_KIND,
    CLAIM_TOP,
    CLAIM_TRUMP,
    CS_AT_CLAIM,
    CS_AT_SUMS,
    CS_BUILD,
    CS_COUNTERS,
    CS_INCLASS,
    CS_LEFT,
    CS_OTHERS,
    CS_RUFF,
    FS_BEST,
    INT_NREC,
    MAX_CANDIDATES,
    N_CLAIM,
    NC,
    TRUMP,
    as_int,
    copy1,
    w_cs,
    w_fs,
    w_ints,
    w_rec,
    w_rec_n,
    w_u_card,
    w_u_len,
    w_u_size,
    w_u_top,
    w_u_w,
)
from ..follow import best_sets
from ..order import class_span
from ..params import BOTTOM
from ..phases import S_K, S_N, S_WINNER
from ..trick import beats
from ..units import build_units
from . import bury_three, follow_once, lead_once
from .codes import EXPERT
from .common import ANY_SIZE, POINTS_FIRST, bury_by_key, fill, put_unit, split_by_class, strength, try_trump

DEFAULT_CANDIDATES = 6  # C: candidates weighed per decision (the heuristic's choice always among them)
ROLLOUT_POLICY = EXPERT  # the heuristic whose own choice is each list's first candidate


# --- the lists -----------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def same_play(cand, i, play):
    """Whether candidate ``i`` of the list ``cand`` is the play ``play`` (count vectors)."""
    for c in range(NC):
        if cand[i, c] != play[c]:
            return False
    return True


@njit(cache=True, inline="always")
def _add(cand, n, play, cap, sig):
    """Append ``play`` to the candidate list unless it is there already or the list is full.
    ``sig[i]``: a sum over candidate ``i``'s cards, kept beside the list, so that only a candidate
    with the same sum is compared card by card."""
    if n >= cap:
        return n
    x = 0
    for c in range(NC):
        x += play[c] * (c * 5 + 1)
    for i in range(n):
        if sig[i] == x and same_play(cand, i, play):
            return n
    for c in range(NC):
        cand[n, c] = play[c]
    sig[n] = x
    return n + 1


# the lead candidates' lowest single: the fewest points first (LOW_POINT per point, above any position), then
# the lowest position (set with the first search)
LOW_POINT = 100


@njit(cache=True)
def lead_candidates(P, st, seat, W, s, cap, cand):
    """The heuristic's lead, then for each suit-class the biggest unit (highest of that size), the
    lowest single (fewest points) and the highest single: every one a single unit or the
    heuristic's own throw."""
    U_card, U_w, U_len, U_top, U_size = w_u_card(W), w_u_w(W), w_u_len(W), w_u_top(W), w_u_size(W)
    hand = st.hands[seat]
    CS = w_cs(W)
    tmp = CS[CS_BUILD][:NC]
    sig = CS[CS_COUNTERS][CS_AT_SUMS : CS_AT_SUMS + MAX_CANDIDATES]  # ``_add``'s sums
    lead_once(ROLLOUT_POLICY, seat, st.hands, st.played, st.voids, st.cls, st.pos, P, st.ctx, W, s, tmp)
    n = _add(cand, 0, tmp, cap, sig)
    highs = CS[CS_COUNTERS][CS_AT_CLAIM : CS_AT_CLAIM + 5]
    cls, pos = st.cls, st.pos
    for k in range(5):
        highs[k] = -1
    for k in range(5):
        # the singles by a pass over the class: the lowest (fewest points, then lowest; the
        # smaller id of two cards at one position) and the highest (the smaller id likewise);
        # the biggest unit from the units of two or more copies, which a class without a pair
        # does not have
        lo_id, hi_id = class_span(k)
        low = -1
        multi = False
        for c in range(lo_id, hi_id):
            if hand[c] == 0 or cls[c] != k:
                continue
            multi |= hand[c] >= 2
            key = core.POINTS[c] * LOW_POINT + pos[c]
            if (
                low < 0
                or key < core.POINTS[low] * LOW_POINT + pos[low]
                or (key == core.POINTS[low] * LOW_POINT + pos[low] and c < low)
            ):
                low = c
            if highs[k] < 0 or pos[c] > pos[highs[k]] or (pos[c] == pos[highs[k]] and c < highs[k]):
                highs[k] = c
        if low < 0:
            continue
        if multi:
            nU = build_units(hand, cls, pos, k, P, ANY_SIZE, 2, W)
            big = -1
            for u in range(nU):
                if big < 0 or U_size[u] > U_size[big] or (U_size[u] == U_size[big] and U_top[u] > U_top[big]):
                    big = u
            if big >= 0 and U_size[big] > 1:
                tmp[:] = 0
                put_unit(U_card, U_w, U_len, big, tmp)
                n = _add(cand, n, tmp, cap, sig)
        tmp[:] = 0
        tmp[low] = 1
        n = _add(cand, n, tmp, cap, sig)
    for k in range(5):
        if highs[k] >= 0:
            tmp[:] = 0
            tmp[highs[k]] = 1
            n = _add(cand, n, tmp, cap, sig)
    return n


@njit(cache=True)
def follow_candidates(P, st, seat, W, s, cap, cand):
    """Legal follows: the heuristic's, then the same unit sets filled low, with points and high,
    the cheapest winning trump when void, and for a single lead the lowest, highest, lowest winning
    and richest cards that may be played."""
    hand = st.hands[seat]
    cls = st.cls
    pos = st.pos
    LI = st.LI
    k = st.sc[S_K]
    n_need = st.sc[S_N]
    CS = w_cs(W)
    tmp = CS[CS_BUILD][:NC]
    sig = CS[CS_COUNTERS][CS_AT_SUMS : CS_AT_SUMS + MAX_CANDIDATES]  # ``_add``'s sums
    follow_once(
        ROLLOUT_POLICY,
        seat,
        st.hands,
        st.played,
        st.voids,
        cls,
        pos,
        P,
        st.ctx,
        W,
        s,
        LI,
        st.lead,
        st.win_c,
        st.sc[S_WINNER],
        tmp,
    )
    n = _add(cand, 0, tmp, cap, sig)
    have = 0
    for c in range(NC):
        if cls[c] == k:
            have += hand[c]
    cur = CS[CS_COUNTERS][CS_AT_CLAIM : CS_AT_CLAIM + N_CLAIM]
    if n_need == 1:
        # one card: any card of the suit, or any card at all when void
        lo = -1
        hi = -1
        win = -1
        rich = -1
        for c in range(NC):
            if hand[c] == 0 or (have > 0 and cls[c] != k):
                continue
            st_c = strength(c, cls, pos)
            if lo < 0 or core.POINTS[c] * POINTS_FIRST + st_c < core.POINTS[lo] * POINTS_FIRST + strength(lo, cls, pos):
                lo = c
            if hi < 0 or st_c > strength(hi, cls, pos):
                hi = c
            if rich < 0 or core.POINTS[c] * POINTS_FIRST - st_c > core.POINTS[rich] * POINTS_FIRST - strength(
                rich, cls, pos
            ):
                rich = c
            cur[CLAIM_KIND] = 0
            cur[CLAIM_TRUMP] = 1 if cls[c] == TRUMP else 0
            cur[CLAIM_TOP] = pos[c]
            if (cls[c] == k or cls[c] == TRUMP) and beats(cur, st.win_c):
                if win < 0 or st_c < strength(win, cls, pos):
                    win = c
        for c in (win, rich, lo, hi):
            if c >= 0:
                tmp[:] = 0
                tmp[c] = 1
                n = _add(cand, n, tmp, cap, sig)
        return n
    FS = w_fs(W)
    inclass = CS[CS_INCLASS][:NC]
    others = CS[CS_OTHERS][:NC]
    split_by_class(hand, cls, k, inclass, others)
    if have <= n_need:
        need = n_need - have
        if have == 0 and k != TRUMP:
            trial = CS[CS_RUFF][:NC]
            if try_trump(hand, cls, pos, P, LI, W, st.lead, st.win_c, trial, cur):
                n = _add(cand, n, trial, cap, sig)
        for mode in range(2):
            copy1(tmp, inclass)
            fill(tmp, others, need, cls, pos, mode)
            n = _add(cand, n, tmp, cap, sig)
        return n
    U_card, U_w, U_len, REC, REC_N, INTS = w_u_card(W), w_u_w(W), w_u_len(W), w_rec(W), w_rec_n(W), w_ints(W)
    best = FS[FS_BEST]
    best_sets(inclass, cls, pos, P, LI, W, best)
    nrec = INTS[INT_NREC]
    for r in range(nrec):
        for mode in range(3):
            tmp[:] = 0
            for j in range(REC_N[r]):
                put_unit(U_card, U_w, U_len, REC[r, j], tmp)
            need = n_need
            for c in range(NC):
                need -= tmp[c]
            fill(tmp, inclass, need, cls, pos, mode)
            n = _add(cand, n, tmp, cap, sig)
            if n >= cap:
                return n
    return n


# The bury habits' weights (``bury_by_key``; search's own, the values of its first bury
# candidates): trumps kept before anything (HABIT_TRUMP), then pairs (HABIT_PAIR); below those each habit
# orders by its own criterion, HABIT_BY per point (the lowest cards) or per card left in the class (the
# shortest suits), above any position; points first weighs HABIT_RICH per point short of ``common.RICH_FROM``
# and then HABIT_SHORT per card of the class. Each weight is above all that the lower ones can add.
HABIT_TRUMP = 1 << 40
HABIT_PAIR = 1 << 30
HABIT_BY = 1 << 20
HABIT_RICH = 1 << 24
HABIT_SHORT = 1 << 16
HABIT_POINT = 1 << 28  # a point card kept before any length (below pairs)


@njit(cache=True)
def bury_candidates(P, st, seat, W, s, cap, cand):
    """Bury sets from different habits: the heuristic's (void short suits, no points, no pairs),
    the lowest cards whatever their suit, the shortest suits points and all, points first (a points
    budget the search then weighs against the capture rule), the shortest suits keeping every point
    card, and the lowest cards breaking pairs: six habits, from no points at all to the most."""
    hand = st.hands[seat]
    cls = st.cls
    pos = st.pos
    nb = P[BOTTOM]
    CS = w_cs(W)
    tmp = CS[CS_BUILD][:NC]
    sig = CS[CS_COUNTERS][CS_AT_SUMS : CS_AT_SUMS + MAX_CANDIDATES]  # ``_add``'s sums
    bury_three(as_int(ROLLOUT_POLICY), hand, cls, pos, P, s, nb, W, tmp)
    length = CS[CS_COUNTERS][CS_AT_CLAIM : CS_AT_CLAIM + 5]
    left = CS[CS_LEFT][:NC]
    n = _add(cand, 0, tmp, cap, sig)
    # (trump, pair, point card, per point, per card of the class, per point short of 20)
    for style in range(5):
        tmp[:] = 0
        copy1(left, hand)
        if style == 0:  # the lowest cards, fewest points, any suit
            bury_by_key(left, cls, pos, nb, HABIT_TRUMP, HABIT_PAIR, 0, HABIT_BY, 0, 0, length, tmp)
        elif style == 1:  # the shortest suits, points and all
            bury_by_key(left, cls, pos, nb, HABIT_TRUMP, HABIT_PAIR, 0, 0, HABIT_BY, 0, length, tmp)
        elif style == 2:  # points first, from the shortest suits
            bury_by_key(left, cls, pos, nb, HABIT_TRUMP, HABIT_PAIR, 0, 0, HABIT_SHORT, HABIT_RICH, length, tmp)
        elif style == 3:  # the shortest suits, keeping every point card
            bury_by_key(left, cls, pos, nb, HABIT_TRUMP, HABIT_PAIR, HABIT_POINT, 0, HABIT_BY, 0, length, tmp)
        else:  # the lowest cards, fewest points, pairs broken like any card
            bury_by_key(left, cls, pos, nb, HABIT_TRUMP, 0, 0, HABIT_BY, 0, 0, length, tmp)
        n = _add(cand, n, tmp, cap, sig)
    return n
