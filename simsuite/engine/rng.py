"""xoshiro128** on an explicit state: the engine never touches global random state.

Every value is kept below 2**32 and every product below 2**63, so the same int64 arithmetic
gives the same stream compiled and in plain Python (NUMBA_DISABLE_JIT=1).
"""

from __future__ import annotations

import numpy as np
from numba import njit

MASK32 = 0xFFFFFFFF


@njit(cache=True)
def _rotl(x, k):
    return ((x << k) | (x >> (32 - k))) & 0xFFFFFFFF


@njit(cache=True)
def next_u32(s):
    """Advance the state ``s`` (int64[4], each word < 2**32) and return 32 random bits."""
    result = (_rotl((s[1] * 5) & 0xFFFFFFFF, 7) * 9) & 0xFFFFFFFF
    t = (s[1] << 9) & 0xFFFFFFFF
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 11)
    return result


@njit(cache=True)
def randint(s, n):
    """Uniform integer in [0, n) for 0 < n < 2**31 (Lemire's multiply-shift, bias < 2**-20)."""
    return (next_u32(s) * n) >> 32


@njit(cache=True)
def uniform(s):
    """A float in [0, 1)."""
    return next_u32(s) / 4294967296.0


def seed_state(seed: int | np.integer | np.random.SeedSequence) -> np.ndarray:
    """Four 32-bit words from a seed or a SeedSequence (never all zero)."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(int(seed))
    words = ss.generate_state(4, dtype=np.uint32).astype(np.int64)
    if not words.any():
        words[0] = 1
    return words
