"""Hands of a run on several local workers: the record rows of hands 0..n-1, the same whatever the split.

Duplicate deals rest on it: hand i's random state, level and first drawer depend on its index
alone, so two calls with the same seed deal the same hands whatever their policies (``simsuite
duel``, ``compete.duel``; ``simsuite compare-policies``, ``analysis.compare``).
"""

from __future__ import annotations

import numpy as np

from ..engine.api import play_batch
from ..rules.variant import Variant

DUEL_CHUNK = 250  # hands per task on several workers (a duel; compare-policies but for search)


def play_hands(
    variant: Variant, seed: int, hands: int, policies: str, jobs: int, chunk: int = DUEL_CHUNK
) -> np.ndarray:
    """Record rows of hands 0..hands-1 of the run ``seed``, in tasks of ``chunk`` hands on ``jobs``
    workers; the same rows whatever ``jobs`` and ``chunk`` (each hand's random state, level and
    first drawer depend on its index alone)."""
    if jobs == 1 or hands <= chunk:
        return play_batch(variant, seed, hands, policies)
    from joblib import Parallel, delayed

    from ..engine.warm import warm_up
    from . import executor

    warm_up(variant, policies, loop="hands")  # the workers then load it from numba's cache, not compile it at once
    starts = range(0, hands, chunk)
    with executor.local_processes():  # simsuite's one local pool: its workers die with the driver, and it is reused
        parts = Parallel(n_jobs=jobs)(
            delayed(play_batch)(variant, seed, min(chunk, hands - st), policies, start=st) for st in starts
        )
    return np.concatenate(parts)
