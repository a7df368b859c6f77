"""Units on arrays, compiled: the *unit table* of a holding (every candidate single, pair, triple,
tractor and, where the variant allows, 3+2 unit) and the shape codes of units (the rules of
``simsuite.rules.units``).

A unit table lists candidate units of one holding: ``U_len[u]`` steps, step ``s`` holds card
``U_card[u, s]`` times ``U_w[u, s]``; ``U_top[u]`` is the position of step 0, ``U_size[u]`` its
card count. Shape codes: uniform units ``w*100+L`` (width, length), the mixed 3+2 unit 9005."""

from __future__ import annotations

from numba import njit

from .core import (
    BU_AT,
    BU_CARDS,
    BU_IDX,
    BU_NCAND,
    BU_ORDER,
    BU_WIDTHS,
    MAXS,
    MAXU,
    as_int,
    w_bu,
    w_cb,
    w_u_card,
    w_u_len,
    w_u_size,
    w_u_top,
    w_u_w,
)
from .order import class_cards, class_span
from .params import MAX_UNIT, TRIPLE_PAIR_UNIT, WIDE_TRACTORS


@njit(cache=True, inline="always")
def _add_unit(U_card, U_w, U_len, U_top, U_size, nU, cards, widths, L, pos):
    if nU >= MAXU:
        return nU
    size = 0
    for s in range(L):
        U_card[nU, s] = cards[s]
        U_w[nU, s] = widths[s]
        size += widths[s]
    U_len[nU] = L
    U_top[nU] = pos[cards[0]]
    U_size[nU] = size
    return nU + 1


@njit(cache=True, inline="always")
def build_units(counts, cls, pos, k, P, room, min_w, W):
    """Every unit of at least ``min_w`` copies and at most ``room`` cards in class ``k``, into the
    unit table (``core.w_u_card`` .. ``w_u_size``); returns the number of units. (The constants
    callers pass are made plain ints here, so that every caller shares one compiled
    ``_build_units``.)"""
    return _build_units(counts, cls, pos, as_int(k), P, as_int(room), as_int(min_w), W)


@njit(cache=True)
def _build_units(counts, cls, pos, k, P, room, min_w, W):
    U_card, U_w, U_len, U_top, U_size = w_u_card(W), w_u_w(W), w_u_len(W), w_u_top(W), w_u_size(W)
    BU = w_bu(W)
    order = BU[BU_ORDER]
    n = class_cards(counts, cls, pos, k, order)
    cards = BU[BU_CARDS]
    widths = BU[BU_WIDTHS]
    cand = w_cb(W)  # indices into ``order``
    ncand = BU[BU_NCAND]
    idx = BU[BU_IDX]
    at = BU[BU_AT]  # index into ``order`` of each chain step
    nU = 0
    maxu = P[MAX_UNIT]
    for i in range(n):
        c = order[i]
        top_w = min(counts[c], maxu)
        for w in range(top_w, min_w - 1, -1):
            if w > room:
                continue
            cards[0] = c
            widths[0] = w
            at[0] = i
            nU = _add_unit(U_card, U_w, U_len, U_top, U_size, nU, cards, widths, 1, pos)
            if w == 1 or (w >= 3 and P[WIDE_TRACTORS] == 0):
                continue
            # chains downward through consecutive positions (several cards may share a position)
            level = 1
            ncand[1] = _next_run(order, n, i, counts, pos, w, cand[1])
            idx[1] = 0
            while level >= 1:
                if idx[level] < ncand[level] and (level + 1) * w <= room:
                    j = cand[level, idx[level]]
                    idx[level] += 1
                    d = order[j]
                    cards[level] = d
                    widths[level] = w
                    at[level] = j
                    nU = _add_unit(U_card, U_w, U_len, U_top, U_size, nU, cards, widths, level + 1, pos)
                    if level + 1 < MAXS:
                        level += 1
                        ncand[level] = _next_run(order, n, j, counts, pos, w, cand[level])
                        idx[level] = 0
                else:
                    level -= 1
        if P[TRIPLE_PAIR_UNIT] == 1 and room >= 5 and counts[c] >= 2:
            m = _next_run(order, n, i, counts, pos, 2, cand[0])
            for jj in range(m):
                d = order[cand[0, jj]]
                if counts[c] >= 3 and counts[d] >= 2:
                    cards[0] = c
                    cards[1] = d
                    widths[0] = 3
                    widths[1] = 2
                    nU = _add_unit(U_card, U_w, U_len, U_top, U_size, nU, cards, widths, 2, pos)
                if counts[c] >= 2 and counts[d] >= 3:
                    cards[0] = c
                    cards[1] = d
                    widths[0] = 2
                    widths[1] = 3
                    nU = _add_unit(U_card, U_w, U_len, U_top, U_size, nU, cards, widths, 2, pos)
    return nU


@njit(cache=True, inline="always")
def _next_run(order, n, i, counts, pos, w, out):
    """Indices (into ``order``, strongest first) of the cards one position below ``order[i]``
    holding at least ``w`` copies; returns how many (at most 4)."""
    p = pos[order[i]]
    j = i + 1
    while j < n and pos[order[j]] == p:
        j += 1
    m = 0
    while j < n and pos[order[j]] == p - 1:
        if counts[order[j]] >= w and m < 4:
            out[m] = j
            m += 1
        j += 1
    return m


@njit(cache=True, inline="always")
def unit_width(U_w, U_len, u):
    w = 0
    for s in range(U_len[u]):
        if U_w[u, s] > w:
            w = U_w[u, s]
    return w


@njit(cache=True, inline="always")
def unit_uniform(U_w, U_len, u):
    for s in range(1, U_len[u]):
        if U_w[u, s] != U_w[u, 0]:
            return False
    return True


@njit(cache=True, inline="always")
def shape_code(U_w, U_len, U_size, u):
    """A code for a unit's shape: widths*100+length for uniform units, 9000+sum for mixed ones."""
    if unit_uniform(U_w, U_len, u):
        return U_w[u, 0] * 100 + U_len[u]
    return 9000 + U_size[u]


@njit(cache=True)
def single_unit_shape(play, cls, pos, k):
    """If ``play`` (all of class ``k``) is exactly one unit, return (code, top, width, n); else code -1.
    Codes as ``shape_code``: uniform w*100+L, mixed 3+2 units 9005. No allocation: positions are
    collected in a bit mask (every position is below 64). It visits class ``k``'s ids only."""
    if k < 0:
        return -1, -1, 0, 0
    first, end = class_span(k)
    mask = 0
    n = 0
    L = 0
    lo = 1 << 30
    hi = -1
    w0 = -1
    uniform = True
    wmax = 0
    for c in range(first, end):
        m = play[c]
        if m > 0:
            p = pos[c]
            bit = 1 << p
            if mask & bit:
                return -1, -1, 0, 0  # two different cards at one position
            mask |= bit
            L += 1
            n += m
            if w0 < 0:
                w0 = m
            elif m != w0:
                uniform = False
            if m > wmax:
                wmax = m
            if p > hi:
                hi = p
            if p < lo:
                lo = p
    if L == 0 or hi - lo + 1 != L:
        return -1, -1, 0, 0
    if uniform:
        if L >= 2 and w0 == 1:
            return -1, -1, 0, 0
        return w0 * 100 + L, hi, w0, n
    if L == 2 and n == 5 and wmax == 3:
        return 9005, hi, 3, 5
    return -1, -1, 0, 0
