"""The named choices of a variant's behaviours: one string enum per choice field, and ``CHOICES``.

A variant's behaviour fields hold plain strings (``variant.throw_failure == "forfeit"``); code
compares them with the members below (``variant.throw_failure == ThrowFailure.FORFEIT``), which are
those strings. ``CHOICES[field]`` lists a field's choices in the enum's order, and the compiled
engine encodes a choice as its index there (``engine.params``: ``THROW_FAILURE_FORFEIT`` is
``code(ThrowFailure.FORFEIT)``). A member's name is its value in capitals.
"""

from __future__ import annotations

from enum import StrEnum


class TieBreak(StrEnum):
    SUIT_ORDER = "suit_order"
    FIRST_STANDS = "first_stands"


class JokerBids(StrEnum):
    NONE = "none"
    PAIR_NO_TRUMP = "pair_no_trump"
    SAME_AS_SUITS = "same_as_suits"


class Fallback(StrEnum):
    TURN_UP_BOTTOM = "turn_up_bottom"
    FIRST_NON_JOKER_OF_BOTTOM = "first_non_joker_of_bottom"
    RANDOM_BOTTOM_CARD = "random_bottom_card"
    REDEAL = "redeal"


class Bidding(StrEnum):
    OPEN = "open"
    CONCEALED = "concealed"


class ThrowTest(StrEnum):
    ABSOLUTE_MAX = "absolute_max"
    PER_UNIT = "per_unit"


class ThrowFailure(StrEnum):
    PENALTY_PER_CARD_BEATEN = "penalty_per_card_beaten"
    PENALTY_PER_CARD_TAKEN_BACK = "penalty_per_card_taken_back"
    PENALTY_FLAT = "penalty_flat"
    FORFEIT = "forfeit"


class ForcedPlay(StrEnum):
    SMALLEST_CARD = "smallest_card"
    SMALLEST_FAILING_UNIT = "smallest_failing_unit"


class CaptureBy(StrEnum):
    DEFENDERS = "defenders"
    EITHER = "either"


class CaptureWith(StrEnum):
    ANY = "any"
    TRUMP = "trump"


class CaptureScheme(StrEnum):
    PER_CARD = "per_card"
    POWER = "power"
    LAST_TRICK_POINTS = "last_trick_points"


class DealerRotation(StrEnum):
    HOLD_PARTNER_TAKEOVER_NEXT = "hold_partner_takeover_next"
    ROTATE = "rotate"


class TieRule(StrEnum):
    DRAW = "draw"
    ON_STAGE = "on_stage"


class TournamentFormat(StrEnum):
    SWISS = "swiss"
    DRAWN = "drawn"
    KNOCKOUT = "knockout"
    SESSION = "session"


class Elimination(StrEnum):
    SINGLE = "single"
    DOUBLE = "double"


class Tiebreak(StrEnum):
    ROUND_POINTS = "round_points"
    ROUND_LEVEL_DIFF = "round_level_diff"
    ROUND_LEVEL = "round_level"
    TOTAL_LEVEL_DIFF = "total_level_diff"
    TOTAL_LEVELS = "total_levels"
    LOTS = "lots"


class SelfOverrideScope(StrEnum):
    SEAT = "seat"
    SIDE = "side"


class FollowField(StrEnum):
    TT = "tt"
    LONG = "long"
    WIDTH = "width"
    TCARDS = "tcards"
    QUADS = "quads"
    TRIPLES = "triples"
    PAIRS = "pairs"


class ThrowCompare(StrEnum):
    LARGEST_UNIT = "largest_unit"


# each choice field's enum
CHOICE_ENUMS: dict[str, type[StrEnum]] = {
    "tie_break": TieBreak,
    "joker_bids": JokerBids,
    "fallback": Fallback,
    "bidding": Bidding,
    "throw_test": ThrowTest,
    "throw_failure": ThrowFailure,
    "forced_play": ForcedPlay,
    "capture_by": CaptureBy,
    "capture_with": CaptureWith,
    "capture_scheme": CaptureScheme,
    "dealer_rotation": DealerRotation,
    "tie_rule": TieRule,
    "tournament_format": TournamentFormat,
    "elimination": Elimination,
    "tiebreaks": Tiebreak,
    "self_override_scope": SelfOverrideScope,
    "follow_order": FollowField,
    "throw_compare": ThrowCompare,
}

# each choice field's choices, as plain strings, in their enum's order
CHOICES: dict[str, tuple[str, ...]] = {name: tuple(m.value for m in enum) for name, enum in CHOICE_ENUMS.items()}
FOLLOW_FIELDS = CHOICES["follow_order"]


def code(choice: StrEnum) -> int:
    """The compiled engine's code of ``choice``: its index among its field's choices."""
    return list(type(choice)).index(choice)
