"""Card order on arrays, compiled: each card's suit-class and position for one hand (the rules of
``simsuite.rules.order``), and the cards of one class in a holding."""

from __future__ import annotations

import numpy as np
from numba import njit

from .core import NC
from .params import GAP_OVER_LEVEL, LINK_JOKERS, LINK_LEVEL_OFF, LINK_OFF_ACE, LINK_PERM, LINK_SJ_LEVEL, PERM_RANK


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
