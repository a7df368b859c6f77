"""Policy strength over duplicate hands: the same deal played twice, the teams swapping seats.

For each hand index i both tables use the same generator state, so both deals are identical;
team A sits N-S at the first table and E-W at the second. The paired difference (A's net levels
over the two tables) removes most of the luck of the cards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..analysis.stats import Estimate, cluster_mean_ci, cluster_share, mean_ci, wilson
from ..engine.hand import RECORD_FIELDS
from ..rules.variant import Variant
from ..sim.hands import play_hands

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
        return {
            "variant": self.variant,
            "a": self.a,
            "b": self.b,
            "pairs": self.pairs,
            "net_levels": self.net_levels.as_dict(),
            "pair_win": self.pair_win.as_dict(),
            "pair_loss": self.pair_loss.as_dict(),
        }


def duel(variant: Variant, a: str, b: str, hands: int, seed: int, jobs: int = 1) -> DuelResult:
    """Play ``hands`` duplicate pairs of hands of policy ``a`` against ``b`` (on ``jobs`` workers)."""
    first = play_hands(variant, seed, hands, f"{a},{b}", jobs)
    second = play_hands(variant, seed, hands, f"{b},{a}", jobs)
    net = (first[:, _L0] - first[:, _L1]) + (second[:, _L1] - second[:, _L0])
    return DuelResult(
        variant.id,
        a,
        b,
        hands,
        mean_ci(net / 2.0),
        wilson(int((net > 0).sum()), hands),
        wilson(int((net < 0).sum()), hands),
    )


@dataclass(frozen=True)
class MatchDuelResult:
    variant: str
    a: str
    b: str
    pairs: int
    decided_pairs: int
    pair_win: Estimate  # share of decided pairs A wins (more match wins than B over the two tables)
    match_win: Estimate  # share of all matches (both tables, draws counted) A wins; n = pairs (deals)
    hands_per_match: Estimate  # n = pairs: both tables of a deal are one unit
    match_draw: Estimate | None = None  # share of all matches drawn; n = pairs

    def as_dict(self) -> dict:
        return {
            "variant": self.variant,
            "a": self.a,
            "b": self.b,
            "pairs": self.pairs,
            "decided_pairs": self.decided_pairs,
            "pair_win": self.pair_win.as_dict(),
            "match_win": self.match_win.as_dict(),
            "hands_per_match": self.hands_per_match.as_dict(),
            "match_draw": self.match_draw.as_dict() if self.match_draw else None,
        }


def duel_matches(variant: Variant, a: str, b: str, matches: int, seed: int) -> MatchDuelResult:
    """Duplicate matches: match i played twice with the same deals, A as N-S then as E-W."""
    from ..engine.match import M_HANDS, M_WINNER
    from ..sim.match import play_match_batch

    first = play_match_batch(variant, seed, 0, matches, f"{a},{b}").matches
    second = play_match_batch(variant, seed, 0, matches, f"{b},{a}").matches
    a_wins = (first[:, M_WINNER] == 0).astype(int) + (second[:, M_WINNER] == 1).astype(int)
    b_wins = (first[:, M_WINNER] == 1).astype(int) + (second[:, M_WINNER] == 0).astype(int)
    decided = a_wins != b_wins
    pair = np.concatenate([np.arange(matches), np.arange(matches)])  # both tables of a deal: one unit
    a_won = np.concatenate([first[:, M_WINNER] == 0, second[:, M_WINNER] == 1]).astype(float)
    drawn = np.concatenate([first[:, M_WINNER] < 0, second[:, M_WINNER] < 0]).astype(float)
    hands = np.concatenate([first[:, M_HANDS], second[:, M_HANDS]])
    return MatchDuelResult(
        variant.id,
        a,
        b,
        matches,
        int(decided.sum()),
        wilson(int((a_wins > b_wins).sum()), int(decided.sum())),
        cluster_share(a_won, pair),
        cluster_mean_ci(hands, pair),
        cluster_share(drawn, pair),
    )
