"""Where a hand of the learned policy spends its time (docs/performance.md, "The learned policy").

Plays hands with ``expert`` at every seat and, at each decision, also runs the learned policy's
steps on the same position: the search's candidate lists, the features of a decision with more than
one candidate, the model's scores. Each step's cost per hand is the difference against the run
without it; the features' and the scores' cost per decision is timed by repeating the step.

    .venv/bin/python benchmarks/learned_cost.py guangxi-2012 school-2016
"""

from __future__ import annotations

import sys
import time

import numpy as np
from numba import njit

from simsuite.engine import core
from simsuite.engine import phases as ph
from simsuite.engine.core import NC
from simsuite.engine.hand import deal_and_declare
from simsuite.engine.params import BOTTOM, START_LEVEL, compile_variant
from simsuite.engine.policies import bury_three, features, follow_once, lead_once, learned
from simsuite.engine.policies.codes import D_FOLLOW, D_LEAD, EXPERT, LEARNED
from simsuite.engine.policies.model import work_for
from simsuite.engine.rng import hand_state, run_key
from simsuite.rules.variant import load_variant

HANDS = 1000


@njit
def play(P, key, hands, W, steps, reps):
    """``hands`` expert hands; at each decision the learned policy's first ``steps`` steps (1 the
    candidates, 2 their features, 3 the scores), the last of them ``reps`` times. Returns the
    decisions with more than one candidate."""
    st = ph.new_state()
    s = np.zeros(4, np.int64)
    bids = np.zeros((1, 4), np.int64)
    lead = np.zeros(NC, np.int64)
    move = np.zeros(NC, np.int64)
    forced = np.zeros(NC, np.int64)
    bury = np.zeros(NC, np.int64)
    pols = np.full(4, EXPERT, np.int64)
    cand, X = core.w_lc(W), core.w_lx(W)
    scored = 0
    for h in range(hands):
        hand_state(key, h, s)
        ph.clear_state(st)
        deal_and_declare(P, s, st, W, P[START_LEVEL], h % 4, True, pols, False, bids)
        ph.take_bottom(st)
        bury_three(EXPERT, st.hands[st.sc[ph.S_DEALER]], st.cls, st.pos, P, s, P[BOTTOM], W, bury)
        ph.apply_bury(st, bury)
        sc = st.sc
        while not ph.hand_over(sc):
            seat = ph.to_move(sc)
            kind = D_LEAD if sc[ph.S_TURN] == 0 else D_FOLLOW
            if steps >= 1:
                n = learned.candidates(P, st, seat, W, s, kind, learned.LEARNED_CANDIDATES, cand)
                if steps >= 2 and n > 1:
                    scored += 1
                    for _ in range(reps if steps == 2 else 1):
                        features.decision_features(P, st, W, seat, kind, cand, n, X, False)
                    for _ in range(reps if steps == 3 else 0):
                        learned.score_into(core.w_model(W), X, n, kind, core.w_lw(W), core.w_lk(W), core.w_lv(W))
            if kind == D_LEAD:
                lead_once(EXPERT, seat, st.hands, st.played, st.voids, st.cls, st.pos, P, st.ctx, W, s, lead)
                ph.apply_lead(P, st, W, lead, forced)
            else:
                follow_once(
                    EXPERT,
                    seat,
                    st.hands,
                    st.played,
                    st.voids,
                    st.cls,
                    st.pos,
                    P,
                    st.ctx,
                    W,
                    s,
                    st.LI,
                    st.lead,
                    st.win_c,
                    sc[ph.S_WINNER],
                    move,
                )
                ph.apply_follow(P, st, W, move)
                if sc[ph.S_TURN] == 4:
                    ph.finish_trick(st)
    return scored


def best_of_three(P, W, steps, reps) -> tuple[float, int]:
    play(P, run_key(1), 5, W, steps, reps)
    best, scored = 1e9, 0
    for _ in range(3):
        t0 = time.perf_counter()
        scored = play(P, run_key(1), HANDS, W, steps, reps)
        best = min(best, time.perf_counter() - t0)
    return best, scored


def main(ids: list[str]) -> None:
    for vid in ids:
        P = compile_variant(load_variant(vid))
        W = work_for(np.full(4, LEARNED, np.int64))
        base, _ = best_of_three(P, W, 0, 1)
        lists, _ = best_of_three(P, W, 1, 1)
        feats, scored = best_of_three(P, W, 2, 1)
        feats11, _ = best_of_three(P, W, 2, 11)
        score1, _ = best_of_three(P, W, 3, 1)
        score11, _ = best_of_three(P, W, 3, 11)
        per_hand = 1e6 / HANDS
        print(
            f"{vid}: expert's play {base * per_hand:.0f} us a hand; the candidate lists add "
            f"{(lists - base) * per_hand:.0f} us; {scored / HANDS:.0f} decisions a hand have more than one "
            f"candidate; their features cost {1e6 * (feats11 - feats) / (10 * scored):.2f} us a decision and the "
            f"scores {1e6 * (score11 - score1) / (10 * scored):.2f} us"
        )


if __name__ == "__main__":
    main(sys.argv[1:] or ["school-2016", "guangxi-2012"])
