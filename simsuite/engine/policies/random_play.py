"""``random`` (policy 0): uniformly random legal play, the floor every other policy must beat.

It draws from the hand's random stream in a fixed order, so a seed replays it exactly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core import FS_BEST, FS_INCLASS, FS_OTHERS, INT_NREC, LI_CARDS, LI_CLASS, NC, as_int, w_fs, w_units
from ..follow import best_sets
from ..order import class_count
from ..rng import randint
from ..units import build_units
from .common import ANY_SIZE, put_unit, split_by_class


@njit(cache=True)
def bury_random(left, n, s, out):
    """``n`` cards of ``left`` (a copy of the hand, taken from) drawn uniformly into ``out``."""
    for _ in range(n):
        total = 0
        for c in range(NC):
            total += left[c]
        r = randint(s, total)
        for c in range(NC):
            if r < left[c]:
                left[c] -= 1
                out[c] += 1
                break
            r -= left[c]


@njit(cache=True)
def lead_random(hand, cls, pos, P, W, s, out):
    """One unit of a uniformly drawn class the hand holds (never a throw)."""
    classes = np.zeros(5, np.int64)
    nk = 0
    for k in range(5):
        if class_count(hand, cls, k) > 0:
            classes[nk] = k
            nk += 1
    k = classes[randint(s, nk)]
    U_card, U_w, U_len, U_top, U_size, REC, REC_N, INTS = w_units(W)
    nU = build_units(hand, cls, pos, k, P, ANY_SIZE, 1, W)
    put_unit(U_card, U_w, U_len, randint(s, nU), out)
    return 0


@njit(cache=True)
def _draw_into(out, pool, skip_class, cls, s, need):
    """Add ``need`` cards drawn uniformly from ``pool`` minus ``out`` (cards of class
    ``skip_class`` excluded; -1 excludes none)."""
    for _ in range(need):
        total = 0
        for c in range(NC):
            if cls[c] != skip_class:
                total += pool[c] - out[c]
        r = randint(s, total)
        for c in range(NC):
            if cls[c] == skip_class:
                continue
            a = pool[c] - out[c]
            if r < a:
                out[c] += 1
                break
            r -= a


@njit(cache=True)
def follow_random(hand, cls, pos, P, W, s, LI, out):
    """A uniformly drawn legal follow: a card of the suit for a single lead; else one unit set of
    the best follow profile, filled at random from the suit, or all of the suit and random others."""
    k = LI[LI_CLASS]
    n = LI[LI_CARDS]
    have = 0
    for c in range(NC):
        out[c] = 0
        if cls[c] == k:
            have += hand[c]
    if n == 1 and have > 1:
        x = randint(s, have)
        for c in range(NC):
            if cls[c] == k:
                if x < hand[c]:
                    out[c] = 1
                    return
                x -= hand[c]
    FS = w_fs(W)
    inclass = FS[FS_INCLASS]
    others = FS[FS_OTHERS]
    split_by_class(hand, cls, k, inclass, others)
    if have <= n:
        for c in range(NC):
            out[c] = inclass[c]
        _draw_into(out, others, k, cls, s, n - have)
        return
    U_card, U_w, U_len, U_top, U_size, REC, REC_N, INTS = w_units(W)
    best_sets(inclass, cls, pos, P, LI, W, FS[FS_BEST])
    r = randint(s, INTS[INT_NREC])
    for j in range(REC_N[r]):
        put_unit(U_card, U_w, U_len, REC[r, j], out)
    need = n
    for c in range(NC):
        need -= out[c]
    _draw_into(out, inclass, as_int(-1), cls, s, need)
