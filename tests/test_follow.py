"""Follow priority: every list written in VARIANTS.md, step by step, plus the situations the
rule documents describe in words. Cards are hearts unless said; spades are trump.

Ordering tests check that each step's pattern has a strictly better profile than the next
(patterns joined by "|" rank equal); situation tests build a hand and check legality."""

from __future__ import annotations

import pytest
from conftest import cards, order_for

from simsuite.rules.choices import FollowField
from simsuite.rules.follow import FOLLOW_TERMS, best_profile, check_follow, lead_structure, legal_follows
from simsuite.rules.judge import FOLLOW_TERMS as JUDGE_TERMS


def profiles(variant_id, level, lead, steps, trump="S"):
    order = order_for(variant_id, level, trump)
    structure = lead_structure(order, cards(lead))
    out = []
    for group in steps:
        ps = {best_profile(order, cards(s), structure.n_cards, structure) for s in group.split("|")}
        assert len(ps) == 1, f"patterns listed as equal rank differently: {group} -> {ps}"
        out.append(ps.pop())
    return out


def assert_strictly_ordered(profs, steps):
    for i in range(len(profs) - 1):
        assert profs[i] > profs[i + 1], f"step {i} ({steps[i]}) should outrank step {i + 1} ({steps[i + 1]})"


FOLLOW_LISTS = {
    # school-2016 三、(二)A: a 3+3 lead, steps a..k
    "school_2016_3plus3_lead_steps_a_to_k": (
        "school-2016",
        "2",
        "H4 H4 H4 H3 H3 H3",
        [
            "H5 H5 H5 H6 H6 H6",  # a. 3+3
            "H5 H5 H6 H6 H7 H7",  # b. 2+2+2
            "H5 H5 H6 H6 H9 H9",  # c. tractor + pair
            "H5 H5 H6 H6 H9 HJ",  # d. tractor + 2 singles
            "H5 H5 H5 H9 H9 H9",  # e. triple + triple
            "H5 H5 H5 H9 H9 HJ",  # f. triple + pair + single
            "H5 H5 H5 H9 HJ HK",  # g. triple + 3 singles
            "H5 H5 H9 H9 HJ HJ",  # h. 3 pairs
            "H5 H5 H9 H9 HJ HK",  # i. 2 pairs + 2 singles
            "H5 H5 H8 H10 HQ HA",  # j. pair + 4 singles
            "H5 H7 H9 HJ HK HA",  # k. 6 singles
        ],
    ),
    # huizhou 第四、9: a 3+3 lead (999888); triples before pair-tractors
    "huizhou_3plus3_lead_triples_first": (
        "huizhou",
        "2",
        "H4 H4 H4 H3 H3 H3",
        [
            "H5 H5 H5 H6 H6 H6",  # the same
            "H5 H5 H5 H9 H9 H9",  # two triples
            "H5 H5 H5 H9 H9 HJ",  # triple + pair + single
            "H5 H5 H6 H6 H7 H7",  # 3-pair tractor
            "H5 H5 H6 H6 H9 H9",  # 2-pair tractor + pair
            "H5 H5 H9 H9 HJ HJ",  # 3 pairs
            "H5 H5 H9 H9 HJ HK",  # pairs + singles
            "H5 H7 H9 HJ HK HA",
        ],
    ),
    # huizhou 第四、10: AAAKK is followed by the 3+3 list
    "huizhou_3plus2_lead_follows_3plus3_list": (
        "huizhou",
        "2",
        "HA HA HA HK HK",
        [
            "HQ HQ HQ HJ HJ",
            "HQ HQ HQ H9 H9",
            "HQ HQ HQ H9 H7",
            "HQ HQ HJ HJ H7",
            "HQ HQ H9 H9 H7",
            "HQ H10 H8 H6 H4",
        ],
    ),
    # huizhou 第四、8: a 4-pair tractor lead
    "huizhou_4pair_lead": (
        "huizhou",
        "2",
        "H3 H3 H4 H4 H5 H5 H6 H6",
        [
            "H7 H7 H8 H8 H9 H9 H10 H10",  # 4-pair tractor
            "H7 H7 H7 H8 H8 H8 HQ HQ",  # 3+3 + pair
            "H7 H7 H8 H8 H9 H9 HJ HJ",  # 3-pair tractor + pair
            "H7 H7 H8 H8 H10 H10 HJ HJ",  # two 2-pair tractors
            "H7 H7 H8 H8 H10 H10 HQ HQ",  # 2-pair tractor + 2 pairs
            "H7 H7 H9 H9 HJ HJ HK HK",  # 4 pairs
            "H7 H7 H9 H9 HJ HQ HK HA",  # as many pairs as you have
            "H7 H8 H9 H10 HJ HQ HK HA",  # suit cards
        ],
    ),
    # huizhou 第四、7: a tractor lead: a tractor, else pairs, else suit cards (a triple is one pair)
    "huizhou_tractor_lead": (
        "huizhou",
        "2",
        "H3 H3 H4 H4",
        [
            "HK HK HA HA",
            "HJ HJ H9 H9",
            "H9 H9 H9 H7|HJ HJ H9 H7",
            "H5 H7 H9 HJ",
        ],
    ),
    # baiyun-2016 (八)12: a 444333 lead: 2-pair tractor + 2 singles, a triple, 2 pairs + 2 singles
    "baiyun_2016_444333_lead": (
        "baiyun-2016",
        "2",
        "H4 H4 H4 H3 H3 H3",
        [
            "H5 H5 H5 H6 H6 H6",
            "H5 H5 H6 H6 H7 H7",
            "H5 H5 H6 H6 H9 HJ",
            "H5 H5 H5 H9 HJ HK",
            "H5 H5 H9 H9 HJ HK",
            "H5 H7 H9 HJ HK HA",
        ],
    ),
    # guangxi-2012 第四章3: a 66778899 lead
    "guangxi_2012_4pair_lead": (
        "guangxi-2012",
        "3",
        "H4 H4 H5 H5 H6 H6 H7 H7",
        [
            "H8 H8 H9 H9 H10 H10 HJ HJ|H8 H8 H8 H8 H9 H9 H9 H9",  # 4-pair tractor or quad-tractor
            "H8 H8 H8 H9 H9 H9 HK HK|H8 H8 H9 H9 H10 H10 HQ HQ",  # triple-tractor + pair, or 3-pair + pair
            "H8 H8 H9 H9 HJ HJ HQ HQ|H8 H8 H8 H8 HQ HQ HQ HQ|H8 H8 H8 H8 HJ HJ HQ HQ",  # two 2-pair, two bombs, bomb + 2-pair
            "H8 H8 H10 H10 HQ HQ HA HA",  # four pairs
            "H8 H8 H10 H10 HQ HK HA H4",  # then pairs
        ],
    ),
    # guangxi-2012 第四章4: an 888999 lead; a lone triple is only a pair + a single
    "guangxi_2012_triple_tractor_lead": (
        "guangxi-2012",
        "3",
        "H4 H4 H4 H5 H5 H5",
        [
            "H8 H8 H8 H9 H9 H9",
            "H8 H8 H9 H9 H10 H10",
            "H8 H8 H8 H8 HQ HQ|H8 H8 H9 H9 HQ HQ",
            "H8 H8 H10 H10 HQ HQ",
            "H8 H8 H8 H10 HQ HQ|H8 H8 H10 H10 HQ HA",
            "H8 H8 H10 HQ HK HA",
        ],
    ),
    # guangxi-2012 第四章5: a bomb lead
    "guangxi_2012_bomb_lead": (
        "guangxi-2012",
        "3",
        "H4 H4 H4 H4",
        [
            "H8 H8 H8 H8",
            "H8 H8 H9 H9",
            "H8 H8 H8 H10",
            "H8 H8 H10 H10",
            "H8 H8 H10 HQ",
            "H8 H10 HQ HA",
        ],
    ),
    # two-deck-2011 三、17: a tractor lead: a tractor, else pairs
    "two_deck_2011_tractor_lead": (
        "two-deck-2011",
        "2",
        "H3 H3 H4 H4",
        [
            "HJ HJ HQ HQ",
            "H9 H9 HQ HQ",
            "H9 H9 HQ HK",
            "H6 H8 H10 HQ",
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(FOLLOW_LISTS))
def test_follow_priority_list_step_order(name):
    variant_id, level, lead, steps = FOLLOW_LISTS[name]
    assert_strictly_ordered(profiles(variant_id, level, lead, steps), steps)


def rule(variant_id, lead, hand, play, level="2", trump="S"):
    order = order_for(variant_id, level, trump)
    return check_follow(order, lead_structure(order, cards(lead)), cards(hand), cards(play))


# --- school-2016 三、(二) ----------------------------------------------------------------------


def test_school_2016_follow_3plus3_step_a_before_b():
    hand = "H5 H5 H5 H6 H6 H6 H8 H8 H9 H9 H10 H10"
    assert rule("school-2016", "H4 H4 H4 H3 H3 H3", hand, "H5 H5 H5 H6 H6 H6").legal
    assert not rule("school-2016", "H4 H4 H4 H3 H3 H3", hand, "H8 H8 H9 H9 H10 H10").legal


def test_school_2016_follow_3plus3_step_e_triples_before_pairs():
    hand = "H5 H5 H5 H9 H9 H9 HJ HJ HK HK"
    assert rule("school-2016", "H4 H4 H4 H3 H3 H3", hand, "H5 H5 H5 H9 H9 H9").legal
    assert not rule("school-2016", "H4 H4 H4 H3 H3 H3", hand, "H5 H5 H9 H9 HJ HJ").legal


def test_school_2016_follow_triple_lead_needs_triple_else_pair():
    # 三、(二)(2): a triple answers a triple; with none, a pair must be given
    assert not rule("school-2016", "H3 H3 H3", "H9 H9 H9 HK HK HA", "HK HK HA").legal
    assert rule("school-2016", "H3 H3 H3", "H9 H9 H9 HK HK HA", "H9 H9 H9").legal
    assert rule("school-2016", "H3 H3 H3", "H9 H9 HJ HK HA", "H9 H9 HA").legal
    assert not rule("school-2016", "H3 H3 H3", "H9 H9 HJ HK HA", "HJ HK HA").legal


def test_school_2016_rule_b_triple_need_not_be_broken_for_tractor():
    # 三、(二)B: separate pairs suffice, so the triple may stay whole
    hand = "H5 H5 H5 H8 H8 HJ HJ HA"
    r = rule("school-2016", "H3 H3 H4 H4", hand, "H8 H8 HJ HJ")
    assert r.legal, r.reason
    assert rule("school-2016", "H3 H3 H4 H4", hand, "H5 H5 H8 H8").legal  # breaking it is allowed too
    assert not rule("school-2016", "H3 H3 H4 H4", hand, "H5 H5 H5 HA").legal


def test_school_2016_rule_b_exception_a_not_enough_pairs():
    # 三、(二)B a: without enough pairs a triple must be broken to give a pair
    hand = "H5 H5 H5 H8 H8 HJ HA"
    assert rule("school-2016", "H3 H3 H4 H4", hand, "H5 H5 H8 H8").legal
    assert not rule("school-2016", "H3 H3 H4 H4", hand, "H8 H8 HJ HA").legal


def test_school_2016_rule_b_exception_b_triple_completes_tractor():
    # 三、(二)B b: a triple that forms a tractor with another pair must be broken for it
    hand = "H5 H5 H5 H6 H6 HJ HJ HA"
    assert rule("school-2016", "H3 H3 H4 H4", hand, "H5 H5 H6 H6").legal
    r = rule("school-2016", "H3 H3 H4 H4", hand, "H6 H6 HJ HJ")
    assert not r.legal and "tractor" in r.reason


def test_school_2016_pair_lead_must_split_triple():
    assert not rule("school-2016", "H3 H3", "H9 H9 H9 HK", "H9 HK").legal
    assert rule("school-2016", "H3 H3", "H9 H9 H9 HK", "H9 H9").legal


def test_school_2016_short_suit_must_play_all_and_fill():
    # fewer cards of the led suit than the lead: all of them, then anything
    assert rule("school-2016", "H3 H3 H4 H4", "H9 HK C5 C6 D7", "H9 HK C5 D7").legal
    r = rule("school-2016", "H3 H3 H4 H4", "H9 HK C5 C6 D7", "H9 C5 C6 D7")
    assert not r.legal and "must play them all" in r.reason


def test_school_2016_follow_suit_before_trumping():
    r = rule("school-2016", "H3", "H9 SA", "SA")
    assert not r.legal and "follow suit" in r.reason


def test_school_2016_level_cards_follow_trump_not_their_suit():
    # playing 2 with spades trump, H2 is trump: it cannot answer a heart lead
    r = rule("school-2016", "H3", "H2 H9", "H2")
    assert not r.legal


# --- huizhou ----------------------------------------------------------------------------------


def test_huizhou_pair_lead_pair_from_tractor_or_triple():
    # 第四、5: a pair must answer, even split from a tractor or a triple
    assert rule("huizhou", "H3 H3", "H9 H9 H10 H10 HK", "H10 H10").legal
    assert not rule("huizhou", "H3 H3", "H9 H9 H9 HK", "H9 HK").legal


def test_huizhou_triple_lead_else_pair_and_single():
    # 第四、6
    assert not rule("huizhou", "H3 H3 H3", "H9 H9 H9 HK HK HA", "HK HK HA").legal
    assert rule("huizhou", "H3 H3 H3", "H9 H9 HJ HA", "H9 H9 HA").legal


def test_huizhou_3plus3_two_triples_before_3pair_tractor():
    # 第四、9: triples outrank the pair-tractor, unlike school-2016
    hand = "H5 H5 H6 H6 H7 H7 HJ HJ HJ HK HK HK"
    assert rule("huizhou", "H4 H4 H4 H3 H3 H3", hand, "HJ HJ HJ HK HK HK").legal
    assert not rule("huizhou", "H4 H4 H4 H3 H3 H3", hand, "H5 H5 H6 H6 H7 H7").legal
    assert rule("school-2016", "H4 H4 H4 H3 H3 H3", hand, "H5 H5 H6 H6 H7 H7").legal
    assert not rule("school-2016", "H4 H4 H4 H3 H3 H3", hand, "HJ HJ HJ HK HK HK").legal


def test_huizhou_4pair_lead_triple_tractor_before_3pair_tractor():
    # 第四、8: 333444 + a pair before a 3-pair tractor + a pair
    hand = "H7 H7 H7 H8 H8 H8 HA HA H10 H10 HJ HJ HQ HQ"
    assert rule("huizhou", "H3 H3 H4 H4 H5 H5 H6 H6", hand, "H7 H7 H7 H8 H8 H8 HA HA").legal
    assert not rule("huizhou", "H3 H3 H4 H4 H5 H5 H6 H6", hand, "H10 H10 HJ HJ HQ HQ HA HA").legal


# --- guangxi-2012 -----------------------------------------------------------------------------


def test_guangxi_2012_tractor_lead_bomb_answers_as_tractor():
    # 第四章2: a tractor or a bomb if you have one
    hand = "H8 H8 H8 H8 HQ HQ HA HA"
    assert rule("guangxi-2012", "H4 H4 H5 H5", hand, "H8 H8 H8 H8", level="3").legal
    assert not rule("guangxi-2012", "H4 H4 H5 H5", hand, "HQ HQ HA HA", level="3").legal


def test_guangxi_2012_triple_tractor_lead_lone_triple_is_pair_and_single():
    # 第四章2: outside a triple-tractor, a lone triple has nothing to do with a triple-tractor lead
    hand = "H8 H8 H8 H10 HQ HQ HK HK"
    r = rule("guangxi-2012", "H4 H4 H4 H5 H5 H5", hand, "H8 H8 HQ HQ HK HK", level="3")
    assert r.legal
    assert not rule("guangxi-2012", "H4 H4 H4 H5 H5 H5", hand, "H8 H8 H8 H10 HQ HQ", level="3").legal


def test_guangxi_2012_no_gap_over_level_rank():
    # 第三章1: playing 4, side 3 and 5 are not consecutive: 3355 is two pairs
    assert rule("guangxi-2012", "H9 H9 H10 H10", "H3 H3 H5 H5 H6 H6 HA", "H3 H3 H5 H5", level="4").legal is False
    assert rule("guangxi-2012", "H9 H9 H10 H10", "H3 H3 H5 H5 H6 H6 HA", "H5 H5 H6 H6", level="4").legal


# --- perft-like reference counts ------------------------------------------------------------------

PERFT = [
    # (variant, level, lead, hand, number of distinct legal follows)
    ("school-2016", "2", "H3 H3 H4 H4", "H5 H5 H5 H8 H8 HJ HJ HA", 3),  # 8 8 J J, 5 5 8 8, 5 5 J J
    ("school-2016", "2", "H3 H3 H4 H4", "H5 H5 H5 H6 H6 HJ HJ HA", 1),  # only 5 5 6 6
    ("school-2016", "2", "H3", "H5 H9 HK C3", 3),
    ("school-2016", "2", "H3 H3", "H5 C3 C4 D5", 3),  # H5 + one of C3, C4, D5
    ("huizhou", "2", "H4 H4 H4 H3 H3 H3", "H5 H5 H6 H6 H7 H7 HJ HJ HJ HK HK HK", 1),
    ("two-deck-2011", "2", "H3 H3 H4 H4", "H9 H9 HJ HJ HK HA", 1),
    ("two-deck-2011", "2", "H3 H3 H4 H4", "H9 H9 HQ HQ HK HA", 1),
    ("guangxi-2012", "3", "H4 H4 H5 H5", "H8 H8 H8 H8 HQ HQ HK HK", 2),  # the bomb, or QQKK
]


@pytest.mark.parametrize("variant_id,level,lead,hand,expected", PERFT)
def test_perft_legal_follow_counts(variant_id, level, lead, hand, expected):
    order = order_for(variant_id, level, "S")
    follows = legal_follows(order, lead_structure(order, cards(lead)), cards(hand))
    assert len(follows) == expected


def test_every_follow_order_term_has_its_words_short_and_long():
    """A refused follow names the term it falls short on (short words); ``simsuite judge``'s key
    explains every term (long words): both come from ``FOLLOW_TERMS``, one entry a term."""
    assert list(FOLLOW_TERMS) == [f.value for f in FollowField]
    assert all(term.count and term.meaning for term in FOLLOW_TERMS.values())
    assert JUDGE_TERMS == {name: term.meaning for name, term in FOLLOW_TERMS.items()}
