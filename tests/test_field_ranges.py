"""Every documented value of every rule field plays, or validation refuses it with a message.

The walk: for each field of ``SPECS`` (``docs/variants.md``, "Field ranges") the values it tries
are a numeric range's two ends and a few values between, both booleans, every choice of a choice
field, every rank of a rank field, and for a list of choices the whole list, each choice alone
and the list reversed. Each value is set on each of the five built-in variants together with the
fields that the combination rules tie it to (``_companions``: a deck count that holds the cards
the value needs, a bottom that deals evenly, ``takeover`` no smaller than ``step``, and so on),
the way a user would set them. The variant it gives must then either

* play ``HANDS`` hands under every built-in policy without an engine error, half of them as a
  match's opening hand at the start level and half at the highest level a match reaches (and
  two whole matches for the fields of the match clock, a whole tournament for the tournament's
  fields); or
* be one of the values no companion can make valid (``_refused``: an odd bottom, two permanent
  trump ranks), and then validation refuses it in a message that names the field.

``search`` plays at its cheapest setting that still searches (``search-k1-c2``: one sampled deal,
two candidates, so that every decision samples the unseen cards and plays roll-outs; with one
candidate it would not search at all), and ``SEARCH_HANDS`` hands instead of ``HANDS``: the
default search costs some 40 times as much a hand.

The default run walks a small fixed sample (the ends of the card-counting fields on two variants,
and the refusals); the whole walk, every field on every variant, is ``-m slow``.
"""

from __future__ import annotations

import pytest

from simsuite.compete.competition import make_teams, run_policy_tournament
from simsuite.engine.api import play_batch
from simsuite.engine.core import NC, WORK_LAYOUT
from simsuite.rules.cards import RANK_NAMES
from simsuite.rules.choices import CHOICES
from simsuite.rules.scale import scale_decks
from simsuite.rules.variant import MAX_DECKS, SPEC_BY_NAME, SPECS, Variant, VariantError, even_bottoms, load_variant
from simsuite.sim.match import play_match_batch
from simsuite.sim.spec import check_playable

VARIANTS = ("school-2016", "huizhou", "baiyun-2016", "two-deck-2011", "guangxi-2012")
POLICIES = ("random", "basic", "expert", "expert-v1", "learned", "search-k1-c2")
HANDS = 200
SEARCH_HANDS = 20  # hands of the search (``search-k1-c2``) per value
MATCHES = 2
SUIT_ORDER = ["BJ", "SJ", "S", "H", "D", "C"]


# --- the values a field's documentation allows -----------------------------------------------------


def documented_values(name: str) -> list:
    """The values of ``name`` the walk tries: a range's ends and some between, or every choice."""
    spec = SPEC_BY_NAME[name]
    if spec.kind in ("int", "float"):
        low, high = spec.minimum, spec.maximum
        if spec.kind == "int" and high - low <= 8:
            return list(range(int(low), int(high) + 1))
        step = 5 if name in ("takeover", "step") else 1  # points come in fives
        between = [low + step, (low + high) / 2, high - step]
        values = [low, high] + [step * round(x / step) for x in between]
        if spec.kind == "float":
            values += [0.5]
        cast = int if spec.kind == "int" else float
        return list(dict.fromkeys(cast(v) for v in values))
    if spec.kind == "bool":
        return [False, True]
    if spec.kind == "rank":
        return list(RANK_NAMES)
    if spec.kind == "rank_list":
        return [[]] + [[r] for r in RANK_NAMES] + [["2", "3"]]
    if spec.kind == "choice":
        return list(CHOICES[spec.choices])
    if spec.kind == "choice_list":
        every = list(CHOICES[spec.choices])
        return [every, every[::-1]] + [[c] for c in every]
    if spec.kind == "str_list":  # suit_order
        return [SUIT_ORDER, SUIT_ORDER[::-1], ["S", "H", "D", "C"]]
    raise AssertionError(spec.kind)


WALKED = [s.name for s in SPECS if s.section != "about" or s.name == "version"]


def _refused(name: str, value) -> bool:
    """The values that no companion makes valid: validation must refuse them."""
    if name == "bottom_size":
        return not any(value in even_bottoms(d) for d in range(1, MAX_DECKS + 1))
    if name == "permanent_trump_ranks":
        return len(value) > 1
    return False


# --- the fields a value is set with ------------------------------------------------------------------


def _with_decks(base: Variant, decks: int) -> dict:
    """``base`` moved to ``decks`` decks (bottom, thresholds and units scaled alike), as overrides."""
    return {} if decks == base.decks else scale_decks(base, decks)


def _companions(base: Variant, name: str, value) -> dict:
    """The overrides a user sets beside ``name = value`` on ``base`` so that the combination rules
    (``variant._check_consistency``) hold: enough decks for the cards the value needs, a bottom that
    deals evenly, thresholds in order, and so on."""
    out: dict = {}
    if name == "decks":
        return scale_decks(base, value)
    if name == "bottom_size":
        fits = [d for d in range(1, MAX_DECKS + 1) if value in even_bottoms(d)]
        if fits:
            out = _with_decks(base, min(fits, key=lambda d: (abs(d - base.decks), d)))
    elif name in ("max_unit", "min_declare", "min_override"):
        out = _with_decks(base, max(base.decks, value))
        if name == "max_unit":
            if value < 3:
                out["wide_tractors"] = False
            if value < 4:
                out["bombs"] = False
        if name == "min_declare" and value > base.min_override:
            out["min_override"] = value
        if name == "min_override" and value < base.min_declare:
            out["min_declare"] = value
    elif name == "wide_tractors" and value:
        out = _with_decks(base, max(base.decks, 3))
        out["max_unit"] = max(base.max_unit, 3)
    elif name == "bombs" and value:
        out = _with_decks(base, MAX_DECKS)
        out["max_unit"] = MAX_DECKS
    elif name in ("takeover", "step"):
        out = _with_decks(base, max(base.decks, -(-value // 100)))
        takeover, step = out.get("takeover", base.takeover), out.get("step", base.step)
        if name == "takeover" and step > value:
            out["step"] = value
        if name == "step" and value > takeover:
            out["takeover"] = value
    elif name in ("start_level", "end_level", "permanent_trump_ranks"):
        start, end = RANK_NAMES[base.start_level], RANK_NAMES[base.end_level]
        perm = [RANK_NAMES[r] for r in base.permanent_trump_ranks]
        if name == "start_level":
            start, end = value, RANK_NAMES[max(base.end_level, RANK_NAMES.index(value))]
            perm = [r for r in perm if r != value]
        elif name == "end_level":
            end = value
            start = RANK_NAMES[min(base.start_level, RANK_NAMES.index(value))]
            perm = [r for r in perm if r != start]
        else:
            perm = value
            if start in perm:
                start = next(r for r in RANK_NAMES if r not in perm)
                end = RANK_NAMES[max(base.end_level, RANK_NAMES.index(start))]
        out = {"start_level": start, "end_level": end, "permanent_trump_ranks": perm}
    elif name == "tie_break" and value == "suit_order":
        out["suit_order"] = SUIT_ORDER
    elif name == "suit_order":
        out["tie_break"] = "suit_order"
    elif name == "tournament_format" and value == "knockout" and base.tie_rule == "draw":
        out["tie_rule"] = "on_stage"  # a knock-out match must have a winner
    elif name == "tie_rule" and value == "draw" and base.tournament_format == "knockout":
        out["tournament_format"] = "swiss"  # a format where a match may end level
    elif name == "match_minutes" and base.warning_minute > value:
        out["warning_minute"] = value
    elif name == "warning_minute" and base.match_minutes and value > base.match_minutes:
        out["match_minutes"] = value
    elif name in ("points_win", "points_draw", "points_loss"):
        win, draw, loss = base.points_win, base.points_draw, base.points_loss
        if name == "points_win":
            win, draw, loss = value, min(draw, value), min(loss, value)
        elif name == "points_draw":
            win, draw, loss = max(win, value), value, min(loss, value)
        else:
            win, draw, loss = max(win, value), max(draw, value), value
        out = {"points_win": win, "points_draw": draw, "points_loss": loss}
    out.pop(name, None)
    return out


# --- playing a value -----------------------------------------------------------------------------------


def _top_level(v: Variant) -> int:
    """The highest level a match of ``v`` plays (a permanent trump rank is never a level)."""
    return max(r for r in range(v.start_level, v.end_level + 1) if r not in v.permanent_trump_ranks)


def _plays(v: Variant, policies=POLICIES, hands: int = HANDS, section: str = "") -> None:
    """``v`` plays ``hands`` hands under each of ``policies``, and for a field of the match clock a
    few matches, for a tournament field a tournament of four teams (two for a session); each
    raises on an illegal play or a tournament it cannot finish."""
    check_playable(v, v.id)
    for seed, policy in enumerate(policies, start=1):
        n = min(hands, SEARCH_HANDS) if policy.startswith("search") else hands
        play_batch(v, seed, n // 2, policy, first_hand=True)
        play_batch(v, seed, n - n // 2, policy, level=_top_level(v), first_hand=False, start=n)
    if section == "match":
        play_match_batch(v, 1, 0, MATCHES, "expert,basic")
    if section == "tournament":
        teams = make_teams(2 if v.tournament_format == "session" else 4, ["basic", "random"])
        run_policy_tournament(v, teams, 1)


def check_value(variant_id: str, name: str, value, policies=POLICIES, hands: int = HANDS) -> str:
    """``name = value`` on ``variant_id`` plays or is refused as ``_refused`` says: "plays" or "refused"."""
    base = load_variant(variant_id)
    overrides = {**_companions(base, name, value), name: value}
    if _refused(name, value):
        with pytest.raises(VariantError) as info:
            base.with_overrides(overrides)
        assert name in str(info.value), (name, value, str(info.value))
        return "refused"
    try:
        v = base.with_overrides(overrides)
    except VariantError as exc:
        raise AssertionError(
            f"{variant_id}: {name} = {value!r} is documented but refused (with {overrides}): {exc}"
        ) from None
    try:
        _plays(v, policies, hands, section=SPEC_BY_NAME[name].section)
    except ValueError as exc:
        raise AssertionError(
            f"{variant_id}: {name} = {value!r} (with {overrides}) passes validation but does not play: {exc}"
        ) from None
    return "plays"


# --- the default run: a fixed sample -------------------------------------------------------------------


def test_the_deck_range_ends_where_the_engine_deals():
    """The deal row of the engine's work buffer holds ``MAX_DECKS`` decks and no more: the range of
    ``decks`` (and every field counting cards) is what the engine can deal."""
    (shape,) = [shape for name, shape in WORK_LAYOUT if name == "hl"]
    assert shape[1] == NC * MAX_DECKS
    assert SPEC_BY_NAME["decks"].maximum == MAX_DECKS
    assert SPEC_BY_NAME["bottom_size"].maximum == NC * MAX_DECKS - 4


@pytest.mark.parametrize("value", [0, 5, 8, 100])
def test_decks_beyond_the_engine_are_refused_with_the_reason(value):
    with pytest.raises(VariantError) as info:
        load_variant("school-2016").with_overrides({"decks": value})
    assert f"decks = {value}: out of range: must be from 1 to 4 (the engine deals at most 4 decks, 216 cards)" in str(
        info.value
    )


def test_bottom_size_that_does_not_deal_evenly_names_the_sizes_that_do():
    """school-2016 has 3 decks (162 cards): the bottom sizes that deal evenly are 2, 6, 10, ..."""
    with pytest.raises(VariantError) as info:
        load_variant("school-2016").with_overrides({"bottom_size": 8})
    message = str(info.value)
    assert "54 x 3 - 8 = 154 is not a multiple of 4 players" in message
    assert "with 3 deck(s) the bottom sizes that deal evenly are 2, 6, 10, 14, ... 158" in message
    assert even_bottoms(3)[:3] == [2, 6, 10] and even_bottoms(2)[:3] == [0, 4, 8]


def test_bottom_size_that_leaves_no_cards_names_the_sizes_that_deal():
    with pytest.raises(VariantError) as info:
        load_variant("two-deck-2011").with_overrides({"bottom_size": 108})
    assert "leaves no cards to deal" in str(info.value) and "0, 4, 8, 12, ... 104" in str(info.value)


def test_two_permanent_trump_ranks_are_refused_by_validation():
    """The engine plays one permanent trump rank: two are refused before anything is played."""
    with pytest.raises(VariantError) as info:
        load_variant("guangxi-2012").with_overrides({"permanent_trump_ranks": ["2", "3"]})
    assert "permanent_trump_ranks lists 2 ranks" in str(info.value)


def test_a_knockout_with_drawn_matches_at_time_is_refused_by_validation():
    """A knock-out match must have a winner: a timed match whose tie rule is a draw cannot be one."""
    with pytest.raises(VariantError) as info:
        load_variant("school-2016").with_overrides({"tournament_format": "knockout"})
    assert 'tournament_format = "knockout" needs tie_rule = "on_stage"' in str(info.value)
    load_variant("school-2016").with_overrides({"tournament_format": "knockout", "tie_rule": "on_stage"})


def test_every_field_is_walked_with_values():
    """The walk covers every rule field, and every value it tries of a numeric field is inside the
    documented range, with both ends among them."""
    for name in WALKED:
        values = documented_values(name)
        assert values, name
        spec = SPEC_BY_NAME[name]
        if spec.kind in ("int", "float"):
            assert all(spec.minimum <= v <= spec.maximum for v in values), (name, values)
            assert spec.minimum in values and spec.maximum in values, name


SAMPLE = [  # (variant, field, value): the card-counting ranges' ends, on a three- and a four-deck variant
    ("school-2016", "decks", 1),
    ("school-2016", "decks", 4),
    ("guangxi-2012", "decks", 2),
    ("school-2016", "bottom_size", 0),
    ("school-2016", "bottom_size", 212),
    ("guangxi-2012", "bottom_size", 158),
    ("school-2016", "bottom_size", 1),  # refused: no deck count deals it evenly
    ("school-2016", "max_unit", 1),
    ("two-deck-2011", "max_unit", 4),
    ("huizhou", "min_declare", 4),
    ("school-2016", "takeover", 5),
    ("two-deck-2011", "step", 400),
    ("school-2016", "fallback", "redeal"),
    ("guangxi-2012", "permanent_trump_ranks", ["A"]),
    ("guangxi-2012", "permanent_trump_ranks", ["2", "3"]),  # refused: the engine plays one permanent rank
    ("baiyun-2016", "capture_per_card", 100),
    ("school-2016", "match_minutes", 1440),
    ("school-2016", "tournament_format", "knockout"),
    ("two-deck-2011", "rounds", 1),
]


@pytest.mark.full_loop
@pytest.mark.parametrize("variant_id, name, value", SAMPLE, ids=[f"{v}-{n}-{x}" for v, n, x in SAMPLE])
def test_sampled_documented_value_plays_or_is_refused(variant_id, name, value):
    """A fixed sample of the walk below, under every built-in policy (search as in the walk), 40
    hands each: the ends of the ranges that count cards."""
    expected = "refused" if _refused(name, value) else "plays"
    assert check_value(variant_id, name, value, hands=40) == expected


# --- the whole walk ------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.full_loop
@pytest.mark.parametrize("name", WALKED)
def test_every_documented_value_plays_or_is_refused(variant_id, name):
    """Every value the walk tries of ``name`` on ``variant_id``: plays ``HANDS`` hands under every
    built-in policy, or is one of the refusals, refused by validation with the field named."""
    for value in documented_values(name):
        check_value(variant_id, name, value)
