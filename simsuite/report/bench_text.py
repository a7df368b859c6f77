"""The text of ``simsuite bench``: the compiled engine's hands per second, one row per variant."""

from __future__ import annotations

from collections.abc import Sequence

from .text import table


def format_bench(rows: Sequence[dict], warmup_hands: int) -> str:
    """``rows``: one per variant, {variant, policy, hands, hands_per_s, seconds, warmup_s}."""
    return table(
        ["variant", "policy", "hands", "hands/s", "seconds", f"warm-up ({warmup_hands} hands) s"],
        [
            [
                r["variant"],
                r["policy"],
                r["hands"],
                f"{r['hands_per_s']:,.0f}",
                f"{r['seconds']:.2f}",
                f"{r['warmup_s']:.2f}",
            ]
            for r in rows
        ],
    )
