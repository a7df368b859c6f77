"""A readable trace of one hand played by the compiled engine.

``format_trace(variant, result, symbols)`` turns a ``HandResult`` with its history (``play_one(...,
keep=True)``) into text: the header, the deal sorted by the hand's order, the bids (or the
fallback), the bottom and the buried cards, every trick with each seat's play and its shape, and
the end of the hand (capture, penalties, defenders' points, outcome). ``walk_tricks`` gives the
same tricks as data.

The trace only reads the record and the history; it recomputes nothing the engine decides except
the per-throw penalty of a failed throw (the record holds only the hand's total), which it takes
from the rules core (``simsuite.rules.trick.rule_throw``) on the hands rebuilt from the history.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..engine.phases import BID_KIND_NAMES
from ..rules.cards import CARD_POINTS, N_CARDS, RANK_NAMES, SEATS, TEAMS, format_card
from ..rules.choices import ThrowFailure
from ..rules.follow import lead_structure
from ..rules.order import TRUMP, HandOrder, format_trump, hand_order
from ..rules.trick import rule_throw
from ..rules.units import canonical_units, shape_of
from ..rules.variant import Variant
from ..sim.match import set_text

FALLBACKS = {
    "turn_up_bottom": "the first card of the bottom is turned up",
    "first_non_joker_of_bottom": "the first non-joker of the bottom names trump",
    "random_bottom_card": "a random non-joker of the bottom names trump",
    "redeal": "the cards are dealt again",
}


@dataclass
class Play:
    seat: int
    cards: dict[int, int]
    shape: str
    failed_throw: bool = False
    penalty: int | None = None  # failed throw: signed points to the defenders
    forfeit: bool = False  # failed throw that ends the hand


@dataclass
class Trick:
    number: int  # from 1
    leader: int
    plays: list[Play] = field(default_factory=list)
    winner: int | None = None  # None: the hand ended on a failed throw
    points: int = 0
    defenders_after: int = 0  # defenders' trick points after this trick


def _counts(row: np.ndarray) -> dict[int, int]:
    return {int(c): int(row[c]) for c in np.nonzero(row)[0]}


def _points(play: dict[int, int]) -> int:
    return int(sum(int(CARD_POINTS[c]) * n for c, n in play.items()))


def sorted_cards(order: HandOrder, counts: dict[int, int]) -> list[int]:
    """Card ids (one per copy) in the hand's order: trump first, then S H D C, strongest first."""

    def key(c: int):
        k = int(order.cls[c])
        return (0 if k == TRUMP else 1 + k, -int(order.pos[c]), c)

    return [c for c in sorted(counts, key=key) for _ in range(counts[c])]


def _fmt(order: HandOrder, counts: dict[int, int], symbols: bool, groups: bool = False) -> str:
    """Cards in the hand's order; with ``groups`` a ``|`` between suit-classes."""
    out: list[str] = []
    prev = None
    for c in sorted_cards(order, counts):
        k = int(order.cls[c])
        if groups and prev is not None and k != prev:
            out.append("|")
        out.append(format_card(c, symbols))
        prev = k
    return " ".join(out) if out else "-"


def _shape(order: HandOrder, play: dict[int, int], cache: dict) -> str:
    classes = {int(order.cls[c]) for c in play}
    if len(classes) != 1:
        return "mixed"
    key = tuple(sorted(play.items()))
    if key not in cache:
        cache[key] = shape_of(canonical_units(order, play))
    return cache[key]


def _with_overrides(variant: Variant, overrides: Sequence[str]) -> str:
    """`` with bottom_size=10, throws=false``: the fields set, written as ``--set`` takes them."""
    if not overrides:
        return ""
    plain = {key: value for section in variant.to_toml_dict().values() for key, value in section.items()}
    return " with " + ", ".join(f"{key}={set_text(plain[key])}" for key in overrides)


def walk_tricks(variant: Variant, result) -> list[Trick]:
    """The tricks of a hand, rebuilt from its history (``play_one(..., keep=True)``)."""
    rec, hist = result.record, result.history
    if hist is None:
        raise ValueError("the hand has no history: play it with keep=True")
    order = hand_order(variant, rec["level"], rec["trump"])
    declarers = rec["declarers"]
    hands = [_counts(hist.deal[s]) for s in range(4)]
    dealer = rec["dealer"]
    for c, n in _counts(hist.bottom).items():
        hands[dealer][c] = hands[dealer].get(c, 0) + n
    for c, n in _counts(hist.bury).items():
        hands[dealer][c] -= n
    cache: dict = {}
    tricks: list[Trick] = []
    defenders = 0
    for row in hist.plays:
        t, seat, kind, winner = (int(x) for x in row[:4])
        cards = _counts(row[4 : 4 + N_CARDS])
        if not tricks or tricks[-1].number != t + 1:
            tricks.append(Trick(t + 1, seat))
        trick = tricks[-1]
        play = Play(seat, cards, _shape(order, cards, cache))
        if kind == 1:
            play.failed_throw = True
            others = {s: {c: n for c, n in hands[s].items() if n} for s in range(4) if s != seat}
            ruling = rule_throw(order, lead_structure(order, cards), cards, seat, others, declarers)
            play.forfeit = variant.throw_failure == ThrowFailure.FORFEIT
            if ruling.stands is False:
                play.penalty = ruling.defender_points_delta
        else:
            for c, n in cards.items():
                hands[seat][c] -= n
            trick.points += _points(cards)
            trick.winner = winner if winner >= 0 else None
        trick.plays.append(play)
    for trick in tricks:
        if trick.winner is not None and trick.winner % 2 != declarers:
            defenders += trick.points
        trick.defenders_after = defenders
    return tricks


def format_trace(
    variant: Variant,
    result,
    symbols: bool = False,
    *,
    seed: int | None = None,
    policies: Sequence[str] | None = None,
    overrides: Sequence[str] = (),
) -> str:
    """The trace of one hand as text. ``seed`` and ``policies`` (one name per seat N E S W) are
    shown in the header when given (the record does not hold them); so are ``overrides``, the fields
    changed from the variant's file (``--set``), each with the value it was given."""
    rec, hist = result.record, result.history
    if hist is None:
        raise ValueError("the hand has no history: play it with keep=True")
    order = hand_order(variant, rec["level"], rec["trump"])
    declarers, dealer = rec["declarers"], rec["dealer"]
    defenders = 1 - declarers
    lines: list[str] = []
    add = lines.append

    def cards(counts: dict[int, int], groups: bool = False) -> str:
        return _fmt(order, counts, symbols, groups)

    def who(seat: int) -> str:
        return f"{SEATS[seat]} ({'declarers' if seat % 2 == declarers else 'defenders'})"

    # --- header
    add(f"variant {variant.id}{_with_overrides(variant, overrides)}: {variant.name}")
    head = []
    if seed is not None:
        head.append(f"seed {seed}")
    if policies is not None:
        head.append("policies " + ", ".join(f"{SEATS[i]} {p}" for i, p in enumerate(policies)))
    if head:
        add("; ".join(head))
    ds = rec["declarer_seat"]
    add(
        f"level {RANK_NAMES[rec['level']]}; dealer {SEATS[dealer]}; declarers {TEAMS[declarers]}"
        f" ({'declared by ' + SEATS[ds] if ds >= 0 else 'nobody declared'}); defenders {TEAMS[defenders]}"
    )
    add("")

    # --- the deal
    add(f"deal ({variant.hand_size} cards each; trump first, then S H D C, strongest first; | between suits)")
    for s in range(4):
        add(f"  {SEATS[s]}  {cards(_counts(hist.deal[s]), groups=True)}")
    add("")

    # --- bids
    add("bids")
    for seat, card, n, kind in (tuple(int(x) for x in b) for b in hist.bids):
        shown = " ".join([format_card(card, symbols)] * n)
        add(f"  {SEATS[seat]}  shows {shown}: {BID_KIND_NAMES.get(kind, f'kind {kind}')}")
    if rec["redeals"]:
        add(f"  redealt {rec['redeals']} time(s) before this deal: nobody declared")
    if not rec["declared"]:
        add(f"  nobody declared: {variant.fallback} ({FALLBACKS.get(variant.fallback, variant.fallback)})")
    add(f"  trump {format_trump(rec['trump'])}")
    add("")

    # --- bottom and bury
    bottom = _counts(hist.bottom)
    bury = _counts(hist.bury)
    add(f"bottom ({sum(bottom.values())} cards, {_points(bottom)} points): {cards(bottom)}")
    add(f"buried by {SEATS[dealer]} ({sum(bury.values())} cards, {rec['bottom_points']} points): {cards(bury)}")
    add("")

    # --- tricks
    tricks = walk_tricks(variant, result)
    width = max((len(cards(p.cards)) for t in tricks for p in t.plays), default=0)
    for t in tricks:
        add(f"trick {t.number}: {SEATS[t.leader]} leads")
        for p in t.plays:
            text = f"  {SEATS[p.seat]}  {cards(p.cards).ljust(width)}  [{p.shape}]"
            if p.failed_throw:
                if p.forfeit:
                    text += "  failed throw: the hand is forfeit"
                elif p.penalty is not None:
                    text += f"  failed throw: penalty {p.penalty:+d} to the defenders; taken back"
                else:
                    text += "  failed throw"
            add(text)
        if t.winner is None:
            add(f"  no winner: the hand ends; defenders' points {t.defenders_after}")
        else:
            side = "to the defenders" if t.winner % 2 != declarers else "kept by the declarers"
            add(f"  winner {SEATS[t.winner]}: {t.points} points {side}; defenders' points {t.defenders_after}")
    add("")

    # --- the end
    add("end")
    last = tricks[-1] if tricks else None
    if rec["forfeit"]:
        add("  the hand was forfeit on a failed throw: no last-trick capture")
    elif last is not None and last.winner is not None:
        by = rec["capture_by"]
        if by == 0:
            add(f"  last trick won by {who(last.winner)}: no capture")
        else:
            side = "defenders" if by > 0 else "declarers"
            add(
                f"  last trick won by {who(last.winner)}: capture by the {side}, multiplier x{rec['capture_multiplier']}, "
                f"{rec['capture_points']:+d} points (bottom {rec['bottom_points']})"
            )
    add(f"  penalties {rec['penalties']:+d} to the defenders")
    add(
        f"  defenders' points {rec['final_points']} (tricks {rec['trick_points']}, capture {rec['capture_points']:+d}, "
        f"penalties {rec['penalties']:+d}; take-over at {variant.takeover})"
    )
    took = "take-over" if rec["takeover"] else "hold"
    gained = f"NS +{rec['levels_ns']}, EW +{rec['levels_ew']}"
    add(
        f"  outcome: {took}; levels {gained}; next dealer {SEATS[rec['next_dealer']]} "
        f"({TEAMS[rec['next_declarers']]} declare)"
    )
    add(
        f"  tricks {rec['tricks']}; throws {rec['throws']} ({rec['throws_failed']} failed); "
        f"about {rec['minutes_x100'] / 100:.1f} minutes"
    )
    return "\n".join(lines) + "\n"
