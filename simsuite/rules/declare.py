"""Declaring trump (亮主 / 反主): ruling the bids made during the draw, one at a time.

A bid shows ``n`` identical cards: ``n`` copies of one suit's level card, or, where the variant
lets jokers bid, ``n`` copies of one joker (a no-trump bid, named BJ or SJ). The first accepted
bid *declares*; a bid from another seat *overrides* it when it shows enough cards
(``min_override``) and beats it (more cards; equal counts by ``tie_break``); the standing
declarer may *reinforce* by showing more copies of the same card. Everything else is rejected,
with a reason naming the rule, so a referee (or a test) can see why.

Bids are ruled in the order given. With ``bidding = "concealed"`` (guangxi-2012's 暗叫) that is
the order in which the bids are revealed; the ruling itself is the same.

Pure: no I/O; the only randomness (huizhou's random bottom card) comes from the ``rng`` passed in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import SimsuiteError
from .cards import (
    BIG_JOKER,
    N_CARDS,
    RANK_NAMES,
    SMALL_JOKER,
    SUIT_LETTERS,
    card_rank,
    card_suit,
    format_card,
    format_cards,
)
from .choices import Fallback, JokerBids, SelfOverrideScope, TieBreak
from .order import NO_TRUMP
from .variant import Variant

SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")


@dataclass(frozen=True)
class BidRuling:
    """The ruling on one bid. ``reason`` is None exactly when the bid was accepted."""

    seat: int  # 0..3 = N, E, S, W
    cards: tuple[int, ...]  # card ids as shown
    accepted: bool
    reason: str | None
    kind: str  # "declare" | "override" | "reinforce" | "rejected"


@dataclass(frozen=True)
class DeclareRuling:
    """The outcome of a hand's declaring: every bid's ruling, then trump, declarer and dealer."""

    bids: tuple[BidRuling, ...]
    trump: int | None  # suit 0..3, NO_TRUMP, or None when undecided (redeal, no card drawn)
    declarer: int | None  # seat whose declaration stands
    dealer: int | None  # the seat that deals this hand
    count: int  # cards in the standing declaration (0 when nobody declared)
    fallback: str | None  # what happened when nobody declared, in one sentence


def bid_name(card: int) -> str:
    """The name a bid ranks by in ``suit_order``: "BJ", "SJ" or a suit letter."""
    return "BJ" if card == BIG_JOKER else "SJ" if card == SMALL_JOKER else SUIT_LETTERS[card_suit(card)]


def _cards_phrase(n: int) -> str:
    return "a single card" if n == 1 else f"{n} cards"


def _kind_phrase(card: int) -> str:
    return "jokers of the same colour" if card >= SMALL_JOKER else "identical level cards"


def read_bid(variant: Variant, level: int, cards: Sequence[int], first_hand: bool) -> tuple[int, int] | str:
    """What a bid shows: ``(card, n)``, or the reason it is no bid at all.

    This checks only the bid's own cards; whether it may declare or override is ruled by
    ``rule_bids``, which knows the standing declaration.
    """
    if not cards:
        return "a bid must show cards, and this one shows none"
    bad = [c for c in cards if not (isinstance(c, (int, np.integer)) and 0 <= c < N_CARDS)]
    if bad:
        return f"{bad[0]!r} is not a card id (ids are 0..{N_CARDS - 1})"
    over = sorted({c for c in cards if list(cards).count(c) > variant.decks})
    if over:
        c = over[0]
        return f"it shows {list(cards).count(c)} x {format_card(c)}, but {variant.decks} deck(s) hold only {variant.decks} of each card"
    rest = list(cards)
    if first_hand and variant.first_hand_needs_small_joker:
        # Our default reading of guangxi-2012 第二章1 ("开局…叫牌必须带一张小王"): the small
        # joker is a ticket to bid, not part of the bid; only the level cards shown with it count.
        if SMALL_JOKER not in rest:
            return "in the opening hand a bid must include a small joker (first_hand_needs_small_joker)"
        rest = [c for c in rest if c != SMALL_JOKER]
        if not rest:
            return (
                "in the opening hand a bid needs level cards besides the small joker, "
                "which does not count toward the bid (first_hand_needs_small_joker)"
            )
    if len(set(rest)) > 1:
        return f"a bid shows identical cards only, and {format_cards(rest, sort=False)} are mixed"
    card, n = int(rest[0]), len(rest)
    if card >= SMALL_JOKER:
        if variant.joker_bids == JokerBids.NONE:
            return f"jokers cannot declare (joker_bids = none): {format_card(card)} is not a bid"
        if not variant.no_trump:
            return "a joker bid would mean no-trump, and this variant has no no-trump (no_trump = false)"
        if variant.joker_bids == JokerBids.PAIR_NO_TRUMP and n < 2:
            return "a single joker cannot declare: 2 or more jokers of the same colour are needed (joker_bids = pair_no_trump)"
        return card, n
    if card_rank(card) != level:
        lv = RANK_NAMES[level]
        return f"{format_card(card)} is not a level card: only {lv}s declare at level {lv}"
    return card, n


def _tie_winner(variant: Variant, new: int, old: int) -> str | None:
    """None when ``new`` beats ``old`` at an equal count, else the reason it does not."""
    if variant.tie_break == TieBreak.FIRST_STANDS:
        return "the first declaration stands (tie_break = first_stands)"
    order = variant.suit_order
    rank = {name: i for i, name in enumerate(order)}
    a, b = bid_name(new), bid_name(old)
    if a == b:
        return f"the same card ({a}) does not beat the standing declaration"
    # A name missing from suit_order ranks below every listed name.
    if rank.get(a, len(order)) < rank.get(b, len(order)):
        return None
    return f"{a} does not rank above {b} in suit_order {' > '.join(order)} (tie_break = suit_order)"


def _fallback(
    variant: Variant, bottom: Sequence[int] | None, rng: np.random.Generator | None
) -> tuple[int | None, str]:
    """Trump and a one-sentence account when nobody declared, per ``variant.fallback``."""
    how = variant.fallback
    lead = "nobody declared"
    if how == Fallback.REDEAL:
        return None, f"{lead}: the cards are redealt (fallback = redeal)"
    if not bottom:
        what = "empty" if bottom is not None else "not given"
        return None, f"{lead}: fallback = {how} needs the bottom, which is {what}; trump is undecided"
    suited = [int(c) for c in bottom if c < SMALL_JOKER]
    if how == Fallback.TURN_UP_BOTTOM:
        first = int(bottom[0])
        if first < SMALL_JOKER:
            return card_suit(
                first
            ), f"{lead}: the bottom's first card {format_card(first)} makes {SUIT_NAMES[card_suit(first)]} trump"
        if variant.no_trump:
            return NO_TRUMP, f"{lead}: the bottom's first card {format_card(first)} is a joker, so the hand is no-trump"
        if not suited:
            return None, f"{lead}: the bottom holds only jokers and no-trump is not allowed; trump is undecided"
        c = suited[0]
        return card_suit(c), (
            f"{lead}: the bottom's first card {format_card(first)} is a joker and no-trump is not allowed, "
            f"so its first non-joker {format_card(c)} makes {SUIT_NAMES[card_suit(c)]} trump"
        )
    if not suited:
        return None, f"{lead}: the bottom holds only jokers, so fallback = {how} finds no card; trump is undecided"
    if how == Fallback.FIRST_NON_JOKER_OF_BOTTOM:
        c = suited[0]
        return card_suit(
            c
        ), f"{lead}: the bottom's first non-joker {format_card(c)} makes {SUIT_NAMES[card_suit(c)]} trump"
    if how == Fallback.RANDOM_BOTTOM_CARD:
        if rng is None:
            return None, f"{lead}: a random bottom card decides, jokers excluded (no rng given, so none was drawn yet)"
        c = suited[int(rng.integers(len(suited)))]
        return (
            card_suit(c),
            f"{lead}: a random bottom card decides, jokers excluded: {format_card(c)} makes {SUIT_NAMES[card_suit(c)]} trump",
        )
    raise SimsuiteError(f"unknown fallback {how!r}")


def _own(variant: Variant, seat: int, declarer: int) -> bool:
    """Is ``seat`` the declarer's "self": the seat, or with ``self_override_scope = side`` its partner too."""
    return seat == declarer or (variant.self_override_scope == SelfOverrideScope.SIDE and seat % 2 == declarer % 2)


def rule_bids(
    variant: Variant,
    level: int,
    bids: Sequence[tuple[int, Sequence[int]]],
    *,
    first_hand: bool = False,
    dealer: int | None = None,
    bottom: Sequence[int] | None = None,
    rng: np.random.Generator | None = None,
) -> DeclareRuling:
    """Rule ``bids`` (``(seat, card ids shown)``, in the order made) for a hand played at ``level``.

    ``first_hand``: the opening hand of a match, where the declaration may decide the dealer
    (``first_hand_declarer_deals``) and bids may need a small joker. ``dealer``: the seat
    dealing otherwise. ``bottom`` and ``rng`` serve the fallback when nobody declares.
    """
    if not 0 <= level < len(RANK_NAMES):
        raise SimsuiteError(f"bad level rank index {level!r}: 0 (2) .. 12 (A)")
    rulings: list[BidRuling] = []
    seat_now: int | None = None  # the standing declaration: seat, card, count
    card_now = count_now = 0
    deal_taker: int | None = None  # the last seat to override another's declaration
    for seat, shown in bids:
        if seat not in (0, 1, 2, 3):
            raise SimsuiteError(f"bad seat {seat!r}: seats are 0..3 (N, E, S, W)")
        shown = tuple(int(c) if isinstance(c, (int, np.integer)) else c for c in shown)
        read = read_bid(variant, level, shown, first_hand)
        kind, reason = "rejected", None
        if isinstance(read, str):
            reason = read
        else:
            card, n = read
            if seat_now is None:
                if n < variant.min_declare:
                    reason = (
                        f"{_cards_phrase(n)} cannot declare: {variant.min_declare} or more "
                        f"{_kind_phrase(card)} are needed (min_declare = {variant.min_declare})"
                    )
                else:
                    kind = "declare"
            elif _own(variant, seat, seat_now) and card == card_now:
                if not variant.reinforce:
                    reason = "a declarer cannot reinforce their own declaration (reinforce = false)"
                elif n <= count_now:
                    reason = (
                        f"a reinforcement must show more than the {count_now} {format_card(card)} "
                        f"already standing, and this shows {n}"
                    )
                else:
                    kind = "reinforce"
            elif _own(variant, seat, seat_now) and not variant.self_override:
                who = "a declarer" if seat == seat_now else "the declarer's partner (self_override_scope = side)"
                reason = (
                    f"{who} cannot override their side's own declaration (self_override = false): "
                    f"{format_card(card_now)} stands, only more {format_card(card_now)} may reinforce it"
                )
            elif n < variant.min_override:
                reason = (
                    f"{_cards_phrase(n)} cannot override: {variant.min_override} or more "
                    f"{_kind_phrase(card)} are needed (min_override = {variant.min_override})"
                )
            elif n < count_now:
                reason = f"{n} cards cannot override {count_now}: more cards beat fewer, never the reverse"
            elif n == count_now and (tie := _tie_winner(variant, card, card_now)) is not None:
                reason = f"equal count ({n} against {count_now}): {tie}"
            else:
                kind = "override"
                if seat != seat_now:
                    deal_taker = seat
            if kind != "rejected":
                # a reinforcement never moves the declaration (a partner's adds to it)
                seat_now, card_now, count_now = (seat_now if kind == "reinforce" else seat), card, n
        rulings.append(BidRuling(seat, shown, kind != "rejected", reason, kind))

    if seat_now is None:
        trump, text = _fallback(variant, bottom, rng)
        return DeclareRuling(tuple(rulings), trump, None, dealer, 0, text)
    trump = NO_TRUMP if card_now >= SMALL_JOKER else card_suit(card_now)
    if first_hand and variant.first_hand_declarer_deals:
        dealer = seat_now  # the last successful declarer deals the opening hand
    elif not first_hand and variant.override_takes_deal and deal_taker is not None:
        dealer = deal_taker  # "反主反庄": overriding also takes the deal
    return DeclareRuling(tuple(rulings), trump, seat_now, dealer, count_now, None)


__all__ = ["BidRuling", "DeclareRuling", "rule_bids", "read_bid", "bid_name"]
