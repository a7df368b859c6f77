"""Everything compiled with every built-in policy: the loops that play ``search`` or ``expert-v1``,
and the Python path's decision, behind one compiled function, ``run``.

``engine.lean.run`` inlines the match, hand and bury loops with ``full`` None, for the three
heuristics only (``policies.full_for``); ``run`` inlines the same loops with ``full`` the constant
``FULL``, for every policy. numba links each compiled function's callees into its own module, then
optimises and generates the machine code of that whole closure again: every compiled function that
reaches the search costs LLVM every policy and the search once more, 10 to 15 s on these machines
(docs/performance.md, "One compiled entry for the full set"). So the three loops and the decision
are one compiled function, ``run``, steered by ``op``. Python calls the loops through
``engine.api`` and the decision through ``decide`` below; both fill the arguments of the other
operations with placeholders of the same types (``lean.arguments``), so that ``run`` compiles once
whoever calls it (``tests/test_engine.py`` checks its signatures).
"""

from __future__ import annotations

from numba import njit

from . import hand as H
from . import match as M
from .lean import FULL_ARGS, OP_BURY, OP_HANDS, OP_MATCHES, arguments
from .policies import FULL
from .policies.codes import D_BURY, D_FOLLOW, D_LEAD

OP_DECIDE = 3


@njit(cache=True)
def run(
    op,
    P,
    W,
    pols,
    key,
    start,
    count,
    levels,
    first_drawers,
    first_hand,
    out,
    clock,
    max_hands,
    recs,
    hand_recs,
    hand_count,
    levels_after,
    st,
    pol,
    s,
    kind,
    choice,
):
    """One of the full set's operations (``op``): ``OP_MATCHES`` (``match.play_matches``'
    arguments), ``OP_HANDS`` (``hand.play_many``'s; ``levels`` per hand), ``OP_BURY``
    (``hand.bury_many``'s) or ``OP_DECIDE`` (``hand.decide``'s, into ``choice``). ``FULL`` is a
    global name, which numba reads as a constant, so that the lean branches are pruned.

    numba types the branches, and compiles the functions they call, in the order written. The
    decision comes first so that a cold compile reaches the search before the hand: under
    ``make test`` the other worker compiles the lean set at the same moment, and the hand's deal
    and bury are the first things it compiles (``tests/conftest.py``; docs/performance.md, "Two
    workers that compile in different orders")."""
    if op == OP_DECIDE:
        H.decide(P, st, pol, W, s, kind, choice, FULL)
    elif op == OP_MATCHES:
        M.play_matches(P, clock, key, start, count, pols, max_hands, W, recs, hand_recs, hand_count, levels_after, FULL)
    elif op == OP_HANDS:
        H.play_many(P, key, start, levels, first_drawers, first_hand, pols, W, out, FULL)
    elif op == OP_BURY:
        H.bury_many(P, key, start, levels, first_drawers, pols, W, out, FULL)


def decide(P, st, pol, W, s, kind, out):
    """The policy ``pol`` of the seat to move decides on the hand's state ``st`` (``hand.decide``):
    the Python path's entry (``play.builtin``, ``play.advise``), for every built-in policy."""
    run(OP_DECIDE, *arguments(FULL_ARGS, P=P, W=W, st=st, pol=pol, s=s, kind=kind, choice=out))


def decide_bury(P, st, pol, W, s, out):
    """The dealer's policy chooses the bury (the bottom is already in its hand): ``decide``."""
    decide(P, st, pol, W, s, D_BURY, out)


def decide_lead(P, st, pol, W, s, out):
    """The leader's policy chooses a lead: ``decide``."""
    decide(P, st, pol, W, s, D_LEAD, out)


def decide_follow(P, st, pol, W, s, out):
    """The seat to move chooses a follow: ``decide``."""
    decide(P, st, pol, W, s, D_FOLLOW, out)
