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

from simsuite.cards import CARD_POINTS, N_CARDS, SMALL_JOKER
from simsuite.declare import rule_bids
from simsuite.engine import hand as H
from simsuite.engine.api import play_batch, play_one
from simsuite.engine.core import hand_tables
from simsuite.engine.params import compile_variant
from simsuite.errors import IllegalPlayError
from simsuite.order import NO_TRUMP, hand_order
from simsuite.scoring import capture, outcome
from simsuite.trick import rule_trick
from simsuite.units import as_count_dict, canonical_units
from simsuite.variant import known_ids, load_variant

REPO = Path(__file__).resolve().parent.parent
VARIANTS = tuple(known_ids())
POLICIES = ("random", "basic", "expert")
SEED = 20240601  # root seed of the invariant runs
SLOW_SEED = 77001  # another root for the long runs, so they add hands, not repeat them
N_HANDS = 60
N_HANDS_SLOW = 1000

BID_KINDS = {1: "declare", 2: "override", 3: "reinforce"}
CAPTURE_BY = {None: 0, "defenders": 1, "declarers": -1}


@pytest.fixture(autouse=True)
def _slow_only_when_asked(request):
    """The ``slow`` tests run only when the marker expression names them (``-m slow``)."""
    if request.node.get_closest_marker("slow") and "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("slow: run with -m slow")


@functools.lru_cache(maxsize=None)
def variant(vid: str):
    return load_variant(vid)


def _hand(vid: str, policy: str, seed: int, i: int):
    """Hand ``i`` of a run with root ``seed``, first drawer ``i % 4`` (as ``play_batch`` does)."""
    return play_one(variant(vid), seed, policy, first_drawer=i % 4, hand_index=i, keep=True)


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


# --- 2. whole hands replayed through the rules core -----------------------------------------------


def _tricks(plays: np.ndarray) -> list[np.ndarray]:
    """History rows grouped by trick, in order."""
    out = []
    i = 0
    while i < len(plays):
        j = i
        while j < len(plays) and plays[j, 0] == plays[i, 0]:
            j += 1
        out.append(plays[i:j])
        i = j
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
    tricks = _tricks(h.plays)
    assert [int(t[0, 0]) for t in tricks] == list(range(len(tricks))), f"{where}: trick numbers"

    leader = dealer
    played = np.zeros(N_CARDS, np.int64)
    all_points = 0  # every completed trick's points
    defender_tricks = 0  # points of the tricks the defenders won
    penalties = 0
    throws = failed = completed = 0
    last = None  # (ruling, winning play) of the last completed trick
    for t, rows in enumerate(tricks):
        w = f"{where}, trick {t}"
        kinds = rows[:, 2].tolist()
        seats = rows[:, 1].tolist()
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
        plays = [as_count_dict(rows[0, 4:])] + [as_count_dict(r[4:]) for r in followers]
        before = {s: as_count_dict(hands[s]) for s in range(4)}
        try:
            ruling = rule_trick(order, leader, plays, before, declarers)
        except IllegalPlayError as exc:
            pytest.fail(f"{w}: {exc}")
        assert ruling.lead.legal, f"{w}: illegal lead {plays[0]}: {ruling.lead.reason}"
        if ruling.lead.is_throw:
            throws += 1
            assert ruling.throw is not None and ruling.throw.stands is (not throw_failed), (
                f"{w}: engine says the throw {'fails' if throw_failed else 'stands'}, the rules core "
                f"{ruling.throw.stands if ruling.throw else None}")
        else:
            assert not throw_failed, f"{w}: a single unit recorded as a failed throw"
        if throw_failed:
            penalties += ruling.throw.defender_points_delta
            if forfeit and len(rows) == 1:
                assert ruling.throw.consequence == "forfeit", w
                break
            assert ruling.throw.consequence == "penalty", w
            assert as_count_dict(rows[1, 4:]) == ruling.throw.forced_play, (
                f"{w}: forced play {as_count_dict(rows[1, 4:])}, rules core {ruling.throw.forced_play}")
        for p in ruling.plays[1:]:
            assert p.legal, f"{w}: illegal follow by seat {p.seat}: {p.cards}: {p.reason}"
        kind0 = rows[1:] if throw_failed else rows
        engine_winner = kind0[:, 3].tolist()
        assert engine_winner == [ruling.winner] * 4, f"{w}: engine winner {engine_winner}, rules core {ruling.winner}"
        n = int(kind0[0, 4:].sum())
        assert [int(r[4:].sum()) for r in kind0] == [n] * 4, f"{w}: card counts"
        points = int(sum(CARD_POINTS @ r[4:] for r in kind0))
        assert points == ruling.points, w
        all_points += points
        if ruling.winner % 2 != declarers:
            defender_tricks += points
        for r in kind0:
            s = int(r[1])
            hands[s] -= r[4:]
            assert (hands[s] >= 0).all(), f"{w}: seat {s} plays cards it does not hold"
            played += r[4:]
        completed += 1
        win_row = kind0[[int(r[1]) for r in kind0].index(ruling.winner)]
        last = (ruling, as_count_dict(win_row[4:]))
        leader = ruling.winner

    assert rec["tricks"] == completed, where
    assert rec["throws"] == throws and rec["throws_failed"] == failed, where
    assert rec["trick_points"] == defender_tricks, f"{where}: defenders' trick points"
    assert rec["penalties"] == penalties, f"{where}: penalties {rec['penalties']}, rules core {penalties}"
    if forfeit:
        assert v.throw_failure == "forfeit" and failed >= 1, where
        left = sum(hands[s] for s in range(4))
        assert (played + h.bury + left == full).all(), where
        expect = defender_tricks + penalties
        thrower = int(tricks[-1][0, 1])
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
        c = capture(v, winner_team=ruling.winner % 2, declarers=declarers, unit_cards=unit_cards,
                    won_with_trump=ruling.winner_trump, lead_cards=ruling.lead_cards,
                    trick_points=ruling.points, bottom_points=rec["bottom_points"])
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
        check_hand(v, _hand(vid, policy, seed, i), i % 4, _where(vid, policy, seed, i))


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
            f"{where}: engine {BID_KINDS[kind]} of {n} x {card} by seat {seat}; rules core {r.kind}: {r.reason}")
    if rec["declared"] == 1:
        assert len(bids) >= 1, where
        got = (rec["trump"], rec["declarer_seat"], rec["dealer"])
        assert got == (ruling.trump, ruling.declarer, ruling.dealer), f"{where}: {got}, rules core {ruling}"
    else:
        assert len(bids) == 0 and rec["declarer_seat"] == -1 and rec["dealer"] == first_drawer, where
        # nobody declared: the fallback chose trump from the bottom (its order is not recorded)
        suits = [s for s in range(4) if h.bottom[13 * s: 13 * s + 13].sum() > 0]
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
        check_bids(v, _hand(vid, policy, seed, i), i % 4, _where(vid, policy, seed, i))


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
from simsuite.variant import known_ids, load_variant
from simsuite.engine.api import play_batch
pols = sys.argv[1].split("/")
print(json.dumps({vid + "/" + p: play_batch(load_variant(vid), 4242, 3, p).tolist() for vid in known_ids() for p in pols}))
"""


def test_jit_and_plain_python_agree():
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        pytest.skip("this process runs without the JIT already")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    proc = subprocess.run([sys.executable, "-c", JIT_SCRIPT, "/".join(JIT_POLICIES)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
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
