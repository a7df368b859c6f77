"""The compiled built-in policies (random, basic, expert, ...) behind the Python policy protocol.

``BuiltinPolicy(name)`` answers the four policy methods (``simsuite.play.policy``) with the
engine's own decisions: seated at ``simsuite.play.pyhand.play_hand_py`` it shares the hand's arrays
(``EngineTable``); on its own it rebuilds them from the view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine import phases as ph
from ..engine.policies.codes import POLICY_NAMES
from ..errors import SimsuiteError
from ..rules.cards import CARD_POINTS, N_CARDS, SMALL_JOKER
from ..rules.variant import Variant
from .policy import BidView, BuryView, FollowView, LeadView, View, cards_of, counts_of

BUILTIN_NAMES = POLICY_NAMES  # "random", "basic", "expert", "search": the engine's codes 0, 1, 2, 3


@dataclass(eq=False)
class EngineTable:
    """The compiled engine's hand, shared by ``play_hand_py`` with the ``BuiltinPolicy`` objects
    seated at it (never with Python policies): the parameter array, the hand's random state (one
    stream for the deal, the bids, the fallback and the random policy, as in
    ``engine.hand.play_hand``), the scratch tables and the hand's ``HandState`` (engine.phases)."""

    P: np.ndarray
    s: np.ndarray
    W: np.ndarray
    state: Any


class BuiltinPolicy:
    """A compiled built-in policy (``random``, ``basic`` or ``expert``) behind the Python protocol.

    Seated at ``play_hand_py`` it calls the engine's own functions (``bid_wish``, ``choose_bury``,
    ``choose_lead``, ``choose_follow``) on the hand's arrays and random state, so four of them
    play exactly the hand that ``engine.api.play_one`` plays. Used on its own (inside another
    policy, say) it rebuilds those arrays from the view and draws from its own random state
    (``seed``). ``seated_at`` is the ``EngineTable`` that ``play_hand_py`` seats it at for one
    hand (``None`` on its own)."""

    def __init__(self, name: str, seed: int = 0):
        from ..engine.names import policy_code

        code = policy_code(name)
        if code is None:
            raise SimsuiteError(f"unknown built-in policy {name!r}; built-in policies: {', '.join(BUILTIN_NAMES)}")
        self.name = name
        self.code = code
        self.seed = seed
        self.seated_at: EngineTable | None = None
        self._own_s: np.ndarray | None = None
        self._own_W: np.ndarray | None = None
        self._P: tuple | None = None

    def __repr__(self) -> str:
        return f"BuiltinPolicy({self.name!r})"

    # the engine's arrays: the table's when seated, else rebuilt from the view
    def _state(self):
        if self._own_s is None:
            from ..engine.core import Work
            from ..engine.rng import seed_state

            self._own_s = seed_state(self.seed)
            self._own_W = Work().arrays()
        return self._own_s, self._own_W

    def _params(self, variant: Variant) -> np.ndarray:
        if self._P is None or self._P[0] is not variant:
            from ..engine.params import compile_variant

            self._P = (variant, compile_variant(variant))
        return self._P[1]

    def _tables(self, view: View):
        cls = np.ascontiguousarray(view.order.cls, dtype=np.int64)
        pos = np.ascontiguousarray(view.order.pos, dtype=np.int64)
        return cls, pos

    def _not_search(self) -> None:
        if self.name.startswith("search") or self.name == "learned":
            raise SimsuiteError(
                f"the {self.name.split('-')[0]} policy reads the hand's whole state (the search's "
                f"candidates, the score, the voids): seat it at simsuite.play.pyhand.play_hand_py "
                f"(it cannot answer a view on its own)"
            )

    def _arrays(self, view: View):
        """(P, s, W, hands, played, voids, cls, pos, ctx) for a lead or a follow by a policy on its own."""
        self._not_search()
        s, W = self._state()
        P = self._params(view.variant)
        hands = np.zeros((4, N_CARDS), np.int64)
        hands[view.seat] = view.counts
        played = np.array(view.played, dtype=np.int64)
        voids = np.zeros((4, 5), np.int64)
        for seat, ks in enumerate(view.voids):
            for k in ks:
                voids[seat, k] = 1
        cls, pos = self._tables(view)
        ctx = np.zeros(8, np.int64)
        ctx[ph.C_DECL] = view.declarers
        ctx[ph.C_LEFT] = view.cards_left
        ctx[ph.C_DEALER] = view.dealer
        ctx[ph.C_TRUMP] = view.trump
        ctx[ph.C_LEVEL] = view.level
        ctx[ph.C_TRICKS] = view.trick_number
        ctx[ph.C_TRICK_POINTS] = sum(int(CARD_POINTS[c]) for _, cards in view.trick for c in cards)
        ctx[ph.C_LEADER] = view.leader if isinstance(view, FollowView) else view.seat
        return P, s, W, hands, played, voids, cls, pos, ctx

    def bid(self, view: BidView) -> list[int] | None:
        from ..engine.policies import bid_wish

        t = self.seated_at
        if t is not None:
            P, s, hand = t.P, t.s, t.state.hands[view.seat]
        else:
            P, s, hand = self._params(view.variant), self._state()[0], np.array(view.counts, dtype=np.int64)
        card, n = bid_wish(self.code, hand, view.level, P, s, view.drawn)
        if card < 0:
            return None
        cards = [int(card)] * int(n)
        if (
            view.first_hand
            and view.variant.first_hand_needs_small_joker
            and card != SMALL_JOKER
            and view.counts[SMALL_JOKER] >= 1
        ):
            cards.append(SMALL_JOKER)  # the ticket the opening hand's bid must show
        return cards

    def bury(self, view: BuryView) -> list[int]:
        from ..engine import full as F
        from ..engine.params import BOTTOM

        out = np.zeros(N_CARDS, np.int64)
        if self.seated_at is not None:
            self._decide("bury", out)
            return list(cards_of(out))
        self._not_search()
        cls, pos = self._tables(view)
        s, W = self._state()
        hands = np.zeros((4, N_CARDS), np.int64)
        hands[view.seat] = view.counts
        P = self._params(view.variant).copy()
        P[BOTTOM] = view.bottom_size  # ``decide`` buries the variant's bottom size; the view's governs
        F.decide_bury(P, _view_state(hands, cls, pos, dealer=view.seat), self.code, W, s, out)
        return list(cards_of(out))

    def lead(self, view: LeadView) -> list[int]:
        from ..engine import full as F

        out = np.zeros(N_CARDS, np.int64)
        if self.seated_at is not None:
            self._decide("lead", out)
            return list(cards_of(out))
        P, s, W, hands, played, voids, cls, pos, ctx = self._arrays(view)
        F.decide_lead(
            P, _view_state(hands, cls, pos, played=played, voids=voids, ctx=ctx, seat=view.seat), self.code, W, s, out
        )
        return list(cards_of(out))

    def _decide(self, what: str, out: np.ndarray) -> None:
        """Seated at ``play_hand_py``: the compiled loop's own dispatcher on the hand's state."""
        from ..engine import full as F

        t = self.seated_at
        decide = {"bury": F.decide_bury, "lead": F.decide_lead, "follow": F.decide_follow}[what]
        decide(t.P, t.state, self.code, t.W, t.s, out)

    def follow(self, view: FollowView) -> list[int]:
        from ..engine import full as F
        from ..engine.follow import lead_info
        from ..engine.trick import beats, contender

        out = np.zeros(N_CARDS, np.int64)
        if self.seated_at is not None:
            self._decide("follow", out)
            return list(cards_of(out))
        P, s, W, hands, played, voids, cls, pos, ctx = self._arrays(view)
        # replay the trick so far as the hand loop does
        lead = counts_of(view.lead)
        LI = np.zeros(64, np.int64)
        lead_info(lead, cls, pos, P, W, LI)
        win_c = np.zeros(3, np.int64)
        cur = np.zeros(3, np.int64)
        contender(lead, cls, pos, P, LI, W, True, win_c)
        winner = view.leader
        for seat, cards in view.trick[1:]:
            if contender(counts_of(cards), cls, pos, P, LI, W, False, cur) and beats(cur, win_c):
                win_c[:] = cur
                winner = seat
        st = _view_state(
            hands,
            cls,
            pos,
            played=played,
            voids=voids,
            ctx=ctx,
            seat=view.seat,
            LI=LI,
            lead=lead,
            win_c=win_c,
            winner=winner,
        )
        F.decide_follow(P, st, self.code, W, s, out)
        return list(cards_of(out))


def _view_state(hands, cls, pos, seat=0, dealer=0, winner=-1, **arrays):
    """A ``HandState`` around the arrays a ``BuiltinPolicy`` on its own rebuilds from a view (the
    others empty), with ``seat`` to move and ``dealer`` dealing, so that it decides through
    ``engine.full.decide``, compiled once for every built-in policy: the policies' dispatch called
    from Python would compile a copy of its own."""
    z = ph.new_state()
    sc = z.sc
    sc[ph.S_DEALER] = dealer
    sc[ph.S_LEADER] = arrays["ctx"][ph.C_LEADER] if "ctx" in arrays else seat
    sc[ph.S_TURN] = (seat - sc[ph.S_LEADER]) % 4
    sc[ph.S_WINNER] = winner
    return z._replace(hands=hands, cls=cls, pos=pos, **arrays)
