"""The policy protocol: the four methods a Python policy answers and the views each one gets.

A *policy* is any object with four methods. Each gets a *view* (a small frozen dataclass, one
kind per decision) holding only what that player may see, and answers with card ids
(``simsuite.rules.cards``: ``suit * 13 + rank``, 52 small joker, 53 big joker; a card held twice is
listed twice)::

    class MyPolicy:
        def bid(self, view: BidView) -> list[int] | None: ...     # cards to show now, or None
        def bury(self, view: BuryView) -> list[int]: ...          # exactly view.bottom_size cards
        def lead(self, view: LeadView) -> list[int]: ...          # one unit, or a throw
        def follow(self, view: FollowView) -> list[int]: ...      # view.lead_size cards

``simsuite.play.pyhand.play_hand_py`` plays a hand asking four such objects; it follows the compiled
engine step by step (same deal, bidding order, fallback, bury, tricks, throw test, scoring) and
checks every answer with the readable rules core:

* ``bid``: asked while drawing (open bidding), when the card just drawn is a level card or a
  joker and on every third round of the draw, as the engine asks its built-ins; or once per
  seat after the draw (concealed bidding). A bid shows identical level cards (or jokers where the variant lets them
  bid; in an opening hand that needs the small joker as a ticket, show it too). A bid the rules
  reject is simply not made. Showing cards you do not hold is an error.
* ``bury``: the dealer's hand already holds the bottom. Exactly ``view.bottom_size`` held cards.
* ``lead``: cards of one suit-class forming one unit (single, pair, tractor, ...), or several
  units (a throw) where the variant allows throws; a throw that fails the variant's throw test
  is replaced by the forced play and penalised, as in the engine.
* ``follow``: exactly as many cards as the lead; the variant's follow rules
  (``simsuite.rules.follow.check_follow``) decide what is legal.

An answer that breaks the rules is never fixed: ``play_hand_py`` raises
``simsuite.errors.IllegalPlayError`` naming the seat, the trick, the lead and the rule.

``simsuite.play.loader.load_policy(spec)`` turns ``"expert"`` or ``"path/to/file.py:ClassName"`` or
``"package.module:ClassName"`` into a policy object; ``simsuite.play.builtin.BuiltinPolicy(name)``
seats a compiled built-in (``random``, ``basic``, ``expert``) at the same table as Python policies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np

from ..errors import SimsuiteError
from ..rules.cards import N_CARDS
from ..rules.follow import FollowRuling, LeadStructure, check_follow
from ..rules.legal import cards_of_dict, legal_follow_dicts
from ..rules.order import TRUMP, HandOrder
from ..rules.units import as_count_dict
from ..rules.units import counts_of as count_dict_of
from ..rules.variant import Variant

POLICY_METHODS = ("bid", "bury", "lead", "follow")


# --- the protocol ------------------------------------------------------------------------------


@runtime_checkable
class Policy(Protocol):
    """What ``play_hand_py`` asks of each seat (see the module docstring)."""

    def bid(self, view: BidView) -> list[int] | None: ...

    def bury(self, view: BuryView) -> list[int]: ...

    def lead(self, view: LeadView) -> list[int]: ...

    def follow(self, view: FollowView) -> list[int]: ...


class Bid(NamedTuple):
    """An accepted bid: ``n`` copies of ``card`` shown by ``seat``; ``kind`` 1 declare,
    2 override, 3 reinforce (the small-joker ticket of an opening hand is not counted)."""

    seat: int
    card: int
    n: int
    kind: int


class Trick(NamedTuple):
    """A finished trick: who led, every play in order as ``(seat, cards)``, the winner and its
    points. ``failed_throw`` holds the cards of a throw that failed (the lead is then the forced
    play), else ``None``."""

    number: int  # from 0
    leader: int
    plays: tuple[tuple[int, tuple[int, ...]], ...]
    winner: int
    points: int
    failed_throw: tuple[int, ...] | None


def read_only(a: np.ndarray) -> np.ndarray:
    """A read-only int64 copy of ``a`` (the count vectors a view hands a policy)."""
    a = np.array(a, dtype=np.int64, copy=True)
    a.setflags(write=False)
    return a


def cards_of(counts) -> tuple[int, ...]:
    """A count vector (length 54) to sorted card ids, a card held twice listed twice."""
    counts = np.asarray(counts)
    return tuple(int(c) for c in np.repeat(np.arange(N_CARDS), counts.astype(np.int64)))


def counts_of(cards: Sequence[int]) -> np.ndarray:
    """Card ids to a count vector (int64, length 54)."""
    out = np.zeros(N_CARDS, np.int64)
    for c in cards:
        out[int(c)] += 1
    return out


# --- views -------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False, kw_only=True)
class View:
    """What every decision sees. Seats are 0..3 (N, E, S, W); N-S is team 0, E-W team 1.

    ``hand`` is the player's cards (sorted card ids), ``counts`` the same as a read-only count
    vector. ``trump`` is the trump suit (0..3 = S H D C, -1 no-trump; ``None`` while bidding),
    ``declarers`` the declaring team and ``dealer`` the dealing seat (``None`` while bidding).
    ``played`` counts every card played so far (earlier tricks and this trick's plays),
    ``trick`` lists this trick's plays so far as ``(seat, cards)``, ``tricks`` the finished
    tricks. ``voids[seat]`` is the set of suit-classes (0..3 side suits, 4 trump) that seat has
    shown it no longer holds. ``cards_left`` is how many cards each player held when this trick
    began (the hand ends when it reaches 0); ``order`` is the hand's card order
    (``simsuite.rules.order.HandOrder``: ``order.cls[c]``, ``order.pos[c]``; ``None`` while bidding).
    """

    seat: int
    hand: tuple[int, ...]
    counts: np.ndarray = field(repr=False)
    level: int
    variant: Variant = field(repr=False)
    trump: int | None = None
    declarers: int | None = None
    dealer: int | None = None
    order: HandOrder | None = field(default=None, repr=False)
    played: np.ndarray | None = field(default=None, repr=False)
    trick: tuple[tuple[int, tuple[int, ...]], ...] = ()
    tricks: tuple[Trick, ...] = field(default=(), repr=False)
    trick_number: int = 0  # from 0
    cards_left: int = 0
    voids: tuple[frozenset, ...] = (frozenset(),) * 4
    defender_points: int = 0  # the defenders' trick points so far

    @property
    def team(self) -> int:
        return self.seat % 2

    @property
    def partner(self) -> int:
        return (self.seat + 2) % 4

    @property
    def is_declarer(self) -> bool | None:
        return None if self.declarers is None else self.team == self.declarers

    @property
    def tricks_left(self) -> int:
        """At most this many tricks remain, this one included (every trick takes at least one
        card from each hand); the last trick is the one where ``cards_left`` equals its size."""
        return self.cards_left

    def is_trump(self, card: int) -> bool:
        return self.order is not None and int(self.order.cls[card]) == TRUMP

    def class_of(self, card: int) -> int:
        """Suit-class of a card in this hand: 0..3 side suits S H D C, 4 trump."""
        if self.order is None:
            raise SimsuiteError("suit-classes are not known while bidding (trump is not decided)")
        return int(self.order.cls[card])

    def strength(self, card: int) -> tuple[int, int]:
        """A sort key: side cards below trump, then by position inside the class."""
        return (int(self.order.cls[card] == TRUMP), int(self.order.pos[card]))

    def in_class(self, k: int) -> list[int]:
        """The held cards of suit-class ``k``, weakest first."""
        return sorted((c for c in self.hand if int(self.order.cls[c]) == k), key=lambda c: (int(self.order.pos[c]), c))


@dataclass(frozen=True, eq=False, kw_only=True)
class BidView(View):
    """While drawing. ``drawn``: cards this seat has drawn so far (the whole hand when bidding is
    concealed); ``bids``: the accepted bids so far (the last one stands)."""

    drawn: int
    first_drawer: int
    first_hand: bool
    concealed: bool
    bids: tuple[Bid, ...] = ()

    @property
    def standing(self) -> Bid | None:
        return self.bids[-1] if self.bids else None

    def level_cards(self) -> dict[int, int]:
        """Held level cards and jokers: ``{card: copies}``."""
        cards = [s * 13 + self.level for s in range(4)] + [52, 53]
        return {c: int(self.counts[c]) for c in cards if self.counts[c]}


@dataclass(frozen=True, eq=False, kw_only=True)
class BuryView(View):
    """The dealer after picking up the bottom (``hand`` includes it); bury ``bottom_size``."""

    bottom: tuple[int, ...]
    bottom_size: int
    bids: tuple[Bid, ...] = ()


@dataclass(frozen=True, eq=False, kw_only=True)
class LeadView(View):
    """Leading a trick (``trick`` is empty)."""


@dataclass(frozen=True, eq=False, kw_only=True)
class FollowView(View):
    """Following: ``leader`` led ``lead`` (after a failed throw, the forced play; the attempted
    throw is ``failed_throw``); ``winner`` is the seat winning the trick so far.
    ``lead_structure`` is the lead as read by ``simsuite.rules.follow.lead_structure``."""

    leader: int
    lead: tuple[int, ...]
    lead_structure: LeadStructure = field(repr=False)
    winner: int
    failed_throw: tuple[int, ...] | None = None

    @property
    def lead_size(self) -> int:
        return len(self.lead)

    @property
    def lead_class(self) -> int:
        return self.lead_structure.cls

    @property
    def partner_winning(self) -> bool:
        return self.winner % 2 == self.seat % 2

    def check(self, cards: Sequence[int]) -> FollowRuling:
        """The rules core's ruling on following with ``cards`` (``.legal``, ``.reason``)."""
        return check_follow(self.order, self.lead_structure, as_count_dict(self.counts), count_dict_of(cards))

    def legal_follows(self) -> list[list[int]]:
        """Every distinct legal follow, as sorted card-id lists: the same set as
        ``simsuite.rules.follow.legal_follows`` on this hand, enumerated from the unit sets that reach
        the best follow profile instead of from every sub-hand. Exhaustive: fine when the player
        holds more of the led class than the lead; when it holds fewer, every fill from the rest
        of the hand is legal and the list can be very long, so pick the fill directly there."""
        return [
            list(cards_of_dict(d))
            for d in legal_follow_dicts(self.order, self.lead_structure, as_count_dict(self.counts))
        ]
