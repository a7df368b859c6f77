"""Policies written in plain Python: the protocol, the views they see, and loading them.

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

``load_policy(spec)`` turns ``"expert"`` or ``"path/to/file.py:ClassName"`` or
``"package.module:ClassName"`` into a policy object; ``BuiltinPolicy(name)`` seats a compiled
built-in (``random``, ``basic``, ``expert``) at the same table as Python policies.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol, Sequence, runtime_checkable

import numpy as np

from ..engine import phases as ph
from ..engine.policies import POLICY_NAMES
from ..errors import SimsuiteError
from ..rules.cards import CARD_POINTS, N_CARDS, SMALL_JOKER
from ..rules.follow import FollowRuling, LeadStructure, best_profile, check_follow, unit_sets_with_rest
from ..rules.order import TRUMP, HandOrder
from ..rules.variant import Variant

POLICY_METHODS = ("bid", "bury", "lead", "follow")
BUILTIN_NAMES = POLICY_NAMES  # "random", "basic", "expert", "search": the engine's codes 0, 1, 2, 3


# --- the protocol ------------------------------------------------------------------------------


@runtime_checkable
class Policy(Protocol):
    """What ``play_hand_py`` asks of each seat (see the module docstring)."""

    def bid(self, view: "BidView") -> list[int] | None: ...

    def bury(self, view: "BuryView") -> list[int]: ...

    def lead(self, view: "LeadView") -> list[int]: ...

    def follow(self, view: "FollowView") -> list[int]: ...


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


def _ro(a: np.ndarray) -> np.ndarray:
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
        return check_follow(self.order, self.lead_structure, _hand_dict(self.counts), _play_dict(cards))

    def legal_follows(self) -> list[list[int]]:
        """Every distinct legal follow, as sorted card-id lists: the same set as
        ``simsuite.rules.follow.legal_follows`` on this hand, enumerated from the unit sets that reach
        the best follow profile instead of from every sub-hand. Exhaustive: fine when the player
        holds more of the led class than the lead; when it holds fewer, every fill from the rest
        of the hand is legal and the list can be very long, so pick the fill directly there."""
        return [list(cards_of_dict(d)) for d in legal_follow_dicts(self.order, self.lead_structure, _hand_dict(self.counts))]


def _hand_dict(counts) -> dict[int, int]:
    return {int(c): int(counts[c]) for c in np.nonzero(counts)[0]}


def _play_dict(cards: Sequence[int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for c in cards:
        out[int(c)] = out.get(int(c), 0) + 1
    return out


def cards_of_dict(d: dict[int, int]) -> tuple[int, ...]:
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
    """Every distinct legal follow as count dicts (see ``FollowView.legal_follows``)."""
    from ..rules.follow import _features, _profile  # the profile mechanism itself

    k = lead.n_cards
    in_hand = {c: m for c, m in hand.items() if m and int(order.cls[c]) == lead.cls}
    others = sorted((c, m) for c, m in hand.items() if m and int(order.cls[c]) != lead.cls)
    have = sum(in_hand.values())
    if have <= k:
        return [{**in_hand, **fill} for fill in _submultisets(others, k - have)]
    best = best_profile(order, in_hand, k, lead)
    if best == _profile(_features(order, (), lead), lead):
        # the lead asks for no structure this hand can give: any k cards of the class will do
        return list(_submultisets(sorted(in_hand.items()), k))
    seen: set[tuple] = set()
    out: list[dict[int, int]] = []
    for units, left in _unit_sets(order, in_hand, k):
        if _profile(_features(order, units, lead), lead) != best:
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


# --- built-in policies --------------------------------------------------------------------------


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
    (``seed``)."""

    def __init__(self, name: str, seed: int = 0):
        from ..engine.names import policy_code

        code = policy_code(name)
        if code is None:
            raise SimsuiteError(f"unknown built-in policy {name!r}; built-in policies: {', '.join(BUILTIN_NAMES)}")
        self.name = name
        self.code = code
        self.seed = seed
        self._table: EngineTable | None = None
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
            raise SimsuiteError(f"the {self.name.split('-')[0]} policy reads the hand's whole state (the search's "
                                f"candidates, the score, the voids): seat it at simsuite.play.pyhand.play_hand_py "
                                f"(it cannot answer a view on its own)")

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

        t = self._table
        if t is not None:
            P, s, hand = t.P, t.s, t.state.hands[view.seat]
        else:
            P, s, hand = self._params(view.variant), self._state()[0], np.array(view.counts, dtype=np.int64)
        card, n = bid_wish(self.code, hand, view.level, P, s, view.drawn)
        if card < 0:
            return None
        cards = [int(card)] * int(n)
        if view.first_hand and view.variant.first_hand_needs_small_joker and card != SMALL_JOKER and view.counts[SMALL_JOKER] >= 1:
            cards.append(SMALL_JOKER)  # the ticket the opening hand's bid must show
        return cards

    def bury(self, view: BuryView) -> list[int]:
        from ..engine import full as F
        from ..engine.params import BOTTOM

        out = np.zeros(N_CARDS, np.int64)
        if self._table is not None:
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
        if self._table is not None:
            self._decide("lead", out)
            return list(cards_of(out))
        P, s, W, hands, played, voids, cls, pos, ctx = self._arrays(view)
        F.decide_lead(P, _view_state(hands, cls, pos, played=played, voids=voids, ctx=ctx, seat=view.seat), self.code,
                      W, s, out)
        return list(cards_of(out))

    def _decide(self, what: str, out: np.ndarray) -> None:
        """Seated at ``play_hand_py``: the compiled loop's own dispatcher on the hand's state."""
        from ..engine import full as F

        t = self._table
        decide = {"bury": F.decide_bury, "lead": F.decide_lead, "follow": F.decide_follow}[what]
        decide(t.P, t.state, self.code, t.W, t.s, out)

    def follow(self, view: FollowView) -> list[int]:
        from ..engine import full as F
        from ..engine.follow import lead_info
        from ..engine.trick import beats, contender

        out = np.zeros(N_CARDS, np.int64)
        if self._table is not None:
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
        st = _view_state(hands, cls, pos, played=played, voids=voids, ctx=ctx, seat=view.seat, LI=LI, lead=lead,
                         win_c=win_c, winner=winner)
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


# --- loading ------------------------------------------------------------------------------------


def _one_line(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}".strip()
    return text.splitlines()[0] if text else type(e).__name__


def check_policy(obj: Any, what: str) -> Any:
    """``obj`` if it has the four policy methods, else a ``SimsuiteError`` naming the missing ones."""
    missing = [m for m in POLICY_METHODS if not callable(getattr(obj, m, None))]
    if missing:
        raise SimsuiteError(f"{what} lacks the policy method(s) {', '.join(missing)} "
                            f"(a policy needs bid, bury, lead and follow)")
    return obj


def _load_file(path_text: str, spec: str):
    path = Path(path_text)
    if not path.is_file():
        raise SimsuiteError(f"policy {spec!r}: file {path_text} not found")
    name = "simsuite_policy_" + "".join(ch if ch.isalnum() else "_" for ch in str(path.resolve()))
    mod_spec = importlib.util.spec_from_file_location(name, path)
    if mod_spec is None or mod_spec.loader is None:
        raise SimsuiteError(f"policy {spec!r}: file {path_text} cannot be imported as Python")
    module = importlib.util.module_from_spec(mod_spec)
    sys.modules[name] = module  # dataclasses and pickling look modules up by name
    try:
        mod_spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 - a user's file: report any failure in one line
        sys.modules.pop(name, None)
        raise SimsuiteError(f"policy {spec!r}: importing file {path_text} failed: {_one_line(e)}") from e
    return module, f"file {path_text}"


def _load_module(mod_name: str, spec: str):
    try:
        module = importlib.import_module(mod_name)
    except Exception as e:  # noqa: BLE001
        raise SimsuiteError(f"policy {spec!r}: module {mod_name} is not importable: {_one_line(e)}") from e
    return module, f"module {mod_name}"


def load_policy(spec: Any) -> Any:
    """A policy object from ``spec``:

    * a built-in name, ``"random"``, ``"basic"`` or ``"expert"``: a ``BuiltinPolicy``;
    * ``"path/to/file.py:ClassName"``: the class from that file, instantiated without arguments;
    * ``"package.module:ClassName"``: the class from an importable module, likewise;
    * an object that already has the four methods: itself.

    A bad spec raises ``SimsuiteError`` (a ``ValueError``) with a one-line message: the file is
    not found, the module is not importable, the class is missing, or the object lacks the
    four methods.
    """
    if not isinstance(spec, str):
        return check_policy(spec, f"policy {spec!r}")
    text = spec.strip()
    from ..engine.names import policy_code

    if policy_code(text) is not None:
        return BuiltinPolicy(text)
    if ":" not in text:
        raise SimsuiteError(f"policy {spec!r}: not a built-in policy ({', '.join(BUILTIN_NAMES)}) nor "
                            f"path/to/file.py:ClassName nor package.module:ClassName")
    where, cls_name = text.rsplit(":", 1)
    where, cls_name = where.strip(), cls_name.strip()
    if not where or not cls_name.isidentifier():
        raise SimsuiteError(f"policy {spec!r}: write path/to/file.py:ClassName or package.module:ClassName")
    if where.endswith(".py") or "/" in where or "\\" in where:
        module, src = _load_file(where, spec)
    else:
        module, src = _load_module(where, spec)
    obj = getattr(module, cls_name, None)
    if obj is None:
        raise SimsuiteError(f"policy {spec!r}: {src} has no class {cls_name}")
    if isinstance(obj, type):
        check_policy(obj, f"policy {spec!r}: class {cls_name}")
        try:
            obj = obj()
        except Exception as e:  # noqa: BLE001
            raise SimsuiteError(f"policy {spec!r}: {cls_name}() failed: {_one_line(e)}") from e
    return check_policy(obj, f"policy {spec!r}: {cls_name}")
