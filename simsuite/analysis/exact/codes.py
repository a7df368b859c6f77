"""The chain's state codes: their bit layout, encoding and decoding, and the numbering of distinct codes."""

from __future__ import annotations

import numpy as np
from numba import njit

# state code layout (bits)
T_BITS, W_BITS, LD_BITS, D_BITS, L_BITS = 26, 5, 2, 1, 7
CHUNK = (
    1 << 15
)  # transitions (keys) the chain's expansion (``distinct``) takes at once: its temporaries stay in the cache


def encode_states(la, lb, d, ld, w, t):
    c = la.astype(np.int64)  # a copy, shifted and filled in place
    c <<= L_BITS
    c |= lb
    c <<= D_BITS
    c |= d
    c <<= LD_BITS
    c |= ld + 1
    c <<= W_BITS
    c |= w + 1
    c <<= T_BITS
    c |= t
    return c


def decode_states(c):
    t = c & ((1 << T_BITS) - 1)
    c = c >> T_BITS
    w = (c & ((1 << W_BITS) - 1)) - 1
    c = c >> W_BITS
    ld = (c & ((1 << LD_BITS) - 1)) - 1
    c = c >> LD_BITS
    d = c & 1
    c = c >> D_BITS
    lb = c & ((1 << L_BITS) - 1)
    la = c >> L_BITS
    return la, lb, d, ld, w, t


@njit(cache=True)
def _distinct_dense(keys, t_bits):
    """``distinct``'s placing of the keys on a dense range (see there), in one compiled pass each:
    (distinct keys, index of each key, True), or (empty, empty, False) where the keys spread too
    wide for it (then ``distinct`` sorts)."""
    n = keys.size
    mask = (1 << t_bits) - 1
    lo_h, hi_h, t0, t1, n_keys = -1, -1, 1 << t_bits, -1, 0
    for i in range(n):
        k = keys[i]
        if k < 0:
            continue
        hk, tk = k >> t_bits, k & mask
        if n_keys == 0 or hk < lo_h:
            lo_h = hk
        if n_keys == 0 or hk > hi_h:
            hi_h = hk
        t0 = min(t0, tk)
        t1 = max(t1, tk)
        n_keys += 1
    inv = np.zeros(n, np.intp)
    if n_keys == 0:
        return np.zeros(0, np.int64), inv, True
    h_span = hi_h - lo_h + 1
    t_span = t1 - t0 + 1
    if h_span > 2 * n_keys + (1 << 20):
        return np.zeros(0, np.int64), inv[:0], False
    number = np.zeros(h_span, np.intp)
    for i in range(n):
        if keys[i] >= 0:
            number[(keys[i] >> t_bits) - lo_h] = 1
    c = 0
    for i in range(h_span):
        if number[i]:
            number[i] = c
            c += 1
    span = c * t_span
    if span > 2 * n_keys + (1 << 16):
        return np.zeros(0, np.int64), inv[:0], False
    taken = np.zeros(span + 1, np.intp)
    for i in range(n):
        k = keys[i]
        if k < 0:
            inv[i] = span
        else:
            place = number[(k >> t_bits) - lo_h] * t_span + (k & mask) - t0
            taken[place] = 1
            inv[i] = place
    taken[span] = 1
    c = 0
    for p in range(span + 1):
        if taken[p]:
            taken[p] = c
            c += 1
    out = np.empty(c - 1, np.int64)
    for i in range(n):
        j = taken[inv[i]]
        inv[i] = j
        if keys[i] >= 0:
            out[j] = keys[i]
    return out, inv, True


def distinct(parts):
    """The distinct keys of ``parts`` (arrays of keys, laid end to end), sorted, and the index of
    each key among them (``np.unique``'s ``return_inverse``); a negative key is no key, and its
    index is the number of distinct keys. The sum of weights ``w`` per distinct key is then
    ``np.bincount(index, weights=w, minlength=len(distinct) + 1)[:-1]``."""
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.intp)
    keys = np.ascontiguousarray(np.concatenate(parts) if len(parts) != 1 else parts[0], dtype=np.int64)
    out, inv, ok = _distinct_dense(keys, T_BITS)
    if ok:
        return out, inv
    return _distinct_numpy(parts)


def _distinct_numpy(parts):
    """``distinct`` with numpy alone: the dense placing a block of keys at a time, else a stable sort."""
    blocks = [p[i : i + CHUNK] for p in parts for i in range(0, p.size, CHUNK)]
    n = sum(b.size for b in blocks)
    inv = np.empty(n, np.intp)
    if not blocks or max(int(b.max()) for b in blocks) < 0:
        inv[:] = 0
        return np.zeros(0, np.int64), inv
    mins = [int(b.min()) for b in blocks]
    valid = [None if m >= 0 else b >= 0 for b, m in zip(blocks, mins)]  # None: every key of the block

    def keys_of(i):
        return blocks[i] if valid[i] is None else blocks[i][valid[i]]

    # np.unique's work without a sort. A code is its high fields (levels, declarers, leader,
    # warning) above its time coordinate (encode_states). Numbering the high fields present in their
    # order, and placing each key at (its high fields' number) x (the span of the keys' times) +
    # (its time - the least), puts the keys in their order on a range about as long as a layer's
    # distinct states times their spread in time (a few percent of its transitions); marking the
    # places taken and counting them gives each key its index among the distinct keys. A block of
    # keys at a time, so that the only array as long as the keys is the indices. (A stable sort of
    # a long match's transitions took seconds; the indices are the same whatever the way.)
    mask = (1 << T_BITS) - 1
    lows, highs, t0, t1 = [], [], 1 << T_BITS, -1
    for i in range(len(blocks)):
        k = keys_of(i)
        if k.size:
            lows.append(int(k.min()))
            highs.append(int(k.max()))
            t = k & mask
            t0, t1 = min(t0, int(t.min())), max(t1, int(t.max()))
    h0 = min(lows) >> T_BITS
    h_span = (max(highs) >> T_BITS) - h0 + 1
    n_keys = n - sum(int(v.size - np.count_nonzero(v)) for v in valid if v is not None)
    t_span = t1 - t0 + 1
    if h_span <= 2 * n_keys + (1 << 20):
        seen = np.zeros(h_span, bool)
        for i in range(len(blocks)):
            seen[(keys_of(i) >> T_BITS) - h0] = True
        number = np.cumsum(seen, dtype=np.intp)
        span = int(number[-1]) * t_span
        if span <= 2 * n_keys + (1 << 16):
            number -= 1
            taken = np.zeros(span + 1, bool)  # the last place: no key
            at = 0
            for i, b in enumerate(blocks):
                k = keys_of(i)
                place = number[(k >> T_BITS) - h0]
                place *= t_span
                place += (k & mask) - t0
                taken[place] = True
                if valid[i] is None:
                    inv[at : at + b.size] = place
                else:
                    part = inv[at : at + b.size]
                    part[valid[i]] = place
                    part[~valid[i]] = span
                at += b.size
            taken[span] = True
            index = np.cumsum(taken, dtype=np.intp)
            index -= 1
            out = np.empty(int(index[-1]), np.int64)
            at = 0
            for i, b in enumerate(blocks):
                part = inv[at : at + b.size]
                part[...] = index[part]
                k = keys_of(i)
                out[part if valid[i] is None else part[valid[i]]] = k
                at += b.size
            return out, inv
    # otherwise (keys spread wide) np.unique's work with a stable sort: the keys of a layer's
    # transitions come in sorted runs (a source state's outcomes, in the tables' order), which a
    # stable sort (timsort) merges about three times faster than np.unique's quicksort sorts them
    keys = np.concatenate(blocks)
    no_key = keys < 0
    keys = keys[~no_key]
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    first = np.empty(keys.size, bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    index = np.empty(keys.size, np.intp)
    index[order] = np.cumsum(first) - 1
    out = ordered[first]
    inv[~no_key] = index
    inv[no_key] = out.size
    return out, inv
