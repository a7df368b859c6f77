"""A ``Variant`` compiled to a flat int64 array that the compiled engine reads.

Each index below names one parameter; behaviours are small integer codes. The array is built
once per variant (``compile_variant``) and passed to every compiled function.
"""

from __future__ import annotations

import numpy as np

from ..errors import SimsuiteError
from ..rules.choices import (
    CHOICES,
    FOLLOW_FIELDS,
    Bidding,
    CaptureBy,
    CaptureScheme,
    CaptureWith,
    DealerRotation,
    Fallback,
    FollowField,
    ForcedPlay,
    JokerBids,
    SelfOverrideScope,
    ThrowFailure,
    ThrowTest,
    TieBreak,
    code,
)
from ..rules.variant import Variant

# --- indices ---------------------------------------------------------------------------------
DECKS = 0
BOTTOM = 1
START_LEVEL = 2
END_LEVEL = 3
PERM_RANK = 4  # permanent trump rank, or -1
NO_TRUMP_OK = 5
MAX_UNIT = 6
WIDE_TRACTORS = 7
GAP_OVER_LEVEL = 8
LINK_JOKERS = 9
LINK_SJ_LEVEL = 10
LINK_LEVEL_OFF = 11
LINK_OFF_ACE = 12
LINK_PERM = 13
TRIPLE_PAIR_UNIT = 14
WIDE_BEATS = 15
BOMBS = 16
WIDE_AS_TRACTOR = 17
LONE_TRIPLE = 18
THROWS = 19
THROW_TEST = 20
THROW_FAILURE = 21
THROW_PENALTY = 22
FORCED_PLAY = 23
CAPTURE_BY = 24
CAPTURE_WITH = 25
CAPTURE_SCHEME = 26
CAPTURE_PER_CARD = 27
CAPTURE_SIDE_PER_CARD = 28
CAPTURE_BASE = 29
SINGLE_CAPTURES = 30
TAKEOVER = 31
STEP = 32
TAKEOVER_BONUS = 33
DECLARER_CAP = 34
ZERO_BONUS = 35
BELOW_ZERO_STEP = 36
DEFENDER_CAP = 37
ROTATION = 38  # dealer_rotation
BIDDING = 39
MIN_DECLARE = 40
MIN_OVERRIDE = 41
TIE_BREAK = 42
JOKER_BIDS = 43
SELF_OVERRIDE = 44
REINFORCE = 45
FIRST_NEEDS_SJ = 46
FIRST_DECLARER_DEALS = 47
FALLBACK = 48
HAND_SIZE = 49
N_FOLLOW = 50  # number of fields in the follow order
FOLLOW0 = 51  # FOLLOW0 .. FOLLOW0+6: field codes
N_FOLLOW_QUAD = 58
FOLLOW_QUAD0 = 59  # .. +6
SUIT_RANK0 = 66  # SUIT_RANK0 + k for k in (S, H, D, C, SJ, BJ): tie rank, higher beats
SUIT_RANK_SJ, SUIT_RANK_BJ = SUIT_RANK0 + 4, SUIT_RANK0 + 5  # the jokers' tie ranks
SECONDS_PER_TRICK_X100 = 72
OVERHEAD_X100 = 73
OVERRIDE_TAKES_DEAL = 74
SELF_OVERRIDE_SIDE = 75  # self_override_scope: who self_override = false bars
N_PARAMS = 76

# --- behaviour codes ---------------------------------------------------------------------------
# A behaviour parameter holds its choice's index in ``rules.choices.CHOICES`` (``code``); each code
# is named ``<parameter>_<choice in capitals>``, so that ``P[THROW_FAILURE] == THROW_FAILURE_FORFEIT``
# reads as the rule. Plain ints, which numba compiles as constants.
CODED = {  # each choice field the engine reads, and the name of its parameter
    "throw_test": "THROW_TEST",
    "throw_failure": "THROW_FAILURE",
    "forced_play": "FORCED_PLAY",
    "capture_by": "CAPTURE_BY",
    "capture_with": "CAPTURE_WITH",
    "capture_scheme": "CAPTURE_SCHEME",
    "dealer_rotation": "ROTATION",
    "bidding": "BIDDING",
    "tie_break": "TIE_BREAK",
    "joker_bids": "JOKER_BIDS",
    "fallback": "FALLBACK",
    "self_override_scope": "SELF_OVERRIDE_SIDE",
}
THROW_TEST_ABSOLUTE_MAX = code(ThrowTest.ABSOLUTE_MAX)
THROW_TEST_PER_UNIT = code(ThrowTest.PER_UNIT)
THROW_FAILURE_PENALTY_PER_CARD_BEATEN = code(ThrowFailure.PENALTY_PER_CARD_BEATEN)
THROW_FAILURE_PENALTY_PER_CARD_TAKEN_BACK = code(ThrowFailure.PENALTY_PER_CARD_TAKEN_BACK)
THROW_FAILURE_PENALTY_FLAT = code(ThrowFailure.PENALTY_FLAT)
THROW_FAILURE_FORFEIT = code(ThrowFailure.FORFEIT)
FORCED_PLAY_SMALLEST_CARD = code(ForcedPlay.SMALLEST_CARD)
FORCED_PLAY_SMALLEST_FAILING_UNIT = code(ForcedPlay.SMALLEST_FAILING_UNIT)
CAPTURE_BY_DEFENDERS = code(CaptureBy.DEFENDERS)
CAPTURE_BY_EITHER = code(CaptureBy.EITHER)
CAPTURE_WITH_ANY = code(CaptureWith.ANY)
CAPTURE_WITH_TRUMP = code(CaptureWith.TRUMP)
CAPTURE_SCHEME_PER_CARD = code(CaptureScheme.PER_CARD)
CAPTURE_SCHEME_POWER = code(CaptureScheme.POWER)
CAPTURE_SCHEME_LAST_TRICK_POINTS = code(CaptureScheme.LAST_TRICK_POINTS)
ROTATION_HOLD_PARTNER_TAKEOVER_NEXT = code(DealerRotation.HOLD_PARTNER_TAKEOVER_NEXT)
ROTATION_ROTATE = code(DealerRotation.ROTATE)
BIDDING_OPEN = code(Bidding.OPEN)
BIDDING_CONCEALED = code(Bidding.CONCEALED)
TIE_BREAK_SUIT_ORDER = code(TieBreak.SUIT_ORDER)
TIE_BREAK_FIRST_STANDS = code(TieBreak.FIRST_STANDS)
JOKER_BIDS_NONE = code(JokerBids.NONE)
JOKER_BIDS_PAIR_NO_TRUMP = code(JokerBids.PAIR_NO_TRUMP)
JOKER_BIDS_SAME_AS_SUITS = code(JokerBids.SAME_AS_SUITS)
FALLBACK_TURN_UP_BOTTOM = code(Fallback.TURN_UP_BOTTOM)
FALLBACK_FIRST_NON_JOKER_OF_BOTTOM = code(Fallback.FIRST_NON_JOKER_OF_BOTTOM)
FALLBACK_RANDOM_BOTTOM_CARD = code(Fallback.RANDOM_BOTTOM_CARD)
FALLBACK_REDEAL = code(Fallback.REDEAL)
SELF_OVERRIDE_SIDE_SEAT = code(SelfOverrideScope.SEAT)
SELF_OVERRIDE_SIDE_SIDE = code(SelfOverrideScope.SIDE)

# follow field codes (the follow order's fields, ``FOLLOW0`` ..)
F_TT, F_LONG, F_WIDTH, F_TCARDS, F_QUADS, F_TRIPLES, F_PAIRS = (
    code(FollowField.TT),
    code(FollowField.LONG),
    code(FollowField.WIDTH),
    code(FollowField.TCARDS),
    code(FollowField.QUADS),
    code(FollowField.TRIPLES),
    code(FollowField.PAIRS),
)


def _code(v: Variant, name: str) -> int:
    return CHOICES[name].index(getattr(v, name))


def compile_variant(v: Variant) -> np.ndarray:
    """The variant as the int64 parameter array of the compiled engine."""
    p = np.zeros(N_PARAMS, dtype=np.int64)
    p[DECKS] = v.decks
    p[BOTTOM] = v.bottom_size
    p[START_LEVEL] = v.start_level
    p[END_LEVEL] = v.end_level
    if len(v.permanent_trump_ranks) > 1:
        raise ValueError("the compiled engine supports at most one permanent trump rank")
    p[PERM_RANK] = v.permanent_trump_ranks[0] if v.permanent_trump_ranks else -1
    p[NO_TRUMP_OK] = v.no_trump
    p[MAX_UNIT] = v.max_unit
    p[WIDE_TRACTORS] = v.wide_tractors
    p[GAP_OVER_LEVEL] = v.gap_over_level
    p[LINK_JOKERS] = v.link_jokers
    p[LINK_SJ_LEVEL] = v.link_small_joker_level
    p[LINK_LEVEL_OFF] = v.link_level_off_level
    p[LINK_OFF_ACE] = v.link_off_level_trump_ace
    p[LINK_PERM] = v.link_permanent
    p[TRIPLE_PAIR_UNIT] = v.triple_pair_unit
    p[WIDE_BEATS] = v.wide_beats_pair_tractor
    p[BOMBS] = v.bombs
    p[WIDE_AS_TRACTOR] = v.wide_counts_as_tractor
    p[LONE_TRIPLE] = v.lone_triple_counts
    p[THROWS] = v.throws
    p[THROW_TEST] = _code(v, "throw_test")
    p[THROW_FAILURE] = _code(v, "throw_failure")
    p[THROW_PENALTY] = v.throw_penalty
    p[FORCED_PLAY] = _code(v, "forced_play")
    p[CAPTURE_BY] = _code(v, "capture_by")
    p[CAPTURE_WITH] = _code(v, "capture_with")
    p[CAPTURE_SCHEME] = _code(v, "capture_scheme")
    p[CAPTURE_PER_CARD] = v.capture_per_card
    p[CAPTURE_SIDE_PER_CARD] = v.capture_side_per_card
    p[CAPTURE_BASE] = v.capture_base
    p[SINGLE_CAPTURES] = v.single_card_captures
    p[TAKEOVER] = v.takeover
    p[STEP] = v.step
    p[TAKEOVER_BONUS] = v.takeover_bonus
    p[DECLARER_CAP] = v.declarer_cap
    p[ZERO_BONUS] = v.zero_bonus
    p[BELOW_ZERO_STEP] = v.below_zero_step
    p[DEFENDER_CAP] = v.defender_cap
    p[ROTATION] = _code(v, "dealer_rotation")
    p[BIDDING] = _code(v, "bidding")
    p[MIN_DECLARE] = v.min_declare
    p[MIN_OVERRIDE] = v.min_override
    p[TIE_BREAK] = _code(v, "tie_break")
    p[JOKER_BIDS] = _code(v, "joker_bids")
    p[SELF_OVERRIDE] = v.self_override
    p[SELF_OVERRIDE_SIDE] = _code(v, "self_override_scope")
    p[REINFORCE] = v.reinforce
    p[FIRST_NEEDS_SJ] = v.first_hand_needs_small_joker
    p[FIRST_DECLARER_DEALS] = v.first_hand_declarer_deals
    p[OVERRIDE_TAKES_DEAL] = v.override_takes_deal
    p[FALLBACK] = _code(v, "fallback")
    p[HAND_SIZE] = v.hand_size
    p[N_FOLLOW] = len(v.follow_order)
    for i, f in enumerate(v.follow_order):
        p[FOLLOW0 + i] = FOLLOW_FIELDS.index(f)
    p[N_FOLLOW_QUAD] = len(v.follow_order_quad_lead)
    for i, f in enumerate(v.follow_order_quad_lead):
        p[FOLLOW_QUAD0 + i] = FOLLOW_FIELDS.index(f)
    # tie ranks for equal-count bids: suit_order lists strongest first
    names = ("S", "H", "D", "C", "SJ", "BJ")
    order = list(v.suit_order)
    for k, name in enumerate(names):
        p[SUIT_RANK0 + k] = len(order) - order.index(name) if name in order else 0
    p[SECONDS_PER_TRICK_X100] = round(v.seconds_per_trick * 100)
    p[OVERHEAD_X100] = round(v.hand_overhead_minutes * 100)
    return p


def engine_ready(variant: Variant, label: str | None = None) -> None:
    """Refuse, in one line that starts with ``label`` (default: the variant's id), a variant the
    compiled engine cannot play."""
    try:
        compile_variant(variant)
    except SimsuiteError:
        raise
    except ValueError as exc:
        raise SimsuiteError(f"{label or variant.id}: the compiled engine cannot play this variant: {exc}") from None
