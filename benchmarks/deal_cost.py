"""What the deal costs per hand: the shuffle alone, and deal-and-declare with the variant's own
bidding and with concealed bidding (four bid offers after the draw instead of dozens during it), in
compiled loops over many hands. Used for the bid figures of docs/performance.md ("Twice the speed,
third change").

    python benchmarks/deal_cost.py [--variant school-2016] [--policy basic] [--hands 100000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from simsuite.engine import hand as H
from simsuite.engine import phases as ph
from simsuite.engine.core import Work, as_bool, w_hl
from simsuite.engine.names import policy_codes
from simsuite.engine.params import BIDDING, DECKS, compile_variant
from simsuite.engine.rng import hand_state, run_key
from simsuite.rules.variant import load_variant


@njit
def shuffles(P, key, n, st, W):
    state = np.zeros(4, np.int64)
    deck = w_hl(W)[0][: 54 * P[DECKS]]
    total = 0
    for i in range(n):
        hand_state(key, i, state)
        ph.start_deal(P, state, st, deck)
        total += deck[0]
    return total


@njit
def deals(P, key, n, st, W, pols, level):
    state = np.zeros(4, np.int64)
    bids = np.zeros((1, 4), np.int64)
    total = 0
    for i in range(n):
        hand_state(key, i, state)
        ph.clear_state(st)
        H.deal_and_declare(P, state, st, W, level, i % 4, as_bool(True), pols, as_bool(False), bids)
        total += st.sc[0]
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="school-2016")
    ap.add_argument("--policy", default="basic")
    ap.add_argument("--hands", type=int, default=100000)
    a = ap.parse_args()
    v = load_variant(a.variant)
    P = compile_variant(v)
    concealed = P.copy()
    concealed[BIDDING] = 1
    W = Work().arrays()
    st = ph.new_state()
    pols = policy_codes(a.policy)
    key = run_key(1)
    shuffles(P, key, 10, st, W)  # compile
    deals(P, key, 10, st, W, pols, v.start_level)
    n = a.hands
    t = time.perf_counter()
    shuffles(P, key, n, st, W)
    shuffle_us = (time.perf_counter() - t) / n * 1e6
    t = time.perf_counter()
    deals(P, key, n, st, W, pols, v.start_level)
    own_us = (time.perf_counter() - t) / n * 1e6
    t = time.perf_counter()
    deals(concealed, key, n, st, W, pols, v.start_level)
    concealed_us = (time.perf_counter() - t) / n * 1e6
    print(
        f"{a.variant}, {a.policy}, {n:,} hands: shuffle {shuffle_us:.2f} us, deal and declare {own_us:.2f} us "
        f"(bidding as the variant says), {concealed_us:.2f} us with concealed bidding"
    )


if __name__ == "__main__":
    main()
