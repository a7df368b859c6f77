"""The compiled engine against the readable rules core.

Whole hands played by the engine (``simsuite.engine``) are replayed trick by trick through the
Python rules (``order``, ``units``, ``trick``, ``declare``, ``scoring``): every deal, bid, bury,
lead, follow, trick winner, capture and outcome must be what the rules core says. Then the
engine's own promises: determinism, batch = single hands, compiled = plain Python, and the
built-in policies' order of strength.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simsuite.engine import full as F
from simsuite.engine import hand as H
from simsuite.engine import lean as L
from simsuite.engine.api import play_batch, play_many, play_one
from simsuite.engine.order import class_span, hand_tables
from simsuite.engine.params import compile_variant
from simsuite.engine.policies import bid_wish, may_bid
from simsuite.errors import IllegalPlayError
from simsuite.rules.cards import CARD_POINTS, N_CARDS, SMALL_JOKER
from simsuite.rules.declare import rule_bids
from simsuite.rules.order import NO_TRUMP, hand_order
from simsuite.rules.scoring import capture, outcome
from simsuite.rules.trick import rule_trick
from simsuite.rules.units import as_count_dict, canonical_units
from simsuite.rules.variant import known_ids, load_variant

REPO = Path(__file__).resolve().parent.parent
VARIANTS = tuple(known_ids())
POLICIES = ("random", "basic", "expert")
SEED = 20240601  # root seed of the invariant runs
SLOW_SEED = 77001  # another root for the long runs, so they add hands, not repeat them
N_HANDS = 60
N_HANDS_SLOW = 1000

BID_KINDS = {1: "declare", 2: "override", 3: "reinforce"}
CAPTURE_BY = {None: 0, "defenders": 1, "declarers": -1}


@functools.cache
def variant(vid: str):
    return load_variant(vid)


def _hand(vid: str, policy: str, seed: int, i: int):
    """Hand ``i`` of a run with root ``seed``, first drawer ``i % 4`` (as ``play_batch`` does)."""
    return play_one(variant(vid), seed, policy, first_drawer=i % 4, hand_index=i, keep=True)


@functools.lru_cache(maxsize=len(VARIANTS) * len(POLICIES) * N_HANDS)
def _checked_hand(vid: str, policy: str, seed: int, i: int):
    """``_hand``, played once for the two checks of the same hands (the rules core's replay and the
    bids); neither changes it. (The determinism tests call ``_hand`` itself.)"""
    return _hand(vid, policy, seed, i)


def _where(vid, policy, seed, i) -> str:
    return f"{vid}, policies {policy!r}, seed {seed}, hand_index {i} (first drawer {i % 4})"


# --- 1. card order ----------------------------------------------------------------------------------


@pytest.mark.parametrize("vid", VARIANTS)
def test_hand_tables_equal_hand_order(vid):
    v = variant(vid)
    P = compile_variant(v)
    trumps = [0, 1, 2, 3] + ([NO_TRUMP] if v.no_trump else [])
    for level in range(v.start_level, v.end_level + 1):
        for trump in trumps:
            cls, pos = hand_tables(P, level, trump)
            ref = hand_order(v, level, trump)
            assert cls.tolist() == ref.cls.astype(int).tolist(), f"cls differs at level {level}, trump {trump}"
            assert pos.tolist() == ref.pos.astype(int).tolist(), f"pos differs at level {level}, trump {trump}"


@pytest.mark.parametrize("vid", VARIANTS)
def test_side_suit_positions_rise_with_rank(vid):
    """``policies.basic.lead_basic`` walks each side suit from rank 12 down and relies on this: in
    every side suit, the cards that stay in it (not the level or a permanent rank) rise in position
    with their rank."""
    v = variant(vid)
    P = compile_variant(v)
    for level in range(v.start_level, v.end_level + 1):
        for trump in [0, 1, 2, 3] + ([NO_TRUMP] if v.no_trump else []):
            cls, pos = hand_tables(P, level, trump)
            for k in range(4):
                side = [int(pos[k * 13 + r]) for r in range(13) if cls[k * 13 + r] == k]
                assert side == sorted(set(side)), f"suit {k}, level {level}, trump {trump}: {side}"


@pytest.mark.parametrize("vid", VARIANTS)
def test_class_span_holds_every_card_of_its_class(vid):
    """``order.class_span`` lets the compiled loops over one class visit 13 ids instead of 54: every
    card of a side class ``k`` must be one of the ids ``13k .. 13k+12``, at every level and trump."""
    v = variant(vid)
    P = compile_variant(v)
    for level in range(v.start_level, v.end_level + 1):
        for trump in [0, 1, 2, 3] + ([NO_TRUMP] if v.no_trump else []):
            cls, _pos = hand_tables(P, level, trump)
            for c in range(N_CARDS):
                lo, hi = class_span(int(cls[c]))
                assert lo <= c < hi, f"card {c} of class {cls[c]} outside {lo}..{hi - 1} (level {level}, trump {trump})"
    assert class_span(4) == (0, N_CARDS)


@pytest.mark.parametrize("vid", VARIANTS)
def test_a_hand_that_may_not_bid_wishes_nothing_and_draws_nothing(vid):
    """The draw asks a seat for a bid only when ``may_bid`` says its hand could wish one: where it
    says no, ``bid_wish`` must return (-1, 0) and leave the generator's state as it was, for every
    policy, or skipping the call would change the deal."""
    v = variant(vid)
    P = compile_variant(v)
    rng = np.random.default_rng(14)
    asked = skipped = 0
    for _ in range(400):
        hand = np.zeros(N_CARDS, np.int64)
        for c in rng.integers(0, N_CARDS, size=int(rng.integers(1, 40))):
            hand[c] = min(hand[c] + 1, v.decks)
        level = int(rng.integers(v.start_level, v.end_level + 1))
        for pol in range(3):  # random, basic, expert
            s = np.array([1, 2, 3, 4], np.int64)
            card, n = bid_wish(pol, hand, level, P, s, int(rng.integers(1, 40)))
            if may_bid(hand, level, P):
                asked += 1
            else:
                skipped += 1
                assert (card, n) == (-1, 0) and s.tolist() == [1, 2, 3, 4], (pol, level, hand.tolist())
    assert asked > 0 and skipped > 0


# --- 2. whole hands replayed through the rules core -----------------------------------------------


def _tricks(plays: np.ndarray) -> list[range]:
    """The indices of the history rows of each trick, in order (runs of one trick number)."""
    cuts = [0, *(np.flatnonzero(plays[1:, 0] != plays[:-1, 0]) + 1).tolist(), len(plays)] if len(plays) else [0]
    return [range(i, j) for i, j in zip(cuts, cuts[1:])]


def _row_dicts(cards: np.ndarray) -> list[dict[int, int]]:
    """``as_count_dict`` of every row of ``cards``, in one pass over its nonzero entries (the same
    dicts, their cards in the same order)."""
    out = [{} for _ in range(len(cards))]
    rows, cols = np.nonzero(cards)
    for r, c, n in zip(rows.tolist(), cols.tolist(), cards[rows, cols].tolist()):
        out[r][c] = n
    return out


def check_hand(v, res, first_drawer: int, where: str, level: int | None = None) -> None:
    """Every invariant of one kept hand (see the module docstring)."""
    rec, h = res.record, res.history
    decks, hs, nb = v.decks, v.hand_size, v.bottom_size
    full = np.full(N_CARDS, decks, np.int64)
    dealer, declarers = rec["dealer"], rec["declarers"]
    forfeit = rec["forfeit"] == 1

    assert rec["error"] == 0, where
    assert rec["level"] == (v.start_level if level is None else level), where
    assert 0 <= dealer <= 3 and declarers == dealer % 2, where
    assert rec["trump"] in (0, 1, 2, 3) or (rec["trump"] == NO_TRUMP and v.no_trump), where

    # the deal: hand_size each, bottom_size in the bottom, every card of the decks once
    assert h.deal.sum(axis=1).tolist() == [hs] * 4, where
    assert int(h.bottom.sum()) == nb, where
    assert (h.deal >= 0).all() and (h.bottom >= 0).all(), where
    assert (h.deal.sum(axis=0) + h.bottom == full).all(), f"{where}: the deal is not the decks"

    # the bury: bottom_size cards out of the dealer's hand with the bottom
    with_bottom = h.deal[dealer] + h.bottom
    assert int(h.bury.sum()) == nb and (h.bury >= 0).all() and (h.bury <= with_bottom).all(), where
    assert rec["bottom_points"] == int(CARD_POINTS @ h.bury), where

    order = hand_order(v, rec["level"], rec["trump"])
    hands = {s: h.deal[s].astype(np.int64).copy() for s in range(4)}
    hands[dealer] = with_bottom - h.bury
    # The rules core reads plays and hands as count dicts (as_count_dict): each history row's is
    # made once, and each seat's hand is kept as one from trick to trick, its cards in card order
    # as as_count_dict gives them; the rules core gets copies. The rows' numbers are read at once.
    cards = h.plays[:, 4:]
    row_cards = _row_dicts(cards)
    row_n = cards.sum(axis=1).tolist()
    row_points = (cards @ CARD_POINTS).tolist()
    meta = h.plays[:, :4].tolist()  # trick, seat, kind, winner
    held = {s: as_count_dict(hands[s]) for s in range(4)}
    tricks = _tricks(h.plays)
    assert [meta[t[0]][0] for t in tricks] == list(range(len(tricks))), f"{where}: trick numbers"

    leader = dealer
    done = []  # the rows of the completed tricks' plays (kind 0)
    all_points = 0  # every completed trick's points
    defender_tricks = 0  # points of the tricks the defenders won
    penalties = 0
    throws = failed = completed = 0
    last = None  # (ruling, winning play) of the last completed trick
    for t, rows in enumerate(tricks):
        w = f"{where}, trick {t}"
        kinds = [meta[r][2] for r in rows]
        seats = [meta[r][1] for r in rows]
        throw_failed = kinds[0] == 1
        if throw_failed:
            failed += 1
            if forfeit and len(rows) == 1:
                assert t == len(tricks) - 1, f"{w}: play continues after a forfeit"
                followers = []
            else:
                assert kinds == [1, 0, 0, 0, 0], f"{w}: a failed throw must be followed by the forced play: {kinds}"
                assert seats == [leader] + [(leader + i) % 4 for i in range(4)], f"{w}: seats {seats}"
                followers = rows[2:]
        else:
            assert kinds == [0, 0, 0, 0], f"{w}: kinds {kinds}"
            assert seats == [(leader + i) % 4 for i in range(4)], f"{w}: seats {seats}, leader {leader}"
            followers = rows[1:]
        plays = [dict(row_cards[rows[0]])] + [dict(row_cards[r]) for r in followers]
        before = {s: dict(held[s]) for s in range(4)}
        try:
            ruling = rule_trick(order, leader, plays, before, declarers)
        except IllegalPlayError as exc:
            pytest.fail(f"{w}: {exc}")
        assert ruling.lead.legal, f"{w}: illegal lead {plays[0]}: {ruling.lead.reason}"
        if ruling.lead.is_throw:
            throws += 1
            assert ruling.throw is not None and ruling.throw.stands is (not throw_failed), (
                f"{w}: engine says the throw {'fails' if throw_failed else 'stands'}, the rules core "
                f"{ruling.throw.stands if ruling.throw else None}"
            )
        else:
            assert not throw_failed, f"{w}: a single unit recorded as a failed throw"
        if throw_failed:
            penalties += ruling.throw.defender_points_delta
            if forfeit and len(rows) == 1:
                assert ruling.throw.consequence == "forfeit", w
                break
            assert ruling.throw.consequence == "penalty", w
            assert row_cards[rows[1]] == ruling.throw.forced_play, (
                f"{w}: forced play {row_cards[rows[1]]}, rules core {ruling.throw.forced_play}"
            )
        for p in ruling.plays[1:]:
            assert p.legal, f"{w}: illegal follow by seat {p.seat}: {p.cards}: {p.reason}"
        kind0 = rows[1:] if throw_failed else rows
        engine_winner = [meta[r][3] for r in kind0]
        assert engine_winner == [ruling.winner] * 4, f"{w}: engine winner {engine_winner}, rules core {ruling.winner}"
        n = row_n[kind0[0]]
        assert [row_n[r] for r in kind0] == [n] * 4, f"{w}: card counts"
        points = sum(row_points[r] for r in kind0)
        assert points == ruling.points, w
        all_points += points
        if ruling.winner % 2 != declarers:
            defender_tricks += points
        for r in kind0:
            s = meta[r][1]
            mine = held[s]
            for c, m in row_cards[r].items():
                left = mine.get(c, 0) - m
                assert left >= 0, f"{w}: seat {s} plays cards it does not hold"
                if c not in mine:  # a negative count played: as_count_dict would list the card in order
                    mine[c] = left
                    held[s] = mine = dict(sorted(mine.items()))
                elif left:
                    mine[c] = left
                else:
                    del mine[c]
            done.append(r)
        completed += 1
        win_row = kind0[[meta[r][1] for r in kind0].index(ruling.winner)]
        last = (ruling, row_cards[win_row])
        leader = ruling.winner

    # the cards played in the completed tricks, and the hands after them
    done_cards, done_seats = cards[done], np.array([meta[r][1] for r in done], np.int64)
    played = done_cards.sum(axis=0)
    for s in range(4):
        hands[s] -= done_cards[done_seats == s].sum(axis=0)

    assert rec["tricks"] == completed, where
    assert rec["throws"] == throws and rec["throws_failed"] == failed, where
    assert rec["trick_points"] == defender_tricks, f"{where}: defenders' trick points"
    assert rec["penalties"] == penalties, f"{where}: penalties {rec['penalties']}, rules core {penalties}"
    if forfeit:
        assert v.throw_failure == "forfeit" and failed >= 1, where
        left = sum(hands[s] for s in range(4))
        assert (played + h.bury + left == full).all(), where
        expect = defender_tricks + penalties
        thrower = meta[tricks[-1][0]][1]
        expect = max(expect, v.takeover) if thrower % 2 == declarers else min(expect, v.takeover - v.step)
        assert (rec["capture_multiplier"], rec["capture_points"], rec["capture_by"]) == (0, 0, 0), where
        assert rec["final_points"] == expect, where
    else:
        # every card played once or buried; nobody holds a card at the end
        assert (played + h.bury == full).all(), f"{where}: cards not played exactly once"
        assert all((hands[s] == 0).all() for s in range(4)), f"{where}: cards left in hand"
        assert all_points + rec["bottom_points"] == v.total_points, where
        ruling, win_play = last
        unit_cards = max(u.n_cards for u in canonical_units(order, win_play))
        c = capture(
            v,
            winner_team=ruling.winner % 2,
            declarers=declarers,
            unit_cards=unit_cards,
            won_with_trump=ruling.winner_trump,
            lead_cards=ruling.lead_cards,
            trick_points=ruling.points,
            bottom_points=rec["bottom_points"],
        )
        got = (rec["capture_multiplier"], rec["capture_points"], rec["capture_by"])
        assert got == (c.multiplier, c.points, CAPTURE_BY[c.by]), f"{where}: capture {got}, rules core {c}"
        assert rec["final_points"] == rec["trick_points"] + rec["capture_points"] + rec["penalties"], where
    o = outcome(v, defender_points=rec["final_points"], declarers=declarers, dealer=dealer)
    got = (rec["takeover"], rec["next_declarers"], rec["next_dealer"], rec["levels_ns"], rec["levels_ew"])
    want = (int(o.takeover), o.next_declarers, o.next_dealer, *o.level_change)
    assert got == want, f"{where}: outcome {got}, rules core {want}"


def _check_many(vid, policy, seed, n):
    v = variant(vid)
    for i in range(n):
        check_hand(v, _checked_hand(vid, policy, seed, i), i % 4, _where(vid, policy, seed, i))


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("vid", VARIANTS)
def test_hands_obey_the_rules_core(vid, policy):
    _check_many(vid, policy, SEED, N_HANDS)


@pytest.mark.slow
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("vid", VARIANTS)
def test_hands_obey_the_rules_core_many(vid, policy):
    _check_many(vid, policy, SLOW_SEED, N_HANDS_SLOW)


# --- 3. bids ---------------------------------------------------------------------------------------


def check_bids(v, res, first_drawer: int, where: str, first_hand: bool = True) -> None:
    rec, h = res.record, res.history
    level = rec["level"]
    ticket = [SMALL_JOKER] if v.first_hand_needs_small_joker and first_hand else []
    bids = []
    for seat, card, n, kind in h.bids.tolist():
        assert kind in BID_KINDS, f"{where}: bid kind {kind}"
        assert card >= SMALL_JOKER or card % 13 == level, f"{where}: bid card {card} is not a level card or joker"
        assert 1 <= n <= h.deal[seat, card], f"{where}: seat {seat} bids {n} x {card} and holds {h.deal[seat, card]}"
        if ticket:
            assert h.deal[seat, SMALL_JOKER] >= 1, where
        bids.append((seat, [card] * n + ticket))
    ruling = rule_bids(v, level, bids, first_hand=first_hand, dealer=first_drawer)
    for (seat, card, n, kind), r in zip(h.bids.tolist(), ruling.bids):
        assert r.accepted and r.kind == BID_KINDS[kind], (
            f"{where}: engine {BID_KINDS[kind]} of {n} x {card} by seat {seat}; rules core {r.kind}: {r.reason}"
        )
    if rec["declared"] == 1:
        assert len(bids) >= 1, where
        got = (rec["trump"], rec["declarer_seat"], rec["dealer"])
        assert got == (ruling.trump, ruling.declarer, ruling.dealer), f"{where}: {got}, rules core {ruling}"
    else:
        assert len(bids) == 0 and rec["declarer_seat"] == -1 and rec["dealer"] == first_drawer, where
        # nobody declared: the fallback chose trump from the bottom (its order is not recorded)
        suits = [s for s in range(4) if h.bottom[13 * s : 13 * s + 13].sum() > 0]
        if v.fallback in ("first_non_joker_of_bottom", "random_bottom_card") and suits:
            assert rec["trump"] in suits, where
        elif v.fallback == "turn_up_bottom":
            joker = h.bottom[SMALL_JOKER:].sum() > 0
            assert rec["trump"] in suits or (rec["trump"] == NO_TRUMP and joker and v.no_trump), where
        elif v.fallback == "redeal":
            assert rec["redeals"] >= 200, f"{where}: nobody declared under fallback = redeal"
    if v.fallback != "redeal" and v.bottom_size > 0:
        assert rec["redeals"] == 0, where


def _check_bids_many(vid, policy, seed, n):
    v = variant(vid)
    for i in range(n):
        check_bids(v, _checked_hand(vid, policy, seed, i), i % 4, _where(vid, policy, seed, i))


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("vid", VARIANTS)
def test_bids_obey_rule_bids(vid, policy):
    _check_bids_many(vid, policy, SEED, N_HANDS)


@pytest.mark.slow
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("vid", VARIANTS)
def test_bids_obey_rule_bids_many(vid, policy):
    _check_bids_many(vid, policy, SLOW_SEED, N_HANDS_SLOW)


# --- 4. determinism -------------------------------------------------------------------------------


def _record_row(res) -> list[int]:
    return [res.record[f] for f in H.RECORD_FIELDS]


@pytest.mark.parametrize("vid", VARIANTS)
def test_same_seed_same_hand(vid):
    v = variant(vid)
    for policy in POLICIES:
        for i in (0, 3, 6):
            a = _hand(vid, policy, 99, i)
            b = _hand(vid, policy, 99, i)
            assert a.record == b.record
            for name in ("deal", "bottom", "bids", "bury", "plays"):
                assert np.array_equal(getattr(a.history, name), getattr(b.history, name)), name
    assert play_batch(v, 5, 8, "expert,random").tolist() == play_batch(v, 5, 8, "expert,random").tolist()


@pytest.mark.parametrize("vid", VARIANTS)
def test_batch_rows_equal_play_one(vid):
    v = variant(vid)
    for policy in ("random", "basic,expert"):
        for start in (0, 7):
            rows = play_batch(v, 31, 6, policy, start=start)
            for i, row in enumerate(rows.tolist()):
                one = play_one(v, 31, policy, first_drawer=(start + i) % 4, hand_index=start + i, keep=False)
                assert row == _record_row(one), f"{vid} {policy} hand {start + i}"
                kept = play_one(v, 31, policy, first_drawer=(start + i) % 4, hand_index=start + i, keep=True)
                assert row == _record_row(kept), f"{vid} {policy} hand {start + i}: keep changes the hand"


@pytest.mark.parametrize("vid", VARIANTS)
def test_batch_independent_of_split(vid):
    v = variant(vid)
    for policy in POLICIES:
        whole = play_batch(v, 12, 10, policy, start=0)
        halves = np.vstack([play_batch(v, 12, 5, policy, start=0), play_batch(v, 12, 5, policy, start=5)])
        assert whole.tolist() == halves.tolist(), policy
        tail = play_batch(v, 12, 3, policy, start=7)
        assert whole[7:].tolist() == tail.tolist(), policy


# --- 5. compiled = plain Python ----------------------------------------------------------------------

JIT_POLICIES = ("random", "basic", "expert", "expert,random")
JIT_SCRIPT = """
import json, sys
from simsuite.engine.api import play_batch
from simsuite.rules.variant import known_ids, load_variant
pols = sys.argv[1].split("/")
print(json.dumps({vid + "/" + p: play_batch(load_variant(vid), 4242, 3, p).tolist() for vid in known_ids() for p in pols}))
"""


def test_jit_and_plain_python_agree():
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        pytest.skip("this process runs without the JIT already")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    proc = subprocess.run(
        [sys.executable, "-c", JIT_SCRIPT, "/".join(JIT_POLICIES)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    plain = json.loads(proc.stdout)
    compiled = {vid + "/" + p: play_batch(variant(vid), 4242, 3, p).tolist() for vid in VARIANTS for p in JIT_POLICIES}
    assert set(plain) == set(compiled)
    for key in compiled:
        assert plain[key] == compiled[key], f"{key}: plain Python {plain[key]} != compiled {compiled[key]}"


# --- 6. policy strength (duplicate hands) -------------------------------------------------------------


def _duplicate_edge(v, strong: str, weak: str, n: int, seed: int) -> tuple[float, float]:
    """Mean and standard error of the strong team's net levels per hand, each deal played twice
    with the teams' policies swapped."""
    a = play_batch(v, seed, n, f"{strong},{weak}")  # strong sits NS
    b = play_batch(v, seed, n, f"{weak},{strong}")  # strong sits EW
    net = ((a[:, H.R_LEVELS0] - a[:, H.R_LEVELS1]) + (b[:, H.R_LEVELS1] - b[:, H.R_LEVELS0])) / 2.0
    return float(net.mean()), float(net.std(ddof=1) / np.sqrt(n))


@pytest.mark.parametrize("strong, weak, n", [("expert", "basic", 2400), ("basic", "random", 300)])
@pytest.mark.parametrize("vid", VARIANTS)
def test_policy_strength_order(vid, strong, weak, n):
    mean, se = _duplicate_edge(variant(vid), strong, weak, n, seed=314159)
    assert mean - 2.6 * se > 0, f"{vid}: {strong} vs {weak}: {mean:+.4f} levels/hand, standard error {se:.4f}"


# --- the engine's rule functions, one at a time ------------------------------------------------------
# The built-in policies never attempt a throw that fails and always declare, so whole hands never
# reach some rules; these tests call the compiled rule functions on made-up positions instead.


def _random_hands(v, rng) -> np.ndarray:
    deck = np.repeat(np.arange(N_CARDS), v.decks)
    rng.shuffle(deck)
    hands = np.zeros((4, N_CARDS), np.int64)
    for s in range(4):
        np.add.at(hands[s], deck[s * v.hand_size : (s + 1) * v.hand_size], 1)
    return hands


def _engine_throw(v, level, trump, hands, leader, lead):
    """``trick.throw_check`` on one throw: (stands, penalty cards, forced play as a dict)."""
    from simsuite.engine.core import Work
    from simsuite.engine.follow import lead_info
    from simsuite.engine.trick import throw_check

    P = compile_variant(v)
    W = Work().arrays()
    cls, pos = hand_tables(P, level, trump)
    LI = np.zeros(64, np.int64)
    lead_info(lead, cls, pos, P, W, LI)
    forced = np.zeros(N_CARDS, np.int64)
    stands, beaten, _ = throw_check(lead, hands, leader, cls, pos, P, LI, W, forced)
    return bool(stands), int(beaten), as_count_dict(forced)


@pytest.mark.parametrize("vid", VARIANTS)
def test_throw_check_matches_rule_throw(vid):
    """Random throws (several units of one class) against random hands, under the variant's own
    throw rules and with throws switched on where the variant forbids them."""
    from simsuite.engine.trick import throw_penalty
    from simsuite.rules.trick import rule_lead, rule_throw

    v = variant(vid)
    if not v.throws:
        v = v.with_overrides({"throws": True, "throw_failure": "penalty_per_card_beaten", "throw_penalty": 10})
    P = compile_variant(v)
    rng = np.random.default_rng(8080)
    seen = {True: 0, False: 0}
    for trial in range(400):
        level = int(rng.integers(v.start_level, v.end_level + 1))
        trump = int(rng.integers(-1 if v.no_trump else 0, 4))
        order = hand_order(v, level, trump)
        hands = _random_hands(v, rng)
        leader = int(rng.integers(4))
        k = int(rng.integers(5))
        mine = sorted(
            (c for c in range(N_CARDS) if order.cls[c] == k for _ in range(hands[leader, c])),
            key=lambda c: -int(order.pos[c]),
        )
        if len(mine) < 2:
            continue
        m = int(rng.integers(2, min(10, len(mine)) + 1))
        pick = mine[:m] if rng.random() < 0.5 else list(rng.choice(mine, m, replace=False))
        lead = np.zeros(N_CARDS, np.int64)
        np.add.at(lead, pick, 1)
        play = as_count_dict(lead)
        lr = rule_lead(order, play)
        if not (lr.legal and lr.is_throw):
            continue
        declarers = int(rng.integers(2))
        ref = rule_throw(
            order, lr.structure, play, leader, {s: as_count_dict(hands[s]) for s in range(4) if s != leader}, declarers
        )
        stands, beaten, forced = _engine_throw(v, level, trump, hands, leader, lead)
        where = f"{vid}: level {level}, trump {trump}, leader {leader}, throw {play}"
        assert stands == ref.stands, where
        seen[stands] += 1
        if not stands and v.throw_failure != "forfeit":
            sign = 1 if leader % 2 == declarers else -1
            assert forced == ref.forced_play, f"{where}: forced {forced}, rules core {ref.forced_play}"
            pen = sign * int(throw_penalty(P, beaten, int(lead.sum()), sum(forced.values())))
            assert pen == ref.defender_points_delta, where
    assert seen[False] > 50 and (seen[True] > 0 or v.throw_test == "absolute_max"), seen


def test_forced_play_is_the_smallest_failing_unit_at_equal_strength():
    """baiyun-2016 (per_unit, smallest_failing_unit), level 2, spades trump: N throws H2 H2 H2 D2 D2
    (a triple and a pair of off-suit level cards, equally strong); E's S2 S2 S2 beats both. The
    rules core forces the smaller failing unit, the pair D2 D2."""
    from simsuite.rules.trick import rule_lead, rule_throw

    v = variant("baiyun-2016")
    level, trump = 0, 0
    order = hand_order(v, level, trump)
    hands = np.zeros((4, N_CARDS), np.int64)
    hands[0, 13], hands[0, 26], hands[0, 1] = 3, 2, 1  # N: H2 x3, D2 x2, S3
    hands[1, 0], hands[1, 2] = 3, 1  # E: S2 x3, S4
    lead = np.zeros(N_CARDS, np.int64)
    lead[13], lead[26] = 3, 2
    play = as_count_dict(lead)
    ref = rule_throw(
        order, rule_lead(order, play).structure, play, 0, {s: as_count_dict(hands[s]) for s in (1, 2, 3)}, 0
    )
    assert ref.stands is False and ref.forced_play == {26: 2}
    stands, _, forced = _engine_throw(v, level, trump, hands, 0, lead)
    assert not stands
    assert forced == ref.forced_play


@pytest.mark.parametrize("vid", VARIANTS)
def test_capture_points_and_score_hand_match_scoring(vid):
    from simsuite.engine.scoring import capture_points, score_hand

    v = variant(vid)
    P = compile_variant(v)
    out = np.zeros(5, np.int64)
    for winner_team in (0, 1):
        for declarers in (0, 1):
            for lead_cards in range(1, 13):
                for unit_cards in range(1, lead_cards + 1):
                    for trump in (False, True):
                        for trick_points, bottom_points in ((0, 0), (25, 15), (60, 40)):
                            capture_points(
                                P,
                                winner_team,
                                declarers,
                                unit_cards,
                                trump,
                                lead_cards,
                                trick_points,
                                bottom_points,
                                out,
                            )
                            c = capture(
                                v,
                                winner_team=winner_team,
                                declarers=declarers,
                                unit_cards=unit_cards,
                                won_with_trump=trump,
                                lead_cards=lead_cards,
                                trick_points=trick_points,
                                bottom_points=bottom_points,
                            )
                            assert out[:3].tolist() == [c.multiplier, c.points, CAPTURE_BY[c.by]], c
    for points in range(-400, 100 * v.decks + 400, 5):
        for dealer in range(4):
            score_hand(P, points, dealer % 2, dealer, out)
            o = outcome(v, defender_points=points, declarers=dealer % 2, dealer=dealer)
            assert out.tolist() == [int(o.takeover), o.next_declarers, o.next_dealer, *o.level_change], (points, dealer)


def _bid_sequences(v, rng, n):
    """Random bids (seat, card, count, the bidder's small jokers) at random levels."""
    for _ in range(n):
        level = int(rng.integers(v.start_level, v.end_level + 1))
        bids = []
        for _ in range(int(rng.integers(1, 7))):
            card = int(rng.choice([s * 13 + level for s in range(4)] + [SMALL_JOKER, SMALL_JOKER + 1]))
            sj = int(rng.random() < 0.6 and card != SMALL_JOKER)
            bids.append((int(rng.integers(4)), card, int(rng.integers(1, v.decks + 1)), sj))
        yield level, bids


def _compare_bids(v, level, bids, first_hand):
    """Each bid through ``hand.bid_ok`` and ``rule_bids``: the list of disagreements."""
    P = compile_variant(v)
    names = {0: "rejected", **BID_KINDS}
    shown_so_far = []
    cur = (-1, -1, 0)
    bad = []
    for seat, card, n, sj in bids:
        hand = np.zeros(N_CARDS, np.int64)
        hand[card] = n
        hand[SMALL_JOKER] += sj
        kind = int(H.bid_ok(P, seat, card, n, hand, cur[0], cur[1], cur[2], first_hand))
        shown = [card] * n + ([SMALL_JOKER] if first_hand and v.first_hand_needs_small_joker and sj else [])
        ref = rule_bids(v, level, shown_so_far + [(seat, shown)], first_hand=first_hand).bids[-1]
        if names[kind] != ref.kind:
            bad.append((seat, card, n, sj, names[kind], ref.kind, ref.reason))
        if kind:
            shown_so_far.append((seat, shown))
            cur = (seat, card, n)
    return bad


@pytest.mark.parametrize("vid", VARIANTS)
def test_bid_ok_matches_rule_bids(vid):
    v = variant(vid)
    rng = np.random.default_rng(6060)
    for level, bids in _bid_sequences(v, rng, 300):
        for first_hand in (True, False):
            assert _compare_bids(v, level, bids, first_hand) == [], (level, bids, first_hand)


def test_first_hand_joker_bid_with_the_small_joker_ticket():
    """No shipped variant combines first_hand_needs_small_joker with joker bids; school-2016 with it."""
    v = variant("school-2016").with_overrides({"first_hand_needs_small_joker": True})
    # N holds BJ BJ and a small joker and bids the pair of big jokers (no-trump) in the opening hand
    assert _compare_bids(v, v.start_level, [(0, SMALL_JOKER + 1, 2, 1)], True) == []


@pytest.mark.parametrize("vid", ["baiyun-2016", "two-deck-2011"])
def test_override_takes_the_deal_after_the_opening_hand(vid):
    v = variant(vid).with_overrides({"override_takes_deal": True})
    overridden = 0
    for i in range(40):
        res = play_one(v, 9, "random", first_hand=False, first_drawer=i % 4, hand_index=i, keep=True)
        bids = res.history.bids.tolist()
        if any(kind == 2 and seat != bids[0][0] for seat, _, _, kind in bids):
            overridden += 1
            check_bids(v, res, i % 4, f"{vid} (override_takes_deal), seed 9, hand_index {i}", first_hand=False)
    assert overridden > 0


def test_next_can_beat_single_agrees_with_the_full_scan():
    """expert's one-card follow asks ``next_can_beat_single`` with the unseen cards' highest positions
    found once, instead of ``next_can_beat``'s pass over the cards per candidate: the answers agree."""
    from simsuite.engine.policies.common import next_can_beat, next_can_beat_single

    P = compile_variant(load_variant("school-2016"))
    rng = np.random.default_rng(14)
    checked = 0
    for _ in range(400):
        level, trump = int(rng.integers(13)), int(rng.integers(-1, 4))
        cls, pos = hand_tables(P, level, trump)
        unseen = rng.integers(0, 3, 54) * (rng.random(54) < 0.3)
        voids = (rng.random((4, 5)) < 0.3).astype(np.int64)
        k, opp, t = int(rng.integers(5)), int(rng.integers(-1, 4)), int(rng.integers(2))
        top = int(rng.integers(40))
        hi = [max([int(pos[c]) for c in range(54) if unseen[c] > 0 and cls[c] == kk] or [-1]) for kk in (k, 4)]
        full = next_can_beat(0, t, top, 1, k, opp, voids, unseen.astype(np.int64), cls, pos)
        assert next_can_beat_single(t, top, k, opp, voids, hi[0], hi[1]) == full
        checked += bool(full)
    assert 40 < checked < 360  # both answers occur


def test_work_buffer_views_are_the_regions_work_names():
    """The compiled accessors (``core.w_*``, built by the ``core.view`` intrinsic) and ``Work``'s
    Python views see the same memory: a write through one shows in the other, at the same place."""
    from numba import njit

    from simsuite.engine import core

    names = [name for name, _ in core.WORK_LAYOUT]
    getters = [getattr(core, "w_" + name.lower()) for name in names]

    def region_of(g):
        @njit
        def region(W):
            return g(W)

        return region

    assert len(getters) == 23
    work = core.Work()
    W = work.arrays()
    for i, (name, shape) in enumerate(core.WORK_LAYOUT):
        region = region_of(getters[i])(W)
        assert region.shape == shape and region.flags.c_contiguous
        last = tuple(n - 1 for n in shape)
        region[last] = 1000 + i
        region[(0,) * len(shape)] = 2000 + i
        own = getattr(work, name)
        if region.dtype == np.float64:  # the learned policy's scores and weights: float64 bits in the int64 words
            own = own.view(np.float64)
        assert own[last] == 1000 + i and own[(0,) * len(shape)] == 2000 + i
        assert np.shares_memory(region, own)
    assert W.shape == (core.WORK_SIZE,)


def test_numba_alias_analysis_runs_to_a_fixed_point():
    # Without it numba's dead-code elimination, after the hand loop's inlined decision overloads,
    # dropped st.voids[seat, k] = 1: the lean loop played school-2016 seed 20240601 hand 34 wrongly
    # (engine package docstring; docs/performance.md, "Compilation"). That hand, plain Python against
    # compiled, is also among the hands test_hands_obey_the_rules_core checks against the rules core.
    from numba.core import ir_utils

    import simsuite.engine as engine

    assert engine.alias_fixed_point()
    assert getattr(ir_utils.find_potential_aliases, "simsuite_fixed_point", False)
    a = play_one(variant("school-2016"), 20240601, "expert", first_drawer=2, hand_index=34, keep=True)
    assert len(a.history.plays) == 84 and a.record["trick_points"] == 85, "the hand of the lost voids"


@pytest.mark.full_loop
@pytest.mark.parametrize("vid", ["school-2016", "guangxi-2012"])
def test_lean_and_full_loops_play_the_same_hands(vid):
    # the loops compiled for random/basic/expert only (full=None) against those that can play every
    # policy (policies.FULL): the same cards, hand for hand, for the three heuristics
    from simsuite.engine.core import Work
    from simsuite.engine.names import policy_codes
    from simsuite.engine.policies import FULL
    from simsuite.engine.rng import run_key

    v = variant(vid)
    n = 40
    levels = np.full(n, v.start_level, np.int64)
    drawers = np.arange(n, dtype=np.int64) % 4
    for mix in ("expert,basic", "random,expert"):
        pols = policy_codes(mix)
        out = [np.zeros((n, H.N_RECORD), np.int64) for _ in range(2)]
        for full, rows in zip((None, FULL), out):
            play_many(compile_variant(v), run_key(7), 0, levels, drawers, True, pols, Work().arrays(), rows, full)
        assert np.array_equal(out[0], out[1]), f"{vid} {mix}: the lean loop plays differently"


@pytest.mark.slow  # compiles the learned set, which the suite otherwise leaves to the full one (tests/conftest.py)
@pytest.mark.parametrize("vid", ["school-2016", "guangxi-2012"])
def test_learned_and_full_sets_play_the_same_hands(vid):
    # the loops compiled for random/basic/expert/learned (policies.LEARNED_SET, what make demo plays)
    # against those that can play every policy (policies.FULL): the same cards, hand for hand
    from simsuite.engine.names import policy_codes
    from simsuite.engine.policies import FULL, LEARNED_SET
    from simsuite.engine.policies.model import work_for
    from simsuite.engine.rng import run_key

    v = variant(vid)
    n = 40
    levels = np.full(n, v.start_level, np.int64)
    drawers = np.arange(n, dtype=np.int64) % 4
    for mix in ("learned,basic", "expert,learned", "learned"):
        pols = policy_codes(mix)
        out = [np.zeros((n, H.N_RECORD), np.int64) for _ in range(2)]
        for full, rows in zip((LEARNED_SET, FULL), out):
            play_many(compile_variant(v), run_key(7), 0, levels, drawers, True, pols, work_for(pols), rows, full)
        assert np.array_equal(out[0], out[1]), f"{vid} {mix}: the learned set plays differently"


def _every_path_once(run, hand, matches: str, hands: str, bury: str, one: str, also=lambda v: None) -> None:
    """Play a policy set's match, hand and bury loops, a trace's hand and ``also(variant)``; ``run``
    (``engine.lean.run`` or ``engine.full.run``) and the trace's ``hand`` must each have compiled once."""
    from simsuite.analysis.bury import bury_rows
    from simsuite.sim.match import play_match_batch

    if not hasattr(run, "signatures"):
        pytest.skip("NUMBA_DISABLE_JIT: nothing compiles")
    v = variant("school-2016")
    play_match_batch(v, 3, 0, 1, matches, max_hands=2)
    play_batch(v, 3, 2, hands)
    bury_rows(v, bury, 2, 3)
    play_one(v, 3, one)  # the hand from Python, for a trace
    also(v)
    assert len(run.signatures) == 1, run.signatures
    assert len(hand.signatures) == 1, hand.signatures


@pytest.mark.full_loop
def test_the_full_set_compiles_once_whoever_calls_it():
    # engine.full: the match, hand and bury loops with every policy and the Python path's decision
    # are one compiled function, run; each caller fills the other operations' arguments with
    # placeholders of the same types, so that it compiles once (a second copy would cost a minute)
    from simsuite.play.builtin import BuiltinPolicy
    from simsuite.play.pyhand import play_hand_py

    _every_path_once(
        F.run,
        H.play_hand_full,
        "expert-v1,search-k1-c2",
        "expert-v1,basic",
        "search-k1-c2",
        "expert-v1",
        lambda v: play_hand_py(v, 3, [BuiltinPolicy("expert-v1") for _ in range(4)]),
    )  # the decision


@pytest.mark.slow  # the learned set's compile (tests/conftest.py)
def test_the_learned_set_compiles_once_whoever_calls_it(monkeypatch):
    # engine.lean.run_learned: the same for learned with the three heuristics (make demo's play)
    monkeypatch.delenv("SIMSUITE_LEARNED_IN_FULL", raising=False)
    _every_path_once(L.run_learned, H.play_hand_learned, "learned,basic", "learned", "learned", "learned")


def test_the_lean_set_compiles_once_whoever_calls_it():
    # engine.lean: the same for random, basic and expert (about half a minute a copy)
    _every_path_once(L.run, H.play_hand, "expert,basic", "random,basic", "expert", "basic")


def test_a_run_argument_that_does_not_exist_is_named():
    # engine.lean.arguments fills run's arguments by name: a misspelt one must not become a placeholder
    with pytest.raises(TypeError, match=r"not an argument of run: \['levls'\]"):
        L.arguments(L.ARGS, P=np.zeros(1, np.int64), levls=np.zeros(1, np.int64))
    args = L.arguments(L.FULL_ARGS, P="P", W="W", kind=2)  # P and W: every operation passes them
    assert len(args) == len(L.FULL_ARGS) and args[:2] == ("P", "W") and args[-2] == 2
