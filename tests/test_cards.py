"""Card notation: parsing, formatting, count vectors and points."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from simsuite.errors import CardError
from simsuite.rules.cards import (
    BIG_JOKER,
    NOTATION_HELP,
    SMALL_JOKER,
    cards_to_counts,
    counts_to_cards,
    format_card,
    format_cards,
    full_deck,
    make_card,
    parse_card,
    parse_cards,
    parse_counts,
    points_of,
)

S, H, D, C = range(4)
JACK = 9
SPADE_JACK = make_card(S, JACK)  # id 9
ALL_BUT_SPADE_JACK = [c for c in range(54) if c != SPADE_JACK]


def test_parse_basic_cards():
    assert parse_cards("H5 S10 DA C2 SJ BJ") == [
        make_card(H, 3),
        make_card(S, 8),
        make_card(D, 12),
        make_card(C, 0),
        SMALL_JOKER,
        BIG_JOKER,
    ]


def test_parse_empty_text_is_no_cards():
    assert parse_cards("") == [] and parse_cards("   ") == []


def test_t_is_ten_and_formats_as_10():
    assert parse_card("HT") == parse_card("H10") == make_card(H, 8)
    assert format_card(parse_card("HT")) == "H10"
    assert format_cards(parse_cards("HT ST"), sort=False) == "H10 S10"


def test_lower_case_is_accepted():
    assert parse_cards("h5 dq bj") == parse_cards("H5 DQ BJ")


def test_jokers_round_trip():
    assert format_cards([SMALL_JOKER, BIG_JOKER], sort=False) == "SJ BJ"
    assert parse_cards("SJ BJ") == [SMALL_JOKER, BIG_JOKER]


def test_format_symbols():
    assert format_cards(parse_cards("S10 HA D2 CK"), symbols=True, sort=False) == "♠10 ♥A ♦2 ♣K"
    assert format_cards(parse_cards("S10 HA D2 CK"), symbols=False, sort=False) == "S10 HA D2 CK"
    assert format_card(BIG_JOKER, symbols=True) == "BJ"


def test_format_sorts_jokers_first_then_suits_high_to_low():
    assert format_cards(parse_cards("C2 H5 BJ SA SJ H10")) == "BJ SJ SA H10 H5 C2"


def test_format_count_vector():
    counts = cards_to_counts(parse_cards("H5 H5 BJ"))
    assert format_cards(counts) == "BJ H5 H5"


def test_round_trip_every_card_but_the_spade_jack():
    text = format_cards(ALL_BUT_SPADE_JACK, sort=False)
    assert parse_cards(text) == ALL_BUT_SPADE_JACK
    assert format_cards(parse_cards(text), sort=False) == text


def test_spade_jack_round_trips():
    assert format_card(SPADE_JACK) != format_card(SMALL_JOKER)
    assert parse_cards(format_cards([SPADE_JACK], sort=False)) == [SPADE_JACK]


@given(st.lists(st.sampled_from(ALL_BUT_SPADE_JACK), max_size=60))
def test_round_trip_property_without_spade_jack(ids):
    assert parse_cards(format_cards(ids, sort=False)) == ids


@given(st.lists(st.integers(min_value=0, max_value=53), max_size=60))
@example([SPADE_JACK])
def test_round_trip_property(ids):
    assert parse_cards(format_cards(ids, sort=False)) == ids


@pytest.mark.parametrize("token", ["X5", "H11", "H", "S1", "HJJ", "10H", "B", "SJ5"])
def test_bad_token_quotes_token_and_notation(token):
    with pytest.raises(CardError) as info:
        parse_cards(f"H5 {token} S3")
    msg = str(info.value)
    assert repr(token) in msg
    assert NOTATION_HELP in msg


def test_card_error_is_a_value_error():
    with pytest.raises(ValueError):
        parse_card("Z9")


def test_counts_more_copies_than_decks_names_the_card():
    with pytest.raises(CardError) as info:
        cards_to_counts(parse_cards("H5 H5 H5 S3"), decks=2, what="the hand")
    msg = str(info.value)
    assert "3 x H5" in msg and "2 deck" in msg and "the hand" in msg
    assert "S3" not in msg


def test_counts_within_decks_is_fine():
    counts = parse_counts("H5 H5 H5 BJ", decks=3)
    assert counts.dtype == np.int8
    assert counts[make_card(H, 3)] == 3 and counts[BIG_JOKER] == 1 and counts.sum() == 4
    assert counts_to_cards(counts) == sorted(parse_cards("H5 H5 H5 BJ"))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_counts_many_copies_do_not_wrap():
    with pytest.raises(CardError):
        cards_to_counts([make_card(H, 3)] * 256, decks=2)


@pytest.mark.parametrize("decks", [1, 2, 3, 4])
def test_points_of_full_deck(decks):
    assert points_of(full_deck(decks)) == 100 * decks


def test_points_of_point_cards():
    assert points_of(parse_counts("H5 S10 DK CQ BJ SJ")) == 25
    assert points_of(parse_counts("")) == 0
