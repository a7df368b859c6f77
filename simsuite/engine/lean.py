"""The loops that play random, basic and expert only, behind one compiled function, ``run``, and the
same loops with ``learned`` too, behind ``run_learned``.

The match, hand and bury loops (``match.play_matches``, ``hand.play_many``, ``hand.bury_many``)
are inlined into ``run``, steered by ``op``, with ``full`` the constant ``None``: numba prunes their
branches for search and ``expert-v1`` (``hand``, "the loops' decisions"). Each compiled function
that calls the hand costs LLVM the hand's whole closure again (``engine.full``), so one function
costs that once where three did: 5 to 7 CPU-seconds of every fresh compile (docs/performance.md,
"One compiled entry for the full set" and one for the lean set). ``engine.full.run`` is the same for
every policy. Python calls them through ``engine.api.play_matches``, ``play_many`` and ``bury_many``,
which pick the set by ``full`` and fill the arguments of the other operations with placeholders
(``arguments``), so that each ``run`` compiles once whoever calls it (``tests/test_engine.py``).
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit

from . import hand as H
from . import match as M
from . import phases as ph
from .policies import LEARNED_SET

OP_MATCHES, OP_HANDS, OP_BURY = range(3)


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
):
    """One of the lean set's operations (``op``): ``OP_MATCHES`` (``match.play_matches``' arguments),
    ``OP_HANDS`` (``hand.play_many``'s; ``levels`` per hand) or ``OP_BURY`` (``hand.bury_many``'s)."""
    if op == OP_MATCHES:
        M.play_matches(P, clock, key, start, count, pols, max_hands, W, recs, hand_recs, hand_count, levels_after, None)
    elif op == OP_HANDS:
        H.play_many(P, key, start, levels, first_drawers, first_hand, pols, W, out, None)
    else:
        H.bury_many(P, key, start, levels, first_drawers, pols, W, out, None)


@njit(cache=True)
def run_learned(
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
):
    """``run`` for the learned set (``policies.LEARNED_SET``): the three heuristics and ``learned``,
    whose candidate lists, features and model compile here, but not the search's roll-outs or
    ``expert-v1``. A fresh compile takes about two thirds of the full set's (docs/performance.md,
    "Compilation"), so that learned play starts as soon as a lean run would have."""
    if op == OP_MATCHES:
        M.play_matches(
            P, clock, key, start, count, pols, max_hands, W, recs, hand_recs, hand_count, levels_after, LEARNED_SET
        )
    elif op == OP_HANDS:
        H.play_many(P, key, start, levels, first_drawers, first_hand, pols, W, out, LEARNED_SET)
    else:
        H.bury_many(P, key, start, levels, first_drawers, pols, W, out, LEARNED_SET)


# ``run``'s arguments after ``op``, in order (``engine.full.run`` takes ``FULL_ARGS``), and the
# placeholder an operation that does not use one passes, of the type the others pass
ARGS = (
    "P",
    "W",
    "pols",
    "key",
    "start",
    "count",
    "levels",
    "first_drawers",
    "first_hand",
    "out",
    "clock",
    "max_hands",
    "recs",
    "hand_recs",
    "hand_count",
    "levels_after",
)
FULL_ARGS = ARGS + ("st", "pol", "s", "kind", "choice")


@functools.cache
def _spare() -> dict:
    i1, i2, i3 = np.zeros(1, np.int64), np.zeros((1, 1), np.int64), np.zeros((1, 1, 1), np.int64)
    return {
        "pols": i1,
        "key": i1,
        "start": 0,
        "count": 0,
        "levels": i1,
        "first_drawers": i1,
        "first_hand": True,
        "out": i2,
        "clock": i1,
        "max_hands": 0,
        "recs": i2,
        "hand_recs": i3,
        "hand_count": i1,
        "levels_after": i3,
        "st": ph.new_state(),
        "pol": 0,
        "s": i1,
        "kind": 0,
        "choice": i1,
    }


def arguments(names, **given) -> tuple:
    """The arguments ``names`` (``ARGS`` or ``FULL_ARGS``) in order: those ``given``, and a
    placeholder for each of the others."""
    spare = _spare()
    unknown = set(given) - set(names)
    if unknown:
        raise TypeError(f"not an argument of run: {sorted(unknown)}")
    return tuple(given[n] if n in given else spare[n] for n in names)
