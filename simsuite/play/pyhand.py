"""One whole hand in plain Python, asking four policy objects (``simsuite.play.policy``).

``play_hand_py`` drives the same compiled phases as ``engine.hand.play_hand``
(``engine.phases``: deal, bids, fallback, bury, lead with its throw test, follow, end of trick,
score) on the same ``HandState`` and random state, so with four ``BuiltinPolicy`` objects it plays
exactly the hand of ``engine.api.play_one``; with Python policies it is the slower path for
analysts' policies. Only the asking differs: each policy gets a view (``simsuite.play.policy``).

Every answer is checked with the readable rules core (``simsuite.rules.declare.read_bid``,
``simsuite.rules.trick.rule_lead``, ``simsuite.rules.follow.check_follow``). A bid the rules reject is not
made; a bury, lead or follow that breaks a rule raises ``IllegalPlayError`` and is never fixed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..engine import hand as H
from ..engine import phases as ph
from ..engine.api import HandHistory, HandResult, hand_states
from ..engine.core import NC
from ..engine.params import BIDDING, BIDDING_CONCEALED, BOTTOM, DECKS, HAND_SIZE, compile_variant
from ..engine.policies.model import work_for
from ..errors import IllegalPlayError, SimsuiteError
from ..rules.cards import N_CARDS, SEATS, format_cards
from ..rules.declare import read_bid
from ..rules.follow import check_follow, lead_structure
from ..rules.order import hand_order
from ..rules.trick import rule_lead
from ..rules.variant import Variant, load_variant
from .builtin import BuiltinPolicy, EngineTable
from .loader import check_policy, load_policy
from .policy import Bid, BidView, BuryView, FollowView, LeadView, Trick, cards_of, read_only


def _fmt(cards) -> str:
    return format_cards(list(cards), sort=False) if len(cards) else "no cards"


def _answer(seat: int, what: str, answer: Any) -> list[int]:
    """A policy's answer as a list of card ids, or an ``IllegalPlayError`` saying what is wrong."""
    name = SEATS[seat]
    if answer is None or isinstance(answer, (str, bytes, dict)):
        raise IllegalPlayError(
            f"{name}'s {what}: the policy returned {answer!r}, not a list of card ids", "not a list of card ids"
        )
    try:
        items = list(answer)
    except TypeError:
        raise IllegalPlayError(
            f"{name}'s {what}: the policy returned {answer!r}, not a list of card ids", "not a list of card ids"
        ) from None
    out = []
    for c in items:
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)) or not 0 <= int(c) < N_CARDS:
            raise IllegalPlayError(
                f"{name}'s {what}: {c!r} is not a card id (ids are 0..{N_CARDS - 1})", "not a card id"
            )
        out.append(int(c))
    return out


def _not_held(hand: np.ndarray, play: np.ndarray) -> list[int]:
    return [int(c) for c in np.nonzero(play > hand)[0]]


def _missing_text(seat: int, hand: np.ndarray, play: np.ndarray, bad: list[int]) -> str:
    name = SEATS[seat]
    parts = ", ".join(f"{_fmt([c])} x{int(play[c])} (holds {int(hand[c])})" for c in bad)
    return f"plays cards that are not in {name}'s hand: {parts}"


def play_hand_py(
    variant: Variant | str,
    seed: int,
    policies: Sequence[Any],
    level: int | None = None,
    first_drawer: int = 0,
    first_hand: bool = True,
    hand_index: int = 0,
    keep: bool = True,
) -> HandResult:
    """Play hand ``hand_index`` of the run with root ``seed`` asking ``policies`` (four policy
    objects, or specs for ``load_policy``, seats N, E, S, W). ``first_drawer`` draws first and,
    unless the opening hand's declaration decides otherwise, deals. Returns the engine's
    ``HandResult`` (record, and the history with ``keep``)."""
    v = load_variant(variant) if isinstance(variant, str) else variant
    pols = list(policies)
    if len(pols) != 4:
        raise SimsuiteError(f"play_hand_py needs four policies (N, E, S, W), got {len(pols)}")
    pols = [
        load_policy(p) if isinstance(p, str) else check_policy(p, f"policy for seat {SEATS[i]}")
        for i, p in enumerate(pols)
    ]
    P = compile_variant(v)
    lvl = v.start_level if level is None else int(level)
    s = hand_states(seed, hand_index, 1)[0].copy()
    W = work_for([p.code for p in pols if isinstance(p, BuiltinPolicy)])
    first_hand = bool(first_hand)
    first_drawer = int(first_drawer)

    rec = np.zeros(H.N_RECORD, np.int64)
    st = ph.new_state()
    table = EngineTable(P=P, s=s, W=W, state=st)
    seated = {id(p): p for p in pols if isinstance(p, BuiltinPolicy)}
    saved = {k: p.seated_at for k, p in seated.items()}
    for p in seated.values():
        p.seated_at = table
    try:
        return _play(v, P, s, W, st, pols, lvl, first_drawer, first_hand, keep, rec)
    finally:
        for k, p in seated.items():
            p.seated_at = saved[k]


def _play(v, P, s, W, st, pols, level, first_drawer, first_hand, keep, rec) -> HandResult:
    """The phases of ``engine.phases`` in order, asking Python policies and checking each answer
    with the readable rules core."""
    sc = st.sc
    hands = st.hands
    hs = int(P[HAND_SIZE])
    nb = int(P[BOTTOM])
    concealed = P[BIDDING] == BIDDING_CONCEALED
    deck = np.empty(54 * int(P[DECKS]), np.int64)
    bids: list[Bid] = []
    h_bids: list[tuple[int, int, int, int]] = []

    def ask_bid(seat: int, drawn: int):
        view = BidView(
            seat=seat,
            hand=cards_of(hands[seat]),
            counts=read_only(hands[seat]),
            level=level,
            variant=v,
            drawn=drawn,
            first_drawer=first_drawer,
            first_hand=first_hand,
            concealed=concealed,
            bids=tuple(bids),
        )
        answer = pols[seat].bid(view)
        if answer is None:
            return
        shown = _answer(seat, "bid", answer)
        if not shown:
            return  # showing nothing is not bidding
        bad = _not_held(hands[seat], np.bincount(shown, minlength=NC))
        if bad:
            raise IllegalPlayError(
                f"{SEATS[seat]}'s bid ({_fmt(shown)}) shows cards {SEATS[seat]} does not hold: {_fmt(bad)}",
                "shows cards that are not in the hand",
            )
        read = read_bid(v, level, shown, first_hand)
        if isinstance(read, str):
            return  # the rules reject it: the bid is not made
        card, n = read
        kind = int(ph.apply_bid(P, st, seat, card, n, first_hand))
        if kind > 0:
            bids.append(Bid(seat, card, n, kind))
            if keep and len(h_bids) < H.MAX_BIDS:
                h_bids.append((seat, card, n, kind))

    while True:
        ph.start_deal(P, s, st, deck)
        bids.clear()
        h_bids.clear()
        for i in range(4 * hs):
            seat = int(ph.draw(st, deck, i, first_drawer))
            if ph.bid_moment(P, deck[i], i, level):
                ask_bid(seat, i // 4 + 1)
        ph.form_bottom(P, st, deck)
        if concealed:
            # concealed bids, shown after the draw in drawing order
            for i in range(4):
                ask_bid((first_drawer + i) % 4, hs)
        if ph.settle_declaration(P, s, st, deck, level, first_drawer, first_hand):
            break
    trump, dealer, declarers = int(sc[ph.S_TRUMP]), int(sc[ph.S_DEALER]), int(sc[ph.S_DECLARERS])
    h_deal = hands.copy() if keep else None
    h_bottom = st.bottom.copy() if keep else None
    order = hand_order(v, level, trump)
    finished: list[Trick] = []

    def voids_view():
        return tuple(frozenset(int(k) for k in np.nonzero(st.voids[seat])[0]) for seat in range(4))

    def base(seat):
        return dict(
            seat=seat,
            hand=cards_of(hands[seat]),
            counts=read_only(hands[seat]),
            level=level,
            variant=v,
            trump=trump,
            declarers=declarers,
            dealer=dealer,
            order=order,
            played=read_only(st.played),
            tricks=tuple(finished),
            trick_number=int(sc[ph.S_TRICKS]),
            cards_left=int(sc[ph.S_CARDS_LEFT]),
            voids=voids_view(),
            defender_points=int(sc[ph.S_DEF_POINTS]),
        )

    # bury
    bury = np.zeros(NC, np.int64)
    dealt_bottom = cards_of(st.bottom)
    ph.take_bottom(st)
    if nb > 0:
        view = BuryView(
            seat=dealer,
            hand=cards_of(hands[dealer]),
            counts=read_only(hands[dealer]),
            level=level,
            variant=v,
            trump=trump,
            declarers=declarers,
            dealer=dealer,
            order=order,
            played=read_only(st.played),
            cards_left=hs,
            voids=voids_view(),
            bottom=dealt_bottom,
            bottom_size=nb,
            bids=tuple(bids),
        )
        cards = _answer(dealer, "bury", pols[dealer].bury(view))
        name = SEATS[dealer]
        if len(cards) != nb:
            raise IllegalPlayError(
                f"{name}'s bury ({_fmt(cards)}): buries {len(cards)} card(s), but the bottom "
                f"is {nb} cards and exactly {nb} must be buried",
                "wrong number of cards",
            )
        bury = np.bincount(cards, minlength=NC).astype(np.int64)
        bad = _not_held(hands[dealer], bury)
        if bad:
            raise IllegalPlayError(
                f"{name}'s bury ({_fmt(cards)}): buries cards that are not in {name}'s hand "
                f"(with the bottom): {_fmt(bad)}",
                "cards that are not in the hand",
            )
    ph.apply_bury(st, bury)

    # tricks
    table_of = {id(p): p.seated_at for p in pols if isinstance(p, BuiltinPolicy)}
    h_plays: list[np.ndarray] = []
    forced = np.zeros(NC, np.int64)

    def record(seat, kind, cards):
        if keep and len(h_plays) < H.MAX_PLAYS:
            h_plays.append(np.concatenate(([int(sc[ph.S_TRICKS]), seat, kind, -1], cards)).astype(np.int64))

    while not ph.hand_over(st.sc):
        tno = int(sc[ph.S_TRICKS]) + 1
        leader = int(sc[ph.S_LEADER])
        name = SEATS[leader]
        cards = _answer(leader, f"lead in trick {tno}", pols[leader].lead(LeadView(**base(leader))))
        lead = np.bincount(cards, minlength=NC).astype(np.int64) if cards else np.zeros(NC, np.int64)
        if not cards:
            raise IllegalPlayError(f"{name}'s lead in trick {tno}: a lead must have at least one card", "empty lead")
        bad = _not_held(hands[leader], lead)
        if bad:
            raise IllegalPlayError(
                f"{name}'s lead in trick {tno} ({_fmt(cards)}) is illegal: "
                f"{_missing_text(leader, hands[leader], lead, bad)}",
                "cards that are not in the hand",
            )
        ruling = rule_lead(order, {c: int(lead[c]) for c in np.nonzero(lead)[0]})
        if not ruling.legal:
            raise IllegalPlayError(
                f"{name}'s lead in trick {tno} ({_fmt(cards)}) is illegal: {ruling.reason}", ruling.reason
            )
        status = ph.apply_lead(P, st, W, lead, forced)
        attempted = tuple(cards) if status in (ph.LEAD_FORCED, ph.LEAD_FORFEIT) else None
        if attempted is not None:
            record(leader, 1, lead)
        if status == ph.LEAD_FORFEIT:
            break
        first_row = len(h_plays)
        record(leader, 0, st.lead)
        lead_cards = cards_of(st.lead)
        structure = lead_structure(order, {c: int(st.lead[c]) for c in np.nonzero(st.lead)[0]})
        plays = [(leader, lead_cards)]
        for i in range(1, 4):
            seat = (leader + i) % 4
            fname = SEATS[seat]
            winner = int(sc[ph.S_WINNER])
            for t in table_of.values():
                t.winner = winner
            view = FollowView(
                **{**base(seat), "trick": tuple(plays)},
                leader=leader,
                lead=lead_cards,
                lead_structure=structure,
                winner=winner,
                failed_throw=attempted,
            )
            where = (
                f"{fname}'s follow in trick {tno} to {name}'s lead {_fmt(lead_cards)} (shape {structure.describe()})"
            )
            cards = _answer(seat, f"follow in trick {tno}", pols[seat].follow(view))
            play = np.bincount(cards, minlength=NC).astype(np.int64) if cards else np.zeros(NC, np.int64)
            bad = _not_held(hands[seat], play)
            if bad:
                raise IllegalPlayError(
                    f"{where} is illegal: {_missing_text(seat, hands[seat], play, bad)} (played {_fmt(cards)})",
                    "cards that are not in the hand",
                )
            r = check_follow(
                order,
                structure,
                {c: int(hands[seat, c]) for c in np.nonzero(hands[seat])[0]},
                {c: int(play[c]) for c in np.nonzero(play)[0]},
            )
            if not r.legal:
                raise IllegalPlayError(f"{where} is illegal: {fname} {r.reason} (played {_fmt(cards)})", r.reason)
            ph.apply_follow(P, st, W, play)
            record(seat, 0, play)
            plays.append((seat, tuple(cards_of(play))))
        winner = int(sc[ph.S_WINNER])
        for row in h_plays[first_row:]:
            row[3] = winner
        finished.append(
            Trick(int(sc[ph.S_TRICKS]), leader, tuple(plays), winner, int(sc[ph.S_TRICK_POINTS]), attempted)
        )
        ph.finish_trick(st)

    H.write_record(P, st, W, rec)
    record_dict = dict(zip(H.RECORD_FIELDS, (int(x) for x in rec)))
    hist = None
    if keep:
        bids_arr = np.array(h_bids, np.int64).reshape(-1, 4)
        plays_arr = np.array(h_plays, np.int64).reshape(-1, H.PLAY_COLS)
        hist = HandHistory(h_deal, h_bottom, bids_arr, bury.copy(), plays_arr)
    return HandResult(record_dict, hist)


def warm_up_python_path(variant: Variant, policy: str = "expert-v1") -> None:
    """Compile what the Python hand loop calls in compiled code (the phases and a built-in's decisions):
    one hand of four ``BuiltinPolicy(policy)`` seats. ``engine.warm.warm_up`` covers the compiled loops;
    this covers the Python path above them (``tests/conftest.py``, ``benchmarks/compile_profile.py``)."""
    play_hand_py(variant, 0, [BuiltinPolicy(policy) for _ in range(4)])
