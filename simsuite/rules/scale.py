"""Moving a variant to another deck count: a rules transform (the sweep grid's ``decks`` key).

``scale_decks`` gives the overrides that play a variant with more or fewer decks while keeping
its proportions: the bottom, the take-over threshold and the step scale with the cards
(docs/harness.md, "Deck count").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .variant import Variant

SCALED_BY_DECKS = ("bottom_size", "takeover", "step")


def _round5(x: float) -> int:
    return max(5, int(math.floor(x / 5.0 + 0.5)) * 5)


def scale_decks(base: Variant, decks: int, table: Mapping[str, Any] | None = None) -> dict:
    """Overrides that move ``base`` to ``decks`` decks with bottom and thresholds scaled alike.

    A ``[decks_scaling]`` entry for this deck count (``2 = { bottom_size = 8, ... }``) is used
    as given. Otherwise the rule: the bottom is proportional to the cards (the nearest size that
    deals evenly to four players, the smaller on a tie); ``takeover`` and ``step`` are multiplied
    by decks / base decks and rounded to a multiple of 5; ``max_unit`` is lowered to the deck
    count where it must be (turning off wide tractors below 3 and bombs below 4)."""
    out: dict = {"decks": decks}
    entry = (table or {}).get(str(decks))
    if entry is not None:
        out.update(entry)
        return out
    k = decks / base.decks
    target = base.bottom_size * k
    fits = [b for b in range(0, 54 * decks) if (54 * decks - b) % 4 == 0]
    out["bottom_size"] = min(fits, key=lambda b: (abs(b - target), b))
    out["takeover"] = _round5(base.takeover * k)
    out["step"] = _round5(base.step * k)
    if base.max_unit > decks:
        out["max_unit"] = decks
        if decks < 3 and base.wide_tractors:
            out["wide_tractors"] = False
    if decks < 4 and base.bombs:
        out["bombs"] = False
    return out
