"""Hands per second of the compiled engine, one row per variant (``simsuite bench``).

Each variant first plays a few untimed hands, which compile the engine (or load its cached compiled
code), then the timed hands in one ``play_batch`` on this process's core.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from ..engine.api import play_batch
from ..engine.params import engine_ready
from ..rules.variant import Variant

WARMUP_HANDS = 20  # untimed hands first: they compile the engine or load its cache; reported apart as the warm-up


def bench(variants: Sequence[Variant], policy: str, hands: int, seed: int) -> list[dict]:
    """Time ``hands`` hands of each variant under ``policy`` (a name, or one per seat, N,E,S,W).
    One row per variant: {variant, policy, hands, hands_per_s, seconds, warmup_s}. Every variant is
    checked playable before any is timed."""
    for v in variants:
        engine_ready(v)
    rows = []
    for v in variants:
        t0 = time.perf_counter()
        play_batch(v, seed, WARMUP_HANDS, policy)  # compiles (or loads the cache) on first use
        warm = time.perf_counter() - t0
        t0 = time.perf_counter()
        play_batch(v, seed, hands, policy)
        secs = time.perf_counter() - t0
        rows.append(
            {
                "variant": v.id,
                "policy": policy,
                "hands": hands,
                "hands_per_s": hands / secs if secs > 0 else float("inf"),
                "seconds": secs,
                "warmup_s": warm,
            }
        )
    return rows


__all__ = ["bench", "WARMUP_HANDS"]
