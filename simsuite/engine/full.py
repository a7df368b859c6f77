"""Everything compiled with every built-in policy: the loops that play ``search`` or ``expert-v1``,
and the Python path's decision, behind one compiled function, ``run``.

The lean loops (``match.play_matches``, ``hand.play_many``, ``hand.bury_many``) compile the three
heuristics only (``full`` None, ``policies.full_for``); their twins here play every policy. numba
links each compiled function's callees into its own module, then optimises and generates the
machine code of that whole closure again: every compiled function that reaches the search costs
LLVM every policy and the search once more, 10 to 15 s on these machines (docs/performance.md,
"One compiled entry for the full set"). So the three loops and the decision are one compiled function,
``run``, steered by ``op``. The Python functions below keep the loops' signatures and fill the
arguments of the other operations with small placeholders of the same types, so that ``run``
compiles once whoever calls it (``tests/test_engine.py`` checks its signatures).
``hand.play_hand_full`` (one hand, with its history, for traces) stays a compiled function of its
own, called by ``run``'s loops and from Python.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit

from . import hand as H
from . import match as M
from . import phases as ph
from . import search
from .policies import FULL

OP_MATCHES, OP_HANDS, OP_BURY, OP_DECIDE = range(4)

_play_matches_inlined = njit(cache=True, inline="always")(H._py(M.play_matches))
_play_many_inlined = njit(cache=True, inline="always")(H._py(H.play_many))
_bury_many_inlined = njit(cache=True, inline="always")(H._py(H.bury_many))


@njit(cache=True)
def run(op, P, W, pols, key, start, count, levels, first_drawers, first_hand, out, clock, max_hands, recs, hand_recs,
        hand_count, levels_after, st, pol, s, kind, choice):
    """One of the full set's operations (``op``): ``OP_MATCHES`` (``match.play_matches``'
    arguments), ``OP_HANDS`` (``hand.play_many``'s; ``levels`` per hand), ``OP_BURY``
    (``hand.bury_many``'s) or ``OP_DECIDE`` (``hand.decide``'s, into ``choice``). ``FULL`` is a
    global name, which numba reads as a constant, so that the lean branches are pruned."""
    if op == OP_MATCHES:
        _play_matches_inlined(P, clock, key, start, count, pols, max_hands, W, recs, hand_recs, hand_count,
                              levels_after, FULL)
    elif op == OP_HANDS:
        _play_many_inlined(P, key, start, levels, first_drawers, first_hand, pols, W, out, FULL)
    elif op == OP_BURY:
        _bury_many_inlined(P, key, start, levels, first_drawers, pols, W, out, FULL)
    else:
        H.decide(P, st, pol, W, s, kind, choice)


class _Spare:
    """Placeholders for the arguments an operation does not use, of the types the others pass."""

    def __init__(self):
        self.i1 = np.zeros(1, np.int64)
        self.i2 = np.zeros((1, 1), np.int64)
        self.i3 = np.zeros((1, 1, 1), np.int64)
        self.st = ph.new_state()


@functools.cache
def _x() -> _Spare:
    return _Spare()


def play_matches_full(P, clock, key, start, count, pols, max_hands, W, recs, hand_recs, hand_count, levels_after,
                      full=FULL):
    """``match.play_matches`` with every built-in policy."""
    x = _x()
    run(OP_MATCHES, P, W, pols, key, start, count, x.i1, x.i1, True, x.i2, clock, max_hands, recs, hand_recs,
        hand_count, levels_after, x.st, 0, x.i1, 0, x.i1)


def play_many_full(P, key, start, levels, first_drawers, first_hand, pols, W, out, full=FULL):
    """``hand.play_many`` with every built-in policy."""
    x = _x()
    run(OP_HANDS, P, W, pols, key, start, 0, levels, first_drawers, first_hand, out, x.i1, 0, x.i2, x.i3, x.i1, x.i3,
        x.st, 0, x.i1, 0, x.i1)


def bury_many_full(P, key, start, levels, first_drawers, pols, W, out, full=FULL):
    """``hand.bury_many`` with every built-in policy."""
    x = _x()
    run(OP_BURY, P, W, pols, key, start, 0, levels, first_drawers, True, out, x.i1, 0, x.i2, x.i3, x.i1, x.i3, x.st, 0,
        x.i1, 0, x.i1)


def decide(P, st, pol, W, s, kind, out):
    """The policy ``pol`` of the seat to move decides on the hand's state ``st`` (``hand.decide``):
    the Python path's entry (``play.policy``, ``play.advise``), for every built-in policy."""
    x = _x()
    run(OP_DECIDE, P, W, x.i1, x.i1, 0, 0, x.i1, x.i1, True, x.i2, x.i1, 0, x.i2, x.i3, x.i1, x.i3, st, pol, s, kind,
        out)


def decide_bury(P, st, pol, W, s, out):
    """The dealer's policy chooses the bury (the bottom is already in its hand): ``decide``."""
    decide(P, st, pol, W, s, search.D_BURY, out)


def decide_lead(P, st, pol, W, s, out):
    """The leader's policy chooses a lead: ``decide``."""
    decide(P, st, pol, W, s, search.D_LEAD, out)


def decide_follow(P, st, pol, W, s, out):
    """The seat to move chooses a follow: ``decide``."""
    decide(P, st, pol, W, s, search.D_FOLLOW, out)
