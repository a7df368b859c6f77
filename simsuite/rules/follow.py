"""What a follower must play: one mechanism, a field order per variant.

1. A follower holding fewer cards of the led suit-class than the lead must play them all and
   fill up with anything. Otherwise the play is exactly the lead's card count, all of the led
   suit-class.
2. Every such play has a *profile* against the lead: a tuple of fields read from its best
   decomposition into units, each counting only structure the lead itself has (capped at the
   lead's own value): ``tt``, ``long``, ``width``, ``tcards``, ``quads``, ``triples`` and
   ``pairs``, each in words in ``FOLLOW_TERMS`` below.

   Tractor-like: a pair-tractor; a wide tractor when the variant counts it as one
   (``wide_counts_as_tractor``) or the lead holds one; a bomb where bombs exist.
3. The variant orders the fields (``follow_order``; ``follow_order_quad_lead`` for a quad lead).
   A play is legal when no play the hand allows has a better profile.

school-2016's rule B falls out: against a pair-tractor lead a triple is one pair, so keeping a
triple whole is legal while the pair count is met; a triple that completes a tractor must be
broken because ``long`` comes first.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import product

from .order import HandOrder
from .units import Unit, canonical_units, class_cards, units_from


@dataclass(frozen=True)
class FollowTerm:
    """One term of the follow order (``follow_order``), in words."""

    count: str  # what it counts, briefly: a refused follow "gives 1 {count} where the hand can give 2"
    meaning: str  # what it counts, in full: the key of ``simsuite judge``'s rulings


# The follow order's terms, as a profile (``best_profile``) counts them: a follow is legal when no
# play its hand allows ranks higher, comparing these counts in the variant's order, each counted
# only as far as the lead itself has it.
FOLLOW_TERMS = {
    "tt": FollowTerm(
        "cards in consecutive triples",
        "cards in wide tractors: consecutive triples or quads (3+3), and huizhou's triple + pair (3+2)",
    ),
    "long": FollowTerm("cards in its longest tractor", "cards in the longest tractor"),
    "width": FollowTerm(
        "width of that tractor",
        "the width of that tractor: 3 for triples, 2 for pairs (3+3 ranks over 2+2+2 of as many cards)",
    ),
    "tcards": FollowTerm("cards in tractors", "cards in all tractors together"),
    "quads": FollowTerm("bombs", "quads (four identical cards: bombs)"),
    "triples": FollowTerm("triples", "triples, each step of a wide tractor counting as one"),
    "pairs": FollowTerm("pairs", "pairs outside tractors (a triple gives one pair, a quad two)"),
}


@dataclass(frozen=True)
class LeadStructure:
    """What a lead asks of its followers: its decomposition and each field's cap."""

    cls: int
    n_cards: int
    units: tuple[Unit, ...]
    caps: dict
    fields: tuple[str, ...]
    has_wide: bool
    has_lone_wide: bool

    def describe(self) -> str:
        return " ".join(u.shape for u in sorted(self.units, key=lambda u: u.size_key(), reverse=True))


def lead_structure(order: HandOrder, lead: dict[int, int]) -> LeadStructure:
    """Read a lead (all of one class) as units and derive the caps of the profile fields."""
    v = order.variant
    units = canonical_units(order, lead)
    cls = int(order.cls[next(iter(lead))])
    has_wide = any(u.length >= 2 and u.width >= 3 for u in units)
    has_lone_wide = any(u.length == 1 and u.width >= 3 for u in units)
    is_quad_lead = len(units) == 1 and units[0].widths == (4,)
    fields = v.follow_order_quad_lead if is_quad_lead else v.follow_order
    provisional = LeadStructure(cls, sum(lead.values()), units, {}, fields, has_wide, has_lone_wide)
    raw = features(order, units, provisional)
    caps = dict(raw)
    caps["pairs"] = sum(u.n_cards // 2 for u in units if u.width >= 2)
    caps["width"] = 99
    return LeadStructure(cls, provisional.n_cards, units, caps, fields, has_wide, has_lone_wide)


def _tractor_like(order: HandOrder, u: Unit, lead: LeadStructure) -> bool:
    v = order.variant
    if u.length >= 2:
        if u.width == 2 and u.is_uniform:
            return True
        return v.wide_counts_as_tractor or lead.has_wide
    return v.bombs and u.width == 4


def features(order: HandOrder, units: Sequence[Unit], lead: LeadStructure) -> dict:
    v = order.variant
    f = dict(tt=0, long=0, width=0, tcards=0, quads=0, triples=0, pairs=0)
    for u in units:
        if u.length >= 2 and u.width >= 3:
            f["tt"] += u.n_cards
        if _tractor_like(order, u, lead):
            f["tcards"] += u.n_cards
            if (u.n_cards, u.width) > (f["long"], f["width"]):
                f["long"], f["width"] = u.n_cards, u.width
        else:
            f["pairs"] += sum(w // 2 for w in u.widths)
        f["quads"] += sum(1 for w in u.widths if w == 4)
        if u.length >= 2 or v.lone_triple_counts or lead.has_lone_wide:
            f["triples"] += sum(1 for w in u.widths if w >= 3)
    return f


def profile(f: dict, lead: LeadStructure) -> tuple[int, ...]:
    return tuple(min(f[name], lead.caps[name]) for name in lead.fields)


def best_profile(order: HandOrder, counts: dict[int, int], k: int, lead: LeadStructure) -> tuple[int, ...]:
    """The best profile reachable with at most ``k`` cards out of ``counts`` (one class).

    Cards left out of every unit are singles, which add nothing, so this is also the profile
    of a play when ``counts`` is the play itself.
    """
    best = profile(features(order, (), lead), lead)
    for units in _unit_sets(order, {c: n for c, n in counts.items() if n > 0}, k):
        p = profile(features(order, units, lead), lead)
        if p > best:
            best = p
    return best


def _unit_sets(order: HandOrder, counts: dict[int, int], k: int) -> Iterator[tuple[Unit, ...]]:
    """Sets of disjoint units of two or more cards, at most ``k`` cards in all."""
    for units, _left in unit_sets_with_rest(order, counts, k):
        yield units


def unit_sets_with_rest(
    order: HandOrder, counts: dict[int, int], k: int
) -> Iterator[tuple[tuple[Unit, ...], dict[int, int]]]:
    """Sets of disjoint units of two or more cards within ``k`` cards, each with the counts it
    leaves (cards outside every unit are singles)."""
    cards = class_cards(order, counts)

    def rec(i: int, rest: dict[int, int], room: int):
        yield (), rest
        for j in range(i, len(cards)):
            c = cards[j]
            if rest.get(c, 0) < 2:
                continue
            for u in units_from(order, rest, c):
                if u.width < 2 or u.n_cards > room:
                    continue
                left = dict(rest)
                for cc, w in zip(u.cards, u.widths):
                    left[cc] -= w
                # stay on card j if copies are left (a quad as pair + pair), else move on
                nxt = j if left.get(c, 0) >= 2 else j + 1
                for tail, tail_left in rec(nxt, left, room - u.n_cards):
                    yield (u,) + tail, tail_left

    yield from rec(0, counts, k)


@dataclass(frozen=True)
class FollowRuling:
    legal: bool
    reason: str | None
    profile: tuple[int, ...] | None = None
    best: tuple[int, ...] | None = None


def check_follow(order: HandOrder, lead: LeadStructure, hand: dict[int, int], play: dict[int, int]) -> FollowRuling:
    """Is ``play`` a legal answer to ``lead`` from ``hand`` (the follower's cards before the trick)?"""
    n = sum(play.values())
    if n != lead.n_cards:
        return FollowRuling(False, f"plays {n} cards to a {lead.n_cards}-card lead")
    for c, m in play.items():
        if hand.get(c, 0) < m:
            return FollowRuling(False, "plays cards that are not in the hand")
    in_hand = {c: m for c, m in hand.items() if m and int(order.cls[c]) == lead.cls}
    in_play = {c: m for c, m in play.items() if m and int(order.cls[c]) == lead.cls}
    have, played = sum(in_hand.values()), sum(in_play.values())
    cls_name = order.class_name(lead.cls)
    if have <= lead.n_cards:
        if played < have:
            return FollowRuling(False, f"holds {have} {cls_name} card(s) and must play them all (follow suit)")
        return FollowRuling(True, None)
    if played < lead.n_cards:
        return FollowRuling(False, f"holds {have} {cls_name} cards but plays only {played} of them (follow suit)")
    best = best_profile(order, in_hand, lead.n_cards, lead)
    mine = best_profile(order, in_play, lead.n_cards, lead)
    if mine < best:
        return FollowRuling(
            False,
            f"must follow the lead's shape ({lead.describe()}) as far as the hand allows: "
            f"{_explain(lead.fields, mine, best)}",
            mine,
            best,
        )
    return FollowRuling(True, None, mine, best)


def _explain(fields, mine, best) -> str:
    for name, a, b in zip(fields, mine, best):
        if a != b:
            return (
                f"it gives {a} {FOLLOW_TERMS[name].count} where the hand can give {b} "
                f"(follow priority: {', '.join(fields)})"
            )
    return "profile differs"


def legal_follows(order: HandOrder, lead: LeadStructure, hand: dict[int, int]) -> list[dict[int, int]]:
    """Every distinct legal follow (as count dicts). Exhaustive: for tests and small positions."""
    in_hand = {c: m for c, m in hand.items() if m and int(order.cls[c]) == lead.cls}
    others = {c: m for c, m in hand.items() if m and int(order.cls[c]) != lead.cls}
    have = sum(in_hand.values())
    k = lead.n_cards
    if have <= k:
        return [{**in_hand, **fill} for fill in _submultisets(others, k - have)]
    best = best_profile(order, in_hand, k, lead)
    out = []
    for sub in _submultisets(in_hand, k):
        if best_profile(order, sub, k, lead) == best:
            out.append(sub)
    return out


def _submultisets(counts: dict[int, int], k: int) -> list[dict[int, int]]:
    keys = sorted(counts)
    out = []
    for choice in product(*(range(counts[c] + 1) for c in keys)):
        if sum(choice) == k:
            out.append({c: m for c, m in zip(keys, choice) if m})
    return out
