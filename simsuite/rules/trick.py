"""One trick: lead legality, throws and their failure, trumping, the winner and the points.

Seats are 0..3 (N, E, S, W) and play in that order from the leader. Partnerships are N-S
(team 0) and E-W (team 1). Plays are count dicts ``{card: copies}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..errors import IllegalPlayError
from .cards import CARD_POINTS, SEATS
from .choices import ForcedPlay, ThrowFailure, ThrowTest
from .follow import LeadStructure, check_follow, lead_structure
from .order import TRUMP, HandOrder
from .units import Unit, decompositions, units_from


def team_of(seat: int) -> int:
    return seat % 2


def seat_name(seat: int) -> str:
    return SEATS[seat]


def points_in(play: dict[int, int]) -> int:
    return int(sum(int(CARD_POINTS[c]) * n for c, n in play.items()))


def n_cards(play: dict[int, int]) -> int:
    return sum(play.values())


# --- leads ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ThrowRuling:
    """A throw (several units led at once) and whether it stands against the other hands."""

    stands: bool | None  # None: the other hands are not known
    failing: tuple[Unit, ...] = ()
    consequence: str | None = None  # "penalty" | "forfeit" | None
    defender_points_delta: int = 0
    forced_play: dict[int, int] | None = None
    cards_beaten: int = 0
    reason: str | None = None


@dataclass(frozen=True)
class LeadRuling:
    legal: bool
    reason: str | None
    structure: LeadStructure | None
    is_throw: bool = False


def rule_lead(order: HandOrder, play: dict[int, int]) -> LeadRuling:
    """Is this lead legal as a lead (one suit-class; a single unit, or a throw where allowed)?"""
    v = order.variant
    if not play:
        return LeadRuling(False, "a lead must have at least one card", None)
    classes = {int(order.cls[c]) for c in play}
    if len(classes) > 1:
        names = ", ".join(order.class_name(c) for c in sorted(classes))
        return LeadRuling(False, f"a lead must be of one suit-class; this mixes {names}", None)
    structure = lead_structure(order, play)
    if len(structure.units) == 1:
        return LeadRuling(True, None, structure)
    if not v.throws:
        return LeadRuling(
            False, f"throws are not allowed in {v.id}; {structure.describe()} is not a single unit", structure, True
        )
    return LeadRuling(True, None, structure, True)


def _can_form(order: HandOrder, hand: dict[int, int], cls: int, widths: tuple[int, ...], above: int) -> bool:
    """Can ``hand`` form a unit of ``widths`` in ``cls`` whose top is above position ``above``?"""
    for c, n in hand.items():
        if n < widths[0] or int(order.cls[c]) != cls or int(order.pos[c]) <= above:
            continue
        for u in units_from(order, hand, c):
            if u.widths == widths or (not u.is_uniform and sorted(u.widths) == sorted(widths)):
                return True
    return False


def rule_throw(
    order: HandOrder,
    structure: LeadStructure,
    play: dict[int, int],
    thrower: int,
    others: dict[int, dict[int, int] | None],
    declarers: int,
) -> ThrowRuling:
    """The variant's throw test against the other players' hands, and the consequence of failure."""
    v = order.variant
    if any(h is None for h in others.values()):
        missing = ", ".join(seat_name(s) for s, h in others.items() if h is None)
        return ThrowRuling(None, reason=f"the throw cannot be tested without the hands of {missing}")
    cls = structure.cls
    failing: list[Unit] = []
    beaten = 0
    if v.throw_test == ThrowTest.ABSOLUTE_MAX:
        top_other = max(
            (int(order.pos[c]) for h in others.values() for c, n in h.items() if n and int(order.cls[c]) == cls),
            default=-1,
        )
        for u in structure.units:
            low = [w for c, w in zip(u.cards, u.widths) if int(order.pos[c]) < top_other]
            if low:
                failing.append(u)
                beaten += sum(low)
        rule = "absolute-max rule: the throw's smallest card must be at least the highest card of the suit in every other hand"
    else:
        for u in structure.units:
            if any(_can_form(order, h, cls, u.widths, u.top) for h in others.values()):
                failing.append(u)
                beaten += u.n_cards
        rule = "per-unit rule: every unit must be the highest of its kind in the suit"
    if not failing:
        return ThrowRuling(True)
    failing.sort(key=lambda u: (u.top, u.n_cards))
    if v.forced_play == ForcedPlay.SMALLEST_CARD:
        low = min(play, key=lambda c: (int(order.pos[c]), c))
        forced = {low: 1}
    else:
        forced = failing[0].counts()
    sign = 1 if team_of(thrower) == declarers else -1
    if v.throw_failure == ThrowFailure.FORFEIT:
        return ThrowRuling(
            False, tuple(failing), "forfeit", 0, None, beaten, f"failed throw ({rule}): the hand is forfeit"
        )
    if v.throw_failure == ThrowFailure.PENALTY_PER_CARD_BEATEN:
        penalty = v.throw_penalty * beaten
    elif v.throw_failure == ThrowFailure.PENALTY_PER_CARD_TAKEN_BACK:
        penalty = v.throw_penalty * (n_cards(play) - n_cards(forced))
    else:
        penalty = v.throw_penalty
    return ThrowRuling(False, tuple(failing), "penalty", sign * penalty, forced, beaten, f"failed throw ({rule})")


# --- winning a trick ------------------------------------------------------------------------


@dataclass(frozen=True)
class Contender:
    """How strongly a play contests the trick: (kind, trump, top), plus the unit behind it."""

    kind: int
    trump: int
    top: int
    unit: Unit | None

    def beats(self, other: Contender) -> bool:
        if self.kind < other.kind:
            return False
        if self.trump != other.trump:
            return self.trump > other.trump
        return self.kind > other.kind or self.top > other.top


def _largest(units: Sequence[Unit]) -> Unit:
    return max(units, key=lambda u: (u.size_key(), u.top))


def contender(order: HandOrder, structure: LeadStructure, play: dict[int, int], is_lead: bool) -> Contender | None:
    """A play's claim to the trick, or None if it cannot win (a discard or the wrong shape)."""
    v = order.variant
    classes = {int(order.cls[c]) for c in play if play[c]}
    if is_lead:
        u = _largest(structure.units)
        return Contender(0, int(structure.cls == TRUMP), u.top, u)
    if len(classes) != 1:
        return None
    cls = classes.pop()
    if cls not in (structure.cls, TRUMP):
        return None
    trump = int(cls == TRUMP)
    if len(structure.units) == 1:
        lead_unit = structure.units[0]
        best = None
        for d in decompositions(order, play):
            if len(d) != 1:
                continue
            u = d[0]
            if _same_shape(u, lead_unit):
                kind = 0
            elif _stronger_kind(v, u, lead_unit):
                kind = 1
            else:
                continue
            c = Contender(kind, trump, u.top, u)
            if best is None or (c.kind, c.top) > (best.kind, best.top):
                best = c
        return best
    # a throw: only a trump play with the same units can win; compare the largest unit
    if cls != TRUMP or structure.cls == TRUMP:
        return None
    target = sorted(_shape_key(u) for u in structure.units)
    key_unit = _largest(structure.units)
    best = None
    for d in decompositions(order, play):
        if sorted(_shape_key(u) for u in d) != target:
            continue
        tops = [u for u in d if _shape_key(u) == _shape_key(key_unit)]
        u = max(tops, key=lambda x: x.top)
        if best is None or u.top > best.top:
            best = Contender(0, 1, u.top, u)
    return best


def _shape_key(u: Unit) -> tuple:
    return u.widths if u.is_uniform else tuple(sorted(u.widths))


def _same_shape(a: Unit, b: Unit) -> bool:
    return _shape_key(a) == _shape_key(b)


def _stronger_kind(v, u: Unit, lead: Unit) -> bool:
    """Wide tractors over pair-tractors, bombs over 2-pair tractors, of the same card count."""
    if not (lead.is_uniform and lead.width == 2 and lead.length >= 2 and u.is_uniform and u.n_cards == lead.n_cards):
        return False
    if v.wide_beats_pair_tractor and u.width >= 3 and u.length >= 2:
        return True
    return v.bombs and u.widths == (4,) and lead.length == 2


# --- a whole trick ----------------------------------------------------------------------------


@dataclass
class PlayRuling:
    seat: int
    cards: dict[int, int]
    legal: bool | None
    shape: str
    reason: str | None = None


@dataclass
class TrickRuling:
    plays: list[PlayRuling]
    lead: LeadRuling
    throw: ThrowRuling | None
    winner: int | None
    points: int
    winning_unit: Unit | None
    winner_trump: bool = False
    notes: list[str] = field(default_factory=list)
    lead_cards: int = 0  # cards in the lead the trick was played to (the forced play after a failed throw)


def rule_trick(
    order: HandOrder,
    leader: int,
    plays: Sequence[dict[int, int]],
    hands: dict[int, dict[int, int] | None],
    declarers: int,
) -> TrickRuling:
    """Rule one trick: each play's legality (where its hand is known), any throw, the winner."""
    from .units import shape_of

    lead_play = plays[0]
    lead = rule_lead(order, lead_play)
    rulings: list[PlayRuling] = []
    seats = [(leader + i) % 4 for i in range(len(plays))]
    notes: list[str] = []
    points = sum(points_in(p) for p in plays)
    for seat, play in zip(seats, plays):
        hand = hands.get(seat)
        if hand is not None and any(hand.get(c, 0) < n for c, n in play.items()):
            raise IllegalPlayError(f"{seat_name(seat)} plays cards that are not in {seat_name(seat)}'s hand")
    lead_shape = lead.structure.describe() if lead.structure else "-"
    rulings.append(PlayRuling(leader, lead_play, lead.legal, lead_shape, lead.reason))
    if not lead.legal:
        for seat, play in zip(seats[1:], plays[1:]):
            rulings.append(PlayRuling(seat, play, None, "-", "not ruled: the lead is illegal"))
        return TrickRuling(rulings, lead, None, None, points, None, False, notes, n_cards(lead_play))
    structure = lead.structure
    throw = None
    if lead.is_throw:
        others = {s: hands.get(s) for s in range(4) if s != leader}
        throw = rule_throw(order, structure, lead_play, leader, others, declarers)
        if throw.stands is None:
            notes.append(throw.reason)
        elif not throw.stands:
            if throw.forced_play is not None:
                notes.append(
                    "the throw failed: the thrower takes the rest back and the trick is played to the forced play"
                )
                structure = lead_structure(order, throw.forced_play)
                lead_play = throw.forced_play
            else:
                notes.append("the throw failed: the hand ends here")
                for seat, play in zip(seats[1:], plays[1:]):
                    rulings.append(PlayRuling(seat, play, None, "-", "not ruled: the hand ended"))
                return TrickRuling(rulings, lead, throw, None, points, None, False, notes, n_cards(lead_play))
    winner = leader
    best = contender(order, structure, lead_play, True)
    for seat, play in zip(seats[1:], plays[1:]):
        hand = hands.get(seat)
        legal, reason = None, None
        if sum(play.values()) != structure.n_cards:
            legal, reason = False, f"plays {sum(play.values())} cards to a {structure.n_cards}-card lead"
        elif hand is not None:
            r = check_follow(order, structure, hand, play)
            legal, reason = r.legal, r.reason
        cls = {int(order.cls[c]) for c in play}
        shape = shape_of(_best_units(order, play)) if len(cls) == 1 else "mixed"
        rulings.append(PlayRuling(seat, play, legal, shape, reason))
        if legal is False:
            continue
        c = contender(order, structure, play, False)
        if c is not None and c.beats(best):
            best, winner = c, seat
    if throw is not None and throw.stands is False:
        points = points_in(lead_play) + sum(points_in(p) for p in plays[1:])
    return TrickRuling(rulings, lead, throw, winner, points, best.unit, bool(best.trump), notes, structure.n_cards)


def _best_units(order: HandOrder, play: dict[int, int]):
    from .units import canonical_units

    return canonical_units(order, play)
