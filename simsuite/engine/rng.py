"""xoshiro128** on an explicit state: the engine never touches global random state.

Every value is kept below 2**32 and every product below 2**63, so the same int64 arithmetic
gives the same stream compiled and in plain Python (NUMBA_DISABLE_JIT=1).
"""

from __future__ import annotations

import numpy as np
from numba import njit

MASK32 = 0xFFFFFFFF


@njit(cache=True, inline="always")
def _rotl(x, k):
    return ((x << k) | (x >> (32 - k))) & 0xFFFFFFFF


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def randint(s, n):
    """Uniform integer in [0, n) for 0 < n < 2**31 (Lemire's multiply-shift, bias < 2**-20)."""
    return (next_u32(s) * n) >> 32


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def _mul32(x, c):
    """(x * c) mod 2**32 for x, c < 2**32, without any intermediate reaching 2**63."""
    lo = x & 0xFFFF
    hi = x >> 16
    return (lo * c + (((hi * c) & 0xFFFF) << 16)) & 0xFFFFFFFF


@njit(cache=True, inline="always")
def _fmix32(h):
    """MurmurHash3's finaliser: a bijection of 32-bit words with good avalanche."""
    h ^= h >> 16
    h = _mul32(h, 0x85EBCA6B)
    h ^= h >> 13
    h = _mul32(h, 0xC2B2AE35)
    h ^= h >> 16
    return h


@njit(cache=True)
def hand_state(key, index, out):
    """The generator state of hand ``index`` of a run whose key is ``key`` (4 words from the
    run's SeedSequence): a hash of (key, index), so hand i is dealt alike however work is split."""
    lo = index & 0xFFFFFFFF
    hi = (index >> 32) & 0xFFFFFFFF
    for j in range(4):
        h = key[j] ^ _fmix32((lo + _mul32(j + 1, 0x9E3779B9)) & 0xFFFFFFFF)
        h = _fmix32(h ^ _fmix32(hi ^ _mul32(j + 7, 0x7F4A7C15)))
        out[j] = _fmix32(h ^ lo)
    if out[0] == 0 and out[1] == 0 and out[2] == 0 and out[3] == 0:
        out[0] = 1


def run_key(seed: int | np.random.SeedSequence) -> np.ndarray:
    """The 4-word key of a run from its root seed."""
    return seed_state(seed)
