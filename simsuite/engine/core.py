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
from numba import njit, types
from numba.core import config
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

TRUMP = 4
NC = 54
MAXU = 1024  # units in one table
MAXS = 20  # steps in one unit
MAXD = 40  # units in one selected set
MAXREC = 128  # optimal sets remembered for the policies
NF = 7  # profile fields
MAX_CANDIDATES = 24  # candidates one decision of ``search`` or ``learned`` weighs (``engine.policies.search``)
XCOLS = 96  # room for the learned policy's features per candidate (``engine.policies.features.N_FEATURES`` of them)
LOG_META = 10  # a logged candidate's columns before its features (``engine.policies.learned``, "the decision log")
LOG_ROWS = 4096  # candidates the decision log holds (a hand of four decks logs at most about 1,300)
MODEL_WORDS = 32768  # the learned policy's model, at most (``engine.policies.learned``, "The model in W")

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


# The work buffer ``W``: one int64 array that compiled functions take and that the accessors below
# slice into named views (one array argument instead of thirteen: every array passed to a compiled
# function is several machine words and a reference count, and the policies are called at every
# play). Regions, in order, with their shapes:
WORK_LAYOUT = (
    ("U_card", (MAXU, MAXS)),
    ("U_w", (MAXU, MAXS)),
    ("U_len", (MAXU,)),
    ("U_top", (MAXU,)),
    ("U_size", (MAXU,)),
    ("rec", (MAXREC, MAXD)),
    ("rec_n", (MAXREC,)),
    ("ints", (64,)),  # small scalar outputs (``INT_*`` below)
    # scratch rows, so that no decision allocates (the rows of each, the tables below)
    ("bu", (8, 64)),
    ("cb", (MAXS, 4)),
    ("fs", (16, 64)),
    ("ls", (8, 64)),
    ("hl", (8, 54 * 4)),
    # the learned policy (``engine.policies.learned``): its candidates and their features, the decision log
    # that ``simsuite learn collect`` fills with the search's candidates (its count and switch in
    # ``log_n``), and the model, copied in by ``Work(model)``
    ("lc", (MAX_CANDIDATES, NC)),
    ("lx", (MAX_CANDIDATES, XCOLS)),
    ("lv", (MAX_CANDIDATES,)),
    ("lw", (16, XCOLS)),
    ("lk", (16, 32)),
    ("cs", (6, 64)),  # the candidate lists' scratch rows (``search.*_candidates``, then ``features``)
    ("log", (LOG_ROWS, LOG_META + XCOLS)),
    ("log_n", (8,)),
    # which of the two model slots each seat's learned plays (0 unless a table seats two models:
    # ``benchmarks/model_duel.py``), then the two slots
    ("lslot", (4,)),
    ("model", (2 * MODEL_WORDS,)),
)
_offsets = {}
_at = 0
for _name, _shape in WORK_LAYOUT:
    _offsets[_name] = _at
    _at += int(np.prod(_shape))
WORK_SIZE = _at
assert 2 * MAXD + NC + 64 <= 54 * 4  # throw_check's four arrays fit in one row of ``hl``
(
    O_U_CARD,
    O_U_W,
    O_U_LEN,
    O_U_TOP,
    O_U_SIZE,
    O_REC,
    O_REC_N,
    O_INTS,
    O_BU,
    O_CB,
    O_FS,
    O_LS,
    O_HL,
    O_LC,
    O_LX,
    O_LV,
    O_LW,
    O_LK,
    O_CS,
    O_LOG,
    O_LOG_N,
    O_LSLOT,
    O_MODEL,
) = (_offsets[name] for name, _ in WORK_LAYOUT)


# The scratch rows of ``W``, one name per row and use (a row that two users share has a name for
# each; they never run at once). A user takes its rows by these names, never by number:
#
#   region  row  name                 used by               holds
#   bu      0    BU_ORDER             units.build_units     the class's cards in order
#           1    BU_CARDS                                   the unit being built: its cards
#           2    BU_WIDTHS                                  ... and its widths
#           3    BU_NCAND                                   candidates per chain step
#           4    BU_IDX                                     the candidate tried per chain step
#           5    BU_AT                                      index into ``order`` of each chain step
#   fs      0    FS_INCLASS           the follow decision   the hand's cards of the led class
#                FS_BURY_LEFT         the policies' burys   the hand left
#           1    FS_OTHERS            the follow decision   the hand's other cards
#                FS_BURY_LENGTH       the policies' burys   cards per class
#           2    FS_CAND              the follow decision   a candidate play
#           3    FS_CLAIM             the follow decision   a candidate's claim; from FS_JUDGE_AT its judgement
#           4    FS_BEST              the follow decision   the best profile (``follow.best_sets``)
#           5    FS_SETS_FEATURES     follow.best_sets      a set's features
#           6    FS_SETS_PROFILE                            a set's profile
#           7    FS_SETS_LEFT                               the cards not in the set
#           8    FS_SETS_SEL                                the set's units, by depth
#                FS_V1_UNSEEN         expert-v1's lead      the unseen counts
#           9    FS_SETS_NEXT                               the next unit to try, by depth
#                FS_V1_UNSEEN_BEST    expert-v1's lead      the unseen cards' best copies per position
#           10   FS_UNSEEN            expert's lead/follow  the unseen counts
#           11   FS_TRY_TRUMPS        try_trump             the trumps
#                FS_THROW_TMP         safe_throw            scratch counts
#           12   FS_TRY_LEFT          try_trump             the hand left
#                FS_THROW_LEFT        safe_throw            the hand left
#           13   FS_REST              expert's lead         the hand less a card kept for the last trick
#           14   FS_UNSEEN_BEST       expert's lead         the unseen cards' best copies per position
#           15   FS_THROW_ORDER       safe_throw            its order of units
#                FS_LENGTH            expert's lead         cards per class
#   ls      0    LS_LEFT              follow.lead_info,     the cards not in the set
#                                     trick.match_throw
#           1    LS_SEL               both                  the set's units, by depth
#           2    LS_NEXT              both                  the next unit to try, by depth
#           3    LS_KEY               follow.lead_info      a set's key (units, wide cards, tractor cards)
#           4    LS_BEST_KEY                                the best key
#           5    LS_THROW_CODES       trick.match_throw     the units' shape codes
#           6    LS_CODES             follow.lead_info      the units' shape codes
#           7    LS_FEATURES                                the lead's features (its profile)
#   hl      0    HL_DECK              the hand loop         the deck
#           1    HL_LEAD              (never a policy's)    play_tricks' lead
#           2    HL_PLAY                                    play_tricks' play
#           3    HL_FORCED                                  play_tricks' forced play
#           4    HL_BURY                                    the bury
#           5    HL_CAPTURE                                 write_record's captures (``CAP_*``)
#           6    HL_OUTCOME                                 write_record's outcome (``OUT_*``)
#           7    HL_THROW             trick.throw_check     the lead's units, the units that fail, the
#                                                           lead's singles, one opponent's best copies
#   cs      0    CS_BUILD             search's candidates   a candidate being built
#           1    CS_INCLASS                                 a follow's cards of the led class
#           2    CS_OTHERS                                  ... and of the others
#           3    CS_RUFF                                    a ruff
#           4    CS_LEFT                                    a bury's hand left (then the unseen cards)
#           5    CS_COUNTERS                                small counters, from the columns below
#
# ``CS_COUNTERS``'s columns: from CS_AT_CLAIM the claim, the highest single or the cards per class;
# from CS_AT_FEATURES_CLAIM the features' claim, from CS_AT_UNSEEN_TOP the highest unseen position
# and from CS_AT_LENGTH the cards per class; from CS_AT_SUMS the candidates' sums (``candidates._add``).
BU_ORDER, BU_CARDS, BU_WIDTHS, BU_NCAND, BU_IDX, BU_AT = range(6)
FS_INCLASS, FS_OTHERS, FS_CAND, FS_CLAIM, FS_BEST = range(5)
FS_BURY_LEFT, FS_BURY_LENGTH = FS_INCLASS, FS_OTHERS
FS_SETS_FEATURES, FS_SETS_PROFILE, FS_SETS_LEFT, FS_SETS_SEL, FS_SETS_NEXT = range(5, 10)
FS_V1_UNSEEN, FS_V1_UNSEEN_BEST = FS_SETS_SEL, FS_SETS_NEXT
FS_UNSEEN, FS_TRY_TRUMPS, FS_TRY_LEFT, FS_REST, FS_UNSEEN_BEST, FS_THROW_ORDER = range(10, 16)
FS_THROW_TMP, FS_THROW_LEFT, FS_LENGTH = FS_TRY_TRUMPS, FS_TRY_LEFT, FS_THROW_ORDER
FS_JUDGE_AT = 8  # column of ``FS_CLAIM`` where the claim's judgement starts (8 columns)
LS_LEFT, LS_SEL, LS_NEXT, LS_KEY, LS_BEST_KEY, LS_THROW_CODES, LS_CODES, LS_FEATURES = range(8)
HL_DECK, HL_LEAD, HL_PLAY, HL_FORCED, HL_BURY, HL_CAPTURE, HL_OUTCOME, HL_THROW = range(8)
CS_BUILD, CS_INCLASS, CS_OTHERS, CS_RUFF, CS_LEFT, CS_COUNTERS = range(6)
CS_AT_CLAIM, CS_AT_FEATURES_CLAIM, CS_AT_UNSEEN_TOP, CS_AT_LENGTH, CS_AT_SUMS = 0, 8, 16, 24, 32

# ``ints`` (``w_ints``): INT_NREC the optimal sets ``follow.best_sets`` recorded
INT_NREC = 0
# ``rec`` / ``rec_n``: the first set, best_sets' empty set and the set ``follow.lead_info`` leaves
# the lead's units in (``trick.throw_check`` reads them there)
REC_FIRST = 0

# A claim on a trick (``win_c``, ``cur``, ``trick.beats``): its kind, whether it is trump, its top
# card's position
CLAIM_KIND, CLAIM_TRUMP, CLAIM_TOP = range(3)
N_CLAIM = 3

# ``scoring.capture_points``'s answer (``cap``): the multiplier, the signed points, the sign (1 when
# the defenders capture); ``scoring.score_hand``'s (``out``): the takeover, the next declarers, the
# next dealer, each team's levels
CAP_MULT, CAP_POINTS, CAP_SIGN = range(3)
N_CAP = 3
OUT_TAKEOVER, OUT_NEXT_DECLARERS, OUT_NEXT_DEALER, OUT_LEVELS0, OUT_LEVELS1 = range(5)
N_OUT = 5


class Work:
    """Preallocated scratch for one thread of play: one buffer (``arrays()``, the ``W`` that
    compiled functions take) and a named view of each region (``WORK_LAYOUT``). ``model``: the
    learned policy's model words (``engine.policies.model``), copied into the ``model`` region; without it
    the region is zero, and a ``learned`` seat plays the heuristic's choice (``engine.policies.learned``), so
    the Python entries always pass the model where a seat plays ``learned``
    (``engine.policies.model.work_for``)."""

    def __init__(self, model: np.ndarray | None = None, second: np.ndarray | None = None, slots=None):
        self.buf = np.zeros(WORK_SIZE, np.int64)
        for name, shape in WORK_LAYOUT:
            at = _offsets[name]
            setattr(self, name, self.buf[at : at + int(np.prod(shape))].reshape(shape))
        for slot, words in enumerate((model, second)):
            if words is not None:
                if words.shape[0] > MODEL_WORDS:
                    raise ValueError(
                        f"a model of {words.shape[0]} words does not fit the {MODEL_WORDS} of the work buffer"
                    )
                self.model[slot * MODEL_WORDS : slot * MODEL_WORDS + words.shape[0]] = words
        if slots is not None:
            self.lslot[:] = slots

    def arrays(self):
        """The work buffer ``W`` that compiled functions take (``w_*`` give its regions)."""
        return self.buf


def view(W, off, shape):
    """The C-contiguous region of ``W`` from ``off`` with ``shape``, as a view (no copy). Compiled,
    it is built in place (``_view_jit``): numba's ``reshape`` calls a C helper each time, and the
    policies take these views at every decision. The compiled view checks no bounds: ``W`` is the
    buffer of a ``Work`` (``WORK_SIZE`` long), and the ``w_*`` accessors name regions inside it
    (``tests/test_engine.py`` checks each against ``Work``'s own views)."""
    return W[off : off + int(np.prod(np.array(shape)))].reshape(shape)


@intrinsic
def _view_jit(typingctx, W, off, shape):
    nd = len(shape)
    ret = types.Array(W.dtype, nd, "C")
    sig = ret(W, off, shape)

    def codegen(context, builder, sig, args):
        wty, offty, shty = sig.args
        ary = make_array(wty)(context, builder, args[0])
        at = context.cast(builder, args[1], offty, types.intp)
        dims = [context.cast(builder, builder.extract_value(args[2], i), shty[i], types.intp) for i in range(nd)]
        strides = [ary.itemsize] * nd
        for i in range(nd - 2, -1, -1):
            strides[i] = builder.mul(strides[i + 1], dims[i + 1])
        out = make_array(ret)(context, builder)
        populate_array(
            out,
            data=builder.gep(ary.data, [at]),
            shape=dims,
            strides=strides,
            itemsize=ary.itemsize,
            meminfo=ary.meminfo,
            parent=ary.parent,
        )
        return impl_ret_borrowed(context, builder, ret, out._getvalue())

    return sig, codegen


# Compiled code calls the intrinsic itself, not an overload of ``view``: an inlined overload makes
# numba run a dead-code elimination over the whole caller (see the engine package's docstring, "Dead
# stores that are not dead"), which costs compile time in every function that reads a region of ``W``.
if not config.DISABLE_JIT:
    view = _view_jit  # noqa: F811  (the plain-Python ``view`` above runs under NUMBA_DISABLE_JIT)


@njit(cache=True, inline="always")
def w_u_card(W):
    return view(W, O_U_CARD, (MAXU, MAXS))


@njit(cache=True, inline="always")
def w_u_w(W):
    return view(W, O_U_W, (MAXU, MAXS))


@njit(cache=True, inline="always")
def w_u_len(W):
    return view(W, O_U_LEN, (MAXU,))


@njit(cache=True, inline="always")
def w_u_top(W):
    return view(W, O_U_TOP, (MAXU,))


@njit(cache=True, inline="always")
def w_u_size(W):
    return view(W, O_U_SIZE, (MAXU,))


@njit(cache=True, inline="always")
def w_rec(W):
    return view(W, O_REC, (MAXREC, MAXD))


@njit(cache=True, inline="always")
def w_rec_n(W):
    return view(W, O_REC_N, (MAXREC,))


@njit(cache=True, inline="always")
def w_ints(W):
    return view(W, O_INTS, (64,))


@njit(cache=True, inline="always")
def w_bu(W):
    return view(W, O_BU, (8, 64))


@njit(cache=True, inline="always")
def w_cb(W):
    return view(W, O_CB, (MAXS, 4))


@njit(cache=True, inline="always")
def w_fs(W):
    return view(W, O_FS, (16, 64))


@njit(cache=True, inline="always")
def w_ls(W):
    return view(W, O_LS, (8, 64))


@njit(cache=True, inline="always")
def w_hl(W):
    return view(W, O_HL, (8, 54 * 4))


@njit(cache=True, inline="always")
def w_lc(W):
    return view(W, O_LC, (MAX_CANDIDATES, NC))


@njit(cache=True, inline="always")
def w_lx(W):
    return view(W, O_LX, (MAX_CANDIDATES, XCOLS))


@njit(cache=True, inline="always")
def w_lv(W):
    """The learned policy's scores of its candidates (float64, bit for bit in the int64 words)."""
    return view(W, O_LV, (MAX_CANDIDATES,)).view(np.float64)


@njit(cache=True, inline="always")
def w_lw(W):
    """The learned policy's weights of the candidate features (float64): per group, their part
    from the rules alone, and in the last row one decision's (``engine.policies.learned.score_into``)."""
    return view(W, O_LW, (16, XCOLS)).view(np.float64)


@njit(cache=True, inline="always")
def w_lk(W):
    """The rule features each of ``w_lw``'s rows was computed for (column 0: 1 once computed)."""
    return view(W, O_LK, (16, 32))


@njit(cache=True, inline="always")
def w_cs(W):
    return view(W, O_CS, (6, 64))


@njit(cache=True, inline="always")
def w_log(W):
    return view(W, O_LOG, (LOG_ROWS, LOG_META + XCOLS))


@njit(cache=True, inline="always")
def w_log_n(W):
    return view(W, O_LOG_N, (8,))


@njit(cache=True, inline="always")
def w_model(W):
    """Both of the learned policy's model slots."""
    return view(W, O_MODEL, (2 * MODEL_WORDS,))


@njit(cache=True, inline="always")
def w_model_slot(W, slot):
    """The learned policy's model in ``slot`` (0, or 1 for a second model at the table)."""
    return view(W, O_MODEL + slot * MODEL_WORDS, (MODEL_WORDS,))


@njit(cache=True, inline="always")
def w_lslot(W):
    return view(W, O_LSLOT, (4,))


@njit(cache=True, inline="always")
def w_units(W):
    """The unit table and the optimal sets: ``U_card, U_w, U_len, U_top, U_size, rec, rec_n, ints``."""
    return w_u_card(W), w_u_w(W), w_u_len(W), w_u_top(W), w_u_size(W), w_rec(W), w_rec_n(W), w_ints(W)


@njit(cache=True, inline="always")
def insert_sorted(a, start, n, v):
    """Insert ``v`` into ``a[start:start + n]`` (ascending), keeping it ascending: ``a[start + n]``
    becomes free space the larger values shift into. Equal values keep their order (``v`` goes
    after them), so n calls sort stably, in place, without allocating."""
    j = start + n
    while j > start and a[j - 1] > v:
        a[j] = a[j - 1]
        j -= 1
    a[j] = v


@njit(cache=True, inline="always")
def as_int(x):
    """``x`` as a plain int64. A constant passed straight from compiled code to a compiled function
    has a ``Literal`` type, and numba compiles a separate copy of the callee for each such constant;
    ``f(as_int(64))`` shares the one copy that variables use (docs/performance.md, "No copy per constant")."""
    return np.int64(x)


@njit(cache=True, inline="always")
def copy1(dst, src):
    """``dst[:] = src`` for two 1-D arrays of the same length, as a loop. numba's slice assignment
    from an array words its shape error with f-strings and ``str.join``, and compiles that
    formatting into every function that assigns so: about 6 s of each cold compile of a loop set
    (docs/performance.md, "Slice copies as loops")."""
    if dst.shape[0] != src.shape[0]:
        raise ValueError("copy1: the arrays differ in length")
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True, inline="always")
def copy2(dst, src):
    """``dst[:, :] = src`` for two 2-D arrays of the same shape, as a loop (``copy1``)."""
    if dst.shape[0] != src.shape[0] or dst.shape[1] != src.shape[1]:
        raise ValueError("copy2: the arrays differ in shape")
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]


@njit(cache=True, inline="always")
def as_bool(x):
    """``x`` as a plain boolean, for the same reason as ``as_int``: ``f(as_bool(False))`` shares the
    copy of ``f`` that Python's calls (with a bool) compile."""
    return x != 0
