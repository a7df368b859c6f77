"""The trace of a hand: real hands agree with their records; a hand-built history covers the
rare paths (nobody declares, a failed throw with its penalty, a forfeit)."""

from __future__ import annotations

import numpy as np
import pytest

from simsuite.engine.api import HandHistory, HandResult, play_one
from simsuite.engine.hand import RECORD_FIELDS
from simsuite.report.trace import format_trace, sorted_cards, walk_tricks
from simsuite.rules.cards import format_card, parse_cards
from simsuite.rules.order import hand_order
from simsuite.rules.variant import load_variant


def vec(text: str) -> np.ndarray:
    out = np.zeros(54, np.int64)
    for c in parse_cards(text):
        out[c] += 1
    return out


@pytest.mark.parametrize("policies", ["expert,basic", "random"])
def test_tricks_agree_with_the_record(variant_id, policies):
    v = load_variant(variant_id)
    for seed in range(3):
        r = play_one(v, seed, policies, keep=True)
        tricks = walk_tricks(v, r)
        assert len(tricks) == r.record["tricks"]
        assert [t.number for t in tricks] == list(range(1, len(tricks) + 1))
        assert tricks[-1].defenders_after == r.record["trick_points"]
        assert all(len([p for p in t.plays if not p.failed_throw]) == 4 for t in tricks)
        # every card dealt, plus the bottom, minus the bury, is played exactly once
        played = np.zeros(54, np.int64)
        for t in tricks:
            for p in t.plays:
                if not p.failed_throw:
                    for c, n in p.cards.items():
                        played[c] += n
        assert (played == r.history.deal.sum(axis=0) + r.history.bottom - r.history.bury).all()


def test_deal_is_sorted_trump_first_strongest_first():
    v = load_variant("two-deck-2011")
    order = hand_order(v, 0, 1)  # level 2, hearts trump
    cards = sorted_cards(order, {c: 1 for c in parse_cards("S3 HA C2 BJ H2 SA D5 H3 SJ")})
    assert " ".join(format_card(c) for c in cards) == "BJ SJ H2 C2 HA H3 SA S3 D5"


def synthetic(variant_id: str, declared: bool) -> tuple:
    """A two-trick hand-built history: N (declarers NS) throws HA HK; E holds HA, so it fails."""
    v = load_variant(variant_id)
    rec = dict.fromkeys(RECORD_FIELDS, 0)
    rec.update(
        dealer=0,
        declarers=0,
        level=0,
        trump=0,
        declared=int(declared),
        declarer_seat=0 if declared else -1,
        tricks=2,
        throws=1,
        throws_failed=1,
        trick_points=10,
        final_points=20,
        penalties=10,
        next_dealer=2,
        next_declarers=0,
        levels_ns=1,
    )
    deal = np.stack([vec("HA HK S5"), vec("HA H10 S6"), vec("H3 H4 S7"), vec("H5 H6 S8")])
    plays = [
        (0, 0, 1, -1, "HA HK"),
        (0, 0, 0, 1, "HK"),
        (0, 1, 0, 1, "HA"),
        (0, 2, 0, 1, "H3"),
        (0, 3, 0, 1, "H5"),
        (1, 1, 0, 0, "H10"),
        (1, 2, 0, 0, "H4"),
        (1, 3, 0, 0, "H6"),
        (1, 0, 0, 0, "HA"),
    ]
    rows = np.array([[t, s, k, w, *vec(c)] for t, s, k, w, c in plays], np.int64)
    bids = np.array([[0, 0, 1, 1]] if declared else np.zeros((0, 4)), np.int64)
    hist = HandHistory(deal, np.zeros(54, np.int64), bids, np.zeros(54, np.int64), rows)
    return v, HandResult(rec, hist)


def test_failed_throw_shows_the_penalty():
    v, r = synthetic("school-2016", declared=True)  # 10 per card beaten; HK is beaten by E's HA
    text = format_trace(v, r, symbols=False, seed=1, policies=["basic"] * 4)
    lines = text.splitlines()
    throw = next(line for line in lines if "failed throw" in line)
    assert throw.split()[:3] == ["N", "HA", "HK"]
    assert "[1 1]" in throw and "penalty +10 to the defenders" in throw
    assert "  N  shows S2: declare" in lines
    assert "  winner E: 15 points to the defenders; defenders' points 15" in lines
    tricks = walk_tricks(v, r)
    assert tricks[0].plays[0].penalty == 10 and tricks[0].points == 15
    assert "outcome: hold; levels NS +1, EW +0; next dealer S (NS declare)" in text


def test_forfeit_and_no_declaration():
    v, r = synthetic("huizhou", declared=False)
    r.record.update(forfeit=1)
    text = format_trace(v, r, symbols=True)
    assert "failed throw: the hand is forfeit" in text
    assert "  nobody declared: random_bottom_card (a random non-joker of the bottom names trump)" in text
    assert "declarers NS (nobody declared)" in text
    assert "the hand was forfeit on a failed throw: no last-trick capture" in text
    assert "\u2665A" in text  # symbols
