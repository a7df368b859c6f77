"""The compiled rules against the readable rules core on random positions: lead structures
(caps and unit counts), best follow profiles, the legality of the engine's chosen follows, and
trick winners, for single-unit leads and throws of every variant."""

from __future__ import annotations

import numpy as np
import pytest

from simsuite.engine import core
from simsuite.engine.follow import best_sets, lead_info
from simsuite.engine.order import hand_tables
from simsuite.engine.params import compile_variant
from simsuite.engine.trick import beats, contender
from simsuite.engine.units import build_units
from simsuite.rules.follow import best_profile, check_follow, lead_structure
from simsuite.rules.order import hand_order
from simsuite.rules.trick import rule_trick
from simsuite.rules.units import as_count_dict
from simsuite.rules.variant import known_ids, load_variant


def _deal(v, rng):
    deck = np.repeat(np.arange(54), v.decks)
    rng.shuffle(deck)
    hs = np.zeros((4, 54), np.int64)
    for i in range(4 * v.hand_size):
        hs[i % 4, deck[i]] += 1
    return hs


@pytest.mark.parametrize("vid", known_ids())
def test_engine_follow_profiles_and_winners_match_the_rules_core(vid):
    v = load_variant(vid)
    P = compile_variant(v)
    work = core.Work()
    W = work.arrays()
    rng = np.random.default_rng(2016)
    checked = {"profiles": 0, "throws": 0, "tricks": 0}
    for _ in range(60):
        levels = [lv for lv in range(v.start_level, 13) if lv not in v.permanent_trump_ranks]
        level = int(rng.choice(levels))
        trump = -1 if (v.no_trump and rng.random() < 0.2) else int(rng.integers(0, 4))
        order = hand_order(v, level, trump)
        cls, pos = hand_tables(P, level, trump)
        hs = _deal(v, rng)
        leader, k = int(rng.integers(4)), int(rng.integers(5))
        mine = [c for c in range(54) if hs[leader, c] and cls[c] == k]
        if not mine:
            continue
        lead = np.zeros(54, np.int64)
        if rng.random() < 0.5 or not v.throws:
            n_units = build_units(hs[leader], cls, pos, k, P, 20, 1, W)
            u = int(rng.integers(n_units))
            for s in range(work.U_len[u]):
                lead[work.U_card[u, s]] += work.U_w[u, s]
        else:
            for c in rng.choice(mine, size=min(len(mine), int(rng.integers(2, 7))), replace=False):
                lead[c] += int(rng.integers(1, hs[leader, c] + 1))
        LI = np.zeros(64, np.int64)
        lead_info(lead, cls, pos, P, W, LI)
        ref = lead_structure(order, as_count_dict(lead))
        if len(ref.units) > 1 and not v.throws:
            continue
        assert LI[19] == len(ref.units)
        assert tuple(int(x) for x in LI[12 : 12 + LI[4]]) == tuple(ref.caps[f] for f in ref.fields)
        checked["throws"] += len(ref.units) > 1
        plays = [lead]
        n = int(lead.sum())
        for i in range(1, 4):
            seat = (leader + i) % 4
            hand = hs[seat]
            inclass = hand * (cls == k)
            play = np.zeros(54, np.int64)
            if inclass.sum() <= n:
                play += inclass
                need = n - int(inclass.sum())
                for c in range(54):
                    while need and hand[c] - play[c] > 0:
                        play[c] += 1
                        need -= 1
            else:
                best = np.zeros(7, np.int64)
                nf = best_sets(inclass, cls, pos, P, LI, W, best)
                assert tuple(int(x) for x in best[:nf]) == best_profile(order, as_count_dict(inclass), n, ref)
                checked["profiles"] += 1
                r = int(rng.integers(work.ints[0]))
                for j in range(work.rec_n[r]):
                    u = work.rec[r, j]
                    for s in range(work.U_len[u]):
                        play[work.U_card[u, s]] += work.U_w[u, s]
                need = n - int(play.sum())
                for c in rng.permutation(54):
                    while need and inclass[c] - play[c] > 0:
                        play[c] += 1
                        need -= 1
            ruling = check_follow(order, ref, as_count_dict(hand), as_count_dict(play))
            assert ruling.legal, ruling.reason
            plays.append(play)
        hands = {s: as_count_dict(hs[s]) for s in range(4)}
        trick = rule_trick(order, leader, [as_count_dict(p) for p in plays], hands, 0)
        if trick.throw is not None and trick.throw.stands is False:
            continue
        claim, cur = np.zeros(3, np.int64), np.zeros(3, np.int64)
        contender(plays[0], cls, pos, P, LI, W, True, claim)
        winner = leader
        for i in range(1, 4):
            if contender(plays[i], cls, pos, P, LI, W, False, cur) and beats(cur, claim):
                claim[:] = cur
                winner = (leader + i) % 4
        assert winner == trick.winner
        checked["tricks"] += 1
    assert checked["profiles"] > 20 and checked["tricks"] > 20
    assert checked["throws"] > 0 or not v.throws
