"""Winning a trick and throws on arrays, compiled: a play's claim to the trick, which claim beats
which, and the throw test with its penalty (the rules of ``simsuite.rules.trick``)."""

from __future__ import annotations

from numba import njit

from .core import (
    CLAIM_KIND,
    CLAIM_TOP,
    CLAIM_TRUMP,
    HL_THROW,
    LI_CARDS,
    LI_CLASS,
    LI_CODES,
    LI_KEY_CODE,
    LI_KEY_TOP,
    LI_NSEL,
    LI_SINGLES,
    LI_UNITS,
    LS_LEFT,
    LS_NEXT,
    LS_SEL,
    LS_THROW_CODES,
    MAXD,
    NC,
    REC_FIRST,
    TRUMP,
    as_int,
    insert_sorted,
    w_hl,
    w_ls,
    w_rec,
    w_rec_n,
    w_u_card,
    w_u_len,
    w_u_size,
    w_u_top,
    w_u_w,
)
from .follow import lead_info, move_unit, next_unit
from .order import class_span, play_class
from .params import (
    BOMBS,
    FORCED_PLAY,
    FORCED_PLAY_SMALLEST_CARD,
    THROW_FAILURE,
    THROW_FAILURE_PENALTY_FLAT,
    THROW_FAILURE_PENALTY_PER_CARD_BEATEN,
    THROW_FAILURE_PENALTY_PER_CARD_TAKEN_BACK,
    THROW_PENALTY,
    THROW_TEST,
    THROW_TEST_ABSOLUTE_MAX,
    WIDE_BEATS,
)
from .units import build_units, shape_code, single_unit_shape, unit_uniform


@njit(cache=True)
def contender(play, cls, pos, P, LI, W, is_lead, out):
    """A play's claim to the trick as (kind, trump, top) in ``out``; returns False if it cannot win."""
    if is_lead or LI[LI_UNITS] == 1:
        return contender_unit(play, cls, pos, P, LI, is_lead, out)
    k = play_class(play, cls)
    if k < 0 or (k != LI[LI_CLASS] and k != TRUMP):
        return False
    # a throw: only trump answering a side lead, matching every unit
    if k != TRUMP or LI[LI_CLASS] == TRUMP:
        return False
    top = match_throw(play, cls, pos, P, LI, W)
    if top < 0:
        return False
    out[CLAIM_KIND] = 0
    out[CLAIM_TRUMP] = 1
    out[CLAIM_TOP] = top
    return True


@njit(cache=True, inline="always")
def contender_unit(play, cls, pos, P, LI, is_lead, out):
    """``contender`` for the lead itself and for answers to a one-unit lead (no search needed)."""
    if is_lead:
        out[CLAIM_KIND] = 0
        out[CLAIM_TRUMP] = 1 if LI[LI_CLASS] == TRUMP else 0
        out[CLAIM_TOP] = LI[LI_KEY_TOP]
        return True
    return contender_unit_of(play, play_class(play, cls), cls, pos, P, LI, out)


@njit(cache=True, inline="always")
def contender_unit_of(play, k, cls, pos, P, LI, out):
    """``contender_unit`` of a follow whose one class is known to be ``k`` (-1: it mixes classes),
    without the pass over the cards that finds it."""
    if k < 0 or (k != LI[LI_CLASS] and k != TRUMP):
        return False
    trump = 1 if k == TRUMP else 0
    code, top, w, n = single_unit_shape(play, cls, pos, as_int(k))  # a literal -1 compiled a second copy
    if code < 0:
        return False
    lead_code = LI[LI_KEY_CODE]
    if code == lead_code:
        kind = 0
    else:
        lead_w = lead_code // 100
        lead_L = lead_code % 100
        if lead_code >= 9000 or lead_w != 2 or lead_L < 2 or n != LI[LI_CARDS] or code >= 9000:
            return False
        L = code % 100
        if P[WIDE_BEATS] == 1 and w >= 3 and L >= 2:
            kind = 1
        elif P[BOMBS] == 1 and w == 4 and L == 1 and lead_L == 2:
            kind = 1
        else:
            return False
    out[CLAIM_KIND] = kind
    out[CLAIM_TRUMP] = trump
    out[CLAIM_TOP] = top
    return True


@njit(cache=True)
def match_throw(play, cls, pos, P, LI, W):
    """The best top of the key unit over decompositions of ``play`` into exactly the lead's units
    (``LI``), or -1 if none matches."""
    n = 0
    for c in range(NC):
        n += play[c]
    if n != LI[LI_CARDS]:
        return -1
    nU = build_units(play, cls, pos, TRUMP, P, n, 2, W)
    U_card, U_w, U_len, U_top, U_size = w_u_card(W), w_u_w(W), w_u_len(W), w_u_top(W), w_u_size(W)
    nsel_lead = LI[LI_NSEL]
    need_singles = LI[LI_SINGLES]
    key_code = LI[LI_KEY_CODE]
    LS = w_ls(W)
    left = LS[LS_LEFT]
    for c in range(NC):
        left[c] = play[c]
    sel = LS[LS_SEL]
    nxt = LS[LS_NEXT]
    nxt[0] = 0
    codes = LS[LS_THROW_CODES]
    best = -1
    d = 0
    used = 0
    # the empty set: all singles
    if nsel_lead == 0:
        for c in range(NC):
            if play[c] > 0 and pos[c] > best:
                best = pos[c]
        return best
    while d >= 0:
        found = next_unit(U_card, U_w, U_len, U_size, left, nxt[d], nU, NC) if d < nsel_lead else -1
        if found < 0:
            d -= 1
            if d >= 0:
                used -= move_unit(U_card, U_w, U_len, U_size, left, sel[d], 1)
                nxt[d] = sel[d] + 1
            continue
        used += move_unit(U_card, U_w, U_len, U_size, left, found, -1)
        sel[d] = found
        if d + 1 == nsel_lead and n - used == need_singles:
            for i in range(d + 1):  # the codes, ascending
                insert_sorted(codes, 0, i, shape_code(U_w, U_len, U_size, sel[i]))
            same = True
            for i in range(d + 1):
                if codes[i] != LI[LI_CODES + i]:
                    same = False
                    break
            if same:
                if key_code == 101:
                    t = -1
                    for c in range(NC):
                        if left[c] > 0 and pos[c] > t:
                            t = pos[c]
                else:
                    t = -1
                    for i in range(d + 1):
                        if shape_code(U_w, U_len, U_size, sel[i]) == key_code and U_top[sel[i]] > t:
                            t = U_top[sel[i]]
                if t > best:
                    best = t
        nxt[d + 1] = found
        d += 1
    return best


@njit(cache=True, inline="always")
def beats(a, b):
    """Does contender ``a`` (kind, trump, top), played later, beat ``b``?"""
    if a[CLAIM_KIND] < b[CLAIM_KIND]:
        return False
    if a[CLAIM_TRUMP] != b[CLAIM_TRUMP]:
        return a[CLAIM_TRUMP] > b[CLAIM_TRUMP]
    return a[CLAIM_KIND] > b[CLAIM_KIND] or a[CLAIM_TOP] > b[CLAIM_TOP]


@njit(cache=True)
def best_at(hand, cls, pos, k, out):
    """``out[p]``: the most copies of any one card at position ``p`` of class ``k`` in ``hand``."""
    for i in range(out.shape[0]):
        out[i] = 0
    top = -1
    lo, hi = class_span(k)
    for c in range(lo, hi):
        if hand[c] > 0 and cls[c] == k:
            if hand[c] > out[pos[c]]:
                out[pos[c]] = hand[c]
            if pos[c] > top:
                top = pos[c]
    return top


@njit(cache=True)
def throw_check(lead, hands, thrower, cls, pos, P, LI, W, forced):
    """Test a throw against the other three hands. Returns (stands, penalty_cards, n_failing);
    fills ``forced`` with the play the thrower must make when it fails."""
    k = LI[LI_CLASS]
    rec_n = w_rec_n(W)
    U_card, U_w, U_len, U_top, U_size = w_u_card(W), w_u_w(W), w_u_len(W), w_u_top(W), w_u_size(W)
    # re-read the lead's units (lead_info leaves them in rec[REC_FIRST])
    lead_info(lead, cls, pos, P, W, LI)
    nsel = rec_n[REC_FIRST]
    # the lead's units, the units that fail, the lead's singles, the best copies per position of
    # one opponent
    T = w_hl(W)[HL_THROW]
    units = T[:MAXD]
    failed = T[MAXD : 2 * MAXD]
    single_left = T[2 * MAXD : 2 * MAXD + NC]
    best = T[2 * MAXD + NC : 2 * MAXD + NC + 64]
    rec0 = w_rec(W)[REC_FIRST]
    for i in range(nsel):
        units[i] = rec0[i]
    # singles of the lead
    for c in range(NC):
        single_left[c] = lead[c]
    for i in range(nsel):
        u = units[i]
        for s in range(U_len[u]):
            single_left[U_card[u, s]] -= U_w[u, s]
    beaten = 0
    nfail = 0
    fail_top = 1 << 30
    fail_u = -2  # -2 none, -1 a single, else unit index
    fail_single = -1
    if P[THROW_TEST] == THROW_TEST_ABSOLUTE_MAX:
        top_other = -1
        for s in range(4):
            if s == thrower:
                continue
            for c in range(NC):
                if hands[s, c] > 0 and cls[c] == k and pos[c] > top_other:
                    top_other = pos[c]
        for i in range(nsel):
            u = units[i]
            low = 0
            for s in range(U_len[u]):
                if pos[U_card[u, s]] < top_other:
                    low += U_w[u, s]
            if low > 0:
                beaten += low
                nfail += 1
                if U_top[u] < fail_top or (U_top[u] == fail_top and fail_u >= 0 and U_size[u] < U_size[fail_u]):
                    fail_top = U_top[u]
                    fail_u = u
        for c in range(NC):
            if single_left[c] > 0 and pos[c] < top_other:
                beaten += single_left[c]
                nfail += single_left[c]
                if pos[c] < fail_top or (pos[c] == fail_top and fail_u >= 0):
                    fail_top = pos[c]
                    fail_u = -1
                    fail_single = c
    else:
        for i in range(nsel):
            failed[i] = 0
        for s in range(4):
            if s == thrower:
                continue
            best_at(hands[s], cls, pos, k, best)
            for i in range(nsel):
                if failed[i] == 1:
                    continue
                u = units[i]
                L = U_len[u]
                top = U_top[u]
                uni = unit_uniform(U_w, U_len, u)
                can = False
                for t in range(top + 1, 64):
                    if t - L + 1 < 0:
                        continue
                    if uni:
                        ok = True
                        w = U_w[u, 0]
                        for j in range(L):
                            if best[t - j] < w:
                                ok = False
                                break
                    else:
                        ok = (best[t] >= 3 and best[t - 1] >= 2) or (best[t] >= 2 and best[t - 1] >= 3)
                    if ok:
                        can = True
                        break
                if can:
                    failed[i] = 1
                    beaten += U_size[u]
                    nfail += 1
                    if top < fail_top or (top == fail_top and fail_u >= 0 and U_size[u] < U_size[fail_u]):
                        fail_top = top
                        fail_u = u
            for c in range(NC):
                if single_left[c] > 0:
                    higher = False
                    for t in range(pos[c] + 1, 64):
                        if best[t] >= 1:
                            higher = True
                            break
                    if higher:
                        beaten += single_left[c]
                        nfail += single_left[c]
                        if pos[c] < fail_top or (pos[c] == fail_top and fail_u >= 0):
                            fail_top = pos[c]
                            fail_u = -1
                            fail_single = c
                        single_left[c] = 0
    for c in range(NC):
        forced[c] = 0
    if nfail == 0:
        return True, 0, 0
    if P[FORCED_PLAY] == FORCED_PLAY_SMALLEST_CARD:
        low = -1
        for c in range(NC):
            if lead[c] > 0 and (low < 0 or pos[c] < pos[low] or (pos[c] == pos[low] and c < low)):
                low = c
        forced[low] = 1
    elif fail_u == -1:
        forced[fail_single] = 1
    else:
        for s in range(U_len[fail_u]):
            forced[U_card[fail_u, s]] += U_w[fail_u, s]
    return False, beaten, nfail


@njit(cache=True)
def throw_penalty(P, beaten, lead_n, forced_n):
    """Penalty points of a failed throw (before its sign)."""
    how = P[THROW_FAILURE]
    if how == THROW_FAILURE_PENALTY_PER_CARD_BEATEN:
        return P[THROW_PENALTY] * beaten
    if how == THROW_FAILURE_PENALTY_PER_CARD_TAKEN_BACK:
        return P[THROW_PENALTY] * (lead_n - forced_n)
    if how == THROW_FAILURE_PENALTY_FLAT:
        return P[THROW_PENALTY]
    return 0
