"""Trick rulings: leads, throws and their failure, trumping and over-trumping, the winner.
Seats are 0..3 = N, E, S, W; N-S (team 0) declare unless said."""

from __future__ import annotations

from conftest import cards, order_for

from simsuite.rules.trick import rule_lead, rule_trick

N, E, S, W = range(4)


def trick(variant_id, leader, plays, hands=None, level="2", trump="S", declarers=0):
    order = order_for(variant_id, level, trump)
    hands = {seat: cards(text) for seat, text in (hands or {}).items()}
    return rule_trick(order, leader, [cards(p) for p in plays], hands, declarers)


def test_trick_winner_highest_of_led_suit():
    t = trick("school-2016", N, ["H9", "HK", "H3", "C5"])
    assert t.winner == E and t.points == 15


def test_trick_equal_cards_first_played_wins():
    # huizhou 第四、11; school-2016 order: off-suit level cards are equal, the first stands
    t = trick("huizhou", N, ["H2", "D2", "C2", "H3"])
    assert t.winner == N


def test_trick_trump_beats_side_only_with_the_led_shape():
    # school-2016 三、(四): trump must match the lead's form exactly, else it is a discard
    t = trick("school-2016", N, ["HA HA", "S3 S5", "H4 H6", "C7 C8"])
    assert t.winner == N
    t = trick("school-2016", N, ["HA HA", "S3 S3", "H4 H6", "C7 C8"])
    assert t.winner == E


def test_trick_over_trump_needs_same_shape_higher():
    t = trick("school-2016", N, ["HA HA", "S3 S3", "H4 H6", "S5 S5"])
    assert t.winner == W
    t = trick("school-2016", N, ["HA HA", "S5 S5", "H4 H6", "S3 S3"])
    assert t.winner == E


def test_school_2016_triple_tractor_beats_pair_tractor_special_rule():
    # 二、11 special rule: ♥555666 beats ♥AAKKQQ
    t = trick("school-2016", N, ["HA HA HK HK HQ HQ", "H5 H5 H5 H6 H6 H6", "H3 H4 H7 H8 H9 H10", "C3 C4 C5 C6 C7 C8"])
    assert t.winner == E


def test_huizhou_triple_tractor_beats_pair_tractor_of_same_count():
    # 第四、9 注: AAKKQQ led, 999888 after it wins
    t = trick("huizhou", N, ["HA HA HK HK HQ HQ", "H9 H9 H9 H8 H8 H8", "H3 H4 H5 H6 H7 H10", "C3 C4 C5 C6 C7 C8"])
    assert t.winner == E


def test_two_deck_2011_no_wide_units():
    t = trick("two-deck-2011", N, ["HA HA HK HK", "H5 H5 H6 H6", "H3 H4 H7 H8", "C3 C4 C5 C6"])
    assert t.winner == N


def test_guangxi_2012_bomb_beats_two_pair_tractor():
    # 第六章4: 6666 beats AAKK, even of the same suit when following
    t = trick("guangxi-2012", N, ["HA HA HK HK", "H6 H6 H6 H6", "H4 H5 H7 H8", "C4 C5 C6 C7"], level="3")
    assert t.winner == E


def test_guangxi_2012_after_side_bomb_later_trumper_needs_trump_bomb():
    # 第六章5: AAKK bombed with 7777 of the suit: a trump tractor is not enough, a trump bomb is
    t = trick("guangxi-2012", N, ["HA HA HK HK", "H7 H7 H7 H7", "S5 S5 S6 S6", "H4 H5 H8 H9"], level="3")
    assert t.winner == E
    t = trick("guangxi-2012", N, ["HA HA HK HK", "H7 H7 H7 H7", "S5 S5 S5 S5", "H4 H5 H8 H9"], level="3")
    assert t.winner == S


def test_guangxi_2012_side_bomb_never_beats_earlier_trump():
    # 第六章5: trumped with a trump tractor, a later side bomb cannot beat it
    t = trick("guangxi-2012", N, ["HA HA HK HK", "S5 S5 S6 S6", "H7 H7 H7 H7", "C4 C5 C6 C7"], level="3")
    assert t.winner == E


def test_guangxi_2012_special_tractor_beats_pair_tractor():
    # 第六章3: 555666 beats AAKKQQ
    t = trick(
        "guangxi-2012",
        N,
        ["HA HA HK HK HQ HQ", "H5 H5 H5 H6 H6 H6", "H4 H7 H8 H9 H10 HJ", "C4 C5 C6 C7 C8 C9"],
        level="3",
    )
    assert t.winner == E


def test_guangxi_2012_throws_not_allowed():
    # 第四章6
    lead = rule_lead(order_for("guangxi-2012", "3"), cards("HA HK"))
    assert not lead.legal and "throws are not allowed" in lead.reason


def test_lead_of_two_suits_is_illegal():
    lead = rule_lead(order_for("school-2016"), cards("HA CA"))
    assert not lead.legal and "one suit-class" in lead.reason


def test_school_2016_3plus2_lead_is_a_throw():
    # 二、11: "3+2" may not be led as a unit, only as a throw
    lead = rule_lead(order_for("school-2016"), cards("HA HA HA HK HK"))
    assert lead.legal and lead.is_throw


def test_baiyun_2016_captive_is_a_throw():
    # (八)16: a captive (44433) may be led only as a throw
    lead = rule_lead(order_for("baiyun-2016"), cards("H4 H4 H4 H3 H3"))
    assert lead.is_throw


def test_huizhou_3plus2_lead_is_a_unit():
    # 第四、10: AAAKK is followed by the 3+3 list: a unit, no throw test [default reading]
    lead = rule_lead(order_for("huizhou"), cards("HA HA HA HK HK"))
    assert lead.legal and not lead.is_throw


HANDS_SAFE = {E: "H9 H10 C3", S: "HQ H5 D4", W: "H3 H4 D9"}
HANDS_UNSAFE = {E: "HA H9 H10 C3", S: "HQ H5 D4", W: "H3 H4 D9"}


def test_school_2016_throw_absolute_max_stands():
    # 三、(三): the smallest card (HK) is at least the highest of every other hand (HQ)
    t = trick("school-2016", N, ["HA HK", "H9 H10", "HQ H5", "H3 H4"], {N: "HA HK", **HANDS_SAFE})
    assert t.throw.stands and t.winner == N


def test_school_2016_throw_absolute_max_fails_penalty_per_card_and_smallest_card():
    # 三、(三) and 四、5(6): HK is below E's HA: 10 per card below, then the smallest card alone
    t = trick("school-2016", N, ["HA HK", "H9 H10", "HQ H5", "H3 H4"], {N: "HA HK", **HANDS_UNSAFE})
    assert t.throw.stands is False
    assert t.throw.consequence == "penalty"
    assert t.throw.defender_points_delta == 10  # a declarer's offence adds to the defenders (四、5(1))
    assert t.throw.forced_play == cards("HK")


def test_school_2016_failed_throw_by_defender_subtracts():
    t = trick("school-2016", N, ["HA HK", "H9 H10", "HQ H5", "H3 H4"], {N: "HA HK", **HANDS_UNSAFE}, declarers=1)
    assert t.throw.defender_points_delta == -10


def test_school_2016_throw_absolute_max_pair_counts_two():
    # 四、5(6): a pair below another player's card counts as two cards
    t = trick(
        "school-2016",
        N,
        ["HA HQ HQ", "H9 H10 C3", "HK H5 D4", "H3 H4 D9"],
        {N: "HA HQ HQ", E: "H9 H10 C3", S: "HK H5 D4", W: "H3 H4 D9"},
    )
    assert t.throw.stands is False and t.throw.defender_points_delta == 20


def test_two_deck_2011_throw_per_unit_pair_survives_higher_single():
    # 三、17/18 per-unit: the pair QQ stands against a lone K; the single J falls to E's K
    hands = {N: "HQ HQ HJ", E: "HK H3 C3", S: "H5 H6 D4", W: "H7 H8 D9"}
    t = trick("two-deck-2011", N, ["HQ HQ HJ", "HK H3 C3", "H5 H6 D4", "H7 H8 D9"], hands)
    assert t.throw.stands is False
    assert [u.shape for u in t.throw.failing] == ["1"]
    # 三、18: 10 per card taken back (2 of 3), then only the smallest card
    assert t.throw.defender_points_delta == 20 and t.throw.forced_play == cards("HJ")


def test_baiyun_2016_failed_throw_flat_20_and_failing_unit():
    # (八)20: 20 points; the thrower plays a failing unit
    hands = {N: "HA HQ HQ", E: "HK HK C3", S: "H5 H6 D4", W: "H7 H8 D9"}
    t = trick("baiyun-2016", N, ["HA HQ HQ", "HK HK C3", "H5 H6 D4", "H7 H8 D9"], hands)
    assert t.throw.stands is False
    assert t.throw.defender_points_delta == 20 and t.throw.forced_play == cards("HQ HQ")


def test_huizhou_failed_throw_forfeits_the_hand():
    # 第四、12 + 第七: a failed throw is a violation [default: the hand ends]
    hands = {N: "HA HQ", E: "HK H3", S: "H5 H6", W: "H7 H8"}
    t = trick("huizhou", N, ["HA HQ", "HK H3", "H5 H6", "H7 H8"], hands)
    assert t.throw.stands is False and t.throw.consequence == "forfeit" and t.winner is None


def test_throw_without_other_hands_is_not_ruled():
    t = trick("school-2016", N, ["HA HK", "H9 H10", "HQ H5", "H3 H4"], {N: "HA HK"})
    assert t.throw.stands is None and "cannot be tested" in t.notes[0]


def test_school_2016_overtrump_throw_compares_largest_unit():
    # 三、(四): trumped throws compare the highest unit (here the pair)
    hands = {N: "HA HA HK", E: "S5 S5 S7", S: "H3 H4 H6", W: "S9 S9 S3"}
    t = trick("school-2016", N, ["HA HA HK", "S5 S5 S7", "H3 H4 H6", "S9 S9 S3"], hands)
    assert t.throw.stands and t.winner == W


def test_trump_throw_answer_must_have_same_units():
    # 三、(四): a trump play without the throw's pair is a discard
    hands = {N: "HA HA HK", E: "S5 S6 S7", S: "H3 H4 H6", W: "C9 C9 C3"}
    t = trick("school-2016", N, ["HA HA HK", "S5 S6 S7", "H3 H4 H6", "C9 C9 C3"], hands)
    assert t.winner == N


def test_follower_illegal_play_is_reported():
    t = trick("school-2016", N, ["H3 H3", "H9 HK", "H4 H6", "C7 C8"], {E: "H9 H9 HK"})
    assert t.plays[1].legal is False and "pair" in t.plays[1].reason
