"""A ``Variant`` compiled to a flat int64 array that the compiled engine reads.

Each index below names one parameter; behaviours are small integer codes. The array is built
once per variant (``compile_variant``) and passed to every compiled function.
"""

from __future__ import annotations

import numpy as np

from ..errors import SimsuiteError
from ..rules.variant import CHOICES, FOLLOW_FIELDS, Variant

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
THROW_TEST = 20  # 0 absolute_max, 1 per_unit
THROW_FAILURE = 21  # 0 per card beaten, 1 per card taken back, 2 flat, 3 forfeit
THROW_PENALTY = 22
FORCED_PLAY = 23  # 0 smallest card, 1 smallest failing unit
CAPTURE_BY = 24  # 0 defenders, 1 either
CAPTURE_WITH = 25  # 0 any, 1 trump
CAPTURE_SCHEME = 26  # 0 per_card, 1 power, 2 last_trick_points
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
ROTATION = 38  # 0 hold_partner_takeover_next, 1 rotate
BIDDING = 39  # 0 open, 1 concealed
MIN_DECLARE = 40
MIN_OVERRIDE = 41
TIE_BREAK = 42  # 0 suit_order, 1 first_stands
JOKER_BIDS = 43  # 0 none, 1 pair_no_trump, 2 same_as_suits
SELF_OVERRIDE = 44
REINFORCE = 45
FIRST_NEEDS_SJ = 46
FIRST_DECLARER_DEALS = 47
FALLBACK = 48  # 0 turn_up_bottom, 1 first_non_joker, 2 random_bottom_card, 3 redeal
HAND_SIZE = 49
N_FOLLOW = 50  # number of fields in the follow order
FOLLOW0 = 51  # FOLLOW0 .. FOLLOW0+6: field codes
N_FOLLOW_QUAD = 58
FOLLOW_QUAD0 = 59  # .. +6
SUIT_RANK0 = 66  # SUIT_RANK0 + k for k in (S, H, D, C, SJ, BJ): tie rank, higher beats
SECONDS_PER_TRICK_X100 = 72
OVERHEAD_X100 = 73
OVERRIDE_TAKES_DEAL = 74
SELF_OVERRIDE_SIDE = 75  # 0 seat, 1 side: who self_override = false bars
N_PARAMS = 76

# follow field codes
F_TT, F_LONG, F_WIDTH, F_TCARDS, F_QUADS, F_TRIPLES, F_PAIRS = range(7)
assert FOLLOW_FIELDS == ("tt", "long", "width", "tcards", "quads", "triples", "pairs")

# Behaviour codes are positions in ``variant.CHOICES``: the one table of named choices.


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
