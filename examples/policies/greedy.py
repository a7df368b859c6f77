"""Greedy: a small example policy for ``simsuite.play.pyhand.play_hand_py``.

It plays by four short rules, to show the protocol rather than to play well:

* bid: from half-way through the draw, show every copy of the level card of the suit it holds
  most cards of (with the small joker when the opening hand asks for it as a ticket); the rules
  decide whether the bid stands, and a bid they reject is simply not made;
* bury: the weakest cards, side suits before trump, cards without points first;
* lead: the highest card of its longest side suit (its highest trump when it has no side card);
* follow: the lowest legal play. To a one-card lead it picks directly (the lowest card of the
  led suit-class, else its cheapest card). To a longer lead it picks directly when it holds no
  more of the led class than the lead (then every fill is legal: all of the class, then its
  cheapest other cards), and otherwise takes the cheapest of ``view.legal_follows()``.

Use it by import path, for example::

    from simsuite.play.loader import load_policy
    from simsuite.play.pyhand import play_hand_py

    greedy = load_policy("examples/policies/greedy.py:Greedy")
    result = play_hand_py("school-2016", 7, [greedy, load_policy("expert")] * 2)
    print(result.record["final_points"])
"""

from __future__ import annotations

SMALL_JOKER = 52
POINTS = {3: 5, 8: 10, 11: 10}  # rank index of the 5, the 10 and the K


def points(card: int) -> int:
    return POINTS.get(card % 13, 0) if card < 52 else 0


class Greedy:
    """Highest card of the longest side suit to lead, the lowest legal play to follow."""

    def cost(self, view, card: int) -> int:
        """What giving a card away costs: trump above side cards, points, then strength."""
        return 1000 * view.is_trump(card) + 100 * (points(card) > 0) + int(view.order.pos[card])

    def bid(self, view):
        if view.drawn * 2 < view.variant.hand_size:
            return None
        best = None
        for suit in range(4):
            card = suit * 13 + view.level
            copies = int(view.counts[card])
            if copies == 0:
                continue
            length = int(view.counts[suit * 13 : suit * 13 + 13].sum())
            if best is None or length > best[0]:
                best = (length, card, copies)
        if best is None:
            return None
        _, card, copies = best
        cards = [card] * copies
        if view.first_hand and view.variant.first_hand_needs_small_joker:
            if view.counts[SMALL_JOKER] == 0:
                return None
            cards.append(SMALL_JOKER)
        return cards

    def bury(self, view):
        weakest = sorted(view.hand, key=lambda c: (self.cost(view, c), c))
        return weakest[: view.bottom_size]

    def lead(self, view):
        side = [k for k in range(4) if view.in_class(k)]
        if side:
            longest = max(side, key=lambda k: (len(view.in_class(k)), -k))
            return [view.in_class(longest)[-1]]
        return [view.in_class(4)[-1]]

    def follow(self, view):
        n = view.lead_size
        mine = view.in_class(view.lead_class)  # weakest first
        if n == 1:
            if mine:
                return [mine[0]]
            return [min(view.hand, key=lambda c: (self.cost(view, c), c))]
        if len(mine) <= n:
            rest = sorted(
                (c for c in view.hand if view.class_of(c) != view.lead_class), key=lambda c: (self.cost(view, c), c)
            )
            return mine + rest[: n - len(mine)]
        return min(view.legal_follows(), key=lambda play: (sum(self.cost(view, c) for c in play), play))
