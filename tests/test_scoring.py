"""The end of a hand: captures, bands and the next dealer, clause by clause of each original."""

from __future__ import annotations

import dataclasses

import pytest

from simsuite.rules.scoring import Capture, capture, declarer_levels, defender_levels, outcome
from simsuite.rules.variant import known_ids, load_variant, replace

IDS = ["school-2016", "huizhou", "baiyun-2016", "two-deck-2011", "guangxi-2012"]


def cap(
    vid: str,
    *,
    unit: int = 1,
    trump: bool = True,
    lead: int | None = None,
    winner: int = 1,
    declarers: int = 0,
    trick: int = 0,
    bottom: int = 20,
) -> Capture:
    """The capture of a last trick won by ``winner`` (defenders by default) with ``unit`` cards."""
    return capture(
        load_variant(vid),
        winner_team=winner,
        declarers=declarers,
        unit_cards=unit,
        won_with_trump=trump,
        lead_cards=unit if lead is None else lead,
        trick_points=trick,
        bottom_points=bottom,
    )


# --- captures ---------------------------------------------------------------------------------


@pytest.mark.parametrize("unit, mult", [(1, 3), (2, 6), (3, 9), (4, 12), (6, 18)])
@pytest.mark.parametrize("trump", [True, False])
def test_school_2016_capture_multiplier_per_card(unit, mult, trump):
    """三、(五)(2): single x3, pair x6, triple x9, tractor x12, 3 per card; 三、(五)(1) any suit."""
    c = cap("school-2016", unit=unit, trump=trump, bottom=25)
    assert (c.by, c.multiplier, c.points, c.reason) == ("defenders", mult, 25 * mult, None)


def test_school_2016_throw_counts_its_highest_unit():
    """三、(五): a throw of a pair + 3 singles captures as a pair (x6), not by its 5 cards."""
    assert cap("school-2016", unit=2, lead=5, bottom=10).points == 60


def test_school_2016_declarers_do_not_capture():
    """三、(五): only the defenders capture; a declarers' last trick leaves the points alone."""
    c = cap("school-2016", unit=2, winner=0, declarers=0, bottom=40)
    assert c == Capture(None, 0, 0, "only the defenders capture (capture_by = defenders)")


@pytest.mark.parametrize("unit, mult", [(1, 3), (2, 6), (3, 9), (4, 12), (6, 18)])
def test_huizhou_capture_multiplier_trump(unit, mult):
    """第五、2: trump single x3 (scattered trumps count as a single), pair x6, triple x9, ..."""
    c = cap("huizhou", unit=unit, lead=max(unit, 3), bottom=30)
    assert (c.by, c.multiplier, c.points) == ("defenders", mult, 30 * mult)


@pytest.mark.parametrize("unit", [1, 2, 3, 4])
def test_huizhou_only_trump_captures(unit):
    """第五、2: "主牌才能挖底，副牌不可挖底": a side-suit last trick captures nothing."""
    c = cap("huizhou", unit=unit, trump=False, bottom=30)
    assert c == Capture(None, 0, 0, "only trump captures (capture_with = trump)")


@pytest.mark.parametrize("unit, trump_mult, side_mult", [(1, 2, 1), (2, 4, 2), (4, 8, 4), (6, 12, 6)])
def test_two_deck_2011_side_suit_capture_half(unit, trump_mult, side_mult):
    """三、15: trump single x2, pair x4, tractor x(2 x cards); side x1, x2, x cards."""
    t, s = (
        cap("two-deck-2011", unit=unit, trump=True, bottom=15),
        cap("two-deck-2011", unit=unit, trump=False, bottom=15),
    )
    assert (t.multiplier, t.points) == (trump_mult, 15 * trump_mult)
    assert (s.multiplier, s.points) == (side_mult, 15 * side_mult)


@pytest.mark.parametrize("unit, mult", [(1, 2), (2, 3), (3, 4), (4, 5), (6, 7)])
@pytest.mark.parametrize("trump", [True, False])
def test_baiyun_2016_capture_reconstructed(unit, mult, trump):
    """(八)18 truncated ("3倍 4倍" survive): RECONSTRUCTED single x2, pair x3, triple x4, +1 per card."""
    c = cap("baiyun-2016", unit=unit, trump=trump, bottom=10)
    assert (c.by, c.multiplier, c.points) == ("defenders", mult, 10 * mult)


def test_baiyun_2016_declarers_do_not_capture():
    """(八)18: "防守方抠底": the defenders only."""
    assert cap("baiyun-2016", winner=1, declarers=1).by is None


@pytest.mark.parametrize("lead", [2, 3, 4, 8])
def test_guangxi_2012_defenders_capture_in_place_of_once(lead):
    """第七章2 [default reading]: the trick's points count k times in total, k = cards led."""
    c = cap("guangxi-2012", unit=min(lead, 4), lead=lead, trick=50, bottom=0)
    assert (c.by, c.multiplier, c.points) == ("defenders", lead, 50 * (lead - 1))


@pytest.mark.parametrize("lead", [2, 3, 4, 8])
def test_guangxi_2012_declarers_capture_subtracts(lead):
    """第七章2: "庄家得分则从防守方已获分值中减去", any suit, k times the trick's points."""
    c = cap("guangxi-2012", unit=min(lead, 4), lead=lead, trump=False, winner=1, declarers=1, trick=50)
    assert (c.by, c.multiplier, c.points) == ("declarers", lead, -50 * lead)


@pytest.mark.parametrize("winner", [0, 1])
def test_guangxi_2012_one_card_last_lead_captures_nothing(winner):
    """第七章2: "最后出牌只一张牌不算抠牌", for either side."""
    c = cap("guangxi-2012", unit=1, lead=1, winner=winner, declarers=0, trick=30)
    assert c == Capture(None, 0, 0, "a one-card last lead captures nothing (single_card_captures = false)")


def test_guangxi_2012_example_two_cards_fifty_points():
    """VARIANTS.md guangxi [default]: a 2-card last trick with 50 on it: defenders gain 100 in
    all (50 beyond the trick), declarers take 100 off."""
    assert cap("guangxi-2012", unit=2, trick=50).points == 50
    assert cap("guangxi-2012", unit=2, trick=50, winner=0).points == -100


@pytest.mark.parametrize("vid, mult", [("school-2016", 6), ("huizhou", 6), ("baiyun-2016", 3), ("two-deck-2011", 4)])
def test_capture_of_an_empty_bottom_keeps_its_multiplier(vid, mult):
    """A bottom without points is still captured: the multiplier is reported, the points are 0."""
    c = cap(vid, unit=2, bottom=0)
    assert (c.by, c.multiplier, c.points, c.reason) == ("defenders", mult, 0, None)


def test_single_card_captures_flag_applies_to_bottom_schemes():
    """single_card_captures = false stops a one-card lead under any scheme, not only guangxi's."""
    v = replace(load_variant("school-2016"), single_card_captures=False)
    kw = dict(winner_team=1, declarers=0, won_with_trump=True, trick_points=0, bottom_points=20)
    assert capture(v, unit_cards=1, lead_cards=1, **kw).by is None
    assert capture(v, unit_cards=1, lead_cards=2, **kw).multiplier == 3  # two scattered singles


@pytest.mark.parametrize("unit, mult", [(1, 2), (2, 4), (3, 8), (4, 16)])
def test_power_scheme_doubles_per_card(unit, mult):
    """capture_scheme = power: capture_base ** unit_cards (a common house rule, as a parameter)."""
    v = replace(load_variant("two-deck-2011"), capture_scheme="power", capture_base=2)
    c = capture(
        v,
        winner_team=1,
        declarers=0,
        unit_cards=unit,
        won_with_trump=True,
        lead_cards=unit,
        trick_points=0,
        bottom_points=10,
    )
    assert (c.multiplier, c.points) == (mult, 10 * mult)


def test_either_side_bottom_capture_subtracts_for_declarers():
    """capture_by = either with a bottom scheme: the declarers' capture comes off the defenders."""
    v = replace(load_variant("school-2016"), capture_by="either")
    c = capture(
        v, winner_team=0, declarers=0, unit_cards=2, won_with_trump=True, lead_cards=2, trick_points=0, bottom_points=20
    )
    assert (c.by, c.multiplier, c.points) == ("declarers", 6, -120)


@pytest.mark.parametrize(
    "kw",
    [
        dict(unit_cards=0, lead_cards=1),
        dict(unit_cards=3, lead_cards=2),
        dict(unit_cards=1, lead_cards=1, winner_team=2),
    ],
)
def test_capture_rejects_impossible_tricks(kw):
    args = dict(winner_team=1, declarers=0, won_with_trump=True, trick_points=0, bottom_points=0) | kw
    with pytest.raises(ValueError):
        capture(load_variant("school-2016"), **args)


# --- bands ------------------------------------------------------------------------------------

# (variant, P, defenders take over, levels gained by the winning side): both sides of every edge.
BANDS = {
    "school-2016": [  # 三、(六)
        (-40, False, 4),
        (0, False, 4),
        (25, False, 4),
        (30, False, 3),
        (55, False, 3),
        (60, False, 2),
        (85, False, 2),
        (90, False, 1),
        (115, False, 1),
        (120, True, 0),
        (145, True, 0),
        (150, True, 1),
        (175, True, 1),
        (180, True, 2),
        (205, True, 2),
        (210, True, 3),
        (300, True, 6),
    ],
    "huizhou": [  # 第六
        (-20, False, 3),
        (0, False, 3),
        (5, False, 2),
        (55, False, 2),
        (60, False, 1),
        (115, False, 1),
        (120, True, 0),
        (175, True, 0),
        (180, True, 1),
        (235, True, 1),
        (240, True, 2),
        (295, True, 2),
        (300, True, 3),
    ],
    "baiyun-2016": [  # (八)7, thresholds RECONSTRUCTED as huizhou, plus one per -60 below zero
        (-125, False, 5),
        (-120, False, 5),
        (-115, False, 4),
        (-60, False, 4),
        (-55, False, 3),
        (-5, False, 3),
        (0, False, 3),
        (5, False, 2),
        (55, False, 2),
        (60, False, 1),
        (115, False, 1),
        (120, True, 0),
        (175, True, 0),
        (180, True, 1),
        (235, True, 1),
        (240, True, 2),
        (300, True, 3),
    ],
    "two-deck-2011": [  # 三、16
        (-10, False, 3),
        (0, False, 3),
        (5, False, 2),
        (35, False, 2),
        (40, False, 1),
        (75, False, 1),
        (80, True, 0),
        (115, True, 0),
        (120, True, 1),
        (155, True, 1),
        (160, True, 2),
        (195, True, 2),
        (200, True, 3),
        (235, True, 3),
        (240, True, 4),
    ],
    "guangxi-2012": [  # 第七章1
        (-160, False, 5),
        (-155, False, 4),
        (-80, False, 4),
        (-75, False, 3),
        (-5, False, 3),
        (0, False, 3),
        (5, False, 2),
        (75, False, 2),
        (80, False, 1),
        (155, False, 1),
        (160, True, 0),
        (235, True, 0),
        (240, True, 1),
        (315, True, 1),
        (320, True, 2),
        (400, True, 3),
    ],
}
CASES = [(vid, p, take, n) for vid, rows in BANDS.items() for p, take, n in rows]


@pytest.mark.parametrize("vid, p, take, n", CASES, ids=[f"{v}-{p}" for v, p, _, _ in CASES])
def test_band_edges(vid, p, take, n):
    """school-2016 三、(六), huizhou 第六, baiyun-2016 (八)7, two-deck-2011 三、16, guangxi-2012 第七章1."""
    v = load_variant(vid)
    levels = defender_levels(v, p) if take else declarer_levels(v, p)
    assert levels == n
    o = outcome(v, defender_points=p, declarers=1, dealer=1)
    assert o.takeover is take
    assert o.level_change == ((n, 0) if take else (0, n))


@pytest.mark.parametrize(
    "p, band",
    [
        (-40, "25 and below: declarers +4 (cap)"),
        (25, "25 and below: declarers +4 (cap)"),
        (30, "30-55: declarers +3"),
        (115, "90-115: declarers +1"),
        (120, "120-145: defenders take over"),
        (150, "150-175: defenders take over, defenders +1"),
    ],
)
def test_school_2016_band_edges(p, band):
    """三、(六): 0-25 or negative +4 (the cap); 120-145 take over with no level; +1 per further 30."""
    assert outcome(load_variant("school-2016"), defender_points=p, declarers=0, dealer=0).band == band


def test_school_2016_one_level_win_reading_is_a_parameter():
    """三、(六) "一级胜利" read as +1: takeover_bonus = 1 gives 120 +1, 150 +2 (seed report A2)."""
    v = replace(load_variant("school-2016"), takeover_bonus=1)
    assert [defender_levels(v, p) for p in (120, 145, 150, 180)] == [1, 1, 2, 3]


@pytest.mark.parametrize(
    "vid, p, band",
    [
        ("huizhou", 0, "0: big bald (大光), declarers +3"),
        ("huizhou", -20, "below 0: big bald (大光), declarers +3"),
        ("huizhou", 5, "5-55: declarers +2"),
        ("huizhou", 60, "60-115: declarers +1"),
        ("huizhou", 240, "240-295: defenders take over, defenders +2"),
        ("two-deck-2011", 5, "5-35: declarers +2"),
        ("two-deck-2011", 80, "80-115: defenders take over"),
        ("guangxi-2012", -5, "-75 to -5: below zero, declarers +3"),
        ("guangxi-2012", -80, "-155 to -80: below zero, declarers +4"),
        ("guangxi-2012", 160, "160-235: defenders take over"),
        ("baiyun-2016", -60, "-115 to -60: below zero, declarers +4"),
    ],
)
def test_band_names(vid, p, band):
    """The band names carry the edges of the band, so a log can be checked against the original."""
    assert outcome(load_variant(vid), defender_points=p, declarers=0, dealer=2).band == band


def test_huizhou_big_bald_only_at_zero():
    """第六: 0 is 大光 (+3); 5 is already 小光 (+2): the zero band is exactly 0 and below."""
    v = load_variant("huizhou")
    assert (declarer_levels(v, 0), declarer_levels(v, 5)) == (3, 2)


def test_defender_cap_caps():
    """defender_cap > 0 caps the defenders' gain (two-deck-2011's wrong-bury rule: max 3)."""
    v = replace(load_variant("two-deck-2011"), defender_cap=3)
    assert [defender_levels(v, p) for p in (195, 200, 240, 400)] == [2, 3, 3, 3]
    assert (
        outcome(v, defender_points=240, declarers=0, dealer=0).band
        == "200 and above: defenders take over, defenders +3 (cap)"
    )


@pytest.mark.parametrize("vid", IDS)
def test_levels_are_monotone_and_one_sided(vid):
    """More defender points never help the declarers; exactly one team can gain in a hand."""
    v = load_variant(vid)
    prev_decl, prev_def = 10**9, -1
    for p in range(-2 * v.step, v.total_points + 5, 5):
        o = outcome(v, defender_points=p, declarers=0, dealer=0)
        assert min(o.level_change) == 0
        if o.takeover:
            assert o.level_change[1] >= prev_def
            prev_def = o.level_change[1]
        else:
            assert o.level_change[0] <= prev_decl and prev_def == -1
            prev_decl = o.level_change[0]


@pytest.mark.parametrize("vid", IDS)
def test_level_functions_refuse_the_other_side(vid):
    v = load_variant(vid)
    with pytest.raises(ValueError):
        declarer_levels(v, v.takeover)
    with pytest.raises(ValueError):
        defender_levels(v, v.takeover - 5)


# --- next dealer ------------------------------------------------------------------------------

HOLDERS = ["school-2016", "huizhou", "baiyun-2016", "two-deck-2011"]


@pytest.mark.parametrize("dealer", range(4))
@pytest.mark.parametrize("vid", HOLDERS)
def test_dealer_after_hold_is_partner(vid, dealer):
    """school-2016 三、(六), baiyun-2016 (八)10(3); huizhou, two-deck-2011 [default]: partner deals."""
    v = load_variant(vid)
    o = outcome(v, defender_points=v.takeover - 5, declarers=dealer % 2, dealer=dealer)
    assert (o.takeover, o.next_dealer, o.next_declarers) == (False, (dealer + 2) % 4, dealer % 2)


@pytest.mark.parametrize("dealer", range(4))
@pytest.mark.parametrize("vid", HOLDERS)
def test_dealer_after_takeover_is_old_dealers_next(vid, dealer):
    """school-2016 三、(六) "以原对方庄家的下家为庄家", baiyun-2016 (八)10(4); others [default]."""
    v = load_variant(vid)
    o = outcome(v, defender_points=v.takeover, declarers=dealer % 2, dealer=dealer)
    assert (o.takeover, o.next_dealer, o.next_declarers) == (True, (dealer + 1) % 4, 1 - dealer % 2)


@pytest.mark.parametrize("dealer", range(4))
@pytest.mark.parametrize("p", [-80, 0, 100, 155, 160, 200, 240])
def test_guangxi_2012_deal_rotates_whatever_the_result(p, dealer):
    """第八章4: "坐庄顺序为逆时针双方一起轮": the next seat deals and its team declares."""
    o = outcome(load_variant("guangxi-2012"), defender_points=p, declarers=dealer % 2, dealer=dealer)
    assert (o.next_dealer, o.next_declarers) == ((dealer + 1) % 4, (dealer + 1) % 2)


@pytest.mark.parametrize("p, change", [(100, (1, 0)), (155, (1, 0)), (160, (0, 0)), (235, (0, 0)), (240, (0, 1))])
def test_guangxi_2012_levels_still_move_under_rotation(p, change):
    """第七章1 with 第八章4: 160-235 gains nobody a level; below 160 the declarers, 240+ the defenders."""
    o = outcome(load_variant("guangxi-2012"), defender_points=p, declarers=0, dealer=2)
    assert o.level_change == change
    assert o.next_dealer == 3


@pytest.mark.parametrize("dealer, declarers", [(0, 1), (1, 0), (4, 0), (-1, 1)])
def test_outcome_rejects_a_dealer_off_the_declaring_team(dealer, declarers):
    with pytest.raises(ValueError):
        outcome(load_variant("school-2016"), defender_points=100, declarers=declarers, dealer=dealer)


def test_no_branch_on_variant_id():
    """Scoring reads fields only: a variant under another id scores every hand the same."""
    for vid in known_ids():
        v = load_variant(vid)
        w = dataclasses.replace(v, id="renamed")
        for p in range(-200, v.total_points + 5, 5):
            assert outcome(v, defender_points=p, declarers=1, dealer=3) == outcome(
                w, defender_points=p, declarers=1, dealer=3
            )
        for unit in (1, 2, 4):
            kw = dict(
                winner_team=1,
                declarers=0,
                unit_cards=unit,
                won_with_trump=False,
                lead_cards=4,
                trick_points=40,
                bottom_points=25,
            )
            assert capture(v, **kw) == capture(w, **kw)
