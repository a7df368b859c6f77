"""Every legal follow of a hand, enumerated from the unit sets that reach the best follow profile.

``legal_follow_dicts`` gives the same set as ``simsuite.rules.follow.legal_follows`` (which tries
every sub-hand, for tests and small positions) but builds each follow from a set of units whose
profile is the best the hand can reach, filled up with the cards those units leave. Plain Python
on card-count dicts, like the rest of the rules core.
"""

from __future__ import annotations

from .follow import LeadStructure, best_profile, features, profile, unit_sets_with_rest
from .order import HandOrder


def cards_of_dict(d: dict[int, int]) -> tuple[int, ...]:
    """A count dict to sorted card ids, a card held twice listed twice."""
    return tuple(c for c in sorted(d) for _ in range(d[c]))


def _submultisets(items: list[tuple[int, int]], k: int):
    """Sub-multisets of exactly ``k`` cards of ``items`` ([(card, copies)]), as dicts."""
    suffix = [0] * (len(items) + 1)
    for i in range(len(items) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + items[i][1]

    def rec(i: int, need: int):
        if need == 0:
            yield {}
            return
        if i == len(items) or suffix[i] < need:
            return
        c, m = items[i]
        for take in range(min(m, need), -1, -1):
            for rest in rec(i + 1, need - take):
                if take:
                    rest = {c: take, **rest}
                yield rest

    yield from rec(0, k)


def _unit_sets(order: HandOrder, counts: dict[int, int], k: int):
    """Sets of disjoint units within ``k`` cards, each with the counts it leaves."""
    return unit_sets_with_rest(order, counts, k)


def legal_follow_dicts(order: HandOrder, lead: LeadStructure, hand: dict[int, int]) -> list[dict[int, int]]:
    """Every distinct legal follow as count dicts (see ``simsuite.play.policy.FollowView.legal_follows``)."""
    k = lead.n_cards
    in_hand = {c: m for c, m in hand.items() if m and int(order.cls[c]) == lead.cls}
    others = sorted((c, m) for c, m in hand.items() if m and int(order.cls[c]) != lead.cls)
    have = sum(in_hand.values())
    if have <= k:
        return [{**in_hand, **fill} for fill in _submultisets(others, k - have)]
    best = best_profile(order, in_hand, k, lead)
    if best == profile(features(order, (), lead), lead):
        # the lead asks for no structure this hand can give: any k cards of the class will do
        return list(_submultisets(sorted(in_hand.items()), k))
    seen: set[tuple] = set()
    out: list[dict[int, int]] = []
    for units, left in _unit_sets(order, in_hand, k):
        if profile(features(order, units, lead), lead) != best:
            continue
        core: dict[int, int] = {}
        for u in units:
            for c, w in zip(u.cards, u.widths):
                core[c] = core.get(c, 0) + w
        used = sum(core.values())
        for fill in _submultisets(sorted((c, m) for c, m in left.items() if m), k - used):
            play = dict(core)
            for c, m in fill.items():
                play[c] = play.get(c, 0) + m
            key = tuple(sorted(play.items()))
            if key not in seen:
                seen.add(key)
                out.append(play)
    return out
