"""The rebuilt ``expert``: positions with a known right answer, played through
``simsuite advise``, and its bury's response to the capture multiplier. ``expert-v1``, the expert
of before, is the frozen reference the duels measure against."""

from __future__ import annotations

import numpy as np
import pytest
from positions import position

from simsuite.analysis.bury import bury_rows
from simsuite.engine.names import policy_code, policy_name
from simsuite.play.advise import advise
from simsuite.rules.cards import format_cards
from simsuite.rules.variant import load_variant

# these tests run code compiled for every policy (search, expert-v1, engine.full.decide_*): tests/conftest.py
pytestmark = pytest.mark.full_loop

TWO = load_variant("two-deck-2011")

# two-deck-2011, spades trump at level 2, NS declaring. N leads the last heart ace (the other was
# played), E follows with H5; S holds HK H4 C3, W has three cards.
FEED_UNSEEN = "C5 C6 C7 D6 D7 D8 H6 H7"  # W's three, N's and E's two each, one in the bottom
FEED_BOTTOM = "D9 D10 DJ DQ C8 C9 C10"


def test_two_deck_2011_expert_feeds_a_partner_sure_to_win():
    # nobody after S can beat the ace (W must follow hearts and no heart above it is unseen):
    # the king's ten points go to the partner
    s = position({}, {"S": "HK H4 C3"}, ["HA", "H5"], "N", "S", FEED_UNSEEN, FEED_BOTTOM)
    assert format_cards(advise(s, TWO, "expert").choice) == "HK"


def test_two_deck_2011_expert_does_not_feed_when_an_opponent_can_ruff():
    # the same trick, but W has shown a void in hearts and may trump: no points on it
    s = position(
        {"voids": {"W": "H"}}, {"S": "HK H4 C3"}, ["HA", "H5"], "N", "S", "C5 C6 C7 D6 D7 D8 S3 S4", FEED_BOTTOM
    )
    assert format_cards(advise(s, TWO, "expert").choice) == "H4"
    # the expert of before fed it anyway (the difference this test pins down)
    assert format_cards(advise(s, TWO, "expert-v1").choice) == "HK"


def test_two_deck_2011_expert_keeps_the_capturing_pair_for_the_last_trick():
    # 三、15: a trump pair on the last trick doubles what a single would (x4 against x2). N, a
    # declarer with five cards, holds both big jokers: nothing can beat that pair, so kept to the
    # end it wins the last trick whatever is led, denying the defenders the bottom. The expert
    # of before drew trumps with it.
    s = position(
        {"dealer": "S"},
        {"N": "BJ BJ SA H3 H4"},
        None,
        None,
        "N",
        "S3 S4 S5 C5 C6 C7 C8 C9 D5 D6 D7 D8 D9 H6 H7",
        "H8 H9 H10 HJ HQ DJ DQ DK",
    )
    assert "BJ" not in format_cards(advise(s, TWO, "expert").choice)
    assert format_cards(advise(s, TWO, "expert-v1").choice) == "BJ BJ"


def test_two_deck_2011_expert_does_not_spend_a_joker_on_a_trick_without_points():
    # N leads S6 (trump); E, a defender, holds BJ S3 C3: only the joker wins, and the trick holds
    # no points, so it plays S3 and keeps the joker (the expert of before took the trick with it)
    s = position(
        {"dealer": "S"}, {"E": "BJ S3 C3"}, ["S6"], "N", "E", "S4 S7 C6 C7 C9 D6 D7 D8", "D9 DJ DQ C8 C4 CJ C3 H6"
    )
    assert format_cards(advise(s, TWO, "expert").choice) == "S3"
    assert format_cards(advise(s, TWO, "expert-v1").choice) == "BJ"


def test_expert_v1_is_a_named_policy():
    assert policy_name(policy_code("expert-v1")) == "expert-v1"
    assert policy_code("expert-v1") != policy_code("expert")


# --- the bury responds to the capture multiplier ---------------------------------------------------


def test_school_2016_expert_buries_fewer_points_as_the_capture_multiplier_grows():
    # school-2016 三、(五)(2): the bottom is multiplied 3 per card of the capturing unit. With no
    # capture, a point in the bottom is safe; at x6 per card it is costly. Same deals both times;
    # the margin (a mean at least twice as high, plus 2 points) fails for a policy that ignores
    # the multiplier, as expert-v1 does (it buries no points at all).
    v = load_variant("school-2016")
    free = bury_rows(v.with_overrides({"capture_per_card": 0, "capture_side_per_card": 0}), "expert", 400, 2)
    dear = bury_rows(v.with_overrides({"capture_per_card": 6, "capture_side_per_card": 6}), "expert", 400, 2)
    assert np.array_equal(free[:, 2], dear[:, 2])  # the same dealers: the same deals
    assert free[:, 0].mean() > 2 * dear[:, 0].mean() + 2


@pytest.mark.parametrize("vid", ["huizhou", "school-2016", "two-deck-2011"])
def test_expert_v1_never_buries_a_point(vid):
    assert bury_rows(load_variant(vid), "expert-v1", 200, 1)[:, 0].sum() == 0


def test_expert_buries_more_points_with_more_trumps():
    # the budget grows with jokers and trump length (Enoch's kitty discipline): among the same
    # deals, the hands with the most trumps bury more points than those with the fewest
    rows = bury_rows(TWO, "expert", 600, 3)
    order = np.argsort(rows[:, 1], kind="stable")
    weak, strong = rows[order[:200], 0], rows[order[-200:], 0]
    assert strong.mean() > weak.mean() + 1
