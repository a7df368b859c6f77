"""Where `expert` and `search` part: which side's play, and which decision, makes `search`'s
declarers hold more often than `expert`'s (docs/policies.md).

    .venv/bin/python benchmarks/gap_check.py [--variant huizhou] [--deals 200] [--hands 60] [--seed 1]

Two measurements, every figure with its n and a 95% interval:

1. **Which side.** The same deals in four seatings: expert or search for the declaring team,
   expert or search for the defenders (the two mixed tables seat `search` at N-S and then at E-W;
   a hand counts under the pairing of whoever declared it). The take-over rate and defender points
   of each of the four (declarers, defenders) cells say whose play the self-play gap comes from.
2. **Which decision.** `expert` plays every seat of ``--hands`` hands; at each decision `search`
   weighs its candidates (expert's own choice always among them, as ``search`` builds them). When
   search prefers another candidate, both are played out again on fresh sampled deals, so the
   estimate of what expert's choice costs (in levels, for the mover's team) is not biased by the
   selection. The cost is summed by side, decision and stage of the hand.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

import numpy as np

from simsuite.analysis.stats import mean_ci, wilson
from simsuite.engine import hand as H
from simsuite.engine import phases as ph
from simsuite.engine.api import hand_states
from simsuite.engine.core import NC, POINTS, Work
from simsuite.engine.names import policy_codes
from simsuite.engine.params import compile_variant
from simsuite.engine.policies import search
from simsuite.engine.policies.codes import D_BURY, D_FOLLOW, D_LEAD, DECISION_NAMES
from simsuite.rules.cards import format_cards
from simsuite.rules.variant import load_variant
from simsuite.sim.hands import play_hands

KINDS = DECISION_NAMES
END_CARDS = 8  # the last 8 cards of a hand: the stage where the last trick's capture is planned


def _share(x: np.ndarray) -> str:
    e = wilson(int(x.sum()), x.size)
    return f"{100 * e.value:5.1f}% [{100 * e.low:.1f}, {100 * e.high:.1f}] n={x.size}"


def _mean(x: np.ndarray) -> str:
    e = mean_ci(x.astype(float))
    return f"{e.value:6.1f} [{e.low:.1f}, {e.high:.1f}]"


def which_side(v, deals: int, seed: int, jobs: int) -> None:
    """Take-over and defender points by (declarers' policy, defenders' policy)."""
    cells: dict[tuple[str, str], list[np.ndarray]] = defaultdict(list)
    for ns, ew in (("expert", "expert"), ("search", "search"), ("search", "expert"), ("expert", "search")):
        chunk = 4 if "search" in (ns, ew) else 250
        r = play_hands(v, seed, deals, f"{ns},{ew}", jobs, chunk)
        decl = r[:, H.R_DECLARERS]
        for team, (dp, fp) in ((0, (ns, ew)), (1, (ew, ns))):
            cells[(dp, fp)].append(r[decl == team])
    print(f"\n{v.id}: {deals} deals in each of four seatings; a hand counts under (declarers, defenders)")
    print(f"  {'declarers':<9} {'defenders':<9} {'take-over':<28} defender points")
    for key in (("expert", "expert"), ("search", "expert"), ("expert", "search"), ("search", "search")):
        r = np.concatenate(cells[key])
        print(f"  {key[0]:<9} {key[1]:<9} {_share(r[:, H.R_TAKEOVER] != 0):<28} {_mean(r[:, H.R_FINAL_POINTS])}")


def _stage(st, hand_size: int) -> str:
    left = st.sc[ph.S_CARDS_LEFT]
    if left <= END_CARDS:
        return "end"
    return "early" if left > hand_size // 2 else "middle"


def which_decision(v, hands: int, seed: int, samples: int, show: int) -> None:
    P = compile_variant(v)
    W = Work().arrays()
    code = search.search_code(samples, search.MAX_CANDIDATES)
    check = search.search_code(4 * samples, 2)
    pols = policy_codes("expert")
    cand = np.zeros((search.MAX_CANDIDATES, NC), np.int64)
    stats = np.zeros((search.MAX_CANDIDATES, 3), np.float64)
    pair = np.zeros((2, NC), np.int64)
    pstats = np.zeros((2, 3), np.float64)
    out = np.zeros(NC, np.int64)
    forced = np.zeros(NC, np.int64)
    cost: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    worst: list[tuple[float, str]] = []
    h_bids = np.zeros((H.MAX_BIDS, 4), np.int64)
    states = hand_states(seed, 0, hands)
    for i in range(hands):
        s = states[i].copy()
        st = ph.new_state()
        H.deal_and_declare(P, s, st, W, v.start_level, i % 4, True, pols, False, h_bids)
        ph.take_bottom(st)

        def judge(kind: int, seat: int) -> np.ndarray:
            n = search.decide(P, st, code, W, s, kind, out, cand, stats)
            mine = cand[0].copy()  # expert's own choice: search's first candidate
            role = "declarers" if seat % 2 == st.sc[ph.S_DECLARERS] else "defenders"
            key = (role, KINDS[kind], "bury" if kind == D_BURY else _stage(st, v.hand_size))
            loss = 0.0
            if n > 1 and not np.array_equal(out, mine):
                pair[0], pair[1] = out, mine
                search.evaluate(P, st, seat, check, W, s, kind, pair, 2, pstats)
                if pstats[0, 1] > 0 and pstats[1, 1] > 0:
                    loss = (pstats[0, 0] / pstats[0, 1] - pstats[1, 0] / pstats[1, 1]) / search.LEVEL_VALUE
                    pts = int((POINTS * mine).sum()), int((POINTS * out).sum())
                    worst.append(
                        (
                            loss,
                            f"hand {i}, {key}, {st.sc[ph.S_CARDS_LEFT]} cards left: expert "
                            f"{format_cards(np.repeat(np.arange(NC), mine), sort=False)} ({pts[0]} pts), search "
                            f"{format_cards(np.repeat(np.arange(NC), out), sort=False)} ({pts[1]} pts)",
                        )
                    )
            cost[key].append(loss)
            return mine

        if v.bottom_size > 0:
            bury = judge(D_BURY, st.sc[ph.S_DEALER])
            ph.apply_bury(st, bury)
        while not ph.hand_over(st.sc):
            seat = ph.to_move(st.sc)
            if st.sc[ph.S_TURN] == 0:
                lead = judge(D_LEAD, seat)
                if ph.apply_lead(P, st, W, lead, forced) == ph.LEAD_FORFEIT:
                    break
            else:
                play = judge(D_FOLLOW, seat)
                ph.apply_follow(P, st, W, play)
                if st.sc[ph.S_TURN] == 4:
                    ph.finish_trick(st)
    print(
        f"\n{v.id}: expert's decisions in {hands} self-play hands, judged by search-k{samples} "
        f"(re-checked on {4 * samples} fresh deals); cost in levels for the mover's team"
    )
    print(
        f"  {'side':<9} {'decision':<7} {'stage':<7} {'decisions':>9} {'differ':>7} "
        f"{'cost per hand':<28} cost per decision"
    )
    rows = sorted(cost.items(), key=lambda kv: -sum(kv[1]))
    for (role, kind, stage), xs in rows:
        x = np.array(xs)
        e = mean_ci(x)
        lo, hi = e.low * x.size / hands, e.high * x.size / hands
        print(
            f"  {role:<9} {kind:<7} {stage:<7} {x.size:>9} {int((x != 0).sum()):>7} "
            f"{x.sum() / hands:+.4f} [{lo:+.4f}, {hi:+.4f}]   {e.value:+.5f}"
        )
    worst.sort(key=lambda t: -t[0])
    print(f"\n  the {show} decisions search judges costliest:")
    for loss, text in worst[:show]:
        print(f"  {loss:+.3f}  {text}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", action="append", default=None)
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--hands", type=int, default=60)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--show", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--skip-sides", action="store_true")
    a = ap.parse_args()
    for vid in a.variant or ["huizhou", "baiyun-2016"]:
        v = load_variant(vid)
        t = time.perf_counter()
        if not a.skip_sides:
            which_side(v, a.deals, a.seed, a.jobs)
        if a.hands:
            which_decision(v, a.hands, a.seed, a.samples, a.show)
        print(f"  ({time.perf_counter() - t:.0f} s)")


if __name__ == "__main__":
    main()
