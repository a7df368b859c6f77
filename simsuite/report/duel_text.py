"""The text of ``simsuite duel``: policy A against B per variant, over duplicate hands or matches."""

from __future__ import annotations

from collections.abc import Sequence

from ..compete.duel import DuelResult, MatchDuelResult
from .text import table


def format_duel(results: Sequence[DuelResult], a: str, b: str, seed: int) -> str:
    """Duplicate hands: A's net levels per hand and its share of pairs won and lost, one row per variant."""
    rows = [[r.variant, r.net_levels.fmt(3), r.pair_win.fmt(pct=True), r.pair_loss.fmt(pct=True)] for r in results]
    return f"{a} against {b} over duplicate hands (seed {seed}); 95% intervals\n" + table(
        ["variant", f"net levels per hand for {a}", f"pairs {a} wins", f"pairs {a} loses"], rows, max_width=60
    )


def format_match_duel(results: Sequence[MatchDuelResult], a: str, b: str, seed: int, matches: int) -> str:
    """Duplicate matches: A's share of decided pairs and of matches won, draws and match length, one row per
    variant."""
    rows = [
        [
            r.variant,
            r.pair_win.fmt(pct=True),
            r.match_win.fmt(pct=True),
            r.match_draw.fmt(pct=True),
            r.hands_per_match.fmt(1),
        ]
        for r in results
    ]
    return f"{a} against {b} over duplicate matches (seed {seed}, {matches} pairs); 95% intervals\n" + table(
        ["variant", f"decided pairs {a} wins", f"matches {a} wins (draws counted)", "drawn", "hands per match"],
        rows,
        max_width=60,
    )
