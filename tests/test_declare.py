"""Declaring trump, bid by bid: each test replays a clause of a tournament's rules."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simsuite.rules.cards import BIG_JOKER, SMALL_JOKER, make_card, parse_cards, parse_rank
from simsuite.rules.declare import rule_bids
from simsuite.rules.order import NO_TRUMP
from simsuite.rules.variant import load_variant, replace

S, H, D, C = range(4)
N, E, SOUTH, W = range(4)
TWO, THREE = parse_rank("2"), parse_rank("3")


def bids(*pairs: tuple[int, str]) -> list[tuple[int, list[int]]]:
    """``(seat, "H2 H2")`` pairs to bids of card ids."""
    return [(seat, parse_cards(text)) for seat, text in pairs]


def kinds(ruling) -> list[str]:
    return [b.kind for b in ruling.bids]


# --- school-2016 三、(一) ---------------------------------------------------------------------


def test_school_2016_single_card_may_declare():
    # 三、(一)1(1): a single level card may declare.
    r = rule_bids(load_variant("school-2016"), TWO, bids((E, "H2")))
    assert (r.trump, r.declarer, r.count, kinds(r)) == (H, E, 1, ["declare"])
    assert r.bids[0].reason is None and r.fallback is None


def test_school_2016_single_card_cannot_override():
    # 三、(一)1(1): "必须要两张或以上级牌才可改变主的花色".
    r = rule_bids(load_variant("school-2016"), TWO, bids((N, "H2"), (E, "S2")))
    assert kinds(r) == ["declare", "rejected"]
    assert (
        r.bids[1].reason
        == "a single card cannot override: 2 or more identical level cards are needed (min_override = 2)"
    )
    assert (r.trump, r.declarer) == (H, N)


def test_school_2016_three_clubs_beat_two_big_jokers():
    # 三、(一)2: "三张梅花可盖两张大王": more cards beat fewer, whatever the suit.
    r = rule_bids(load_variant("school-2016"), TWO, bids((N, "BJ BJ"), (E, "C2 C2 C2")))
    assert kinds(r) == ["declare", "override"]
    assert (r.trump, r.declarer, r.count) == (C, E, 3)


def test_school_2016_two_cards_cannot_beat_three():
    # 三、(一)2: more over less, never the reverse, even big jokers over clubs.
    r = rule_bids(load_variant("school-2016"), TWO, bids((N, "C2 C2 C2"), (E, "BJ BJ")))
    assert kinds(r) == ["declare", "rejected"]
    assert "more cards beat fewer" in r.bids[1].reason
    assert r.trump == C


def test_school_2016_pair_suit_order_bigger_over_smaller():
    # 三、(一)1(2)(3): BJ > SJ > S > H > D > C at equal counts.
    # (each override comes from the other side: 三、(一)3 bars the standing declarer's partner)
    r = rule_bids(
        load_variant("school-2016"),
        TWO,
        bids((N, "D2 D2"), (E, "H2 H2"), (SOUTH, "C2 C2"), (SOUTH, "SJ SJ"), (E, "BJ BJ")),
    )
    assert kinds(r) == ["declare", "override", "rejected", "override", "override"]
    assert "C does not rank above H" in r.bids[2].reason and "tie_break = suit_order" in r.bids[2].reason
    assert (r.trump, r.declarer, r.count) == (NO_TRUMP, E, 2)


def test_school_2016_same_card_at_equal_count_does_not_override():
    r = rule_bids(load_variant("school-2016"), TWO, bids((N, "S2 S2"), (E, "S2 S2")))
    assert kinds(r) == ["declare", "rejected"]
    assert "same card" in r.bids[1].reason and r.declarer == N


def test_school_2016_no_self_override_but_reinforce():
    # 三、(一)3: the declarer may reinforce, never change the suit themselves.
    v = load_variant("school-2016")
    r = rule_bids(v, TWO, bids((N, "H2"), (N, "S2 S2"), (N, "H2 H2"), (E, "S2 S2"), (E, "S2 S2 S2")))
    assert kinds(r) == ["declare", "rejected", "reinforce", "override", "reinforce"]
    assert "self_override = false" in r.bids[1].reason
    assert (r.trump, r.declarer, r.count) == (S, E, 3)


def test_school_2016_3_1_3_declaring_side_may_not_change_its_suit():
    # 三、(一)3: "亮主的一方…不得由自己改变主牌花色": 一方 is a side, so the partner is barred too
    v = load_variant("school-2016")
    assert v.self_override_scope == "side"
    r = rule_bids(v, TWO, bids((N, "H2"), (SOUTH, "S2 S2"), (E, "S2 S2")))
    assert kinds(r) == ["declare", "rejected", "override"]
    assert "partner" in r.bids[1].reason and "self_override_scope = side" in r.bids[1].reason
    assert (r.trump, r.declarer) == (S, E)


def test_school_2016_3_1_3_partner_reinforces_the_sides_suit():
    # 三、(一)3: "可以加固": the side may reinforce; the declaration stays with the seat that made it
    r = rule_bids(load_variant("school-2016"), TWO, bids((N, "H2"), (SOUTH, "H2 H2"), (E, "D2 D2")))
    assert kinds(r) == ["declare", "reinforce", "rejected"]
    assert (r.trump, r.declarer, r.count) == (H, N, 2)


@pytest.mark.parametrize("vid", ["huizhou", "two-deck-2011", "baiyun-2016"])
def test_seat_scope_lets_the_partner_override(vid):
    # huizhou 第二、1 "定主者不能反自己", two-deck-2011 三、6 "自己不能反自己", baiyun-2016 (八)9③
    # "自己不能反揭自己": the bar names the one who declared, so the partner may still override
    v = load_variant(vid)
    assert v.self_override_scope == "seat"
    r = rule_bids(v, TWO, bids((N, "H2"), (SOUTH, "S2 S2")), first_hand=True)
    assert kinds(r) == ["declare", "override"] and r.declarer == SOUTH


def test_school_2016_reinforced_pair_holds_against_lower_pair():
    r = rule_bids(load_variant("school-2016"), TWO, bids((N, "S2"), (N, "S2 S2"), (E, "D2 D2")))
    assert kinds(r) == ["declare", "reinforce", "rejected"]
    assert "equal count (2 against 2)" in r.bids[2].reason
    assert (r.trump, r.declarer, r.count) == (S, N, 2)


def test_school_2016_reinforcement_must_add_cards():
    r = rule_bids(load_variant("school-2016"), TWO, bids((N, "S2 S2"), (N, "S2 S2")))
    assert kinds(r) == ["declare", "rejected"]
    assert "more than the 2 S2" in r.bids[1].reason


def test_school_2016_single_joker_cannot_declare():
    r = rule_bids(load_variant("school-2016"), TWO, bids((N, "SJ")), bottom=parse_cards("H9 S3 D4 C5 C6 C7"))
    assert kinds(r) == ["rejected"]
    assert "joker_bids = pair_no_trump" in r.bids[0].reason
    assert r.trump == H  # nobody declared: the fallback decides


def test_school_2016_fallback_turn_up_bottom_joker_is_no_trump():
    # 三、(一): "底牌第1张是小王或大王，则打无主".
    r = rule_bids(load_variant("school-2016"), TWO, [], bottom=parse_cards("SJ H9 S3 D4 C5 C6"))
    assert (r.trump, r.declarer, r.count) == (NO_TRUMP, None, 0)
    assert "SJ" in r.fallback and "no-trump" in r.fallback


def test_school_2016_fallback_turn_up_bottom_suit():
    r = rule_bids(load_variant("school-2016"), TWO, [], bottom=parse_cards("H9 SJ S3 D4 C5 C6"))
    assert r.trump == H
    assert r.fallback == "nobody declared: the bottom's first card H9 makes hearts trump"


def test_school_2016_fallback_needs_the_bottom():
    r = rule_bids(load_variant("school-2016"), TWO, [])
    assert r.trump is None and "needs the bottom" in r.fallback


def test_school_2016_later_hand_override_keeps_dealer():
    # 三、(一): "非首局时，仅可以变更主牌花色，不能借此夺得先发权".
    r = rule_bids(load_variant("school-2016"), TWO, bids((E, "H2"), (SOUTH, "S2 S2")), dealer=N)
    assert (r.trump, r.declarer, r.dealer) == (S, SOUTH, N)


def test_school_2016_first_hand_last_declarer_deals():
    # 三、(一): in the first hand the last successful declarer is dealer.
    r = rule_bids(
        load_variant("school-2016"), TWO, bids((E, "H2"), (SOUTH, "S2 S2"), (E, "H2 H2 H2")), first_hand=True, dealer=N
    )
    assert (r.trump, r.declarer, r.dealer) == (H, E, E)


# --- huizhou 第二 -----------------------------------------------------------------------------


def test_huizhou_count_alone_equal_count_first_stands():
    # 第二、1: 2 beat 1, 3 beat 2; with equal counts the earlier stands, whatever the suit.
    r = rule_bids(
        load_variant("huizhou"), TWO, bids((N, "C2"), (E, "D2 D2"), (SOUTH, "S2 S2"), (W, "H2 H2 H2")), first_hand=True
    )
    assert kinds(r) == ["declare", "override", "rejected", "override"]
    assert r.bids[2].reason == "equal count (2 against 2): the first declaration stands (tie_break = first_stands)"
    assert (r.trump, r.declarer, r.dealer, r.count) == (H, W, W, 3)


def test_huizhou_first_hand_reinforce_then_override():
    # 第二、1: "可以反庄和连续加固": the declarer reinforces, a larger count still overrides.
    r = rule_bids(
        load_variant("huizhou"), TWO, bids((N, "S2"), (N, "S2 S2"), (E, "H2 H2"), (E, "H2 H2 H2")), first_hand=True
    )
    assert kinds(r) == ["declare", "reinforce", "rejected", "override"]
    assert (r.declarer, r.dealer, r.count) == (E, E, 3)


def test_huizhou_fallback_random_bottom_card_no_jokers():
    # 第二、3: nobody declares: draw any bottom card, jokers excluded.
    v = load_variant("huizhou")
    bottom = parse_cards("BJ SJ BJ SJ H9 SJ")
    for seed in range(300):
        r = rule_bids(v, TWO, [], bottom=bottom, rng=np.random.default_rng(seed))
        assert r.trump == H, (seed, r.fallback)
        assert "H9" in r.fallback and "random" in r.fallback
    # with two suits in the bottom the draw is random, and reproducible from the seed
    two = parse_cards("SJ S5 BJ C7 C8 D9")
    seen = {rule_bids(v, TWO, [], bottom=two, rng=np.random.default_rng(s)).trump for s in range(200)}
    assert seen == {S, C, D}
    once = [rule_bids(v, TWO, [], bottom=two, rng=np.random.default_rng(7)).fallback for _ in range(2)]
    assert once[0] == once[1]


def test_huizhou_fallback_random_without_rng_draws_nothing():
    r = rule_bids(load_variant("huizhou"), TWO, [], bottom=parse_cards("H9 S5 D4 C3 C4 C5"))
    assert r.trump is None and "a random bottom card decides" in r.fallback


def test_huizhou_no_joker_bids():
    r = rule_bids(
        load_variant("huizhou"),
        TWO,
        bids((N, "BJ BJ")),
        bottom=parse_cards("C9 S5 D4 C3 C4 C5"),
        rng=np.random.default_rng(1),
    )
    assert kinds(r) == ["rejected"] and "joker_bids = none" in r.bids[0].reason


# --- baiyun-2016 (八) -------------------------------------------------------------------------


def test_baiyun_2016_single_heart_cannot_reinforce_after_spade_pair():
    # (八)9②: South declared H2, West overrode with two S2; South may not add another H2.
    r = rule_bids(load_variant("baiyun-2016"), TWO, bids((SOUTH, "H2"), (W, "S2 S2"), (SOUTH, "H2"), (SOUTH, "H2 H2")))
    assert kinds(r) == ["declare", "override", "rejected", "rejected"]
    assert "a single card cannot override" in r.bids[2].reason
    assert "tie_break = first_stands" in r.bids[3].reason
    assert (r.trump, r.declarer, r.count) == (S, W, 2)


def test_baiyun_2016_three_override_two():
    # (八)9: two identical cards override one, then three override two.
    r = rule_bids(load_variant("baiyun-2016"), TWO, bids((N, "S2"), (E, "H2 H2"), (SOUTH, "D2 D2 D2")))
    assert kinds(r) == ["declare", "override", "override"]
    assert (r.trump, r.count) == (D, 3)


def test_baiyun_2016_no_no_trump():
    # (八)24: no no-trump, so jokers never bid.
    r = rule_bids(load_variant("baiyun-2016"), TWO, bids((N, "H2"), (E, "BJ BJ"), (SOUTH, "SJ SJ SJ")))
    assert kinds(r) == ["declare", "rejected", "rejected"]
    assert all("jokers cannot declare" in b.reason for b in r.bids[1:])
    assert r.trump == H


def test_baiyun_2016_no_self_override():
    # (八)9③: "自己不能反揭自己".
    r = rule_bids(load_variant("baiyun-2016"), TWO, bids((N, "H2"), (N, "S2 S2")))
    assert kinds(r) == ["declare", "rejected"] and "self_override = false" in r.bids[1].reason


def test_baiyun_2016_first_hand_override_takes_deal():
    # (八)10(1): the first declarer deals; a successful override also takes the deal.
    v = load_variant("baiyun-2016")
    assert rule_bids(v, TWO, bids((E, "H2")), first_hand=True, dealer=N).dealer == E
    assert rule_bids(v, TWO, bids((E, "H2"), (W, "C2 C2")), first_hand=True, dealer=N).dealer == W


def test_baiyun_2016_fallback_first_non_joker():
    r = rule_bids(load_variant("baiyun-2016"), TWO, [], bottom=parse_cards("BJ SJ D7 H9 S3 C4"))
    assert r.trump == D and "D7" in r.fallback


# --- two-deck-2011 三、6 ----------------------------------------------------------------------


def test_two_deck_2011_spade_pair_answers_club_pair():
    # 三、6: ♠2 declared, a ♣2 pair overrides, the first player comes back with a ♠2 pair.
    r = rule_bids(load_variant("two-deck-2011"), TWO, bids((N, "S2"), (E, "C2 C2"), (N, "S2 S2")))
    assert kinds(r) == ["declare", "override", "override"]
    assert (r.trump, r.declarer, r.count) == (S, N, 2)


def test_two_deck_2011_club_pair_cannot_answer_spade_pair():
    # the [default] suit order: ♣ below ♠ at equal counts.
    r = rule_bids(load_variant("two-deck-2011"), TWO, bids((N, "S2 S2"), (E, "C2 C2")))
    assert kinds(r) == ["declare", "rejected"] and r.trump == S


def test_two_deck_2011_joker_pairs_override():
    # 三、6: "一对小王可以反，一对大王也可以反": SJ pair over a suit pair, BJ pair over SJ pair.
    v = load_variant("two-deck-2011")
    r = rule_bids(v, TWO, bids((N, "S2 S2"), (E, "SJ SJ"), (SOUTH, "BJ BJ"), (W, "SJ SJ")))
    assert kinds(r) == ["declare", "override", "override", "rejected"]
    assert (r.trump, r.declarer) == (NO_TRUMP, SOUTH)
    assert "SJ does not rank above BJ" in r.bids[3].reason
    assert rule_bids(v, TWO, bids((N, "S2 S2"), (E, "SJ SJ"))).trump == NO_TRUMP


def test_two_deck_2011_no_more_copies_than_decks():
    r = rule_bids(
        load_variant("two-deck-2011"), TWO, bids((N, "H2 H2 H2")), bottom=parse_cards("C9 S5 D4 C3 C4 C5 D6 D7")
    )
    assert kinds(r) == ["rejected"] and "2 deck(s) hold only 2" in r.bids[0].reason


def test_two_deck_2011_override_keeps_dealer_after_first_hand():
    # 三、17: "反主不反庄".
    r = rule_bids(load_variant("two-deck-2011"), TWO, bids((N, "S2"), (E, "C2 C2")), dealer=SOUTH)
    assert (r.declarer, r.dealer) == (E, SOUTH)


# --- guangxi-2012 第二章 ----------------------------------------------------------------------


def test_guangxi_2012_opening_bid_needs_small_joker():
    # 第二章1: "开局打3叫牌必须带一张小王"; [default] the small joker does not count.
    v = load_variant("guangxi-2012")
    r = rule_bids(v, THREE, bids((N, "D3"), (E, "SJ"), (SOUTH, "SJ H3")), first_hand=True)
    assert kinds(r) == ["rejected", "rejected", "declare"]
    assert "must include a small joker" in r.bids[0].reason
    assert "does not count" in r.bids[1].reason
    assert (r.trump, r.declarer, r.count, r.dealer) == (H, SOUTH, 1, SOUTH)


def test_guangxi_2012_later_bids_need_no_joker():
    # 第二章2: "除开局打3外…叫牌不需再带小王".
    r = rule_bids(load_variant("guangxi-2012"), THREE, bids((N, "D3")), dealer=E)
    assert (r.trump, r.count, r.dealer) == (D, 1, E)


def test_guangxi_2012_more_cards_override_fewer():
    # 第二章1: "2反1、3反2", and both trump and dealer in the opening hand ("反主反庄").
    v = load_variant("guangxi-2012")
    r = rule_bids(
        v,
        THREE,
        bids((N, "SJ D3"), (E, "SJ C3 C3"), (SOUTH, "SJ S3 S3"), (W, "SJ H3 H3 H3")),
        first_hand=True,
        dealer=N,
    )
    assert kinds(r) == ["declare", "override", "rejected", "override"]
    assert (r.trump, r.declarer, r.dealer, r.count) == (H, W, W, 3)


def test_guangxi_2012_reinforce_no_self_override():
    # 第二章1: "不许自己反自己。双方均可加固，如 1 加 1".
    r = rule_bids(load_variant("guangxi-2012"), THREE, bids((N, "D3"), (N, "D3 D3"), (N, "S3 S3 S3")))
    assert kinds(r) == ["declare", "reinforce", "rejected"]
    assert (r.trump, r.count) == (D, 2)


def test_guangxi_2012_nobody_bids_redeal():
    # 第二章1: "该盘无人叫牌，则重新摸牌".
    r = rule_bids(load_variant("guangxi-2012"), THREE, bids((N, "D3")), first_hand=True, dealer=N)
    assert kinds(r) == ["rejected"]
    assert (r.trump, r.declarer, r.count) == (None, None, 0)
    assert "redeal" in r.fallback


def test_guangxi_2012_permanent_two_is_not_a_level_card():
    r = rule_bids(load_variant("guangxi-2012"), THREE, bids((N, "D2")))
    assert "D2 is not a level card: only 3s declare at level 3" == r.bids[0].reason


# --- options no tournament uses as loaded ------------------------------------------------------


def test_override_takes_deal_after_first_hand():
    v = replace(load_variant("school-2016"), override_takes_deal=True)
    assert rule_bids(v, TWO, bids((E, "H2"), (SOUTH, "S2 S2")), dealer=N).dealer == SOUTH
    assert rule_bids(v, TWO, bids((E, "H2"), (E, "H2 H2")), dealer=N).dealer == N  # a reinforcement is no override
    assert rule_bids(v, TWO, bids((E, "H2")), dealer=N).dealer == N  # declaring alone takes nothing


def test_first_hand_without_declarer_deals_keeps_dealer():
    v = replace(load_variant("school-2016"), first_hand_declarer_deals=False)
    assert rule_bids(v, TWO, bids((E, "H2")), first_hand=True, dealer=N).dealer == N


def test_min_declare_two():
    v = replace(load_variant("school-2016"), min_declare=2)
    r = rule_bids(v, TWO, bids((N, "H2"), (E, "D2 D2")))
    assert kinds(r) == ["rejected", "declare"]
    assert "min_declare = 2" in r.bids[0].reason


def test_reinforce_off():
    v = replace(load_variant("huizhou"), reinforce=False)
    r = rule_bids(v, TWO, bids((N, "S2"), (N, "S2 S2")))
    assert kinds(r) == ["declare", "rejected"] and "reinforce = false" in r.bids[1].reason


def test_self_override_on():
    v = replace(load_variant("huizhou"), self_override=True)
    r = rule_bids(v, TWO, bids((N, "S2"), (N, "H2 H2")))
    assert kinds(r) == ["declare", "override"] and (r.trump, r.declarer) == (H, N)


def test_joker_pair_without_no_trump_is_rejected():
    v = replace(load_variant("school-2016"), no_trump=False)
    r = rule_bids(v, TWO, bids((N, "BJ BJ")), bottom=parse_cards("SJ H9 S3 D4 C5 C6"))
    assert kinds(r) == ["rejected"] and "no_trump = false" in r.bids[0].reason
    # the fallback skips the joker too: no no-trump
    assert r.trump == H and "first non-joker H9" in r.fallback


# --- bad bids ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, words",
    [
        ("H5", "H5 is not a level card: only 2s declare at level 2"),
        ("H2 S2", "H2 S2 are mixed"),
        ("H2 H5", "are mixed"),
        ("BJ SJ", "BJ SJ are mixed"),
        ("", "shows none"),
    ],
)
def test_bad_bids_are_rejected_with_the_reason(variant_id, text, words):
    r = rule_bids(load_variant(variant_id), TWO, bids((N, text)))
    assert kinds(r) == ["rejected"] and words in r.bids[0].reason
    assert r.declarer is None


def test_bad_seat_raises():
    with pytest.raises(ValueError, match="bad seat"):
        rule_bids(load_variant("huizhou"), TWO, [(4, parse_cards("H2"))])


# --- invariants over random bid sequences, every variant ---------------------------------------


_CARDS = [make_card(s, TWO) for s in range(4)] + [SMALL_JOKER, BIG_JOKER, make_card(H, 5)]


@settings(max_examples=150, deadline=None)
@given(
    vid=st.sampled_from(["school-2016", "huizhou", "baiyun-2016", "two-deck-2011", "guangxi-2012"]),
    first=st.booleans(),
    seq=st.lists(st.tuples(st.integers(0, 3), st.lists(st.sampled_from(_CARDS), min_size=1, max_size=4)), max_size=8),
)
def test_every_variant_accepted_bids_never_weaken(vid, first, seq):
    v = load_variant(vid)
    r = rule_bids(
        v, TWO, seq, first_hand=first, dealer=N, bottom=parse_cards("C9 S5 D4 C3 C4 C5"), rng=np.random.default_rng(0)
    )
    accepted = [b for b in r.bids if b.accepted]
    counts = [
        len([c for c in b.cards if not (first and v.first_hand_needs_small_joker and c == SMALL_JOKER)])
        for b in accepted
    ]
    assert counts == sorted(counts)
    assert all((b.reason is None) == b.accepted and (b.kind == "rejected") != b.accepted for b in r.bids)
    assert [b.kind for b in accepted].count("declare") == (1 if accepted else 0)
    if accepted:
        assert r.declarer == accepted[-1].seat and r.count == counts[-1] and r.fallback is None
    else:
        assert r.declarer is None and r.fallback is not None
