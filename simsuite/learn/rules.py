"""The rules a collected hand is played under: one of the five tournaments as written, or rule
parameters drawn across their ranges, so that a model learns how the rules change a decision.

Hand ``i`` of a collection with root seed ``S`` always gets the same rules and level
(``hand_rules``), whatever the chunking or the number of workers. Half the hands
(``DRAWN_SHARE``) are played under a tournament's own rules, the other half under that
tournament with its play-changing parameters drawn afresh (``draw_overrides``): the deck count, the
bottom, the capture scheme and its multipliers, who captures and with what, the take-over
threshold and the step, the take-over bonus and the declarers' cap, throws, their test and their
failure, and the follow order. Each range below says what it spans and why; every draw is a valid
variant (``Variant.with_overrides`` checks it, and ``tests/test_learn.py`` checks thousands).
``DRAW_VERSION`` names this scheme in a collection's manifest: a change to it is a new collection.
"""

from __future__ import annotations

import functools

import numpy as np

from ..rules.choices import CaptureScheme
from ..rules.variant import Variant, known_ids, load_variant

DRAW_VERSION = 1
DRAWN_SHARE = 0.5
DECKS = (2, 3, 4)  # the game's deck counts (the field allows 1 to 4; no tournament plays outside 2 to 4)
MAX_BOTTOM = 16  # the tournaments bury 0 to 8 cards; twice the largest, among sizes that deal evenly
TAKEOVER_SHARE = (0.2, 0.6)  # of the decks' points: 80 of 200 at two decks is 40%; the tournaments use 40%
STEP_SHARE = (0.05, 0.2)  # of the decks' points: the tournaments use 10% to 20%
CAPTURE_SCHEMES = ("per_card",) * 6 + ("power",) * 2 + ("last_trick_points",) * 2  # per card is the common rule
MAX_PER_CARD = 8  # multiplier per card of the winning unit: the tournaments use 1 to 3; x8 pushes past them
THROW_PENALTIES = (0, 5, 10, 15, 20, 30)


@functools.cache
def bases() -> tuple[Variant, ...]:
    """The five tournaments, in the registry's order."""
    return tuple(load_variant(i) for i in known_ids())


def _fives(lo: float, hi: float) -> np.ndarray:
    """Multiples of 5 from ``lo`` to ``hi`` (rounded inward)."""
    return np.arange(int(np.ceil(lo / 5)) * 5, int(hi // 5) * 5 + 1, 5)


def draw_overrides(base: Variant, rng: np.random.Generator) -> dict:
    """Play-changing parameters drawn across their ranges, as ``--set`` overrides of ``base``."""
    decks = int(rng.choice(DECKS))
    total = 100 * decks
    bottoms = [b for b in range(0, MAX_BOTTOM + 1) if (54 * decks - b) % 4 == 0]
    takeover = int(rng.choice(_fives(TAKEOVER_SHARE[0] * total, TAKEOVER_SHARE[1] * total)))
    step = min(int(rng.choice(_fives(STEP_SHARE[0] * total, STEP_SHARE[1] * total))), takeover)
    scheme = str(rng.choice(CAPTURE_SCHEMES))
    per_card = int(rng.integers(0, MAX_PER_CARD + 1))
    follow = bases()[int(rng.integers(len(bases())))]
    max_unit = decks
    o = {
        "decks": decks,
        "bottom_size": int(rng.choice(bottoms)),
        "max_unit": max_unit,
        "min_declare": min(base.min_declare, decks),
        "min_override": max(min(base.min_override, decks), min(base.min_declare, decks)),
        "wide_tractors": bool(base.wide_tractors and max_unit >= 3),
        "bombs": bool(base.bombs and max_unit >= 4),
        "triple_pair_unit": bool(base.triple_pair_unit and max_unit >= 3),
        "capture_scheme": scheme,
        "capture_per_card": per_card if scheme == CaptureScheme.PER_CARD else base.capture_per_card,
        "capture_side_per_card": int(rng.integers(0, per_card + 1))
        if scheme == CaptureScheme.PER_CARD
        else base.capture_side_per_card,
        "capture_base": int(rng.integers(0, 3))
        if scheme == CaptureScheme.PER_CARD
        else (int(rng.integers(2, 4)) if scheme == CaptureScheme.POWER else base.capture_base),
        "single_card_captures": bool(rng.random() < 0.8),
        "capture_by": "either" if rng.random() < 0.2 else "defenders",
        "capture_with": "trump" if rng.random() < 0.3 else "any",
        "takeover": takeover,
        "step": step,
        "takeover_bonus": int(rng.integers(0, 2)),
        "declarer_cap": int(rng.choice([0, 3, 4, 5])),
        "throws": bool(rng.random() < 0.8),
        "throw_test": str(rng.choice(["absolute_max", "per_unit"])),
        "throw_failure": str(
            rng.choice(["penalty_per_card_beaten", "penalty_per_card_taken_back", "penalty_flat", "forfeit"])
        ),
        "throw_penalty": int(rng.choice(THROW_PENALTIES)),
        "follow_order": list(follow.follow_order),
        "follow_order_quad_lead": list(follow.follow_order_quad_lead),
        "wide_counts_as_tractor": follow.wide_counts_as_tractor,
        "lone_triple_counts": follow.lone_triple_counts,
    }
    return o


def hand_rules(seed: int, index: int) -> tuple[Variant, int, bool]:
    """Hand ``index`` of a collection with root ``seed``: its variant, the level it is played at
    (any rank from the variant's start to its end level, permanent trump ranks aside) and whether
    its parameters were drawn."""
    rng = np.random.default_rng([seed, index, 0x1EA2])
    base = bases()[int(rng.integers(len(bases())))]
    drawn = bool(rng.random() < DRAWN_SHARE)
    v = base.with_overrides(draw_overrides(base, rng), source=f"{base.id} (drawn)") if drawn else base
    levels = [r for r in range(v.start_level, v.end_level + 1) if r not in v.permanent_trump_ranks]
    return v, int(rng.choice(levels)), drawn
