"""Matches and the match clock: end conditions, rotation, every clock rule, results at time.

Clock tests fix the duration of every hand through overrides (hand_overhead_minutes, with
seconds_per_trick = 0), so the clock arithmetic is exact."""

from __future__ import annotations

import pytest

from simsuite.engine.match import match_winner
from simsuite.errors import SimsuiteError
from simsuite.rules.variant import load_variant
from simsuite.sim.match import hand_cap, play_match, play_match_batch

IDS = ["school-2016", "huizhou", "baiyun-2016", "two-deck-2011", "guangxi-2012"]


def fixed(variant_id, minutes_per_hand, **more):
    v = load_variant(variant_id)
    return v.with_overrides({"hand_overhead_minutes": minutes_per_hand, "seconds_per_trick": 0, **more})


@pytest.mark.parametrize("vid", IDS)
def test_match_same_seed_same_record(vid):
    a = play_match(load_variant(vid), 5, 3, "expert,basic")
    b = play_match(load_variant(vid), 5, 3, "expert,basic")
    assert a == b


@pytest.mark.parametrize("vid", IDS)
def test_match_batch_equals_single_matches(vid):
    v = load_variant(vid)
    batch = play_match_batch(v, 9, 2, 3, "basic")
    for i in range(3):
        m = play_match(v, 9, 2 + i, "basic")
        assert batch.hand_count[i] == m.hands
        assert tuple(batch.matches[i, 2:4]) == m.final_levels


@pytest.mark.parametrize("vid", IDS)
def test_match_levels_follow_every_hand(vid):
    """Levels move exactly by each hand's gains; the declaring team plays at its own level; the
    next hand's dealer and declarers are the previous hand's outcome."""
    v = load_variant(vid)
    m = play_match(v, 11, 0, "expert,basic")
    levels = [v.start_level, v.start_level]
    for i, h in enumerate(m.hand_records):
        if i > 0:
            prev = m.hand_records[i - 1]
            assert h["dealer"] == prev["next_dealer"] and h["declarers"] == prev["next_declarers"]
            assert h["level"] == levels[h["declarers"]]
        else:
            assert h["level"] == v.start_level
        levels = [levels[0] + h["levels_ns"], levels[1] + h["levels_ew"]]
        assert tuple(levels) == m.level_history[i]
    assert m.final_levels == tuple(levels)


@pytest.mark.parametrize("vid", IDS)
def test_match_ends_by_its_variant_rule(vid):
    v = load_variant(vid)
    for k in range(6):
        m = play_match(v, 21, k, "expert,basic")
        if m.ended_by == "level":
            assert max(m.final_levels) > v.end_level
            assert m.winner == (0 if m.final_levels[0] > m.final_levels[1] else 1)
        elif m.ended_by == "clock":
            assert v.match_minutes > 0 and max(m.final_levels) <= v.end_level
        else:
            assert v.match_minutes == 0


def test_huizhou_untimed_match_ends_past_its_end_level_10():
    # 第四、1: levels 2 .. 10; no clock: the match ends when a team passes 10
    v = load_variant("huizhou")
    m = play_match(v, 1, 0, "expert,basic")
    assert m.ended_by == "level" and max(m.final_levels) > v.end_level and v.end_level == 8


def test_guangxi_2012_first_past_a_wins():
    v = load_variant("guangxi-2012").with_overrides({"match_minutes": 0})
    m = play_match(v, 2, 0, "expert,random")
    assert m.ended_by == "level" and m.winner == 0 and m.final_levels[0] > 12


def test_guangxi_2012_deal_rotates_every_hand():
    # 第八章4: the deal passes counter-clockwise to the next seat whatever the result
    m = play_match(load_variant("guangxi-2012"), 4, 0, "basic")
    dealers = [h["dealer"] for h in m.hand_records]
    assert all((b - a) % 4 == 1 for a, b in zip(dealers, dealers[1:]))


@pytest.mark.parametrize("vid", ["school-2016", "baiyun-2016", "two-deck-2011", "huizhou"])
def test_dealer_after_hold_is_partner_after_takeover_is_next(vid):
    # school-2016 三、(六), baiyun-2016 (八)10(3)(4); [default] for huizhou and two-deck-2011
    seen = set()
    for k in range(8):
        m = play_match(load_variant(vid), 30, k, "basic")
        for a, b in zip(m.hand_records, m.hand_records[1:]):
            if a["takeover"]:
                assert b["dealer"] == (a["dealer"] + 1) % 4
                seen.add("takeover")
            else:
                assert b["dealer"] == (a["dealer"] + 2) % 4
                seen.add("hold")
    assert seen == {"takeover", "hold"}


def test_school_2016_warning_at_80_finish_hand_then_one_more():
    # 一、2: at 80 minutes finish the hand in play, then play one more
    m = play_match(fixed("school-2016", 15), 1, 0, "basic")
    assert m.ended_by == "clock"
    if True:
        # hands end at 15, 30, ..., 75, 90: the warning falls in hand 6, then hand 7
        assert m.hands == 7 and m.minutes == 105
    m = play_match(fixed("school-2016", 10), 1, 0, "basic")
    assert m.ended_by == "clock"
    if True:
        # the warning falls exactly at the end of hand 8 (minute 80): one more, 9 hands
        assert m.hands == 9 and m.minutes == 90


def test_baiyun_2016_warning_then_two_more_hands():
    # (八)4: a warning 10 minutes before the end, then two more hands
    m = play_match(fixed("baiyun-2016", 12), 3, 0, "basic")
    assert m.ended_by == "clock"
    if True:
        # hands end at 12, 24, 36, 48, 60: the warning (50) falls in hand 5, then 2 more
        assert m.hands == 7 and m.minutes == 84


def test_two_deck_2011_no_new_hand_in_the_last_8_minutes():
    # 五: no new hand in the last 8 minutes of 90
    m = play_match(fixed("two-deck-2011", 20), 1, 0, "basic")
    assert m.ended_by == "clock"
    if True:
        assert m.hands == 5 and m.minutes == 100  # starts at 0, 20, 40, 60, 80 (< 82)
    m = play_match(fixed("two-deck-2011", 10), 1, 0, "basic")
    assert m.ended_by == "clock"
    if True:
        assert m.hands == 9  # starts at 0 .. 80; at 90 the last 8 minutes have begun


def test_guangxi_2012_session_clock_finishes_the_hand_in_play():
    # 第一章6: 19:30-22:00; no hand starts after the time is up; the hand in play is finished [default]
    m = play_match(fixed("guangxi-2012", 40), 1, 0, "basic")
    assert m.ended_by == "clock"
    if True:
        assert m.hands == 4 and m.minutes == 160  # starts at 0, 40, 80, 120


@pytest.mark.parametrize("minutes", [7, 11, 13])
def test_clock_rules_hold_for_any_hand_length(minutes):
    clocked = 0
    for vid in ["school-2016", "baiyun-2016", "two-deck-2011", "guangxi-2012"]:
        v = fixed(vid, minutes)
        for k in range(3):
            m = play_match(v, 40 + minutes, k, "basic")
            if m.ended_by != "clock":
                continue
            clocked += 1
            starts = [i * minutes for i in range(m.hands)]
            if v.no_new_hand_minutes:
                assert all(t < v.match_minutes - v.no_new_hand_minutes for t in starts)
                assert m.minutes >= v.match_minutes - v.no_new_hand_minutes
            elif v.warning_minute:
                warned = next(i for i in range(m.hands) if (i + 1) * minutes >= v.warning_minute)
                assert m.hands == warned + 1 + v.hands_after_warning
            else:
                assert all(t < v.match_minutes for t in starts) and m.minutes >= v.match_minutes
    assert clocked >= 10


def test_result_at_time_higher_level_wins():
    assert match_winner(5, 3, 0, 1) == 0 and match_winner(3, 5, 1, 0) == 1


def test_baiyun_2016_equal_levels_at_time_is_a_draw():
    # (八)2: a draw scores 1 each
    assert match_winner(4, 4, 0, 1) == -1


def test_two_deck_2011_equal_levels_team_on_stage_wins():
    # 五: "双方同级则在最后一局计算，上台者获胜": the team declaring after the last hand
    assert match_winner(4, 4, 1, 1) == 1 and match_winner(4, 4, 1, 0) == 0


def test_untimed_match_without_hand_cap_cannot_end():
    v = load_variant("huizhou")
    with pytest.raises(SimsuiteError, match="may never end"):
        hand_cap(v, 0)


def test_timed_match_with_zero_duration_hands_cannot_end():
    v = fixed("school-2016", 0)
    with pytest.raises(SimsuiteError, match="clock never runs out"):
        hand_cap(v)


def test_untimed_match_stops_at_the_hand_cap():
    m = play_match(load_variant("huizhou"), 1, 0, "basic", max_hands=3)
    assert m.hands == 3 and m.ended_by == "hand cap"


def test_must_defend_end_level_caps_defenders_at_the_end_level():
    v = load_variant("guangxi-2012").with_overrides({"match_minutes": 0, "must_defend_end_level": True})
    for k in range(3):
        m = play_match(v, 8, k, "expert,random")
        hist = [(v.start_level, v.start_level)] + m.level_history
        for i, h in enumerate(m.hand_records):
            before, after = hist[i], hist[i + 1]
            for t in range(2):
                if after[t] > v.end_level:
                    # only a team that declared at the end level can pass it
                    assert h["declarers"] == t and before[t] == v.end_level
