"""Policy strength over duplicate hands: the same deal played twice, the teams swapping seats.

For each hand index i both tables use the same generator state, so both deals are identical;
team A sits N-S at the first table and E-W at the second. The paired difference (A's net levels
over the two tables) removes most of the luck of the cards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .engine.api import play_batch
from .engine.hand import RECORD_FIELDS
from .stats import Estimate, mean_ci, wilson
from .variant import Variant

_L0 = RECORD_FIELDS.index("levels_ns")
_L1 = RECORD_FIELDS.index("levels_ew")


@dataclass(frozen=True)
class DuelResult:
    variant: str
    a: str
    b: str
    pairs: int
    net_levels: Estimate  # A's levels minus B's, per hand, averaged over the two tables
    pair_win: Estimate  # share of pairs where A's net is positive
    pair_loss: Estimate

    def as_dict(self) -> dict:
        return {"variant": self.variant, "a": self.a, "b": self.b, "pairs": self.pairs,
                "net_levels": self.net_levels.as_dict(), "pair_win": self.pair_win.as_dict(),
                "pair_loss": self.pair_loss.as_dict()}


def duel(variant: Variant, a: str, b: str, hands: int, seed: int) -> DuelResult:
    """Play ``hands`` duplicate pairs of hands of policy ``a`` against ``b``."""
    first = play_batch(variant, seed, hands, f"{a},{b}")
    second = play_batch(variant, seed, hands, f"{b},{a}")
    net = (first[:, _L0] - first[:, _L1]) + (second[:, _L1] - second[:, _L0])
    return DuelResult(variant.id, a, b, hands, mean_ci(net / 2.0), wilson(int((net > 0).sum()), hands),
                      wilson(int((net < 0).sum()), hands))
