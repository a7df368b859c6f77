"""The rules on arrays, compiled: card order, units, follow profiles, trick winners, throws and
scoring. The same rules as ``simsuite.rules.order`` / ``units`` / ``follow`` / ``trick`` / ``scoring``
(the readable reference, used by ``simsuite judge``); tests check that both agree.

Layout:

* ``cls[c]``, ``pos[c]``: suit-class (0..3 side suits, 4 trump) and position of card ``c`` for
  one hand; consecutive positions are adjacent for tractors (see ``simsuite.rules.order``).
* A *unit table* lists candidate units of one holding: ``U_len[u]`` steps, step ``s`` holds card
  ``U_card[u, s]`` times ``U_w[u, s]``; ``U_top[u]`` is the position of step 0, ``U_size[u]`` its
  card count. Tables live in a preallocated ``Work`` so that no decision allocates.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .params import (
    BOMBS, BELOW_ZERO_STEP, CAPTURE_BASE, CAPTURE_BY, CAPTURE_PER_CARD, CAPTURE_SCHEME,
    CAPTURE_SIDE_PER_CARD, CAPTURE_WITH, DECLARER_CAP, DEFENDER_CAP, F_LONG, F_PAIRS, F_QUADS,
    F_TCARDS, F_TRIPLES, F_TT, F_WIDTH, FOLLOW0, FOLLOW_QUAD0, GAP_OVER_LEVEL, LINK_JOKERS,
    LINK_LEVEL_OFF, LINK_OFF_ACE, LINK_PERM, LINK_SJ_LEVEL, LONE_TRIPLE, MAX_UNIT, N_FOLLOW,
    N_FOLLOW_QUAD, PERM_RANK, ROTATION, SINGLE_CAPTURES, STEP, TAKEOVER, TAKEOVER_BONUS,
    THROW_FAILURE, THROW_PENALTY, THROW_TEST, FORCED_PLAY, TRIPLE_PAIR_UNIT, WIDE_AS_TRACTOR,
    WIDE_BEATS, WIDE_TRACTORS, ZERO_BONUS,
)

TRUMP = 4
NC = 54
MAXU = 1024  # units in one table
MAXS = 20  # steps in one unit
MAXD = 40  # units in one selected set
MAXREC = 128  # optimal sets remembered for the policies
NF = 7  # profile fields

# The analysis of a lead, ``LI`` (int64[64], written by ``lead_info`` and read by the follow and
# trick rules, the throw test and the policies):
LI_CLASS = 0  # the led suit-class
LI_CARDS = 1  # cards in the lead (every follow plays as many)
LI_HAS_WIDE = 2  # the lead holds a triple (or quad) tractor
LI_LONE_WIDE = 3  # the lead is a lone triple (or quad)
LI_NF = 4  # fields of the follow profile
LI_FIELDS = 5  # .. +6: the profile's field codes, in the variant's follow order
LI_CAPS = 12  # .. +6: the lead's value of each field (what a follow can at most reach)
LI_UNITS = 19  # units in the lead (1: a single unit, more: a throw)
LI_KEY_CODE = 20  # shape code of the lead's key unit (the one that claims the trick)
LI_KEY_TOP = 21  # position of the key unit's top card
LI_SINGLES = 22  # single cards in the lead
LI_CODES = 23  # .. +38: shape codes of the multi-card units, largest first
LI_KEY_SIZE = 62  # cards in the key unit (the capture multiplier's unit size)
LI_NSEL = 63  # multi-card units in the lead

POINTS = np.zeros(NC, dtype=np.int64)
for _s in range(4):
    POINTS[_s * 13 + 3] = 5
    POINTS[_s * 13 + 8] = 10
    POINTS[_s * 13 + 11] = 10


class Work:
    """Preallocated scratch arrays for one thread of play (see the module docstring)."""

    def __init__(self):
        self.U_card = np.zeros((MAXU, MAXS), np.int64)
        self.U_w = np.zeros((MAXU, MAXS), np.int64)
        self.U_len = np.zeros(MAXU, np.int64)
        self.U_top = np.zeros(MAXU, np.int64)
        self.U_size = np.zeros(MAXU, np.int64)
        self.rec = np.zeros((MAXREC, MAXD), np.int64)
        self.rec_n = np.zeros(MAXREC, np.int64)
        self.ints = np.zeros(64, np.int64)  # small scalar outputs
        # scratch rows, so that no decision allocates: build_units, the follow decision and
        # best_sets, lead_info / match_throw, the basic lead
        self.bu = np.zeros((8, 64), np.int64)
        self.cb = np.zeros((MAXS, 4), np.int64)
        self.fs = np.zeros((10, 64), np.int64)
        self.ls = np.zeros((8, 64), np.int64)
        self.ps = np.zeros((6, 66), np.int64)

    def arrays(self):
        """The tuple ``W`` that compiled functions take; ``W[W_U_CARD]`` .. ``W[W_PS]`` name its items."""
        return (self.U_card, self.U_w, self.U_len, self.U_top, self.U_size, self.rec, self.rec_n, self.ints,
                self.bu, self.cb, self.fs, self.ls, self.ps)


# positions in ``Work.arrays()``
(W_U_CARD, W_U_W, W_U_LEN, W_U_TOP, W_U_SIZE, W_REC, W_REC_N, W_INTS, W_BU, W_CB, W_FS, W_LS, W_PS) = range(13)


# --- card order ---------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _side_link(P, level, perm, hi, lo):
    """Are plain ranks ``hi`` > ``lo`` (consecutive in the remaining order) adjacent?"""
    if hi - lo == 1:
        return True
    for r in range(lo + 1, hi):
        if r != level:
            return False  # a removed permanent rank, or more than the level rank, in between
    return P[GAP_OVER_LEVEL] == 1


@njit(cache=True)
def hand_tables(P, level, trump):
    """``cls`` and ``pos`` of every card for a hand at ``level`` with ``trump`` (-1 no-trump)."""
    cls = np.full(NC, -1, np.int64)
    pos = np.zeros(NC, np.int64)
    perm = P[PERM_RANK]
    if perm == level:
        perm = -1
    gc = np.full((24, 4), -1, np.int64)
    gn = np.zeros(24, np.int64)
    gl = np.zeros(24, np.int64)
    gc[0, 0] = 53
    gn[0] = 1
    gl[0] = 1
    gc[1, 0] = 52
    gn[1] = 1
    gl[1] = P[LINK_JOKERS]
    ng = 2
    if trump >= 0:
        gc[2, 0] = trump * 13 + level
        gn[2] = 1
        gl[2] = P[LINK_SJ_LEVEL]
        k = 0
        for s in range(4):
            if s != trump:
                gc[3, k] = s * 13 + level
                k += 1
        gn[3] = k
        gl[3] = P[LINK_LEVEL_OFF]
        ng = 4
    else:
        for s in range(4):
            gc[2, s] = s * 13 + level
        gn[2] = 4
        gl[2] = P[LINK_SJ_LEVEL]
        ng = 3
    if perm >= 0:
        if trump >= 0:
            gc[ng, 0] = trump * 13 + perm
            gn[ng] = 1
            gl[ng] = P[LINK_PERM]
            ng += 1
            k = 0
            for s in range(4):
                if s != trump:
                    gc[ng, k] = s * 13 + perm
                    k += 1
            gn[ng] = k
            gl[ng] = P[LINK_PERM]
            ng += 1
        else:
            for s in range(4):
                gc[ng, s] = s * 13 + perm
            gn[ng] = 4
            gl[ng] = P[LINK_PERM]
            ng += 1
    if trump >= 0:
        prev = -1
        for r in range(12, -1, -1):
            if r == level or r == perm:
                continue
            if prev < 0:
                link = P[LINK_PERM] if perm >= 0 else P[LINK_OFF_ACE]
            else:
                link = 1 if _side_link(P, level, perm, prev, r) else 0
            gc[ng, 0] = trump * 13 + r
            gn[ng] = 1
            gl[ng] = link
            ng += 1
            prev = r
    p = 0
    for i in range(ng - 1, -1, -1):
        for k in range(gn[i]):
            c = gc[i, k]
            cls[c] = 4
            pos[c] = p
        if i > 0:
            p += 1 if gl[i] == 1 else 2
    for s in range(4):
        if s == trump:
            continue
        p = 0
        lower = -1
        for r in range(13):
            if r == level or r == perm:
                continue
            if lower >= 0:
                p += 1 if _side_link(P, level, perm, r, lower) else 2
            c = s * 13 + r
            cls[c] = s
            pos[c] = p
            lower = r
    return cls, pos


@njit(cache=True)
def class_cards(counts, cls, pos, k, out):
    """Card ids present in class ``k``, strongest first (ties by card id); returns how many."""
    n = 0
    for c in range(NC):
        if counts[c] > 0 and cls[c] == k:
            # insertion by (-pos, card)
            j = n
            while j > 0 and (pos[out[j - 1]] < pos[c] or (pos[out[j - 1]] == pos[c] and out[j - 1] > c)):
                out[j] = out[j - 1]
                j -= 1
            out[j] = c
            n += 1
    return n


@njit(cache=True, inline="always")
def class_count(counts, cls, k):
    n = 0
    for c in range(NC):
        if cls[c] == k:
            n += counts[c]
    return n


@njit(cache=True, inline="always")
def play_class(play, cls):
    """The one class of a play, or -1 if it mixes classes (or is empty)."""
    k = -1
    for c in range(NC):
        if play[c] > 0:
            if k == -1:
                k = cls[c]
            elif cls[c] != k:
                return -1
    return k


# --- unit tables ------------------------------------------------------------------------------------


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


@njit(cache=True)
def build_units(counts, cls, pos, k, P, room, min_w, W):
    """Every unit of at least ``min_w`` copies and at most ``room`` cards in class ``k``."""
    U_card, U_w, U_len, U_top, U_size = W[W_U_CARD], W[W_U_W], W[W_U_LEN], W[W_U_TOP], W[W_U_SIZE]
    BU = W[W_BU]
    order = BU[0]
    n = class_cards(counts, cls, pos, k, order)
    cards = BU[1]
    widths = BU[2]
    cand = W[W_CB]  # indices into ``order``
    ncand = BU[3]
    idx = BU[4]
    at = BU[5]  # index into ``order`` of each chain step
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


# --- follow profiles ---------------------------------------------------------------------------------
# lead info array LI: [0] class, [1] n cards, [2] has_wide, [3] has_lone_wide, [4] n fields,
# [5..11] field codes, [12..18] caps, [19] n units, [20] key shape code, [21] key unit top,
# [22] n singles, [23..61] sorted shape codes of non-single units, [62] key unit's cards,
# [63] number of non-single units


@njit(cache=True)
def _features(U_w, U_len, U_size, sel, nsel, P, has_wide, has_lone_wide, f):
    for i in range(NF):
        f[i] = 0
    for i in range(nsel):
        u = sel[i]
        L = U_len[u]
        n = U_size[u]
        w = unit_width(U_w, U_len, u)
        uni = unit_uniform(U_w, U_len, u)
        if L >= 2 and w >= 3:
            f[F_TT] += n
        if L >= 2:
            tl = (w == 2 and uni) or P[WIDE_AS_TRACTOR] == 1 or has_wide
        else:
            tl = P[BOMBS] == 1 and w == 4
        if tl:
            f[F_TCARDS] += n
            if n > f[F_LONG] or (n == f[F_LONG] and w > f[F_WIDTH]):
                f[F_LONG] = n
                f[F_WIDTH] = w
        else:
            for s in range(L):
                f[F_PAIRS] += U_w[u, s] // 2
        for s in range(L):
            if U_w[u, s] == 4:
                f[F_QUADS] += 1
        if L >= 2 or P[LONE_TRIPLE] == 1 or has_lone_wide:
            for s in range(L):
                if U_w[u, s] >= 3:
                    f[F_TRIPLES] += 1


@njit(cache=True, inline="always")
def _profile(f, LI, prof):
    nf = LI[LI_NF]
    for i in range(nf):
        v = f[LI[LI_FIELDS + i]]
        cap = LI[LI_CAPS + i]
        prof[i] = v if v < cap else cap


@njit(cache=True, inline="always")
def _cmp(a, b, n):
    for i in range(n):
        if a[i] != b[i]:
            return 1 if a[i] > b[i] else -1
    return 0


@njit(cache=True, inline="always")
def _next_unit(U_card, U_w, U_len, U_size, left, start, nU, room):
    """The first unit from ``start`` on that ``left`` still holds and that fits in ``room`` cards
    (the step of every unit-set search below), or -1."""
    for u in range(start, nU):
        if U_size[u] > room:
            continue
        ok = True
        for s in range(U_len[u]):
            if left[U_card[u, s]] < U_w[u, s]:
                ok = False
                break
        if ok:
            return u
    return -1


@njit(cache=True, inline="always")
def _move_unit(U_card, U_w, U_len, U_size, left, u, sign):
    """Give unit ``u``'s cards back to ``left`` (sign 1) or take them (sign -1); its size."""
    for s in range(U_len[u]):
        left[U_card[u, s]] += sign * U_w[u, s]
    return U_size[u]


@njit(cache=True)
def best_sets(counts, cls, pos, P, LI, W, best):
    """The best follow profile of ``counts`` (one class) against the lead ``LI``, with up to
    MAXREC unit sets that reach it (in ``W`` rec/rec_n; ``W[W_INTS][0]`` = how many). Returns the
    number of fields written to ``best``."""
    k = LI[LI_CLASS]
    room = LI[LI_CARDS]
    nU = build_units(counts, cls, pos, k, P, room, 2, W)
    U_card, U_w, U_len, U_size = W[W_U_CARD], W[W_U_W], W[W_U_LEN], W[W_U_SIZE]
    rec, rec_n, ints = W[W_REC], W[W_REC_N], W[W_INTS]
    nf = LI[LI_NF]
    FS = W[W_FS]
    f = FS[5]
    prof = FS[6]
    left = FS[7]
    for c in range(NC):
        left[c] = counts[c]
    sel = FS[8]
    nxt = FS[9]
    # the empty set
    _features(U_w, U_len, U_size, sel, 0, P, LI[LI_HAS_WIDE] == 1, LI[LI_LONE_WIDE] == 1, f)
    _profile(f, LI, best)
    nrec = 1
    rec_n[0] = 0
    d = 0
    nxt[0] = 0
    used = 0
    while d >= 0:
        found = _next_unit(U_card, U_w, U_len, U_size, left, nxt[d], nU, room - used) if d < MAXD else -1
        if found < 0:
            d -= 1
            if d >= 0:
                used -= _move_unit(U_card, U_w, U_len, U_size, left, sel[d], 1)
                nxt[d] = sel[d] + 1
            continue
        used += _move_unit(U_card, U_w, U_len, U_size, left, found, -1)
        sel[d] = found
        _features(U_w, U_len, U_size, sel, d + 1, P, LI[LI_HAS_WIDE] == 1, LI[LI_LONE_WIDE] == 1, f)
        _profile(f, LI, prof)
        c = _cmp(prof, best, nf)
        if c > 0:
            for i in range(nf):
                best[i] = prof[i]
            nrec = 0
        if c >= 0 and nrec < MAXREC:
            for i in range(d + 1):
                rec[nrec, i] = sel[i]
            rec_n[nrec] = d + 1
            nrec += 1
        nxt[d + 1] = found
        d += 1
    ints[0] = nrec
    return nf


@njit(cache=True)
def _lead_info_one_unit(play, k, n, code, top, w, P, LI):
    """``lead_info`` for a lead that is one unit (the common case), without a search."""
    for i in range(64):
        LI[i] = 0
    mixed = code >= 9000
    L = 2 if mixed else code % 100
    LI[LI_CLASS] = k
    LI[LI_CARDS] = n
    has_wide = L >= 2 and w >= 3
    has_lone_wide = L == 1 and w >= 3
    LI[LI_HAS_WIDE] = 1 if has_wide else 0
    LI[LI_LONE_WIDE] = 1 if has_lone_wide else 0
    f = np.zeros(NF, np.int64)
    if w >= 2:
        if L >= 2 and w >= 3:
            f[F_TT] = n
        if L >= 2:
            tl = (w == 2 and not mixed) or P[WIDE_AS_TRACTOR] == 1 or has_wide
        else:
            tl = P[BOMBS] == 1 and w == 4
        if tl:
            f[F_TCARDS] = n
            f[F_LONG] = n
        if not mixed:
            f[F_QUADS] = L if w == 4 else 0
            f[F_TRIPLES] = L if w >= 3 else 0
        else:
            f[F_TRIPLES] = 1
    f[F_PAIRS] = n // 2 if w >= 2 else 0
    f[F_WIDTH] = 99
    if L == 1 and w == 4:
        nf = P[N_FOLLOW_QUAD]
        for i in range(nf):
            LI[LI_FIELDS + i] = P[FOLLOW_QUAD0 + i]
    else:
        nf = P[N_FOLLOW]
        for i in range(nf):
            LI[LI_FIELDS + i] = P[FOLLOW0 + i]
    LI[LI_NF] = nf
    for i in range(nf):
        LI[LI_CAPS + i] = f[LI[LI_FIELDS + i]]
    LI[LI_UNITS] = 1
    LI[LI_KEY_TOP] = top
    if w == 1:
        LI[LI_KEY_CODE] = 101
        LI[LI_SINGLES] = 1
    else:
        LI[LI_KEY_CODE] = code
        LI[LI_CODES] = code
        LI[LI_KEY_SIZE] = n
        LI[LI_NSEL] = 1


@njit(cache=True, inline="always")
def lead_info_single(card, k, pos, P, LI):
    """``lead_info`` for a one-card lead: every cap is 0, the card's position is the claim."""
    for i in range(64):
        LI[i] = 0
    LI[LI_CLASS] = k
    LI[LI_CARDS] = 1
    nf = P[N_FOLLOW]
    LI[LI_NF] = nf
    for i in range(nf):
        LI[LI_FIELDS + i] = P[FOLLOW0 + i]
    LI[LI_UNITS] = 1
    LI[LI_KEY_CODE] = 101
    LI[LI_KEY_TOP] = pos[card]
    LI[LI_SINGLES] = 1


@njit(cache=True, inline="always")
def one_unit_lead(code, w, P):
    """Whether a play of one-unit shape ``code`` (width ``w``) leads as that one unit: a unit the
    variant allows (a 3+2 unit needs ``triple_pair_unit``, a wide tractor ``wide_tractors``)."""
    if code < 0 or (code >= 9000 and P[TRIPLE_PAIR_UNIT] == 0):
        return False
    return not (code < 9000 and w >= 3 and code % 100 >= 2 and P[WIDE_TRACTORS] == 0)


@njit(cache=True, inline="always")
def lead_info_unit(play, cls, pos, P, LI):
    """``lead_info`` for a one-unit lead, without touching the work arrays; returns False when
    the lead is not one unit (the caller then uses ``lead_info``)."""
    k = play_class(play, cls)
    if k < 0:
        return False
    n = 0
    for c in range(NC):
        n += play[c]
    code, top, w, _n = single_unit_shape(play, cls, pos, k)
    if not one_unit_lead(code, w, P):
        return False
    _lead_info_one_unit(play, k, n, code, top, w, P, LI)
    return True


@njit(cache=True)
def lead_info(play, cls, pos, P, W, LI):
    """Read a one-class lead: its canonical decomposition (fewest units, then most cards in wide
    units, then in tractors), the follow caps and the shapes a trump answer must match.
    Returns the number of units; the chosen units are ``W`` rec[0, :n] (singles implicit)."""
    k = play_class(play, cls)
    n = 0
    for c in range(NC):
        n += play[c]
    code, top, w, _n = single_unit_shape(play, cls, pos, k)
    if k >= 0 and one_unit_lead(code, w, P):
        _lead_info_one_unit(play, k, n, code, top, w, P, LI)
        return 0 if w == 1 else 1
    nU = build_units(play, cls, pos, k, P, n, 2, W)
    U_card, U_w, U_len, U_size = W[W_U_CARD], W[W_U_W], W[W_U_LEN], W[W_U_SIZE]
    rec, rec_n = W[W_REC], W[W_REC_N]
    LS = W[W_LS]
    left = LS[0]
    for c in range(NC):
        left[c] = play[c]
    sel = LS[1]
    nxt = LS[2]
    nxt[0] = 0
    best_key = LS[4]
    best_key[0] = -n  # the empty set: all singles
    best_key[1] = 0
    best_key[2] = 0
    key = LS[3]
    rec_n[0] = 0
    d = 0
    used = 0
    while d >= 0:
        found = _next_unit(U_card, U_w, U_len, U_size, left, nxt[d], nU, NC) if d < MAXD else -1
        if found < 0:
            d -= 1
            if d >= 0:
                used -= _move_unit(U_card, U_w, U_len, U_size, left, sel[d], 1)
                nxt[d] = sel[d] + 1
            continue
        used += _move_unit(U_card, U_w, U_len, U_size, left, found, -1)
        sel[d] = found
        wide = 0
        tract = 0
        for i in range(d + 1):
            uu = sel[i]
            if unit_width(U_w, U_len, uu) >= 3:
                wide += U_size[uu]
            if U_len[uu] >= 2:
                tract += U_size[uu]
        key[0] = -((d + 1) + (n - used))
        key[1] = wide
        key[2] = tract
        if _cmp(key, best_key, 3) > 0:
            best_key[:] = key
            for i in range(d + 1):
                rec[0, i] = sel[i]
            rec_n[0] = d + 1
        nxt[d + 1] = found
        d += 1
    nsel = rec_n[0]
    # lead info
    for i in range(64):
        LI[i] = 0
    LI[LI_CLASS] = k
    LI[LI_CARDS] = n
    has_wide = False
    has_lone_wide = False
    key_size = 0
    key_w = 0
    key_top = -1
    key_code = 101  # a single
    cards_in = 0
    codes = np.zeros(MAXD, np.int64)
    pairs_cap = 0
    for i in range(nsel):
        u = rec[0, i]
        w = unit_width(U_w, U_len, u)
        if U_len[u] >= 2 and w >= 3:
            has_wide = True
        if U_len[u] == 1 and w >= 3:
            has_lone_wide = True
        cards_in += U_size[u]
        codes[i] = shape_code(U_w, U_len, U_size, u)
        pairs_cap += U_size[u] // 2
        if U_size[u] > key_size or (U_size[u] == key_size and (w > key_w or (w == key_w and W[W_U_TOP][u] > key_top))):
            key_size = U_size[u]
            key_w = w
            key_top = W[W_U_TOP][u]
            key_code = codes[i]
    singles = n - cards_in
    if key_size == 0:
        # all singles: the strongest card is the key
        for c in range(NC):
            if play[c] > 0 and pos[c] > key_top:
                key_top = pos[c]
    LI[LI_HAS_WIDE] = 1 if has_wide else 0
    LI[LI_LONE_WIDE] = 1 if has_lone_wide else 0
    quad_lead = nsel == 1 and singles == 0 and U_len[rec[0, 0]] == 1 and U_w[rec[0, 0], 0] == 4
    if quad_lead:
        nf = P[N_FOLLOW_QUAD]
        for i in range(nf):
            LI[LI_FIELDS + i] = P[FOLLOW_QUAD0 + i]
    else:
        nf = P[N_FOLLOW]
        for i in range(nf):
            LI[LI_FIELDS + i] = P[FOLLOW0 + i]
    LI[LI_NF] = nf
    f = np.zeros(NF, np.int64)
    _features(U_w, U_len, U_size, rec[0], nsel, P, has_wide, has_lone_wide, f)
    f[F_PAIRS] = pairs_cap
    f[F_WIDTH] = 99
    for i in range(nf):
        LI[LI_CAPS + i] = f[LI[LI_FIELDS + i]]
    LI[LI_UNITS] = nsel + singles
    LI[LI_KEY_CODE] = key_code
    LI[LI_KEY_TOP] = key_top
    LI[LI_SINGLES] = singles
    LI[LI_KEY_SIZE] = key_size
    codes_sorted = np.sort(codes[:nsel])
    for i in range(nsel):
        LI[LI_CODES + i] = codes_sorted[i]
    LI[LI_NSEL] = nsel
    return nsel


# --- winning a trick --------------------------------------------------------------------------------


@njit(cache=True)
def single_unit_shape(play, cls, pos, k):
    """If ``play`` (all of class ``k``) is exactly one unit, return (code, top, width, n); else code -1.
    Codes as ``shape_code``: uniform w*100+L, mixed 3+2 units 9005. No allocation: positions are
    collected in a bit mask (every position is below 64)."""
    mask = 0
    n = 0
    L = 0
    lo = 1 << 30
    hi = -1
    w0 = -1
    uniform = True
    wmax = 0
    for c in range(NC):
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
    out[0] = 0
    out[1] = 1
    out[2] = top
    return True


@njit(cache=True, inline="always")
def contender_unit(play, cls, pos, P, LI, is_lead, out):
    """``contender`` for the lead itself and for answers to a one-unit lead (no search needed)."""
    if is_lead:
        out[0] = 0
        out[1] = 1 if LI[LI_CLASS] == TRUMP else 0
        out[2] = LI[LI_KEY_TOP]
        return True
    k = play_class(play, cls)
    if k < 0 or (k != LI[LI_CLASS] and k != TRUMP):
        return False
    trump = 1 if k == TRUMP else 0
    code, top, w, n = single_unit_shape(play, cls, pos, k)
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
    out[0] = kind
    out[1] = trump
    out[2] = top
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
    U_card, U_w, U_len, U_top, U_size = W[W_U_CARD], W[W_U_W], W[W_U_LEN], W[W_U_TOP], W[W_U_SIZE]
    nsel_lead = LI[LI_NSEL]
    need_singles = LI[LI_SINGLES]
    key_code = LI[LI_KEY_CODE]
    LS = W[W_LS]
    left = LS[0]
    for c in range(NC):
        left[c] = play[c]
    sel = LS[1]
    nxt = LS[2]
    nxt[0] = 0
    codes = LS[5]
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
        found = _next_unit(U_card, U_w, U_len, U_size, left, nxt[d], nU, NC) if d < nsel_lead else -1
        if found < 0:
            d -= 1
            if d >= 0:
                used -= _move_unit(U_card, U_w, U_len, U_size, left, sel[d], 1)
                nxt[d] = sel[d] + 1
            continue
        used += _move_unit(U_card, U_w, U_len, U_size, left, found, -1)
        sel[d] = found
        if d + 1 == nsel_lead and n - used == need_singles:
            for i in range(d + 1):
                codes[i] = shape_code(U_w, U_len, U_size, sel[i])
            cs = np.sort(codes[: d + 1])
            same = True
            for i in range(d + 1):
                if cs[i] != LI[LI_CODES + i]:
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
    if a[0] < b[0]:
        return False
    if a[1] != b[1]:
        return a[1] > b[1]
    return a[0] > b[0] or a[2] > b[2]


# --- throws ------------------------------------------------------------------------------------------


@njit(cache=True)
def _best_at(hand, cls, pos, k, out):
    """``out[p]``: the most copies of any one card at position ``p`` of class ``k`` in ``hand``."""
    for i in range(out.shape[0]):
        out[i] = 0
    top = -1
    for c in range(NC):
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
    rec_n = W[W_REC_N]
    U_card, U_w, U_len, U_top, U_size = W[W_U_CARD], W[W_U_W], W[W_U_LEN], W[W_U_TOP], W[W_U_SIZE]
    # re-read the lead's units (lead_info leaves them in rec[0])
    lead_info(lead, cls, pos, P, W, LI)
    nsel = rec_n[0]
    units = W[W_REC][0, :nsel].copy()
    # singles of the lead
    single_left = lead.copy()
    for i in range(nsel):
        u = units[i]
        for s in range(U_len[u]):
            single_left[U_card[u, s]] -= U_w[u, s]
    beaten = 0
    nfail = 0
    fail_top = 1 << 30
    fail_u = -2  # -2 none, -1 a single, else unit index
    fail_single = -1
    if P[THROW_TEST] == 0:
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
        best = np.zeros(64, np.int64)
        failed = np.zeros(MAXD, np.bool_)
        for s in range(4):
            if s == thrower:
                continue
            _best_at(hands[s], cls, pos, k, best)
            for i in range(nsel):
                if failed[i]:
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
                    failed[i] = True
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
    if P[FORCED_PLAY] == 0:
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
    if how == 0:
        return P[THROW_PENALTY] * beaten
    if how == 1:
        return P[THROW_PENALTY] * (lead_n - forced_n)
    if how == 2:
        return P[THROW_PENALTY]
    return 0


# --- scoring -----------------------------------------------------------------------------------------


@njit(cache=True)
def capture_points(P, winner_team, declarers, unit_cards, won_with_trump, lead_cards, trick_points, bottom_points, out):
    """Capture multiplier and signed points (``out[0]``, ``out[1]``); ``out[2]`` = 1 if the
    defenders capture, -1 the declarers, 0 nobody."""
    out[0] = 0
    out[1] = 0
    out[2] = 0
    by_def = winner_team != declarers
    if not by_def and P[CAPTURE_BY] == 0:
        return
    if P[CAPTURE_WITH] == 1 and not won_with_trump:
        return
    if lead_cards == 1 and P[SINGLE_CAPTURES] == 0:
        return
    sign = 1 if by_def else -1
    if P[CAPTURE_SCHEME] == 2:
        out[0] = lead_cards
        out[1] = trick_points * (lead_cards - 1) if by_def else -trick_points * lead_cards
        out[2] = sign
        return
    if P[CAPTURE_SCHEME] == 0:
        per = P[CAPTURE_PER_CARD] if won_with_trump else P[CAPTURE_SIDE_PER_CARD]
        mult = P[CAPTURE_BASE] + per * unit_cards
    else:
        mult = 1
        for _ in range(unit_cards):
            mult *= P[CAPTURE_BASE]
    if mult <= 0:
        return
    out[0] = mult
    out[1] = sign * mult * bottom_points
    out[2] = sign


@njit(cache=True)
def score_hand(P, defender_points, declarers, dealer, out):
    """Outcome: out[0] takeover, out[1] next declarers, out[2] next dealer, out[3] levels team 0,
    out[4] levels team 1."""
    t = P[TAKEOVER]
    step = P[STEP]
    took = defender_points >= t
    if took:
        levels = P[TAKEOVER_BONUS] + (defender_points - t) // step
        if P[DEFENDER_CAP] > 0 and levels > P[DEFENDER_CAP]:
            levels = P[DEFENDER_CAP]
        gainer = 1 - declarers
    else:
        if defender_points <= 0 and P[ZERO_BONUS] > 0:
            levels = P[ZERO_BONUS] + ((-defender_points) // step if P[BELOW_ZERO_STEP] == 1 else 0)
        else:
            levels = -((defender_points - t) // step)
            if P[DECLARER_CAP] > 0 and levels > P[DECLARER_CAP]:
                levels = P[DECLARER_CAP]
        gainer = declarers
    if P[ROTATION] == 1:
        nd = (dealer + 1) % 4
    else:
        nd = (dealer + 1) % 4 if took else (dealer + 2) % 4
    out[0] = 1 if took else 0
    out[1] = nd % 2
    out[2] = nd
    out[3] = levels if gainer == 0 else 0
    out[4] = levels if gainer == 1 else 0
