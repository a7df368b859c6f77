"""The layout the compiled rules share: sizes, the slots of a lead's analysis (``LI``), card
points and the preallocated work arrays (``Work``).

The rules on arrays are split as the readable rules core is: card order (``engine.order``), units
(``engine.units``), follow profiles (``engine.follow``), trick winners and throws
(``engine.trick``) and scoring (``engine.scoring``), the same rules as ``simsuite.rules.order`` /
``units`` / ``follow`` / ``trick`` / ``scoring`` (the readable reference, used by ``simsuite
judge``); tests check that both agree.

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
        # best_sets, lead_info / match_throw. ``fs``: rows 0-4 the follow decision, 5-9 best_sets,
        # 10 the unseen counts (expert's lead and follow), 11-12 try_trump, and in the expert's
        # lead 11-12 safe_throw, 13 the hand less a card kept for the last trick, 14 the unseen
        # cards' best copies per position, 15 safe_throw's order of units, then cards per class
        self.bu = np.zeros((8, 64), np.int64)
        self.cb = np.zeros((MAXS, 4), np.int64)
        self.fs = np.zeros((16, 64), np.int64)
        self.ls = np.zeros((8, 64), np.int64)  # rows 0-4 lead_info's search, 6-7 its codes and profile;
        # rows 0-2 and 5 match_throw
        # the hand loop's own rows, never a policy's: 0 the deck, 1-3 play_tricks' lead, play and
        # forced play, 4 the bury, 5 write_record's captures, 6 its outcome
        self.hl = np.zeros((8, 54 * 4), np.int64)

    def arrays(self):
        """The tuple ``W`` that compiled functions take; ``W[W_U_CARD]`` .. ``W[W_HL]`` name its items."""
        return (self.U_card, self.U_w, self.U_len, self.U_top, self.U_size, self.rec, self.rec_n, self.ints,
                self.bu, self.cb, self.fs, self.ls, self.hl)


# positions in ``Work.arrays()``
(W_U_CARD, W_U_W, W_U_LEN, W_U_TOP, W_U_SIZE, W_REC, W_REC_N, W_INTS, W_BU, W_CB, W_FS, W_LS, W_HL) = range(13)


@njit(cache=True, inline="always")
def as_int(x):
    """``x`` as a plain int64. A constant passed straight from compiled code to a compiled function
    has a ``Literal`` type, and numba compiles a separate copy of the callee for each such constant;
    ``f(as_int(64))`` shares the one copy that variables use (docs/performance.md, compile time)."""
    return np.int64(x)


@njit(cache=True, inline="always")
def as_bool(x):
    """``x`` as a plain boolean, for the same reason as ``as_int``: ``f(as_bool(False))`` shares the
    copy of ``f`` that Python's calls (with a bool) compile."""
    return x != 0
