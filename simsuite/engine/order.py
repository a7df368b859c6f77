"""Card order on arrays, compiled: each card's suit-class and position for one hand (the rules of
``simsuite.rules.order``), and the cards of one class in a holding."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..rules.cards import BIG_JOKER, SMALL_JOKER
from .core import NC, TRUMP
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
    cls = np.empty(NC, np.int64)
    pos = np.empty(NC, np.int64)
    hand_tables_into(P, level, trump, cls, pos)
    return cls, pos


@njit(cache=True, inline="always")
def _trump_group(cls, pos, c, p):
    cls[c] = 4
    pos[c] = p


@njit(cache=True)
def hand_tables_into(P, level, trump, cls, pos):
    """``hand_tables`` written into ``cls`` and ``pos`` (no allocation: the hand loop calls it once
    per hand). The trump groups are placed from the top down, each below the one before by one
    position if the two link (form tractors) and by two if not; then shifted so the lowest is 0."""
    for c in range(NC):
        cls[c] = -1
        pos[c] = 0
    perm = P[PERM_RANK]
    if perm == level:
        perm = -1
    p = 0  # the current group's position, counted down from the big joker's 0
    _trump_group(cls, pos, BIG_JOKER, p)
    p -= 1 if P[LINK_JOKERS] == 1 else 2
    _trump_group(cls, pos, SMALL_JOKER, p)
    if trump >= 0:
        p -= 1 if P[LINK_SJ_LEVEL] == 1 else 2
        _trump_group(cls, pos, trump * 13 + level, p)
        p -= 1 if P[LINK_LEVEL_OFF] == 1 else 2
        for s in range(4):
            if s != trump:
                _trump_group(cls, pos, s * 13 + level, p)
    else:
        p -= 1 if P[LINK_SJ_LEVEL] == 1 else 2
        for s in range(4):
            _trump_group(cls, pos, s * 13 + level, p)
    if perm >= 0:
        p -= 1 if P[LINK_PERM] == 1 else 2
        if trump >= 0:
            _trump_group(cls, pos, trump * 13 + perm, p)
            p -= 1 if P[LINK_PERM] == 1 else 2
            for s in range(4):
                if s != trump:
                    _trump_group(cls, pos, s * 13 + perm, p)
        else:
            for s in range(4):
                _trump_group(cls, pos, s * 13 + perm, p)
    if trump >= 0:
        prev = -1
        for r in range(12, -1, -1):
            if r == level or r == perm:
                continue
            if prev < 0:
                link = P[LINK_PERM] if perm >= 0 else P[LINK_OFF_ACE]
            else:
                link = 1 if _side_link(P, level, perm, prev, r) else 0
            p -= 1 if link == 1 else 2
            _trump_group(cls, pos, trump * 13 + r, p)
            prev = r
    for c in range(NC):
        if cls[c] == 4:
            pos[c] -= p
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


@njit(cache=True, inline="always")
def class_span(k):
    """The card ids ``lo .. hi - 1`` that can be of class ``k``: a side suit's own thirteen (its
    level and permanent cards are trump, which ``cls`` says), every card for trump. A loop over one
    class visits 13 ids instead of 54; it still tests ``cls``."""
    if k == TRUMP:
        return 0, NC
    lo = (k & 3) * 13  # k & 3 == k; it shows the compiler that no id is negative (no wraparound code)
    return lo, lo + 13


@njit(cache=True)
def class_cards(counts, cls, pos, k, out):
    """Card ids present in class ``k``, strongest first (ties by card id); returns how many. The
    cards are visited from the highest id down, which is nearly strongest first, so that the
    insertion rarely moves a card."""
    n = 0
    lo, hi = class_span(k)
    for c in range(hi - 1, lo - 1, -1):
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
    lo, hi = class_span(k)
    for c in range(lo, hi):
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
